"""SDPO's teacher pass (`--self-distill W`; docs/training.md): the policy at the step's start scores each row's own
completion tokens under the row's teacher prompt (`train/sources/teacher_prompts.py`: its chat prompt with the
sandbox's feedback on its visible tests), without a graph; the loss that uses it: `coderl.algorithms.self_distill`.

    teacher = teacher_logprobs(model, batch, rolled.teacher_prompts, temperature, updater, pad_id)
    # ([N, T] log-probs, 0 where a row has no teacher; [N] bool rows that have one) or None
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

import torch

from coderl.rollout.batching import left_pad, select_rows
from coderl.train.rl.logprobs import build_sequences, token_logprobs


def teacher_logprobs(model, batch, prompts: Sequence[list[int] | None], temperature: float, updater,
                     pad_id: int) -> tuple[torch.Tensor, torch.Tensor] | None:
    """(log-probs [N, T] of every row's completion tokens under its teacher prompt, 0 where it has none; [N] bool of
    the rows that have one), from `model` without a graph, shared among the updater's processes; None when no row
    has a teacher."""
    rows = [i for i, p in enumerate(prompts) if p is not None]
    if not rows:
        return None
    ids, attention = left_pad([prompts[i] for i in rows], pad_id)
    taught = dataclasses.replace(select_rows(batch, rows), prompt_ids=ids, prompt_lengths=attention.sum(1))
    with torch.no_grad():
        got = updater.map_rows(len(rows), lambda part: token_logprobs(
            model, build_sequences(taught, part), temperature, chunk_bytes=updater.memory.chunk_bytes),
            width=taught.width)
    full = torch.zeros_like(batch.logprobs)
    full[rows] = got.to(full.dtype)
    has = torch.zeros(len(batch), dtype=torch.bool)
    has[rows] = True
    return full, has
