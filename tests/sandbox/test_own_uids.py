"""Each sandbox its own uids (`lifetime.claim_uids`): two servers on one machine never share a slot or judge uid,
so one sandbox's programs cannot spend another's per-uid kernel accounting (RLIMIT_NPROC: a program that holds
every process its uid may have makes a correct program of another sandbox fail to fork).  A killed server's
range is free again once neither it nor anything that inherited its locks (its watchdog) lives."""

import fcntl
import os
import signal
import time

import pytest

from coderl.sandbox.client import Sandbox, SandboxUnavailable
from coderl.sandbox.server import lifetime

from .helpers import make_script_request

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="slot uids need root")

HOLD_EVERY_PROCESS = """
import os, time
children = 0
while True:
    try:
        pid = os.fork()
    except OSError:
        break
    if pid == 0:
        time.sleep(20)
        os._exit(0)
    children += 1
open("/dev/null", "w")
print("holding", children, flush=True)
time.sleep(%(hold)s)
"""

FORKS = """
import os
pid = os.fork()
if pid == 0:
    os._exit(7)
print(6 * os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]))
"""


def _uids(sandbox):
    """The uids of a sandbox's zygotes' children (its programs and judges, while they run)."""
    server = sandbox.server_info["pid"]
    zygotes = [int(c) for t in os.listdir(f"/proc/{server}/task") for c in open(f"/proc/{server}/task/{t}/children").read().split()]
    children = [int(c) for z in zygotes for t in os.listdir(f"/proc/{z}/task")
                for c in open(f"/proc/{z}/task/{t}/children").read().split()]
    return {os.stat(f"/proc/{c}").st_uid for c in children} - {0}


@pytest.mark.parametrize("level", ["full", "uid"])
def test_one_sandbox_spending_its_uids_process_limit_leaves_another_untouched(level):
    try:
        first, second = Sandbox(workers=1, isolation=level), Sandbox(workers=1, isolation=level)
    except SandboxUnavailable:
        pytest.skip(f"isolation {level!r} is not available here")
    with first, second:
        hog = first.submit(make_script_request(HOLD_EVERY_PROCESS % {"hold": 6}, cases=(("", ""),), max_processes=16,
                                               cpu_seconds=2))
        deadline = time.monotonic() + 20
        while not _hog_full(first):
            assert time.monotonic() < deadline and not hog.done(), hog.result() if hog.done() else "the hog never started"
            time.sleep(0.1)
        for _ in range(2):
            result = second.run(make_script_request(FORKS, cases=(("", "42"),), max_processes=16))
            assert result.passed, (result.status, result.stderr[-500:])
        assert not _uids(first) & _uids(second)
        assert abs(first.server_info["uids"] - second.server_info["uids"]) >= 2
        assert "holding" in hog.result().stdout


def _hog_full(sandbox):
    """Whether the hog holds its process limit (16) of processes of its uid."""
    uids = _uids(sandbox)
    return bool(uids) and sum(1 for p in os.listdir("/proc") if p.isdigit() and _owner(p) in uids) >= 16


def _owner(pid):
    try:
        return os.stat(f"/proc/{pid}").st_uid
    except OSError:
        return None


def test_a_range_is_held_until_its_last_holder_ends_however_it_ends():
    """A claimant (the server) SIGKILLed while a process that inherited its locks (its watchdog) lives: the range
    stays taken; once that process ends too, it is free."""
    ready_r, ready_w = os.pipe()
    claimant = os.fork()
    if claimant == 0:
        try:
            first, _ = lifetime.claim_uids(2 * lifetime.UID_BLOCK)
            if os.fork() == 0:  # inherits the locks, as the watchdog does
                os.write(ready_w, str(first).encode())
                time.sleep(60)
            time.sleep(60)
        finally:
            os._exit(0)
    os.close(ready_w)
    first = int(os.read(ready_r, 64))
    blocks = [os.path.join(lifetime.REGISTRY, str((first - lifetime.UID_POOL[0]) // lifetime.UID_BLOCK + i)) for i in (0, 1)]
    holder = next(int(c) for t in os.listdir(f"/proc/{claimant}/task") for c in open(f"/proc/{claimant}/task/{t}/children").read().split())
    os.kill(claimant, signal.SIGKILL)
    os.waitpid(claimant, 0)
    assert not any(_free(b) for b in blocks)
    os.kill(holder, signal.SIGKILL)
    deadline = time.monotonic() + 10
    while not all(_free(b) for b in blocks):
        assert time.monotonic() < deadline, "the range was not freed"
        time.sleep(0.05)


def _free(block):
    fd = os.open(block, os.O_RDWR)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return True
    except BlockingIOError:
        return False
    finally:
        os.close(fd)
