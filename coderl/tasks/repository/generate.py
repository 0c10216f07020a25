"""The offline generator of repository tasks: a repository's clean source, bugs put into its functions by AST
mutation, each kept only if it validates in the sandbox, with an issue written from the failure.

For each repository (`sources.SOURCES`, fetched once at set-up and pinned by sha256, or a local folder such as the
committed fixture):

1. the clean tree is copied into the pool (`repos/NAME`), its environment built (`environment.build`);
2. its whole suite runs once in the sandbox with a call trace (`grade.grading_request(select=..., trace={"under"})`):
   the tests that pass there, and which functions each one calls;
3. every function of the package (never a file of its tests) that some passing test calls gets mutants
   (`mutations.mutants`: operators, comparisons, off-by-one, removed branches, swapped arguments, wrong returns,
   combined bugs), at most `per_function` of them, drawn by a seeded shuffle, each written back with only its
   changed statements re-rendered (`splice.py`: the function's style does not give the change away);
4. each mutant is validated (`validate.validate`, `RUNS` runs of the base and of the gold patch) on the tests that
   call the changed function -- PASS_TO_PASS chosen by coverage of the changed code, not the whole suite -- and kept
   only with a FAIL_TO_PASS test; its call depth from the failing test to the change is traced in the same runs;
5. one FAIL_TO_PASS test function is taken out of the base's test file and put back by the test patch at grading
   (the agent never sees it, nor any test that goes with it: a subclass's inherited copy, `node_ids.taken_out`;
   all are hidden); the issue is written from the failures at the base (`issue_text`), never from the
   mutation, naming no hidden test;
6. the split: every task of a held-out repository is `test` (held_out "repository"); elsewhere each function is
   `test` (held_out "function"), `valid` or `train` by a hash of its name, so a seen repository's test tasks change
   functions no training task changes.

The pool folder (`tasks.jsonl`, `repos/`, `stats.json`) is self-contained; environments are built where it is loaded.
Difficulty per task: the mutation's size (AST nodes changed) and the call depth (frames from the failing test
function down to the changed function, least over its FAIL_TO_PASS tests).
"""

from __future__ import annotations

import ast
import dataclasses
import hashlib
import json
import os
import random
import shutil
import time
from collections.abc import Callable, Iterable
from pathlib import Path

from coderl.tasks.repository import environment
from coderl.tasks.repository.grade import Repository, grading_request, test_file
from coderl.tasks.repository.issue_text import IssueTextError, issue_text
from coderl.tasks.repository.mutations import MutationError, gold_patch, mutants
from coderl.tasks.repository.node_ids import node_parts, taken_out
from coderl.tasks.repository.splice import splice
from coderl.tasks.repository.validate import RUNS, validate

MAX_CANDIDATES = 120  # tests run per mutant at most (those calling the changed function, drawn by seed)
SPLIT_SHARES = (("test", 15), ("valid", 7))  # per hundred functions of a seen repository; the rest train
COLLECT_CPU_SECONDS = 900.0  # the traced whole-suite run's CPU limit
COLLECT_WALL_SECONDS = 600.0  # its wall-clock backstop (what it recorded by then is kept)
COLLECT_TEST_TIMEOUT = 20.0  # wall seconds a test of it may take (one that waits on the network it lacks fails)


@dataclasses.dataclass(frozen=True)
class RepoInput:
    """A repository to generate from: a clean tree (a folder), its package, where the package sits, its tests."""

    name: str
    tree: Path
    package: str
    source_root: str = "."
    tests: str = "tests"
    test_deps: tuple[str, ...] = ()


@dataclasses.dataclass
class Stats:
    repositories: dict = dataclasses.field(default_factory=dict)  # name -> its counts

    def to_dict(self) -> dict:
        total: dict[str, int] = {}
        for counts in self.repositories.values():
            for key, value in counts.items():
                if isinstance(value, int) and not isinstance(value, bool):  # not "interrupted"
                    total[key] = total.get(key, 0) + value
        return {"repositories": self.repositories, "total": total}


def _hash_share(text: str) -> int:
    return int(hashlib.sha256(text.encode()).hexdigest()[:8], 16) % 100


def split_of(repo: str, path: str, function: str, held_out: Iterable[str]) -> tuple[str, str | None]:
    """(split, held_out) of a function's tasks: a held-out repository's are test; else a hash of the function."""
    if repo in set(held_out):
        return "test", "repository"
    share = _hash_share(f"{repo}\x00{path}\x00{function}")
    for split, size in SPLIT_SHARES:
        if share < size:
            return split, ("function" if split == "test" else None)
        share -= size
    return "train", None


