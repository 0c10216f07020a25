"""--dtype bfloat16: only the frozen base is bf16.  LoRA weights (peft's autocast_adapter_dtype), the value
head, AdamW's moments and every log-softmax stay float32, in the RL loops and in SFT (checked on the CPU
with a tiny model; the same code runs on a GPU)."""

import math

import pytest

torch = pytest.importorskip("torch")

from coderl.base.config import build  # noqa: E402
from tests.models.tiny import tiny_llama  # noqa: E402
from tests.train.helpers import TASKS, base_config, varied_reward  # noqa: E402


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory):
    return tiny_llama(tmp_path_factory.mktemp("model"))


def dtypes(params) -> set:
    return {p.dtype for p in params}


def test_bf16_policy_trains_float32_lora_and_scores_in_float32(model_dir, tmp_path):
    from coderl.rollout.generation import generate
    from coderl.tasks import load_tasks
    from coderl.train.logprobs import build_sequences, token_logprobs, token_logprobs_and_values
    from coderl.train.policy import build_policy
    from coderl.train.rl.value_head import build_value_head

    policy = build_policy(base_config(model_dir, tmp_path / "run", dtype="bfloat16", device="cpu"))
    named = list(policy.model.named_parameters())
    assert dtypes(p for _, p in named if p.requires_grad) == {torch.float32}
    assert dtypes(p for _, p in named if not p.requires_grad) == {torch.bfloat16}
    head = build_value_head(policy.model)
    assert dtypes(head.parameters()) == {torch.float32}
    batch = generate(policy.model, policy.tokenizer, load_tasks(TASKS).tasks[:2], format="completion",
                     samples_per_prompt=2, max_new_tokens=4, temperature=1.0)
    assert batch.logprobs.dtype == torch.float32
    logprobs = token_logprobs(policy.model, build_sequences(batch))
    _, values, entropy = token_logprobs_and_values(policy.model, head, build_sequences(batch))
    assert {logprobs.dtype, values.dtype, entropy.dtype} == {torch.float32}
    assert torch.isfinite(logprobs).all() and torch.isfinite(entropy).all()


@pytest.mark.parametrize("algo", ["grpo", "ppo"])
def test_bf16_run_keeps_float32_optimizer_state(model_dir, tmp_path, algo):
    from coderl.train import run_training

    cfg = base_config(model_dir, tmp_path / algo, algo=algo, dtype="bfloat16", device="cpu", steps=2, epochs=1)
    m = run_training(cfg, log=lambda m: None, reward_override=varied_reward)
    assert math.isfinite(m["loss/total"]) and math.isfinite(m["train/grad_norm"]) and m["train/nonfinite_steps"] == 0
    state = torch.load(tmp_path / algo / "checkpoints" / "step-2" / "trainer_state.pt", weights_only=False)
    moments = [t for s in state["optimizer"]["state"].values() for k, t in s.items() if k in ("exp_avg", "exp_avg_sq")]
    assert moments and dtypes(moments) == {torch.float32}
    from safetensors.torch import load_file

    adapter = load_file(tmp_path / algo / "checkpoints" / "step-2" / "adapter_model.safetensors")
    assert dtypes(adapter.values()) == {torch.float32}


def test_bf16_sft_trains_float32_lora(model_dir, tmp_path):
    from coderl.train.policy import build_policy
    from coderl.train.sft.run import SFTConfig

    cfg = build(SFTConfig, dict(out=str(tmp_path / "sft"), model=str(model_dir), data=TASKS, dtype="bfloat16",
                                device="cpu", format="completion"))
    model = build_policy(cfg, reference=False).model  # as `coderl sft` builds it
    named = list(model.named_parameters())
    assert dtypes(p for _, p in named if p.requires_grad) == {torch.float32}
    assert dtypes(p for _, p in named if not p.requires_grad) == {torch.bfloat16}
