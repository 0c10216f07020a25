"""The trainable policy (LoRA via peft, or every weight with `--finetune full`), its reference for KL, and how
its weights are saved.

LoRA from a base model: one fresh adapter; the reference is the base with the adapter disabled.  LoRA from an
SFT adapter (`--model RUN/checkpoints/step-N`): that adapter is loaded twice, as the trainable `default` and as
a frozen `reference`, so the reference is exactly the SFT policy and every RL checkpoint is again one adapter
over the base (loadable with `--model`).

Full fine-tuning: the model itself trains (every parameter), and the reference is a frozen copy of the
starting weights, made before any update, only when the run uses a reference (`--kl-beta` > 0 or `log_kl`):
without one the copy costs nothing.  A checkpoint is then a whole Hugging Face folder (config, safetensors,
tokenizer), loadable with `--model` as any model folder; resuming loads the trainable weights from it and the
reference again from `--model`.
"""

from __future__ import annotations

import contextlib
import copy
import os
from dataclasses import dataclass
from typing import Any

from coderl.base.config import ConfigError


@dataclass
class Policy:
    model: Any  # a peft PeftModel (LoRA), or the model itself (full fine-tuning)
    tokenizer: Any
    base: str  # portable base spec for saved adapters
    kind: str  # "adapter" when started from an SFT adapter
    two_adapters: bool
    note: str = ""  # one line for the run log (e.g. which LoRA shape is trained)
    path: str | None = None  # the Hugging Face folder of the base weights (what a vLLM engine loads)
    full: bool = False  # every weight trains (`--finetune full`)
    frozen: Any = None  # full fine-tuning: the frozen copy of the starting weights (None: no reference used)
    prompt_format: str | None = None  # what the policy is trained with; saved adapters record it

    @contextlib.contextmanager
    def reference(self):
        """Context in which the module it yields computes the reference policy: the model with its adapter
        disabled (or the frozen `reference` adapter active), or the frozen copy of full fine-tuning."""
        if self.full:
            if self.frozen is None:
                raise RuntimeError("full fine-tuning without a reference copy: build_policy(reference=True)")
            yield self.frozen
        elif not self.two_adapters:
            with self.model.disable_adapter():
                yield self.model
        else:
            with _active_adapter(self.model, "reference"):
                yield self.model


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


def build_policy(cfg, resume_from: str | None = None, *, reference: bool | None = None) -> Policy:
    """The policy of `cfg` (an RL or SFT config; its `lora` section says what trains), its weights those of
    `resume_from` (a checkpoint) when given; a fresh adapter is initialised from `cfg.seed`.  `reference`: full
    fine-tuning keeps a frozen copy of the start (default: when the run uses a reference); LoRA's reference
    costs nothing either way (False, for runs that never compute one: no second copy of an SFT adapter)."""
    lora = getattr(cfg, "lora", None)
    if lora is not None and lora.full:
        return _full_policy(cfg, resume_from, cfg.kl.reference if reference is None else reference)
    import torch
    from peft import set_peft_model_state_dict
    from safetensors.torch import load_file

    from coderl.models import load_model, resolve_device
    from coderl.models.lora_dropout import use_integer_masks

    if getattr(lora, "qlora", False):  # QLoRA: the base in 4-bit, the adapters over it
        from coderl.models.quantized import load_quantized

        loaded = load_quantized(cfg.model, trainable=True)
    else:
        loaded = load_model(cfg.model, dtype=getattr(cfg, "dtype", "float32"),
                            device=resolve_device(getattr(cfg, "device", "cpu")))
    if loaded.kind == "adapter":
        model = loaded.model
        if reference is not False:
            model.load_adapter(loaded.adapter_path, adapter_name="reference", is_trainable=False)
        model.set_adapter("default")
        _freeze_all_but_default(model)
        lc = model.peft_config["default"]
        note = (f"training continues {cfg.model}'s LoRA (r {lc.r}, alpha {lc.lora_alpha}, dropout {lc.lora_dropout}, "
                f"targets {','.join(sorted(lc.target_modules))}); --lora-r/--lora-alpha/--lora-dropout/--lora-targets "
                "apply only to a fresh adapter over a base model")
        policy = Policy(model, loaded.tokenizer, loaded.base, "adapter", reference is not False, note, loaded.path,
                        prompt_format=getattr(cfg, "format", None))
    else:
        torch.manual_seed(cfg.seed)  # the adapter's initialisation (loading a base draws no random number)
        model = cfg.lora.wrap(loaded.model)
        policy = Policy(model, loaded.tokenizer, loaded.base, loaded.kind, False, path=loaded.path,
                        prompt_format=getattr(cfg, "format", None))
    use_integer_masks(model)  # LoRA dropout (SFT's) drawn from integers on a CPU: models/lora_dropout.py
    if getattr(getattr(cfg, "optim", cfg), "gradient_checkpointing", False):
        checkpoint_layers(model)
    if resume_from:
        weights = load_file(os.path.join(resume_from, "adapter_model.safetensors"))
        set_peft_model_state_dict(model, weights, adapter_name="default")
    return policy


