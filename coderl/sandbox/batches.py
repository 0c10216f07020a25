"""`Batches`: what every sandbox backend (`Sandbox`, `RaySandbox`) shares over its own `submit_once` and `close`:
`submit` with the infrastructure retry, `run`, `run_many` and the context manager.

An infrastructure failure (`sandbox_error`: a failure the program provably could not cause, see
`coderl.sandbox.client`) is run again up to `INFRA_RETRIES` more times; a verdict that comes back from a retry
is the one a fault-free run gives, so a run whose failures the retry clears is bit-identical to one without
them (docs/training.md, "When a run goes wrong").
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from concurrent.futures import Future

from .types import ExecutionRequest, ExecutionResult, Status

INFRA_RETRIES = 2  # an infrastructure failure (`sandbox_error`) is run again up to this many times


def infra_failure(result: ExecutionResult) -> bool:
    """An infrastructure failure: a result the program provably did not cause (status `sandbox_error`)."""
    return result.status is Status.SANDBOX_ERROR


class Batches:
    """`submit` (with the infrastructure retry), `run`, `run_many` and the context manager, over a sandbox's
    `submit_once` and `close` (`Sandbox`, `RaySandbox`)."""

    infra_retries = INFRA_RETRIES
    retried = 0  # infrastructure failures run again so far (an instance's own count once one happens)

    def submit(self, request: ExecutionRequest) -> Future:
        """Queue a request; its future's result is the program's verdict, or a `sandbox_error` that was still one
        after `infra_retries` more runs (the retried runs are the same request: a verdict that comes back is the
        one a fault-free run gives)."""
        outer: Future = Future()
        self._attempt(request, outer, self.submit_once(request), self.infra_retries)
        return outer

    def _attempt(self, request: ExecutionRequest, outer: Future, inner: Future, left: int) -> None:
        def settle(done: Future) -> None:
            try:
                result = done.result()
            except BaseException as exc:  # noqa: BLE001 -- the caller gets what the backend raised
                outer.set_exception(exc)
                return
            if not infra_failure(result) or left <= 0:
                outer.set_result(result)
                return
            # sent from a thread of its own: this callback may run in a backend's reader thread, which must
            # not block on writing to the server it alone reads from
            threading.Thread(target=again, args=(result,), daemon=True, name="coderl-sandbox-retry").start()

        def again(result: ExecutionResult) -> None:
            try:
                retry = self.submit_once(request)
            except Exception:  # the sandbox is gone (closed, or its server cannot start): the failure stands
                outer.set_result(result)
                return
            self.retried += 1
            self._attempt(request, outer, retry, left - 1)

        inner.add_done_callback(settle)

    def run(self, request: ExecutionRequest) -> ExecutionResult:
        return self.submit(request).result()

    def run_many(self, requests: Iterable[ExecutionRequest]) -> list[ExecutionResult]:
        futures = [self.submit(r) for r in requests]  # all queued first: they run `workers` at a time
        return [f.result() for f in futures]

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.close()
