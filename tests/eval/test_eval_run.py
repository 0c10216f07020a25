"""`coderl eval` end to end on a tiny random model: files, reproducibility, and `coderl check` agreement."""

import json

import pytest

pytest.importorskip("torch")

from coderl.base.config import build  # noqa: E402
from coderl.cli import main  # noqa: E402
from coderl.eval.compare import CompareConfig, run_compare  # noqa: E402
from coderl.eval.run import EvalConfig, run_eval  # noqa: E402
from tests.models.tiny import tiny_llama  # noqa: E402

TASKS = "tests/fixtures/tasks/humaneval_small.jsonl"
TIMING = {"cpu_seconds", "wall_seconds", "max_rss_bytes"}


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory):
    return str(tiny_llama(tmp_path_factory.mktemp("model")))


def _eval(model_dir, out, **kw):
    cfg = build(EvalConfig, dict(out=str(out), model=model_dir, tasks=TASKS, format="completion", max_new_tokens=8,
                                 workers=2, **kw))
    return run_eval(cfg, log=lambda m: None)


def _rows(run_dir):
    return [json.loads(line) for line in (run_dir / "samples.jsonl").read_text().splitlines()]


def test_eval_writes_samples_summary_and_table(model_dir, tmp_path):
    summary = _eval(model_dir, tmp_path / "run")
    rows = _rows(tmp_path / "run")
    assert [r["task_id"] for r in rows] == ["Toy/0", "Toy/1", "Toy/2"]
    for r in rows:
        assert {"task_id", "prompt", "raw_output", "completion", "gen_tokens", "code_tokens", "truncated",
                "passed", "status", "tests"} <= set(r)
        assert 1 <= r["gen_tokens"] <= 8
    assert summary["num_tasks"] == 3 and summary["samples_per_task"] == 1 and summary["greedy"]
    assert set(summary["pass_at_k"]) == {"pass@1"}
    lo, hi = summary["pass_at_k_ci95"]["pass@1"]
    assert lo <= summary["pass_at_k"]["pass@1"] <= hi
    assert summary["avg_gen_tokens"] == pytest.approx(sum(r["gen_tokens"] for r in rows) / 3)
    assert summary["tasks"]["spec"] == TASKS and summary["tasks"]["split"] == "all"
    assert "| task | passed/n | avg tokens |" in (tmp_path / "run" / "results.md").read_text()


def test_same_seed_same_numbers(model_dir, tmp_path):
    _eval(model_dir, tmp_path / "a", samples=2, temperature=1.0, seed=3)
    _eval(model_dir, tmp_path / "b", samples=2, temperature=1.0, seed=3)
    strip = [[{k: v for k, v in r.items() if k not in TIMING} for r in _rows(tmp_path / d)] for d in "ab"]
    assert strip[0] == strip[1]


def test_check_reproduces_every_verdict(model_dir, tmp_path):
    _eval(model_dir, tmp_path / "run", samples=3, temperature=1.0)
    out = tmp_path / "check.jsonl"
    assert main(["check", "--tasks", TASKS, "--completions", str(tmp_path / "run" / "samples.jsonl"),
                 "--out", str(out)]) == 0
    rechecked = [json.loads(line) for line in out.read_text().splitlines()]
    original = _rows(tmp_path / "run")
    assert [(r["passed"], r["status"], [t["status"] for t in r["tests"]]) for r in rechecked] == \
           [(r["passed"], r["status"], [t["status"] for t in r["tests"]]) for r in original]


def test_compare_table_and_plot(model_dir, tmp_path):
    _eval(model_dir, tmp_path / "a", label="tiny", method="base")
    _eval(model_dir, tmp_path / "b", label="tiny-again", method="GRPO")
    text = run_compare(CompareConfig(runs=[str(tmp_path / "a"), str(tmp_path / "b")], out=str(tmp_path / "cmp")))
    assert "| `tiny` | base |" in text and "| `tiny-again` | GRPO |" in text
    assert (tmp_path / "cmp.png").stat().st_size > 1000


def test_greedy_with_several_samples_is_rejected(model_dir, tmp_path):
    from coderl.base.config import ConfigError

    with pytest.raises(ConfigError, match="--samples"):
        EvalConfig(out=str(tmp_path), model=model_dir, samples=4, temperature=0.0)
