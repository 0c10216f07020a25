"""The fork server: a single-threaded event loop that runs every request in processes from the zygote.

Started by `coderl.sandbox.client.Sandbox` with exec (`python -s -P server/__main__.py`) and a minimal
environment, before the caller imports torch, so no process of the sandbox inherits a trainer's
threads, memory or environment.  Standard library only; run as part of the package `__main__.py` loads
(`_coderl_server`: its folder on no `sys.path`, so it never shadows a stdlib module a candidate imports).

The server holds the queue of requests, so it never forks a program itself: the zygote (`zygote.py`),
forked once at start-up before any request is read, starts every process.  A function task runs as
two processes: the untrusted program (`program/`) and the trusted judge (`judge/`), joined by one socketpair;
only the judge holds the result pipe.  Per-process modes (stdin/stdout programs, commands) run one
process per test.

Protocol with the client (newline-delimited JSON): requests on fd 0, one response per request on
fd 1, each carrying the raw facts of every process (exit status, rusage, capped stdout/stderr, the
judge's records).  Verdicts are decided in the client, which alone knows the expected values.

Over 400 lines: one event loop and the state it alone owns (the queue, the runs in flight with their
processes and streams, the zygote); every method reads and changes
that state, so it stays one object in one file.
"""

import collections
import json
import os
import selectors
import signal
import socket
import sys
import time

from . import jobs, lifetime, meter, zygote
from .contain import isolation
from .judge import checks
from .program import harness, script

Job, Proc, Run, STREAMS = jobs.Job, jobs.Proc, jobs.Run, jobs.STREAMS

READ_CHUNK = 65536
JUDGE_STDERR_BYTES = 4096
JUDGE_GRACE_SECONDS = 1.0  # after its program was killed, a judge's time to finish before it is killed too
CHILD_LIMITS = ("cpu_seconds", "memory_bytes", "file_size_bytes", "max_processes", "address_space")
MAX_EPISODES_PER_WORKER = 8  # working copies kept at once (each on its own size-capped tmpfs at `full`)


