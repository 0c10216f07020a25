"""Row operations on `RolloutBatch`: select rows, drop rows with over-long prompts, concatenate chunks; rows of
token ids left-padded into a tensor."""

from __future__ import annotations

import dataclasses

import torch
import torch.nn.functional as F

from coderl.rollout.types import RolloutBatch


def drop_long_prompts(batch: RolloutBatch, max_prompt_tokens: int, offset: int = 0) -> RolloutBatch:
    """Rows whose prompt exceeds `max_prompt_tokens` are removed (and counted by the caller), never truncated.

    `offset` shifts group ids so chunks of one step keep distinct groups.
    """
    keep = [i for i, n in enumerate(batch.prompt_lengths.tolist()) if n <= max_prompt_tokens]
    return select_rows(batch, keep, offset)


def select_rows(batch: RolloutBatch, keep: list[int], offset: int = 0) -> RolloutBatch:
    """The rows `keep` of a batch, in that order; `offset` shifts their group ids (and samples' groups)."""
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
        attention_mask=batch.attention_mask[rows],
        turns=batch.turns[rows] if batch.turns is not None else None,
    )


def _regroup(sample, offset):
    return dataclasses.replace(sample, group=sample.group + offset) if offset else sample


def _pad_to(t: torch.Tensor, width: int, value, left: bool) -> torch.Tensor:
    return F.pad(t, (width - t.shape[1], 0) if left else (0, width - t.shape[1]), value=value)


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
        attention_mask=torch.cat([_pad_to(b.attention_mask, t, 0.0, False) for b in batches]),
        turns=(torch.cat([_pad_to(b.turns, t, -1, False) for b in batches])
               if all(b.turns is not None for b in batches) else None),
    )


def left_pad(rows: list[list[int]], pad_id: int, min_width: int = 0) -> tuple[torch.Tensor, torch.Tensor]:
    """([B, P] ids, [B, P] attention mask) with every row right-aligned (P at least `min_width`)."""
    width = max(min_width, max(len(r) for r in rows))
    ids = torch.full((len(rows), width), pad_id, dtype=torch.long)
    attention = torch.zeros((len(rows), width), dtype=torch.long)
    for i, r in enumerate(rows):
        if r:
            ids[i, width - len(r):] = torch.tensor(r, dtype=torch.long)
            attention[i, width - len(r):] = 1
    return ids, attention


def chunk_bounds(tasks: int, per_chunk: int, *, balanced: bool) -> list[int]:
    """Where `collect`'s chunks start, then the end: chunks of `per_chunk` tasks, the last one the rest; or,
    `balanced` (generation compiles a shape per batch size), as many chunks with sizes differing by at most
    one task, the bigger ones first: a remainder chunk would be a new batch shape and compile again (tens of
    seconds; BENCHMARKS.md, "On a GPU, third lease": 125 tasks x 8 in chunks of 31, 31, 31, 31, 1).  The
    balanced split of the tasks after any chunk's end gives the chunks that follow it (`eval --resume`)."""
    count = -(-tasks // per_chunk)
    if not balanced or not tasks:
        return [*range(0, tasks, per_chunk), tasks]
    size, bigger = divmod(tasks, count)
    bounds = [0]
    for i in range(count):
        bounds.append(bounds[-1] + size + (i < bigger))
    return bounds
