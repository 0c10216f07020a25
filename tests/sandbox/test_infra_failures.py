"""Infrastructure failures (`sandbox_error`) only where the program provably could not cause them, run again by
`Batches.submit`; everything a program might provoke stays its own verdict.  Faults injected with fakes: no
sandbox process, no wall-clock wait."""

import threading
from concurrent.futures import Future

import pytest

from coderl.sandbox.batches import INFRA_RETRIES, Batches
from coderl.sandbox.client import RESEND_LIMIT, Sandbox, SandboxFailed, SandboxUnavailable
from coderl.sandbox.judge import _status, judge
from coderl.sandbox.types import ExecutionResult, Limits, Status

from .helpers import ADD, make_tests_request


def done(status, message=""):
    future = Future()
    future.set_result(ExecutionResult(status=status, message=message))
    return future


class Scripted(Batches):
    """A backend whose runs return the statuses of `script`, one per run, in order."""

    def __init__(self, *script):
        self.script = list(script)
        self.runs = 0

    def submit_once(self, request):
        self.runs += 1
        return done(self.script.pop(0), f"run {self.runs}")

    def close(self):
        pass


def test_an_infrastructure_failure_is_run_again_and_the_verdict_that_comes_back_stands():
    backend = Scripted(Status.SANDBOX_ERROR, Status.PASSED)
    assert backend.run(make_tests_request(ADD)).status is Status.PASSED
    assert backend.runs == 2 and backend.retried == 1


def test_a_failure_that_stays_one_comes_back_after_the_documented_retries():
    backend = Scripted(*[Status.SANDBOX_ERROR] * (INFRA_RETRIES + 1), Status.PASSED)
    assert backend.run(make_tests_request(ADD)).status is Status.SANDBOX_ERROR
    assert backend.runs == 1 + INFRA_RETRIES


def test_the_programs_own_verdicts_are_never_run_again():
    for status in (Status.RUNTIME_ERROR, Status.TIMEOUT, Status.FAILED):
        backend = Scripted(status, Status.PASSED)
        assert backend.run(make_tests_request(ADD)).status is status and backend.runs == 1


# ---- the server died: whose failure? -------------------------------------------------------------------

class DeadProc:
    returncode = -9


def stub_sandbox(start=lambda: None):
    """A `Sandbox` without a server: `_start` is `start`, `_send` records what is re-sent."""
    sb = object.__new__(Sandbox)
    sb._lock = threading.RLock()
    sb._closed, sb.broken, sb.restarts, sb.isolation = False, None, 0, "rlimits"
    sb.limits, sb.workers, sb.server_info = Limits(), 1, {"start_bytes": 0}
    sb._proc = DeadProc()
    sb._start = start
    sb.resent = []
    sb._send = lambda request, future, tries, deaths=0: sb.resent.append((request, tries, deaths))
    return sb


def died(sb, pending, started):
    sb._pending = {rid: (make_tests_request(ADD), Future(), tries, deaths) for rid, (tries, deaths) in pending.items()}
    sb._started = set(started)
    futures = {rid: entry[1] for rid, entry in sb._pending.items()}
    sb._server_died(sb._proc)
    return futures


def test_a_program_running_when_the_server_died_twice_is_the_programs_failure():
    sb = stub_sandbox()
    futures = died(sb, {1: (1, 1), 2: (0, 0), 3: (0, 0)}, started={1, 2})
    result = futures[1].result(timeout=0)
    assert result.status is Status.RUNTIME_ERROR and "died while this program ran" in result.message
    assert [(tries, deaths) for _, tries, deaths in sb.resent] == [(1, 1), (0, 1)]  # 2: a strike; 3: none


def test_a_request_not_yet_started_waits_through_deaths_then_is_an_infrastructure_failure():
    sb = stub_sandbox()
    futures = died(sb, {1: (0, RESEND_LIMIT)}, started=())
    assert futures[1].result(timeout=0).status is Status.SANDBOX_ERROR


def test_a_server_that_cannot_restart_settles_everything_and_refuses_more():
    def start():
        raise SandboxUnavailable("no uids left")

    sb = stub_sandbox(start)
    futures = died(sb, {1: (0, 0), 2: (0, 0)}, started={1})
    assert futures[1].result(timeout=0).status is Status.RUNTIME_ERROR  # it was running: it may have done it
    assert futures[2].result(timeout=0).status is Status.SANDBOX_ERROR  # it never started
    assert "could not be restarted: no uids left" in futures[2].result(timeout=0).message
    with pytest.raises(SandboxFailed, match="could not be restarted") as info:  # the machine's: exit 3, not 2
        sb.submit_once(make_tests_request(ADD))
    assert info.value.exit_code == 3


