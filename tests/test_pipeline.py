"""`coderl pipeline` on a tiny random model: every stage and the report, a rerun that skips finished stages,
an interrupted RL run that resumes, an edited config refused with one line, `--dry-run` validation (unknown
field, bad value, leaks of evaluation tasks into training) without loading a model, and the bundled configs."""

import contextlib
import io
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("torch")

from coderl.cli import main  # noqa: E402
from tests.models.tiny import tiny_llama  # noqa: E402

TASKS = "tests/fixtures/tasks/humaneval_small.jsonl"
ROOT = Path(__file__).resolve().parents[1]


def pipeline_yaml(model_dir, out, *, rl_extra="", allow_overlap=True) -> str:
    """Base eval on 2 fixture tasks x 4 tokens, SFT of 2 optimizer steps, one GRPO run of 1 step."""
    return f"""\
out: {out}
model: {model_dir}
format: completion
device: cpu               # every stage: the numbers and stamps below are the CPU's, whatever the machine has
seed: 0
allow_eval_overlap: {str(allow_overlap).lower()}
eval:
  tasks: {TASKS}
  limit: 2
  max_new_tokens: 4
  workers: 2
sft:
  data: {TASKS}
  split: all
  epochs: 0.67            # round(0.67 x 3 examples) = 2 examples = 2 optimizer steps of 1
  gradient_accumulation: 1
  learning_rate: 1e-2     # YAML reads this as a string; float fields accept it
  max_length: 256
  progress: false
rl:
  - name: grpo
    method: GRPO
    algo: grpo
    tasks: {TASKS}
    eval_tasks: null
    steps: 1
    prompts_per_step: 2
    samples_per_prompt: 2
    max_new_tokens: 4
    max_total_sequence_length: 512
    workers: 2
    progress: false
{rl_extra}"""


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory):
    return str(tiny_llama(tmp_path_factory.mktemp("model")))


@pytest.fixture(scope="module")
def finished(model_dir, tmp_path_factory):
    """(config path, output dir) of one complete pipeline run."""
    root = tmp_path_factory.mktemp("pipeline")
    config = root / "pipeline.yaml"
    config.write_text(pipeline_yaml(model_dir, root / "out"))
    stdout = io.StringIO()
    with contextlib.redirect_stdout(stdout):
        assert main(["pipeline", "--config", str(config)]) == 0
    (root / "stdout.txt").write_text(stdout.getvalue())
    return config, root / "out"


def one_line_error(capsys, argv) -> str:
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("coderl pipeline: error: ") and "\n" not in err, err
    return err


# ---------------------------------------------------------------------------------------------
# running


def test_every_stage_and_the_report(finished):
    _, out = finished
    for stage in ("base-eval", "eval/sft", "eval/grpo"):
        assert (out / stage / "summary.json").is_file() and (out / stage / "pipeline_stage.json").is_file()
    assert (out / "sft" / "adapter" / "adapter_model.safetensors").is_file()
    assert (out / "rl" / "grpo" / "checkpoints" / "step-1" / "adapter_model.safetensors").is_file()
    report = out / "report"
    for name in ("report.md", "report.json", "pass1_vs_length.png", "curves-grpo.png"):
        assert (report / name).stat().st_size > 0, name
    data = json.loads((report / "report.json").read_text())
    assert [r["method"] for r in data["sets"][0]["table"]] == ["Base", "SFT (LoRA)", "GRPO"]
    assert [r["checkpoint"] for r in data["sets"][0]["table"]][1:] == ["sft/adapter", "rl/grpo/checkpoints/step-1"]
    for row in data["sets"][0]["table"]:  # every number is the one in the summary.json the row cites
        summary = json.loads((out / row["source"]).read_text())
        assert row["pass@1"] == summary["pass_at_k"]["pass@1"] and row["tasks"] == summary["num_tasks"] == 2
        assert row["avg_gen_tokens"] == summary["avg_gen_tokens"]
    assert [(d["after"], d["before"]) for d in data["sets"][0]["paired_differences"]] == [
        ("eval/sft", "base-eval"), ("eval/grpo", "base-eval"), ("eval/grpo", "eval/sft")]
    assert all(d["tasks"] == 2 and d["ci95"][0] <= d["delta"] <= d["ci95"][1] for d in data["sets"][0]["paired_differences"])
    md = (report / "report.md").read_text()
    assert "| sft/adapter | SFT (LoRA) |" in md and "[eval/grpo/summary.json](../eval/grpo/summary.json)" in md
    assert "![" in md and "curves-grpo.png" in md
    # the training stages train on the evaluation tasks (allowed here): the behaviour check says so
    overlap = json.loads((out / "overlap.json").read_text())
    assert [(r["stage"], r["of"], len(r["solved"])) for r in overlap] == [("sft", 2, 2), ("rl/grpo", 2, 2)]
    assert "**Overlap: sft's training tasks" in md and "not a held-out result" in md
    plan = json.loads((out / "plan.json").read_text())
    assert [s["name"] for s in plan["stages"]] == ["base-eval", "sft", "eval/sft", "rl/grpo", "eval/grpo"]
    assert plan["stages"][3]["config"]["model"] == "OUT/sft/adapter"  # RL starts from the SFT adapter


