"""The generator's repository sources: the pinned table, and fetch's download, sha256 check and safe extraction,
all on archives made here (a stand-in for pip does the downloading; nothing reaches the network)."""

import hashlib
import io
import re
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

from coderl.tasks.repository.sources import SOURCES, RepoSource, SourceError, by_name, fetch, source_tree


def test_the_table_holds_at_least_twelve_pinned_sources():
    assert len(SOURCES) >= 12
    assert len({s.name for s in SOURCES}) == len(SOURCES)
    for s in SOURCES:
        assert re.fullmatch(r"[0-9a-f]{64}", s.sha256), s.name
        assert s.source_root in (".", "src"), s.name
        assert s.sdist in (f"{s.name}-{s.version}.tar.gz", f"{s.name.replace('-', '_')}-{s.version}.tar.gz"), s.name
        assert re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", s.package), s.name
        assert not Path(s.tests).is_absolute() and ".." not in Path(s.tests).parts, s.name
        assert set(s.test_deps) <= {"hypothesis"}, s.name   # what coderl's venv has (its `dev` extra)
    assert {"more-itertools", "toolz", "boltons", "idna"} <= {s.name for s in SOURCES}


def test_by_name_reads_the_registry_spelling_and_refuses_an_unknown_name():
    assert by_name("More_Itertools").package == "more_itertools"
    with pytest.raises(SourceError, match=r"^no repository source named 'nope'; known: boltons, "):
        by_name("nope")


def _tar(path: Path, members: dict[str, bytes], top: str | None) -> None:
    with tarfile.open(path, "w:gz") as tar:
        for name, data in members.items():
            info = tarfile.TarInfo(f"{top}/{name}" if top else name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))


def _source(archive: Path, **changes) -> RepoSource:
    fields = dict(name="demo", version="1.0", sdist=archive.name,
                  sha256=hashlib.sha256(archive.read_bytes()).hexdigest(), package="demo", source_root="src",
                  tests="tests")
    fields.update(changes)
    return RepoSource(**fields)


_TREE = {"src/demo/__init__.py": b"X = 1\n", "tests/test_demo.py": b"def test_x():\n    assert True\n"}


def test_fetch_checks_and_extracts_an_archive_already_in_the_cache(tmp_path):
    cache = tmp_path / "cache"
    cache.mkdir()
    _tar(cache / "demo-1.0.tar.gz", _TREE, "demo-1.0")
    source = _source(cache / "demo-1.0.tar.gz")
    root = fetch(source, cache, pip=["false"])      # no download: the archive is there
    assert root == cache / "demo-1.0"
    assert (root / "src/demo/__init__.py").read_bytes() == b"X = 1\n"
    assert source_tree(source, root) == root / "src"
    assert sorted(p.name for p in cache.iterdir()) == ["demo-1.0", "demo-1.0.tar.gz"]   # no scratch left
    (cache / "demo-1.0.tar.gz").unlink()
    assert fetch(source, cache, pip=["false"]) == root   # extracted once: no archive, no network needed


def test_fetch_downloads_through_pip_when_the_archive_is_missing(tmp_path):
    made = tmp_path / "made"
    made.mkdir()
    _tar(made / "demo-1.0.tar.gz", _TREE, "demo-1.0")
    # a stand-in for `python -m pip`: copies the archive into --dest, as pip download would
    fake = tmp_path / "fake_pip.py"
    fake.write_text("import shutil, sys\nargs = sys.argv[1:]\nassert args[0] == 'download'\n"
                    "assert args[args.index('--no-binary') + 1] == 'demo' and args[-1] == 'demo==1.0'\n"
                    f"shutil.copy({str(made / 'demo-1.0.tar.gz')!r}, args[args.index('--dest') + 1])\n")
    source = _source(made / "demo-1.0.tar.gz")
    root = fetch(source, tmp_path / "cache", pip=[sys.executable, str(fake)])
    assert (root / "tests/test_demo.py").is_file()
    assert (tmp_path / "cache/demo-1.0.tar.gz").is_file()


