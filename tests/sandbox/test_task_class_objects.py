"""Objects of a class the task's own code defines (its prompt's `Point`, a dataclass), made and returned by the
program, read as in Python (found by a review, 2026-11-28; differential against `python` running prompt +
completion + test): `candidate(1) == Point(1, 2)` failed with `non_builtin_return:Point`, two of them compared or
`sorted` were "not judged" (a gating tamper note on a correct program), and `isinstance`, `in` and `repr` were
wrong. Now such an object reads as one of the task's class and its comparisons, hash and repr are the task's own
code reading its attributes (`Handle._task_class`); no program code decides them, so a program's always-equal
class stays refused. This replaced the dataclass-only path (the fields fetched and rebuilt for `==`)."""

from __future__ import annotations

import itertools
import subprocess
import sys

from coderl.sandbox.client import Sandbox
from coderl.tasks.loaders.humaneval import humaneval_task

CLASSES = {
    "plain": "class Point:\n    def __init__(self, x, y):\n        self.x = x\n        self.y = y\n\n"
             "    def __eq__(self, other):\n        return isinstance(other, Point) and (self.x, self.y) == "
             "(other.x, other.y)\n\n    def __lt__(self, other):\n        return (self.x, self.y) < (other.x, other.y)\n\n"
             "    def __hash__(self):\n        return hash((self.x, self.y))\n\n"
             "    def __repr__(self):\n        return f'Point({self.x}, {self.y})'\n",
    "dataclass": "from dataclasses import dataclass\n\n\n@dataclass(order=True, frozen=True)\nclass Point:\n"
                 "    x: int\n    y: int\n",
    "dataclass, eq only": "from dataclasses import dataclass\n\n\n@dataclass\nclass Point:\n    x: int\n    y: int\n",
}
PROGRAMS = {  # def f(n): -> Point(n, 2n), points of n, or a wrong one
    "right": "    return Point(n, 2 * n)\n",
    "wrong": "    return Point(n, n)\n",
}
TESTS = {
    "==": "    assert candidate(1) == Point(1, 2)\n",
    "reflected ==": "    assert Point(2, 4) == candidate(2)\n",
    "!=": "    assert candidate(1) != Point(1, 3)\n    assert not (candidate(1) != Point(1, 2))\n",
    "two of the program's": "    assert candidate(3) == candidate(3)\n",
    "in a list": "    assert Point(1, 2) in [candidate(1), candidate(2)]\n",
    "sorted": "    assert sorted([candidate(3), candidate(1), candidate(2)]) == [Point(1, 2), Point(2, 4), Point(3, 6)]\n",
    "max": "    assert max([candidate(1), candidate(3)]) == Point(3, 6)\n",
    "in a set": "    assert candidate(1) in {Point(1, 2)}\n",
    "isinstance": "    assert isinstance(candidate(1), Point) and candidate(1).y == 2\n",
    "repr": "    assert repr(candidate(1)) == repr(Point(1, 2))\n",
}


def _cases():
    return [(f"{c}/{p}/{t}", CLASSES[c] + "\n\ndef f(n):\n", PROGRAMS[p], "def check(candidate):\n" + TESTS[t])
            for c, p, t in itertools.product(CLASSES, PROGRAMS, TESTS)]


def _plain(prompt, completion, test):
    source = prompt + completion + "\n\n" + test + "\n\ncheck(f)\n"
    return subprocess.run([sys.executable, "-s", "-c", source], capture_output=True, timeout=60).returncode == 0


def _verdicts(cases):
    tasks = [humaneval_task({"task_id": f"p/{i}", "prompt": prompt, "entry_point": "f", "test": test}, name)
             for i, (name, prompt, _, test) in enumerate(cases)]
    with Sandbox(workers=2) as sb:
        results = sb.run_many([task.build_request(case[2]) for task, case in zip(tasks, cases)])
    return {case[0]: r for case, r in zip(cases, results)}


def test_objects_of_the_tasks_own_class_read_as_in_python():
    cases = _cases()
    plain = {name: _plain(*rest) for name, *rest in cases}
    assert sum(plain.values()) >= 25 and sum(not p for p in plain.values()) >= 15
    got = _verdicts(cases)
    assert {n: r.passed for n, r in got.items()} == plain, {
        n: (r.passed, plain[n], r.message[:120]) for n, r in got.items() if r.passed != plain[n]}
    assert all(r.tamper == [] for r in got.values())


def test_a_program_class_that_says_it_equals_everything_is_still_refused():
    """In Python a completion that redefines the task's class, or makes its own, with an `__eq__` that is always
    True passes `candidate(x) == Point(...)`; here the task's `__eq__` reads the object's data (the redefinition's
    name is the task's) or equality is identity and the object is named (a class of its own): both fail."""
    always = "        def __eq__(self, other):\n            return True\n"
    cases = [
        ("redefined", CLASSES["plain"] + "\n\ndef f(n):\n", "    return Point(0, 0)\n\n\nclass Point:\n"
         "    def __init__(self, x, y):\n        self.x, self.y = x, y\n\n    def __eq__(self, other):\n"
         "        return True\n", "def check(candidate):\n    assert candidate(5) == Point(5, 10)\n"),
        ("its own", CLASSES["plain"] + "\n\ndef f(n):\n", "    class Point:\n" + always + "    return Point()\n",
         "def check(candidate):\n    assert candidate(5) == Point(5, 10)\n"),
    ]
    assert all(_plain(*rest) for _, *rest in cases)
    got = _verdicts(cases)
    assert not any(r.passed for r in got.values())
    assert got["its own"].tamper == ["non_builtin_return:f.<locals>.Point"]
