"""The repositories the offline generator of repository tasks starts from: source distributions on the package
registry, fetched once at set-up time and pinned by sha256.

`SOURCES` is the table: pure-Python libraries with no runtime dependency whose source distribution ships a test
suite that passes under plain pytest (`PYTEST_DISABLE_PLUGIN_AUTOLOAD=1`, `-p no:cacheprovider`) run from
coderl's venv in the extracted tree, with `source_root` on the path (`python -m pytest` puts the tree's root
there itself), so the package is imported from the tree and never from an installed copy. Each row's comment
gives the suite's size and time as measured on a 2-core developer machine beside other jobs. The archives are
never committed: the sha256 is.

`fetch(source, cache_dir)` is the only place that downloads: `pip download` of the source distribution alone
(`--no-deps --no-binary NAME`; pip builds its metadata in an isolated environment, so set-up needs the
registry), then the archive's sha256 is checked and it is extracted safely (tar's "data" filter; zip names
checked) into `cache_dir/NAME-VERSION`, which it returns. A folder already there is returned as it is, so a
second set-up and every run after it need no network. `source_tree(source, root)` is the folder holding the
package in an extracted root. Every refusal is a `SourceError`, one line.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import zipfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from coderl.base.paths import sha256_file


class SourceError(ValueError):
    """A source that cannot be fetched, checked, extracted or found, said in one line."""


@dataclass(frozen=True)
class RepoSource:
    """One repository of the generator: a source distribution on the registry, pinned."""

    name: str                        # the distribution's name on the registry
    version: str
    sdist: str                       # the archive's file name, as pip saves it
    sha256: str                      # of the archive
    package: str                     # the import name (a package folder, or a module file `package.py`)
    source_root: str                 # the folder holding it in the extracted tree: "." or "src"
    tests: str                       # what pytest is given, relative to the extracted root: a folder or a file
    test_deps: tuple[str, ...] = ()  # distributions the tests import beyond pytest; they must be in coderl's venv

    @property
    def folder(self) -> str:
        """The name of the extracted tree in the cache: NAME-VERSION."""
        return f"{self.name}-{self.version}"


# Measured with /work/main/.venv/bin/python (3.11), `python -m pytest -q -p no:cacheprovider TESTS` from the
# extracted root, PYTEST_DISABLE_PLUGIN_AUTOLOAD=1, PYTHONPATH=src for a src layout: tests passed, wall time.
SOURCES: tuple[RepoSource, ...] = (
    # 519 passed, 4.3 s
    RepoSource("boltons", "26.2.0", "boltons-26.2.0.tar.gz",
               "d39cfd15c1a1c3bd4d705c82252fa9edb8e4f5e8cc039f8e39afac7b1b47e92c", "boltons", ".", "tests"),
    # 476 passed (+24 subtests), 1.1 s
    RepoSource("cachetools", "8.0.2", "cachetools-8.0.2.tar.gz",
               "30ac523adfc118b51d2b2e7bad8a0ddb31370dfe2700c7f10ca224f36ccf81e0", "cachetools", "src", "tests"),
    # 2,434 passed, 24 skipped, 1 xfailed (its own configuration deselects the rest), 8.5 s
    RepoSource("click", "8.5.1", "click-8.5.1.tar.gz",
               "9bbfada76703fd1d784b83eea012e3e8c6a001a876543ef104fa56aaaeb072b4", "click", "src", "tests"),
    # 6,441 passed, 1 skipped, 9.9 s; test_idna_properties.py imports hypothesis (coderl's `dev` extra)
    RepoSource("idna", "3.20", "idna-3.20.tar.gz",
               "a7db850025b95ded1eae8a46181a1a6c56c92c96f0e2b005d9ff8dc0210cab44", "idna", ".", "tests",
               ("hypothesis",)),
    # 455 passed, 0.5 s
    RepoSource("inflection", "0.5.1", "inflection-0.5.1.tar.gz",
               "1a29730d366e996aaacffb2f1f1cb9593dc38e2ddd30c91250c6dde09ea9b417", "inflection", ".",
               "test_inflection.py"),
    # 54 passed, 0.3 s
    RepoSource("iniconfig", "2.3.1", "iniconfig-2.3.1.tar.gz",
               "67f4b9c50da0dedf52af349e7749a80a9057a5031199791b906c3bb3ae878960", "iniconfig", "src", "testing"),
    # 280 passed, 0.5 s
    RepoSource("isodate", "0.7.2", "isodate-0.7.2.tar.gz",
               "4cd1aa0f43ca76f4a6c6c0292a85f40b35ec2e43e315b59f06e6d32171a953e6", "isodate", "src", "tests"),
    # 765 passed (+21,194 subtests), 19-27 s (the slowest here: near the 30 s this table allows)
    RepoSource("more-itertools", "11.2.1", "more_itertools-11.2.1.tar.gz",
               "cbf08fd0af284dc69718b9b76a8e6203df624d70209ea511e4219d350c856f63", "more_itertools", ".", "tests"),
    # 30 passed, 0.5 s
    RepoSource("ordered-set", "4.1.0", "ordered-set-4.1.0.tar.gz",
               "694a8e44c87657c59292ede72891eb91d34131f6531463aab3009191c77364a8", "ordered_set", ".", "test"),
    # 197 passed, 276 skipped (+142 subtests), 0.6 s
    RepoSource("pathspec", "1.1.1", "pathspec-1.1.1.tar.gz",
               "17db5ecd524104a120e173814c90367a96a98d07c45b2e10c2f3919fff91bf5a", "pathspec", ".", "tests"),
    # 451 passed (+500 subtests), 2.5 s
    RepoSource("pycparser", "3.12", "pycparser-3.12.tar.gz",
               "f03387877eab82ce01bbdfd0ba7252ee55a90b1c708d5129e2ce915475cf1db6", "pycparser", ".", "tests"),
    # 759 passed, 37 skipped, 1.7 s
    RepoSource("pyflakes", "4.1.0", "pyflakes-4.1.0.tar.gz",
               "592beb57058eb82eb190fb7514f2081c555c51000b029ff71286a681e6cf2f83", "pyflakes", ".",
               "pyflakes/test"),
    # 238 passed, 44 skipped, 1.2 s (the C speedups are not built: the pure-Python code is what runs)
    RepoSource("simplejson", "4.3.0", "simplejson-4.3.0.tar.gz",
               "ffe34ab51a0d37e6d1c661a5672df00d2d5e18804e38eac07abffb83fa5ec3d7", "simplejson", ".",
               "simplejson/tests"),
    # 198 passed, 2 skipped, 0.6 s (a module, six.py)
    RepoSource("six", "1.17.0", "six-1.17.0.tar.gz",
               "ff70335d468e7eb6ec65b95b99d3a2836546063f63acc5171de367e834932a81", "six", ".", "test_six.py"),
    # 537 passed, 2 xfailed, 1 xpassed, 2.6 s
    RepoSource("sqlparse", "0.6.1", "sqlparse-0.6.1.tar.gz",
               "ca722573f848ff2d30e40ea30f53a104b7dea7635ea9285891263eb2c58fb6e7", "sqlparse", ".", "tests"),
    # 85 passed, 0.4 s
    RepoSource("termcolor", "3.3.0", "termcolor-3.3.0.tar.gz",
               "348871ca648ec6a9a983a13ab626c0acce02f515b9e1983332b17af7979521c5", "termcolor", "src", "tests"),
    # 133 passed, 0.3 s
    RepoSource("text-unidecode", "1.3", "text-unidecode-1.3.tar.gz",
               "bad6603bb14d279193107714b288be206cac565dfa49aa5b105294dd5c4aab93", "text_unidecode", "src",
               "test_unidecode.py"),
    # 1,203 passed, 2.0 s
    RepoSource("tomlkit", "0.15.2", "tomlkit-0.15.2.tar.gz",
               "83e32755ba1d20d9340bd069ee97e9f6232ba2346b63ffcba425de01f7e327a6", "tomlkit", ".", "tests"),
    # 187 passed, 1 skipped, 1.1 s
    RepoSource("toolz", "1.2.0", "toolz-1.2.0.tar.gz",
               "9667a038e9d6ecba37995e26cb2f59ec6420b6ad8dd9677de59db9b956b08490", "toolz", ".", "toolz/tests"),
    # 119 passed, 0.8 s (a module, xmltodict.py)
    RepoSource("xmltodict", "1.0.4", "xmltodict-1.0.4.tar.gz",
               "6d94c9f834dd9e44514162799d344d815a3a4faec913717a9ecbfa5be1bb8e61", "xmltodict", ".", "tests"),
)


def by_name(name: str) -> RepoSource:
    """The row of `SOURCES` for a distribution name (as the registry normalises it)."""
    key = _normalise(name)
    for source in SOURCES:
        if _normalise(source.name) == key:
            return source
    raise SourceError(f"no repository source named {name!r}; known: {', '.join(s.name for s in SOURCES)}")


def _normalise(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def fetch(source: RepoSource, cache_dir: str | os.PathLike, *,
          pip: Sequence[str] = (sys.executable, "-m", "pip")) -> Path:
    """The extracted tree of `source` in `cache_dir` (`cache_dir/NAME-VERSION`), downloaded, checked and
    extracted first when it is not there. `pip` is the command that downloads (tests hand in a stand-in)."""
    cache = Path(cache_dir)
    target = cache / source.folder
    if target.is_dir():
        return target
    try:
        cache.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise SourceError(f"{cache}: cannot make the cache folder ({exc.strerror})") from None
    archive = cache / source.sdist
    if not archive.is_file():
        _download(source, cache, pip)
    actual = sha256_file(archive)
    if actual != source.sha256:
        raise SourceError(f"{archive}: sha256 {actual} where {source.name} {source.version} is pinned to "
                          f"{source.sha256}; remove the file to download it again")
    _extract(archive, target)
    return target


def _download(source: RepoSource, cache: Path, pip: Sequence[str]) -> None:
    scratch = Path(tempfile.mkdtemp(prefix=f".download-{source.folder}-", dir=cache))
    try:
        cmd = [*pip, "download", "--no-deps", "--no-binary", source.name, "--disable-pip-version-check",
               "--quiet", "--dest", str(scratch), f"{source.name}=={source.version}"]
        try:
            done = subprocess.run(cmd, capture_output=True, text=True, timeout=900)
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise SourceError(f"{source.name} {source.version}: pip download did not run ({exc})") from None
        if done.returncode != 0:
            last = [line.strip() for line in (done.stderr + done.stdout).splitlines() if line.strip()]
            raise SourceError(f"{source.name} {source.version}: pip download failed (exit {done.returncode}): "
                              f"{last[-1] if last else 'no output'}")
        got = sorted(p.name for p in scratch.iterdir())
        if got != [source.sdist]:
            raise SourceError(f"{source.name} {source.version}: pip download saved {got}, not {source.sdist}")
        os.replace(scratch / source.sdist, cache / source.sdist)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def _extract(archive: Path, target: Path) -> None:
    """Extract `archive`, whose members all sit in one top folder, as `target` (that folder renamed), through a
    scratch folder beside it so that `target` appears whole or not at all."""
    scratch = Path(tempfile.mkdtemp(prefix=f".extract-{target.name}-", dir=target.parent))
    try:
        try:
            if archive.name.endswith((".tar.gz", ".tgz", ".tar.bz2", ".tar.xz", ".tar")):
                with tarfile.open(archive) as tar:
                    tar.extractall(scratch, filter="data")
            elif archive.name.endswith(".zip"):
                with zipfile.ZipFile(archive) as zf:
                    for info in zf.infolist():
                        _check_zip_member(archive, info)
                    zf.extractall(scratch)
            else:
                raise SourceError(f"{archive}: not a .tar.gz, .tar or .zip archive")
        except (tarfile.TarError, zipfile.BadZipFile, EOFError, OSError) as exc:
            raise SourceError(f"{archive}: cannot be extracted safely ({exc.__class__.__name__}: {exc})") from None
        tops = list(scratch.iterdir())
        if len(tops) != 1 or not tops[0].is_dir() or tops[0].is_symlink():
            raise SourceError(f"{archive}: holds {sorted(p.name for p in tops)} at its top, not one folder")
        try:
            os.replace(tops[0], target)
        except OSError as exc:
            if not target.is_dir():   # another set-up that finished first is as good
                raise SourceError(f"{target}: cannot be put in place ({exc.strerror})") from None
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def _check_zip_member(archive: Path, info: zipfile.ZipInfo) -> None:
    name = PurePosixPath(info.filename.replace("\\", "/"))
    mode = info.external_attr >> 16
    if name.is_absolute() or ".." in name.parts or re.match(r"^[A-Za-z]:", info.filename):
        raise SourceError(f"{archive}: member {info.filename!r} points outside the folder")
    if (mode & 0o170000) == 0o120000:
        raise SourceError(f"{archive}: member {info.filename!r} is a symbolic link")


def source_tree(source: RepoSource, root: str | os.PathLike) -> Path:
    """The folder holding `source.package` in the extracted tree `root` (`root/source_root`), checked: the
    package folder (with its `__init__.py`) or module file and the tests are there."""
    base = Path(root)
    tree = base / source.source_root
    if not (tree / source.package / "__init__.py").is_file() and not (tree / f"{source.package}.py").is_file():
        raise SourceError(f"{tree}: holds no package or module {source.package!r} "
                          f"({source.name} {source.version} not fetched there?)")
    if not (base / source.tests).exists():
        raise SourceError(f"{base / source.tests}: the tests of {source.name} {source.version} are missing")
    return tree
