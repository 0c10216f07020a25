"""Where a step's time goes (issue 55): the updater's clock, the time/* metrics of a run on the tiny model,
and bench/rl_step.py's step and stage splits of a metrics.jsonl."""

import importlib.util
import itertools
import json
import os
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from coderl.train import updater as updater_module  # noqa: E402
from coderl.train.rl.policy_gradient import train  # noqa: E402
from tests.models.tiny import tiny_llama  # noqa: E402
from tests.train.helpers import TASKS, base_config  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
# The disjoint parts of a synchronous step (bench/rl_step.py's STEP_PARTS less rollout_wait).
PARTS = ("generation", "sandbox_wait", "old_logprobs", "reference", "memory_probe", "forward", "backward", "optimizer")


def bench():
    spec = importlib.util.spec_from_file_location("rl_step", REPO / "bench" / "rl_step.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_clock_takes_a_nested_part_out_of_the_outer_one(monkeypatch):
    ticks = iter([0.0, 1.0, 3.0, 3.5, 10.0, 10.25])  # outer 0..3.5 holds inner 1..3; then forward 10..10.25
    monkeypatch.setattr(updater_module.time, "perf_counter", lambda: next(ticks))
    clock = updater_module.Clock()
    with clock("reference"):
        with clock("memory_probe"):
            pass
    with clock("forward"):
        pass
    assert clock.take() == {"time/reference": 1.5, "time/memory_probe": 2.0, "time/forward": 0.25}
    assert clock.take() == {}  # taken: the next step starts over


def test_a_run_logs_each_part_of_its_steps_and_its_evaluations(tmp_path):
    """GRPO with the KL logged (a reference pass), the memory budget's probes, dynamic sampling (a flat first
    round: every step refills once) and an evaluation at steps 0, 1, 2."""
    cfg = base_config(tiny_llama(tmp_path / "model"), tmp_path / "run", algo="grpo", log_kl=True, dynamic_sampling=1,
                      memory_budget="auto", eval_steps=1, eval_tasks=TASKS, eval_problems=2, check_overlap=False)
    rounds = itertools.count()

    def reward(results, samples, tasks):  # flat in each step's first round (a refill), varied in its refill
        return [0.0] * len(samples) if next(rounds) % 2 == 0 else [float(i % 2) for i in range(len(samples))]

    train(cfg, log=lambda m: None, reward_override=reward)
    rows = [json.loads(line) for line in open(os.path.join(cfg.out, "metrics.jsonl"))]
    assert [r["step"] for r in rows] == [0, 1, 2] and all(r["time/evaluation"] > 0 for r in rows)
    tolerance = 0.002 * len(PARTS)  # each part is rounded to the millisecond
    for r in rows[1:]:
        assert all(r[f"time/{p}"] >= 0 for p in PARTS), r
        assert sum(r[f"time/{p}"] for p in PARTS) <= r["time/step"] + tolerance
        assert sum(r[f"time/{p}"] for p in PARTS[2:]) <= r["time/optimisation"] + tolerance
        assert r["time/forward"] > 0 and r["time/backward"] > 0 and r["time/reference"] > 0
        assert r["sampling/extra_rounds"] == 1 and 0 < r["time/refill"] <= r["time/generation"] + r["time/sandbox_wait"]
    assert rows[1]["time/memory_probe"] > 0  # the first update probes one row of each kind of pass


def test_step_and_stage_splits_of_hand_made_rows():
    rl_step = bench()
    step = {"step": 1, "time/generation": 4.0, "time/sandbox_wait": 2.0, "time/reference": 1.0, "time/forward": 1.5,
            "time/backward": 1.0, "time/optimizer": 0.25, "time/memory_probe": 0.25, "time/optimisation": 4.0,
            "time/refill": 3.0, "sampling/extra_rounds": 1.0, "time/step": 10.5}
    assert rl_step.step_split(step) == {"generation": 4.0, "sandbox_wait": 2.0, "reference": 1.0, "memory_probe": 0.25,
                                        "forward": 1.5, "backward": 1.0, "optimizer": 0.25, "other": 0.5}
    waited = {"time/generation": 9.0, "time/rollout_wait": 1.0, "time/forward": 2.0, "time/step": 4.0}
    assert rl_step.step_split(waited) == {"rollout_wait": 1.0, "forward": 2.0, "other": 1.0}  # generated meanwhile

    rows = [{"step": 0, "eval/pass@1": 0.1, "time/evaluation": 6.0},
            step,
            {"step": 2, "time/step": 7.5, "time/refill": 0.0, "sampling/extra_rounds": 0.0, "time/evaluation": 4.0}]
    split = rl_step.stage_split(rows, wall=40.0)
    assert split == {"steps": {"count": 2, "seconds": 18.0, "share": 0.45},
                     "refill rounds": {"count": 1, "seconds": 3.0, "share": 0.075},
                     "reference pass": {"count": 1, "seconds": 1.0, "share": 0.025},
                     "selection evaluations": {"count": 2, "seconds": 10.0, "share": 0.25},
                     "other": {"count": None, "seconds": 12.0, "share": 0.3}}
