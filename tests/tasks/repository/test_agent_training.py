"""The RL loop on agent episodes (`--agent`) with a tiny random model on the fixture repository's tasks in the real
sandbox: GRPO and RLOO train on-policy on rows of replies and command outputs; episodes that ended at a limit are
left out of the loss by default (counted) and trained with `--limit-episodes train`; settings an agent cannot run
with are one line."""

import pytest

torch = pytest.importorskip("torch")

from coderl.base.config import ConfigError  # noqa: E402
from coderl.train import run_training  # noqa: E402
from tests.models.tiny import tiny_llama  # noqa: E402
from tests.train.helpers import base_config, learning_metrics  # noqa: E402


def varied_reward(results, samples, tasks):
    """Deterministic and varied within each group (the tiny model's replies resolve nothing)."""
    return [float(i % 2) for i in range(len(samples))]


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory):
    return tiny_llama(tmp_path_factory.mktemp("model"))


def agent_config(model_dir, out, pool, **overrides):
    fields = dict(tasks=f"repo:{pool}", format="chat", agent=True, agent_turns=3, malformed_in_a_row=2, steps=1,
                  prompts_per_step=1, samples_per_prompt=2, max_new_tokens=6, max_total_sequence_length=4096,
                  limit_episodes="train")
    fields.update(overrides)
    return base_config(model_dir, out, **fields)


@pytest.mark.parametrize("algo", ["grpo", "rloo"])
def test_grpo_and_rloo_train_on_policy_on_agent_episodes(model_dir, tmp_path, fixture_pool, algo):
    cfg = agent_config(model_dir, tmp_path / algo, fixture_pool, algo=algo)
    m = run_training(cfg, log=lambda m: None, reward_override=varied_reward)
    assert m["first_minibatch/max_abs_log_ratio"] < 1e-4  # the rows are what generation saw
    assert m["agent/ended_malformed"] == 1.0 and m["agent/turns"] == 2.0  # random text holds no command
    assert m["agent/tool_error_rate"] == 1.0 and m["agent/resolved"] == 0.0
    assert m["agent/limit_episodes"] == 1.0 and m["agent/left_out"] == 0.0  # trained: --limit-episodes train
    assert m["agent/observation_tokens"] > 0


def test_episodes_at_a_limit_are_left_out_of_the_loss_by_default(model_dir, tmp_path, fixture_pool):
    from safetensors.torch import load_file

    cfg = agent_config(model_dir, tmp_path / "drop", fixture_pool, algo="grpo", limit_episodes="drop", steps=1)
    lines = []
    m = run_training(cfg, log=lines.append, reward_override=varied_reward)
    assert m["agent/left_out"] == 1.0 and m["train/empty_step"] == 1.0
    # the log says the step taught nothing, and why
    assert any(str(line).startswith("step 1: no update: every episode ended at a limit") for line in lines), lines
    # every row left out: nothing trains, the adapter is its initialisation (LoRA B = 0)
    final = load_file(str(tmp_path / "drop" / "checkpoints" / "step-1" / "adapter_model.safetensors"))
    assert all(float(v.abs().max()) == 0.0 for k, v in final.items() if "lora_B" in k)


@pytest.mark.parametrize("overrides, flag", [({"algo": "ppo"}, "--value-head"), ({"turns": 2}, "--turns"),
                                             ({"dynamic_sampling": 1}, "--dynamic-sampling"),
                                             ({"isolation": "uid"}, "--isolation")])
def test_settings_an_agent_cannot_run_with_are_one_line(model_dir, tmp_path, fixture_pool, overrides, flag):
    with pytest.raises(ConfigError, match=flag):
        agent_config(model_dir, tmp_path / "x", fixture_pool, **overrides)


def test_an_agent_on_tasks_that_are_not_repositories_is_one_line(model_dir, tmp_path, fixture_pool):
    cfg = agent_config(model_dir, tmp_path / "y", fixture_pool, tasks="synthetic")
    with pytest.raises(ConfigError, match="--agent: --tasks synthetic holds .* repository tasks only"):
        run_training(cfg, log=lambda m: None)


def test_asynchronous_rollouts_of_agent_episodes_stay_within_their_age(model_dir, tmp_path, fixture_pool):
    """A generation worker process rolls out the next steps' episodes (its own sandbox, working copies of its own)
    while the trainer updates: every row's weights are at most --async-max-age steps old."""
    cfg = agent_config(model_dir, tmp_path / "async", fixture_pool, algo="grpo", steps=2, async_max_age=1)
    m = run_training(cfg, log=lambda m: None, reward_override=varied_reward)
    assert m["agent/turns"] == 2.0 and m["agent/ended_malformed"] == 1.0
    assert "async/age_max" in m and m["async/age_max"] <= 1


def test_a_resumed_agent_run_repeats_the_uninterrupted_one_exactly(model_dir, tmp_path, fixture_pool):
    """Observations carry no timing, so a run resumed from step 1 rolls out and learns step 2 as the uninterrupted
    run did: the same metrics (timings aside) and bit-identical adapters.  (The tiny model's replies hold no command,
    so its observations are the malformed-reply message; test_agent_env replays real command outputs.)"""
    import json
    import shutil

    from safetensors.torch import load_file

    kw = dict(algo="grpo", steps=2, save_steps=1, prompts_per_step=2, temperature=1.0)
    ref = tmp_path / "ref"
    run_training(agent_config(model_dir, ref, fixture_pool, **kw), log=lambda m: None, reward_override=varied_reward)
    cut = tmp_path / "cut"
    shutil.copytree(ref, cut)
    shutil.rmtree(cut / "checkpoints" / "step-2")
    run_training(agent_config(model_dir, cut, fixture_pool, resume=True, **kw), log=lambda m: None,
                 reward_override=varied_reward)

    def rows(run):
        return [json.loads(line) for line in open(run / "metrics.jsonl")]

    for a, b in zip(rows(ref), rows(cut), strict=True):
        assert learning_metrics(a) == pytest.approx(learning_metrics(b), abs=1e-6), a["step"]
    final = [load_file(str(run / "checkpoints" / "step-2" / "adapter_model.safetensors")) for run in (ref, cut)]
    assert final[0].keys() == final[1].keys() and all(torch.equal(final[0][k], final[1][k]) for k in final[0])
