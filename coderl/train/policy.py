"""The trainable policy (LoRA via peft), its reference for KL, and rollout-batch plumbing for the loops.

Starting from a base model: one fresh LoRA adapter; the reference is the base with the adapter
disabled.  Starting from an SFT adapter (`--model RUN/checkpoints/step-N`): that adapter is loaded
twice, as the trainable `default` and as a frozen `reference`, so the reference is exactly the SFT
policy and every RL checkpoint is again one adapter over the base (loadable with `--model`).
"""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass
from typing import Any

import torch

from coderl.rewards import PRESETS, RewardConfig
from coderl.rollout.types import RolloutBatch


@dataclass
class Policy:
    model: Any  # a peft PeftModel
    tokenizer: Any
    base: str  # portable base spec for saved adapters
    kind: str  # "adapter" when started from an SFT adapter
    two_adapters: bool
    note: str = ""  # one line for the run log (e.g. which LoRA shape is trained)

    def reference(self):
        """Context in which `model` computes the reference policy."""
        if not self.two_adapters:
            return self.model.disable_adapter()
        return _active_adapter(self.model, "reference")


@contextlib.contextmanager
def _active_adapter(model, name):
    model.set_adapter(name)
    try:
        yield
    finally:
        model.set_adapter("default")
        _freeze_all_but_default(model)


def _freeze_all_but_default(model):
    for n, p in model.named_parameters():
        p.requires_grad = "lora_" in n and ".default." in n


def build_policy(cfg, resume_from: str | None = None) -> Policy:
    from peft import get_peft_model, set_peft_model_state_dict
    from safetensors.torch import load_file

    from coderl.models import load_model, lora_config, resolve_device

    loaded = load_model(cfg.model, dtype=getattr(cfg, "dtype", "float32"),
                        device=resolve_device(getattr(cfg, "device", "cpu")))
    if loaded.kind == "adapter":
        model = loaded.model
        model.load_adapter(loaded.adapter_path, adapter_name="reference", is_trainable=False)
        model.set_adapter("default")
        _freeze_all_but_default(model)
        lc = model.peft_config["default"]
        note = (f"training continues {cfg.model}'s LoRA (r {lc.r}, alpha {lc.lora_alpha}, dropout {lc.lora_dropout}); "
                f"--lora-r/--lora-alpha/--lora-dropout apply only to a fresh adapter over a base model")
        policy = Policy(model, loaded.tokenizer, loaded.base, "adapter", True, note)
    else:
        model = get_peft_model(loaded.model, lora_config(cfg.lora_r, cfg.lora_alpha, cfg.lora_dropout))
        policy = Policy(model, loaded.tokenizer, loaded.base, loaded.kind, False)
    if resume_from:
        weights = load_file(os.path.join(resume_from, "adapter_model.safetensors"))
        set_peft_model_state_dict(model, weights, adapter_name="default")
    return policy


def save_policy_adapter(policy: Policy, path: str) -> None:
    from coderl.models import save_adapter

    save_adapter(policy.model, path, policy.base, adapters=["default"])


def reward_config(cfg) -> RewardConfig:
    if cfg.reward == "pass":
        rc = RewardConfig(weights={"pass": 1.0})
    elif cfg.reward == "fraction":
        rc = PRESETS["fraction_passed"]()
    elif cfg.reward == "seed001":
        rc = PRESETS["pass_minus_length"](alpha=cfg.length_alpha)
    elif cfg.reward == "seed003":
        rc = PRESETS["weighted_sum"]()
    else:
        rc = PRESETS["fraction_plus_perfect"]()
    rc.length_alpha = cfg.length_alpha
    rc.length_penalty_on = cfg.length_penalty_on
    return rc.validate()


def drop_long_prompts(batch: RolloutBatch, max_prompt_tokens: int, offset: int = 0) -> RolloutBatch:
    """Rows whose prompt exceeds `max_prompt_tokens` are removed (and counted by the caller), never truncated.

    `offset` shifts group ids so chunks of one step keep distinct groups.
    """
    keep = [i for i, n in enumerate(batch.prompt_lengths.tolist()) if n <= max_prompt_tokens]
    rows = torch.tensor(keep, dtype=torch.long)
    samples = [_regroup(batch.samples[i], offset) for i in keep]
    return RolloutBatch(
        samples=samples,
        prompt_ids=batch.prompt_ids[rows],
        prompt_lengths=batch.prompt_lengths[rows],
        completion_ids=batch.completion_ids[rows],
        mask=batch.mask[rows],
        logprobs=batch.logprobs[rows],
        group_ids=batch.group_ids[rows] + offset,
    )


def _regroup(sample, offset):
    import dataclasses

    return dataclasses.replace(sample, group=sample.group + offset) if offset else sample


def _pad_to(t: torch.Tensor, width: int, value, left: bool) -> torch.Tensor:
    if t.shape[1] == width:
        return t
    pad = torch.full((t.shape[0], width - t.shape[1]), value, dtype=t.dtype)
    return torch.cat([pad, t], 1) if left else torch.cat([t, pad], 1)


def concat_batches(batches: list[RolloutBatch], pad_id: int = 0) -> RolloutBatch:
    """One batch from several chunks: prompts re-left-padded, completions re-right-padded."""
    if len(batches) == 1:
        return batches[0]
    p = max(b.prompt_ids.shape[1] for b in batches)
    t = max(b.completion_ids.shape[1] for b in batches)
    return RolloutBatch(
        samples=[s for b in batches for s in b.samples],
        prompt_ids=torch.cat([_pad_to(b.prompt_ids, p, pad_id, True) for b in batches]),
        prompt_lengths=torch.cat([b.prompt_lengths for b in batches]),
        completion_ids=torch.cat([_pad_to(b.completion_ids, t, pad_id, False) for b in batches]),
        mask=torch.cat([_pad_to(b.mask, t, 0.0, False) for b in batches]),
        logprobs=torch.cat([_pad_to(b.logprobs, t, 0.0, False) for b in batches]),
        group_ids=torch.cat([b.group_ids for b in batches]),
    )
