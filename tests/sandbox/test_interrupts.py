"""Interrupts and limits, as a user at a terminal meets them.  Ctrl-C on `coderl check` interrupts the command
alone: the sandbox's server and zygotes are out of the terminal's process group, print no traceback, and end
because their parent stops them.  A memory limit under what a program's process starts with is one error line
(exit 2) instead of a batch of `sandbox_error`s; a limit above it runs as before."""

import os
import signal
import subprocess
import sys
import time

import pytest

from coderl.sandbox.client import Sandbox, SandboxUnavailable
from coderl.sandbox.types import CheckKind, Limits, TestCase
from tests.processes import descendants

from .helpers import ADD, make_script_request, make_tests_request

CHECK = [sys.executable, "-m", "coderl.cli", "check", "--tasks", "easy", "--reference", "--workers", "1"]
# As a terminal starts its foreground job: SIGINT at its default disposition and unblocked, whatever started this
# test run.  A background job of a script (`make test > log &`) inherits SIGINT ignored, which Python, like every
# Unix program, keeps: started from there, `coderl check` rightly ignores the interrupt below, finishes and exits 0.
AS_FOREGROUND_JOB = [sys.executable, "-c", "import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); "
                     "signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT}); os.execv(sys.argv[1], sys.argv[1:])"]


def _server(check):
    """The sandbox server `coderl check` started (a `server/__main__.py` child), or None yet."""
    for pid in descendants(check.pid):
        try:
            if b"server/__main__.py" in open(f"/proc/{pid}/cmdline", "rb").read():
                return pid
        except OSError:
            pass
    return None


def test_ctrl_c_interrupts_the_command_and_the_sandbox_stops_quietly():
    many = [*CHECK[:5], "synthetic:level=1,n=2000", *CHECK[6:]]  # too many to finish before the interrupt
    check = subprocess.Popen([*AS_FOREGROUND_JOB, *many], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             start_new_session=True, env={**os.environ, "PYTHONPATH": os.getcwd()})
    deadline = time.monotonic() + 300  # generous: a loaded machine loads 2,000 tasks slowly
    while (server := _server(check)) is None:
        assert check.poll() is None and time.monotonic() < deadline, check.communicate()
        time.sleep(0.05)
    time.sleep(1.0)  # programs are running
    os.killpg(check.pid, signal.SIGINT)  # what the terminal does on Ctrl-C, to its foreground group
    _, err = check.communicate(timeout=300)
    assert check.returncode == 130, err.decode()[-2000:]
    assert b"Traceback" not in err and b"KeyboardInterrupt" not in err, err.decode()[-2000:]
    assert err.decode().strip().splitlines()[-1] == "interrupted", err.decode()[-2000:]
    deadline = time.monotonic() + 10
    while os.path.exists(f"/proc/{server}") and open(f"/proc/{server}/stat").read().split()[2] != "Z":
        assert time.monotonic() < deadline, "the sandbox server outlived its interrupted parent"
        time.sleep(0.05)


def test_a_memory_limit_no_program_can_start_under_is_one_error_line():
    check = subprocess.run([*CHECK, "--memory-mb", "8", "--quiet"], capture_output=True, text=True, timeout=120,
                           env={**os.environ, "PYTHONPATH": os.getcwd()})
    assert check.returncode == 2, (check.stdout[-500:], check.stderr[-500:])
    lines = check.stderr.strip().splitlines()
    assert len(lines) == 1 and "--memory-mb 8:" in lines[0] and "expected more than" in lines[0], check.stderr
    with pytest.raises(SandboxUnavailable, match="--memory-mb 8"):
        Sandbox(workers=1, limits=Limits(memory_bytes=8 << 20))


def test_a_small_memory_limit_a_program_starts_under_still_runs():
    with Sandbox(workers=1) as sandbox:
        small = sandbox.server_info["start_bytes"] + (32 << 20)
        with pytest.raises(SandboxUnavailable, match="--memory-mb"):
            sandbox.submit(make_script_request("print(1)", cases=(("", "1"),), memory_bytes=sandbox.server_info["start_bytes"]))
        result = sandbox.run(make_script_request("print(sum(range(10**5)))", cases=(("", str(sum(range(10**5)))),),
                                                 memory_bytes=small))
        assert result.passed, (result.status, result.message, result.stderr[-500:])


def test_the_tests_run_under_any_memory_limit_a_program_starts_under():
    """The smallest limit the client takes is a little over a program's starting address space; the judge,
    which has imported more, starts with more, so its tests get the limit on top of its own start: a test
    that allocates (here 300 KB, one mmap) passes as it does under the default limit."""
    allocates = (TestCase("0", "candidate(1, 2) + len(bytes(300_000)) - 300_000", CheckKind.EQUALS, 3),)
    with Sandbox(workers=1) as sandbox:
        for memory in (sandbox.server_info["start_bytes"] + (1 << 20), Limits().memory_bytes):
            for _ in range(2):
                result = sandbox.run(make_tests_request(ADD, tests=allocates, memory_bytes=memory))
                assert result.passed, (memory, result.status, result.message, result.stderr[-300:])


class _Slots:
    """Just enough of `isolation.Slots` for a zygote outside a server: each program it forks lives `life` seconds."""

    def __init__(self, root, life):
        self.root, self.life = root, life

    def become_zygote(self):
        pass

    def before_fork(self, role):
        pass

    def kill_leftovers(self, slot, reap_orphans):
        pass

    def join(self, slot):
        time.sleep(self.life)
        os._exit(0)


@pytest.mark.parametrize("gone", ["reading", "whole"])
def test_a_zygote_whose_server_went_away_ends_without_a_traceback(tmp_path, capfd, gone):
    """The server stops reading (`reading`: the zygote's next report is a broken pipe) or closes its end (`whole`)
    while a program still runs: the zygote kills and reaps what it has and exits 0, printing nothing."""
    import json
    import socket
    import types

    from coderl.sandbox.server import zygote
    ours, pid = zygote.start(_Slots(str(tmp_path), life=0.3), {"harness": types.SimpleNamespace(Tamper=lambda: None)})
    ours.send(json.dumps({"role": "program", "slot": 0, "key": 1, "fds": []}).encode())
    assert json.loads(ours.recv(4096))["forked"] == 1
    if gone == "reading":
        ours.shutdown(socket.SHUT_RD)
    else:
        ours.close()
    deadline = time.monotonic() + 10
    while not (ended := os.waitpid(pid, os.WNOHANG))[0] and time.monotonic() < deadline:
        time.sleep(0.02)
    assert ended[0] == pid and os.waitstatus_to_exitcode(ended[1]) == 0, ended
    assert capfd.readouterr().err == ""
