"""`score()`: weighting, the config's checks, the batched linter and the step's metrics."""

import math

import pytest

from coderl.rewards import RewardConfig, lint, score
from coderl.sandbox.types import Status
from tests.rewards.helpers import BODY, CHAT, STDIO, STDIO_PROGRAM, TASK, result, sample


def batch4():
    """Four samples of `add`: pass (BODY, 200 tokens), fail (empty, 50), timeout + truncated, tampered."""
    samples = [sample(BODY, tokens=200), sample("", tokens=50), sample(BODY, tokens=300, truncated=True),
               sample(CHAT, tokens=100, format_ok=False)]
    results = [result(True, True), result(False, False, status=Status.SYNTAX_ERROR),
               result(False, False, status=Status.TIMEOUT), result(True, False, tamper=("early_exit",))]
    return results, samples, [TASK] * 4


def test_default_config_is_pass():
    results, samples, tasks = batch4()
    out = score(RewardConfig(), results, samples, tasks)
    assert out.total == [1.0, 0.0, 0.0, 0.0] and out.components == {"pass": [1.0, 0.0, 0.0, 0.0]}


def test_weighted_sum_of_components():
    results, samples, tasks = batch4()
    config = RewardConfig(weights={"pass": 2.0, "fraction": 1.0, "format": -0.5})
    out = score(config, results, samples, tasks)
    assert out.components == {"pass": [1.0, 0.0, 0.0, 0.0], "fraction": [1.0, 0.0, 0.0, 0.5],
                              "format": [1.0, 0.0, 1.0, 0.0]}  # empty: gated; sample 3: format_ok False
    # 2*1 + 1 - 0.5 = 2.5;  0;  2*0 + 0 - 0.5 = -0.5;  0 + 0.5 - 0 = 0.5, but sample 3 was caught (early_exit):
    # min(0.5, tamper_cap 0) = 0, the cap taking 0.5 off
    assert out.total == pytest.approx([2.5, 0.0, -0.5, 0.0]) and out.capped == pytest.approx([0, 0, 0, -0.5])
    uncapped = score(RewardConfig(weights=config.weights, tamper_cap=None), results, samples, tasks)
    assert uncapped.total == pytest.approx([2.5, 0.0, -0.5, 0.5]) and uncapped.capped == [0.0] * 4


def test_metrics_keys_and_values():
    results, samples, tasks = batch4()
    config = RewardConfig(weights={"pass": 1.0, "length_penalty": 1.0, "syntax": 0.5})
    metrics = score(config, results, samples, tasks).metrics()
    assert set(metrics) == {
        "reward/total", "reward/pass", "reward/length_penalty", "reward/syntax",
        "reward/weighted/pass", "reward/weighted/length_penalty", "reward/weighted/syntax", "reward/tamper_cap",
        "rollout/empty_rate", "rollout/truncated_rate",
        "sandbox/pass_rate", "sandbox/timeout_rate", "sandbox/tamper_rate", "sandbox/caught_rate",
        "sandbox/sandbox_error_rate",
    }
    # pass [1,0,0,0]; length -0.01*[200,50,300,100]/100 = [-.02,-.005,-.03,-.01]; syntax [1,0,1,1]
    assert metrics["reward/pass"] == 0.25
    assert metrics["reward/length_penalty"] == pytest.approx(-0.065 / 4)
    assert metrics["reward/syntax"] == 0.75
    assert metrics["reward/weighted/syntax"] == 0.375  # 0.5 * 0.75
    # totals [1-.02+.5, -.005, -.03+.5, -.01+.5] = [1.48, -0.005, 0.47, 0.49]; the last is caught (early_exit)
    # and capped at 0: mean 1.945/4, the cap taking 0.49/4 on average
    assert metrics["reward/total"] == pytest.approx(1.945 / 4)
    assert metrics["reward/tamper_cap"] == pytest.approx(-0.49 / 4)
    assert metrics["reward/total"] == pytest.approx(metrics["reward/tamper_cap"] + sum(
        v for k, v in metrics.items() if k.startswith("reward/weighted/")))
    assert metrics["rollout/empty_rate"] == 0.25
    assert metrics["rollout/truncated_rate"] == 0.25
    assert metrics["sandbox/pass_rate"] == 0.25
    assert metrics["sandbox/timeout_rate"] == 0.25
    assert metrics["sandbox/tamper_rate"] == 0.25 and metrics["sandbox/caught_rate"] == 0.25
    assert metrics["sandbox/sandbox_error_rate"] == 0.0