def test_the_log_has_every_stage_s_progress(finished):
    """pipeline.log holds the RL stage's line per step (its config says `progress: false`: no bar, still news), and
    stdout no progress bar."""
    _, out = finished
    log = (out / "pipeline.log").read_text()
    assert " step 1/1 reward " in log and " tok/s " in log, log
    assert "step 1/1" not in (out.parent / "stdout.txt").read_text()


def test_the_terminal_shows_the_table_and_the_curves(finished):
    _, out = finished
    shown = (out.parent / "stdout.txt").read_text()
    data = json.loads((out / "report" / "report.json").read_text())
    for row in data["sets"][0]["table"]:
        assert f"{row['checkpoint']}  " in shown or shown.count(row["checkpoint"]) >= 1
        assert f"{row['passed']}/{row['tasks']}" in shown
    assert "eval/grpo vs base-eval: Δ pass@1" in shown
    curve = next(line for line in shown.splitlines() if line.strip().startswith("reward/total"))
    assert any(ch in curve for ch in "▁▂▃▄▅▆▇█") and "->" in curve
    assert shown.rstrip().splitlines()[-1].startswith("done: 5 stages")


def test_rerun_skips_finished_stages(finished, capsys):
    config, out = finished
    before = {p: p.stat().st_mtime_ns for p in out.glob("**/summary.json")}
    assert main(["pipeline", "--config", str(config)]) == 0
    err = capsys.readouterr().err
    assert err.count(", skipped") == 5
    assert {p: p.stat().st_mtime_ns for p in out.glob("**/summary.json")} == before


def test_a_stage_made_by_other_code_is_kept_but_named(finished, tmp_path, capsys):
    from coderl.pipeline import code_version

    config, out = finished
    moved = tmp_path / "moved"
    shutil.copytree(out, moved)
    stamp_path = moved / "sft" / "pipeline_stage.json"
    stamp = json.loads(stamp_path.read_text())
    assert stamp["code"] == code_version() and code_version().startswith("0.")
    stamp["code"] = "0.0.1+gdeadbeef"
    stamp_path.write_text(json.dumps(stamp))
    assert main(["pipeline", "--config", str(config), "--out", str(moved)]) == 0
    err = capsys.readouterr().err
    assert err.count(", skipped") == 5
    assert f"made by coderl 0.0.1+gdeadbeef, now {code_version()}" in err


def test_a_field_added_since_at_its_default_keeps_a_stage_done(finished, tmp_path, capsys):
    """A stamp written before coderl had a field (here: eval's `top_p`, sft's `weight_decay`, train's
    `log_kl`) still matches when the plan leaves that field at its default; set to something else, the
    stage is stale."""
    config, out = finished
    moved = tmp_path / "moved"
    shutil.copytree(out, moved)
    added = {"eval": ("top_p", 1.0), "sft": ("weight_decay", 0.0), "rl": ("log_kl", False)}
    removed = 0
    for stamp_path in moved.glob("**/pipeline_stage.json"):
        stamp = json.loads(stamp_path.read_text())
        name, default = added[stamp["kind"]]
        assert stamp["config"].pop(name) == default and stamp["config"]["device"] == "cpu"
        stamp_path.write_text(json.dumps(stamp))
        removed += 1
    assert removed == 5
    assert main(["pipeline", "--config", str(config), "--out", str(moved)]) == 0
    assert capsys.readouterr().err.count(", skipped") == 5
    edited = tmp_path / "edited.yaml"
    edited.write_text(config.read_text().replace("eval:\n", "eval:\n  top_p: 0.5\n", 1))
    assert main(["pipeline", "--config", str(edited), "--out", str(moved), "--dry-run"]) == 0
    assert "made with a different config (top_p: None -> 0.5)" in capsys.readouterr().out


def test_every_stage_gets_the_top_level_device_and_auto_picks_cuda_on_a_gpu(model_dir, tmp_path, monkeypatch):
    """On a GPU machine every stage of the bundled demo resolves to CUDA (evaluations, SFT, RL); a top-level
    `device:` reaches every stage that sets none, and a section's own device wins."""
    import torch

    from coderl.models import resolve_device
    from coderl.pipeline import load_plan

    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "is_bf16_supported", lambda *a, **k: True)  # the demo's dtype: auto asks
    demo = load_plan(str(ROOT / "configs" / "cpu-demo.yaml"), str(tmp_path / "demo"), check_tasks=False)
    assert {s.kind for s in demo.stages} == {"eval", "sft", "rl"} and demo.dtype == "bfloat16"
    assert {s.name: resolve_device(s.config.device) for s in demo.stages} == {s.name: "cuda" for s in demo.stages}
    config = tmp_path / "p.yaml"
    config.write_text(pipeline_yaml(model_dir, tmp_path / "out").replace("  max_length: 256\n",
                                                                          "  max_length: 256\n  device: auto\n"))
    plan = load_plan(str(config), check_tasks=False)
    assert {s.name: s.config.device for s in plan.stages} == {"base-eval": "cpu", "sft": "auto", "eval/sft": "cpu",
                                                              "rl/grpo": "cpu", "eval/grpo": "cpu"}


