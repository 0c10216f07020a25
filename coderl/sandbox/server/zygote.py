"""The zygote: the only process that forks programs.  Standard library only; part of the fork server's package.

The fork server forks the zygote once, at start-up, before it reads any request; from then on the
zygote holds nothing of any request.  Per process to start it receives one message on its socket: the
process's role and worker slot, plus the file descriptors the process will use (passed with
SCM_RIGHTS: a memfd holding the request, stdin, output pipes, the judge-program channel, the result
pipe).  It forks, reports the pid, and closes its copies; the child reads its request from its own
memfd.  So a program's memory holds the zygote's start-up state and its own request, never another
program's code or a test's data.  The zygote also reaps its children and reports each exit with the
child's rusage and the exit time (wall time is judged at exit, not when the server gets round to it).
"""

import ctypes
import fcntl
import gc
import json
import math
import os
import resource
import selectors
import shutil
import signal
import socket
import sys
import tempfile
import time
import traceback

FD_ORDER = ("stdin", "out", "err", "req", "chan", "res", "ctl")  # -> fds 0..6 in the child
# PYTHONHASHSEED: the server's own (client.HASH_SEED), so a Python a command starts hashes as forked programs do.
CHILD_ENV = {"PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8", "HOME": "/tmp", "PYTHONIOENCODING": "utf-8",
             "PYTHONHASHSEED": os.environ.get("PYTHONHASHSEED", "0")}
PR_SET_PDEATHSIG = 1
_libc = ctypes.CDLL(None, use_errno=True)


