"""The repository grader: what a submission is, the grading run's request, and the verdict (SWE-bench's FULL /
PARTIAL / NO).

A submission is either a patch (a single answer: a unified diff, applied in the sandbox by `git apply`) or the files
that differ between an episode's working copy and the task's base (`submission_files`, from the sandbox's snapshot of
the copy: untracked files included, whatever was done to .git, which is left out).  Either way it is graded on a fresh
copy of the base (the request's tree and overlay), never in the working copy, by one run (`process/boot.py`):

- the protected files -- every conftest.py and pytest configuration file, every file holding a FAIL_TO_PASS or
  PASS_TO_PASS test, every file the test patch touches -- are written back from the base with the test patch applied,
  after the submission, whatever it put at their paths; configuration files the base lacks are removed; so are .git,
  bytecode and caches;
- pytest runs under coderl's own configuration, plugin autoload off, from a Python started with -I -S (no site, .pth or
  sitecustomize of the tree's), and each test's outcome comes from coderl's reporter over the report channel, never
  from stdout or the exit status (RECORD tests, `coderl.sandbox.judge`);
- a tripwire, a test with a per-run name that must fail, is graded with them: if it is reported passed, the outcomes
  were forged in the test process (docs/sandbox.md, "Not closed": code under test can patch anything there), and the
  run is NO with the judge-observed note `forged_pass`; a tripwire with no failure recorded (missing: the process ended
  or dropped it before the reporter wrote) makes the run NO too.

A FAIL_TO_PASS or PASS_TO_PASS test that is skipped, xfailed, xpassed, errored, uncollected or missing from the report
has failed.  A patch that does not apply leaves no record: every test fails, NO.  An empty report is the submission's
failure, never the sandbox's.
"""

from __future__ import annotations

import base64
import dataclasses
import json
import os
import secrets
from collections.abc import Iterable
from pathlib import Path

from coderl.sandbox.types import CheckKind, ExecutionRequest, ExecutionResult, Limits, Mode, TestCase, file_bytes

CONFIG_NAMES = ("conftest.py", "pytest.ini", ".pytest.ini", "tox.ini", "setup.cfg", "pyproject.toml")
IGNORED_PARTS = (".git", "__pycache__", ".coderl", ".pytest_cache")  # never part of a submission
DISK_BYTES = 512 * 2**20  # a grading run's work dir: the repository, its bytecode-free test run's files
TEST_TIMEOUT = 60.0
TRIPWIRE_SOURCE = "def {name}():\n    assert sum([1, 2]) == 4\n"


@dataclasses.dataclass(frozen=True)
class Repository:
    """What grading a repository task needs (a `Task`'s `metadata["repository"]`, as data).

    `tree`: the repository's source folder (shared by its tasks; never the base itself); `overlay`: relative path ->
    text of each file of the base that differs from `tree` (the changed module, the tests with the hidden ones taken
    out), None for a file the base lacks; `test_patch`: relative path -> text (None: removed) of each file the test
    patch leaves, applied at grading only; `environment`: the environment folder; `roots`: the folders, relative to the
    tree's top, put on sys.path; `cpu_seconds`: a grading run's CPU limit (the suite's measured time, scaled)."""

    tree: str
    environment: str
    fail_to_pass: tuple[str, ...]
    pass_to_pass: tuple[str, ...]
    overlay: dict = dataclasses.field(default_factory=dict)
    test_patch: dict = dataclasses.field(default_factory=dict)
    roots: tuple[str, ...] = (".",)
    plugins: tuple[str, ...] = ()
    hidden: tuple[str, ...] = ()  # tests kept from the agent until grading (in the test patch)
    cpu_seconds: float = 60.0
    test_timeout: float = TEST_TIMEOUT  # wall seconds one test may take (a hanging test fails alone)

    @classmethod
    def from_dict(cls, data: dict) -> Repository:
        fields = {f.name for f in dataclasses.fields(cls)}
        values = {k: (tuple(v) if isinstance(v, list) else v) for k, v in data.items() if k in fields}
        return cls(**values)

    def to_dict(self) -> dict:
        return {k: (list(v) if isinstance(v, tuple) else v) for k, v in dataclasses.asdict(self).items()}


def test_file(node_id: str) -> str:
    """The file a pytest node id names."""
    return node_id.split("::", 1)[0]


