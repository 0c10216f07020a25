"""One test per limit and failure mode of the sandbox core (each bomb is bounded by the limit under test)."""

import time

import pytest

from coderl.sandbox.types import CheckKind, ExecutionRequest, Limits, Mode, Status, TestCase

from .helpers import ADD, make_script_request, make_tests_request


def test_correct_program_passes_with_per_test_outcomes(sandbox):
    r = sandbox.run(make_tests_request(ADD))
    assert r.status is Status.PASSED and r.passed
    assert [t.status for t in r.tests] == [Status.PASSED] * 3
    assert r.fraction_passed == 1.0
    assert r.tamper == []
    assert r.cpu_seconds > 0 and r.wall_seconds > 0


def test_wrong_answer_fails_one_test_and_reports_values(sandbox):
    r = sandbox.run(make_tests_request("def add(a, b):\n    return a * b + 7\n"))
    assert r.status is Status.FAILED
    assert [t.status for t in r.tests] == [Status.FAILED, Status.FAILED, Status.FAILED]
    assert "got 9, expected 3" in r.tests[0].message
    assert r.fraction_passed == 0.0


def test_a_wrong_answer_too_large_to_print_is_a_failure_not_a_sandbox_error(sandbox):
    # repr() of an int past Python's 4300-digit limit raises; it once turned the verdict into sandbox_error
    r = sandbox.run(make_tests_request("def add(a, b):\n    return 10 ** 5000\n"))
    assert r.status is Status.FAILED
    assert [t.status for t in r.tests] == [Status.FAILED] * 3
    assert "too large to print" in r.tests[0].message and "expected 3" in r.tests[0].message


def test_partial_credit(sandbox):
    r = sandbox.run(make_tests_request("def add(a, b):\n    return 3 if a == 1 else a + b + 1\n"))
    assert [t.passed for t in r.tests] == [True, False, False]
    assert abs(r.fraction_passed - 1 / 3) < 1e-9


def test_timeout_on_cpu_time(sandbox):
    start = time.monotonic()
    r = sandbox.run(make_tests_request("def add(a, b):\n    while True:\n        pass\n", cpu_seconds=1))
    assert r.status is Status.TIMEOUT
    assert all(t.status is Status.TIMEOUT for t in r.tests)
    assert time.monotonic() - start < 5


def test_wall_clock_backstop_catches_sleep(sandbox):
    r = sandbox.run(make_tests_request("import time\ndef add(a, b):\n    time.sleep(60)\n", cpu_seconds=0.5,
                                  wall_seconds=1.0))
    assert r.status is Status.TIMEOUT
    assert "wall-clock" in r.message
    assert r.wall_seconds < 5


def test_ignored_sigxcpu_still_times_out(sandbox):
    prog = "import signal\nsignal.signal(signal.SIGXCPU, signal.SIG_IGN)\ndef add(a, b):\n    while True: pass\n"
    r = sandbox.run(make_tests_request(prog, cpu_seconds=1))
    assert r.status is Status.TIMEOUT


@pytest.mark.parametrize("disguise", [
    "",  # a plain endless loop
    # a name of its own (/proc/PID/stat's second field) made to shift every field after it, were it split naively
    "import ctypes\nassert ctypes.CDLL(None).prctl(15, b') R 1 1 1 0 -1', 0, 0, 0) == 0\n",
    # SIGXCPU ignored, a thread burning beside it, and a child that burns too
    "import signal, threading, os\nsignal.signal(signal.SIGXCPU, signal.SIG_IGN)\n"
    "threading.Thread(target=lambda: [0 for _ in iter(int, 1)], daemon=True).start()\n",
])
def test_a_cpu_limit_under_a_second_is_held_to_the_hundredth(sandbox, disguise):
    """RLIMIT_CPU counts whole seconds (and the first process of a PID namespace never gets its SIGXCPU): the
    server reads the program's CPU and stops it past a 0.3 s limit, whatever the program does to its own name,
    signals or threads, well before the whole second the kernel would allow."""
    prog = disguise + "def add(a, b):\n    while True:\n        pass\n"
    r = sandbox.run(make_tests_request(prog, cpu_seconds=0.3))
    assert r.status is Status.TIMEOUT and "CPU time limit of 0.3s" in r.message, r.message
    assert r.cpu_seconds < 1.0, r.cpu_seconds


def test_memory_limit(sandbox):
    prog = "def add(a, b):\n    x = bytearray(1024 * 1024 * 1024)\n    return a + b\n"
    r = sandbox.run(make_tests_request(prog, memory_bytes=256 * 1024**2))
    assert r.status is Status.MEMORY_EXCEEDED
    assert r.tests[0].status is Status.MEMORY_EXCEEDED


def test_memory_limit_at_import(sandbox):
    r = sandbox.run(make_tests_request("x = [0] * (10**9)\n" + ADD, memory_bytes=256 * 1024**2))
    assert r.status is Status.MEMORY_EXCEEDED


def test_output_is_capped_and_flood_is_killed(sandbox):
    prog = "import sys\ndef add(a, b):\n    while True:\n        sys.stdout.write('x' * 65536)\n"
    r = sandbox.run(make_tests_request(prog, output_bytes=1000, output_kill_bytes=4 * 1024**2, cpu_seconds=10))
    assert r.status is Status.OUTPUT_EXCEEDED
    assert len(r.stdout) == 1000 and r.stdout_truncated


def test_large_but_allowed_output_is_truncated_not_failed(sandbox):
    prog = "print('y' * 200000)\n" + ADD
    r = sandbox.run(make_tests_request(prog, output_bytes=100))
    assert r.passed
    assert r.stdout == "y" * 100 and r.stdout_truncated