def test_a_stamp_that_recorded_cpu_matches_auto_where_auto_is_the_cpu(finished, tmp_path, capsys, monkeypatch):
    import torch

    config, out = finished
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    auto = tmp_path / "auto.yaml"
    auto.write_text(config.read_text().replace("device: cpu ", "device: auto "))
    assert main(["pipeline", "--config", str(auto), "--dry-run"]) == 0
    assert "a run would stop" not in capsys.readouterr().out
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)  # there auto is the GPU: a different run
    assert main(["pipeline", "--config", str(auto), "--dry-run"]) == 0
    assert "made with a different config (device: 'cpu' -> 'auto')" in capsys.readouterr().out


def test_a_stamp_recording_values_of_unused_options_keeps_a_stage_done(finished, tmp_path, capsys):
    """Stamps written before unused options became null (value head options without a value head, length
    options without a length penalty) recorded their defaults; the stage is still done."""
    config, out = finished
    moved = tmp_path / "moved"
    shutil.copytree(out, moved)
    stamp_path = moved / "rl" / "grpo" / "pipeline_stage.json"
    stamp = json.loads(stamp_path.read_text())
    assert stamp["config"]["value_coef"] is None and stamp["config"]["length_alpha"] is None
    stamp["config"].update(value_coef=0.5, value_clip=0.2, whiten_advantages=True, length_alpha=0.01,
                           length_penalty_on="all")
    stamp_path.write_text(json.dumps(stamp))
    assert main(["pipeline", "--config", str(config), "--out", str(moved)]) == 0
    assert capsys.readouterr().err.count(", skipped") == 5
    stamp["config"]["steps"] = 7  # a real difference still counts
    stamp_path.write_text(json.dumps(stamp))
    assert main(["pipeline", "--config", str(config), "--out", str(moved), "--dry-run"]) == 0
    assert "made with a different config (steps: 7 -> 1)" in capsys.readouterr().out


def test_interrupted_rl_run_resumes(finished, tmp_path, capsys):
    """Killed after its checkpoint but before its stamp: the RL run resumes (in a copied OUT: paths inside
    OUT are compared as OUT/..., so a moved directory still matches), its evaluation runs again."""
    config, out = finished
    moved = tmp_path / "moved"
    shutil.copytree(out, moved)
    (moved / "rl" / "grpo" / "pipeline_stage.json").unlink()
    shutil.rmtree(moved / "eval" / "grpo")
    assert main(["pipeline", "--config", str(config), "--out", str(moved)]) == 0
    err = capsys.readouterr().err
    assert "rl/grpo: resumes from step-1" in err and err.count(", skipped") == 3
    assert (moved / "eval" / "grpo" / "summary.json").is_file()


def test_interrupted_evaluation_and_sft_stages_resume(model_dir, tmp_path, capsys, monkeypatch):
    """Ctrl-C in the base evaluation's third chunk, then in SFT's second step: each stage goes on from what it
    kept (the finished chunk, the step-1 checkpoint) instead of starting again."""
    import coderl.rollout.generation as generation
    import coderl.train.sft.run as sft_module

    config = tmp_path / "pipeline.yaml"
    text = pipeline_yaml(model_dir, tmp_path / "out").split("rl:")[0]  # no RL
    config.write_text(text.replace("  workers: 2\n", "  workers: 2\n  limit: 3\n  batch_size: 1\n", 1)
                      .replace("  limit: 2\n", "", 1).replace("  progress: false\n", "  progress: false\n  save_steps: 1\n", 1))

    def fail_on(module, name, call):
        real, calls = getattr(module, name), []

        def wrapper(*args, **kwargs):
            calls.append(1)
            if len(calls) == call:
                raise KeyboardInterrupt
            return real(*args, **kwargs)

        monkeypatch.setattr(module, name, wrapper)

    fail_on(generation, "generate", 3)
    assert main(["pipeline", "--config", str(config)]) == 130
    monkeypatch.undo()
    assert (tmp_path / "out" / "base-eval" / "samples.jsonl.partial").is_file()
    fail_on(sft_module, "token_loss_sum", 2)
    assert main(["pipeline", "--config", str(config)]) == 130
    monkeypatch.undo()
    assert "--resume: 1/3 tasks kept" in capsys.readouterr().err
    assert main(["pipeline", "--config", str(config)]) == 0
    err = capsys.readouterr().err
    assert "checkpoints/step-1 at step 1" in err and "--resume" not in err, err[-3000:]
    rows = [json.loads(line) for line in open(tmp_path / "out" / "sft" / "metrics.jsonl")]
    assert [r["step"] for r in rows] == [1, 2]
    assert len(open(tmp_path / "out" / "base-eval" / "samples.jsonl").readlines()) == 3


def test_edited_config_is_refused_with_one_line(finished, model_dir, tmp_path, capsys):
    _, out = finished
    edited = tmp_path / "edited.yaml"
    edited.write_text(pipeline_yaml(model_dir, out).replace("epochs: 0.67", "epochs: 0.34"))
    err = one_line_error(capsys, ["pipeline", "--config", str(edited)])
    assert "sft: made with a different config (epochs: 0.67 -> 0.34)" in err
    for stage in ("sft", "eval/sft", "rl/grpo", "eval/grpo"):  # it and everything that starts from it
        assert str(out / stage) in err


def test_report_only_rebuilds_the_report(finished, capsys):
    _, out = finished
    (out / "report" / "report.md").unlink()
    assert main(["pipeline", "--report-only", "--out", str(out)]) == 0
    assert (out / "report" / "report.md").is_file()


# ---------------------------------------------------------------------------------------------
# --dry-run


