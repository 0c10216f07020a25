"""The pipeline report and `coderl compare` on fake run directories: several evaluation sets side by side,
intervals over clusters (compositions) with their counts printed, and the subset of evaluation tasks no
training reference solves (from overlap.json, the union over stages)."""

import json
import os

import pytest

from coderl.cli import main
from coderl.eval.passk import summarize
from coderl.eval.render import render_terminal
from coderl.pipeline.report import build_report


def fake_eval(run_dir, label, method, passed, *, tokens=10, clusters=None, spec="x"):
    """An eval run directory: `passed` is, per task, the list of its samples' verdicts; `clusters` (task -> cluster)
    as `coderl eval` writes it for synthetic tasks."""
    os.makedirs(run_dir)
    ids = [f"{spec}/{i}" for i in range(len(passed))]
    with open(os.path.join(run_dir, "samples.jsonl"), "w") as f:
        for task, verdicts in zip(ids, passed):
            for p in verdicts:
                f.write(json.dumps({"task_id": task, "passed": p, "gen_tokens": tokens}) + "\n")
    n = len(passed[0])
    rates = [sum(v) / n for v in passed]
    summary = {"model": label, "label": label, "method": method, "num_tasks": len(ids), "avg_gen_tokens": float(tokens),
               "pass_at_k": summarize({t: (n, sum(v)) for t, v in zip(ids, passed)}).to_dict()["pass_at_k"],
               "pass_at_k_ci95": {"pass@1": [0.0, 1.0]},
               "tasks_all_passed": sum(r == 1 for r in rates), "samples_per_task": n,
               "clusters": len(set((clusters or {}).get(t, t) for t in ids)),
               "tasks": {"spec": spec, "split": "all", "seed": 0}, "config": {"tasks": spec, "split": "all"}}
    if clusters:
        summary["task_clusters"] = clusters
    with open(os.path.join(run_dir, "summary.json"), "w") as f:
        json.dump(summary, f)


# heldout: 4 tasks x 5 samples in 2 compositions (H/0, H/1: a+b; H/2, H/3: c+d)
HELDOUT = {"H/0": "a+b", "H/1": "a+b", "H/2": "c+d", "H/3": "c+d"}
BASE_H = [[False] * 5, [False] * 5, [True] * 5, [False] * 5]  # pass rates 0, 0, 1, 0
SFT_H = [[True] * 5, [True] * 3 + [False] * 2, [True] * 5, [False] * 5]  # 1, 0.6, 1, 0


@pytest.fixture
def pipeline_dir(tmp_path):
    """base-eval, eval/sft and eval/run on the main set `T` (4 tasks, 1 sample, no clusters) and on evals/heldout;
    overlap.json: the SFT data solves T/0, the RL run's tasks T/3."""
    fake_eval(tmp_path / "base-eval", "base", "Base", [[False], [True], [False], [False]], spec="T")
    fake_eval(tmp_path / "eval" / "sft", "sft", "SFT", [[True], [True], [False], [True]], spec="T")
    fake_eval(tmp_path / "eval" / "run", "run", "GRPO", [[True], [True], [False], [False]], spec="T")
    held = tmp_path / "evals" / "heldout"
    fake_eval(held / "base-eval", "base", "Base", BASE_H, tokens=10, clusters=HELDOUT, spec="H")
    fake_eval(held / "eval" / "sft", "sft", "SFT", SFT_H, tokens=6, clusters=HELDOUT, spec="H")
    fake_eval(held / "eval" / "run", "run", "GRPO", SFT_H, tokens=6, clusters=HELDOUT, spec="H")
    overlap = [{"stage": stage, "tasks": "train", "split": "all", "eval_tasks": "T", "eval_split": "all",
                "solved": solved, "of": 4, "training_tasks": 1, "undecided": []}
               for stage, solved in (("sft", ["T/0"]), ("rl/run", ["T/3"]))]
    (tmp_path / "overlap.json").write_text(json.dumps(overlap))
    build_report(str(tmp_path), log=lambda m: None)
    return tmp_path


def test_every_set_has_its_table_and_paired_differences_over_clusters(pipeline_dir):
    data = json.loads((pipeline_dir / "report" / "report.json").read_text())
    assert [s["name"] for s in data["sets"]] == ["eval", "heldout"]
    main_set, held = data["sets"]
    assert [r["source"] for r in held["table"]] == ["evals/heldout/base-eval/summary.json",
                                                    "evals/heldout/eval/sft/summary.json",
                                                    "evals/heldout/eval/run/summary.json"]
    assert [(r["clusters"], r["tasks"]) for r in held["table"]] == [(2, 4)] * 3
    d = next(d for d in held["paired_differences"] if (d["after"], d["before"]) == ("eval/sft", "base-eval"))
    # per-task differences 1, 0.6, 0, 0: mean 0.4.  Composition a+b sums 1.6 over 2 tasks, c+d 0: a resample of
    # 2 compositions is a+b twice (1/4: 3.2/4 = 0.8), once (1/2: 0.4) or never (1/4: 0), so the 2.5% and 97.5%
    # percentiles are 0 and 0.8 exactly.
    assert (d["tasks"], d["clusters"], d["better"], d["worse"], d["same"]) == (4, 2, 2, 0, 2)
    assert d["delta"] == pytest.approx(0.4) and d["ci95"] == pytest.approx([0.0, 0.8])
    # unbiased pass@5 beside pass@1: base passes only H/2 (5/5); SFT 5/5, 3/5 (2 failures < 5: pass@5 = 1), 5/5, 0/5
    assert d["pass_at_k"] == [{"pass@1": 0.25, "pass@5": 0.25}, {"pass@1": pytest.approx(0.65), "pass@5": 0.75}]
    assert d["avg_gen_tokens"] == [10, 6] and d["length_delta"] == -4 and d["length_ci95"] == [-4, -4]
    assert held["excluded"] is None  # no training stage was checked against this set


