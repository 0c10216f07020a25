"""The RL loops on repair episodes (`--turns 2`) with a tiny random model: every algorithm trains on rows
holding two answers and the feedback between them, on-policy, under both credits; episode metrics are
logged; a completion format is refused in one line."""

import json
import os

import pytest

torch = pytest.importorskip("torch")

from coderl.base.config import ConfigError  # noqa: E402
from coderl.train import run_training  # noqa: E402
from tests.models.tiny import tiny_llama  # noqa: E402
from tests.train.helpers import base_config  # noqa: E402


def varied_reward(results, samples, tasks):
    """Deterministic, varies across rows and turns (the tiny model's answers all fail their tests)."""
    return [(sum(s.gen_tokens) % 5) / 4 for s in samples]


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory):
    return tiny_llama(tmp_path_factory.mktemp("model"))


def repair_config(model_dir, out, **overrides):
    fields = dict(format="chat", turns=2, feedback_tokens=40, steps=1, max_new_tokens=6)
    fields.update(overrides)
    return base_config(model_dir, out, **fields)


# every algorithm and both credits in make test; ppo's second credit (its slowest case) in make test-slow
@pytest.mark.parametrize("algo,credit", [("reinforce", "final"), ("rloo", "improvement"), ("grpo", "final"),
                                         ("grpo", "improvement"), ("ppo_critic_free", "improvement"),
                                         pytest.param("ppo", "final", marks=pytest.mark.slow), ("ppo", "improvement")])
def test_every_algorithm_trains_on_policy_on_repair_episodes(model_dir, tmp_path, algo, credit):
    cfg = repair_config(model_dir, tmp_path / f"{algo}-{credit}", algo=algo, credit=credit)
    m = run_training(cfg, log=lambda m: None, reward_override=varied_reward)
    assert m["first_minibatch/max_abs_log_ratio"] < 1e-4
    assert m["repair/turns_used"] > 1.0  # random answers fail their visible tests and are revised
    assert m["repair/feedback_tokens"] > 0
    assert {"repair/pass_after_turn_1", "repair/pass_after_turn_2", "repair/no_hidden_tasks"} <= set(m)
    assert math_finite(m["loss/total"] if "loss/total" in m else m["loss/policy"])


def math_finite(x):
    return x == x and abs(x) != float("inf")


def test_two_steps_change_every_lora_parameter_with_improvement_credit(model_dir, tmp_path):
    from peft import get_peft_model
    from safetensors.torch import load_file

    from coderl.models import load_model, lora_config

    cfg = repair_config(model_dir, tmp_path / "run", algo="grpo", credit="improvement", steps=2)
    torch.manual_seed(cfg.seed)  # the same LoRA initialisation as the run's
    initial = {k.replace(".default", ""): v.detach().clone() for k, v in
               get_peft_model(load_model(str(model_dir)).model, lora_config(8, 16, 0.05)).named_parameters()
               if "lora_" in k}
    run_training(cfg, log=lambda m: None, reward_override=varied_reward)
    final = load_file(os.path.join(cfg.out, "checkpoints", "step-2", "adapter_model.safetensors"))
    assert set(final) == set(initial) and final
    assert [k for k in final if torch.allclose(final[k], initial[k])] == []


def test_the_credits_give_different_updates(model_dir, tmp_path):
    runs = {}
    for credit in ("final", "improvement"):
        cfg = repair_config(model_dir, tmp_path / credit, algo="grpo", credit=credit)
        runs[credit] = run_training(cfg, log=lambda m: None, reward_override=varied_reward)
    assert runs["final"]["repair/turns_used"] == runs["improvement"]["repair/turns_used"]  # same rollouts
    assert runs["final"]["advantage/mean_abs"] != pytest.approx(runs["improvement"]["advantage/mean_abs"])


def test_metrics_file_holds_the_episode_metrics(model_dir, tmp_path):
    cfg = repair_config(model_dir, tmp_path / "run", algo="grpo")
    run_training(cfg, log=lambda m: None, reward_override=varied_reward)
    row = [json.loads(line) for line in open(os.path.join(cfg.out, "metrics.jsonl"))][-1]
    assert 0.0 <= row["repair/pass_after_turn_1"] <= row["repair/pass_after_turn_2"] <= 1.0


def test_turns_with_a_completion_format_is_one_line(model_dir, tmp_path):
    with pytest.raises(ConfigError, match="--format='completion': expected a chat format"):
        base_config(model_dir, tmp_path / "x", turns=2)


def test_tasks_without_hidden_tests_are_left_out_at_the_start(model_dir, tmp_path):
    cfg = repair_config(model_dir, tmp_path / "run", algo="grpo", max_tests_per_problem=1)
    with pytest.raises(ConfigError, match="no task of --tasks .* has a hidden test"):
        run_training(cfg, log=lambda m: None, reward_override=varied_reward)


def test_every_step_logs_every_turns_metric_even_when_all_episodes_end_at_turn_1(model_dir, tmp_path, monkeypatch):
    from coderl.sandbox.types import ExecutionResult, Status

    cfg = repair_config(model_dir, tmp_path / "run", algo="grpo", turns=3)

    class Passed:  # every visible run passes: every episode ends after its first answer
        def result(self):
            return ExecutionResult(Status.PASSED)

    from coderl.rollout import repair

    real, calls = repair._run, []

    def run(sandbox, task, tests, completion, limits):  # called per answer: visible tests, then hidden ones
        calls.append(tests)
        return Passed() if len(calls) % 2 == 1 else real(sandbox, task, tests, completion, limits)

    monkeypatch.setattr(repair, "_run", run)
    m = run_training(cfg, log=lambda m: None, reward_override=varied_reward)
    assert m["repair/turns_used"] == 1.0
    assert {"repair/pass_after_turn_1", "repair/pass_after_turn_2", "repair/pass_after_turn_3"} <= set(m)


@pytest.mark.parametrize("field,value,message", [("turns", 0, "--turns=0: expected an integer >= 1"),
                                                 ("feedback_tokens", 0, "--feedback-tokens=0: expected an integer >= 1"),
                                                 ("credit", "best", "--credit=.best.: expected one of final, improvement")])
def test_bad_repair_options_are_one_line(model_dir, tmp_path, field, value, message):
    with pytest.raises(ConfigError, match=message):
        repair_config(model_dir, tmp_path / "x", **{field: value})
