"""Where coderl keeps what it builds once and reuses: converted models, reference outputs, leak checks."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path


def cache_root() -> Path:
    """`$CODERL_CACHE`, else ~/.cache/coderl."""
    return Path(os.environ.get("CODERL_CACHE") or Path.home() / ".cache" / "coderl").expanduser()


def sha256_file(path: str | os.PathLike) -> str:
    """The sha256 of a file's bytes (a model's wheel, a checkpoint's files, a source distribution)."""
    with open(path, "rb") as f:
        return hashlib.file_digest(f, "sha256").hexdigest()
