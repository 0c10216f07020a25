"""A name the task says the program defines (`program_names`) that is also a builtin's (`sum`, `pow`, `max`) is the
program's in the tests, as in Python, where a module's `sum` shadows the builtin; a program that does not define it
fails with a NameError, never passes on the judge's own builtin (a test-file task asking for `sum`, issue 77)."""

from __future__ import annotations

import pytest

from coderl.sandbox.client import Sandbox
from coderl.sandbox.types import CheckKind, ExecutionRequest, Limits, Mode, TestCase

TESTS = (TestCase("a", "assert sum([1, 2, 3]) == 6", CheckKind.ASSERT),
         TestCase("b", "assert pow(2, 10) == 1024 and max(3, 1) == 3", CheckKind.ASSERT))
NAMES = ("sum", "pow")  # max is not the program's: the builtin


def _run(program: str) -> tuple[str, list[str], str]:
    request = ExecutionRequest(Mode.PYTHON_TESTS, program=program, tests=TESTS, program_names=NAMES,
                               limits=Limits())
    with Sandbox(workers=1) as sb:
        result = sb.run(request)
    return result.status.value, [t.status.value for t in result.tests], result.message


@pytest.mark.parametrize("program,statuses", [
    ("def sum(xs):\n    t = 0\n    for x in xs:\n        t += x\n    return t\n"
     "def pow(b, e):\n    r = 1\n    for _ in range(e):\n        r *= b\n    return r\n", ["passed", "passed"]),
    ("def sum(xs):\n    return 0\ndef pow(b, e):\n    return -1\n", ["failed", "failed"]),  # wrong: the builtins pass
])
def test_a_program_defined_builtin_name_is_the_programs(program, statuses):
    assert _run(program)[1] == statuses


def test_a_program_that_does_not_define_it_fails_with_a_name_error():
    status, statuses, message = _run("x = 1\n")
    assert status != "passed" and "passed" not in statuses
    assert "NameError: name 'sum' is not defined by the program" in message


def test_a_missing_builtin_name_handed_to_the_program_fails_that_test_and_the_judge_goes_on():
    """An attack on the stand-in: a test passes it to the program (whose function would call it as the builtin),
    and a test that never touches it still runs."""
    tests = (TestCase("handed", "assert apply(sum, [1, 2]) == 3", CheckKind.ASSERT),
             TestCase("other", "assert apply(len, [1, 2]) == 2", CheckKind.ASSERT))
    request = ExecutionRequest(Mode.PYTHON_TESTS, program="def apply(f, xs):\n    return f(xs)\n", tests=tests,
                               program_names=("sum", "apply"), limits=Limits())
    with Sandbox(workers=1) as sb:
        result = sb.run(request)
    assert result.tests[0].status.value != "passed" and result.tests[1].status.value == "passed"
