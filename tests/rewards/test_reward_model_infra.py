"""A reward model that fails is an infrastructure failure, never a score: a pass that raises is run again; one
that still fails, or a non-finite score, marks its rows (`RewardBatch.infra`), left out of every mean.  The
model is faked (`learned.reward_model_scores`): no weights are loaded."""

import json

import pytest

from coderl.base.config import ConfigError
from coderl.rewards import RewardConfig, learned, score
from tests.rewards.helpers import BODY, TASK, result, sample


@pytest.fixture
def config(tmp_path):
    (tmp_path / "config.json").write_text(json.dumps({"architectures": ["LlamaForSequenceClassification"],
                                                      "num_labels": 1}))
    return RewardConfig(weights={"pass": 0.5, "reward_model": 0.5}, reward_model=str(tmp_path))


def batch():
    return [result(True, True), result(False, False)], [sample(BODY), sample(BODY)], [TASK, TASK]


def fake(monkeypatch, *outcomes):
    calls = []

    def scores(samples, tasks, **params):
        calls.append(len(samples))
        outcome = outcomes[min(len(calls), len(outcomes)) - 1]
        if isinstance(outcome, Exception):
            raise outcome
        return outcome

    monkeypatch.setattr(learned, "reward_model_scores", scores)
    return calls


def test_a_pass_that_raises_once_is_run_again_and_scores_as_if_it_had_not(monkeypatch, config):
    calls = fake(monkeypatch, RuntimeError("CUDA out of memory"), [0.2, 0.4])
    out = score(config, *batch())
    assert calls == [2, 2] and out.infra == [False, False] and out.total == pytest.approx([0.6, 0.2])


def test_a_pass_that_keeps_failing_marks_every_row_and_earns_nothing(monkeypatch, config):
    calls = fake(monkeypatch, RuntimeError("CUDA error: an illegal memory access"))
    out = score(config, *batch())
    assert len(calls) == 1 + learned.RM_RETRIES and out.infra == [True, True]
    assert out.scorer_error[0].startswith("the reward model failed: RuntimeError: CUDA error")
    metrics = out.metrics()
    assert all(metrics[k] != metrics[k] for k in ("reward/total", "sandbox/pass_rate"))  # NaN: no row earned one


def test_a_non_finite_score_marks_its_row_alone(monkeypatch, config):
    fake(monkeypatch, [float("nan"), 0.4])
    out = score(config, *batch())
    assert out.infra == [True, False] and out.metrics()["reward/total"] == pytest.approx(0.5 * 0 + 0.5 * 0.4)


def test_a_setting_error_still_stops_the_run(monkeypatch, config):
    fake(monkeypatch, ConfigError("--reward-model: cannot load it"))
    with pytest.raises(ConfigError):
        score(config, *batch())