class Server:
    def __init__(self, workers, slots):
        """The server's state: its slots, the queue, the runs in flight and the zygote's socket; the client's pipes
        moved off fds 0 and 1."""
        self.workers = workers
        self.slots = slots
        self.zygote = None  # its socket
        self.zpid = None
        self.free_slots = list(range(workers))
        self.sel = selectors.DefaultSelector()
        self.queue = collections.deque()
        self.active = set()  # runs in flight
        self.procs = {}  # key -> Proc until forked, then also pid -> Proc
        self.keys = 0
        self.inbuf = bytearray()
        self.closing = False
        self.episodes = {}  # episode id -> {"work": its working copy, "busy": a run in it, "closed": drop when idle}
        self.episode_count = 0
        self.out_fd = os.dup(1)
        self.in_fd = os.dup(0)
        # Our own std streams point nowhere: children get fresh ones, and nothing stray reaches the protocol.
        devnull = os.open(os.devnull, os.O_RDWR)
        os.dup2(devnull, 0)
        os.dup2(devnull, 1)
        os.close(devnull)
        os.set_blocking(self.in_fd, False)
        self.sel.register(self.in_fd, selectors.EVENT_READ, ("control", None))

    def stop_zygote(self, timeout=5.0):
        """At the end: the zygote kills and reaps what it still has and exits."""
        self.sel.unregister(self.zygote)
        self.zygote.close()
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                if os.waitpid(self.zpid, os.WNOHANG)[0]:
                    return
            except ChildProcessError:
                return
            time.sleep(0.002)
        os.kill(self.zpid, signal.SIGKILL)

    # ---- control channel -------------------------------------------------------------------
    def send(self, obj):
        data = memoryview((json.dumps(obj) + "\n").encode())
        try:
            while data:
                data = data[os.write(self.out_fd, data):]
        except OSError:  # the client is gone (killed): stop as if it had closed the control channel
            self.closing = True

    def read_control(self):
        """Read the client's newline-delimited messages: requests, whose runs join the queue."""
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
            op = msg.get("op", "run")
            if op == "close_episode":
                self.close_episode(msg["episode"])
            elif op == "snapshot":
                self.send_snapshot(msg)
            else:
                self.queue.extend(Job(msg).first_runs())

    # ---- episodes: working copies kept across requests -------------------------------------
    def episode_work(self, msg, run, uid):
        """The working copy of the run's episode, given to the slot's uid: made on the episode's first request (from
        its tree and files), else as the last request left it with this request's files written over it."""
        eid = msg["episode"]
        episode = self.episodes.get(eid)
        if episode is None:
            if len(self.episodes) >= MAX_EPISODES_PER_WORKER * self.workers:
                raise ValueError(f"over {MAX_EPISODES_PER_WORKER * self.workers} episodes open at once")
            self.episode_count += 1
            work = self.slots.make_episode(self.episode_count, msg["limits"])
            episode = self.episodes[eid] = {"work": work, "busy": False, "closed": False}
            try:
                self.copy_tree(msg, work, uid)
            except Exception:
                self.drop_episode(eid)
                raise
        elif episode["busy"] or episode["closed"]:
            state = "in use by another request" if episode["busy"] else "closed"
            raise ValueError(f"episode {str(eid)[:80]!r} is {state}")
        else:
            jobs.write_files(episode["work"], msg.get("files") or {}, uid)
        if uid is not None:
            jobs.chown_tree(episode["work"], uid)
        episode["busy"] = True
        run.episode = eid
        return episode["work"]

    def copy_tree(self, msg, work, uid):
        """A request's tree (a host directory) copied into the work dir, then its files written over it."""
        if msg.get("tree"):
            src = self.slots.host_dir(msg["tree"])
            try:
                jobs.copy_tree(src, work, uid)
            finally:
                os.close(src)
        jobs.write_files(work, msg.get("files") or {}, uid)

    def release_episode(self, run):
        """A run in an episode ended: the copy is free for the next request (or dropped if closed meanwhile)."""
        episode = self.episodes.get(run.episode) if run.episode is not None else None
        if episode is not None:
            episode["busy"] = False
            if episode["closed"]:
                self.drop_episode(run.episode)

    def close_episode(self, eid):
        """The client is done with an episode: its working copy is dropped (once its run, if any, has ended)."""
        episode = self.episodes.get(eid)
        if episode is None:
            return
        episode["closed"] = True
        if not episode["busy"]:
            self.drop_episode(eid)

    def drop_episode(self, eid):
        episode = self.episodes.pop(eid)
        try:
            self.slots.drop_episode(episode["work"])
        except OSError:
            pass

    def send_snapshot(self, msg):
        """Answer a snapshot request: the episode's working copy as it stands (`jobs.snapshot`), or why not."""
        episode = self.episodes.get(msg.get("episode"))
        if episode is None or episode["busy"]:
            why = "no such episode" if episode is None else "the episode is in use by a request"
            self.send({"id": msg["id"], "snapshot": None, "error": why})
            return
        try:
            self.send({"id": msg["id"], "snapshot": jobs.snapshot(episode["work"])})
        except (OSError, ValueError) as exc:
            self.send({"id": msg["id"], "snapshot": None, "error": str(exc)[:300]})

    # ---- starting a run --------------------------------------------------------------------
    def start(self, run):
        """Start one run in a free slot: the slot's limits and files, then its processes from the zygote (and, for a
        function task, its judge)."""
        job = run.job
        msg = job.msg
        lim = job.limits
        run.slot = slot = self.free_slots.pop()
        mode = msg["mode"]
        build = run is job.build
        self.slots.set_limits(slot, lim["max_processes"], lim["memory_bytes"], lim.get("disk_bytes"))  # (work tmpfs)
        if mode == "command":
            uid = self.slots.uid(slot) if self.slots.level != "rlimits" else None
            if msg.get("episode"):
                run.work = self.episode_work(msg, run, uid)
            else:
                self.copy_tree(msg, self.slots.dirs(slot)["work"], uid)
                jobs.write_files(self.slots.dirs(slot)["work"], job.built, uid)
        run.oom_before = self.slots.cgroups.oom_kills(slot)
        run.meter = meter.Meter(self.slots, slot)
        now = time.monotonic()
        run.deadline = now + lim["wall_seconds"]
        run.cpu_check = now + run.meter.next_poll(lim["cpu_seconds"])  # no tree can pass the limit before this
        if run.index <= 0:  # before the fork: the program cannot kill us before the client knows
            self.send({"started": job.id})
        # Only the limits a process sets on itself: the capture sizes stay here (a stdout task's is derived from
        # the length of its expected output, which the program must not learn).
        child_limits = {k: lim[k] for k in CHILD_LIMITS}
        max_bytes = lim["output_kill_bytes"]
        if mode == "python_tests":
            chan_program, chan_judge = socket.socketpair()
            program = {"program": msg["program"], "limits": child_limits, "max_bytes": max_bytes}
            # the tests' own work: under the judge's limit (the run's own), not the program's
            judge_limits = {**child_limits, "cpu_seconds": lim.get("judge_cpu_seconds") or lim["cpu_seconds"]}
            judge = {**msg["judge"], "tests": msg["tests"], "limits": judge_limits, "max_bytes": max_bytes}
            self.fork(run, "program", program, chan=chan_program.detach())
            run.judge = self.fork(run, "judge", judge, chan=chan_judge.detach())
        else:
            role = "script" if mode == "python_script" else "command"
            argv = msg["build_argv"] if build else (run.argv or msg["argv"])
            self.fork(run, role, {"program": msg["program"], "argv": argv, "limits": child_limits},
                      stdin=None if build else self.stdin_fd(run, slot))
        self.active.add(run)

    def stdin_fd(self, run, slot):
        """A test's input as the process's stdin: a pipe filled here, or an unlinked file when larger than a pipe
        holds; None without input."""
        if not run.stdin_text:
            return None
        # Through a pipe (filled here, up to the pipe's size) or, when larger, an unlinked file.
        data = run.stdin_text.encode()
        if len(data) < 60000:
            stdin_r, stdin_w = os.pipe()
            os.write(stdin_w, data)
            os.close(stdin_w)
            return stdin_r
        return zygote.memfd(data)

    def fork(self, run, role, request, stdin=None, chan=None):
        """Ask the zygote for one process; only fds and the role travel to it, the request is in a memfd.  Returns
        its `Proc`."""
        self.keys += 1
        proc = Proc(run, role, self.keys)
        run.procs.append(proc)
        self.procs[proc.key] = proc
        child = {"req": zygote.memfd(json.dumps(request).encode())}
        if stdin is not None:
            child["stdin"] = stdin
        if chan is not None:
            child["chan"] = chan
        env = self.slots.environment(run.job.msg["environment"]) if run.job.msg.get("environment") else None
        child.update(self.pipes(run, role))
        names = list(child)
        head = {"role": role, "slot": run.slot, "key": proc.key, "fds": names,
                **({"work": run.work} if run.work else {}), **({"env": env} if env and role == "command" else {})}
        run.job.forked = True  # from here on the program may run: no failure of this job is provably not its own
        socket.send_fds(self.zygote, [json.dumps(head).encode()], [child[n] for n in names])
        for fd in child.values():
            os.close(fd)
        return proc

    def pipes(self, run, role):
        """A new process's output pipes: their write ends by the process's fd name, their read ends watched
        for `run`."""
        ends = {}
        # a run of record tests: its report channel (fd 5), read like a judge's result pipe
        for name in STREAMS[role] + (("result",) if role == "command" and run.job.records else ()):
            r, w = os.pipe()
            os.set_blocking(r, False)
            run.fds[r] = name
            self.sel.register(r, selectors.EVENT_READ, ("stream", run))
            ends["res" if name == "result" else "out" if name == "stdout" else "err"] = w
        return ends

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
        if name == "result" and run.judge is not None and run.meter is not None:
            # each record the judge ends is stamped with the program tree's CPU as read now: a test's own CPU is its
            # outcome's stamp less its `mark`'s (`checks.TestRun.run_one`; the per-input limit, `judge.py`)
            lines = chunk.count(b"\n")
            if lines:
                run.record_cpu.extend([run.meter.read()] * lines)
        run.totals[name] += len(chunk)
        cap = {"result": lim["output_kill_bytes"], "judge_stderr": JUDGE_STDERR_BYTES}.get(name, lim["output_bytes"])
        room = cap - len(run.buffers[name])
        if room > 0:
            run.buffers[name] += chunk[:room]
        if name == "result" and run.judge is not None and run.meter is not None:
            self.track_input(run)
        if run.totals[name] > lim["output_kill_bytes"] and run.killed is None:
            run.killed = "output"
            self.kill(run) if name in ("result", "judge_stderr") else self.end_program(run)
        return len(chunk)

    def kill(self, run, roles=None):
        """SIGKILL a run's processes (`roles`: only those)."""
        run.judge_deadline = run.judge_deadline or time.monotonic() + JUDGE_GRACE_SECONDS
        for proc in run.procs:
            if roles and proc.role not in roles:
                continue
            self.kill_proc(proc)

    def end_program(self, run):
        """Kill a run's program processes (wall clock, output flood).  Its judge sees the channel close, writes its
        records and exits; killed too only if it has not finished by `judge_deadline`."""
        self.kill(run, ("program", "script", "command"))
        run.judge_deadline = time.monotonic() + JUDGE_GRACE_SECONDS

    def track_input(self, run):
        """Follow the judge's records (its `mark` as each test starts, then that test's outcome): while a test with
        a `time_limit` of its own runs, `input_limit` holds it, and `check_cpu` ends the program once the tree's CPU
        since the test's start passes it (EvalPlus's per-input limit, enforced during the call)."""
        buf = run.buffers["result"]
        tests = run.job.msg["tests"]
        while True:
            end = buf.find(b"\n", run.scanned)
            if end < 0:
                return
            mark, run.scanned = buf.startswith(b'{"event": "mark"', run.scanned), end + 1
            run.input_limit = None  # any record ends the test running (its outcome), or starts the next
            if not mark or run.marks >= len(tests):
                continue
            test = tests[run.marks]
            run.marks += 1
            limit = test.get("time_limit")
            if limit is not None:
                run.input_limit = (test["id"], float(limit), run.record_cpu[-1] if run.record_cpu else 0.0)
                left = max(meter.MIN_POLL_SECONDS, float(limit) / meter.CORES)  # the soonest it could be spent
                run.cpu_check = min(run.cpu_check, time.monotonic() + left)

    def check_cpu(self, run, now):
        """The CPU limit to the hundredth, for the program's whole tree (`meter.py`: every process it started, alive
        or not): RLIMIT_CPU is per process and counts whole seconds (and its SIGXCPU does not reach the first process
        of a PID namespace), so the tree is killed here once its CPU passes the limit.  The verdict is the tree's CPU
        at exit (`judge.py`); otherwise the next look is when every core could have used up what is left."""
        limit = run.job.limits["cpu_seconds"]
        used = run.meter.read()
        if used > limit:
            run.killed = "cpu"
            self.end_program(run)
        elif run.input_limit is not None and used - run.input_limit[2] > run.input_limit[1]:
            tid, own, start = run.input_limit
            run.killed = "input"
            run.input_killed = {"id": tid, "time_limit": own, "cpu_seconds": round(used - start, 4)}
            self.end_program(run)
        else:
            run.cpu_check = now + run.meter.next_poll(limit)
            if run.input_limit is not None:
                _, own, start = run.input_limit
                left = max(meter.MIN_POLL_SECONDS, (own - (used - start)) / meter.CORES)
                run.cpu_check = min(run.cpu_check, now + left)

    @staticmethod
    def credit_judge(run):
        """At the wall-clock backstop of a function task: the judge's own work (the tests' CPU, while the program
        waits on it) is not the program's wait.  While the judge works (its CPU grew since the last look, or it is
        runnable: on a loaded machine it waits for a core, not for the program), the deadline moves on by 3 s for
        each CPU second it used (the backstop's factor), at least 0.05 s, up to the judge's own backstop (3 x its CPU
        limit + 1 s) in all.  True when it moved."""
        if run.judge is None or run.judge.pid is None or run.judge.exit is not None:
            return False
        state, used = proc_stat(run.judge.pid)
        lim = run.job.limits
        room = 3.0 * (lim.get("judge_cpu_seconds") or lim["cpu_seconds"]) + 1.0 - run.judge_credit
        extra = min(room, max(3.0 * used - run.judge_credit, 0.05 if state == b"R" else 0.0))
        if extra < 0.01:
            return False
        run.judge_credit += extra
        run.deadline += extra
        return True

    @staticmethod
    def kill_proc(proc):
        if proc.pid is None or proc.exit is not None:
            return  # not forked yet: killed as soon as it is (`read_zygote`)
        for target in (lambda: signal.pidfd_send_signal(proc.pidfd, signal.SIGKILL),
                       lambda: os.killpg(proc.pid, signal.SIGKILL)):
            try:
                target()
            except (ProcessLookupError, PermissionError, TypeError, OSError):
                pass

    def read_zygote(self, sock):
        """The zygote's message: a process it forked (its pid and pidfd) or one that exited (status, rusage, time)."""
        try:
            data, fds, _, _ = socket.recv_fds(sock, 4096, 1)
        except OSError:
            data, fds = b"", []
        if not data:
            raise SystemExit("the zygote died")
        msg = json.loads(data)
        if "orphan" in msg:  # reaped by the zygote (`uid`): its CPU is the slot's program's
            run = next((r for r in self.active if r.slot == msg["slot"] and r.meter is not None), None)
            if run is not None:
                run.meter.orphan(msg["orphan"], msg["cpu"])
            return
        if "forked" in msg:
            proc = self.procs.pop(msg["forked"])
            proc.pid = msg["pid"]
            proc.pidfd = fds[0] if fds else None
            self.procs[("pid", proc.pid)] = proc
            if proc.role != "judge":
                proc.run.meter.started(proc.pid)
            if proc.run is not None and proc.run.killed is not None:
                self.kill(proc.run)
            return
        proc = self.procs.pop(("pid", msg["exited"]), None)
        if proc is None:
            return
        proc.exit = msg
        if proc.pidfd is not None:
            os.close(proc.pidfd)
            proc.pidfd = None
        run = proc.run
        if proc.role == "judge" and run.procs[0].exit is None:  # the verdict is written: the program has nothing left
            run.after_judge = True
            self.kill(run, ("program",))
        if run.ended() and not run.done:
            self.finish(run)

    def fail(self, run, message):
        """End a run whose setup or cleanup failed: killed, its slot's directories made anew, and for its job a
        sandbox_error (an infrastructure failure) only when no process of the job was ever forked; once one
        was, the program may have provoked the failure, and it is the program's (`after_start_error`)."""
        run.killed = run.killed or "error"
        self.kill(run)
        run.report = {"after_start_error" if run.job.forked else "sandbox_error": message[:300]}
        self.active.discard(run)
        for fd in list(run.fds):
            self.sel.unregister(fd)
            os.close(fd)
        run.fds.clear()
        self.release_episode(run)
        if run.slot is not None and run.slot not in self.free_slots:
            try:
                self.slots.recreate(run.slot)
            except Exception:
                pass
            self.free_slots.append(run.slot)
        self.complete(run)

    def complete(self, run):
        """A run is done: a build queues its tests (or answers with its error); a job whose every run is done answers
        the client."""
        if run.done:
            return
        run.done = True
        job = run.job
        if run is job.build:
            if run.built:  # the tests, each in a work dir holding the build's outputs
                self.queue.extend(job.runs)
            else:
                self.send({"id": job.id, "runs": [], "build": {**run.report, **(
                    {"build_error": run.build_error} if run.build_error else {})}})
            return
        job.pending -= 1
        if job.pending == 0:
            self.send({"id": job.id, "runs": [r.report for r in job.runs],
                       **({"build": job.build.report} if job.build is not None else {})})

    def finish(self, run):
        try:
            self._finish(run)
        except Exception as exc:  # a cleanup failure is this run's result, never the server's death
            self.fail(run, f"cleanup failed: {exc!r}")

    def _finish(self, run):
        """Every process of the run has exited: drain its pipes, collect a build's outputs, make the slot's
        directories anew, free the slot and write the run's report."""
        for fd in list(run.fds):  # what it wrote before exiting is in the pipe: drain, then close
            for _ in range(1024):  # bounded: a setsid'd leftover may keep writing
                if self.read_stream(fd, run) <= 0:
                    break
            if fd in run.fds:
                self.sel.unregister(fd)
                os.close(fd)
                del run.fds[fd]
        self.active.discard(run)
        oom = self.slots.cgroups.oom_kills(run.slot) > run.oom_before
        main = run.procs[0].exit
        cpu = max(main["cpu"], run.meter.read())  # the whole tree's, its processes all gone (`meter.py`)
        if run is run.job.build and main["exit_code"] == 0 and run.killed is None and not oom:
            try:
                run.job.built = jobs.collect_outputs(self.slots.dirs(run.slot)["work"])
                run.built = True
            except (OSError, ValueError) as exc:
                run.build_error = str(exc)[:300]
        self.release_episode(run)
        self.slots.recreate(run.slot)
        self.free_slots.append(run.slot)
        if run.killed == "wall" and main["at"] < run.deadline:
            run.killed = None  # it had exited in time (wall time is judged at exit, not when we saw it)
        text = lambda name: run.buffers[name].decode("utf-8", "replace")  # noqa: E731
        run.report = {
            "exit_code": main["exit_code"], "signal": main["signal"], "cpu_seconds": cpu,
            "wall_seconds": main["wall"], "max_rss_bytes": main["rss"],
            "killed": run.killed or ("memory" if oom else None),
            "stdout": text("stdout"), "stderr": text("stderr"),
            "stdout_total": run.totals["stdout"], "stderr_total": run.totals["stderr"],
        }
        if run.job.records:
            run.report["result"] = text("result")
        if run.judge is not None:
            judge = run.judge.exit
            run.report["result"] = text("result")
            run.report["killed_after_judge"] = run.after_judge
            run.report["record_cpu"] = [round(c, 4) for c in run.record_cpu]
            if run.killed == "input":
                run.report["input_killed"] = run.input_killed
            run.report["judge"] = {"exit_code": judge["exit_code"], "signal": judge["signal"],
                                   "cpu_seconds": judge["cpu"], "stderr": text("judge_stderr")}
        self.complete(run)

    def loop(self):
        """The event loop: start queued runs in free slots, read pipes, the zygote and the client, and kill what
        ran past its wall clock, until closed and idle."""
        while not (self.closing and not self.active and not self.queue):
            while self.queue and len(self.active) < self.workers and not self.closing:
                run = self.queue.popleft()
                try:
                    self.start(run)
                except Exception as exc:  # this run's failure, never the server's
                    self.fail(run, f"could not start the program: {exc!r}")
            if self.closing:
                self.queue.clear()
                for run in list(self.active):
                    self.kill(run)
            now = time.monotonic()
            timeout = min((r.judge_deadline if r.killed else min(r.deadline, r.cpu_check) for r in self.active),
                          default=now + 1.0) - now
            for key, _ in self.sel.select(max(0.0, timeout)):
                kind, run = key.data
                if kind == "control":
                    self.read_control()
                elif kind == "zygote":
                    self.read_zygote(run)
                elif kind == "stream":
                    self.read_stream(key.fd, run)
            now = time.monotonic()
            for run in list(self.active):
                if now >= run.deadline and run.killed is None and not self.credit_judge(run):
                    run.killed = "wall"
                    self.end_program(run)
                elif now >= run.cpu_check and run.killed is None:
                    self.check_cpu(run, now)
                elif run.killed and now >= run.judge_deadline:
                    self.kill(run)  # a judge that has not finished after its program was killed: killed too