def package_files(tree: Path, item: RepoInput) -> list[str]:
    """The package's Python files, relative to the tree, tests excluded."""
    root = tree / item.source_root
    single = root / f"{item.package}.py"
    if single.is_file():
        return [os.path.relpath(single, tree)]
    out = []
    for dirpath, dirs, files in os.walk(root / item.package):
        dirs[:] = sorted(d for d in dirs if not d.startswith(("test", "__pycache__")))
        for name in sorted(files):
            if name.endswith(".py") and not name.startswith(("test_", "conftest")):
                out.append(os.path.relpath(os.path.join(dirpath, name), tree).replace(os.sep, "/"))
    return out


def remove_test(source: str, test_id: str) -> str | None:
    """The test file without the function (or method) `test_id` names; None where that cannot be done cleanly (not
    found, a class left empty)."""
    _, classes, name = node_parts(test_id)
    tree = ast.parse(source)
    body = tree.body
    for cls in classes:
        found = next((n for n in body if isinstance(n, ast.ClassDef) and n.name == cls), None)
        if found is None:
            return None
        body = found.body
    node = next((n for n in body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name == name), None)
    if node is None or (classes and len(body) == 1):
        return None
    first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
    lines = source.splitlines(keepends=True)
    return "".join(lines[:first - 1] + lines[node.end_lineno:])


def hide_one(tree: Path, fail_to_pass: Iterable[str]) -> tuple[str, str, str, str] | None:
    """(test id, its file, the file, the file without it) of the first FAIL_TO_PASS test that can be taken out of
    its file cleanly (`remove_test`), in the order given; None when none can."""
    for test in fail_to_pass:
        file = test_file(test)
        if not file.endswith(".py") or not (tree / file).is_file():
            continue
        full = (tree / file).read_text(encoding="utf-8")
        reduced = remove_test(full, test)
        if reduced is not None:
            return test, file, full, reduced
    return None


def fix_needles(original: str, first: int, last: int, gold: str) -> list[str]:
    """What of a fix a reader could find (the audit's needles): the original function whole, and each hunk of the
    gold patch as the fix leaves it (its added lines with their context), where it spans three lines or more."""
    lines = original.splitlines()
    out = ["\n".join(lines[first - 1: last])]
    hunk: list[str] = []
    for line in gold.splitlines()[2:]:
        if line.startswith("@@"):
            out.append("\n".join(hunk))
            hunk = []
        elif line[:1] in (" ", "+"):
            hunk.append(line[1:])
    out.append("\n".join(hunk))
    return [n for n in out if n.count("\n") >= 2]


def fix_readable(tree: Path, overlay: dict, needles: list[str]) -> str | None:
    """The file of the base (the tree with the overlay) holding one of the needles, or None: a repository with a
    second copy of the changed code (a vendored old version, a twin method) gives the fix away."""
    for dirpath, dirs, files in os.walk(tree):
        dirs[:] = [d for d in dirs if d not in (".git", "__pycache__")]
        for name in files:
            rel = os.path.relpath(os.path.join(dirpath, name), tree).replace(os.sep, "/")
            if rel in overlay:
                text = overlay[rel] or ""
            else:
                try:
                    text = Path(dirpath, name).read_text(encoding="utf-8")
                except (UnicodeDecodeError, OSError):
                    continue
            if any(n in text for n in needles):
                return rel
    return None


def collect(sandbox, item: RepoInput, tree: Path, env: Path) -> tuple[dict[str, set[str]], float, dict]:
    """The suite's passing tests -> the functions each calls ("path:first line", relative to the tree), its CPU
    seconds, and the counts of what did not pass."""
    probe = Repository(tree=str(tree), environment=str(env), fail_to_pass=(), pass_to_pass=(),
                       roots=(item.source_root,), cpu_seconds=COLLECT_CPU_SECONDS, test_timeout=COLLECT_TEST_TIMEOUT)
    request = grading_request(probe, tests=(), select=[item.tests], trace={"under": item.source_root})
    limits = dataclasses.replace(request.limits, wall_seconds=COLLECT_WALL_SECONDS)
    request = dataclasses.replace(request, limits=limits)
    result = sandbox.run(request)
    records = result.reports.get("records", {})
    prefix = "" if item.source_root in (".", "") else item.source_root.rstrip("/") + "/"
    passing = {tid: {prefix + c for c in rec.get("calls", [])} for tid, rec in records.items()
               if rec["status"] == "passed"}
    others: dict[str, int] = {}
    for rec in records.values():
        if rec["status"] != "passed":
            others[rec["status"]] = others.get(rec["status"], 0) + 1
    if not passing:
        raise ValueError(f"repository {item.name}: no test passed in the sandbox ({result.status.value}: "
                         f"{result.message or result.stderr[-300:]})")
    return passing, result.cpu_seconds, others