def load_full(cfg, spec: str | None = None):
    """`LoadedModel` of `spec` (default `cfg.model`) with every weight trainable; an adapter is refused in one
    line (full fine-tuning trains a model's own weights)."""
    from coderl.models import load_model, resolve_device
    from coderl.models.spec import resolve_spec

    spec = spec or cfg.model
    if resolve_spec(spec).kind == "adapter":
        raise ConfigError(f"--finetune full: --model {spec} is a LoRA adapter; train it with --finetune lora, or give "
                          "a model folder (full fine-tuning trains the model's own weights)")
    loaded = load_model(spec, dtype=getattr(cfg, "dtype", "float32"),
                        device=resolve_device(getattr(cfg, "device", "cpu")))
    for p in loaded.model.parameters():
        # Weights that train get memory of their own: loaded from safetensors they can sit in the file's
        # mapping at any offset, and the CPU kernels' results depend on the alignment (a resumed run's gradient
        # differed from the uninterrupted run's in the last bit).  A tied pair is one Parameter: still tied.
        p.data = p.data.clone()
        p.requires_grad_(True)
    return loaded


def _full_policy(cfg, resume_from: str | None, reference: bool) -> Policy:
    start = load_full(cfg) if reference or not resume_from else None
    loaded = load_full(cfg, resume_from) if resume_from else start
    frozen = None
    if reference:  # the start's weights, never the checkpoint's
        frozen = start.model if resume_from else copy.deepcopy(start.model)
        frozen.eval().requires_grad_(False)
    model = loaded.model
    if getattr(getattr(cfg, "optim", cfg), "gradient_checkpointing", False):
        checkpoint_layers(model)
    n = sum(p.numel() for p in model.parameters())
    note = (f"full fine-tuning: every weight trains ({n:,} parameters, AdamW state for each)"
            + ("; the KL reference is a frozen copy of the start" if frozen is not None else
               "; no reference copy (no KL)"))
    return Policy(model, loaded.tokenizer, loaded.base, loaded.kind, False, note, loaded.path, full=True,
                  frozen=frozen)


def checkpoint_layers(model) -> int:
    """--gradient-checkpointing on `model` (`train/activation_checkpointing.py`); a one-line error if it cannot."""
    from coderl.train.activation_checkpointing import enable

    try:
        return enable(model)
    except ValueError as exc:
        raise ConfigError(f"--gradient-checkpointing: {exc}") from None


def save_policy(policy: Policy, path: str, state: dict | None = None) -> None:
    """Write the policy's trained weights to `path`: the adapter (LoRA), or the whole model with its tokenizer
    (full fine-tuning).  `state`: the weights to write when the model's own are sharded (`Ranks.full_state`)."""
    from coderl.models import save_adapter
    from coderl.models.load import save_model

    if policy.full:
        save_model(policy.model, policy.tokenizer, path, state_dict=state)
    else:
        save_adapter(policy.model, path, policy.base, adapters=["default"], state_dict=state,
                     prompt_format=policy.prompt_format)
