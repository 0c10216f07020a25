"""Visible and hidden tests of a task, for multi-turn repair, and a checker for hidden tests that leak.

In a repair episode the model gets feedback from the VISIBLE tests only and is rewarded on the HIDDEN
ones, so no hidden test may be readable where the model looks (its prompt, the chat message).  Each test
is normalised to a `TestPair` (the entry-point calls it makes, the value it expects); `pair_appears`
tells, conservatively (when in doubt, yes), whether a text shows that pair.

`split_tests(task, seed)` applies this rule:

1. Tests whose pair cannot be normalised (`test_pair` is None) are always visible.
2. Tests whose pair appears in the task's prompt (`pair_appears(pair, task.prompt)`) are visible.
3. If the task marks its own split (any test has `hidden=True`, e.g. MBPP's challenge tests) -> rule
   "marked": hidden = the marked tests not made visible by 1-2; visible = the rest.
4. Else if some tests were made visible by 2 and at least one remains -> rule "prompt": the remaining
   tests are hidden.
5. Else, a task with at least 2 tests (among those not forced visible) -> rule "seeded": shuffle those
   tests' ids with `random.Random(f"{seed}:{task.task_id}")`; the first max(1, n // 2) are visible,
   the rest hidden (so at least one is hidden).
6. A task with fewer than 2 tests (and nothing marked/prompt-visible) -> rule "too_few": all visible,
   none hidden.  If every test is visible by 1-2 -> "all_in_prompt" (none hidden); when none of them
   was made visible by 2 (every test is un-normalisable) the rule is "too_few".
7. Finally (all rules): a hidden test whose pair a visible test's feedback would reveal moves to
   visible: equal pairs, or (function tests) the same method steps and a shared call; (stdio) the same
   input; or its pair appears (`pair_appears`) in the visible tests' code and expected values, which
   is all the feedback shows of them.  Repeated until nothing moves.  If that leaves no hidden test, the rule becomes
   "all_in_prompt" only if it was "prompt", else the rule name stays and hidden is empty.

Visible and hidden keep the task's test order; the same task and seed always give the same split.
`leaked_tests` lists the hidden tests that appear in given texts (and hidden tests with no pair).

Pairs are built in `coderl.tasks.pairs`, and read in texts by `coderl.tasks.appears`.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterable
from dataclasses import dataclass

from coderl.sandbox.types import CheckKind, TestCase
from coderl.tasks.appears import pair_appears
from coderl.tasks.pairs import ANY, TestPair, canonical, test_pair
from coderl.tasks.types import Task

__all__ = ["ANY", "TestPair", "TestSplit", "canonical", "leaked_tests", "pair_appears", "split_tests", "test_pair"]


# ---- the split -----------------------------------------------------------------------------------------

@dataclass(frozen=True)
class TestSplit:
    __test__ = False  # not a pytest test class
    visible: tuple[TestCase, ...]
    hidden: tuple[TestCase, ...]
    rule: str  # "prompt" | "marked" | "seeded" | "too_few" | "all_in_prompt" (the module's rule)

    @property
    def has_hidden(self) -> bool:
        return bool(self.hidden)


def _reveals(shown: TestPair, hidden: TestPair) -> bool:
    """Would the feedback of a visible test with pair `shown` reveal the hidden pair's answer?"""
    if shown == hidden or hidden.stdin is not None:
        return shown.stdin == hidden.stdin
    return shown.stdin is None and shown.steps == hidden.steps and bool(set(shown.calls) & set(hidden.calls))


def _shown(test: TestCase, entry_point: str | None) -> str:
    """What the feedback on a visible test can show: its code (or its input) and its expected value."""
    if test.check is CheckKind.JSON:
        try:
            code = f"{entry_point}({', '.join(json.dumps(a) for a in json.loads(test.source))})"
        except (ValueError, TypeError):
            code = test.source
    else:
        code = test.setup + test.source
    return f"{code}\n{test.expected!r}"


def split_tests(task: Task, seed: int = 0) -> TestSplit:
    """Visible and hidden tests of `task` by the module's rule (deterministic in task and seed)."""
    tests = task.tests
    pairs = [test_pair(t, task.entry_point) for t in tests]
    in_prompt = {i for i, p in enumerate(pairs) if p is not None and pair_appears(p, task.prompt)}
    rest = [i for i, p in enumerate(pairs) if p is not None and i not in in_prompt]
    if any(t.hidden for t in tests):
        rule, hidden = "marked", {i for i in rest if tests[i].hidden}
    elif in_prompt and rest:
        rule, hidden = "prompt", set(rest)
    elif len(rest) >= 2:
        order = list(rest)
        random.Random(f"{seed}:{task.task_id}").shuffle(order)
        rule, hidden = "seeded", set(order[max(1, len(order) // 2):])
    else:
        rule, hidden = ("all_in_prompt" if in_prompt else "too_few"), set()
    while True:  # a test moved to visible may reveal another one
        shown = "\n\n".join(_shown(t, task.entry_point) for i, t in enumerate(tests) if i not in hidden)
        revealed = {h for h in hidden if pair_appears(pairs[h], shown) or any(
            p is not None and i not in hidden and _reveals(p, pairs[h]) for i, p in enumerate(pairs))}
        if not revealed:
            break
        hidden -= revealed
    if not hidden and rule == "prompt":
        rule = "all_in_prompt"
    return TestSplit(tuple(t for i, t in enumerate(tests) if i not in hidden),
                     tuple(t for i, t in enumerate(tests) if i in hidden), rule)


def leaked_tests(task: Task, split: TestSplit, texts: Iterable[str]) -> list[str]:
    """Ids of hidden tests whose pair appears in any of `texts`, and of hidden tests with no pair
    (they should never be hidden), in the split's order."""
    texts = list(texts)
    pairs = [(t.id, test_pair(t, task.entry_point)) for t in split.hidden]
    return [i for i, p in pairs if p is None or any(pair_appears(p, text) for text in texts)]
