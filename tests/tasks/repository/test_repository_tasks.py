"""Repository tasks end to end on the fixture repository: generated tasks validate and their references grade FULL
through the task kind (`coderl check --reference`'s path), the verdict follows SWE-bench's rule, an agent's working
copy is graded as its diff from the base, and nothing of a task's fix is readable from its episode."""

import base64
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from coderl.sandbox.types import ExecutionRequest, ExecutionResult, Limits, Mode, Status, TestOutcome, file_bytes
from coderl.tasks import load_tasks
from coderl.tasks.repository.grade import grading_request, submission_files, verdict
from coderl.tasks.repository.task import repository_of


def test_the_pool_loads_through_the_spec_grammar_with_its_splits(fixture_pool, fixture_tasks):
    every = load_tasks(f"repo:{fixture_pool}")
    assert [t.task_id for t in every] == [t.task_id for t in fixture_tasks]
    rows = [json.loads(line) for line in (fixture_pool / "tasks.jsonl").read_text().splitlines()]
    for split in ("train", "valid", "test"):
        count = sum(r["split"] == split for r in rows)
        if count:  # (an empty split is refused in one line, as for every source)
            assert len(load_tasks(f"repo:{fixture_pool}@{split}")) == count
    task = fixture_tasks[0]
    repo = repository_of(task)
    assert task.kind == "repository" and task.tests and all(t.check.value == "record" for t in task.tests)
    assert repo.hidden and set(repo.hidden) <= {t.id for t in task.tests if t.hidden}
    for row in rows:  # the issue names no hidden test and says nothing of how the bug was made
        names = {h.split("::")[-1].split("[")[0] for h in row["hidden"]}
        assert not any(re.search(rf"(?<!\w){n}(?!\w)", row["issue"]) for n in names), row["issue"]
        assert "mutat" not in row["issue"].lower()


def test_every_reference_grades_full_and_the_base_grades_no(fixture_tasks, repo_sandbox):
    futures = [(t, repo_sandbox.submit(t.build_request(t.reference_solution))) for t in fixture_tasks]
    bases = [(t, repo_sandbox.submit(t.build_request(""))) for t in fixture_tasks[:3]]
    for task, future in futures:
        result = future.result()
        assert verdict(repository_of(task), result)["status"] == "FULL", (task.task_id, result.message)
        assert result.passed and not result.caught
    for task, future in bases:
        got = verdict(repository_of(task), future.result())
        assert got["status"] == "NO" and got["f2p_fraction"] == 0.0


