"""Per-slot control groups, cgroup v1 or v2.  Standard library only.

One parent group per server (`coderl-<server pid>`) with one child group per worker slot.  What each
feature needs:

    feature                         v1 (separate hierarchies)        v2 (unified hierarchy)
    process cap per slot            pids controller: pids.max        pids controller: pids.max
    memory cap per slot             memory: memory.limit_in_bytes    memory: memory.max (+ swap.max 0)
    OOM kills seen                  memory.oom_control "oom_kill"    memory.events "oom_kill"
    leftovers found and killed      cgroup.procs of the slot         cgroup.procs (and cgroup.kill)
    CPU of the program's whole tree cpuacct: cpuacct.usage           cpu.stat "usage_usec" (every group)

Every slot group is made anew for each program (`renew`, once the last program's processes are gone), so no
counter a program can read (CPU, peak memory, OOM kills, process events) reflects an earlier program.

Without either (no root, or no writable hierarchy), the `uid` level still caps processes per slot uid
with RLIMIT_NPROC and memory per process with RLIMIT_AS, and finds leftovers by uid.  Stale groups of
a server that was killed are removed by the next server (`remove_stale`).
"""

import os
import signal

ROOT = "/sys/fs/cgroup"


class Cgroups:
    """Common interface: `version` ("v1", "v2" or None), `set_limits`, `oom_kills`, `join`, `pids`,
    `kill`, `close`.  Every write is best effort: a limit the kernel refuses stays unenforced, and the
    RLIMIT_* limits still apply."""

    version = None
    controllers = ()

    def set_limits(self, slot, max_processes, memory_bytes):
        pass

    def oom_kills(self, slot):
        return 0

    def join(self, slot):
        pass

    def pids(self, slot):
        return None

    def cpu_seconds(self, slot):
        """CPU seconds the slot's group has used since it was made (every process that ran in it, exited or
        not), or None without a CPU counter."""
        return None

    def renew(self, slot):
        """Remove the slot's groups and make them anew (best effort: a group that still holds a process stays)."""

    def kill(self, slot):
        """SIGKILL every process in the slot's group; the pids found and killed (None without groups)."""
        pids = self.pids(slot)
        for pid in pids or ():
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        return pids

    def close(self):
        pass


def _write(path, value):
    try:
        with open(path, "w") as f:
            f.write(value)
        return True
    except OSError:
        return False


def _counter(path, key, missing=0):
    try:
        with open(path) as f:
            for line in f:
                if line.startswith(key + " "):
                    return int(line.split()[1])
    except (OSError, ValueError):
        pass
    return missing


def _renew(path):
    try:
        os.rmdir(path)
    except FileNotFoundError:
        pass
    except OSError:
        return
    os.mkdir(path)


def _procs(path):
    try:
        with open(path) as f:
            return [int(x) for x in f.read().split()]
    except (OSError, ValueError):
        return None


class CgroupsV1(Cgroups):
    version = "v1"

    def __init__(self, workers, tag, root=ROOT, controllers=("pids", "memory", "cpuacct")):
        """The slot groups under each of `controllers` (each a hierarchy of its own on v1); a controller that cannot
        be made here is left out."""
        self.bases = {}  # controller -> parent group
        for ctrl in controllers:
            path = os.path.join(root, ctrl, tag)
            try:
                for slot in range(workers):
                    os.makedirs(os.path.join(path, f"slot{slot}"), exist_ok=True)
                self.bases[ctrl] = path
            except OSError:
                pass
        self.controllers = tuple(self.bases)

    def slot(self, ctrl, slot, name=""):
        return os.path.join(self.bases[ctrl], f"slot{slot}", name)

    def set_limits(self, slot, max_processes, memory_bytes):
        if "pids" in self.bases:
            _write(self.slot("pids", slot, "pids.max"), str(max_processes))
        if "memory" in self.bases:
            _write(self.slot("memory", slot, "memory.limit_in_bytes"), str(memory_bytes))

    def oom_kills(self, slot):
        return _counter(self.slot("memory", slot, "memory.oom_control"), "oom_kill") if "memory" in self.bases else 0

    def cpu_seconds(self, slot):
        if "cpuacct" not in self.bases:
            return None
        try:
            with open(self.slot("cpuacct", slot, "cpuacct.usage")) as f:
                return int(f.read()) / 1e9
        except (OSError, ValueError):
            return None

    def renew(self, slot):
        for ctrl in self.bases:
            _renew(self.slot(ctrl, slot))

    def join(self, slot):
        for ctrl in self.bases:
            with open(self.slot(ctrl, slot, "cgroup.procs"), "w") as f:
                f.write("0")  # 0 = the writing process (pids differ inside a PID namespace)

    def pids(self, slot):
        ctrl = "pids" if "pids" in self.bases else "memory" if "memory" in self.bases else None
        return _procs(self.slot(ctrl, slot, "cgroup.procs")) if ctrl else None

    def close(self):
        for base in self.bases.values():
            _remove(base)


