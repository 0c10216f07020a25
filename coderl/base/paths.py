"""Where coderl keeps what it builds once and reuses: converted models, reference outputs, leak checks."""

from __future__ import annotations

import os
from pathlib import Path


def cache_root() -> Path:
    """`$CODERL_CACHE`, else ~/.cache/coderl."""
    return Path(os.environ.get("CODERL_CACHE") or Path.home() / ".cache" / "coderl").expanduser()
