import concurrent.futures
import contextlib
import subprocess
import sys

import pytest

from coderl.sandbox.client import Sandbox, SandboxUnavailable
from coderl.sandbox.types import CheckKind, ExecutionRequest, Limits, Mode, TestCase

ADD_TESTS = (
    TestCase("0", "candidate(1, 2)", CheckKind.EQUALS, 3),
    TestCase("1", "assert candidate(2, 2) == 4", CheckKind.ASSERT),
    TestCase("2", "candidate(0, 0)", CheckKind.FALSY),
)
ADD = "def add(a, b):\n    return a + b\n"


def make_tests_request(program: str, tests=ADD_TESTS, entry_point="add", **limits) -> ExecutionRequest:
    return ExecutionRequest(Mode.PYTHON_TESTS, program=program, entry_point=entry_point, tests=tuple(tests),
                            limits=Limits(**limits))


def make_script_request(program: str, cases=(("", ""),), tolerance=None, **limits) -> ExecutionRequest:
    tests = tuple(TestCase(str(i), stdin, CheckKind.STDOUT, out) for i, (stdin, out) in enumerate(cases))
    return ExecutionRequest(Mode.PYTHON_SCRIPT, program=program, tests=tests, float_tolerance=tolerance,
                            limits=Limits(**limits))


# A directory's entries minus the way to the interpreter: when the interpreter or venv lives under /tmp
# (a checkout under /tmp), the view binds it back over the program's own /tmp, read-only.
# Program text: /proc/self/mountinfo as a fresh slot's reads it whatever ran before (test_counters, test_judge_starts_clean)
MOUNT_TABLE = r'''
def mount_table(lines):
    """mountinfo's lines, each mount's id and its parent's read as their places in the table and an in-memory file
    system's device as "0:-": numbers the kernel draws machine-wide, as a pid (docs/sandbox.md)."""
    fields = [line.split(" ") for line in lines]
    place = {f[0]: str(i) for i, f in enumerate(fields)}
    return [" ".join([place.get(f[1], "-"), "0:-" if f[2].startswith("0:") else f[2], *f[3:]]) for f in fields]
'''

OWN_ENTRIES = ("import sys\n"
               "def own_entries(d):\n"
               "    keep = [sys.prefix, sys.base_prefix, sys.exec_prefix, *sys.path]\n"
               "    return [n for n in os.listdir(d) if not any((p + '/').startswith(os.path.join(d, n) + '/') for p in keep)]\n")


@contextlib.contextmanager
def sandbox_at(isolation: str):
    """A one-worker sandbox at `isolation`; the test is skipped where this machine has no such level."""
    try:
        sb = Sandbox(workers=1, isolation=isolation)
    except SandboxUnavailable:
        pytest.skip(f"isolation {isolation!r} is not available here")
    with sb:
        yield sb


def plain_verdict(prompt: str, completion: str, test: str, entry: str) -> bool:
    """Whether plain `python -s` passes prompt + completion + `test` (a HumanEval `def check(candidate)`) + check(entry)."""
    source = prompt + completion + "\n\n" + test + f"\n\ncheck({entry})\n"
    return subprocess.run([sys.executable, "-s", "-c", source], capture_output=True, timeout=60).returncode == 0


def judged_as_python(cases, *, reference: bool = False) -> dict:
    """The differential check of the verdict tests: `cases` are (name, prompt, completion, test, entry), `test` a
    HumanEval `def check(candidate): ...`. Each runs in the plain interpreter (`plain_verdict`, two at a time) and
    through the sandbox as a HumanEval task (`reference`: the completion is also the task's reference, which tells
    the judge the program's names); asserts that every verdict is the
    interpreter's and that no result carries a tamper note, and returns {name: the interpreter's verdict}."""
    from coderl.tasks.loaders.humaneval import humaneval_task

    cases = list(cases)
    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        plain = dict(zip([c[0] for c in cases], pool.map(lambda c: plain_verdict(*c[1:]), cases)))
    tasks = [humaneval_task({"task_id": f"d/{i}", "prompt": prompt, "entry_point": entry, "test": test,
                             **({"canonical_solution": completion} if reference else {})}, name)
             for i, (name, prompt, completion, test, entry) in enumerate(cases)]
    with Sandbox(workers=2) as sb:
        results = sb.run_many([task.build_request(case[2]) for task, case in zip(tasks, cases)])
    got = {case[0]: r for case, r in zip(cases, results)}
    assert {n: r.passed for n, r in got.items()} == plain, {
        n: (r.passed, plain[n], r.message[:120]) for n, r in got.items() if r.passed != plain[n]}
    assert all(r.tamper == [] for r in results), {n: r.tamper for n, r in got.items() if r.tamper}
    return plain
