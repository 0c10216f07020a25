"""Rows in SWE-bench's layout (and SWE-smith's branch form) as repository tasks: `instance_id`, `repo`
("owner/name"), `base_commit`, `patch` (the gold patch), `test_patch`, `FAIL_TO_PASS`, `PASS_TO_PASS` (lists, or
JSON text of lists as the published datasets hold them), `problem_statement`; optional coderl fields `test_deps`,
`roots`, `package`, `plugins`, `cpu_seconds`, `split`.

Nothing is fetched: `repo` resolves to a git repository on this machine holding `base_commit`, the first that exists
of `REPOS_DIR/owner__name` for each `REPOS_DIR` in (the rows file's folder + "/repos", `$CODERL_CACHE/swebench-repos`).
The base is that commit's tree alone, written with `git archive` into the cache (`swebench-trees/INSTANCE`): no
history, no object of any other commit, nothing of the gold patch.  SWE-smith's branch form (a row without
`base_commit`, its task a branch named `instance_id` in the repository, as SWE-smith's harness checks it out): the base
is that branch's tree; its `patch` is the diff that put the bug in, so the gold patch is its reverse (read as given
when it applies forward to the branch instead, and validated either way: `coderl check --reference`); `test_patch` is
optional.  The test patch is applied to a copy of the base
at load (`git apply`, outside any repository) and kept as the files it leaves; the tests in those files are hidden
from the agent (added at grading).  A missing repository or commit, or a test patch that does not apply, is one line
naming the row.
"""

from __future__ import annotations

import difflib
import json
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from coderl.base.paths import cache_root
from coderl.tasks.types import TaskFormatError

FIELDS = ("instance_id", "repo", "patch", "FAIL_TO_PASS", "PASS_TO_PASS", "problem_statement")
GIT_ENV = {"PATH": "/usr/bin:/bin", "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": "/dev/null", "LANG": "C.UTF-8",
           "HOME": "/nonexistent"}


def is_swebench_row(row: dict) -> bool:
    """SWE-bench's layout (a base commit) or SWE-smith's (a branch named for the instance)."""
    return "instance_id" in row and "FAIL_TO_PASS" in row and ("base_commit" in row or "patch" in row)


def _ids(value, where: str, name: str) -> list[str]:
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError:
            raise TaskFormatError(f"{where}: field {name!r} is not a JSON list of test ids") from None
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise TaskFormatError(f"{where}: field {name!r}: expected a list of pytest ids")
    return value


def repository_folder(repo: str, rows_file: Path) -> Path | None:
    """Where `owner/name` is on this machine (a git repository), or None."""
    name = repo.replace("/", "__")
    for base in (rows_file.parent / "repos", cache_root() / "swebench-repos"):
        if (base / name).is_dir():
            return base / name
    return None


def _git(args: list[str], cwd: Path, where: str, **kw) -> subprocess.CompletedProcess:
    done = subprocess.run(["git", *args], cwd=cwd, env=GIT_ENV, capture_output=True, **kw)
    if done.returncode != 0:
        err = done.stderr.decode(errors="replace") if isinstance(done.stderr, bytes) else done.stderr
        raise TaskFormatError(f"{where}: git {args[0]} failed: {err.strip().splitlines()[-1] if err.strip() else ''}")
    return done


def base_tree(row: dict, where: str, rows_file: Path) -> Path:
    """The base commit's tree, written once into the cache (history-free)."""
    folder = repository_folder(row["repo"], rows_file)
    if folder is None:
        raise TaskFormatError(f"{where}: repository {row['repo']!r} is not on this machine (expected a git repository "
                              f"at {rows_file.parent / 'repos' / row['repo'].replace('/', '__')} or "
                              f"{cache_root() / 'swebench-repos' / row['repo'].replace('/', '__')}; nothing is "
                              "fetched)")
    target = cache_root() / "swebench-trees" / str(row["instance_id"]).replace("/", "__")
    if target.is_dir():
        return target
    staging = Path(tempfile.mkdtemp(prefix=".building-", dir=target.parent if target.parent.exists() else
                                    _made(target.parent)))
    try:
        revision = str(row.get("base_commit") or f"refs/heads/{row['instance_id']}")  # SWE-smith: its branch
        archive = _git(["archive", "--format=tar", revision], folder, where).stdout
        subprocess.run(["tar", "-x", "-C", str(staging)], input=archive, check=True, capture_output=True)
        os.chmod(staging, 0o755)
        os.rename(staging, target)
    finally:
        if staging.exists():
            shutil.rmtree(staging)
    return target