@pytest.mark.parametrize("extra, message", [
    ("    clip_epz: 0.1\n", "rl[1] (ppo): unknown field 'clip_epz' (did you mean 'clip_eps'?)"),
    ("    clip_eps: -1.0\n", "rl[1] (ppo): --clip-eps=-1.0: expected a positive number"),
    ("    steps: many\n", "rl[1] (ppo): --steps='many': expected an integer"),
    ("    model: other\n", "rl[1] (ppo): field 'model' cannot be set here"),
    ("    eval_tasks: humaneavl\n", "rl[1] (ppo) eval_tasks: task spec 'humaneavl': no such file"),
    ("    measure_rates: 1\n", "rl[1] (ppo): measure_rates=1: expected samples a task, an integer >= 2"),
    ("    measure_rates: 4\n    split: train\n", "rl[1] (ppo): measure_rates=4: expected a run without split:"),
    ("    measure_rates: 4\n    pass_rates: x\n", "rl[1] (ppo): measure_rates=4: expected no pass_rates beside it"),
])
def test_dry_run_names_the_run_and_field(model_dir, tmp_path, capsys, extra, message):
    second = f"  - name: ppo\n    algo: ppo_critic_free\n    tasks: {TASKS}\n{extra}"
    config = tmp_path / "p.yaml"
    config.write_text(pipeline_yaml(model_dir, tmp_path / "out", rl_extra=second))
    err = one_line_error(capsys, ["pipeline", "--config", str(config), "--dry-run"])
    assert message in err
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("old, new, message", [
    ("  limit: 2", "  limt: 2", "eval: unknown field 'limt' (did you mean 'limit'?)"),
    ("  limit: 2", "  split: tst", "eval: --split='tst': expected one of all, train, valid, test"),
    ("  epochs: 0.67", "  epochs: -1", "sft: --epochs=-1.0: expected a positive number"),
    ("  epochs: 0.67", "  seed: 1", "sft: field 'seed' cannot be set here (set once at the top level"),
    ("seed: 0", "sed: 0", "unknown top-level field 'sed' (did you mean 'seed'?)"),
    ("seed: 0", "seed: 0\ndtype: float16", "dtype='float16': expected float32, bfloat16 or auto"),
    ("  epochs: 0.67", "  dtype: bfloat16", "sft: field 'dtype' cannot be set here (set once at the top level"),
    ("    steps: 1", "    steps: 1\n    steps: 2", "field 'steps' given twice"),
])
def test_dry_run_names_the_section_and_field(model_dir, tmp_path, capsys, old, new, message):
    config = tmp_path / "p.yaml"
    config.write_text(pipeline_yaml(model_dir, tmp_path / "out").replace(old, new, 1))
    assert message in one_line_error(capsys, ["pipeline", "--config", str(config), "--dry-run"])


EVALS = """\
evals:
  - name: heldout
    tasks: synthetic:level=1,n=12,split=test
    limit: null
  - name: sampled
    samples: 2
    temperature: 0.8
"""


def test_further_evaluation_sets_are_planned_for_every_checkpoint(model_dir, tmp_path, capsys):
    from coderl.pipeline import load_plan

    config = tmp_path / "p.yaml"
    config.write_text(pipeline_yaml(model_dir, tmp_path / "out") + EVALS)
    assert main(["pipeline", "--config", str(config), "--dry-run"]) == 0
    shown = capsys.readouterr().out
    assert (f"evaluation: {TASKS} split all (first 2): 2 tasks x 1 sample(s), greedy, max_new_tokens 4\n"
            "evaluation set heldout: synthetic:level=1,n=12,split=test split all: 12 tasks x 1 sample(s), greedy, "
            f"max_new_tokens 4\nevaluation set sampled: {TASKS} split all (first 2): 2 tasks x 2 sample(s), "
            "temperature 0.8, max_new_tokens 4\n") in shown
    plan = load_plan(str(config))
    assert [s.name for s in plan.stages] == [
        "base-eval", "base-eval@heldout", "base-eval@sampled", "sft", "eval/sft", "eval/sft@heldout",
        "eval/sft@sampled", "rl/grpo", "eval/grpo", "eval/grpo@heldout", "eval/grpo@sampled"]
    held = plan.stage("eval/grpo@heldout")
    assert held.dir == str(tmp_path / "out" / "evals" / "heldout" / "eval" / "grpo") and held.eval_set == "heldout"
    assert held.input_dir == plan.stage("eval/grpo").input_dir  # the same checkpoint: stale together
    sampled = plan.stage("eval/sft@sampled").config  # the `eval:` section's fields, but those the set gives
    assert (sampled.samples, sampled.temperature, sampled.limit, sampled.max_new_tokens, sampled.tasks) == \
        (2, 0.8, 2, 4, TASKS)
    assert plan.stage("base-eval@heldout").config.limit is None


