"""Execution feedback for a repair turn: what the visible tests said about an answer, as one user message.

Only the *visible* tests' outcomes are read (`coderl.tasks.visibility` splits a task's tests); the
request that produced them ran those tests and nothing else, so neither a hidden test's arguments nor
anything the program printed while a hidden test ran can reach the message.  The format:

    Your code failed these visible tests:

    >>> add(2, 3)
    got 6, expected 5

    >>> add(-1, 1)
    ZeroDivisionError: division by zero

    Fix the code. Reply with the complete function in one ```python code block.

* a test is shown as the call it makes (`candidate` renamed to the entry point), an assert test as its
  statements, a stdin test as `Input:` and the input; then the judge's one line: `got X, expected Y`,
  the exception's last line, the time or memory limit hit, or `not run` when the program ended first;
* a program that never reached its tests (it does not compile, does not build, or the judge caught it
  tampering: a judge-observed note, docs/sandbox.md; a program-side courtesy note does not count) gets
  one line instead: `Your code did not run: <the reason>`;
* the message is capped at `max_tokens` tokens: failing tests are listed in order while they fit,
  then `... and more failing tests not shown`; a first test too long for the cap is cut mid-way.  The
  opening line and the closing instruction always stay.

The message's own words hold no numbers (not even the count of failures): the leak check
(`coderl.tasks.visibility.leaked_tests`) reads every number in a text as a possible test value.

This module does not import torch.
"""

from __future__ import annotations

import ast
import json
import warnings
from collections.abc import Callable

from coderl.languages import get_language
from coderl.sandbox.types import PARENT_JUDGED, CheckKind, ExecutionResult, Status, TestCase
from coderl.tasks.kinds import get_kind
from coderl.tasks.test_files import KIND as TEST_FILE
from coderl.tasks.test_files import test_source
from coderl.tasks.types import Task

SNIPPET_CHARS = 400  # an input or statement longer than this is cut (the token cap applies after)
_NEVER_RAN = {Status.SYNTAX_ERROR, Status.BUILD_ERROR, Status.SANDBOX_ERROR}


def warn_unless_isolated(sandbox, who: str) -> None:
    """A RuntimeWarning when `sandbox` runs below isolation `full`: there programs share /tmp, so an answer's
    hidden-test run could leave the hidden arguments where its visible-test run (whose output is the feedback) reads
    them.  `who`: what shows the feedback (repair turns)."""
    if getattr(sandbox, "isolation", "full") != "full":
        warnings.warn(f"{who} under sandbox isolation {sandbox.isolation!r}: programs share /tmp, so an answer's "
                      "hidden-test run could leave the hidden arguments where its visible-test run (whose output is "
                      "the feedback) reads them; only isolation 'full' closes that channel", RuntimeWarning,
                      stacklevel=3)


def closing_instruction(task: Task) -> str:
    """The request that ends every feedback message: the task's own answer format."""
    language = get_language(task.language)
    what = "function" if get_kind(task.kind).prompt_is_code else "program"
    return f"Fix the code. Reply with the complete {what} in one ```{language.fence_tag} code block."


def _rename(source: str, entry_point: str | None) -> str:
    """`candidate(...)` as the prompt names it; the source unchanged when it does not parse."""
    if not entry_point or "candidate" not in source:
        return source.strip()
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return source.strip()

    class Rename(ast.NodeTransformer):
        def visit_Name(self, node):  # noqa: N802 -- ast's method name
            return ast.copy_location(ast.Name(entry_point, node.ctx), node) if node.id == "candidate" else node

    return ast.unparse(Rename().visit(tree)).strip()


def _cut(text: str, limit: int = SNIPPET_CHARS) -> str:
    return text if len(text) <= limit else text[:limit] + " ..."


def show_test(task: Task, test: TestCase) -> str:
    """How a test appears in feedback: the call, the statements, or the input (a test file's test: its function)."""
    if task.kind == TEST_FILE:
        code = test_source(task.test_preamble, test.id)
        return "\n".join(">>> " + line if i == 0 else "... " + line for i, line in enumerate(_cut(code).splitlines()))
    if test.check in PARENT_JUDGED:
        return ">>> " + _cut(_rename(test.source, task.entry_point))
    if test.check is CheckKind.ASSERT:
        code = _rename(test.setup + test.source, task.entry_point)
        return "\n".join(">>> " + line if i == 0 else "... " + line for i, line in enumerate(_cut(code).splitlines()))
    if test.check is CheckKind.JSON:
        try:
            args = ", ".join(json.dumps(a) for a in json.loads(test.source))
        except (ValueError, TypeError):
            args = test.source.strip()
        return f">>> {task.entry_point}({_cut(args)})"
    return "Input:\n" + _cut(test.source.rstrip("\n"))


def _verdict(outcome) -> str:
    if outcome.status is Status.NOT_RUN:
        return "not run (the program ended before this test)"
    return outcome.message.strip().splitlines()[-1] if outcome.message.strip() else outcome.status.value


def feedback_message(task: Task, tests: tuple[TestCase, ...], result: ExecutionResult, *,
                     count_tokens: Callable[[str], int] | None = None, max_tokens: int | None = None) -> str:
    """The user message after a failed turn, from the result of running `tests` (the visible ones) only.

    count_tokens/max_tokens: cap the message (see the module docstring); None = no cap.
    """
    closing = closing_instruction(task)
    if result.status in _NEVER_RAN or not result.tests or result.caught:
        reason = (result.message or result.status.value).strip().splitlines()
        head = f"Your code did not run: {_cut(reason[-1] if reason else result.status.value)}"
        return _fit([head], [], closing, count_tokens, max_tokens)
    by_id = {t.id: t for t in tests}
    failing = [o for o in result.tests if not o.passed and o.id in by_id]
    head = ("Your code failed these visible tests:" if len(failing) == len(result.tests)
            else "Your code passed some visible tests and failed these:")
    blocks = [f"{show_test(task, by_id[o.id])}\n{_cut(_verdict(o))}" for o in failing]
    return _fit([head], blocks, closing, count_tokens, max_tokens)


def _fit(head: list[str], blocks: list[str], closing: str, count_tokens, max_tokens) -> str:
    """Join head, as many blocks as fit in `max_tokens`, a note on the rest, and the closing line."""
    def text(shown: list[str]) -> str:
        more = ["... and more failing tests not shown"] if len(shown) < len(blocks) else []
        return "\n\n".join(head + shown + more + [closing])

    if count_tokens is None or max_tokens is None:
        return text(blocks)
    shown: list[str] = []
    for block in blocks:
        if count_tokens(text(shown + [block])) > max_tokens:
            break
        shown.append(block)
    if not shown and blocks:  # the first failing test alone is too long: cut it to what fits
        budget = max_tokens - count_tokens(text([""]))
        cut = _cut_to_tokens(blocks[0], budget, count_tokens)
        if cut:
            shown = [cut]
    return text(shown)


def _cut_to_tokens(block: str, budget: int, count_tokens) -> str:
    """The longest prefix of `block` (plus " ...") of at most `budget` tokens; "" when none fits."""
    lo, hi = 0, len(block)
    while lo < hi:  # binary search on characters: token counts grow with the prefix
        mid = (lo + hi + 1) // 2
        if count_tokens(block[:mid] + " ...") <= budget:
            lo = mid
        else:
            hi = mid - 1
    return block[:lo] + " ..." if lo else ""
