"""Repository environments: the test runner and the test suites' dependencies, built once per (repository, version)
and shared read-only by every task of it, bound at /env in the sandbox.

An environment is a folder `KEY/` under the environments root:

    site/      pytest, its dependencies and the suite's own test dependencies, copied file by file from this
               interpreter's installed distributions (nothing is downloaded: built offline, at any time)
    coderl/    boot.py and reporter.py (`coderl.tasks.repository.process`, copied as files) and pytest.ini, coderl's
               configuration every grading run uses instead of the repository's own
    bin/       `python` and `pytest` for an agent's commands in its working copy (`launchers`)

KEY is a hash of the Python version, each distribution's name and version, and the process files' bytes: a change to
any of them is a new environment, never an edit of one in use.  It is made in a temporary folder and renamed into
place whole.  The repository's own package is never in it (the code under test comes from the task's tree only), and
`build` refuses a test dependency that is the repository's own package.
"""

from __future__ import annotations

import hashlib
import importlib.metadata as metadata
import json
import os
import re
import shutil
import sys
import tempfile
from collections.abc import Iterable
from pathlib import Path

PROCESS = Path(__file__).parent / "process"
PROCESS_FILES = ("boot.py", "reporter.py")
RUNNER = ("pytest",)  # the test runner every environment holds
PYTEST_INI = "[pytest]\n"  # coderl's configuration: pytest's defaults (the repository's own files are never read)


class EnvironmentError_(ValueError):
    """An environment that cannot be built here (one line naming what is missing)."""


def _name(requirement: str) -> str:
    return re.split(r"[\s;<>=!~\[(]", requirement.strip(), maxsplit=1)[0].lower().replace("_", "-")


def _needed(requirement: str) -> bool:
    """A dependency installed wherever its distribution is (no extra, a marker true here)."""
    if ";" not in requirement:
        return True
    from packaging.markers import Marker

    marker = requirement.split(";", 1)[1].strip()
    try:
        return Marker(marker).evaluate({"extra": ""})
    except Exception:  # an extra's marker, or one this Python cannot read: not a dependency of the base install
        return False


def closure(names: Iterable[str]) -> list[metadata.Distribution]:
    """The installed distributions `names` name and everything they require here (sorted by name); one line naming a
    missing one."""
    found: dict[str, metadata.Distribution] = {}
    todo = [_name(n) for n in names]
    while todo:
        name = todo.pop()
        if name in found:
            continue
        try:
            dist = metadata.distribution(name)
        except metadata.PackageNotFoundError:
            raise EnvironmentError_(f"repository environment: the distribution {name!r} is not installed in "
                                    f"{sys.prefix} (install it there, or leave it out of the task's test_deps)"
                                    ) from None
        found[name] = dist
        todo.extend(_name(r) for r in dist.requires or () if _needed(r))
    return [found[k] for k in sorted(found)]


def key(dists: list[metadata.Distribution]) -> str:
    h = hashlib.sha256(f"{sys.version_info[:3]}".encode())
    for dist in dists:
        h.update(f"{dist.metadata['Name']}=={dist.version}\n".encode())
    for name in PROCESS_FILES:
        h.update((PROCESS / name).read_bytes())
    h.update(PYTEST_INI.encode())
    h.update(json.dumps(launchers(), sort_keys=True).encode())
    return h.hexdigest()[:16]


def top_level(dists: list[metadata.Distribution]) -> set[str]:
    """The top-level import names the distributions install."""
    names = set()
    for dist in dists:
        for f in dist.files or ():
            parts = Path(str(f)).parts
            if parts and not parts[0].startswith("..") and not parts[0].endswith((".dist-info", ".egg-info")):
                names.add(parts[0][:-3] if parts[0].endswith(".py") else parts[0])
    return names


def build(root: str | os.PathLike, test_deps: Iterable[str] = (), package: str | None = None) -> Path:
    """The environment for a suite needing `test_deps` (built under `root` unless it is there); `package`: the
    repository's import name, which must not be one the environment installs."""
    dists = closure([*RUNNER, *test_deps])
    if package is not None and package in top_level(dists):
        raise EnvironmentError_(f"repository environment: the test dependencies install {package!r}, the "
                                "repository's own package: its tests would not import the task's code")
    root = Path(root)
    target = root / key(dists)
    if (target / "coderl" / "pytest.ini").is_file():
        return target
    root.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".building-", dir=root))
    try:
        os.chmod(staging, 0o755)
        for dist in dists:
            _copy_distribution(dist, staging / "site")
        (staging / "coderl").mkdir(mode=0o755)
        for name in PROCESS_FILES:
            shutil.copyfile(PROCESS / name, staging / "coderl" / name)
        (staging / "coderl" / "pytest.ini").write_text(PYTEST_INI)
        (staging / "bin").mkdir(mode=0o755)
        for name, body in launchers().items():  # what an agent runs in its working copy: /env/bin/python, pytest
            (staging / "bin" / name).write_text(body)
        for top, dirs, files in os.walk(staging):
            for d in dirs:
                os.chmod(os.path.join(top, d), 0o755)
            for f in files:
                os.chmod(os.path.join(top, f), 0o755 if os.path.basename(top) == "bin" else 0o644)
        try:
            os.rename(staging, target)
        except OSError:  # built meanwhile by another process: theirs is the same
            if not (target / "coderl" / "pytest.ini").is_file():
                raise
    finally:
        if staging.exists():
            shutil.rmtree(staging)
    return target


def launchers() -> dict[str, str]:
    """The environment's commands for an agent's working copy: `python` (this interpreter, no site, the
    environment's packages first, then the working copy and its `src`) and `pytest` (the same, running pytest with
    plugin autoload off and no cache: the suite as the grader runs it, less the grader's restoration and reporter)."""
    python = os.path.realpath(sys.executable)
    return {
        "python": f"#!/bin/sh\nPYTHONPATH=/env/site:.:src PYTHONDONTWRITEBYTECODE=1 exec {python} -S -s \"$@\"\n",
        "pytest": ("#!/bin/sh\nPYTEST_DISABLE_PLUGIN_AUTOLOAD=1 exec /env/bin/python -m pytest -p no:cacheprovider "
                   "\"$@\"\n"),
    }


def _copy_distribution(dist: metadata.Distribution, site: Path) -> None:
    """The files a distribution installed into its site-packages (not its scripts, not bytecode)."""
    base = Path(str(dist.locate_file("")))
    for f in dist.files or ():
        rel = Path(str(f))
        if rel.parts and (rel.parts[0] == ".." or "__pycache__" in rel.parts or rel.suffix == ".pyc"):
            continue
        src = base / rel
        if not src.is_file():
            continue
        dest = site / rel
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(src, dest)
