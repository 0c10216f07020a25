"""The Hugging Face libraries held offline and quiet around coderl's local loads: `offline()` switches the hub
off (`HF_HUB_OFFLINE=1`, `TRANSFORMERS_OFFLINE=1` and huggingface_hub's flag, which it reads only once at
import) and restores it afterwards; `no_progress_bars()`; `quiet_library_warnings()`.
"""

from __future__ import annotations

import contextlib
import warnings

from coderl.base.offline import offline_flags

_OFFLINE_VARS = ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE")


@contextlib.contextmanager
def offline():
    """No hub access inside (for local loads); the previous settings come back afterwards."""
    try:
        from huggingface_hub import constants
    except ImportError:
        constants = None
    with offline_flags(_OFFLINE_VARS, constants, ("HF_HUB_OFFLINE",)):
        yield


@contextlib.contextmanager
def no_progress_bars():
    """No "Loading weights" bars for local loads (sub-second; they only clutter logs); restored after."""
    from transformers.utils import logging as hf_logging

    was = hf_logging.is_progress_bar_enabled()
    hf_logging.disable_progress_bar()
    try:
        yield
    finally:
        if was:
            hf_logging.enable_progress_bar()


def quiet_library_warnings() -> None:
    """Warnings of the libraries' own that say nothing to a user (the CLI's process and the asynchronous
    rollouts' worker): peft reads a transformers property deprecated in v5."""
    warnings.filterwarnings("ignore", message="`is_gradient_checkpointing` is deprecated", category=FutureWarning)
