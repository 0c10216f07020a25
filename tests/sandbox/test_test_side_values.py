"""What a test hands the program: its iterators cross a batch at a time, pulled by the program as it reads
(`values.iterator_batch`, `tester._puller`), so an endless one crosses and an exception the test's generator raises
reaches the program where it reads it; a test callable's return value that cannot cross fails the test and unwinds
the program's call (`Judge.dispatch`, `Judge.unsendable_reply`).  Found by a review (2026-11-27): a test's iterator
was drained whole before the program ran, so its generator's KeyError was raised in the test (a program that never
read it passed `except KeyError`) and `itertools.count()` failed a correct program; a callable returning a cycle
passed its ValueError into the program as the test's own.  Differential: each case against the plain interpreter."""

from __future__ import annotations

import subprocess
import sys

from coderl.sandbox.client import Sandbox
from coderl.sandbox.types import ExecutionRequest, Limits, Mode, TestCase

GEN = "def gen(n, exc):\n    for i in range(n):\n        yield i\n    raise exc('bad item')\n"
SUM = "def f(it):\n    return sum(it)\n"
CASES = [
    ("an error after a few items", SUM, GEN + "try:\n    candidate(gen(5, ValueError))\nexcept ValueError:\n"
                                          "    pass\nelse:\n    assert False"),
    ("an error after some batches", SUM, GEN + "try:\n    candidate(gen(5000, KeyError))\nexcept KeyError:\n"
                                           "    pass\nelse:\n    assert False"),
    ("a program that never reads it", "def f(it):\n    return 0\n",
     GEN + "try:\n    candidate(gen(5, KeyError))\nexcept KeyError:\n    pass\nelse:\n    assert False"),
    ("a program that catches it", "def f(it):\n    try:\n        return sum(it)\n    except ValueError:\n"
                                  "        return -1\n", GEN + "assert candidate(gen(3000, ValueError)) == -1"),
    ("a program that stops early", "def f(it):\n    return next(it) + next(it)\n",
     GEN + "assert candidate(gen(2, ValueError)) == 1"),
    ("endless", "def f(it, n):\n    import itertools\n    return list(itertools.islice(it, n))\n",
     "import itertools\nassert candidate(itertools.count(), 3) == [0, 1, 2]\n"
     "assert candidate(itertools.count(5), 2000)[-1] == 2004"),
    ("finite", "def f(it):\n    return list(it)\n",
     "assert candidate(iter([1, 2, 3])) == [1, 2, 3]\nassert candidate(x * 2 for x in range(5000))[-1] == 9998\n"
     "assert candidate(iter([])) == []"),
    ("a callable returning a cycle", "def f(g):\n    g()\n    return 1\n",
     "def g():\n    a = []\n    a.append(a)\n    return a\ntry:\n    candidate(g)\nexcept ValueError:\n    pass\n"
     "else:\n    assert False"),
    ("a callable returning a cycle, caught by the program", "def f(g):\n    try:\n        g()\n    except Exception:\n"
     "        return 2\n    return 1\n",
     "def g():\n    a = []\n    a.append(a)\n    return a\nassert candidate(g) == 2"),
]


def _plain(program, test):
    source = program.replace("def f", "def candidate") + "\n" + test + "\n"
    return subprocess.run([sys.executable, "-s", "-c", source], capture_output=True, timeout=60).returncode == 0


def test_what_a_test_hands_the_program_is_judged_as_in_python():
    requests = [ExecutionRequest(Mode.PYTHON_TESTS, program=p, entry_point="f", limits=Limits(),
                                 tests=(TestCase("0", t),)) for _, p, t in CASES]
    with Sandbox(workers=2) as sb:
        results = sb.run_many(requests)
    plain = [_plain(p, t) for _, p, t in CASES]
    assert plain == [True, True, False, True, True, True, True, False, False]
    got = [r.passed for r in results]
    assert got == plain, [(c[0], g, p, r.message[:100]) for c, g, p, r in zip(CASES, got, plain, results)]
    for result in results[-2:]:  # the callable's cycle: the test fails as not sendable, whatever the program does
        assert "cannot be sent to the program" in result.message, result.message
    assert all(r.tamper == [] for r in results)


def test_a_callable_whose_reply_is_over_the_channel_size_fails_that_test_and_the_next_runs_alone():
    """The program's call of the callable unwinds (before, it stayed suspended and later tests ran inside it)."""
    program = "def f(g, n):\n    try:\n        g(n)\n    except Exception:\n        pass\n    return n + 1\n"
    tests = (TestCase("big", "assert candidate(lambda n: 'x' * (70 * 2**20), 1) == 2"),
             TestCase("next", "assert candidate(lambda n: n, 1) == 2"))
    with Sandbox(workers=1) as sb:
        result = sb.run(ExecutionRequest(Mode.PYTHON_TESTS, program=program, entry_point="f", limits=Limits(),
                                         tests=tests))
    by_id = {t.id: t for t in result.tests}
    assert not by_id["big"].status.value == "passed" and "cannot be sent" in by_id["big"].message, by_id["big"]
    assert by_id["next"].status.value == "passed", by_id["next"]
