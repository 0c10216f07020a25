"""The sandbox over a Ray cluster: `RaySandbox` has `Sandbox`'s batch API (`submit`, `run`, `run_many`,
`close`, a context manager) and spreads the programs over Ray workers on the cluster's CPUs.

Each Ray worker is an actor that holds an ordinary local `Sandbox` (fork server, judge, isolation level,
limits: docs/sandbox.md) on its node and runs `workers` programs at once; the caller ships it the
request and gets the typed `ExecutionResult` back.  Nothing about isolation changes: every program
still runs in the node's own sandbox, under the same limits.

* Order: `run_many` returns results in input order (one future per request).
* Failures: a Ray worker that dies (node lost, actor killed, out of memory) fails only the programs it
  held: each gets a `sandbox_error` result naming the loss (an infrastructure failure, run again on
  another worker by `Batches.submit`); the worker is dropped and later programs go to the others.  With no
  worker left, `submit` raises `SandboxUnavailable`.
* Refused requests and math answers are judged in the caller, as `Sandbox` does: nothing is shipped.
* Network: `RaySandbox()` without an address starts a local Ray instance bound to 127.0.0.1 with no
  dashboard (docs/architecture.md, convention 4: nothing listens beyond loopback unless asked) and shuts
  it down on `close`;
  `address="auto"` or `"ray://host:port"` joins an existing cluster, whose security is its own.
  Workers must be able to import coderl (installed on every node, or a Ray `runtime_env`).
"""

from __future__ import annotations

import itertools
import os
import socket
import threading
from collections.abc import Iterable
from concurrent.futures import Future

from .batches import Batches
from .client import Sandbox, SandboxUnavailable, settled_here
from .types import ExecutionRequest, ExecutionResult, Limits, Status

START_TIMEOUT = 120  # seconds for the Ray workers to start (and report their isolation level)


class SandboxWorker:
    """The Ray actor: one local `Sandbox` on its node, `workers` programs at once (a threaded actor)."""

    def __init__(self, workers: int, limits: Limits | None, isolation: str, hide: tuple, expose: tuple = ()):
        self.sandbox = Sandbox(workers=workers, limits=limits, isolation=isolation, hide=hide, expose=expose)

    def info(self) -> dict:
        return {"isolation": self.sandbox.isolation, "host": socket.gethostname(), "pid": os.getpid(),
                "workers": self.sandbox.workers}

    def run(self, request: ExecutionRequest) -> ExecutionResult:
        return self.sandbox.run(request)


class RaySandbox(Batches):
    """`ray_workers` Ray actors of `workers` programs each (see the module docstring)."""

    def __init__(self, ray_workers: int = 2, workers: int = 1, limits: Limits | None = None, isolation: str = "auto",
                 hide: Iterable[str] = (), address: str | None = None, expose: Iterable[str] = ()):
        """Start the Ray instance (or join `address`) and `ray_workers` actors, each with a local `Sandbox`; a
        cluster that cannot start them within 120 s is one error line."""
        try:
            import ray
        except ImportError:
            raise SandboxUnavailable("the Ray sandbox backend needs ray (pip install 'coderl[ray]')") from None
        if ray_workers < 1 or workers < 1:
            raise SandboxUnavailable(f"ray_workers={ray_workers}, workers={workers}: expected positive integers")
        self._ray = ray
        self.lost = 0  # Ray workers lost so far
        self._next = itertools.count()
        self._lock = threading.Lock()
        self._closed = False
        self._actors: list = []
        self._owns_ray = not ray.is_initialized()
        if self._owns_ray:
            options = {"address": address} if address else {"_node_ip_address": "127.0.0.1",
                                                              "num_cpus": max(ray_workers * workers, 1)}
            ray.init(include_dashboard=False, log_to_driver=False, configure_logging=False, **options)
        self.limits = (limits or Limits()).validate()
        actor = ray.remote(num_cpus=workers, max_concurrency=workers)(SandboxWorker)
        hide = tuple(sorted({os.path.abspath(os.fspath(p)) for p in hide}))
        expose = tuple(sorted({os.path.abspath(os.fspath(p)) for p in expose}))
        self._actors = [actor.remote(workers, self.limits, isolation, hide, expose) for _ in range(ray_workers)]
        try:  # a cluster without `workers` free CPUs for every actor would otherwise wait forever
            self.infos = ray.get([a.info.remote() for a in self._actors], timeout=START_TIMEOUT)
        except ray.exceptions.GetTimeoutError:
            self.close()
            raise SandboxUnavailable(f"the Ray cluster did not start {ray_workers} sandbox workers of {workers} CPUs "
                                     f"each within {START_TIMEOUT} s (free CPUs: "
                                     f"{ray.available_resources().get('CPU', 0) if ray.is_initialized() else '?'}); "
                                     "lower --ray-workers or --workers") from None
        self.isolation = self.infos[0]["isolation"]  # every worker requested the same level
        self.workers = workers * ray_workers

    def submit_once(self, request: ExecutionRequest) -> Future:
        """Send a request to the next live actor (round robin) and return its future; refused and answer-only
        requests are settled here."""
        request.limits.validate()
        settled = settled_here(request)  # as the local sandbox: nothing is shipped
        if settled is not None:
            return settled
        future: Future = Future()
        with self._lock:
            if self._closed:
                raise RuntimeError("sandbox is closed")
            if not self._actors:
                raise SandboxUnavailable(f"every Ray sandbox worker was lost ({self.lost})")
            actor = self._actors[next(self._next) % len(self._actors)]
        ref = actor.run.remote(request)
        ref.future().add_done_callback(lambda done: self._finish(done, future, actor))
        return future

    def _finish(self, done, future: Future, actor) -> None:
        """Settle a request's future from its actor; an actor that died is dropped, and its request gets
        `sandbox_error`."""
        try:
            future.set_result(done.result())
        except Exception as exc:  # the actor died (RayActorError) or the call failed in Ray itself
            with self._lock:
                if actor in self._actors:
                    self._actors.remove(actor)
                    self.lost += 1
            future.set_result(ExecutionResult(status=Status.SANDBOX_ERROR, isolation=self.isolation,
                                              message=f"the Ray sandbox worker running this program was lost "
                                                      f"({type(exc).__name__})"))

    def close(self) -> None:
        """Stop the actors and, when this sandbox started it, the Ray instance."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            actors, self._actors = self._actors, []
        for a in actors:
            self._ray.kill(a)
        if self._owns_ray:
            self._ray.shutdown()
