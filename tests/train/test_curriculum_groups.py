"""Rates that fit fresh tasks (issue 55): the curriculum keeps running pass rates per task and per group
(composition, then level), a never-drawn task plans with its group's rate, and the whole state is one
object that checkpoints and resumes exactly."""

import json
import random
import shutil
from types import SimpleNamespace

import pytest

from coderl.train.sources.curriculum import Curriculum, task_groups


def task(composition=None, level=None, family=None, fmt="synthetic"):
    meta = {"format": fmt}
    if composition:
        meta["composition"] = composition
    if family:
        meta["family"] = family
    if level is not None:
        meta["level"] = level
    return SimpleNamespace(metadata=meta, source=fmt)


AB, AC = ["add_each", "reverse"], ["add_each", "sort"]
TASKS = [task(AB, 2), task(AB, 2), task(AC, 2), task(["reverse"], 1), task()]


def test_groups_are_composition_then_level():
    assert task_groups(TASKS[0]) == ("synthetic/L2/add_each_then_reverse", "synthetic/L2")
    assert task_groups(task(family="strings", level=1, fmt="corpus")) == ("corpus/strings", "corpus/L1")
    assert task_groups(TASKS[4]) == ()


def test_a_fresh_task_inherits_its_composition_then_its_level():
    c = Curriculum(TASKS)
    assert c.planning_rates() == [None] * 5
    c.record(0, 0.5)  # task 0 (A->B): its own rate, A->B's and L2's become 0.5
    assert c.rate(0) == 0.5 and c.rate(1) == 0.5  # task 1 was never drawn: A->B's rate
    assert c.rate(2) == 0.5  # A->C unseen: the level's
    assert c.rate(3) is None and c.rate(4) is None  # level 1 / no group: unknown
    c.record(2, 1.0)  # A->C 1.0; L2 = 0.5 * 0.5 + 0.5 * 1.0 = 0.75
    c.record(0, 0.0)  # task 0: 0.25; A->B: 0.25; L2: 0.5 * 0.75 + 0 = 0.375
    assert c.rates == [0.25, None, 1.0, None, None]
    assert c.group_rates == {"synthetic/L2/add_each_then_reverse": 0.25, "synthetic/L2": 0.375,
                             "synthetic/L2/add_each_then_sort": 1.0}
    assert c.rate(1) == 0.25
    assert c.metrics() == {"curriculum/frontier": 0.5, "curriculum/seen": 0.4, "curriculum/inherited": 0.2}


def test_measured_rates_seed_the_groups_with_their_mean():
    c = Curriculum(TASKS, [0.25, None, 0.75, None, 1.0])
    # A->B: 0.25 (task 0 only); A->C: 0.75; L2: mean(0.25, 0.75) = 0.5
    assert c.rate(1) == 0.25 and c.group_rates["synthetic/L2"] == 0.5 and c.rate(3) is None


def test_a_solved_composition_is_drawn_at_the_floor_weight():
    c = Curriculum(TASKS)
    c.record(0, 1.0)  # A->B and L2 solved: tasks 1 (A->B) and 2 (A->C, by its level) inherit 1.0, weight `floor`
    counts = [0] * 5
    for seed in range(2000):
        for i in c.draw(1, 0.0, random.Random(seed)):
            counts[i] += 1
    assert counts[:3] == [0, 0, 0] and min(counts[3:]) > 0  # floor 0: only when nothing else is left


def test_state_round_trips_and_reads_the_old_list():
    c = Curriculum(TASKS)
    c.record(0, 0.5)
    c.record(3, 0.0)
    d = Curriculum(TASKS)
    d.load_state_dict(json.loads(json.dumps(c.state_dict())))
    assert d.planning_rates() == c.planning_rates() and d.group_rates == c.group_rates
    d.load_state_dict([0.5, None, None, 0.0, None])  # a checkpoint from before issue 55: task rates only
    assert d.rates == [0.5, None, None, 0.0, None] and d.group_rates == {}
    with pytest.raises(ValueError, match="of 2 tasks for a run of 5"):
        d.load_state_dict({"rates": [0.5, None], "groups": {}})


torch = pytest.importorskip("torch")


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory):
    from tests.models.tiny import tiny_llama

    return tiny_llama(tmp_path_factory.mktemp("model"))


def rows(run):
    return [json.loads(line) for line in open(run / "metrics.jsonl")]


def test_a_generated_pool_run_plans_by_composition_and_resumes_exactly(model_dir, tmp_path):
    """Synthetic tasks and the curriculum: after the first step, tasks never drawn plan
    with their composition's or level's rate; a run resumed from step 2 repeats steps 3-4 exactly (draws,
    rewards, the curriculum's whole state)."""
    from coderl.train.checkpoint import load_trainer_state
    from coderl.train.rl.policy_gradient import train
    from tests.train.helpers import base_config, learning_metrics, varied_reward

    kw = dict(tasks="synthetic:level=1-2,n=12,split=train", algo="grpo", steps=4, save_steps=2,
              curriculum_floor=0.1, prompts_per_step=2, samples_per_prompt=2)
    ref = tmp_path / "ref"
    train(base_config(model_dir, ref, **kw), log=lambda m: None, reward_override=varied_reward)
    first = rows(ref)[0]
    assert first["curriculum/inherited"] > 0  # drawn tasks' compositions and levels now give fresh tasks a rate
    state = load_trainer_state(str(ref / "checkpoints" / "step-4"))["curriculum"]
    assert set(state) == {"rates", "groups"} and any(k.count("/") == 2 for k in state["groups"])
    cut = tmp_path / "cut"
    shutil.copytree(ref, cut)
    for name in ("step-3", "step-4"):
        shutil.rmtree(cut / "checkpoints" / name, ignore_errors=True)
    train(base_config(model_dir, cut, resume=True, **kw), log=lambda m: None, reward_override=varied_reward)
    for a, b in zip(rows(ref), rows(cut), strict=True):
        assert learning_metrics(a) == pytest.approx(learning_metrics(b), abs=1e-6), a["step"]
    assert load_trainer_state(str(cut / "checkpoints" / "step-4"))["curriculum"] == state