def test_a_server_killed_before_its_hello_says_so_and_is_an_infrastructure_failure(tmp_path, monkeypatch):
    """issue 102: it said only `sandbox server exited (-9)`, and exited 2 (bad input)."""
    import coderl.sandbox.client as client

    killed = tmp_path / "killed.py"
    killed.write_text("import os, signal\nos.kill(os.getpid(), signal.SIGKILL)\n")
    monkeypatch.setattr(client, "SERVER_PATH", str(killed))
    with pytest.raises(SandboxFailed) as info:
        Sandbox(workers=1, isolation="rlimits")
    assert info.value.exit_code == 3 and "\n" not in str(info.value)
    assert str(info.value).startswith("the sandbox server was killed by SIGKILL before it started (no hello): the "
                                      "kernel's out-of-memory killer")
    crashed = tmp_path / "crashed.py"
    crashed.write_text("raise SystemExit(7)\n")
    monkeypatch.setattr(client, "SERVER_PATH", str(crashed))
    with pytest.raises(SandboxFailed, match=r"^the sandbox server exited with status 7 before it started \(no "
                                            r"hello\); what it printed is above$"):
        Sandbox(workers=1, isolation="rlimits")


def test_a_real_server_killed_and_not_restartable_refuses_more_as_an_infrastructure_failure(tmp_path, monkeypatch):
    import os
    import signal
    import time

    import coderl.sandbox.client as client

    sb = Sandbox(workers=1, isolation="rlimits")
    try:
        assert sb.run(make_tests_request(ADD)).status is Status.PASSED
        killed = tmp_path / "killed.py"
        killed.write_text("import os, signal\nos.kill(os.getpid(), signal.SIGKILL)\n")
        monkeypatch.setattr(client, "SERVER_PATH", str(killed))  # every restart is killed before its hello
        os.kill(sb._proc.pid, signal.SIGKILL)
        for _ in range(200):
            if sb.broken:
                break
            time.sleep(0.05)
        assert sb.broken and "killed by SIGKILL before it started" in sb.broken
        with pytest.raises(SandboxFailed, match="could not be restarted"):
            sb.submit_once(make_tests_request(ADD))
    finally:
        sb.close()


def test_a_callback_that_submits_again_does_not_deadlock_the_reader():
    # futures are settled after the lock is released: Batches.submit's retry submits from the callback
    sb = stub_sandbox()
    futures = died(sb, {1: (0, RESEND_LIMIT)}, started=())
    assert not sb._lock._is_owned() and futures[1].done()


# ---- the judge: what its records can never say -----------------------------------------------------------

RUN = {"exit_code": 0, "signal": None, "killed": None, "stderr": "", "stdout": "", "cpu_seconds": 0.0,
       "wall_seconds": 0.1, "max_rss_bytes": 0, "stdout_total": 0, "stderr_total": 0, "result": "",
       "killed_after_judge": False}


def test_records_never_name_an_infrastructure_failure():
    assert _status("sandbox_error") is Status.RUNTIME_ERROR
    forged = '{"event": "value", "id": "0", "status": "sandbox_error"}\n{"event": "end"}\n'
    result = judge(make_tests_request(ADD), [{**RUN, "result": forged, "judge": {"exit_code": 0, "signal": None}}])
    assert result.status is not Status.SANDBOX_ERROR and not result.passed


def test_a_judge_that_ended_without_a_verdict_is_the_programs_failure():
    run = {**RUN, "judge": {"exit_code": 1, "signal": None, "cpu_seconds": 0.0, "stderr": "BrokenPipeError"}}
    result = judge(make_tests_request(ADD), [run])
    assert result.status is Status.RUNTIME_ERROR and "judge ended without a verdict" in result.message


def test_a_set_up_failure_is_infrastructure_only_before_the_program_could_run():
    assert judge(make_tests_request(ADD), [{"sandbox_error": "could not start"}]).status is Status.SANDBOX_ERROR
    after = judge(make_tests_request(ADD), [{"after_start_error": "cleanup failed"}])
    assert after.status is Status.RUNTIME_ERROR and "after this program started" in after.message


def load_server():
    from coderl.sandbox.server import loop

    return loop


@pytest.mark.parametrize("forked, key", [(False, "sandbox_error"), (True, "after_start_error")])
def test_the_server_calls_a_failed_run_infrastructure_only_when_nothing_was_forked(forked, key):
    server = load_server()
    s = object.__new__(server.Server)
    sent = []
    s.send, s.kill, s.active, s.free_slots = sent.append, lambda run, roles=None: None, set(), []
    job = server.Job({"id": 7, "mode": "python_tests", "limits": {}, "tests": []})
    job.forked = forked
    s.fail(job.runs[0], "could not start the program: OSError(24)")
    assert sent == [{"id": 7, "runs": [{key: "could not start the program: OSError(24)"}]}]