def callers(calls: dict[str, set[str]], path: str, first: int, last: int) -> list[str]:
    """The tests that call a function of `path` defined within lines [first, last]."""
    out = []
    for test, called in calls.items():
        for c in called:
            where, _, line = c.rpartition(":")
            if where == path and first <= int(line) <= last:
                out.append(test)
                break
    return sorted(out)


def generate_repository(sandbox, item: RepoInput, pool: Path, *, held_out: Iterable[str] = (), seed: int = 0,
                        per_function: int = 2, max_tasks: int | None = None, runs: int = RUNS,
                        log: Callable[[str], None] = print,
                        emit: Callable[[dict, dict], None] | None = None) -> tuple[list[dict], dict]:
    """The validated tasks of one repository (rows of the pool file) and its counts; its clean tree copied into
    `pool/repos/NAME` first. `emit(row, counts)` is called as each task validates (the counts so far)."""
    started = time.monotonic()
    tree = pool / "repos" / item.name
    if not tree.exists():
        shutil.copytree(item.tree, tree, symlinks=True,
                        ignore=shutil.ignore_patterns("__pycache__", "*.pyc", ".git", ".pytest_cache"))
    env = environment.build(pool / "envs", item.test_deps, item.package)
    calls, suite_cpu, not_passing = collect(sandbox, item, tree, env)
    cpu_limit = round(max(20.0, 4.0 * suite_cpu + 10.0), 1)
    counts = {"suite_tests": len(calls) + sum(not_passing.values()), "suite_passing": len(calls), "functions": 0,
              "mutants_tried": 0, "validated": 0, "no_fail_to_pass": 0, "not_hideable": 0, "not_spliced": 0,
              "fix_readable": 0, "flaky_dropped": 0}
    rng = random.Random(f"{seed}:{item.name}")
    rows: list[dict] = []
    for path in package_files(tree, item):
        original = (tree / path).read_text(encoding="utf-8")
        try:
            found = mutants(original, path, seed=seed)
        except MutationError:
            continue
        by_function: dict[str, list] = {}
        for m in found:
            by_function.setdefault(m.function, []).append(m)
        for function, options in by_function.items():
            if max_tasks is not None and len(rows) >= max_tasks:
                break
            first, last = options[0].first_line, options[0].last_line
            tests = callers(calls, path, first, last)
            if not tests:
                continue
            counts["functions"] += 1
            if len(tests) > MAX_CANDIDATES:
                tests = sorted(rng.sample(tests, MAX_CANDIDATES))
            rng.shuffle(options)
            for mutation in options[:per_function]:
                counts["mutants_tried"] += 1
                row = _one_task(sandbox, item, tree, env, path, original, mutation, tests, cpu_limit,
                                held_out, seed, runs, counts)
                if row is not None:
                    rows.append(row)
                    counts["validated"] += 1
                    if emit is not None:
                        emit(row, counts)
    counts["seconds"] = round(time.monotonic() - started, 1)
    counts["suite_cpu_seconds"] = round(suite_cpu, 2)
    log(f"{item.name}: {counts['validated']} tasks from {counts['mutants_tried']} mutants of {counts['functions']} "
        f"functions ({counts['seconds']} s)")
    return rows, counts