def test_a_failed_download_is_one_line_with_pips_last_words(tmp_path):
    fake = tmp_path / "fake_pip.py"
    fake.write_text("import sys\nprint('Collecting demo==1.0', file=sys.stderr)\n"
                    "print('ERROR: No matching distribution found for demo==1.0', file=sys.stderr)\nsys.exit(1)\n")
    source = RepoSource("demo", "1.0", "demo-1.0.tar.gz", "0" * 64, "demo", ".", "tests")
    with pytest.raises(SourceError) as err:
        fetch(source, tmp_path / "cache", pip=[sys.executable, str(fake)])
    assert str(err.value) == ("demo 1.0: pip download failed (exit 1): "
                              "ERROR: No matching distribution found for demo==1.0")
    assert [p.name for p in (tmp_path / "cache").iterdir()] == []


def test_a_sha256_mismatch_is_refused_naming_the_file_and_both_digests(tmp_path):
    _tar(tmp_path / "demo-1.0.tar.gz", _TREE, "demo-1.0")
    actual = hashlib.sha256((tmp_path / "demo-1.0.tar.gz").read_bytes()).hexdigest()
    source = _source(tmp_path / "demo-1.0.tar.gz", sha256="ab" * 32)
    with pytest.raises(SourceError) as err:
        fetch(source, tmp_path, pip=["false"])
    message = str(err.value)
    assert "\n" not in message
    assert message.startswith(f"{tmp_path / 'demo-1.0.tar.gz'}: sha256 {actual} where demo 1.0 is pinned to "
                              f"{'ab' * 32}")
    assert not (tmp_path / "demo-1.0").exists()


def test_a_member_outside_the_folder_is_refused_and_nothing_is_left(tmp_path):
    cache = tmp_path / "cache"
    cache.mkdir()
    _tar(cache / "demo-1.0.tar.gz", {"demo-1.0/ok.py": b"", "demo-1.0/../../evil.py": b"x"}, None)
    with pytest.raises(SourceError, match=r"cannot be extracted safely \(OutsideDestinationError"):
        fetch(_source(cache / "demo-1.0.tar.gz"), cache, pip=["false"])
    assert not (tmp_path / "evil.py").exists()
    assert sorted(p.name for p in cache.iterdir()) == ["demo-1.0.tar.gz"]


def test_a_tar_link_out_of_the_folder_is_refused(tmp_path):
    with tarfile.open(tmp_path / "demo-1.0.tar.gz", "w:gz") as tar:
        info = tarfile.TarInfo("demo-1.0/passwd")
        info.type, info.linkname = tarfile.SYMTYPE, "/etc/passwd"
        tar.addfile(info)
    with pytest.raises(SourceError, match="cannot be extracted safely"):
        fetch(_source(tmp_path / "demo-1.0.tar.gz"), tmp_path, pip=["false"])


def test_zip_archives_are_extracted_and_their_names_checked(tmp_path):
    good = tmp_path / "good"
    good.mkdir()
    with zipfile.ZipFile(good / "demo-1.0.zip", "w") as zf:
        for name, data in _TREE.items():
            zf.writestr(f"demo-1.0/{name}", data)
    root = fetch(_source(good / "demo-1.0.zip"), good, pip=["false"])
    assert (root / "src/demo/__init__.py").read_bytes() == b"X = 1\n"
    bad = tmp_path / "bad"
    bad.mkdir()
    with zipfile.ZipFile(bad / "demo-1.0.zip", "w") as zf:
        zf.writestr("demo-1.0/../../evil.py", b"x")
    with pytest.raises(SourceError, match=r"member 'demo-1.0/../../evil.py' points outside the folder"):
        fetch(_source(bad / "demo-1.0.zip"), bad, pip=["false"])
    assert not (tmp_path / "evil.py").exists()


def test_an_archive_without_one_top_folder_is_refused(tmp_path):
    _tar(tmp_path / "demo-1.0.tar.gz", {"a/x.py": b"", "b/y.py": b""}, None)
    with pytest.raises(SourceError, match=r"holds \['a', 'b'\] at its top, not one folder"):
        fetch(_source(tmp_path / "demo-1.0.tar.gz"), tmp_path, pip=["false"])


def test_source_tree_refuses_a_tree_without_the_package_or_the_tests(tmp_path):
    source = RepoSource("demo", "1.0", "demo-1.0.tar.gz", "0" * 64, "demo", ".", "tests")
    with pytest.raises(SourceError, match=r"holds no package or module 'demo'"):
        source_tree(source, tmp_path)
    (tmp_path / "demo.py").write_text("")
    with pytest.raises(SourceError, match=r"the tests of demo 1.0 are missing"):
        source_tree(source, tmp_path)
    (tmp_path / "tests").mkdir()
    assert source_tree(source, tmp_path) == tmp_path
