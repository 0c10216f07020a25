"""Shared pieces of the training tests: a tiny model folder and an injected reward that varies per group."""

from __future__ import annotations

TASKS = "tests/fixtures/tasks/humaneval_small.jsonl"


def varied_reward(results, samples, tasks):
    """Deterministic, varies within every group (binary test rewards on a random model are all 0)."""
    return [float(i % 2) + 0.25 * (len(s.gen_tokens) % 3) for i, s in enumerate(samples)]


def base_config(model_dir, out, **overrides):
    from coderl.base.config import build
    from coderl.train.config import TrainConfig

    fields = dict(out=str(out), model=str(model_dir), tasks=TASKS, eval_tasks=None, format="completion",
                  steps=2, prompts_per_step=2, samples_per_prompt=3, max_new_tokens=6, learning_rate=1e-2,
                  save_steps=1, workers=2, progress=False, seed=0, max_total_sequence_length=512,
                  device="cpu")  # pinned numbers are the CPU's: never "auto" (a GPU where present)
    fields.update(overrides)
    return build(TrainConfig, fields)