def test_the_subset_no_training_reference_solves(pipeline_dir):
    data = json.loads((pipeline_dir / "report" / "report.json").read_text())
    main_set = data["sets"][0]
    assert main_set["excluded"] == ["T/0", "T/3"]  # the union over the two stages
    rows = [d for d in main_set["paired_differences"] if (d["after"], d["before"]) == ("eval/sft", "base-eval")]
    assert [(r["tasks"], r["excluded"]) for r in rows] == [(4, 0), (2, 2)]
    assert rows[0]["delta"] == pytest.approx(0.5)  # 0->1 on T/0 and T/3
    assert rows[1]["delta"] == 0 and rows[1]["pass@1"] == [0.5, 0.5]  # T/1 and T/2: both the same on each side


def test_cluster_counts_are_printed_beside_every_interval(pipeline_dir):
    md = (pipeline_dir / "report" / "report.md").read_text()
    data = json.loads((pipeline_dir / "report" / "report.json").read_text())
    assert "## Δ pass@1 on every evaluation set" in md
    assert "| eval/sft vs base-eval | +0.500 [" in md and "(4 / 4) | " in md  # side by side: clusters / tasks
    assert "+0.400 [+0.000, +0.800] (2 / 4)" in md
    assert "| eval/sft vs base-eval, without the 2 tasks a training reference solves | 2 / 2 |" in md
    assert "| 2 / 4 | 0.250 → 0.650 | +0.400 [+0.000, +0.800] | yes |" not in md  # the interval touches 0
    assert "| 2 / 4 | 0.250 → 0.650 | +0.400 [+0.000, +0.800] | no | 2 / 0 / 2 | pass@5 0.250 → 0.750 |" in md
    terminal = render_terminal(data)
    assert "eval/sft vs base-eval: Δ pass@1 +0.400 [+0.000, +0.800] over 2 clusters of 4 tasks" in terminal
    assert "eval/sft vs base-eval, without the 2 tasks a training reference solves: Δ pass@1 +0.000" in terminal


def test_compare_pairs_every_run_with_the_first_and_leaves_out_the_excluded_tasks(tmp_path, capsys):
    fake_eval(tmp_path / "a", "base", "Base", BASE_H, tokens=10, clusters=HELDOUT, spec="H")
    fake_eval(tmp_path / "b", "sft", "SFT", SFT_H, tokens=6, clusters=HELDOUT, spec="H")
    (tmp_path / "solved.txt").write_text("# solved by a training reference\nH/0\n")
    assert main(["compare", str(tmp_path / "a"), str(tmp_path / "b"), "--exclude", str(tmp_path / "solved.txt"),
                 "--out", str(tmp_path / "cmp"), "--no-plot"]) == 0
    md = (tmp_path / "cmp.md").read_text()
    assert "| `sft` | SFT | 0.650 [0.000, 1.000] | 2 / 4 | pass@5 0.750 | 3 / 4 | 6.00 |" in md
    assert "| sft vs base | 2 / 4 | 0.250 → 0.650 | +0.400 [+0.000, +0.800] |" in md
    # without H/0: differences 0.6, 0, 0 over a+b (0.6, 1 task) and c+d (0, 2 tasks): mean 0.2
    assert "| sft vs base, without the 1 task a training reference solves | 2 / 3 | 0.333 → 0.533 | +0.200 [" in md
    assert "Paired differences against `base`" in capsys.readouterr().out
    assert "Warning" not in md


def test_compare_says_when_the_runs_differ_in_tasks_or_settings(tmp_path, capsys):
    fake_eval(tmp_path / "a", "base", "Base", BASE_H, spec="H")
    fake_eval(tmp_path / "b", "sft", "SFT", [[True] * 3, [False] * 3], spec="G")
    assert main(["compare", str(tmp_path / "a"), str(tmp_path / "b"), "--out", str(tmp_path / "cmp"),
                 "--no-plot"]) == 0
    assert ("Warning: the runs differ in tasks (base H, sft G); samples per task (base 5, sft 3): their numbers are "
            "not measured alike.") in capsys.readouterr().out