def test_segfault_is_a_runtime_error(sandbox):
    prog = "import ctypes\ndef add(a, b):\n    ctypes.string_at(0)\n"
    r = sandbox.run(make_tests_request(prog))
    assert r.status is Status.RUNTIME_ERROR
    assert "SIGSEGV" in r.message


def test_syntax_error(sandbox):
    r = sandbox.run(make_tests_request("def add(a, b)\n    return a + b\n"))
    assert r.status is Status.SYNTAX_ERROR
    assert all(t.status is Status.SYNTAX_ERROR for t in r.tests)


def test_exception_at_import_is_runtime_error(sandbox):
    r = sandbox.run(make_tests_request("raise ValueError('boom')\n"))
    assert r.status is Status.RUNTIME_ERROR
    assert "ValueError: boom" in r.message


def test_missing_entry_point(sandbox):
    r = sandbox.run(make_tests_request("def other(a, b):\n    return a + b\n"))
    assert r.status is Status.RUNTIME_ERROR
    assert "'add' is not defined" in r.message


def test_hang_in_a_batch_does_not_stall_the_others(sandbox):
    hang = make_tests_request("def add(a, b):\n    while True: pass\n", cpu_seconds=1)
    good = make_tests_request(ADD)
    start = time.monotonic()
    results = sandbox.run_many([hang, good, good, hang, good])
    assert [r.status for r in results] == [Status.TIMEOUT, Status.PASSED, Status.PASSED, Status.TIMEOUT,
                                           Status.PASSED]
    assert time.monotonic() - start < 10


@pytest.mark.parametrize("target", ["the server", "the zygote"])
def test_a_program_that_kills_the_server_or_its_zygote_fails_alone(target):
    from coderl.sandbox.client import Sandbox

    # Under `rlimits` (same uid as the server) a program can kill the server or the zygote (its parent): the
    # client replaces the server, re-sends what was pending once, and the culprit ends as its own failure (a
    # runtime_error, never an infrastructure failure: a program can never make itself one).
    pid = {"the server": "int(open(f'/proc/{os.getppid()}/stat').read().rsplit(')', 1)[1].split()[1])",
           "the zygote": "os.getppid()"}[target]
    killer = make_tests_request(f"import os, signal\nos.kill({pid}, signal.SIGKILL)\n" + ADD)
    with Sandbox(workers=1, isolation="rlimits") as sb:
        results = sb.run_many([make_tests_request(ADD), killer, make_tests_request(ADD)])
        assert results[1].status is Status.RUNTIME_ERROR, results[1].message
        assert "died while this program ran" in results[1].message
        assert results[0].passed and results[2].passed
        assert sb.restarts == 2


def test_crash_in_a_batch_does_not_fail_the_others(sandbox):
    crash = make_tests_request("import os, signal\nos.kill(os.getpid(), signal.SIGKILL)\n")
    results = sandbox.run_many([crash, make_tests_request(ADD), crash])
    assert [r.status for r in results] == [Status.RUNTIME_ERROR, Status.PASSED, Status.RUNTIME_ERROR]


def test_children_started_by_the_program_are_killed(sandbox):
    # A duration of its own: a machine-wide pgrep for a plain `sleep 300` also found other people's.
    import os
    import subprocess

    duration = f"300.{os.getpid()}{id(sandbox) % 1000}"
    prog = ("import subprocess\n"
            f"subprocess.Popen(['sleep', '{duration}'])\n" + ADD)
    r = sandbox.run(make_tests_request(prog))
    assert r.passed
    out = subprocess.run(["pgrep", "-f", f"sleep {duration}"], capture_output=True, text=True).stdout
    assert out.strip() == ""


def test_stdin_is_empty_for_function_tasks(sandbox):
    prog = "import sys\nDATA = sys.stdin.read()\ndef add(a, b):\n    return a + b + len(DATA)\n"
    assert sandbox.run(make_tests_request(prog)).passed


def test_script_mode_stdout_comparison(sandbox):
    prog = "a, b = map(int, input().split())\nprint(a + b)\n"
    r = sandbox.run(make_script_request(prog, [("1 2\n", "3\n"), ("5 5\n", "10"), ("2 2\n", "5")]))
    assert [t.status for t in r.tests] == [Status.PASSED, Status.PASSED, Status.FAILED]
    assert r.status is Status.FAILED


def test_script_mode_runs_as_main_and_nonzero_exit_fails(sandbox):
    prog = "import sys\nif __name__ == '__main__':\n    print('ok')\n    sys.exit(3)\n"
    r = sandbox.run(make_script_request(prog, [("", "ok")]))
    assert r.status is Status.RUNTIME_ERROR and r.exit_code == 3


def test_script_mode_float_tolerance(sandbox):
    prog = "print(1/3)\n"
    assert not sandbox.run(make_script_request(prog, [("", "0.333333")])).passed
    assert sandbox.run(make_script_request(prog, [("", "0.333333")], tolerance=1e-5)).passed


def test_command_mode_runs_an_executable_with_files(sandbox):
    req = ExecutionRequest(Mode.COMMAND, argv=("sh", "run.sh"), files={"run.sh": "read x; echo $((x * 2))\n"},
                           tests=(TestCase("0", "21\n", CheckKind.STDOUT, "42"),), limits=Limits())
    r = sandbox.run(req)
    assert r.passed, r.message


def test_limits_validation():
    with pytest.raises(ValueError, match="cpu_seconds"):
        Limits(cpu_seconds=-1).validate()