@pytest.mark.parametrize("old, new, message", [
    ("    temperature: 0.8", "    temprature: 0.8", "evals[1] (sampled): unknown field 'temprature' (did you mean "
     "'temperature'?)"),
    ("  - name: heldout", "  - name: eval", "evals[0]: name='eval': expected a directory name"),
    ("  - name: sampled", "  - name: heldout", "evals[1]: name='heldout': used by an earlier set"),
    ("    samples: 2", "    samples: 2\n    model: x", "evals[1] (sampled): field 'model' cannot be set here"),
    ("    temperature: 0.8", "    temperature: 0", "evals[1] (sampled): --samples=2: expected 1 with --temperature 0"),
    ("split=test", "split=tset", "evals[0] (heldout): task spec 'synthetic:level=1,n=12,split=tset': "),
    ("evals:", "evals: heldout\nx:", "evals='heldout': expected a list of evaluation sets"),
])
def test_dry_run_names_the_evaluation_set_and_field(model_dir, tmp_path, capsys, old, new, message):
    config = tmp_path / "p.yaml"
    config.write_text(pipeline_yaml(model_dir, tmp_path / "out") + EVALS.replace(old, new, 1).split("\nx:")[0])
    assert message in one_line_error(capsys, ["pipeline", "--config", str(config), "--dry-run"])


def test_further_evaluation_sets_run_and_are_reported_side_by_side(model_dir, tmp_path):
    from coderl.pipeline import load_plan
    from coderl.pipeline.run import run_pipeline

    text = pipeline_yaml(model_dir, tmp_path / "out") + EVALS
    config = tmp_path / "p.yaml"
    config.write_text(text[: text.index("sft:")] + "sft: null\n" + text[text.index("rl:"):])
    report = run_pipeline(load_plan(str(config)), log=lambda m: None)
    data = json.loads((tmp_path / "out" / "report" / "report.json").read_text())
    assert [s["name"] for s in data["sets"]] == ["eval", "heldout", "sampled"]
    held = data["sets"][1]
    # 12 level-1 test tasks of the 8 level-1 test compositions: intervals resample the 8
    assert [(r["clusters"], r["tasks"]) for r in held["table"]] == [(8, 12), (8, 12)]
    (diff,) = held["paired_differences"]
    assert (diff["after"], diff["before"], diff["clusters"], diff["tasks"]) == ("eval/grpo", "base-eval", 8, 12)
    assert diff["sources"] == ["evals/heldout/base-eval/samples.jsonl", "evals/heldout/eval/grpo/samples.jsonl"]
    assert data["sets"][2]["table"][0]["pass_at_k"].keys() == {"pass@1"}  # n = 2: no standard k > 1
    summary = json.loads((tmp_path / "out" / "evals" / "heldout" / "base-eval" / "summary.json").read_text())
    assert summary["clusters"] == 8 and len(set(summary["task_clusters"].values())) == 8
    assert "over 8 clusters of 12 tasks" in (tmp_path / "out" / "evals" / "heldout" / "base-eval" / "results.md"
                                             ).read_text()
    md = open(report).read()
    assert "## Δ pass@1 on every evaluation set" in md and "(8 / 12)" in md
    plan = json.loads((tmp_path / "out" / "plan.json").read_text())
    assert [s.get("eval_set") for s in plan["stages"] if s["kind"] == "eval"] == [
        None, "heldout", "sampled", None, "heldout", "sampled"]


def test_measure_rates_evaluates_the_runs_start_on_its_tasks_before_it(model_dir, tmp_path):
    from coderl.pipeline import load_plan
    from coderl.pipeline.run import run_pipeline

    text = pipeline_yaml(model_dir, tmp_path / "out", rl_extra="    measure_rates: 2\n    temperature: 0.9\n")
    config = tmp_path / "p.yaml"
    config.write_text(text[: text.index("sft:")] + "sft: null\n" + text[text.index("rl:"):])
    plan = load_plan(str(config))
    assert [s.name for s in plan.stages] == ["base-eval", "rates/grpo", "rl/grpo", "eval/grpo"]
    rates, rl = plan.stages[1].config, plan.stages[2].config
    assert (rates.tasks, rates.samples, rates.temperature, rates.max_new_tokens, rates.model) == \
        (TASKS, 2, 0.9, 4, model_dir)
    assert rl.sampling.pass_rates == plan.stages[1].dir == str(tmp_path / "out" / "rates" / "grpo")
    lines = []
    report = run_pipeline(plan, log=lines.append)
    assert (tmp_path / "out" / "rates" / "grpo" / "samples.jsonl").is_file()
    assert any(line.startswith("pass rates from ") and "tasks measured" in line for line in lines)
    assert "grpo start" not in open(report).read()  # a measurement, not a checkpoint of the table


def test_without_sft_rl_starts_from_the_model(model_dir, tmp_path):
    from coderl.pipeline import load_plan

    text = pipeline_yaml(model_dir, tmp_path / "out")
    config = tmp_path / "p.yaml"
    config.write_text(text[: text.index("sft:")] + "sft: null\n" + text[text.index("rl:"):])
    plan = load_plan(str(config))
    assert [s.name for s in plan.stages] == ["base-eval", "rl/grpo", "eval/grpo"]
    assert plan.stages[1].config.model == model_dir and plan.stages[1].input_dir is None


