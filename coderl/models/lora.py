"""LoRA helpers: the default adapter config and a count of what trains."""

from __future__ import annotations

LLAMA_TARGETS = ("q_proj", "k_proj", "v_proj", "o_proj")


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
    """(trainable parameters, all parameters, trainable / all); shared (tied) tensors count once."""
    seen: set[int] = set()
    trainable = total = 0
    for p in model.parameters():
        if id(p) in seen:
            continue
        seen.add(id(p))
        n = p.numel()
        total += n
        if p.requires_grad:
            trainable += n
    return trainable, total, (trainable / total if total else 0.0)