class Zygote:
    """A zygote's loop: one fork per message on its socket, each exit reported back (`reap`)."""

    def __init__(self, sock, slots, modules, snapshot):
        self.sock = sock
        self.slots = slots
        self.modules = modules  # {"harness": ..., "checks": ...}
        self.snapshot = snapshot
        self.started = {}  # pid -> monotonic start

    def loop(self):
        """Fork for each message on the socket and reap on SIGCHLD (a wake-up pipe), until the server closes it or
        goes away (a report it can no longer take is the end, not an error: nothing is printed)."""
        wake_r, wake_w = os.pipe()
        os.set_blocking(wake_w, False)
        os.set_blocking(wake_r, False)
        signal.signal(signal.SIGCHLD, lambda *_: None)
        signal.set_wakeup_fd(wake_w)
        sel = selectors.DefaultSelector()
        sel.register(self.sock, selectors.EVENT_READ)
        sel.register(wake_r, selectors.EVENT_READ)
        closed = False
        try:
            while not closed:
                for key, _ in sel.select():
                    if key.fileobj is self.sock:
                        closed = closed or not self.fork_one()
                    else:
                        try:
                            os.read(wake_r, 4096)
                        except BlockingIOError:
                            pass
                if not closed:
                    self.reap()
        except (BrokenPipeError, ConnectionResetError):  # the server's end is gone
            pass
        self.end()

    def fork_one(self):
        """Fork the process one message asks for (its role, slot and fds) and report its pid and pidfd; False
        when the server has closed the socket."""
        try:
            data, fds, _, _ = socket.recv_fds(self.sock, 4096, len(FD_ORDER))
        except (ConnectionResetError, OSError):
            return False
        if not data:
            return False
        msg = json.loads(data)
        self.slots.before_fork(msg["role"])
        pid = os.fork()
        if pid == 0:
            try:
                signal.set_wakeup_fd(-1)
                self.child(msg, dict(zip(msg["fds"], fds)))
            except BaseException:
                traceback.print_exc()  # the sandbox's own failure, on the process's stderr
            finally:
                os._exit(127)
        self.started[pid] = (time.monotonic(), msg["role"], msg["slot"])
        for fd in fds:
            os.close(fd)
        try:
            pidfd = os.pidfd_open(pid)
        except OSError:
            pidfd = None
        report = {"forked": msg["key"], "pid": pid}
        socket.send_fds(self.sock, [json.dumps(report).encode()], [pidfd] if pidfd is not None else [])
        if pidfd is not None:
            os.close(pidfd)
        return True

    def reap(self):
        """Reap every child that has exited and report each tracked one (status, CPU, peak RSS, wall time at exit),
        after killing what a program left at `uid`."""
        while True:
            try:  # who it is first (its uid), then reaped with its rusage
                seen = os.waitid(os.P_ALL, 0, os.WEXITED | os.WNOHANG | os.WNOWAIT)
            except ChildProcessError:
                return
            if seen is None:
                return
            pid, status, ru = os.wait4(seen.si_pid, 0)
            info = self.started.pop(pid, None)
            if info is None:  # an orphan reparented to us (uid level)
                self.report_orphan(seen, ru)
                continue
            start, role, slot = info
            wall = time.monotonic() - start
            if role == "judge":  # what the task's code started in the judge's process group ends with it
                try:
                    os.killpg(pid, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    pass
            else:
                self.slots.kill_leftovers(slot, self.reap_orphans)
            report = {"exited": pid, "wall": wall, "at": start + wall,
                      "exit_code": os.WEXITSTATUS(status) if os.WIFEXITED(status) else None,
                      "signal": os.WTERMSIG(status) if os.WIFSIGNALED(status) else None,
                      "cpu": ru.ru_utime + ru.ru_stime, "rss": ru.ru_maxrss * 1024}
            self.sock.send(json.dumps(report).encode())

    def end(self):
        """The server is done with us: kill and reap every child still running, so that none outlives the sandbox
        as an orphan."""
        for pid in self.started:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        for pid in list(self.started):
            try:
                os.waitpid(pid, 0)
            except ChildProcessError:
                pass

    def reap_orphans(self):
        """Reap processes reparented to us that we do not track (stops at the first tracked one)."""
        while True:
            try:
                info = os.waitid(os.P_ALL, 0, os.WEXITED | os.WNOHANG | os.WNOWAIT)
            except ChildProcessError:
                return
            if info is None or info.si_pid in self.started:
                return
            try:
                _, _, ru = os.wait4(info.si_pid, 0)
            except ChildProcessError:
                return
            self.report_orphan(info, ru)

    def report_orphan(self, info, ru):
        """An orphan of a slot's program, reaped here (`uid`: we are their subreaper): its CPU, with its own reaped
        children's, for the program's count where no cgroup counts it (`meter.Meter.orphan`)."""
        slot = self.slots.slot_of(info.si_uid)
        if slot is not None:
            self.sock.send(json.dumps({"orphan": info.si_pid, "slot": slot,
                                       "cpu": ru.ru_utime + ru.ru_stime}).encode())

    # ---- in the child -----------------------------------------------------------------------
    def child(self, msg, fds):
        """In the forked child: its fds in place (FD_ORDER), then become what its role says: a judge, or a program
        (its slot's cgroups and namespaces, limits, its slot's view and uid, then the program, script or command)."""
        role, slot = msg["role"], msg["slot"]
        os.setsid()  # own process group: everything it starts is killed with it
        for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGCHLD):
            signal.signal(sig, signal.SIG_DFL)
        # As CPython sets it up: a write to a closed pipe is a BrokenPipeError, not a death, and SIGINT is a
        # KeyboardInterrupt (`_thread.interrupt_main`, `signal.raise_signal(SIGINT)`), not a death (a command's
        # exec gets the defaults back: a handled signal is reset by exec, SIGPIPE below).
        signal.signal(signal.SIGPIPE, signal.SIG_IGN)
        if role in ("program", "script"):
            signal.signal(signal.SIGINT, signal.default_int_handler)
        self.sock.close()
        fds.setdefault("stdin", os.open(os.devnull, os.O_RDONLY))
        high = {name: fcntl.fcntl(fd, fcntl.F_DUPFD, 64) for name, fd in fds.items()}  # out of the way first
        for target, name in enumerate(FD_ORDER):
            if name in high:
                os.dup2(high[name], target)
            else:  # a slot this role has no use for: never the zygote's own fd (its wake pipe, its epoll)
                try:
                    os.close(target)
                except OSError:
                    pass
        os.closerange(len(FD_ORDER), 1 << 20)
        if role != "judge":  # a judge is forked for this one task: it runs the task's code only (no cgroup, no mounts)
            self.slots.join(slot)
        request = json.loads(read_all(3))
        os.close(3)
        lim = request["limits"]
        if role == "judge":
            cpu = int(max(1.0, float(lim["cpu_seconds"]))) + 1
            space = _address_space() + lim["memory_bytes"]  # it imported more than a program: the limit on top
            for which, value in ((resource.RLIMIT_CPU, cpu), (resource.RLIMIT_AS, space), (resource.RLIMIT_CORE, 0),
                                 (resource.RLIMIT_FSIZE, lim["file_size_bytes"]),
                                 (resource.RLIMIT_NPROC, lim["max_processes"])):
                resource.setrlimit(which, (value, value))
            os.chdir("/")
            self.slots.enter_judge(slot)
        else:
            cpu = max(1, math.ceil(lim["cpu_seconds"]))
            resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
            # Address space (a clean MemoryError), or for runtimes that reserve more than they use (Node.js),
            # data: the slot's memory cgroup bounds both.
            space = resource.RLIMIT_AS if lim.get("address_space", True) else resource.RLIMIT_DATA
            resource.setrlimit(space, (lim["memory_bytes"], lim["memory_bytes"]))
            resource.setrlimit(resource.RLIMIT_FSIZE, (lim["file_size_bytes"], lim["file_size_bytes"]))
            resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
            if self.slots.level != "full":  # where no IPC namespace of its own takes them, no POSIX message queue
                resource.setrlimit(resource.RLIMIT_MSGQUEUE, (0, 0))
            resource.setrlimit(resource.RLIMIT_NPROC, (lim["max_processes"], lim["max_processes"]))
            work = msg.get("work") or self.slots.dirs(slot)["work"]  # (an episode's working copy)
            os.chdir(work)  # before any mount hides the path
            if role == "script":  # `python main.py`: the program is a file, root's and read-only
                self.modules["script"].write_main(request["program"])
            self.slots.enter(slot, lim, msg.get("work"), msg.get("env"))
        _die_with_parent()
        os.environ.clear()
        os.environ.update(CHILD_ENV)
        if role == "judge":
            self.modules["checks"].run(request, 4, 5)
            os._exit(0)
        if role == "command":
            signal.signal(signal.SIGPIPE, signal.SIG_DFL)
            argv = request["argv"]
            try:
                os.execvpe(argv[0], argv, CHILD_ENV)
            except OSError as exc:
                os.write(2, f"cannot execute {argv[0]!r}: {exc}\n".encode())
                os._exit(127)
        # `random` reseeds itself in a forked child (its os.register_at_fork hook): no shared state.
        if role == "program":
            self.modules["harness"].Program(4, request["max_bytes"]).serve(request["program"], self.snapshot)
            self.modules["script"].flush(sys.stdout)
            self.modules["script"].flush(sys.stderr)
            os._exit(0)
        os._exit(self.modules["script"].run_script(request["program"]))