def test_a_selecting_rl_run_is_evaluated_at_its_best_checkpoint_even_after_an_early_stop(model_dir, tmp_path, capsys):
    from coderl.pipeline import load_plan

    text = pipeline_yaml(model_dir, tmp_path / "out")
    text = text[: text.index("sft:")] + "sft: null\n" + text[text.index("rl:"):]
    text = text.replace("    eval_tasks: null\n    steps: 1", f"    eval_tasks: {TASKS}\n    eval_steps: 1\n"
                        "    eval_problems: 1\n    early_stop: 1\n    check_overlap: false\n    steps: 4")
    config = tmp_path / "p.yaml"
    config.write_text(text)
    stage = load_plan(str(config)).stages[-1]
    assert stage.name == "eval/grpo" and stage.config.model == str(tmp_path / "out" / "rl" / "grpo" / "best" / "adapter")
    with contextlib.redirect_stdout(io.StringIO()):
        assert main(["pipeline", "--config", str(config)]) == 0
    run = tmp_path / "out" / "rl" / "grpo"
    # the random tiny model passes nothing: the start (step 0) stays the best and step 1 stops the run
    assert json.loads((run / "best" / "best.json").read_text())["step"] == 0
    assert not (run / "checkpoints" / "step-4").exists()
    assert json.loads((tmp_path / "out" / "eval" / "grpo" / "summary.json").read_text())["model"] == stage.config.model
    # the report names the kept checkpoint and shows what the reward paid for (the watch's top samples)
    report = (tmp_path / "out" / "report" / "report.md").read_text()
    assert "grpo: the evaluated checkpoint is the one its selection kept, step 0 (the starting policy" in report
    assert "from `rl/grpo/best/best.json`" in report
    top = [json.loads(line) for line in open(run / "top_samples" / "step-1.jsonl")]
    assert "(from `rl/grpo/top_samples/step-1.jsonl`)" in report and f"`{top[0]['task_id']}`, reward" in report
    assert report.count("  ```python") == min(3, len(top))
    capsys.readouterr()
    with contextlib.redirect_stdout(io.StringIO()):  # the early-stopped run is done: a rerun skips all 3 stages
        assert main(["pipeline", "--config", str(config)]) == 0
    assert capsys.readouterr().err.count(", skipped") == 3


def test_training_on_evaluation_tasks_is_refused(model_dir, tmp_path, capsys):
    config = tmp_path / "p.yaml"
    config.write_text(pipeline_yaml(model_dir, tmp_path / "out", allow_overlap=False))
    err = one_line_error(capsys, ["pipeline", "--config", str(config), "--dry-run"])
    assert "sft: trains on 2 of the 2 evaluation tasks (e.g. Toy/0)" in err and "allow_eval_overlap" in err
    # issue 102: the sides that need the split are named, each with what it has now (`split: train` alone is not
    # enough while the evaluation takes every task)
    assert err.endswith("train on the train split (`split: train` under sft:, now all); evaluate on the test split "
                        "(`split: test` under eval:, now all), or set allow_eval_overlap: true"), err
    config.write_text(config.read_text().replace(f"  tasks: {TASKS}\n  limit: 2", f"  tasks: {TASKS}\n  split: test"))
    err = one_line_error(capsys, ["pipeline", "--config", str(config), "--dry-run"])
    assert err.endswith("evaluation tasks (e.g. Toy/0): train on the train split (`split: train` under sft:, now "
                        "all), or set allow_eval_overlap: true"), err  # the evaluation's side is split already


def test_an_rl_run_with_its_own_eval_tasks_is_refused_counting_the_evaluation_tasks(model_dir, tmp_path, capsys):
    config = tmp_path / "p.yaml"
    text = pipeline_yaml(model_dir, tmp_path / "out", allow_overlap=False)
    text = text.replace(f"  data: {TASKS}", "  data: easy").replace("    eval_tasks: null", f"    eval_tasks: {TASKS}")
    config.write_text(text)
    err = one_line_error(capsys, ["pipeline", "--config", str(config), "--dry-run"])
    # the count is of the pipeline's evaluation tasks, not of the characters of the run's eval_tasks spec
    assert "rl[0] (grpo): trains on 2 of the 2 evaluation tasks (e.g. Toy/0)" in err
    assert err.endswith(": add `split: train` to this run; evaluate on the test split (`split: test` under eval:, now "
                        "all), or use other tasks, or set allow_eval_overlap: true"), err


def test_rl_split_writes_the_source_rows(tmp_path):
    from coderl.pipeline import write_split
    from coderl.tasks import load_tasks

    path = str(tmp_path / "train.jsonl")
    assert write_split(TASKS, "train", 0, path) == 2
    assert [t.prompt for t in load_tasks(path).tasks] == [t.prompt for t in load_tasks(TASKS, "train", 0).tasks]
    source = (ROOT / TASKS).read_text().splitlines(keepends=True)
    assert all(line in source for line in open(path))  # the rows themselves, byte for byte


def test_dry_run_loads_no_model_and_writes_nothing(tmp_path):
    out = tmp_path / "out"
    code = ("import sys; from coderl.cli import main; "
            f"assert main(['pipeline', '--config', 'configs/cpu-demo.yaml', '--dry-run', '--out', {str(out)!r}]) == 0; "
            "loaded = [m for m in ('transformers', 'peft') if m in sys.modules]; assert not loaded, loaded")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    assert "rl/grpo" in proc.stdout and "no model loaded" in proc.stdout
    assert "--algo grpo" in proc.stdout and ", T 0.8, lr 0.0002, " in proc.stdout  # the demo's RL sampling
    assert not out.exists()


