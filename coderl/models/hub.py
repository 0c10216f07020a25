"""The Hugging Face libraries held offline and quiet around coderl's local loads: `offline()` switches the hub
off (`HF_HUB_OFFLINE=1`, `TRANSFORMERS_OFFLINE=1` and huggingface_hub's flag, which it reads only once at
import) and restores it afterwards; `no_progress_bars()`; `quiet_library_warnings()`.
"""

from __future__ import annotations

import contextlib
import logging
import warnings

from coderl.base.offline import offline_flags

_OFFLINE_VARS = ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE")


@contextlib.contextmanager
def offline():
    """No hub access inside (for local loads); the previous settings come back afterwards."""
    from huggingface_hub import constants  # transformers' and peft's dependency: there wherever a model loads

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


# The one place where library warnings are silenced, each by its exact message (never all warnings): what the
# libraries say about their own APIs, which coderl's declared range (transformers>=4.45) keeps using.
_QUIET_WARNINGS = (  # (message regex, category) of the `warnings` module
    (r"`is_gradient_checkpointing` is deprecated", FutureWarning),  # peft reads a property deprecated in v5
    (r"`past_key_values` is deprecated and will be removed in version", FutureWarning),  # a forward's past_key_values=
)
_QUIET_LOGS = {  # logger -> exact messages of its records
    "transformers.utils.generic": ("`past_key_values`/`cache_params` are deprecated. Use `cache` instead.",),
}


class _DropMessages(logging.Filter):
    def __init__(self, messages):
        super().__init__()
        self.messages = set(messages)

    def filter(self, record: logging.LogRecord) -> bool:
        return record.getMessage() not in self.messages


def quiet_library_warnings() -> None:
    """Silence the library warnings that say nothing to a user (`_QUIET_WARNINGS`, `_QUIET_LOGS`), in the CLI's
    process and the asynchronous rollouts' worker."""
    for message, category in _QUIET_WARNINGS:
        warnings.filterwarnings("ignore", message=message, category=category)
    for name, messages in _QUIET_LOGS.items():
        logger = logging.getLogger(name)
        if not any(isinstance(f, _DropMessages) for f in logger.filters):
            logger.addFilter(_DropMessages(messages))