def read_all(fd):
    chunks = []
    while True:
        chunk = os.read(fd, 1 << 20)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)


def _address_space():
    """Bytes of this process's address space (/proc/self/statm's first field)."""
    with open("/proc/self/statm", "rb") as f:
        return int(f.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")


def _die_with_parent():
    """SIGKILL when the zygote dies (set after the uid change, which would clear it)."""
    _libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)


def memfd(data):
    """An unlinked in-memory file holding `data`, positioned at its start: how a request (or a large
    stdin) reaches exactly one child."""
    fd = os.memfd_create("coderl-request", os.MFD_CLOEXEC)
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]
    os.lseek(fd, 0, os.SEEK_SET)
    return fd


def start(slots, modules, close=()):
    """Fork the zygote from the fork server, before it reads any request; returns (the server's end of its
    socket, its pid).  `close`: callables that drop the server's own descriptors in the zygote."""
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    shutil.rmtree(tempfile.mkdtemp(dir=slots.root))  # settle tempfile's lazily created module state
    pid = os.fork()
    if pid == 0:
        try:
            ours.close()
            for drop in close:
                drop()
            _libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
            slots.become_zygote()
            snapshot = modules["harness"].Tamper()
            gc.collect()
            gc.freeze()  # the zygote's objects stay out of later collections: fewer copy-on-write faults
            Zygote(theirs, slots, modules, snapshot).loop()
        except BaseException:
            traceback.print_exc()  # to the server's stderr: the zygote must never die quietly
            os._exit(1)
        finally:
            os._exit(0)
    theirs.close()
    return ours, pid