# cpu-full.yaml (`make reproduce-cpu`, never run by CI) in `make test-slow`: its dry run (the pool for SFT and 5 RL
# runs) is by far the slowest of the bundled configs' (32 s at nice 19 on 2 cores at load 3, where every other
# config's takes a few seconds; past the 300 s timeout under heavier load); every other one in `make test`.
SLOW_DRY_RUNS = {"cpu-full.yaml"}
# cpu-demo.yaml's dry run is test_dry_run_loads_no_model_and_writes_nothing's, in a process of its own;
# agent-cpu.yaml's reads a generated pool and the oracle's trajectories (scripts/agent_recipe.sh makes them): its dry
# run is tests/tasks/repository/test_agent_recipe.py's, on the fixture repository's pool
DRY_RUN_ELSEWHERE = {"cpu-demo.yaml", "agent-cpu.yaml"}


@pytest.mark.parametrize("name", [pytest.param(name, marks=pytest.mark.slow) if name in SLOW_DRY_RUNS else name
                                  for name in sorted(p.name for p in (ROOT / "configs").glob("*.yaml"))
                                  if name not in DRY_RUN_ELSEWHERE])
def test_bundled_configs_pass_dry_run(name, tmp_path, capsys):
    if name.startswith("verilog"):  # the dry run checks the toolchain is installed (a feature): skip without it
        from coderl.languages import get_runner
        from tests.conftest import require_binaries

        require_binaries(*get_runner("verilog").binaries)
    assert main(["pipeline", "--config", str(ROOT / "configs" / name), "--dry-run", "--out", str(tmp_path)]) == 0
    assert "dry run: every field validated" in capsys.readouterr().out


# ---------------------------------------------------------------------------------------------
# the report alone


def _fake_eval(run_dir, label, method, passed):
    """An eval run directory with one sample per task: summary.json and samples.jsonl."""
    os.makedirs(run_dir)
    n = len(passed)
    with open(os.path.join(run_dir, "samples.jsonl"), "w") as f:
        for i, p in enumerate(passed):
            f.write(json.dumps({"task_id": f"T/{i}", "passed": p, "gen_tokens": 10}) + "\n")
    summary = {"model": label, "label": label, "method": method, "pass_at_k": {"pass@1": sum(passed) / n},
               "pass_at_k_ci95": {"pass@1": [0.0, 1.0]}, "tasks_all_passed": sum(passed), "num_tasks": n,
               "avg_gen_tokens": 10.0, "samples_per_task": 1, "tasks": {"spec": "x", "split": "all", "seed": 0}}
    with open(os.path.join(run_dir, "summary.json"), "w") as f:
        json.dump(summary, f)


def test_paired_differences_from_samples(tmp_path):
    """Without plan.json the layout is discovered; the differences are the per-task means:
    base 1/4 passed, SFT 3/4 (+0.5: tasks 0 and 3 gained), RL 2/4 (+0.25 vs base, -0.25 vs SFT)."""
    from coderl.pipeline.report import build_report

    _fake_eval(tmp_path / "base-eval", "base", "Base", [False, True, False, False])
    _fake_eval(tmp_path / "eval" / "sft", "sft", "SFT", [True, True, False, True])
    _fake_eval(tmp_path / "eval" / "run", "run", "GRPO", [True, True, False, False])
    build_report(str(tmp_path), log=lambda m: None)
    data = json.loads((tmp_path / "report" / "report.json").read_text())
    diffs = {(d["after"], d["before"]): d for d in data["sets"][0]["paired_differences"]}
    assert diffs[("eval/sft", "base-eval")]["delta"] == pytest.approx(0.5)
    assert (diffs[("eval/sft", "base-eval")]["better"], diffs[("eval/sft", "base-eval")]["worse"]) == (2, 0)
    assert diffs[("eval/run", "base-eval")]["delta"] == pytest.approx(0.25)
    assert diffs[("eval/run", "eval/sft")]["delta"] == pytest.approx(-0.25)
    assert [r["source"] for r in data["sets"][0]["table"]] == ["base-eval/summary.json", "eval/sft/summary.json",
                                                    "eval/run/summary.json"]


def test_dtype_auto_resolves_once_to_what_this_machine_runs_natively(tmp_path):
    from coderl.models.load import fast_dtype
    from coderl.pipeline import load_plan

    cfg = tmp_path / "p.yaml"
    cfg.write_text("out: " + str(tmp_path / "out") + "\ndtype: auto\neval:\n  tasks: easy\n")
    plan = load_plan(str(cfg), check_tasks=False)
    assert plan.dtype == fast_dtype() and plan.dtype in ("float32", "bfloat16")


@pytest.mark.parametrize("native, noted", [("bfloat16", False), ("float32", True)])
def test_dtype_auto_on_a_cpu_without_native_bf16_says_the_run_is_slower(tmp_path, monkeypatch, native, noted):
    import torch

    from coderl.models import load as model_load
    from coderl.pipeline import load_plan

    monkeypatch.setattr(model_load, "fast_dtype", lambda: native)
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    cfg = tmp_path / "p.yaml"
    cfg.write_text("out: " + str(tmp_path / "out") + "\ndtype: auto\neval:\n  tasks: easy\n")
    notes = load_plan(str(cfg), check_tasks=False).notes
    assert any("neither AVX-512 BF16 nor AMX" in n for n in notes) == noted
    cfg.write_text("out: " + str(tmp_path / "out") + "\ndtype: float32\neval:\n  tasks: easy\n")
    assert not load_plan(str(cfg), check_tasks=False).notes  # asked for by name: nothing to say