def _ignored(path: str) -> bool:
    parts = path.split("/")
    return any(p in IGNORED_PARTS for p in parts) or path.endswith((".pyc", ".pyo"))


def base_bytes(repo: Repository, path: str) -> bytes | None:
    """A file of the base (the tree with the overlay), or None where it has none."""
    if path in repo.overlay:
        text = repo.overlay[path]
        return None if text is None else text.encode("utf-8")
    full = Path(repo.tree) / path
    return full.read_bytes() if full.is_file() and not full.is_symlink() else None


def base_files(repo: Repository) -> dict[str, tuple[bytes, int]]:
    """Every regular file of the base: path -> (bytes, mode); links and ignored parts left out."""
    out: dict[str, tuple[bytes, int]] = {}
    top = Path(repo.tree)
    for dirpath, dirs, files in os.walk(top):
        dirs[:] = sorted(d for d in dirs if d not in IGNORED_PARTS and not os.path.islink(os.path.join(dirpath, d)))
        for name in files:
            full = os.path.join(dirpath, name)
            rel = os.path.relpath(full, top).replace(os.sep, "/")
            if _ignored(rel) or os.path.islink(full):
                continue
            out[rel] = (Path(full).read_bytes(), os.stat(full).st_mode & 0o755)
    for rel, text in repo.overlay.items():
        if text is None:
            out.pop(rel, None)
        else:
            out[rel] = (text.encode("utf-8"), out.get(rel, (b"", 0o644))[1])
    return out


def protected(repo: Repository) -> list[str]:
    """The paths written back before the tests run: configuration and conftest files of the base, the files of every
    graded test, and the test patch's files."""
    paths = {p for p in base_files(repo) if p.rsplit("/", 1)[-1] in CONFIG_NAMES}
    paths.update(test_file(t) for t in (*repo.fail_to_pass, *repo.pass_to_pass))
    paths.update(repo.test_patch)
    return sorted(paths)


def restore_set(repo: Repository) -> dict[str, dict]:
    """Each protected path -> its entry after the test patch ({"data", "mode"}, or {"delete": True})."""
    out = {}
    for path in protected(repo):
        if path in repo.test_patch:
            text = repo.test_patch[path]
            data = None if text is None else text.encode("utf-8")
        else:
            data = base_bytes(repo, path)
        out[path] = {"delete": True} if data is None else {"data": base64.b64encode(data).decode("ascii"),
                                                            "mode": 0o644}
    return out


def submission_files(repo: Repository, snapshot: dict) -> dict[str, dict]:
    """The submission of an episode: the entries of its working copy's snapshot (`Sandbox.snapshot_episode`) that
    differ from the base, and a deletion for each file of the base it lacks; .git, bytecode and caches left out.
    Directories are implied by the files in them."""
    base = base_files(repo)
    out: dict[str, dict] = {}
    for path, entry in snapshot.items():
        if _ignored(path) or "dir" in entry:
            continue
        if "link" in entry:
            out[path] = {"link": entry["link"]}
            continue
        data = base64.b64decode(entry["data"])
        mode = entry.get("mode", 0o644) & 0o755
        if path not in base or base[path][0] != data or base[path][1] != mode:
            out[path] = {"data": entry["data"], "mode": mode}
    for path in base:
        if path not in snapshot and not any(path.startswith(p + "/") for p, e in snapshot.items() if "link" in e):
            out[path] = {"delete": True}
    return out


def tripwire() -> tuple[str, str, str]:
    """(file, node id, source) of a fresh tripwire: names drawn per run."""
    name = f"test_{secrets.token_hex(6)}"
    file = f"{name}.py"
    function = f"test_{secrets.token_hex(4)}"
    return file, f"{file}::{function}", TRIPWIRE_SOURCE.format(name=function)


def tests_of(repo: Repository, ids: Iterable[str] | None = None) -> tuple[TestCase, ...]:
    """The graded tests as RECORD test cases (FAIL_TO_PASS first); those kept from the agent hidden."""
    hidden = set(repo.hidden)
    ids = [*repo.fail_to_pass, *repo.pass_to_pass] if ids is None else list(ids)
    return tuple(TestCase(t, "", CheckKind.RECORD, hidden=t in hidden) for t in ids)


