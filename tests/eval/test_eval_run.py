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


def test_compare_tells_apart_runs_that_share_a_label(model_dir, tmp_path):
    """issue 102: two runs labelled alike (the default label is the model's name) were two identical rows."""
    _eval(model_dir, tmp_path / "a", label="tiny")
    _eval(model_dir, tmp_path / "b", label="tiny", method="GRPO")
    runs = [str(tmp_path / "a"), str(tmp_path / "b"), str(tmp_path / "a")]
    text = run_compare(CompareConfig(runs=runs, out=str(tmp_path / "cmp"), plot=False))
    a, b = tmp_path / "a", tmp_path / "b"
    assert f"| `tiny ({a})` |" in text and f"| `tiny ({b})` | GRPO |" in text and f"| `tiny ({a}) #2` |" in text
    assert f"against `tiny ({a})`" in text


def test_compare_table_and_plot(model_dir, tmp_path):
    _eval(model_dir, tmp_path / "a", label="tiny", method="base")
    _eval(model_dir, tmp_path / "b", label="tiny-again", method="GRPO")
    text = run_compare(CompareConfig(runs=[str(tmp_path / "a"), str(tmp_path / "b")], out=str(tmp_path / "cmp")))
    assert "| `tiny` | base |" in text and "| `tiny-again` | GRPO |" in text
    assert (tmp_path / "cmp.png").stat().st_size > 1000
    from coderl.base.config import ConfigError
    from coderl.eval import compare

    again = CompareConfig(runs=[str(tmp_path / "a"), str(tmp_path / "b")], out=str(tmp_path / "cmp"))
    with pytest.raises(ConfigError, match=r"already holds .*cmp.md, .*cmp.png; pass --overwrite"):
        run_compare(again)
    with pytest.raises(ConfigError, match="is --exclude"):  # an output that is an input: refused, untouched
        run_compare(CompareConfig(runs=[str(tmp_path / "a")], out=str(tmp_path / "x"), exclude=str(tmp_path / "x.md"),
                                  overwrite=True))
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir() if p.is_file()}

    def broken(summaries, path):
        open(path, "w").write("half a plot")
        raise KeyboardInterrupt

    compare_plot, compare.plot = compare.plot, broken
    try:  # a failed comparison leaves the earlier one, and no folder it made
        for out in (tmp_path / "cmp", tmp_path / "new" / "cmp"):
            with pytest.raises(KeyboardInterrupt):
                run_compare(CompareConfig(runs=again.runs, out=str(out), overwrite=True))
    finally:
        compare.plot = compare_plot
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir() if p.is_file()} == before
    assert not (tmp_path / "new").exists()
    run_compare(CompareConfig(runs=again.runs, out=str(tmp_path / "cmp"), overwrite=True))


def test_greedy_with_several_samples_is_rejected(model_dir, tmp_path):
    from coderl.base.config import ConfigError

    with pytest.raises(ConfigError, match="--samples"):
        EvalConfig(out=str(tmp_path), model=model_dir, samples=4, temperature=0.0)


def test_pass_at_1_without_tamper_counts_caught_samples_as_failures(tmp_path):
    """Beside the plain pass@1, `coderl eval` reports the figure with every sample the judge caught tampering
    (a judge-observed note) counted as failed; courtesy notes count as they are."""
    from coderl.eval.chunks import sample_rows
    from coderl.eval.run import _write_run, format_markdown, format_summary
    from coderl.rollout.types import Sample
    from coderl.sandbox.types import ExecutionResult, Status
    from coderl.tasks import load_tasks

    taskset = load_tasks(TASKS)
    tasks = taskset.tasks[:2]
    cfg = build(EvalConfig, dict(out=str(tmp_path), model="m", tasks=TASKS, samples=2, temperature=1.0))
    rows = []
    for task, notes in ((tasks[0], [[], ["exit_called"]]), (tasks[1], [["patched_builtins"], []])):
        for tamper in notes:
            sample = Sample(task_id=task.task_id, group=0, prompt="", raw_output="x", completion="x",
                            gen_tokens=(1, 2), code_tokens=(1,), truncated=False, format_ok=True)
            rows.append((sample, ExecutionResult(status=Status.PASSED, tamper=list(tamper))))
    summary = _write_run(cfg, taskset, tasks, sample_rows(*zip(*rows)), "full", {"load": 0, "generation": 1, "total": 1}, 8, None)
    assert summary["pass_at_k"]["pass@1"] == 1.0 and summary["samples_caught"] == 1
    assert summary["pass_at_1_without_tamper"] == pytest.approx((1 / 2 + 2 / 2) / 2)
    assert "pass@1 without tamper: 0.7500  (1 sample(s)" in format_summary(summary)
    assert summary["difficulty"] == {"never": 0.0, "sometimes": 0.0, "always": 1.0}
    assert "| pass@1 without tamper |" in (tmp_path / "results.md").read_text() and "0.750" in format_markdown(
        summary, {t.task_id: [2, 2] for t in tasks}, {t.task_id: [2, 2] for t in tasks})


def test_difficulty_map_by_hand():
    from coderl.eval.run import difficulty_map

    counts = {"a": [16, 0], "b": [16, 3], "c": [16, 16], "d": [16, 0], "e": [0, 0]}  # e: no sample, left out
    assert difficulty_map(counts) == {"never": 0.5, "sometimes": 0.25, "always": 0.25}


