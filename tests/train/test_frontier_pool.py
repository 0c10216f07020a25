"""The frontier pool in a training run (tiny random model): measured pass rates start the curriculum, and a
step where no group varies reports that no row was updated."""

import json
from collections import Counter

import pytest

torch = pytest.importorskip("torch")

from coderl.train.rl.policy_gradient import train  # noqa: E402
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


def test_measured_rates_draw_the_frontier_pool(model_dir, tmp_path, rates_file):
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