def grading_request(repo: Repository, *, patch: str | None = None, files: dict | None = None,
                    tests: tuple[TestCase, ...] | None = None, limits: Limits | None = None,
                    trace: dict | None = None, select: list[str] | None = None,
                    python: str | None = None) -> ExecutionRequest:
    """The one request that grades a submission (`patch`, or `files` from `submission_files`) on a fresh copy of
    the base.  Build time: `trace` ({"file", "first", "last"}: which tests run those lines; {"under": folder}: which
    functions under it each test calls; paths relative to the tree) and `select` (what pytest is given to run instead
    of the tests' ids: a folder, to collect a whole suite; `reports["records"]` then holds every test it ran)."""
    tests = tests_of(repo) if tests is None else tests
    wire_file, wire_id, wire_source = tripwire()
    if trace is not None:
        trace = {k: (os.path.normpath("/sandbox/" + v) if k in ("file", "under") else v) for k, v in trace.items()}
    plan = {"patch": patch, "restore": restore_set(repo), "tripwire": {"file": wire_file, "source": wire_source},
            "roots": list(repo.roots), "plugins": list(repo.plugins), "test_timeout": repo.test_timeout,
            "tests": (list(select) if select is not None else [t.id for t in tests]) + [wire_id],
            **({"trace": trace} if trace else {})}
    overlay = {p: ({"delete": True} if t is None else t) for p, t in repo.overlay.items()}
    submitted = {p: e for p, e in (files or {}).items() if not _ignored(p)}
    base = limits or Limits()
    limits = dataclasses.replace(base, cpu_seconds=max(base.cpu_seconds, repo.cpu_seconds), wall_seconds=None,
                                 disk_bytes=max(base.disk_bytes or 0, DISK_BYTES),
                                 output_kill_bytes=max(base.output_kill_bytes, 64 * 2**20))
    return ExecutionRequest(
        Mode.COMMAND,
        argv=(python or os.path.realpath(_interpreter()), "-I", "-S", "-B", "/env/coderl/boot.py"),
        tree=repo.tree, environment=repo.environment,
        files={**overlay, **submitted, ".coderl/grade.json": file_bytes(json.dumps(plan).encode())},
        tests=(*tests, TestCase(wire_id, "", CheckKind.RECORD, expected="failed", hidden=True)),
        limits=limits, compile_error=None)


def _interpreter() -> str:
    import sys

    return sys.executable


def tripwire_held(result: ExecutionResult, graded: Iterable[str]) -> bool:
    """Whether the run's tripwire (its one test besides `graded`) was recorded as failed, as planted.  A tripwire
    reported passed is forgery (`forged_pass`); one missing from the report, errored or skipped means the records were
    not all the reporter's either (written by the code under test, which then ended the process or dropped the test
    before the reporter could write): the run's outcomes are not to be trusted."""
    graded = set(graded)
    wires = [t for t in result.tests if t.id not in graded]
    return bool(wires) and all(t.passed for t in wires)


def verdict(repo: Repository, result: ExecutionResult) -> dict:
    """SWE-bench's resolution status from a grading run (harness/grading.py `get_resolution_status`): FULL when every
    FAIL_TO_PASS and PASS_TO_PASS test passed, PARTIAL when some but not all FAIL_TO_PASS tests passed and every
    PASS_TO_PASS test did, else NO; a forged run (the tripwire passed, or was not recorded failed:
    `tripwire_held`) is NO.  With `f2p_fraction`: the share of
    FAIL_TO_PASS tests passing when every PASS_TO_PASS test passes, else 0."""
    outcome = {t.id: t.passed for t in result.tests}
    forged = "forged_pass" in result.tamper or not tripwire_held(result, (*repo.fail_to_pass, *repo.pass_to_pass))
    f2p = [outcome.get(t, False) for t in repo.fail_to_pass]
    p2p_ok = all(outcome.get(t, False) for t in repo.pass_to_pass)
    share = sum(f2p) / len(f2p) if f2p else 0.0
    if forged:
        status, share = "NO", 0.0
    elif share == 1.0 and p2p_ok:
        status = "FULL"
    elif 0 < share < 1 and p2p_ok:
        status = "PARTIAL"
    else:
        status = "NO"
    return {"status": status, "f2p_fraction": share if p2p_ok else 0.0,
            "f2p_passed": sum(f2p), "f2p": len(f2p), "p2p_passed": sum(outcome.get(t, False) for t in
                                                                      repo.pass_to_pass),
            "p2p": len(repo.pass_to_pass), "forged": forged}