def _made(path: Path) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    return path


def test_patch_files(tree: Path, patch: str, where: str) -> dict[str, str | None]:
    """The files the test patch leaves ({path: text, None for a removed file}), applied to a copy of the base."""
    if not patch.strip():
        return {}
    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / "base"
        shutil.copytree(tree, copy, symlinks=True)
        names = _git(["apply", "--numstat", "-z", "-"], copy, where, input=patch.encode()).stdout
        paths = [entry.split(b"\t")[-1].decode() for entry in names.split(b"\0") if entry.count(b"\t") == 2]
        _git(["apply", "--whitespace=nowarn", "-"], copy, where + " (its test_patch)", input=patch.encode())
        return {p: ((copy / p).read_text(encoding="utf-8") if (copy / p).is_file() else None) for p in paths}


def fix_of_bug_patch(tree: Path, patch: str, where: str) -> str:
    """SWE-smith's branch form: the gold patch of a base its `patch` put the bug in -- the patch itself where it
    applies forward to the base, else the diff its reverse makes (one line when neither applies)."""
    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / "base"
        shutil.copytree(tree, copy, symlinks=True)
        forward = subprocess.run(["git", "apply", "--check", "-"], cwd=copy, env=GIT_ENV, input=patch.encode(),
                                 capture_output=True)
        if forward.returncode == 0:
            return patch
        names = _git(["apply", "--numstat", "-z", "-"], copy, where, input=patch.encode()).stdout
        paths = [entry.split(b"\t")[-1].decode() for entry in names.split(b"\0") if entry.count(b"\t") == 2]
        before = {p: (copy / p).read_text(encoding="utf-8") if (copy / p).is_file() else None for p in paths}
        _git(["apply", "-R", "--whitespace=nowarn", "-"], copy, where + " (its patch, reversed)", input=patch.encode())
        out = []
        for p in paths:
            after = (copy / p).read_text(encoding="utf-8") if (copy / p).is_file() else None
            out.append("".join(difflib.unified_diff((before[p] or "").splitlines(True), (after or "").splitlines(True),
                                                    f"a/{p}" if before[p] is not None else "/dev/null",
                                                    f"b/{p}" if after is not None else "/dev/null")))
        return "".join(out)


def row_fields(row: dict, where: str, rows_file: Path) -> dict:
    """A SWE-bench row as coderl's repository row (`task.task_from_row` reads it)."""
    missing = [f for f in FIELDS if f not in row]
    if missing:
        raise TaskFormatError(f"{where}: missing field(s) {', '.join(missing)} of SWE-bench's layout")
    tree = base_tree(row, where, rows_file)
    test_patch = test_patch_files(tree, row.get("test_patch", ""), where)
    gold = row["patch"] if "base_commit" in row else fix_of_bug_patch(tree, row["patch"], where)
    f2p = _ids(row["FAIL_TO_PASS"], where, "FAIL_TO_PASS")
    p2p = _ids(row["PASS_TO_PASS"], where, "PASS_TO_PASS")
    hidden = [t for t in (*f2p, *p2p) if t.split("::", 1)[0] in test_patch]
    return {"task_id": row["instance_id"], "repository": row["repo"], "tree": str(tree), "overlay": {},
            "test_patch": test_patch, "fail_to_pass": f2p, "pass_to_pass": p2p, "hidden": hidden,
            "issue": row["problem_statement"], "gold_patch": gold,
            **{k: row[k] for k in ("test_deps", "roots", "package", "plugins", "cpu_seconds", "split") if k in row}}