class CgroupsV2(Cgroups):
    version = "v2"

    def __init__(self, workers, tag, root=ROOT):
        """The slot groups under one group of this server's with `pids` and `memory` enabled for its children, where
        the root offers them; none where the hierarchy is not writable."""
        self.base = None
        try:
            with open(os.path.join(root, "cgroup.controllers")) as f:
                available = f.read().split()
        except OSError:
            return
        wanted = [c for c in ("pids", "memory") if c in available]
        path = os.path.join(root, tag)
        try:
            os.makedirs(path, exist_ok=True)
            # The parent has no processes of its own (v2's no-internal-process rule): only the slots do.
            enabled = [c for c in wanted if _write(os.path.join(path, "cgroup.subtree_control"), "+" + c)]
            for slot in range(workers):
                os.makedirs(os.path.join(path, f"slot{slot}"), exist_ok=True)
        except OSError:
            return
        self.base = path
        self.controllers = tuple(enabled)

    def slot(self, slot, name=""):
        return os.path.join(self.base, f"slot{slot}", name)

    def set_limits(self, slot, max_processes, memory_bytes):
        if self.base is None:
            return
        if "pids" in self.controllers:
            _write(self.slot(slot, "pids.max"), str(max_processes))
        if "memory" in self.controllers:
            _write(self.slot(slot, "memory.max"), str(memory_bytes))
            _write(self.slot(slot, "memory.swap.max"), "0")

    def oom_kills(self, slot):
        return _counter(self.slot(slot, "memory.events"), "oom_kill") if "memory" in self.controllers else 0

    def cpu_seconds(self, slot):
        if self.base is None:
            return None
        usec = _counter(self.slot(slot, "cpu.stat"), "usage_usec", None)
        return None if usec is None else usec / 1e6

    def renew(self, slot):
        if self.base is not None:
            _renew(self.slot(slot))

    def join(self, slot):
        if self.base is not None:
            with open(self.slot(slot, "cgroup.procs"), "w") as f:
                f.write("0")

    def pids(self, slot):
        return _procs(self.slot(slot, "cgroup.procs")) if self.base is not None else None

    def kill(self, slot):
        if self.base is not None:
            _write(self.slot(slot, "cgroup.kill"), "1")  # Linux 5.14+: the whole group at once
        return super().kill(slot)

    def close(self):
        if self.base is not None:
            _remove(self.base)


def _remove(base):
    """Remove a (process-free) group and its child groups; cgroupfs lists only groups as directories."""
    try:
        children = [n for n in os.listdir(base) if os.path.isdir(os.path.join(base, n))]
    except OSError:
        children = []
    for name in children:
        try:
            os.rmdir(os.path.join(base, name))
        except OSError:
            pass
    try:
        os.rmdir(base)
    except OSError:
        pass


def detect(root=ROOT):
    """"v2" (a unified hierarchy we can write), "v1" (writable pids/memory/cpuacct hierarchies), or None."""
    if os.path.isfile(os.path.join(root, "cgroup.controllers")) and os.access(root, os.W_OK):
        return "v2"
    for ctrl in ("pids", "memory", "cpuacct"):
        path = os.path.join(root, ctrl)
        if os.path.isfile(os.path.join(path, "cgroup.procs")) and os.access(path, os.W_OK):
            return "v1"
    return None


def remove_stale(root=ROOT):
    """Remove the empty groups of servers that died without cleaning up (`coderl-<pid>`, pid gone)."""
    for parent in (root, *(os.path.join(root, ctrl) for ctrl in ("pids", "memory", "cpuacct"))):
        try:
            names = os.listdir(parent)
        except OSError:
            continue
        for name in names:
            if name.startswith("coderl-") and name[7:].isdigit() and not os.path.exists(f"/proc/{name[7:]}"):
                _remove(os.path.join(parent, name))


def create(workers, tag, version, root=ROOT):
    if version == "v2":
        return CgroupsV2(workers, tag, root)
    if version == "v1":
        return CgroupsV1(workers, tag, root)
    return Cgroups()