def test_an_earlier_evaluation_is_replaced_only_with_overwrite(model_dir, tmp_path, capsys):
    _eval(model_dir, tmp_path / "run")
    before = {p.name: p.read_text() for p in (tmp_path / "run").iterdir()}
    args = ["eval", "--out", str(tmp_path / "run"), "--model", model_dir, "--tasks", TASKS, "--format", "completion",
            "--max-new-tokens", "8", "--workers", "2"]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"--out {tmp_path / 'run'}: already holds " in err and "--overwrite" in err, err
    assert {p.name: p.read_text() for p in (tmp_path / "run").iterdir()} == before
    assert main(args + ["--overwrite", "--label", "again"]) == 0
    assert json.loads((tmp_path / "run" / "summary.json").read_text())["label"] == "again"
    assert sorted(p.name for p in (tmp_path / "run").iterdir()) == ["results.md", "samples.jsonl", "summary.json"]


def test_a_failed_evaluation_leaves_nothing_it_made(model_dir, tmp_path, monkeypatch):
    """A model that fails to load, or an interrupt while the samples are checked: no --out folder left."""
    assert main(["eval", "--out", str(tmp_path / "a" / "run"), "--model", str(tmp_path / "no-model"),
                 "--tasks", TASKS]) == 2
    from coderl.rollout import repair

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(repair, "collect_episodes", interrupted)
    assert main(["eval", "--out", str(tmp_path / "b"), "--model", model_dir, "--tasks", TASKS, "--format",
                 "completion", "--max-new-tokens", "8", "--workers", "2"]) == 130
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("sampling", [{}, {"dtype": "bfloat16"}, {"samples": 2, "temperature": 1.0, "seed": 5}],
                         ids=["greedy", "greedy-bf16", "sampled"])
def test_an_interrupted_evaluation_resumes_to_the_uninterrupted_one(model_dir, tmp_path, monkeypatch, sampling):
    """Ctrl-C while the third chunk generates keeps the finished chunks in samples.jsonl.partial (and only that);
    a kill that cut its last line short loses that line only; --resume (refused with a changed setting; on the
    command line the interrupted run's settings, unless given) regenerates the rest chunk by chunk with the rows
    and seeds of the uninterrupted run, which it then equals sample for sample."""
    import coderl.rollout.generation as generation

    kw = dict(batch_size=sampling.get("samples", 1), **sampling)  # one task a chunk: 3 chunks
    _eval(model_dir, tmp_path / "whole", **kw)
    generate, calls = generation.generate, []

    def interrupted(*args, **kwargs):
        calls.append(kwargs["seed"])
        if len(calls) == 3:
            raise KeyboardInterrupt
        return generate(*args, **kwargs)

    monkeypatch.setattr(generation, "generate", interrupted)
    with pytest.raises(KeyboardInterrupt):
        _eval(model_dir, tmp_path / "cut", **kw)
    monkeypatch.setattr(generation, "generate", generate)
    partial = tmp_path / "cut" / "samples.jsonl.partial"
    assert [p.name for p in (tmp_path / "cut").iterdir()] == [partial.name]
    head, *chunks = [json.loads(line) for line in partial.read_text().splitlines()]
    assert head["batch_size"] == kw["batch_size"] and [(c["start"], c["end"]) for c in chunks] == [(0, 1)]
    with partial.open("a") as f:
        f.write('{"start": 1, "end": 2, "seconds": 0.1, "rows": [{"task_')  # a kill in the middle of a line
    args = ["eval", "--out", str(tmp_path / "cut"), "--model", model_dir, "--tasks", TASKS, "--format", "completion",
            "--max-new-tokens", "8", "--workers", "2"] + [f"--{k.replace('_', '-')}={v}" for k, v in kw.items()]
    assert main(args) == 2  # without --resume: refused, kept
    assert main(args + ["--resume", "--max-new-tokens", "9"]) == 2 and partial.exists()
    assert main(["eval", "--out", str(tmp_path / "cut"), "--resume", "--label", "resumed"]) == 0  # its own settings
    strip = [[{k: v for k, v in r.items() if k not in TIMING} for r in _rows(tmp_path / d)] for d in ("whole", "cut")]
    assert strip[0] == strip[1]
    assert sorted(p.name for p in (tmp_path / "cut").iterdir()) == ["results.md", "samples.jsonl", "summary.json"]
    summary = json.loads((tmp_path / "cut" / "summary.json").read_text())
    assert summary["label"] == "resumed" and summary["pass_at_k"] == json.loads(
        (tmp_path / "whole" / "summary.json").read_text())["pass_at_k"]
    seconds = summary["seconds"]  # issue 102: the kept chunk's generation is in the total too
    assert seconds["load"] + seconds["generation"] <= seconds["total"] + 0.02, seconds


def test_resume_needs_an_interrupted_evaluation(model_dir, tmp_path, capsys):
    args = ["eval", "--out", str(tmp_path / "run"), "--model", model_dir, "--tasks", TASKS, "--format", "completion",
            "--max-new-tokens", "8", "--workers", "2", "--resume"]
    assert main(args) == 2 and "holds no interrupted evaluation" in capsys.readouterr().err
    assert not (tmp_path / "run").exists()
    _eval(model_dir, tmp_path / "run")
    assert main(args) == 2 and "its evaluation is finished: --overwrite" in capsys.readouterr().err
    assert main(args[:-1]) == 2  # without --resume
    err = capsys.readouterr().err
    assert "already holds samples.jsonl, summary.json, results.md; pass --overwrite to replace it" in err, err
    assert "--resume" not in err  # issue 102: a finished evaluation has nothing to resume