def test_empty_batch():
    out = score(RewardConfig(), [], [], [])
    assert out.total == [] and math.isnan(out.metrics()["reward/total"])


def test_unknown_component_is_a_one_line_error():
    with pytest.raises(ValueError) as info:
        RewardConfig(weights={"pass": 1.0, "passs": 1.0})
    message = str(info.value)
    assert "\n" not in message and "'passs'" in message
    assert "known: pass, fraction, perfect_bonus, length_penalty, syntax, format, quality" in message
    config = RewardConfig()
    config.weights["lenght_penalty"] = 1.0  # edited after construction: caught by score()
    with pytest.raises(ValueError, match="unknown reward component"):
        score(config, *batch4())


@pytest.mark.parametrize("overrides, match", [
    ({"length_penalty_on": "failed"}, "length_penalty_on"),
    ({"fraction_tests": "some"}, "fraction_tests"),
    ({"quality_scale": -1.0}, "quality_scale"),
    ({"weights": {"pass": float("nan")}}, "finite"),
])
def test_bad_config_values(overrides, match):
    with pytest.raises(ValueError, match=match):
        RewardConfig(**overrides)


def test_misaligned_inputs():
    results, samples, tasks = batch4()
    with pytest.raises(ValueError, match="4 results, 3 samples"):
        score(RewardConfig(), results, samples[:3], tasks)
    with pytest.raises(ValueError, match="tasks\\[0\\] is 't/sum'"):
        score(RewardConfig(), results, samples, [STDIO] * 4)


def test_zero_weight_is_not_computed(monkeypatch):
    def no_ruff(*args, **kwargs):
        raise AssertionError("ruff ran for a component of weight 0")

    monkeypatch.setattr(lint.subprocess, "run", no_ruff)
    out = score(RewardConfig(weights={"pass": 1.0, "quality": 0.0}), *batch4())
    assert set(out.components) == {"pass"} and "reward/quality" not in out.metrics()


def test_quality_runs_ruff_once_per_score_call(monkeypatch):
    calls = []
    real_run = lint.subprocess.run

    def counting_run(cmd, **kwargs):
        calls.append(cmd)
        return real_run(cmd, **kwargs)

    monkeypatch.setattr(lint.subprocess, "run", counting_run)
    messy = "    import os\n    return a + b\n"  # 1 finding on 2 lines
    samples = [sample(BODY), sample(messy), sample(""), sample(CHAT), sample(STDIO_PROGRAM, task=STDIO)]
    tasks = [TASK, TASK, TASK, TASK, STDIO]
    out = score(RewardConfig(weights={"quality": 1.0}), [result(True)] * 5, samples, tasks)
    assert len(calls) == 1
    assert out.components["quality"] == [1.0, 0.5, 0.0, 1.0, 1.0]


def test_select_is_the_score_of_the_selected_samples():
    cfg = RewardConfig(weights={"pass": 1.0, "fraction": 0.5, "length_penalty": 1.0})
    results = [result(True, True), result(True, False), result(False, False, status=Status.TIMEOUT)]
    samples = [sample(tokens=5), sample(tokens=50, truncated=True), sample(tokens=9)]
    tasks = [TASK] * 3
    whole = score(cfg, results, samples, tasks)
    picked = whole.select([2, 0])
    again = score(cfg, [results[2], results[0]], [samples[2], samples[0]], [TASK, TASK])
    assert picked == again and picked.metrics() == again.metrics()
