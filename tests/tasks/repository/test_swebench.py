"""SWE-bench's layout and SWE-bench's verdicts: a row in the published layout (JSON-text test lists) loads when its
repository is on this machine, its base is the commit's tree alone, the gold patch grades FULL; and coderl's verdict
agrees with SWE-bench's own grading code (`swebench.harness.grading`, recorded by scripts/swebench_verdicts.py) on
every generated case but the documented differences: an xfailed test (SWE-bench: passed) and a skipped
PASS_TO_PASS test (SWE-bench: maintained) have failed here (issue 97: skipped, xfailed, errored, missing all fail)."""

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from coderl.sandbox.types import ExecutionResult, Status, TestOutcome
from coderl.tasks import load_tasks
from coderl.tasks.repository.grade import Repository, verdict
from coderl.tasks.repository.task import repository_of
from coderl.tasks.types import TaskFormatError

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "repository"
BASE_COMMIT = "08519b1b8204d6c9d8361825e134d571adf3058d"


def build_repository(dest: Path) -> str:
    """The fixture repository with its bug, as one commit with a fixed identity and date: the row's base_commit."""
    shutil.copytree(FIXTURES / "minilib", dest)
    numbers = dest / "minilib" / "numbers.py"
    numbers.write_text(numbers.read_text().replace("    if value > high:\n        return high\n", ""))
    env = {"PATH": "/usr/bin:/bin", "GIT_CONFIG_NOSYSTEM": "1", "HOME": str(dest), "GIT_AUTHOR_NAME": "coderl",
           "GIT_AUTHOR_EMAIL": "coderl@example.invalid", "GIT_COMMITTER_NAME": "coderl",
           "GIT_COMMITTER_EMAIL": "coderl@example.invalid", "GIT_AUTHOR_DATE": "2026-01-01T00:00:00Z",
           "GIT_COMMITTER_DATE": "2026-01-01T00:00:00Z"}
    for args in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-q", "-m", "base"]):
        subprocess.run(["git", *args], cwd=dest, env=env, check=True)
    return subprocess.run(["git", "rev-parse", "HEAD"], cwd=dest, env=env, capture_output=True,
                          text=True).stdout.strip()


@pytest.fixture(scope="module")
def rows_file(tmp_path_factory, monkeypatch_module):
    tmp = tmp_path_factory.mktemp("swebench")
    monkeypatch_module.setenv("CODERL_CACHE", str(tmp / "cache"))
    assert build_repository(tmp / "repos" / "coderl-fixtures__minilib") == BASE_COMMIT
    shutil.copy(FIXTURES / "swebench_minilib.jsonl", tmp / "rows.jsonl")
    return tmp / "rows.jsonl"


@pytest.fixture(scope="module")
def monkeypatch_module():
    with pytest.MonkeyPatch.context() as mp:
        yield mp


def test_a_swebench_row_loads_with_its_base_alone_and_its_gold_patch_grades_full(rows_file, repo_sandbox):
    (task,) = load_tasks(f"repo:{rows_file}").tasks
    repo = repository_of(task)
    assert task.task_id == "coderl-fixtures__minilib-1" and task.prompt.startswith("clamp()")
    tree = Path(repo.tree)
    assert not (tree / ".git").exists() and "if value > high" not in (tree / "minilib/numbers.py").read_text()
    assert "test_clamp_far_high" not in (tree / "tests/test_numbers.py").read_text()  # the test patch's: hidden
    assert "tests/test_numbers.py::test_clamp_far_high" in repo.hidden
    assert "test_clamp_far_high" in repo.test_patch["tests/test_numbers.py"]
    gold = repo_sandbox.run(task.build_request(task.reference_solution))
    assert verdict(repo, gold)["status"] == "FULL", (gold.status, gold.message)
    base = repo_sandbox.run(task.build_request(""))
    assert verdict(repo, base)["status"] == "NO"


def test_a_row_whose_repository_is_not_here_is_one_line(tmp_path, monkeypatch):
    monkeypatch.setenv("CODERL_CACHE", str(tmp_path / "cache"))
    shutil.copy(FIXTURES / "swebench_minilib.jsonl", tmp_path / "rows.jsonl")
    with pytest.raises(TaskFormatError, match="repository 'coderl-fixtures/minilib' is not on this machine"):
        load_tasks(f"repo:{tmp_path / 'rows.jsonl'}")


