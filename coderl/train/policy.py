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


@dataclass
class Policy:
    model: Any  # a peft PeftModel
    tokenizer: Any
    base: str  # portable base spec for saved adapters
    kind: str  # "adapter" when started from an SFT adapter
    two_adapters: bool
    note: str = ""  # one line for the run log (e.g. which LoRA shape is trained)
    path: str | None = None  # the Hugging Face folder of the base weights (what a vLLM engine loads)

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

    from coderl.models import load_model, resolve_device

    if getattr(getattr(cfg, "lora", None), "qlora", False):  # QLoRA: the base in 4-bit, the adapters over it
        from coderl.models.quantized import load_quantized

        loaded = load_quantized(cfg.model, trainable=True)
    else:
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
        policy = Policy(model, loaded.tokenizer, loaded.base, "adapter", True, note, loaded.path)
    else:
        model = get_peft_model(loaded.model, cfg.lora.peft())
        policy = Policy(model, loaded.tokenizer, loaded.base, loaded.kind, False, path=loaded.path)
    if getattr(getattr(cfg, "optim", None), "gradient_checkpointing", False):
        checkpoint_layers(model)
    if resume_from:
        weights = load_file(os.path.join(resume_from, "adapter_model.safetensors"))
        set_peft_model_state_dict(model, weights, adapter_name="default")
    return policy


def checkpoint_layers(model) -> int:
    """--gradient-checkpointing on `model` (`train/activation_checkpointing.py`); a one-line error if it cannot."""
    from coderl.base.config import ConfigError
    from coderl.train.activation_checkpointing import enable

    try:
        return enable(model)
    except ValueError as exc:
        raise ConfigError(f"--gradient-checkpointing: {exc}") from None


def save_policy_adapter(policy: Policy, path: str) -> None:
    from coderl.models import save_adapter

    save_adapter(policy.model, path, policy.base, adapters=["default"])
