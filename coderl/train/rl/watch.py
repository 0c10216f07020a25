"""Reward-hacking watch: at every evaluation, the step's highest-reward completions go to
`OUT/top_samples/step-N.jsonl`, so a person can read what is being rewarded (a tamper rate, an empty
rate and the length are logged already; this is what they summarise)."""

from __future__ import annotations

import json
import os

TOP = 8


def write_top_samples(out: str, step: int, batch, rewards, top: int = TOP) -> str:
    """The `top` completions of the step by reward (ties: batch order), one JSON line each."""
    order = sorted(range(len(batch.samples)), key=lambda i: (-float(rewards[i]), i))[:top]
    directory = os.path.join(out, "top_samples")
    os.makedirs(directory, exist_ok=True)
    path = os.path.join(directory, f"step-{step}.jsonl")
    with open(path, "w", encoding="utf-8") as f:
        for i in order:
            s = batch.samples[i]
            f.write(json.dumps({"step": step, "task_id": s.task_id, "reward": float(rewards[i]),
                                "gen_tokens": len(s.gen_tokens), "truncated": s.truncated,
                                "format_ok": s.format_ok, "completion": s.completion,
                                "raw_output": s.raw_output}) + "\n")
    return path
