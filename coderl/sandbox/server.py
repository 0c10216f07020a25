"""The fork server: a single-threaded process that forks one fresh child per program run.

Started by `coderl.sandbox.client.Sandbox` with exec (`python -I server.py`) and a minimal
environment, before the caller imports torch, so children never inherit a trainer's threads, memory
or environment.  Standard library only; loaded by path, never as part of the `coderl` package (its
directory must not shadow stdlib modules on a candidate's `sys.path`).

Protocol (newline-delimited JSON): requests on fd 0, one response per request on fd 1, each carrying
the raw facts of every process run (exit status, rusage, capped stdout/stderr, harness records).
Judging happens in the client, which alone knows the expected values.
"""

import collections
import gc
import importlib
import importlib.util
import json
import math
import os
import resource
import secrets
import selectors
import shutil
import signal
import sys
import tempfile
import time

_HERE = os.path.dirname(os.path.abspath(__file__))

# Modules candidates commonly use, imported once here so a forked child starts warm.
WARM_MODULES = ("array", "bisect", "collections.abc", "copy", "datetime", "decimal", "fractions", "functools",
                "hashlib", "heapq", "itertools", "operator", "random", "re", "statistics", "string", "typing")
for _name in WARM_MODULES:
    importlib.import_module(_name)


def _load(name):
    spec = importlib.util.spec_from_file_location("_coderl_" + name, os.path.join(_HERE, name + ".py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


harness = _load("harness")
isolation = _load("isolation")

BASE_SNAPSHOT = None  # taken once in main(), once the server's modules are settled; inherited by children
CHILD_ENV = {"PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8", "HOME": "/tmp", "PYTHONIOENCODING": "utf-8"}
RESULT_FD = 3
READ_CHUNK = 65536


class Run:
    """One process: a PYTHON_TESTS program, or one test of a per-process request."""

    def __init__(self, job, index, stdin_text):
        self.job = job
        self.index = index
        self.stdin_text = stdin_text
        self.pid = None
        self.pidfd = None
        self.fds = {}  # fd -> stream name
        self.buffers = {"stdout": bytearray(), "stderr": bytearray(), "result": bytearray()}
        self.totals = {"stdout": 0, "stderr": 0, "result": 0}
        self.killed = None  # "wall" | "output"
        self.start = 0.0
        self.deadline = 0.0
        self.slot = None
        self.oom_before = 0
        self.nonce = secrets.token_hex(8)
        self.report = None


class Job:
    def __init__(self, msg):
        self.msg = msg
        self.id = msg["id"]
        self.limits = msg["limits"]
        mode = msg["mode"]
        if mode == "python_tests":
            self.runs = [Run(self, 0, None)]
        else:
            tests = msg["tests"] or [{"id": "0", "source": ""}]
            self.runs = [Run(self, i, t["source"]) for i, t in enumerate(tests)]
        self.pending = len(self.runs)


class Server:
    def __init__(self, workers, slots):
        self.workers = workers
        self.slots = slots
        self.free_slots = list(range(workers))
        self.sel = selectors.DefaultSelector()
        self.queue = collections.deque()
        self.active = {}  # pid -> Run
        self.inbuf = bytearray()
        self.closing = False
        self.out_fd = os.dup(1)
        self.in_fd = os.dup(0)
        # Our own std streams point nowhere: children get fresh ones, and nothing stray reaches the protocol.
        devnull = os.open(os.devnull, os.O_RDWR)
        os.dup2(devnull, 0)
        os.dup2(devnull, 1)
        os.close(devnull)
        os.set_blocking(self.in_fd, False)
        self.sel.register(self.in_fd, selectors.EVENT_READ, ("control", None))

    # ---- control channel -------------------------------------------------------------------
    def send(self, obj):
        data = (json.dumps(obj) + "\n").encode()
        view = memoryview(data)
        while view:
            n = os.write(self.out_fd, view)
            view = view[n:]

    def read_control(self):
        try:
            chunk = os.read(self.in_fd, 1 << 20)
        except BlockingIOError:
            return
        if not chunk:
            self.closing = True
            self.sel.unregister(self.in_fd)
            return
        self.inbuf += chunk
        while True:
            nl = self.inbuf.find(b"\n")
            if nl < 0:
                break
            line = bytes(self.inbuf[:nl])
            del self.inbuf[: nl + 1]
            msg = json.loads(line)
            if msg.get("op") == "ping":
                self.send({"id": msg["id"], "pong": True, "pid": os.getpid()})
                continue
            job = Job(msg)
            self.queue.extend(job.runs)

    # ---- starting a run --------------------------------------------------------------------
    def start(self, run):
        job = run.job
        msg = job.msg
        lim = job.limits
        run.slot = slot = self.free_slots.pop()
        work = self.slots.dirs(slot)["work"]
        uid = self.slots.uid(slot) if self.slots.level != "rlimits" else None
        for name, content in (msg.get("files") or {}).items():
            path = os.path.join(work, name)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w", encoding="utf-8") as f:
                f.write(content)
            if uid is not None:
                os.chown(path, uid, uid)
        stdin_r = None
        if run.stdin_text:
            # Through a pipe (filled here, up to the pipe's size) or, when larger, a file outside `work`.
            data = run.stdin_text.encode()
            if len(data) < 60000:
                stdin_r, stdin_w = os.pipe()
                os.write(stdin_w, data)
                os.close(stdin_w)
            else:
                stdin_path = os.path.join(os.path.dirname(work), "stdin")
                with open(stdin_path, "wb") as f:
                    f.write(data)
                stdin_r = os.open(stdin_path, os.O_RDONLY)
                os.unlink(stdin_path)
        self.slots.set_limits(slot, lim["max_processes"], lim["memory_bytes"])
        run.oom_before = self.slots.oom_kills(slot)
        out_r, out_w = os.pipe()
        err_r, err_w = os.pipe()
        res_r, res_w = os.pipe() if msg["mode"] == "python_tests" else (None, None)
        run.start = time.monotonic()
        run.deadline = run.start + lim["wall_seconds"]
        if run.index == 0:  # before the fork: the program cannot kill us before the client knows
            self.send({"started": job.id})
        self.slots.before_fork()
        pid = os.fork()
        if pid == 0:  # ---- child ----
            try:
                self._child(run, work, stdin_r, out_w, err_w, res_w)
            finally:
                os._exit(127)
        run.pid = pid
        for fd in (out_w, err_w, res_w, stdin_r):
            if fd is not None:
                os.close(fd)
        for fd, name in ((out_r, "stdout"), (err_r, "stderr"), (res_r, "result")):
            if fd is not None:
                os.set_blocking(fd, False)
                run.fds[fd] = name
                self.sel.register(fd, selectors.EVENT_READ, ("stream", run))
        run.pidfd = os.pidfd_open(pid)
        self.sel.register(run.pidfd, selectors.EVENT_READ, ("exit", run))
        self.active[pid] = run

    def _child(self, run, work, stdin_r, out_w, err_w, res_w):
        msg = run.job.msg
        lim = run.job.limits
        os.setsid()  # own process group: everything it starts is killed with it
        for sig in (signal.SIGPIPE, signal.SIGINT, signal.SIGTERM, signal.SIGCHLD):
            signal.signal(sig, signal.SIG_DFL)
        os.dup2(stdin_r if stdin_r is not None else os.open(os.devnull, os.O_RDONLY), 0)
        os.dup2(out_w, 1)
        os.dup2(err_w, 2)
        if res_w is not None:
            os.dup2(res_w, RESULT_FD)
            os.closerange(RESULT_FD + 1, 1 << 20)
        else:
            os.closerange(3, 1 << 20)
        cpu = max(1, math.ceil(lim["cpu_seconds"]))
        resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
        resource.setrlimit(resource.RLIMIT_AS, (lim["memory_bytes"], lim["memory_bytes"]))
        resource.setrlimit(resource.RLIMIT_FSIZE, (lim["file_size_bytes"], lim["file_size_bytes"]))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        resource.setrlimit(resource.RLIMIT_NPROC, (lim["max_processes"], lim["max_processes"]))
        os.chdir(work)  # before any mount hides the path
        self.slots.enter(run.slot)
        os.environ.clear()
        os.environ.update(CHILD_ENV)
        mode = msg["mode"]
        if mode == "command":
            argv = msg["argv"]
            try:
                os.execvpe(argv[0], argv, CHILD_ENV)
            except OSError as exc:
                os.write(2, f"cannot execute {argv[0]!r}: {exc}\n".encode())
                os._exit(127)
        # `random` reseeds itself in a forked child (its os.register_at_fork hook): no shared state.
        # sys.stdin/stdout/stderr are the interpreter's own objects over fds 0-2, which now point at
        # this run's stdin and pipes; the server never reads or writes them, so nothing is buffered.
        if mode == "python_tests":
            tests = [{k: t[k] for k in ("id", "setup", "source", "kind")} for t in msg["tests"]]
            harness.run_tests(msg["program"], msg.get("entry_point"), msg.get("test_preamble", ""),
                              tests, RESULT_FD, run.nonce, BASE_SNAPSHOT)
            os._exit(0)
        os._exit(harness.run_script(msg["program"]))

    # ---- I/O and exits ---------------------------------------------------------------------
    def read_stream(self, fd, run):
        """Read one chunk; returns its size, 0 at end of stream, -1 when nothing is ready."""
        name = run.fds.get(fd)
        if name is None:
            return 0
        try:
            chunk = os.read(fd, READ_CHUNK)
        except BlockingIOError:
            return -1
        if not chunk:
            self.sel.unregister(fd)
            os.close(fd)
            del run.fds[fd]
            return 0
        lim = run.job.limits
        run.totals[name] += len(chunk)
        cap = lim["output_bytes"] if name != "result" else lim["output_kill_bytes"]
        room = cap - len(run.buffers[name])
        if room > 0:
            run.buffers[name] += chunk[:room]
        if run.totals[name] > lim["output_kill_bytes"] and run.killed is None:
            run.killed = "output"
            self.kill(run)
        return len(chunk)

    def kill(self, run):
        for target in (lambda: os.killpg(run.pid, signal.SIGKILL), lambda: os.kill(run.pid, signal.SIGKILL)):
            try:
                target()
            except (ProcessLookupError, PermissionError):
                pass

    def reap(self, run):
        _, status, ru = os.wait4(run.pid, 0)
        wall = time.monotonic() - run.start
        try:
            os.killpg(run.pid, signal.SIGKILL)  # anything it left behind in its group
        except (ProcessLookupError, PermissionError):
            pass
        self.sel.unregister(run.pidfd)
        os.close(run.pidfd)
        for fd in list(run.fds):  # what it wrote before exiting is in the pipe: drain, then close
            for _ in range(1024):  # bounded: a setsid'd leftover may keep writing
                if self.read_stream(fd, run) <= 0:
                    break
            if fd in run.fds:
                self.sel.unregister(fd)
                os.close(fd)
                del run.fds[fd]
        del self.active[run.pid]
        oom = self.slots.oom_kills(run.slot) > run.oom_before
        self.slots.sweep(run.slot, self.reap_orphans)
        self.free_slots.append(run.slot)
        run.report = {
            "exit_code": os.WEXITSTATUS(status) if os.WIFEXITED(status) else None,
            "signal": os.WTERMSIG(status) if os.WIFSIGNALED(status) else None,
            "cpu_seconds": ru.ru_utime + ru.ru_stime,
            "wall_seconds": wall,
            "max_rss_bytes": ru.ru_maxrss * 1024,
            "killed": run.killed or ("memory" if oom else None),
            "stdout": run.buffers["stdout"].decode("utf-8", "replace"),
            "stderr": run.buffers["stderr"].decode("utf-8", "replace"),
            "stdout_total": run.totals["stdout"],
            "stderr_total": run.totals["stderr"],
            "result": run.buffers["result"].decode("utf-8", "replace"),
            "nonce": run.nonce,
        }
        job = run.job
        job.pending -= 1
        if job.pending == 0:
            self.send({"id": job.id, "runs": [r.report for r in job.runs]})

    def reap_orphans(self):
        """Reap processes reparented to us (we are a subreaper in `uid` mode) that we do not track."""
        while True:
            try:
                info = os.waitid(os.P_ALL, 0, os.WEXITED | os.WNOHANG | os.WNOWAIT)
            except ChildProcessError:
                return
            if info is None or info.si_pid in self.active:
                return
            try:
                os.waitpid(info.si_pid, 0)
            except ChildProcessError:
                return

    def loop(self):
        while not (self.closing and not self.active and not self.queue):
            while self.queue and len(self.active) < self.workers and not self.closing:
                self.start(self.queue.popleft())
            if self.closing:
                self.queue.clear()
                for run in list(self.active.values()):
                    self.kill(run)
            now = time.monotonic()
            timeout = min((r.deadline for r in self.active.values()), default=now + 1.0) - now
            for key, _ in self.sel.select(max(0.0, timeout)):
                kind, run = key.data
                if kind == "control":
                    self.read_control()
                elif kind == "stream":
                    self.read_stream(key.fd, run)
                elif kind == "exit" and run.pid in self.active:
                    self.reap(run)
            now = time.monotonic()
            for run in list(self.active.values()):
                if now >= run.deadline and run.killed is None:
                    run.killed = "wall"
                    self.kill(run)


def main():
    workers = int(sys.argv[1]) if len(sys.argv) > 1 else os.cpu_count() or 1
    requested = sys.argv[2] if len(sys.argv) > 2 else "auto"
    out_fd = 1
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    global BASE_SNAPSHOT
    slots = None
    try:
        caps = isolation.detect()
        try:
            level, warning = isolation.choose(requested, caps)
            slots = isolation.Slots(level, workers, caps)
        except (isolation.IsolationError, OSError) as exc:
            os.write(out_fd, (json.dumps({"hello": True, "error": str(exc)}) + "\n").encode())
            return
        server = Server(workers, slots)
        hello = {"hello": True, "isolation": level, "warning": warning, "pid": os.getpid(),
                 "cgroups": sorted(slots.cgroups), "capabilities": caps}
        server.send(hello)
        shutil.rmtree(tempfile.mkdtemp(dir=slots.root))  # settle tempfile's lazily created module state
        BASE_SNAPSHOT = harness.Snapshot()
        BASE_SNAPSHOT.refresh("__main__")  # includes BASE_SNAPSHOT itself
        gc.collect()
        gc.freeze()  # the server's own objects stay out of later collections: fewer copy-on-write faults
        server.loop()
    finally:
        if slots is not None:
            slots.close()


if __name__ == "__main__":
    main()
