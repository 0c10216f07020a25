"""A value of the program's that cannot cross to the tests (nested past `flat.MAX_DEPTH`, a cycle, over the channel's
size, an argument the call made contain itself, such an item from an iterator or an attribute) fails the test that
asked for it, and no test code can catch that (`Program.sendable`, `Judge.unsent`).  Found by an attack
(2026-11-27): the program side raised its encoder's ValueError as the program's own exception, so a program
returning `x = []; x.append(x)` passed every test of the form `try: candidate(bad) except ValueError: pass else:
assert False`.  Checked against the plain interpreter, which fails each of these tests (nothing is raised) and
passes each with a program that does raise."""

import itertools
import subprocess
import sys

import pytest

from coderl.sandbox.client import Sandbox
from coderl.sandbox.types import ExecutionRequest, Limits, Mode, Status, TestCase

DEEP = "    v = 0\n    for _ in range(1100):\n        v = [v]\n"
PRODUCERS = {  # the body of f(x): what it gives back, each through another path
    "deep list": DEEP + "    return v\n",
    "deep dict": "    v = 0\n    for _ in range(1100):\n        v = {'k': v}\n    return v\n",
    "cycle list": "    v = [1]\n    v.append(v)\n    return v\n",
    "cycle dict": "    v = {}\n    v['me'] = v\n    return v\n",
    "argument made to contain itself": "    x.append(x)\n",
    "iterator item": "    def g():\n        yield 1\n" + DEEP.replace("    ", "        ") + "        yield v\n    return g()\n",
    "attribute": "    class Box:\n        pass\n    b = Box()\n" + DEEP + "    b.v = v\n    return b\n",
    "raises ValueError (control)": "    raise ValueError('bad input')\n",
}
USE = {"iterator item": "list(candidate(arg))", "attribute": "candidate(arg).v"}
CATCHES = {  # test code that expects the call to raise
    "ValueError": "except ValueError:\n    pass",
    "Exception": "except Exception:\n    pass",
    "BaseException": "except BaseException:\n    pass",
    "bare": "except:\n    pass",
}


def _test(producer, catch):
    use = USE.get(producer, "candidate(arg)")
    return f"arg = [0]\ntry:\n    {use}\n{CATCHES[catch]}\nelse:\n    assert False, 'expected an exception'\n"


def _program(producer):
    return "def f(x):\n" + PRODUCERS[producer]


def _plain(producer, catch):
    """The plain interpreter's verdict on the same program and test."""
    test = "def check(candidate):\n" + "".join("    " + line + "\n" for line in _test(producer, catch).splitlines())
    source = _program(producer) + "\n" + test + "check(f)\n"
    run = subprocess.run([sys.executable, "-s", "-c", source], capture_output=True, timeout=60)
    return run.returncode == 0


CASES = list(itertools.product(PRODUCERS, CATCHES))


def test_a_value_that_cannot_cross_fails_the_test_that_catches_what_the_plain_interpreter_never_raised():
    requests = [ExecutionRequest(Mode.PYTHON_TESTS, program=_program(p), entry_point="f", limits=Limits(),
                                 tests=(TestCase("0", _test(p, c)),)) for p, c in CASES]
    with Sandbox(workers=2) as sb:
        results = sb.run_many(requests)
    for (producer, catch), result in zip(CASES, results):
        plain = _plain(producer, catch)
        control = producer.endswith("(control)")
        assert plain is control, (producer, catch)
        assert result.passed is plain and result.tamper == [], (producer, catch, result.status, result.message)
        if not control:
            assert result.status is Status.RUNTIME_ERROR, (producer, catch, result.status)
            assert "cannot be sent to the tests" in result.tests[0].message, (producer, catch, result.tests[0].message)


def test_a_reply_over_the_channel_size_fails_that_test_only():
    """70 MiB returned: before, the program died sending it (every later test lost with it)."""
    program = "def f(n):\n    return 'x' * n\n"
    tests = (TestCase("big", "try:\n    candidate(70 * 2**20)\nexcept Exception:\n    pass\nelse:\n    assert False"),
             TestCase("small", "assert candidate(3) == 'xxx'"))
    with Sandbox(workers=1) as sb:
        result = sb.run(ExecutionRequest(Mode.PYTHON_TESTS, program=program, entry_point="f", limits=Limits(),
                                         tests=tests))
    by_id = {t.id: t for t in result.tests}
    assert "over the channel" in by_id["big"].message and by_id["big"].status is Status.RUNTIME_ERROR, by_id["big"]
    assert by_id["small"].status is Status.PASSED and result.tamper == [], (by_id["small"], result.tamper)


