"""Adaptive group sizes and the frontier pool in a training run (tiny random model): measured pass rates
start the curriculum, the step's sample budget goes to the tasks the allocation chooses (none to a solved
task), generation honours one group size per task, and dynamic sampling refills up to the budget."""

import json
from collections import Counter

import pytest

torch = pytest.importorskip("torch")

from coderl.train.policy_gradient import train  # noqa: E402
from tests.models.tiny import tiny_llama  # noqa: E402
from tests.train.helpers import base_config, varied_reward  # noqa: E402


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory):
    return tiny_llama(tmp_path_factory.mktemp("model"))


@pytest.fixture
def rates_file(tmp_path):
    """A `coderl eval` run with 8 samples a task: Toy/0 always passed, Toy/1 half the time, Toy/2 once."""
    rows = [{"task_id": "Toy/0", "passed": True}] * 8
    rows += [{"task_id": "Toy/1", "passed": i % 2 == 0} for i in range(8)]
    rows += [{"task_id": "Toy/2", "passed": i == 0} for i in range(8)]
    path = tmp_path / "eval-run" / "samples.jsonl"
    path.parent.mkdir()
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return str(path.parent)


def recording(calls):
    def reward(results, samples, tasks):
        calls.append(Counter(t.task_id for t in tasks))
        return varied_reward(results, samples, tasks)
    return reward


def test_the_budget_goes_where_the_measured_rates_say(model_dir, tmp_path, rates_file):
    calls = []
    lines = []
    cfg = base_config(model_dir, tmp_path / "run", steps=2, group_sizes="adaptive", pass_rates=rates_file,
                      curriculum_floor=0.0)  # budget 2 prompts x 3 samples = 6 rows; 3 tasks drawn
    m = train(cfg, log=lines.append, reward_override=recording(calls))
    assert any("1 never passed" not in line and "0 never passed, 2 sometimes (the frontier), 1 always" in line
               for line in lines)
    # step 1 by hand (algorithms/group_sizes.py): rates 1, 1/2, 1/8; per-sample gains: Toy/1 0->2 .25,
    # 2->4 .1875, Toy/2 0->2 .109, Toy/1 4->6 .047: Toy/1 4, Toy/2 2, the solved Toy/0 nothing
    assert calls[0] == Counter({"Toy/1": 4, "Toy/2": 2})
    assert all("Toy/0" not in c and sum(c.values()) <= 6 for c in calls)
    rows = [json.loads(line) for line in open(tmp_path / "run" / "metrics.jsonl")]
    assert rows[0]["sampling/groups"] == 2 and rows[0]["sampling/largest_group"] == 4
    assert rows[0]["advantage/nonzero_rows"] > 0 and all(
        isinstance(v, str) or v == v for r in rows for v in r.values())  # nothing NaN
    from coderl.train.checkpoint import load_trainer_state

    rates = load_trainer_state(str(tmp_path / "run" / "checkpoints" / "step-1"))["curriculum"]["rates"]
    # the random model passes nothing: Toy/1 and Toy/2 halve (momentum 0.5), Toy/0 keeps its measured 1
    assert rates == [1.0, 0.25, 0.0625]
    assert m["curriculum/frontier"] > 0


def test_dynamic_sampling_refills_up_to_the_sample_budget(model_dir, tmp_path, rates_file):
    calls = []

    def reward(results, samples, tasks):  # Toy/1's group is flat in the first round only
        calls.append(Counter(t.task_id for t in tasks))
        varied = varied_reward(results, samples, tasks)
        return [1.0 if t.task_id == "Toy/1" and len(calls) == 1 else r for t, r in zip(tasks, varied)]

    cfg = base_config(model_dir, tmp_path / "dyn", steps=1, group_sizes="adaptive", pass_rates=rates_file,
                      curriculum_floor=0.0, dynamic_sampling=2)
    m = train(cfg, log=lambda line: None, reward_override=reward)
    # round 1 keeps Toy/2's 2 rows; the rates are then Toy/1 1/4, Toy/2 1/16 (nothing passed), so the refill
    # round spends its budget of 6 on Toy/1 (per sample 0->2 .1875, 2->4 .152, 4->6 .071 beat Toy/2's .059);
    # its group varies, and 2 + 6 rows reach the budget: no third round
    assert calls == [Counter({"Toy/1": 4, "Toy/2": 2}), Counter({"Toy/1": 6})]
    assert m["sampling/extra_rounds"] == 1 and m["sampling/kept_groups"] == 2
    assert m["rollout/zero_variance_groups"] == 0.5  # the step's metrics are its first round's


def test_fixed_group_sizes_are_unchanged_by_a_map(model_dir, tmp_path, rates_file):
    calls = []
    cfg = base_config(model_dir, tmp_path / "fixed", steps=1, pass_rates=rates_file, curriculum_floor=0.0)
    train(cfg, log=lambda line: None, reward_override=recording(calls))
    # the frontier pool: Toy/1 and Toy/2 (rates strictly between 0 and 1), 3 samples each
    assert calls == [Counter({"Toy/1": 3, "Toy/2": 3})]


def test_a_step_where_no_group_varies_reports_no_row_updated(model_dir, tmp_path):
    """Every reward equal (0.1, float noise and all) in the first round and in the refill: the step keeps its
    first round, and its metrics say so -- no row moved, both rounds' rows generated -- and runs no forward or
    backward pass for a gradient that would be zero."""
    cfg = base_config(model_dir, tmp_path / "flat", steps=1, dynamic_sampling=1, algo="grpo")
    m = train(cfg, log=lambda m: None, reward_override=lambda results, samples, tasks: [0.1] * len(samples))
    assert m["advantage/nonzero_rows"] == 0.0 and m["advantage/updated_rows"] == 0.0
    assert m["sampling/kept_groups"] == 0.0 and m["sampling/generated_rows"] == 12.0  # 2 rounds x 2 x 3
    assert m["train/empty_step"] == 1.0 and "loss/total" not in m and m.get("time/forward", 0.0) == 0.0
