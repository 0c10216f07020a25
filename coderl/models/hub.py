"""The Hugging Face libraries held offline and quiet around coderl's local loads: `offline()` switches the hub
off (`HF_HUB_OFFLINE=1`, `TRANSFORMERS_OFFLINE=1` and huggingface_hub's flag, which it reads only once at
import) and restores it afterwards; `no_progress_bars()`; `quiet_library_warnings()`.
"""

from __future__ import annotations

import contextlib
import os
import warnings

_OFFLINE_VARS = ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE")


@contextlib.contextmanager
def offline():
    """No hub access inside (for local loads); the previous settings come back afterwards."""
    saved = {k: os.environ.get(k) for k in _OFFLINE_VARS}
    for k in _OFFLINE_VARS:
        os.environ[k] = "1"
    constants = None
    try:
        from huggingface_hub import constants

        saved_flag = constants.HF_HUB_OFFLINE
        constants.HF_HUB_OFFLINE = True
    except (ImportError, AttributeError):
        constants = None
    try:
        yield
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
        if constants is not None:
            constants.HF_HUB_OFFLINE = saved_flag


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