@pytest.mark.parametrize("catch", sorted(CATCHES))
def test_a_caught_unsendable_value_in_the_preamble_fails_the_run(catch):
    preamble = "try:\n    f()\n" + CATCHES[catch] + "\n"
    request = ExecutionRequest(Mode.PYTHON_TESTS, program="def f():\n    v = []\n    v.append(v)\n    return v\n",
                               entry_point="f", test_preamble=preamble, limits=Limits(),
                               tests=(TestCase("0", "assert True"),))
    with Sandbox(workers=1) as sb:
        result = sb.run(request)
    assert not result.passed and "cannot be sent" in result.message, (result.status, result.message)


TEST_SIDE = {  # a value of the test's own that cannot cross, passed where the test expects the program to raise
    "cycle": ("d = {}\nd['self'] = d\n", "d", "ValueError"),
    "too deep": ("d = 0\nfor _ in range(1100):\n    d = [d]\n", "d", "ValueError"),
    "no data": ("import threading\nd = threading.Lock()\n", "d", "TypeError"),
    "over the channel": ("d = 'x' * (70 * 2**20)\n", "d", "ValueError"),
}


@pytest.mark.parametrize("case", sorted(TEST_SIDE))
def test_a_value_of_the_tests_that_cannot_cross_fails_the_test_uncatchably(case):
    """Found by a review: the judge raised its encoder's error in the test before the program ran, so a test that
    expects the program to raise passed for any program (`Judge.outgoing`, `Judge.request`)."""
    setup, arg, error = TEST_SIDE[case]
    test = f"{setup}try:\n    candidate({arg})\nexcept {error}:\n    pass\nelse:\n    assert False\n"
    request = ExecutionRequest(Mode.PYTHON_TESTS, program="def f(x):\n    return 1\n", entry_point="f",
                               limits=Limits(), tests=(TestCase("0", test), TestCase("1", "assert candidate(0) == 1")))
    with Sandbox(workers=1) as sb:
        result = sb.run(request)
    by_id = {t.id: t for t in result.tests}
    assert by_id["0"].status is Status.RUNTIME_ERROR and "test's value cannot be sent" in by_id["0"].message, by_id
    assert by_id["1"].status is Status.PASSED and result.tamper == [], (by_id["1"], result.tamper)


def test_an_oversized_reply_keeps_what_the_call_changed():
    """Found by a review: a reply over the channel's size was replaced whole, so a task object the call changed
    looked unchanged to later tests; an exception whose args are over the size keeps its class (args dropped)."""
    trusted = "class Box:\n    def __init__(self):\n        self.v = 0\n"
    program = trusted + ("def f(b, n, raising=False):\n    b.v = 5\n    if raising:\n        raise KeyError('x' * n)\n"
                         "    return 'x' * n\n")
    big = 70 * 2**20
    tests = (TestCase("big", f"try:\n    f(box, {big})\nexcept BaseException:\n    pass\nelse:\n    assert False"),
             TestCase("seen", "assert box.v == 5"),
             TestCase("raises", f"box.v = 1\ntry:\n    f(box, {big}, True)\nexcept KeyError:\n    pass\n"
                                "assert box.v == 5"))
    request = ExecutionRequest(Mode.PYTHON_TESTS, program=program, entry_point="f", trusted_code=trusted,
                               test_preamble="box = Box()\n", limits=Limits(), tests=tests)
    with Sandbox(workers=1) as sb:
        result = sb.run(request)
    by_id = {t.id: t for t in result.tests}
    assert by_id["big"].status is Status.RUNTIME_ERROR, by_id["big"]
    assert by_id["seen"].status is Status.PASSED and by_id["raises"].status is Status.PASSED, by_id


@pytest.mark.parametrize("value", ["'x' * (70 * 2**20)", "[]\nTABLE.append(TABLE)"])
def test_a_name_the_tests_read_that_cannot_cross_is_the_programs_failure_not_tampering(value):
    program = f"TABLE = {value}\ndef f():\n    return len(TABLE)\n"
    request = ExecutionRequest(Mode.PYTHON_TESTS, program=program, entry_point="f", program_names=("TABLE",),
                               limits=Limits(), tests=(TestCase("0", "assert candidate() >= 0 and TABLE"),))
    with Sandbox(workers=1) as sb:
        result = sb.run(request)
    assert result.status is Status.RUNTIME_ERROR and result.tamper == [], (result.status, result.tamper)
    assert "names cannot be sent" in result.message, result.message
