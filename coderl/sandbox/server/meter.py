"""The CPU a program's whole process tree used, read by the fork server alone.  Standard library only.

What counts: every process the program starts, by any means (fork, multiprocessing, subprocess and exec, double
forks, setsid daemons), alive or not at its exit; never the judge's work (the judge is in no slot group, runs in
the server's PID namespace and as a uid of its own).  Read at every poll of the server and at the program's exit.

Where the slot has a CPU counter (cgroup v1 `cpuacct`, v2 `cpu.stat`), it is the count: the slot's group is made
anew for each program (`Cgroups.renew`), and the count is read against its value when the program started.
Without one, the fallback of each level polls the program's processes in /proc, found by what the level gives
them and their children alone:

    full      the program's PID namespace (/proc/PID/ns/pid)
    uid       the slot's uid (the server's alone: `lifetime.claim_uids`)
    rlimits   the program's session (the zygote makes each program a session leader); a process that leaves
              the session (setsid) is not charged after it leaves -- as at this level it is not killed either

and charges each process's CPU with its reaped children's, keeping the CPU of a process that is gone when its
parent in the tree cannot have reaped it (an orphan), so the charge never decreases.  At `uid` the zygote is the
orphans' subreaper: it reads each one's CPU as it reaps it and reports it for the slot its uid names (`orphan`),
so no orphan is missed there.  At `full` orphans stay in the namespace (its first process reaps nothing) until it
is torn down at exit; what they use after the last poll is not seen, nor, at `rlimits`, a process that starts and
ends between two polls with no parent in the session to reap it: the server therefore polls as often as every
core of the slot could use up what is left of the limit (`next_poll`).
"""

import os

from .contain import linux

CLOCK_TICKS = os.sysconf("SC_CLK_TCK")  # /proc/PID/stat's unit of CPU time
CORES = max(1, len(os.sched_getaffinity(0)))  # the cores a slot's processes may run on at once
MIN_POLL_SECONDS = 0.02
# What the server charges where no CPU counter exists (`coderl check --show-isolation` prints it).
FALLBACK = {
    "full": "the program's PID namespace, polled",
    "uid": "the slot uid's processes, polled, and each orphan's CPU as the zygote reaps it",
    "rlimits": "the program's session, polled (a process that leaves it with setsid is not charged)",
}


def describe(slots):
    """How this server charges a program's CPU: the cgroup counter, or the level's fallback."""
    version = slots.cgroups.version
    if slots.cgroups.cpu_seconds(0) is not None:
        counter = "cpuacct.usage" if version == "v1" else "cpu.stat"
        return f"cgroup {version} {counter}: the program's whole tree, its slot's group made anew per program"
    return f"fallback (no cgroup CPU counter): {FALLBACK[slots.level]}"


def _stat(pid):
    """(ppid, session, CPU seconds with its reaped children's) of process `pid`, or None once it is gone."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            fields = f.read().rsplit(b")", 1)[1].split()
    except (OSError, IndexError):
        return None
    return int(fields[1]), int(fields[3]), sum(int(x) for x in fields[11:15]) / CLOCK_TICKS


def _pid_ns(pid):
    try:
        return os.readlink(f"/proc/{pid}/ns/pid")
    except OSError:
        return None


class Meter:
    """One program's CPU: `started` once its first process is forked, `read` at each poll and at its exit."""

    def __init__(self, slots, slot):
        self.slots, self.slot = slots, slot
        self.base = slots.cgroups.cpu_seconds(slot)  # None: no counter, the level's fallback
        self.member = None  # the fallback's test of a process (pid -> bool), once the program is forked
        self.seen = {}  # the last poll's processes of the program: pid -> (ppid, CPU)
        self.gone = 0.0  # the CPU of its orphans that have exited since
        self.credited = {}  # pid -> what `gone` holds for an orphan a poll saw go, until the zygote reports it
        self.used = 0.0

    def started(self, pid):
        """The program's first process is `pid` (as the server sees it): how the fallback knows its processes."""
        if self.member is not None:
            return
        level = self.slots.level
        if level == "full":
            ns = _pid_ns(pid)
            self.member = lambda p: ns is not None and _pid_ns(p) == ns
        elif level == "uid":
            uid = str(self.slots.uid(self.slot))
            self.member = lambda p: linux.real_uid(p) == uid
        else:
            self.member = lambda p, sid=pid: (_stat(p) or (0, None))[1] == sid
        self.seen[pid] = (0, 0.0)

    def read(self):
        """The CPU seconds the program's tree has used so far (never less than an earlier read)."""
        if self.base is not None:
            now = self.slots.cgroups.cpu_seconds(self.slot)
            if now is not None:
                self.used = max(self.used, now - self.base)
            return self.used
        if self.member is None:
            return self.used
        current = {}
        for name in os.listdir("/proc"):
            if name.isdigit() and (int(name) in self.seen or self.member(int(name))):
                st = _stat(int(name))
                if st is not None:
                    current[int(name)] = (st[0], st[2])
        for pid, (ppid, cpu) in self.seen.items():  # gone since the last poll: an orphan's CPU reached no one
            if pid not in current and ppid not in self.seen:
                self.gone += cpu
                self.credited[pid] = cpu
        self.seen = current
        return self._total()

    def orphan(self, pid, cpu):
        """`uid`: the zygote, the slot's subreaper, reaped an orphan of the program that had used `cpu` (with its
        reaped children's): charged in full, less what a poll charged for it already."""
        if self.base is not None:
            return  # the counter has it
        self.seen.pop(pid, None)
        self.gone += max(0.0, cpu - self.credited.pop(pid, 0.0))
        self._total()

    def _total(self):
        self.used = max(self.used, self.gone + sum(cpu for _, cpu in self.seen.values()))
        return self.used

    def next_poll(self, limit):
        """Seconds until the next look: as soon as every core could have used up what is left of `limit`."""
        return max(MIN_POLL_SECONDS, (limit - self.used) / CORES)
