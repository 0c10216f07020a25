"""The end of a fork server's resources, however the server ends.  Standard library only.

`release` kills whatever the slots' programs left running and removes the slots' cgroups and
directories; the server runs it when it ends.  A server killed outright (SIGKILL) runs nothing, so
`watchdog` forks, at start, a process that waits for the server to be gone and then releases the
slots itself.  (The zygote and the programs die with the server through PR_SET_PDEATHSIG; at `full`
the PID namespace takes every descendant with it; at `uid`, a `setsid` daemon would otherwise live on.)
"""

import os
import time


def release(slots):
    """Kill whatever the slots' programs left running (bounded), then remove the slots' cgroups and
    directories.  Run by the server at its end, and by its watchdog when the server itself was killed.

    Only through the slots' own cgroups: never by uid (slot uids are shared by every server on the
    machine, and a kill by uid would end other servers' programs).  Without cgroups at `uid`, a daemon
    left by a program of a killed server can outlive it (docs/sandbox.md)."""
    deadline = time.monotonic() + 3.0
    while time.monotonic() < deadline:
        found = False
        for slot in range(slots.workers):
            try:
                found |= bool(slots.cgroups.kill(slot))
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
            os.closerange(3, r)
            os.closerange(r + 1, 1 << 16)
            while os.read(r, 1):
                pass
            release(slots)
        finally:
            os._exit(0)
    os.close(r)
    return w
