"""A GRPO step on math tasks with seed 002's mix of a test reward and a learned reward model: the loop
scores every sample with both, logs them component by component, and the update moves the adapter."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

from coderl.train.rl.policy_gradient import train  # noqa: E402
from tests.models.tiny import tiny_llama  # noqa: E402
from tests.rewards.test_reward_model import save_classifier  # noqa: E402
from tests.train.helpers import base_config  # noqa: E402


def test_grpo_on_math_with_a_reward_model_term(tmp_path):
    model_dir = tiny_llama(tmp_path / "model")
    rm_dir = save_classifier(tmp_path / "rm")
    cfg = base_config(model_dir, tmp_path / "run", algo="grpo", tasks="math:n=4,split=train", format="chat",
                      steps=1, samples_per_prompt=4, max_new_tokens=8,
                      reward_weights={"pass": 0.5, "reward_model": 0.5}, reward_model=rm_dir)
    last = train(cfg, log=lambda m: None)
    assert set(last) >= {"reward/pass", "reward/reward_model", "reward/weighted/pass", "reward/weighted/reward_model"}
    assert 0.0 < last["reward/reward_model"] < 1.0  # sigmoid of a random classifier's scores
    assert last["reward/total"] == pytest.approx(last["reward/weighted/pass"] + last["reward/weighted/reward_model"])
    assert last["advantage/mean_abs"] > 0  # the RM's scores differ within groups where pass is all 0


def test_quality_on_tasks_without_a_linter_is_refused_before_the_model_loads(tmp_path):
    from coderl.base.config import ConfigError

    model = tmp_path / "no-model-needed"  # names a model folder, holds no weights: never loaded
    model.mkdir()
    (model / "config.json").write_text("{}")
    cfg = base_config(model, tmp_path / "run", tasks="math:n=2,split=train", format="chat",
                      reward_weights={"pass": 1.0, "quality": 0.5})
    with pytest.raises(ConfigError, match="no linter for language 'math' \\(task math/train/0000"):
        train(cfg, log=lambda m: None)
    assert not (tmp_path / "run").exists()
