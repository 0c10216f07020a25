"""Helper processes that must not outlive the process that started them (the asynchronous rollout worker,
the vLLM engine)."""

from __future__ import annotations

import contextlib
import signal


def die_with_parent() -> None:
    """Linux: SIGKILL this process when its parent dies, however the parent dies (PR_SET_PDEATHSIG)."""
    with contextlib.suppress(OSError, AttributeError):
        import ctypes

        ctypes.CDLL(None).prctl(1, signal.SIGKILL, 0, 0, 0)
