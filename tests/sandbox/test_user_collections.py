"""`collections.UserList`, `UserDict` and `UserString` returned by a program cross as themselves (`values.py`) and
compare in value tests as their data, as in Python (`flat.py`).  Before (at 86a70e8) each was a handle: equal to
nothing but itself, so `candidate(2) == [0, 1]` failed a correct program.  Subclasses stay the program's own
objects (one may redefine `__eq__`).  Differential: each case against the plain interpreter."""

from __future__ import annotations

import itertools
import subprocess
import sys

from coderl.sandbox.client import Sandbox
from coderl.sandbox.types import CheckKind, ExecutionRequest, Limits, Mode, TestCase

RETURNS = {  # the program's return expression, and the plain values a test may compare it with
    "UserList": ("__import__('collections').UserList([0, 1, [2]])", ["[0, 1, [2]]", "(0, 1, [2])", "[0, 1]"]),
    "UserDict": ("__import__('collections').UserDict({'a': 1, 'b': [2]})",
                 ["{'a': 1, 'b': [2]}", "{'a': 1}", "{'a': 1, 'b': (2,)}"]),
    "UserString": ("__import__('collections').UserString('ab')", ["'ab'", "'ba'", "b'ab'"]),
}
SHAPES = {  # an assert in the judge, and the test's own use of the value
    "equals": "assert candidate() == {other}",
    "reflected": "assert {other} == candidate()",
    "not equal": "assert candidate() != {other}",
    "type": "from collections import UserList, UserDict, UserString\n"
            "assert isinstance(candidate(), (UserList, UserDict, UserString)) and len(candidate()) == len({other})",
    "data": "assert candidate().data == {other}",
}
CASES = [(kind, other, shape) for kind in RETURNS for other, shape in itertools.product(RETURNS[kind][1], SHAPES)]


def _plain(kind, source):
    program = f"def candidate():\n    return {RETURNS[kind][0]}\n"
    return subprocess.run([sys.executable, "-s", "-c", program + source], capture_output=True,
                          timeout=60).returncode == 0


def test_user_collections_compare_as_in_python():
    requests = []
    for kind, other, shape in CASES:
        program = f"def f():\n    return {RETURNS[kind][0]}\n"
        requests.append(ExecutionRequest(Mode.PYTHON_TESTS, program=program, entry_point="f", limits=Limits(),
                                         tests=(TestCase("0", SHAPES[shape].format(other=other)),)))
    # value tests: the judge sends the result to the parent, which compares it with the expected JSON-like value
    values = [(kind, other) for kind in RETURNS for other in RETURNS[kind][1]]
    for kind, other in values:
        requests.append(ExecutionRequest(Mode.PYTHON_TESTS, program=f"def f():\n    return {RETURNS[kind][0]}\n",
                                         entry_point="f", limits=Limits(),
                                         tests=(TestCase("0", "candidate()", CheckKind.EQUALS, eval(other)),)))
    with Sandbox(workers=2) as sb:
        results = sb.run_many(requests)
    plain = [_plain(kind, SHAPES[shape].format(other=other)) for kind, other, shape in CASES]
    plain += [_plain(kind, f"assert candidate() == {other}") for kind, other in values]
    got = [r.passed for r in results]
    labels = CASES + values
    assert sum(plain) >= 15 and len(plain) - sum(plain) >= 15  # both verdicts occur
    assert got == plain, [(label, g, p, r.message[:100]) for label, g, p, r in zip(labels, got, plain, results)
                          if g != p]
    assert all(r.tamper == [] for r in results)


def test_a_subclass_with_its_own_equality_stays_the_programs_object():
    program = ("from collections import UserList\n\nclass Any(UserList):\n    def __eq__(self, other):\n"
               "        return True\n\ndef f():\n    return Any([9])\n")
    request = ExecutionRequest(Mode.PYTHON_TESTS, program=program, entry_point="f", limits=Limits(),
                               tests=(TestCase("0", "assert candidate() == [0, 1]"),
                                      TestCase("1", "candidate()", CheckKind.EQUALS, [0, 1])))
    with Sandbox(workers=1) as sb:
        result = sb.run(request)
    assert not result.passed and all(t.status.value != "passed" for t in result.tests), result.tests


def test_a_call_that_changes_a_user_collection_argument_changes_the_tests_own():
    program = "def f(x):\n    if hasattr(x, 'sort'):\n        x.sort()\n        x.append(9)\n    else:\n        x['z'] = [1]\n"
    tests = ("from collections import UserList\nul = UserList([3, 1])\ninner = ul.data\ncandidate(ul)\n"
             "assert ul == [1, 3, 9] and ul.data is inner",
             "from collections import UserDict\nud = UserDict(a=1)\ncandidate(ud)\nassert ud == {'a': 1, 'z': [1]}",
             "from collections import UserList\nul = UserList([3, 1])\ncandidate(ul)\nassert ul == [3, 1]")
    plain = [subprocess.run([sys.executable, "-s", "-c", program.replace("def f", "def candidate") + t],
                            capture_output=True, timeout=60).returncode == 0 for t in tests]
    assert plain == [True, True, False]
    requests = [ExecutionRequest(Mode.PYTHON_TESTS, program=program, entry_point="f", limits=Limits(),
                                 tests=(TestCase("0", t),)) for t in tests]
    with Sandbox(workers=1) as sb:
        got = [r.passed for r in sb.run_many(requests)]
    assert got == plain