def test_coderl_check_reference_is_full_on_every_task(fixture_pool, tmp_path):
    out = tmp_path / "check.jsonl"
    done = subprocess.run([sys.executable, "-m", "coderl", "check", "--tasks", f"repo:{fixture_pool}", "--reference",
                           "--out", str(out)], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert rows and all(r["passed"] for r in rows), [(r["task_id"], r["message"]) for r in rows if not r["passed"]]


def _result(outcomes, tamper=()):
    """A run's outcomes, with its tripwire recorded failed as planted (its outcome PASSED: `grade.tripwire_held`)."""
    tests = [TestOutcome(i, Status.PASSED if ok else Status.FAILED) for i, ok in outcomes.items()]
    return ExecutionResult(status=Status.FAILED, tests=[*tests, TestOutcome("test_wire.py::test_wire", Status.PASSED)],
                           tamper=list(tamper))


def test_the_verdict_is_swe_bench_s_rule(fixture_tasks):
    import dataclasses

    repo = dataclasses.replace(repository_of(fixture_tasks[0]), fail_to_pass=("a", "b", "c", "d"),
                               pass_to_pass=("p", "q"))
    # 4 F2P, 2 P2P: all pass -> FULL, 1.0; 3 of 4 with P2P -> PARTIAL 0.75; a P2P failing -> NO, 0.0
    assert verdict(repo, _result(dict(a=1, b=1, c=1, d=1, p=1, q=1)))["status"] == "FULL"
    partial = verdict(repo, _result(dict(a=1, b=1, c=1, d=0, p=1, q=1)))
    assert (partial["status"], partial["f2p_fraction"]) == ("PARTIAL", 0.75)
    broken = verdict(repo, _result(dict(a=1, b=1, c=1, d=1, p=1, q=0)))
    assert (broken["status"], broken["f2p_fraction"]) == ("NO", 0.0)
    none = verdict(repo, _result(dict(a=0, b=0, c=0, d=0, p=1, q=1)))
    assert (none["status"], none["f2p_fraction"]) == ("NO", 0.0)
    missing = verdict(repo, _result(dict(a=1, b=1, c=1, p=1, q=1)))  # d absent from the report: failed
    assert missing["status"] == "PARTIAL"
    forged = verdict(repo, _result(dict(a=1, b=1, c=1, d=1, p=1, q=1), tamper=["forged_pass"]))
    assert (forged["status"], forged["f2p_fraction"]) == ("NO", 0.0)
    unwired = _result(dict(a=1, b=1, c=1, d=1, p=1, q=1))
    unwired.tests.pop()  # no tripwire on record: the records were not all the reporter's
    assert verdict(repo, unwired)["status"] == "NO"


def test_an_episode_s_working_copy_is_graded_as_its_diff_from_the_base(fixture_tasks, repo_sandbox):
    task = fixture_tasks[0]
    repo = repository_of(task)
    overlay = {p: ({"delete": True} if t is None else t) for p, t in repo.overlay.items()}
    sb, name = repo_sandbox, "episode-grading"
    first = sb.run(ExecutionRequest(Mode.COMMAND, argv=("sh", "-c", "git init -q . && mkdir -p junk/__pycache__ && "
                                                        "echo x > junk/__pycache__/m.cpython-311.pyc && echo new > "
                                                        "notes.txt"), tree=repo.tree, files=overlay, episode=name))
    assert first.exit_code == 0, first.stderr
    unfixed = submission_files(repo, sb.snapshot_episode(name))
    assert set(unfixed) == {"notes.txt"}  # .git and bytecode are never part of a submission
    edit = sb.run(ExecutionRequest(Mode.COMMAND, argv=("git", "apply", "fix.patch"), episode=name,
                                   files={"fix.patch": file_bytes(task.reference_solution.encode())}))
    assert edit.exit_code == 0, edit.stderr
    files = submission_files(repo, sb.snapshot_episode(name))
    sb.close_episode(name)
    changed = next(iter(repo.overlay))  # the changed module, the overlay's first file
    assert changed in files and base64.b64decode(files[changed]["data"]) == (Path(repo.tree) / changed).read_bytes()
    assert verdict(repo, sb.run(grading_request(repo, files=files)))["status"] == "FULL"
    assert verdict(repo, sb.run(grading_request(repo, files=unfixed)))["status"] == "NO"


SEARCH = r'''
import os, sys, json
needles = [bytes.fromhex(h) for h in json.load(open("needles.json"))]
found, files = set(), 0
for top in sys.argv[1:]:
    for dirpath, dirs, names in os.walk(top):
        dirs[:] = [d for d in dirs if os.path.join(dirpath, d) not in ("/proc", "/sys", "/dev")]
        for name in names:
            path = os.path.join(dirpath, name)
            try:
                if os.path.islink(path) or os.path.getsize(path) > 8 << 20:
                    continue
                data = open(path, "rb").read()
            except OSError:
                continue
            files += 1
            for i, n in enumerate(needles):
                if n in data:
                    found.add((i, path))
print(json.dumps({"files": files, "found": sorted(found)}))
'''


def _needles(task) -> list[bytes]:
    """What of the fix a reader could find (`generate.fix_needles`): the original function whole, and each hunk of
    the gold patch as the fix leaves it."""
    from coderl.tasks.repository.generate import fix_needles

    repo, where = repository_of(task), task.metadata["mutation"]
    original = (Path(repo.tree) / where["path"]).read_text()
    return [n.encode() for n in fix_needles(original, where["lines"][0], where["lines"][1], task.reference_solution)]


@pytest.mark.parametrize("where", ["/sandbox", "/env", "/tmp", "/var/tmp", "/dev/shm", "/usr/local", "ENV_PATHS"])
def test_nothing_of_a_fix_is_readable_from_its_episode(fixture_tasks, repo_sandbox, where):
    # Every generated task's fix (the original lines the bug replaced, with their context) is searched for in its
    # working copy, its environment, the private temp places and every folder of the interpreter's sys.path the
    # view shows (where a mutated package could also be installed); the whole file system: tests marked slow.
    tops = [where]
    if where == "ENV_PATHS":
        tops = sorted({p for p in sys.path if p.startswith(("/usr", "/root", "/work", "/opt", "/home")) and
                       Path(p).is_dir()})
    for task in fixture_tasks:
        repo = repository_of(task)
        needles = _needles(task)
        assert needles, task.task_id
        overlay = {p: ({"delete": True} if t is None else t) for p, t in repo.overlay.items()}
        result = repo_sandbox.run(ExecutionRequest(
            Mode.COMMAND, argv=(sys.executable, "-I", "-c", SEARCH, *tops), tree=repo.tree,
            environment=repo.environment, limits=Limits(cpu_seconds=120),
            files={**overlay, "needles.json": json.dumps([n.hex() for n in needles])}))
        assert result.exit_code == 0, result.stderr[-500:]
        report = json.loads(result.stdout)
        assert report["found"] == [], (task.task_id, report["found"])
        if where != "ENV_PATHS":
            continue
        assert report["files"] > 100  # the search did read the interpreter's folders
        break  # the interpreter's folders are the same for every task: once


@pytest.mark.slow
def test_nothing_of_a_fix_is_readable_anywhere_in_the_view(fixture_tasks, repo_sandbox):
    for task in fixture_tasks:
        repo = repository_of(task)
        overlay = {p: ({"delete": True} if t is None else t) for p, t in repo.overlay.items()}
        result = repo_sandbox.run(ExecutionRequest(
            Mode.COMMAND, argv=(sys.executable, "-I", "-c", SEARCH, "/"), tree=repo.tree,
            environment=repo.environment, limits=Limits(cpu_seconds=600),
            files={**overlay, "needles.json": json.dumps([n.hex() for n in _needles(task)])}))
        assert json.loads(result.stdout)["found"] == [], task.task_id


def test_an_interrupted_generation_keeps_every_task_it_validated(repo_sandbox, tmp_path):
    """Rows are written as they validate: a run stopped in the middle of a repository leaves a loadable pool with
    what it had, its stats marking the repository interrupted (a long repository once lost 93 minutes whole)."""
    from coderl.tasks.repository.generate import RepoInput, generate
    from coderl.tasks.repository.task import load_repository_tasks
    from tests.tasks.repository.conftest import FIXTURE

    pool = tmp_path / "pool"

    class StopsAfterTwoTasks:
        def _stop(self):
            written = pool / "tasks.jsonl"
            if written.exists() and len(written.read_text().splitlines()) >= 2:
                raise KeyboardInterrupt

        def run(self, request):
            self._stop()
            return repo_sandbox.run(request)

        def submit(self, request):
            self._stop()
            return repo_sandbox.submit(request)

    with pytest.raises(KeyboardInterrupt):
        generate(StopsAfterTwoTasks(), [RepoInput("minilib", FIXTURE, "minilib")], pool, per_function=1,
                 log=lambda line: None)
    rows = [json.loads(line) for line in (pool / "tasks.jsonl").read_text().splitlines()]
    assert len(rows) == 2 and len({r["task_id"] for r in rows}) == 2
    assert len(load_repository_tasks(str(pool))) == 2
    stats = json.loads((pool / "stats.json").read_text())
    assert stats["repositories"]["minilib"]["interrupted"] is True
    assert stats["repositories"]["minilib"]["validated"] == 2
    assert not list(pool.glob(".*.partial"))
