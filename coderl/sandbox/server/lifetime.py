"""A fork server's own resources from its start to its end, however it ends.  Standard library only.

`claim_uids` gives each server a range of uids of its own for its slots and judges, so no per-uid kernel
accounting (RLIMIT_NPROC, keyrings, a kill by uid) is shared between two sandboxes on one machine.  `release`
kills whatever the slots' programs left running and removes the slots' cgroups and directories; the server
runs it when it ends.  A server killed outright (SIGKILL) runs nothing, so `watchdog` forks, at start, a
process that waits for the server to be gone and then releases the slots itself.  (The zygote and the
programs die with the server through PR_SET_PDEATHSIG; at `full` the PID namespace takes every descendant
with it; at `uid`, a `setsid` daemon would otherwise live on.)
"""

import fcntl
import os
import time

# Every sandbox's slot and judge uids: far from login users and the usual subuid ranges, and above the fixed
# uids (1,950,000-1,960,255) of earlier versions, whose servers may still run on the machine.
UID_POOL = (2_000_000, 3_000_000)
UID_BLOCK = 64  # uids per lock file
REGISTRY = "/run/coderl-sandbox-uids" if os.access("/run", os.W_OK) else "/tmp/coderl-sandbox-uids"  # lock files


def claim_uids(count):
    """`count` consecutive uids no other live sandbox on this machine holds: (the first, the fds of their locks).

    Each block of UID_BLOCK uids is held by an exclusive `flock` on a file of its own in REGISTRY, taken without
    waiting.  A lock lasts as long as its open file, which the server's watchdog and zygote inherit: the range
    is free again once the last of them has ended, however it ended (SIGKILL too), and never before the
    watchdog's own release (which may still kill by uid) is done."""
    os.makedirs(REGISTRY, mode=0o700, exist_ok=True)
    need = -(-count // UID_BLOCK)
    block, held = 0, []
    while (block + need) * UID_BLOCK <= UID_POOL[1] - UID_POOL[0]:
        fd = os.open(os.path.join(REGISTRY, str(block + len(held))), os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            for taken in [fd, *held]:
                os.close(taken)  # (its lock with it)
            block, held = block + len(held) + 1, []
            continue
        held.append(fd)
        if len(held) == need:
            return UID_POOL[0] + block * UID_BLOCK, held
    raise OSError(f"no {count} free sandbox uids left in {UID_POOL[0]}-{UID_POOL[1]} ({REGISTRY})")


def release(slots):
    """Kill whatever the slots' programs left running (bounded), then remove the slots' cgroups and
    directories.  Run by the server at its end, and by its watchdog once the server is gone (killed too).

    Through the slots' own cgroups, else (`uid` without cgroups) by the slots' uids, which are this server's
    alone while this process lives (`claim_uids`)."""
    deadline = time.monotonic() + 3.0
    while time.monotonic() < deadline:
        found = False
        for slot in range(slots.workers):
            try:
                pids = slots.cgroups.kill(slot)
                found |= slots._kill_uid(slot) if pids is None and slots.level == "uid" else bool(pids)
            except OSError:
                pass
        if not found:
            break
        time.sleep(0.02)
    try:
        slots.close()
    except OSError:
        pass


def watchdog(slots):
    """Fork a process that waits for this server to end, however it ends (SIGKILL too), and then
    releases the slots: a killed server must not leave programs, cgroups or slot directories behind.
    Returns the pipe end the server holds open for its lifetime."""
    r, w = os.pipe()
    if os.fork() == 0:
        try:
            os.setsid()  # its own session: a signal to the server's group leaves it to clean up
            devnull = os.open(os.devnull, os.O_RDWR)
            for fd in (0, 1, 2):  # never holds the client's pipes open
                os.dup2(devnull, fd)
            low = 3
            for keep in sorted({r, *(slots.uids[1] if slots.uids else [])}):  # and the locks of its uids
                os.closerange(low, keep)
                low = keep + 1
            os.closerange(low, 1 << 16)
            while os.read(r, 1):
                pass
            release(slots)
        finally:
            os._exit(0)
    os.close(r)
    return w
