"""Shared pieces of the training tests: a tiny model folder and an injected reward that varies per group."""

from __future__ import annotations

TASKS = "tests/fixtures/tasks/humaneval_small.jsonl"


def varied_reward(results, samples, tasks):
    """Deterministic, varies within every group (binary test rewards on a random model are all 0)."""
    return [float(i % 2) + 0.25 * (len(s.gen_tokens) % 3) for i, s in enumerate(samples)]


def learning_metrics(row: dict) -> dict:
    """A metrics row without what measures the wall clock -- time/*, watch/* (stall counts and slowdowns follow step
    times), rates per second and *_seconds -- which two runs of the same training need not share."""
    return {k: v for k, v in row.items()
            if not (k.startswith(("time/", "watch/")) or k.endswith("_seconds") or "per_second" in k)}


def base_config(model_dir, out, **overrides):
    from coderl.base.config import build
    from coderl.train.config import TrainConfig

    fields = dict(out=str(out), model=str(model_dir), tasks=TASKS, eval_tasks=None, format="completion",
                  steps=2, prompts_per_step=2, samples_per_prompt=3, max_new_tokens=6, learning_rate=1e-2,
                  save_steps=1, workers=2, progress=False, seed=0, max_total_sequence_length=512,
                  device="cpu")  # pinned numbers are the CPU's: never "auto" (a GPU where present)
    fields.update(overrides)
    return build(TrainConfig, fields)


def lora_over(model_dir):
    """(peft model with a LoRA r 4 adapter whose B is random, tokenizer) over the model at `model_dir`: with
    B = 0, as at initialisation, every lora_A gradient would be 0 and compare equal by accident."""
    import torch
    from peft import get_peft_model

    from coderl.models import load_model, lora_config

    loaded = load_model(str(model_dir))
    torch.manual_seed(0)
    model = get_peft_model(loaded.model, lora_config(4, 8, 0.0))
    with torch.no_grad():
        for name, p in model.named_parameters():
            if "lora_B" in name:
                p.normal_(0, 0.1)
    return model, loaded.tokenizer


def padded_rollout(model_dir):
    """(LoRA model, batch): 2 prompts x 3 samples of 7 tokens, rows 1 and 4 cut short (right padding inside
    a group), one prompt left-padded: what the log-prob passes must get right."""
    from coderl.rollout.generation import generate
    from coderl.tasks import load_tasks

    model, tokenizer = lora_over(model_dir)
    batch = generate(model, tokenizer, load_tasks(TASKS).tasks[:2], format="completion", samples_per_prompt=3,
                     max_new_tokens=7, temperature=1.0, seed=3, stop=[])
    for row, keep in ((1, 4), (4, 2)):
        batch.mask[row, keep:] = 0
        batch.completion_ids[row, keep:] = tokenizer.pad_token_id
        batch.logprobs[row, keep:] = 0
    return model, batch
