"""`Sandbox`: the caller's handle on the fork server; thread-safe, asynchronous, judged results.

    with Sandbox(workers=2) as sandbox:
        results = sandbox.run_many([task.build_request(c) for task, c in pairs])

The fork server is started by exec with a minimal environment (never forked from this process, which
may be a threaded trainer), so programs never inherit this process's memory, threads or environment.
`submit` returns a Future, so execution overlaps with whatever the caller does next (generation).
If the server dies (a program killed it, say), pending requests are re-sent to a fresh server: one that
was running each time it died twice is the program's failure (`runtime_error`: only a running program can
kill the server), one not yet started is re-sent without a strike.

`sandbox_error` is an infrastructure failure, and only where the program provably could not cause it
(docs/training.md, "When a run goes wrong"): a run whose set-up failed before any of its processes was
forked, a request not yet started when the server died `RESEND_LIMIT` times or could not be restarted, a
lost Ray worker.  `submit` runs such a request again, up to `INFRA_RETRIES` more times, before it returns
the `sandbox_error`.
"""

from __future__ import annotations

import itertools
import json
import os
import signal
import subprocess
import sys
import threading
from collections.abc import Iterable
from concurrent.futures import Future

from .batches import Batches
from .judge import judge
from .requests import SandboxUnavailable, refuse_layout, settled_here, to_wire
from .server.common.env import CGROUPS_ENV, EXPOSE_ENV, HIDE_ENV
from .types import (
    ExecutionRequest,
    ExecutionResult,
    Limits,
    Status,
)

SERVER_PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "server", "__main__.py")  # what is exec'd
# One string-hash seed for every process the sandbox starts (programs and judges fork from the server; commands get
# the zygote's CHILD_ENV, which holds the same): a program whose result depends on the order of a set of strings gets
# the verdict `PYTHONHASHSEED=0 python` gives it, in every session, not one drawn when the server started.
HASH_SEED = "0"
SERVER_ENV = {"PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8", "PYTHONHASHSEED": HASH_SEED}
MAX_RETRIES = 1  # a request running when the server died is re-sent this often; once more: the program's failure
RESEND_LIMIT = 8  # server deaths a request not yet started waits through before it is an infrastructure failure
ISOLATION_LEVELS = ("auto", "full", "uid", "rlimits")
EPISODES_PER_WORKER = 8  # the server's MAX_EPISODES_PER_WORKER (server/loop.py): working copies kept at once a worker
_WARNED: set[str] = set()


class SandboxFailed(SandboxUnavailable):
    """The machine failed the sandbox, not the input: a server killed before its hello, or one that died and could
    not be restarted.  An infrastructure failure: exit 3 (docs/training.md, "Exit codes")."""

    exit_code = 3


def no_hello(code: int) -> str:
    """Why a server that ended before its hello did, in words (`code`: its exit status, negative for a signal)."""
    if code >= 0:
        return (f"the sandbox server exited with status {code} before it started (no hello); what it printed is "
                "above")
    try:
        name = signal.Signals(-code).name
    except ValueError:
        name = f"signal {-code}"
    hint = (": the kernel's out-of-memory killer, or a memory or process limit of this machine or container, sends "
            "it (see `dmesg`, free memory, --workers)" if -code == signal.SIGKILL else "")
    return f"the sandbox server was killed by {name} before it started (no hello){hint}"


def usable_cpus() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def total_memory_bytes() -> int:
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError):
        return 0


RAM_SHARE = 0.75  # of physical memory the programs of one sandbox may claim together


