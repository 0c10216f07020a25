"""`coderl eval --turns N` on a tiny random model: pass@1 after every turn, the episodes in samples.jsonl,
tasks without hidden tests left out and named, and the CLI flag."""

import json

import pytest

pytest.importorskip("torch")

from coderl.base.config import ConfigError, build  # noqa: E402
from coderl.cli import main  # noqa: E402
from coderl.eval.run import EvalConfig, run_eval  # noqa: E402
from tests.models.tiny import tiny_llama  # noqa: E402

TASKS = "tests/fixtures/tasks/humaneval_small.jsonl"


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory):
    return str(tiny_llama(tmp_path_factory.mktemp("model")))


@pytest.fixture(scope="module")
def run(model_dir, tmp_path_factory):
    out = tmp_path_factory.mktemp("run")
    cfg = build(EvalConfig, dict(out=str(out), model=model_dir, tasks=TASKS, format="chat", max_new_tokens=6,
                                 workers=2, turns=3, feedback_tokens=30))
    summary = run_eval(cfg, log=lambda m: None)
    rows = [json.loads(line) for line in (out / "samples.jsonl").read_text().splitlines()]
    return summary, rows, out


def test_summary_reports_pass_at_1_after_every_turn(run):
    summary, rows, _ = run
    repair = summary["repair"]
    assert repair["turns"] == 3 and set(repair["pass_at_1_after_turn"]) == {"1", "2", "3"}
    for t, value in repair["pass_at_1_after_turn"].items():
        lo, hi = repair["pass_at_1_after_turn_ci95"][t]
        assert lo <= value <= hi
    assert summary["pass_at_k"]["pass@1"] == pytest.approx(repair["pass_at_1_after_turn"]["3"])
    assert repair["turns_used"] == pytest.approx(sum(len(r["turns"]) for r in rows) / len(rows))


def test_every_sample_row_holds_its_episode(run):
    from coderl.tasks import load_tasks
    from coderl.tasks.visibility import split_tests

    _, rows, _ = run
    tasks = {t.task_id: t for t in load_tasks(TASKS).tasks}
    for r in rows:
        assert 1 <= len(r["turns"]) <= 3
        *earlier, last = r["turns"]
        assert all(t["feedback"] and t["visible_passed"] is False for t in earlier)
        assert last["feedback"] == ""
        assert r["passed"] == last["hidden_passed"]
        hidden = [t.id for t in split_tests(tasks[r["task_id"]]).hidden]
        assert [t["id"] for t in r["tests"]] == hidden  # the verdict is the hidden tests' only


def test_tasks_without_hidden_tests_are_left_out_and_named(run):
    summary, rows, _ = run
    named = set(summary["repair"]["no_hidden_tasks"])
    assert named.isdisjoint(r["task_id"] for r in rows)
    assert summary["num_tasks"] + len(named) == 3


def test_results_md_has_the_turn_lines(run):
    *_, out = run
    assert "pass@1 after turn 3" in (out / "results.md").read_text()


def test_turns_with_the_completion_format_is_one_line(model_dir, tmp_path):
    with pytest.raises(ConfigError, match="chat format"):
        build(EvalConfig, dict(out=str(tmp_path), model=model_dir, tasks=TASKS, format="completion", turns=2))


def test_cli_flag(model_dir, tmp_path, capsys):
    code = main(["eval", "--out", str(tmp_path / "cli"), "--model", model_dir, "--tasks", TASKS, "--format", "chat",
                 "--max-new-tokens", "4", "--workers", "2", "--turns", "2"])
    assert code in (0, None)
    assert "pass@1 after turn 2" in capsys.readouterr().out


def test_no_task_with_hidden_tests_is_one_line(model_dir, tmp_path):
    one_test = tmp_path / "one.jsonl"  # a single test: nothing left to hide
    one_test.write_text(json.dumps({"task_id": "One/0", "prompt": "def f(x):\n", "entry_point": "f",
                                    "test": "def check(candidate):\n    assert candidate(1) == 1\n"}) + "\n")
    cfg = build(EvalConfig, dict(out=str(tmp_path / "v"), model=model_dir, tasks=str(one_test), format="chat",
                                 max_new_tokens=2, workers=2, turns=2))
    with pytest.raises(ConfigError, match="no task of --tasks .* has a hidden test"):
        run_eval(cfg, log=lambda m: None)
