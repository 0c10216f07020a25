"""What the judge does not judge fails the test, whatever the test catches (`Judge.refuse`): ordering or
arithmetic on program objects of a class the task does not ask for, and reading an object the test only constructs.
Found by a review (2026-11-27): each was a TypeError raised in the judge, so `try: a < b except TypeError: pass else:
assert False` passed a program whose objects do compare (plain Python fails it)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from coderl.sandbox.client import Sandbox
from coderl.sandbox.types import ExecutionRequest, Limits, Mode, Status, TestCase

PROGRAM = ("class V:\n    def __init__(self, x):\n        self.x = x\n    def __lt__(self, o):\n        return True\n"
           "    def __gt__(self, o):\n        return True\n    def __add__(self, o):\n        return self\n"
           "    __radd__ = __add__\n    def __neg__(self):\n        return self\n"
           "def f(x):\n    return V(x)\n")
CATCHES = {
    "two objects": "candidate(1) < candidate(2)",
    "an object and a value": "candidate(1) < 3",
    "a value and an object": "3 > candidate(1)",
    "arithmetic": "candidate(1) + 1",
    "reflected arithmetic": "1 + candidate(1)",
    "unary": "-candidate(1)",
}


@pytest.mark.parametrize("shape", sorted(CATCHES))
def test_what_the_judge_does_not_judge_fails_the_test_that_catches_its_type_error(shape):
    test = f"try:\n    {CATCHES[shape]}\nexcept TypeError:\n    pass\nelse:\n    assert False\n"
    plain = subprocess.run([sys.executable, "-s", "-c", PROGRAM.replace("def f", "def candidate") + test],
                           capture_output=True, timeout=60)
    assert plain.returncode != 0  # the program's objects compare and add: plain Python fails the test
    request = ExecutionRequest(Mode.PYTHON_TESTS, program=PROGRAM, entry_point="f", limits=Limits(),
                               tests=(TestCase("0", test), TestCase("1", "assert candidate(1).x == 1")))
    with Sandbox(workers=1) as sb:
        result = sb.run(request)
    by_id = {t.id: t for t in result.tests}
    assert by_id["0"].status is Status.RUNTIME_ERROR and "not judged" in by_id["0"].message, by_id["0"]
    assert by_id["1"].status is Status.PASSED, by_id["1"]
