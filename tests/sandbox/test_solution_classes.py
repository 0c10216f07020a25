"""Attacks on what a test file's solution classes may now do in the judge (issue 99 item 2: their instances hash,
enter `with` and take in-place operators by the program's own methods; a program exception's notes cross), each
through the sandbox: none turns a failing test into a pass, breaks the judge's protocol, or reaches a class the task
does not ask for."""

import pytest

from coderl.sandbox import Sandbox
from tests.tasks.pytest_differential import Case
from tests.tasks.test_pytest_differential import _task

BASE = ("class V:\n    def __init__(self, x):\n        self.x = x\n\n    def __eq__(self, o):\n"
        "        return isinstance(o, V) and self.x == o.x\n\n    __hash__ = object.__hash__\n")


@pytest.fixture(scope="module")
def sandbox():
    with Sandbox(workers=2) as sb:
        yield sb


def _run(sandbox, solution, body, imports="V"):
    case = Case("attack", "attack", f"import pytest\nfrom {{M}} import {imports}\n\n\ndef test_a():\n    {body}\n",
                solution)
    task = _task(case, 0)
    return sandbox.run(task.build_request(solution))


@pytest.mark.parametrize("hash_body", ["raise RuntimeError('no')", "return 'seven'", "return 2 ** 200",
                                       "import os\n        os._exit(0)"])
def test_a_hostile_hash_fails_its_test_and_nothing_else(sandbox, hash_body):
    solution = BASE.replace("    __hash__ = object.__hash__\n", f"    def __hash__(self):\n        {hash_body}\n")
    result = _run(sandbox, solution, "assert len({V(1), V(2)}) == 1")  # false in Python whatever the hash
    assert not result.passed, result.tests
    assert not any(t.startswith("protocol") for t in result.tamper), result.tamper


def test_an_exit_that_swallows_the_failure_never_passes(sandbox):
    solution = BASE + "\n    def __enter__(self):\n        return self\n\n    def __exit__(self, *exc):\n        return True\n"
    result = _run(sandbox, solution, "with V(1) as v:\n        assert v.x == 2")
    assert not result.passed and "AssertionError" in result.tests[0].message, result.tests
    # and the block's own value is the program's `__enter__`'s
    assert _run(sandbox, solution, "with V(1) as v:\n        assert v.x == 1").passed


def test_notes_are_bounded_strings_and_cannot_break_the_channel(sandbox):
    solution = ("def f():\n    e = ValueError('plain')\n    for i in range(100000):\n        e.add_note('x' * 5000)\n"
                "    raise e\n\n\ndef g():\n    e = ValueError('plain')\n    e.__notes__ = [1, object()]\n    raise e\n")
    many = _run(sandbox, solution, "with pytest.raises(ValueError, match='x{5000}'):\n        f()", imports="f, g")
    assert not many.passed  # each note cut to 1,000 characters, at most 16 of them: no match
    assert not any(t.startswith("protocol") for t in many.tamper), many.tamper
    odd = _run(sandbox, solution, "with pytest.raises(ValueError, match='plain'):\n        g()", imports="f, g")
    assert odd.passed and odd.tamper == [], (odd.tests, odd.tamper)  # notes that are not strings: not sent


def test_a_class_the_task_does_not_ask_for_keeps_no_operators(sandbox):
    solution = BASE + ("\n\ndef make():\n    class W:\n        def __eq__(self, o):\n            return True\n\n"
                       "        def __add__(self, o):\n            return 0\n\n        def __hash__(self):\n"
                       "            return 1\n    return W()\n")
    assert not _run(sandbox, solution, "assert make() + make() == 0", imports="V, make").passed
    assert not _run(sandbox, solution, "assert make() == make()", imports="V, make").passed
    assert not _run(sandbox, solution, "assert len({make(), make()}) == 1", imports="V, make").passed