def _ours(case: dict) -> str:
    repo = Repository(tree="/", environment="/", fail_to_pass=tuple(case["fail_to_pass"]),
                      pass_to_pass=tuple(case["pass_to_pass"]))
    tests = [TestOutcome(t, Status.PASSED if s == "passed" else Status.FAILED) for t, s in case["status"].items()
             if s != "missing"] + [TestOutcome("test_wire.py::test_wire", Status.PASSED)]  # the tripwire, held
    return verdict(repo, ExecutionResult(status=Status.FAILED, tests=tests))["status"]


def _documented(case: dict) -> bool:
    """A case whose outcome SWE-bench reads otherwise by design: an xfailed test, or a skipped PASS_TO_PASS test."""
    return any(s == "xfailed" for s in case["status"].values()) or any(
        case["status"][t] == "skipped" for t in case["pass_to_pass"])


def test_the_verdict_agrees_with_swebench_s_own_grading_code():
    recorded = json.loads((FIXTURES / "swebench_verdicts.json").read_text())
    cases = recorded["cases"]
    agree = [c for c in cases if _ours(c) == c["swebench"]]
    differ = [c for c in cases if _ours(c) != c["swebench"]]
    assert len(cases) == 400 and {c["swebench"] for c in cases} == {"FULL", "PARTIAL", "NO"}
    assert all(_documented(c) for c in differ), [c for c in differ if not _documented(c)][:3]
    # each difference is stricter here, never laxer: SWE-bench's FULL/PARTIAL read as PARTIAL/NO
    rank = {"NO": 0, "PARTIAL": 1, "FULL": 2}
    assert all(rank[_ours(c)] < rank[c["swebench"]] for c in differ)
    assert len(agree) >= 300, (len(agree), len(differ))


def test_swe_smith_s_branch_form_loads_the_branch_and_reverses_the_bug_patch(tmp_path, monkeypatch, repo_sandbox):
    # SWE-smith's layout: no base_commit; the task is a branch named for the instance, put there by `patch` (the
    # diff that introduced the bug), so the fix is that patch reversed
    monkeypatch.setenv("CODERL_CACHE", str(tmp_path / "cache"))
    clean = tmp_path / "repos" / "coderl-fixtures__minilib.08519b1b"
    shutil.copytree(FIXTURES / "minilib", clean)
    env = {"PATH": "/usr/bin:/bin", "GIT_CONFIG_NOSYSTEM": "1", "HOME": str(tmp_path), "GIT_AUTHOR_NAME": "c",
           "GIT_AUTHOR_EMAIL": "c@example.invalid", "GIT_COMMITTER_NAME": "c", "GIT_COMMITTER_EMAIL": "c@example.invalid"}
    git = lambda *a: subprocess.run(["git", *a], cwd=clean, env=env, check=True, capture_output=True)  # noqa: E731
    git("init", "-q", "-b", "main")
    git("add", "-A")
    git("commit", "-q", "-m", "clean")
    instance = "coderl-fixtures__minilib.08519b1b.func_pm_remove_cond__1"
    git("checkout", "-q", "-b", instance)
    numbers = clean / "minilib" / "numbers.py"
    numbers.write_text(numbers.read_text().replace("    if value > high:\n        return high\n", ""))
    bug = git("diff").stdout.decode()
    git("commit", "-qam", "bug")
    git("checkout", "-q", "main")  # the working tree is clean again: only the branch holds the bug
    row = {"instance_id": instance, "repo": "coderl-fixtures/minilib.08519b1b", "patch": bug,
           "FAIL_TO_PASS": ["tests/test_numbers.py::test_clamp_high"],
           "PASS_TO_PASS": ["tests/test_numbers.py::test_clamp_low"], "problem_statement": "clamp is off at the top"}
    (tmp_path / "rows.jsonl").write_text(json.dumps(row) + "\n")
    (task,) = load_tasks(f"repo:{tmp_path / 'rows.jsonl'}").tasks
    repo = repository_of(task)
    assert "if value > high" not in (Path(repo.tree) / "minilib/numbers.py").read_text()
    assert "+    if value > high:" in task.reference_solution  # the bug patch reversed
    assert verdict(repo, repo_sandbox.run(task.build_request(task.reference_solution)))["status"] == "FULL"
    assert verdict(repo, repo_sandbox.run(task.build_request(bug)))["status"] == "NO"  # does not apply: NO
