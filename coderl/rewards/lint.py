"""Lint many programs with one `ruff check` process (the `quality` reward's linter).

Ruff parses the programs; it never imports or runs them, so linting untrusted completions in the
trainer's process is safe.  All programs of a batch are written to one temporary directory and
checked by a single ruff process (start-up cost paid once per `score()` call, files checked in
parallel by ruff).  `--isolated` ignores every ruff config file (the project's, the user's) so a
reward does not change with the machine it runs on; `--no-cache` writes nothing to disk.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path


class LinterMissing(RuntimeError):
    """ruff is not installed; the message names the fix."""


@dataclass(frozen=True)
class Finding:
    """One ruff diagnostic."""

    code: str  # rule code ("F401"); "invalid-syntax" for a parse error
    row: int  # 1-based line of the program
    message: str


def find_ruff() -> str:
    """Path of the ruff binary: next to this interpreter (the venv's), else on PATH."""
    beside = Path(sys.executable).parent / "ruff"
    if beside.is_file() and os.access(beside, os.X_OK):
        return str(beside)
    found = shutil.which("ruff")
    if found is None:
        raise LinterMissing("reward 'quality' needs the ruff linter, which is not installed: pip install ruff")
    return found


def run_ruff(
    programs: Sequence[str],
    select: Sequence[str],
    ignore: Sequence[str] = (),
    timeout_seconds: float = 60.0,
) -> list[list[Finding]]:
    """Findings of each program (same order), from one `ruff check` over a temporary directory."""
    if not programs:
        return []
    ruff = find_ruff()
    # Target the running interpreter: the sandbox runs programs with this Python, and ruff reports
    # syntax newer than its target version (`match`, PEP 695 ...) as an error.
    target = f"py3{sys.version_info.minor}"
    with tempfile.TemporaryDirectory(prefix="coderl-lint-") as tmp:
        for i, program in enumerate(programs):
            Path(tmp, f"p{i}.py").write_bytes(program.encode("utf-8", "replace"))
        cmd = [ruff, "check", "--isolated", "--no-cache", "--exit-zero", "--output-format", "json",
               "--target-version", target, "--select", ",".join(select)]
        if ignore:
            cmd += ["--ignore", ",".join(ignore)]
        cmd.append(tmp)
        try:
            proc = subprocess.run(cmd, check=False, capture_output=True, text=True, timeout=timeout_seconds)
        except subprocess.TimeoutExpired:
            raise RuntimeError(f"ruff took longer than {timeout_seconds}s on {len(programs)} programs "
                               "(raise RewardConfig.quality_timeout_seconds)") from None
    if proc.returncode != 0:
        last = (proc.stderr.strip().splitlines() or ["(no stderr)"])[-1]
        raise RuntimeError(f"ruff failed with exit code {proc.returncode}: {last}")
    findings: list[list[Finding]] = [[] for _ in programs]
    for diag in json.loads(proc.stdout or "[]"):
        index = int(Path(diag["filename"]).stem[1:])
        row = (diag.get("location") or {}).get("row") or 1
        findings[index].append(Finding(diag.get("code") or diag.get("name") or "?", int(row),
                                       diag.get("message", "")))
    return findings
