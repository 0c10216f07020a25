"""Refill: with more rows than run at once, rows that end make room for waiting ones (`rollout/hf.py`'s
`sample_rows` schedules its calls through `refilled_rows` when `refills` says so).

Without refill a batch decodes until its longest row ends, and compaction only narrows it: at the CPU demo's
evaluation shapes most rows end within 60 tokens and one in a batch runs to 128, so a large share of a batch's
steps carried few rows.  Here, while rows wait, a call ends once a quarter of its rows have ended; the running rows
keep their cached keys and values, the waiting rows' prompts are prefilled (each distinct prompt once), and both
continue in one call, each side right-aligned at the width of the longest row (`kv_cache.joined_cache`: the left
padding is masked and positions count real tokens, so a row's logits are those of one plain call up to float
rounding).  Each row keeps its own budget of `max_new_tokens`.  Once no row waits, the running rows compact as
`_generate_rows` compacts.  Deterministic for a given `width` and seed (rows start in order); another `width`
samples from the same distributions in another random order.

The scheduler is given the two things it runs, by `rollout/hf.py`: `run_call` (one `model.generate` call on
left-padded rows and a cache, `hf._generate_chunk`) and `prefill` (the KV cache of prompts but their last token,
`hf._shared_prefill`).
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import torch

from coderl.rollout.batching import left_pad
from coderl.rollout.hf_config import owns_cache
from coderl.rollout.kv_cache import growing_cache, joined_cache


def refills(model: Any, *, static: bool, lockstep: bool, min_new_tokens: int | None, compact_rows: int) -> bool:
    """Whether `sample_rows` refills finished rows with waiting ones: a full-attention model decoding with
    coderl's growing cache, not compiled, not in lockstep, no `min_new_tokens` (a floor counted per call),
    compaction on."""
    return (not static and not lockstep and not min_new_tokens and compact_rows > 0 and not owns_cache(model)
            and growing_cache(model, 1) is not None)


def refilled_rows(model, tokenizer, prompts: list[list[int]], stops: list[tuple[str, ...]], *, config: Any,
                  temperature: float, top_p: float, device: torch.device, width: int, compact_rows: int,
                  run_call: Callable, prefill: Callable) -> tuple[list[list[int]], list[torch.Tensor]]:
    """Per row: (generated ids, possibly followed by padding after the row ended; their log-probs), with at most
    `width` rows decoding at a time (module docstring)."""
    n = len(prompts)
    limit = config.max_new_tokens
    out_ids: list[list[int]] = [[] for _ in range(n)]
    out_lp: list[list[torch.Tensor]] = [[] for _ in range(n)]
    made = [0] * n
    taken = 0
    active: list[int] = []
    input_ids = attention = cache = None
    while active or taken < n:
        if taken < n and len(active) < width:
            new = list(range(taken, min(n, taken + width - len(active))))
            taken += len(new)
            input_ids, attention, cache = _join(model, [prompts[i] for i in new], (input_ids, attention, cache),
                                                config.pad_token_id, limit, device, prefill)
            active += new
        if taken < n:  # rows wait: end the call once a quarter of its rows have ended
            leave = len(active) - max(1, len(active) // 4)
        else:
            leave = len(active) // 2 if compact_rows and len(active) > compact_rows else 0
        call = copy.deepcopy(config)
        call.max_new_tokens = min(limit - made[i] for i in active)
        call.return_dict_in_generate = True
        ids, lps, running, sequences, cache = run_call(
            model, tokenizer, input_ids, attention, [stops[i] for i in active], carry=[out_ids[i] for i in active],
            cache=cache, config=call, temperature=temperature, top_p=top_p, min_new_tokens=0, device=device,
            leave=leave, watch=True)
        steps = ids.shape[1]
        for j, i in enumerate(active):
            out_ids[i] += ids[j].tolist()
            out_lp[i].append(lps[j])
            made[i] += steps
        keep = [j for j, i in enumerate(active) if running[j] and made[i] < limit]
        active = [active[j] for j in keep]
        if not keep:
            input_ids = attention = cache = None
            continue
        rows = torch.tensor(keep, dtype=torch.long)
        cache.reorder_cache(rows.to(device))  # the running rows' keys/values, nothing recomputed
        input_ids = sequences[rows].cpu()
        attention = torch.cat([attention[rows], torch.ones((len(keep), steps), dtype=attention.dtype)], dim=1)
    return out_ids, [torch.cat(parts) for parts in out_lp]


def _join(model, prompts: list[list[int]], running: tuple, pad_id: int, limit: int, device: torch.device,
          prefill: Callable):
    """(ids, attention, cache) of the `running` rows (each None when none runs) followed by `prompts`, whose
    prompts are prefilled here (all but their last token); every row right-aligned at the longest row's width."""
    ids, attention = left_pad(prompts, pad_id, min_width=2)
    fresh = prefill(model, prompts, ids, attention, device, always=True,
                    cache=growing_cache(model, ids.shape[1] + limit))
    old_ids, old_attention, old_cache = running
    if old_ids is None:
        return ids, attention, fresh
    longest = [int(a.sum(1).max()) for a in (old_attention, attention)]
    width = max(longest)
    parts, rows = [], []
    for (i, a, c), m in zip(((old_ids, old_attention, old_cache), (ids, attention, fresh)), longest):
        start = i.shape[1] - m  # columns every row of this side pads
        rows.append((torch.nn.functional.pad(i[:, start:], (width - m, 0), value=pad_id),
                     torch.nn.functional.pad(a[:, start:], (width - m, 0), value=0)))
        parts.append((c, start))
    cache = joined_cache(parts, width - 1, width - 1 + limit)
    return torch.cat([r[0] for r in rows]), torch.cat([r[1] for r in rows]), cache