def _one_task(sandbox, item, tree, env, path, original, mutation, tests, cpu_limit, held_out, seed, runs, counts):
    """A validated task from one mutant, or None (counted in `counts` by why)."""
    try:  # only the changed statements re-rendered: the rest keeps the repository's own text
        mutated = splice(original, mutation.mutated, mutation.function)
    except (ValueError, SyntaxError):
        counts["not_spliced"] += 1
        return None
    repo = Repository(tree=str(tree), environment=str(env), fail_to_pass=(), pass_to_pass=(),
                      overlay={path: mutated}, roots=(item.source_root,), cpu_seconds=cpu_limit)
    gold = gold_patch(path, mutated, original)
    trace = {"file": path, "first": mutation.first_line, "last": mutation.last_line}
    checked = validate(sandbox, repo, gold, candidates=tests, runs=runs, trace=trace, prescreen=True)
    counts["flaky_dropped"] += sum("varied" in why for why in checked.dropped.values())
    if not checked.ok:
        counts["no_fail_to_pass"] += 1
        return None
    overlay_probe = {path: mutated}
    if fix_readable(tree, overlay_probe, fix_needles(original, mutation.first_line, mutation.last_line, gold)):
        counts["fix_readable"] += 1
        return None
    hideable = hide_one(tree, checked.fail_to_pass)
    if hideable is None:  # no FAIL_TO_PASS test can be taken out of its file cleanly (a mixin's, a class's last)
        counts["not_hideable"] += 1
        return None
    hidden_test, file, full, reduced = hideable
    function_of = lambda t: t.split("[", 1)[0]  # noqa: E731 -- every parametrisation of the hidden function
    graded = (*checked.fail_to_pass, *checked.pass_to_pass)
    gone = set(taken_out(full, reduced, [t for t in graded if test_file(t) == file]))  # inherited copies go too
    hidden = [t for t in graded if function_of(t) == function_of(hidden_test) or t in gone]
    shown = [t for t in checked.fail_to_pass if t not in hidden]
    failures = [{"test_id": t, "outcome": rec.get("status", "failed"), "message": rec.get("message", ""),
                 "frames": [f for f in rec.get("frames", []) if f and f[0] == test_file(t)]}
                for t, rec in checked.failures.items()]
    try:
        issue = issue_text(item.name, failures, shown_ids=shown, seed=seed)
    except IssueTextError:
        counts["not_hideable"] += 1
        return None
    depths = [checked.depths[t] for t in checked.fail_to_pass if t in checked.depths]
    split, held = split_of(item.name, path, mutation.function, held_out)
    digest = hashlib.sha256(mutated.encode()).hexdigest()[:10]
    return {
        "task_id": f"{item.name}/{mutation.function}/{mutation.kind}-{digest}",
        "repository": item.name, "package": item.package, "tree": f"repos/{item.name}",
        "overlay": {path: mutated, file: reduced}, "test_patch": {file: full},
        "fail_to_pass": list(checked.fail_to_pass), "pass_to_pass": list(checked.pass_to_pass), "hidden": hidden,
        "issue": issue, "gold_patch": gold, "roots": [item.source_root], "test_deps": list(item.test_deps),
        "cpu_seconds": cpu_limit, "split": split, **({"held_out": held} if held else {}),
        "difficulty": {"mutation_size": mutation.size, "call_depth": min(depths) if depths else None,
                       "kind": mutation.kind},
        "mutation": {"path": path, "function": mutation.function, "lines": [mutation.first_line, mutation.last_line]},
        "validation": checked.to_dict(),
    }


def generate(sandbox, items: Iterable[RepoInput], pool: str | os.PathLike, *, held_out: Iterable[str] = (),
             seed: int = 0, per_function: int = 2, max_tasks: int | None = None, runs: int = RUNS,
             log: Callable[[str], None] = print) -> dict:
    """Generate every repository's tasks into `pool`; returns the stats. tasks.jsonl and stats.json are rewritten
    (each under its final name only once whole) as each task validates, so an interrupted run keeps every task it
    validated; a repository cut short shows `"interrupted": true` in stats.json."""
    pool = Path(pool)
    pool.mkdir(parents=True, exist_ok=True)
    stats = Stats()
    rows: list[dict] = []
    held_out = tuple(held_out)
    for item in items:
        def emit(row: dict, counts: dict, name: str = item.name) -> None:
            rows.append(row)
            stats.repositories[name] = {**counts, "interrupted": True}
            _write(pool, rows, stats)

        try:
            got, counts = generate_repository(sandbox, item, pool, held_out=held_out, seed=seed,
                                              per_function=per_function, max_tasks=max_tasks, runs=runs, log=log,
                                              emit=emit)
        except ValueError as exc:  # a repository this machine cannot build tasks from: said, and the rest go on
            log(f"{item.name}: refused: {exc}")
            stats.repositories[item.name] = {"refused": str(exc)[:300]}
            continue
        splits: dict[str, int] = {}
        for row in got:
            key = row["split"] + (f"/{row['held_out']}" if row.get("held_out") else "")
            splits[key] = splits.get(key, 0) + 1
        stats.repositories[item.name] = {**counts, "splits": splits}
        _write(pool, rows, stats)  # the repository's whole counts (its rows were written as they validated)
    return stats.to_dict()


def _write(pool: Path, rows: list[dict], stats: Stats) -> None:
    for name, text in (("tasks.jsonl", "".join(json.dumps(r, sort_keys=True) + "\n" for r in rows)),
                       ("stats.json", json.dumps(stats.to_dict(), indent=2, sort_keys=True) + "\n")):
        partial = pool / f".{name}.partial"
        partial.write_text(text, encoding="utf-8")
        os.replace(partial, pool / name)