def default_workers(memory_bytes: int) -> int:
    """Usable CPUs, capped by how many programs RAM_SHARE of physical memory holds at `memory_bytes` each."""
    total = total_memory_bytes()
    cpus = usable_cpus()
    return max(1, min(cpus, int(RAM_SHARE * total // memory_bytes))) if total else cpus


def check_memory_budget(workers: int, memory_bytes: int) -> None:
    total = total_memory_bytes()
    if total and workers * memory_bytes > RAM_SHARE * total:
        raise SandboxUnavailable(
            f"workers ({workers}) x memory limit ({memory_bytes / 2**30:.1f} GiB): expected at most "
            f"{RAM_SHARE:.0%} of RAM ({total / 2**30:.1f} GiB); lower --workers or --memory-mb "
            f"(unset, --workers is {default_workers(memory_bytes)} here)"
        )


class Sandbox(Batches):
    """A pool of `workers` concurrent program runs behind one fork server."""

    def __init__(self, workers: int | None = None, limits: Limits | None = None, isolation: str = "auto",
                 hide: Iterable[str | os.PathLike[str]] = (), expose: Iterable[str | os.PathLike[str]] = ()):
        """`hide`: files or directories no program may read (task files, completions), even inside a
        directory the view binds (a site-packages); enforced at `full` (docs/sandbox.md).  `expose`:
        toolchain directories programs may read at `full` besides /usr, /bin, /lib* (coderl's commands pass
        the `paths` of every registered runner: `coderl.languages.toolchain_paths()`)."""
        self.limits = (limits or Limits()).validate()
        self.hide = tuple(sorted({os.path.abspath(os.fspath(p)) for p in hide}))
        self.expose = tuple(sorted({os.path.abspath(os.fspath(p)) for p in expose}))
        self.workers = default_workers(self.limits.memory_bytes) if workers is None else workers
        if self.workers < 1:
            raise SandboxUnavailable(f"workers={self.workers}: expected a positive integer")
        if isolation not in ISOLATION_LEVELS:
            raise SandboxUnavailable(f"isolation {isolation!r}: expected one of {', '.join(ISOLATION_LEVELS)}")
        check_memory_budget(self.workers, self.limits.memory_bytes)
        self.requested_isolation = isolation
        self.episode_capacity = EPISODES_PER_WORKER * self.workers  # episodes (working copies) open at once, at most
        self.isolation = ""  # the level in force, as the server reports it
        self.warning: str | None = None
        self.server_info: dict = {}
        self.restarts = 0  # times the server died and was replaced (a program killed it, say)
        self._lock = threading.RLock()  # reentrant: a restart that fails its memory check closes under it
        # Requests are written to the server under this lock, never under `_lock`: a write blocks while the server's
        # input pipe is full, and the server stops reading it while its own output pipe is full, which only the
        # reader thread empties, and the reader takes `_lock` for each message (a write under `_lock` deadlocked a
        # check of HumanEval+'s 164 tasks, requests of up to 0.5 MB, issue 77)
        self._write_lock = threading.Lock()
        self._ids = itertools.count()
        self._pending: dict[int, tuple[ExecutionRequest, Future, int, int]] = {}
        self.broken: str | None = None  # why no server runs any more (it died and could not be restarted)
        self._started: set[int] = set()  # request ids whose first process the server has started
        self._proc: subprocess.Popen | None = None
        self._closed = False
        self._start()

    # ---- server lifecycle --------------------------------------------------------------------
    def _start(self) -> None:
        """Exec the fork server and read its hello: the isolation level in force, or a one-line `SandboxUnavailable`;
        then the reader thread."""
        self._proc = subprocess.Popen(  # `-I` less `-E` (which would drop the hash seed): the env is this dict alone
            [sys.executable, "-s", "-P", SERVER_PATH, str(self.workers), self.requested_isolation],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            env={**SERVER_ENV, **{k: os.environ[k] for k in (CGROUPS_ENV,) if k in os.environ},
                 **({HIDE_ENV: json.dumps(self.hide)} if self.hide else {}),
                 **({EXPOSE_ENV: json.dumps(self.expose)} if self.expose else {})},
            close_fds=True,
            cwd="/",
            # Out of the terminal's process group: Ctrl-C interrupts the caller, which stops the server by
            # closing its control channel (`close`); the server's stderr is still the caller's.
            start_new_session=True,
        )
        assert self._proc.stdout is not None
        line = self._proc.stdout.readline()
        if not line.strip():  # killed (or crashed) before it could say why: the machine's, not the input's
            self._closed = True
            raise SandboxFailed(no_hello(self._proc.wait()))
        hello = json.loads(line)
        if "error" in hello:
            self._proc.wait()
            self._closed = True
            raise SandboxUnavailable(hello["error"])
        self.server_info = hello
        try:
            self.check_start_memory(self.limits.memory_bytes)
        except SandboxUnavailable:
            self.close()
            raise
        self.isolation = hello["isolation"]
        self.warning = hello.get("warning")
        if self.warning and self.warning not in _WARNED:
            _WARNED.add(self.warning)
            print(f"coderl: warning: {self.warning}", file=sys.stderr)
        reader = threading.Thread(target=self._read, args=(self._proc,), daemon=True, name="coderl-sandbox-reader")
        reader.start()

    def _read(self, proc: subprocess.Popen) -> None:
        """The reader thread: each server message settles its request's future (judged here, the only place the
        expected values are), until the server exits."""
        assert proc.stdout is not None
        for line in proc.stdout:
            msg = json.loads(line)
            if "started" in msg:
                self._started.add(msg["started"])
                continue
            with self._lock:
                self._started.discard(msg["id"])
                entry = self._pending.pop(msg["id"], None)
            if entry is None:
                continue
            request, future = entry[:2]
            if request is None:  # a snapshot of an episode's working copy
                future.set_result(msg)
                continue
            try:
                result = judge(request, msg["runs"], self.isolation, build=msg.get("build"))
            except Exception as exc:  # a judging bug must not hang the caller; the program's output may have
                # provoked it, so it is the program's verdict, never an infrastructure failure
                result = ExecutionResult(status=Status.RUNTIME_ERROR, message=f"judging failed: {exc!r}"[:300],
                                         isolation=self.isolation)
            future.set_result(result)
        proc.wait()
        self._server_died(proc)

    def _server_died(self, proc: subprocess.Popen) -> None:
        """A server that died: a fresh one, and every pending request re-sent.  One that was running when it died
        twice is the program's failure; one not yet started is re-sent without a strike, up to RESEND_LIMIT
        deaths, then (or when no server starts again) an infrastructure failure."""
        settled: list[tuple[Future, ExecutionResult]] = []  # set after the lock: a future's callback may submit
        lines: list[bytes] = []  # the re-sent requests, written after the lock (`_write_lock`)
        with self._lock:
            if self._closed or proc is not self._proc:
                return
            pending = list(self._pending.items())
            started = self._started
            self._pending.clear()
            self._started = set()
            self.restarts += 1
            why = f"exit {proc.returncode}"
            try:
                self._start()
            except Exception as exc:  # noqa: BLE001 -- no server: every pending request settles now
                self._closed = True
                self.broken = f"the sandbox server died ({why}) and could not be restarted: {exc}"[:300]
            for rid, (request, future, tries, deaths) in pending:
                if request is None:  # a snapshot: the server, and the episode with it, is gone
                    settled.append((future, {"snapshot": None, "error": f"the sandbox server died ({why})"}))
                    continue
                # Only a program that was running can have killed the server: queued ones wait without a strike.
                ran = rid in started
                tries, deaths = tries + ran, deaths + 1
                if ran and (tries > MAX_RETRIES or self.broken):
                    settled.append((future, ExecutionResult(
                        status=Status.RUNTIME_ERROR, isolation=self.isolation,
                        message=f"the sandbox server died while this program ran ({why}), "
                                + ("and could not be restarted" if self.broken else f"{tries} times"))))
                elif self.broken or deaths > RESEND_LIMIT:
                    settled.append((future, ExecutionResult(
                        status=Status.SANDBOX_ERROR, isolation=self.isolation,
                        message=self.broken or f"the sandbox server died {deaths} times before this program "
                                               f"started ({why})")))
                else:
                    lines.append(self._send(request, future, tries, deaths))
            fresh = self._proc
        self._write(fresh, lines)
        for future, result in settled:
            future.set_result(result)

    def _send(self, request: ExecutionRequest, future: Future, tries: int, deaths: int = 0) -> bytes:
        """Remember one request (under `_lock`) with its future, the server deaths it ran through (`tries`) and all
        it waited through (`deaths`); returns its line, for `_write` once `_lock` is released."""
        rid = next(self._ids)
        self._pending[rid] = (request, future, tries, deaths)
        return (json.dumps(to_wire(request, rid)) + "\n").encode()

    def _write(self, proc: subprocess.Popen | None, lines: list[bytes]) -> None:
        """Write request lines to the server `proc` (the one they were remembered for), outside `_lock`."""
        stdin = getattr(proc, "stdin", None)
        if not lines or stdin is None:
            return
        with self._write_lock:
            try:
                for data in lines:
                    stdin.write(data)
                stdin.flush()
            except (BrokenPipeError, OSError, ValueError):
                pass  # the reader thread sees the server die and re-sends what is pending (ValueError: closed)

    def check_start_memory(self, memory_bytes: int) -> None:
        """Refuse a memory limit under the address space a program's process starts with here (the server's,
        which its zygotes fork every program from): under it a program has nothing left to allocate, and its
        slot's memory cgroup cannot even hold the zygote."""
        start = self.server_info.get("start_bytes", 0)
        if memory_bytes <= start:
            raise SandboxUnavailable(
                f"--memory-mb {memory_bytes / 2**20:g}: a program's process starts with {start / 2**20:.0f} MiB of "
                f"address space here, so no program could allocate under it; expected more than "
                f"{start / 2**20:.0f} MiB")

    # ---- public API ----------------------------------------------------------------------------
    def submit_once(self, request: ExecutionRequest) -> Future:
        """Queue a request and return its future (one run: `submit` adds the infrastructure retry); refused and
        answer-only requests are settled here, without the server."""
        if request.limits.memory_bytes > self.limits.memory_bytes:
            check_memory_budget(self.workers, request.limits.memory_bytes)
        self.check_start_memory(request.limits.memory_bytes)
        request.limits.validate()
        if request.tree or request.environment or request.episode:  # what this sandbox may not honour
            refuse_layout(request, self.isolation)
        settled = settled_here(request)  # refused by the task's rules, or a reply judged here: nothing runs
        if settled is not None:
            return settled
        future: Future = Future()
        with self._lock:
            if self.broken:
                raise SandboxFailed(self.broken)
            if self._closed:
                raise RuntimeError("sandbox is closed")
            proc, line = self._proc, self._send(request, future, 0)
        self._write(proc, [line])
        return future

    def snapshot_episode(self, episode: str, timeout: float | None = 120.0) -> dict:
        """An episode's working copy as it stands: relative path -> {"data" (base64), "mode"} of a file, {"link"} of a
        link, {"dir": mode} of a directory.  RuntimeError naming why when there is none (no such episode, one in
        use, a copy over the size caps, the server gone)."""
        future: Future = Future()
        with self._lock:
            if self._closed:
                raise RuntimeError("sandbox is closed")
            rid = next(self._ids)
            self._pending[rid] = (None, future, 0, 0)  # type: ignore[assignment]
            proc = self._proc
        self._write(proc, [(json.dumps({"op": "snapshot", "id": rid, "episode": episode}) + "\n").encode()])
        msg = future.result(timeout)
        if msg.get("snapshot") is None:
            raise RuntimeError(f"episode {episode!r}: no working copy to read ({msg.get('error')})")
        return msg["snapshot"]

    def close_episode(self, episode: str) -> None:
        """Drop an episode's working copy (once its running request, if any, has ended); no answer is awaited."""
        with self._lock:
            proc = None if self._closed else self._proc
        self._write(proc, [(json.dumps({"op": "close_episode", "episode": episode}) + "\n").encode()])

    def close(self) -> None:
        """Close the server's control channel (it kills its runs and ends) and wait for it; killed after 10 s."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            proc = self._proc
        if proc is not None and proc.poll() is None:
            try:
                assert proc.stdin is not None
                proc.stdin.close()
                proc.wait(timeout=10)
            except (OSError, subprocess.TimeoutExpired):
                proc.kill()
                proc.wait()

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:
            pass
