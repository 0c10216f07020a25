"""What trains: the `LoraConfig` section shared by `coderl sft` and `coderl train` (a LoRA adapter, over a 4-bit
base with QLoRA, or every weight with `--finetune full`), the peft adapter config, and a count of what trains."""

from __future__ import annotations

from dataclasses import dataclass

from coderl.base.config import ConfigError, option, require

LLAMA_TARGETS = ("q_proj", "k_proj", "v_proj", "o_proj")
# The named target sets of llama-like models: the attention projections, or every linear layer of a block.
TARGETS = {"attention": LLAMA_TARGETS, "all-linear": LLAMA_TARGETS + ("gate_proj", "up_proj", "down_proj")}
FINETUNES = ("lora", "full")


@dataclass
class LoraConfig:
    """What trains: a LoRA adapter (rank, alpha, dropout; a 4-bit base with QLoRA; seed 001: r 8, alpha 16, dropout
    0.05, QLoRA SFT; seed 003: r 16), or every weight of the model (`--finetune full`)."""

    finetune: str = option("lora", "what trains: lora (an adapter over the frozen base) or full (every weight: AdamW "
                           "state for each, full-weight checkpoints, and under train a frozen copy of the start as "
                           "the KL reference when one is used)", choices=list(FINETUNES))
    lora_r: int | None = option(None, "LoRA rank of a fresh adapter (default: 8; train --algo ppo: 16); an SFT "
                                "adapter given as --model keeps its own shape")
    lora_alpha: int = option(16, "LoRA alpha")
    lora_dropout: float = option(0.05, "LoRA dropout (on during SFT; off during RL passes, whose ratios need the "
                                 "sampling function)")
    lora_targets: str = option("attention", "the layers a fresh adapter wraps: attention (q, k, v, o projections), "
                               "all-linear (those and the MLP's gate, up, down) or a comma-separated list of module "
                               "names; an SFT adapter given as --model keeps its own targets")
    qlora: bool = option(False, "QLoRA: load the base in 4-bit NF4 (bitsandbytes, bfloat16 compute) under the "
                         "adapter; needs a CUDA GPU")

    def __post_init__(self):
        require(self.finetune in FINETUNES, "--finetune", self.finetune, "one of " + ", ".join(FINETUNES))
        require(not (self.full and self.lora_r is not None), "--lora-r", self.lora_r,
                "no LoRA rank with --finetune full (every weight trains)")
        require(not (self.full and self.qlora), "--qlora", self.qlora,
                "--finetune lora (a 4-bit base is frozen: only an adapter over it trains)")
        require(self.lora_r is None or self.lora_r >= 1, "--lora-r", self.lora_r, "an integer >= 1")
        require(self.lora_alpha >= 1, "--lora-alpha", self.lora_alpha, "an integer >= 1")
        require(0 <= self.lora_dropout < 1, "--lora-dropout", self.lora_dropout, "a number in [0, 1)")
        require(not (self.full and self.lora_targets != "attention"), "--lora-targets", self.lora_targets,
                "no LoRA targets with --finetune full (every weight trains)")
        target_modules(self.lora_targets)  # a malformed list is one line at load, not at model load

    @property
    def full(self) -> bool:
        """Full fine-tuning: every weight trains, no adapter."""
        return self.finetune == "full"

    @property
    def rank(self) -> int:
        return 8 if self.lora_r is None else self.lora_r

    def peft(self):
        """The peft adapter config of these settings."""
        return lora_config(self.rank, self.lora_alpha, self.lora_dropout, target_modules(self.lora_targets))

    def wrap(self, model):
        """`model` under a fresh adapter of these settings; targets the model lacks are one line."""
        from peft import get_peft_model

        try:
            return get_peft_model(model, self.peft())
        except ValueError as e:
            if "not found in the base model" not in str(e):
                raise
            raise ConfigError(f"--lora-targets={self.lora_targets!r}: expected module names of this model "
                              f"(none of {', '.join(target_modules(self.lora_targets))} is a layer of it)") from None


def target_modules(spec: str) -> tuple[str, ...]:
    """The module names a fresh adapter wraps: a named set of TARGETS, or comma-separated module names."""
    if spec in TARGETS:
        return TARGETS[spec]
    names = tuple(n.strip() for n in str(spec).split(","))
    require(all(n.replace("_", "").replace(".", "").isalnum() for n in names), "--lora-targets", spec,
            f"{' or '.join(TARGETS)}, or comma-separated module names (e.g. q_proj,v_proj)")
    return names


def lora_config(r: int = 8, alpha: int = 16, dropout: float = 0.05, target_modules=None):
    """A peft `LoraConfig` for causal LMs; targets the attention projections of llama-like models
    (q_proj, k_proj, v_proj, o_proj) unless `target_modules` says otherwise."""
    from peft import LoraConfig, TaskType

    return LoraConfig(
        r=r,
        lora_alpha=alpha,
        lora_dropout=dropout,
        target_modules=list(target_modules) if target_modules is not None else list(LLAMA_TARGETS),
        bias="none",
        task_type=TaskType.CAUSAL_LM,
    )


def trainable_ratio(model) -> tuple[int, int, float]:
    """(trainable parameters, all parameters, trainable / all); shared (tied) tensors count once, as
    `parameters()` yields them once."""
    params = list(model.parameters())
    total = sum(p.numel() for p in params)
    trainable = sum(p.numel() for p in params if p.requires_grad)
    return trainable, total, (trainable / total if total else 0.0)