def test_an_algo_preset_without_a_table_label_is_named_by_its_key(model_dir, tmp_path, monkeypatch):
    # The plan looked presets up in ALGO_LABELS and raised KeyError for a preset added without a label.
    from coderl.pipeline import ALGO_LABELS, load_plan

    monkeypatch.delitem(ALGO_LABELS, "grpo")
    config = tmp_path / "p.yaml"
    config.write_text(pipeline_yaml(model_dir, tmp_path / "out").replace("    method: GRPO\n", ""))
    plan = load_plan(str(config))
    rl = next(s for s in plan.stages if s.kind == "rl")
    assert rl.config.algo == "grpo" and rl.method.startswith("grpo")


def test_a_repair_pipeline_evaluates_and_trains_with_turns(model_dir, tmp_path):
    """`turns` in the eval section and in an rl run: every stage runs repair episodes (docs/repair.md)."""
    text = pipeline_yaml(model_dir, tmp_path / "out").replace("format: completion", "format: chat")
    text = text[: text.index("sft:")] + "sft: null\n" + text[text.index("rl:"):]
    text = text.replace("  max_new_tokens: 4\n", "  max_new_tokens: 4\n  turns: 2\n", 1)
    text = text.replace("    steps: 1", "    turns: 2\n    credit: improvement\n    feedback_tokens: 30\n    steps: 1")
    config = tmp_path / "p.yaml"
    config.write_text(text)
    with contextlib.redirect_stdout(io.StringIO()):
        assert main(["pipeline", "--config", str(config)]) == 0
    out = tmp_path / "out"
    for stage in ("base-eval", "eval/grpo"):
        summary = json.loads((out / stage / "summary.json").read_text())
        assert summary["repair"]["turns"] == 2 and set(summary["repair"]["pass_at_1_after_turn"]) == {"1", "2"}
    row = json.loads((out / "rl" / "grpo" / "metrics.jsonl").read_text().splitlines()[-1])
    assert "repair/pass_after_turn_2" in row and row["repair/turns_used"] >= 1


def test_a_stage_whose_training_tasks_solve_evaluation_tasks_is_refused_before_anything_runs(model_dir, tmp_path,
                                                                                           capsys):
    """The behaviour check (issue 55): synthetic level-1 training tasks solve 13 of the 76 easy tasks under other
    names and prompts (docs/decontamination.md), so an RL run on them, evaluated on easy, is one line, exit 2,
    before the base evaluation; the decontaminated pool is not refused."""
    config = tmp_path / "p.yaml"
    text = pipeline_yaml(model_dir, tmp_path / "out", allow_overlap=False)
    text = text.replace(f"  tasks: {TASKS}\n  limit: 2", "  tasks: easy\n  limit: 76")
    text = text[:text.index("sft:")] + "sft: null\n" + text[text.index("rl:"):]
    config.write_text(text.replace(f"    tasks: {TASKS}", "    tasks: synthetic:level=1,n=200,split=train"))
    with contextlib.redirect_stdout(io.StringIO()):
        assert main(["pipeline", "--config", str(config)]) == 2
    err = capsys.readouterr().err  # the plan, then the error
    assert "Traceback" not in err and err.strip().splitlines()[-1].startswith("coderl pipeline: error: ")
    assert "rl/grpo's training tasks (synthetic:level=1,n=200,split=train) solve 13 of its 76" in err, err
    assert "allow_eval_overlap: true" in err and not (tmp_path / "out" / "base-eval" / "summary.json").exists()
    from coderl.pipeline.plan import load_plan
    from coderl.pipeline.run import record_overlap

    config.write_text(text.replace(f"    tasks: {TASKS}", "    tasks: pool:n=400"))
    plan = load_plan(str(config))
    os.makedirs(plan.out, exist_ok=True)
    rows = record_overlap(plan, log=lambda m: None)
    assert [(r["stage"], r["solved"]) for r in rows] == [("rl/grpo", [])]
    # a run that never evaluates during training (no eval_steps) has no selection set to leak into, whatever its
    # eval_tasks default (corpus@valid, which the pool is not decontaminated against: make demo's case)
    config.write_text(text.replace(f"    tasks: {TASKS}", "    tasks: pool:n=400").replace("    eval_tasks: null\n", ""))
    rows = record_overlap(load_plan(str(config)), log=lambda m: None)
    assert [(r["stage"], r["eval_tasks"], r["solved"]) for r in rows] == [("rl/grpo", "easy", [])]


def test_a_stage_that_recorded_a_removed_setting_at_the_behaviour_that_stayed_is_not_stale():
    """Issue 62 removed `shared_prompt` (always on) and `async_worker_threads` (null): an RL stage stamped with
    them before is still done; recorded at another value it is stale, and the refusal names the setting."""
    from coderl.pipeline.state import _diff, _without_new_defaults
    from coderl.train.config import TrainConfig

    cfg = TrainConfig(out="run")
    new = {"steps": 4}
    old = {"steps": 4, "shared_prompt": True, "async_worker_threads": None}
    assert _without_new_defaults(new, old, cfg) == old
    changed = {"steps": 4, "shared_prompt": False}
    assert _without_new_defaults(new, changed, cfg) != changed
    assert _diff(changed, _without_new_defaults(new, changed, cfg)) == "shared_prompt: False -> None"
