"""The repository task kind: a repository at its base, an issue, FAIL_TO_PASS and PASS_TO_PASS pytest ids, graded by
`grade.py`; and the pool files that hold such tasks.

A pool is a folder (the generator's output, `generate.py`) or a JSONL file of rows of coderl's repository layout:

    task_id, repository (name-version), tree (the repository's source folder: absolute, or relative to the file),
    overlay ({path: text or null}: the base's files that differ from the tree), test_patch ({path: text or null}),
    fail_to_pass, pass_to_pass, hidden (tests kept out of the base, added by the test patch), issue (the text the
    agent reads), gold_patch (a unified diff turning the base into the fix: the reference), roots, plugins, test_deps
    (distributions the suite needs besides pytest; the environment is built from this interpreter's, offline),
    package (the repository's import name), cpu_seconds, split (train | valid | test), and free metadata
    (difficulty, validation, held_out: "repository" | "function").

The completion of a single answer is a unified diff (`build_request` grades it as a patch); an agent's submission is
its working copy (`grade.submission_files`).  Requests run at sandbox isolation `full` only (the environment at /env,
the episode's copy on the server's own file system).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from coderl.base.paths import cache_root
from coderl.sandbox.types import Limits
from coderl.tasks.kinds import TaskKind, register_kind
from coderl.tasks.repository import environment
from coderl.tasks.repository.grade import Repository, grading_request, tests_of
from coderl.tasks.types import Task, TaskFormatError

INSTRUCTION = ("Fix the issue below in the repository. Reply with a unified diff (a/ and b/ paths, as `git diff` "
               "prints it) that `git apply` accepts at the repository's top folder.")
REQUIRED = ("task_id", "tree", "fail_to_pass", "issue")
SPLITS = ("train", "valid", "test")


def repository_of(task: Task) -> Repository:
    """The grading data of a repository task."""
    try:
        return task.metadata["repository"]
    except KeyError:
        raise TaskFormatError(f"task {task.task_id}: a repository task without its repository data") from None


def _build_request(task: Task, completion: str, limits: Limits, tests: tuple):
    return grading_request(repository_of(task), patch=completion, tests=tests, limits=limits)


register_kind(TaskKind(name="repository", prompt_is_code=False, instruction=INSTRUCTION,
                       build_program=lambda task, completion: completion, build_request=_build_request))


def environments_root() -> Path:
    return cache_root() / "repository-envs"


def task_from_row(row: dict, where: str, base: Path) -> Task:
    """A repository task from one row (`where`: file:line, for messages; `base`: what relative trees are under)."""
    missing = [k for k in REQUIRED if k not in row]
    if missing:
        raise TaskFormatError(f"{where}: missing field(s) {', '.join(missing)} (a repository row needs "
                              f"{', '.join(REQUIRED)})")
    tree = Path(row["tree"]) if os.path.isabs(row["tree"]) else base / row["tree"]
    if not tree.is_dir():
        raise TaskFormatError(f"{where}: tree {str(tree)!r}: no such folder (the repository is not on this machine: "
                              "generate it again, or give the folder it was unpacked to)")
    if not row["fail_to_pass"]:
        raise TaskFormatError(f"{where}: fail_to_pass is empty: a task needs a test the fix makes pass")
    if row.get("split", "train") not in SPLITS:
        raise TaskFormatError(f"{where}: split {row.get('split')!r}: expected one of {', '.join(SPLITS)}")
    try:
        env = environment.build(environments_root(), row.get("test_deps", ()), row.get("package"))
    except environment.EnvironmentError_ as exc:
        raise TaskFormatError(f"{where}: {exc}") from None
    repo = Repository(tree=str(tree.resolve()), environment=str(env), fail_to_pass=tuple(row["fail_to_pass"]),
                      pass_to_pass=tuple(row.get("pass_to_pass", ())), overlay=dict(row.get("overlay", {})),
                      test_patch=dict(row.get("test_patch", {})), roots=tuple(row.get("roots", (".",))),
                      plugins=tuple(row.get("plugins", ())), hidden=tuple(row.get("hidden", ())),
                      cpu_seconds=float(row.get("cpu_seconds", 60.0)))
    meta = {k: row[k] for k in ("repository", "package", "split", "held_out", "difficulty", "validation",
                                "mutation") if k in row}
    return Task(task_id=str(row["task_id"]), kind="repository", prompt=row["issue"], tests=tests_of(repo),
                reference_solution=row.get("gold_patch"), source=where, metadata={**meta, "repository": repo})


def pool_file(path: str | os.PathLike) -> Path:
    path = Path(path)
    return path / "tasks.jsonl" if path.is_dir() else path


def read_rows(path: str | os.PathLike) -> list[tuple[str, dict]]:
    """(file:line, row) of each row of a pool file; one line for a row that is not a JSON object."""
    file = pool_file(path)
    if not file.is_file():
        raise TaskFormatError(f"repository pool {str(path)!r}: no tasks.jsonl (expected a folder the generator wrote, "
                              "or a JSONL file of repository rows)")
    rows = []
    with open(file, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except ValueError as exc:
                raise TaskFormatError(f"{file}:{number}: not JSON ({exc})") from None
            if not isinstance(row, dict):
                raise TaskFormatError(f"{file}:{number}: expected a JSON object")
            rows.append((f"{file}:{number}", row))
    return rows


def load_repository_tasks(path: str, split: str = "all") -> list[Task]:
    """The tasks of a pool, those of `split` (all: every row)."""
    file = pool_file(path)
    return [task_from_row(row, where, file.parent) for where, row in read_rows(path)
            if split == "all" or row.get("split", "train") == split]


def hidden_paths(path: str) -> list[str]:
    """What programs must not read besides the pool itself: the installed copies of each pool repository's package
    in this interpreter (the view shows its site-packages: an original there is the fix)."""
    import importlib.util

    out = []
    try:
        rows = read_rows(path)
    except TaskFormatError:
        return out
    for package in sorted({row.get("package") for _, row in rows if row.get("package")}):
        spec = importlib.util.find_spec(package) if package.isidentifier() else None
        if spec is not None:
            out.extend(spec.submodule_search_locations or ([spec.origin] if spec.origin else []))
    return out
