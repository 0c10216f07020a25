"""A function task's per-input CPU limit (`TestCase.time_limit`, EvalPlus's per-input limit): the program tree's
CPU in each test, measured by the server around the test's call, against that test's own limit; the run's
`Limits.cpu_seconds` stays the backstop."""

from coderl.sandbox.types import CheckKind, Status, TestCase

from .helpers import make_tests_request

# Quadratic in n: about a second of CPU at n = 3000 on a laptop core, nothing at n = 10.
QUADRATIC = ("def count_pairs(n):\n"
             "    total = 0\n"
             "    for i in range(n):\n"
             "        for j in range(n):\n"
             "            total += (i ^ j) & 1\n"
             "    return total\n")
LINEAR = ("def count_pairs(n):\n"
          "    odd = n // 2\n"
          "    return 2 * odd * (n - odd)\n")


def _pairs(n):
    odd = n // 2
    return 2 * odd * (n - odd)


def _tests(limit, big=3000):
    return [TestCase(str(i), f"count_pairs({n})", CheckKind.EQUALS, _pairs(n), time_limit=limit)
            for i, n in enumerate((4, 10, big))]


def test_slow_on_one_input_times_out_that_input_only(sandbox):
    # passes a whole-run limit of 20 CPU-seconds, fails the big input's own limit of 0.2 s
    r = sandbox.run(make_tests_request(QUADRATIC, _tests(0.2), entry_point="count_pairs", cpu_seconds=20))
    assert [t.status for t in r.tests] == [Status.PASSED, Status.PASSED, Status.TIMEOUT], r.tests
    assert r.status is Status.TIMEOUT
    assert "CPU time limit of 0.2s for this input" in r.tests[2].message
    assert r.tests[2].call_cpu_seconds > 0.2


def test_same_program_passes_without_per_input_limits(sandbox):
    r = sandbox.run(make_tests_request(QUADRATIC, _tests(None), entry_point="count_pairs", cpu_seconds=20))
    assert r.status is Status.PASSED, r.message
    assert r.tests[2].call_cpu_seconds > r.tests[0].call_cpu_seconds  # each test carries its own CPU


def test_fast_program_passes_its_per_input_limits(sandbox):
    r = sandbox.run(make_tests_request(LINEAR, _tests(0.2), entry_point="count_pairs", cpu_seconds=20))
    assert r.status is Status.PASSED, r.message
    assert all(t.call_cpu_seconds is not None and t.call_cpu_seconds < 0.2 for t in r.tests)


def test_whole_run_limit_still_ends_an_infinite_loop(sandbox):
    # each input's own limit (5 s) over the run's (1 s): the run's limit, the backstop, ends it
    loop = "def count_pairs(n):\n    while True:\n        pass\n"
    r = sandbox.run(make_tests_request(loop, _tests(5.0), entry_point="count_pairs", cpu_seconds=1))
    assert r.status is Status.TIMEOUT
    assert all(t.status is Status.TIMEOUT for t in r.tests)
    assert "CPU time limit of 1s" in r.message


def test_cpu_in_a_child_process_is_charged_to_the_test(sandbox):
    # the program's whole tree: work done in a subprocess during the call counts against the input's limit
    prog = ("import subprocess, sys\n"
            "def count_pairs(n):\n"
            "    if n > 100:\n"
            "        subprocess.run([sys.executable, '-c', 'sum(i*i for i in range(4_000_000))'])\n"
            "    odd = n // 2\n"
            "    return 2 * odd * (n - odd)\n")
    r = sandbox.run(make_tests_request(prog, _tests(0.1), entry_point="count_pairs", cpu_seconds=20))
    assert [t.status for t in r.tests] == [Status.PASSED, Status.PASSED, Status.TIMEOUT], r.tests


def test_a_test_over_its_own_limit_is_ended_during_the_call(sandbox):
    # endless on the big input only: ended at about its own 0.3 s, long before the run's 20 CPU-seconds
    prog = ("def count_pairs(n):\n"
            "    while n > 100:\n"
            "        pass\n"
            "    odd = n // 2\n"
            "    return 2 * odd * (n - odd)\n")
    r = sandbox.run(make_tests_request(prog, _tests(0.3), entry_point="count_pairs", cpu_seconds=20))
    assert [t.status for t in r.tests[:2]] == [Status.PASSED, Status.PASSED]
    assert r.tests[2].status is Status.TIMEOUT and r.status is Status.TIMEOUT
    assert "CPU time limit of 0.3s for this input (test 2, ended at" in r.tests[2].message, r.tests[2].message
    assert r.cpu_seconds < 3