def proc_stat(pid):
    """(state, CPU seconds) of a live process, its CPU with its reaped children's, from /proc ((None, 0) once it is
    gone): state b"R" while it runs or waits for a core."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            fields = f.read().rsplit(b")", 1)[1].split()
        return fields[0], sum(int(x) for x in fields[11:15]) / meter.CLOCK_TICKS
    except (OSError, IndexError):
        return None, 0.0


def start_bytes():
    """The address space a program's process starts with: this process's, which the zygote forked."""
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) * 1024 for line in f if line.startswith("VmSize:"))


def main():
    """Start up: the isolation level, this server's uids, the slots, the watchdog and the zygote, then the hello to
    the client and the event loop until the client closes the channel."""
    workers = int(sys.argv[1]) if len(sys.argv) > 1 else os.cpu_count() or 1
    requested = sys.argv[2] if len(sys.argv) > 2 else "auto"
    out_fd = 1
    signal.signal(signal.SIGPIPE, signal.SIG_IGN)  # a killed client is an OSError in send, not our death
    slots = None
    try:
        caps = isolation.detect()
        try:
            level, warning = isolation.choose(requested, caps)
            uids = lifetime.claim_uids(2 * workers) if level != "rlimits" else None
            slots = isolation.Slots(level, workers, caps, uids=uids)
        except (isolation.IsolationError, OSError) as exc:
            try:
                os.write(out_fd, (json.dumps({"hello": True, "error": str(exc)}) + "\n").encode())
            except OSError:  # the client is gone: nobody to tell
                pass
            return
        held = lifetime.watchdog(slots)  # its pipe end stays open in this process until it ends
        server = Server(workers, slots)
        # Forked now, while this process holds no request; the client's pipes stay the server's alone.
        modules = {"harness": harness, "checks": checks, "script": script}
        own = [server.sel.close, lambda: os.close(server.in_fd), lambda: os.close(server.out_fd),
               lambda: os.close(held)]
        server.zygote, server.zpid = zygote.start(slots, modules, close=own)
        server.sel.register(server.zygote, selectors.EVENT_READ, ("zygote", server.zygote))
        hello = {"hello": True, "isolation": level, "warning": warning, "pid": os.getpid(),
                 "cgroups": [f"{slots.cgroups.version}:{c}" for c in slots.cgroups.controllers],
                 "file_system": isolation.FILE_SYSTEM[level], "cpu_accounting": meter.describe(slots),
                 "capabilities": caps,
                 "start_bytes": start_bytes(), "uids": slots.uids and slots.uids[0]}
        server.send(hello)
        server.loop()
        server.stop_zygote()
    finally:
        if slots is not None:
            lifetime.release(slots)
