"""Keys and values kept from one turn of an episode to the next: the HF engine prefills only what a turn added.

An episode's next prompt is its previous prompt, the reply's ids and the observation's glue (`rollout.episodes`: it
extends the previous one by construction).  Without this, every turn's `generate` call prefilled the whole
conversation again: at 8 turns of the bundled model on a 2-vCPU CPU, 13x the prompt tokens and 1.29x the episodes'
generation time (BENCHMARKS.md, "An agent's turns"; more as observations grow).  `TurnCache` keeps, per row of the
last calls, the ids the model has run and their keys and values; a call's row then starts from the kept row that
shares the longest prefix with it, runs only the rest of its prompt, and the rows are laid out left-padded as
`generate` expects.

What is kept is whatever the cache held when a row left its call: its prompt and the tokens fed after it, padding
after its end included.  Matching by the longest common prefix (never "a kept row is a prefix") keeps exactly the
positions whose tokens the new prompt repeats: a key or value depends only on the tokens up to its position, so the
padding, a cut stop sequence or a token the glue spells differently are simply run again.

Numbers: the same as a full prefill up to float rounding (a row's prefix ran in another call, in a batch of
another shape); greedy episodes are checked token for token against the engine without it (tests/rollout/
test_turn_cache.py).  Memory: a kept row leaves the kept ones once a call takes it (its keys and values are then in
that call's cache, written there directly), and the collector drops those of ended episodes after each turn
(`retain`); so at most about one row's worth per running episode is kept beside a call's own cache (about 46 KB a
token for the bundled model in float32).  Used only by the collector of episodes
(`HFEngine.for_episodes`), only with the growing cache of a full-attention model (`kv_cache.growing_cache`), never
with a static cache or in lockstep.
"""

from __future__ import annotations

import torch
from transformers.cache_utils import DynamicCache

from coderl.models.outputs import KV_CACHE


class TurnCache:
    """The kept rows, each (ids the model ran, per layer (keys, values) [heads, len(ids), dim]): `rows` from the turns
    before this one (a call that takes one takes it away), `fresh` from this turn's calls (a row of a later call of
    the same turn -- a group's sample in the next chunk, its first prompt the same -- may start from one too)."""

    def __init__(self):
        self.rows: list[tuple[torch.Tensor, list[tuple[torch.Tensor, torch.Tensor]]]] = []
        self.fresh: list[tuple[torch.Tensor, list[tuple[torch.Tensor, torch.Tensor]]]] = []
        self.reused = 0  # prompt tokens taken from kept rows (not run again), over every call
        self.prefilled = 0  # prompt tokens run

    def longest(self, ids: torch.Tensor) -> tuple[int, int | None]:
        """(length, index into `rows + fresh`) of the kept row sharing the longest prefix with `ids` (0, None: none
        shares one)."""
        best, index = 0, None
        for i, (kept, _) in enumerate(self.rows + self.fresh):
            n = min(len(kept), len(ids))
            if n <= best:
                continue
            same = kept[:n] == ids[:n]
            shared = n if bool(same.all()) else int(same.to(torch.int8).argmin())
            if shared > best:
                best, index = shared, i
        return best, index

    def prefill(self, model, prompts: list[list[int]], width: int, device, cache: DynamicCache) -> DynamicCache:
        """`cache` filled with every row's prompt but its last token, laid out left-padded to `width` - 1 positions
        (the layout of `generate`'s left-padded input of `width`): each distinct prompt run once, from the kept row
        sharing the longest prefix with it, and written straight into the cache's buffers.  A row kept from an earlier
        turn leaves the kept ones when a call takes it (the call's cache holds it now; a later row with the very same
        history runs it again)."""
        first: dict[tuple[int, ...], int] = {}
        for i, p in enumerate(prompts):
            key = tuple(p[:-1])
            if key in first:  # the same prompt as an earlier row of the call: its keys and values
                for layer in cache.layers:
                    layer.keys[i], layer.values[i] = layer.keys[first[key]], layer.values[first[key]]
                continue
            first[key] = i
            for layer, (k, v) in enumerate(self._run(model, torch.tensor(key, dtype=torch.long), device)):
                if i == 0:  # the buffers, made once: [rows, heads, width - 1, dim]
                    cache.update(k.new_zeros((len(prompts), k.shape[0], width - 1, k.shape[-1])),
                                 v.new_zeros((len(prompts), v.shape[0], width - 1, v.shape[-1])), layer)
                cache.layers[layer].keys[i, :, width - len(p):] = k
                cache.layers[layer].values[i, :, width - len(p):] = v
        return cache

    def _run(self, model, ids: torch.Tensor, device) -> list:
        """Per layer (keys, values) [heads, len(ids), dim] of `ids`, its kept prefix reused."""
        shared, index = self.longest(ids)
        if index is None:
            kept = []
        elif index < len(self.rows):  # an earlier turn's: taken away
            kept = self.rows.pop(index)[1]
        else:
            kept = self.fresh[index - len(self.rows)][1]
        self.reused += shared
        self.prefilled += len(ids) - shared
        if shared == len(ids):
            return [(k[:, :shared], v[:, :shared]) for k, v in kept]
        past = DynamicCache()
        for layer, (k, v) in enumerate(kept):
            past.update(k[None, :, :shared], v[None, :, :shared], layer)
        rest = ids[shared:][None].to(device)
        out = model(input_ids=rest, attention_mask=torch.ones((1, len(ids)), dtype=torch.long, device=device),
                    position_ids=torch.arange(shared, len(ids), device=device)[None], use_cache=True,
                    logits_to_keep=1, **{KV_CACHE: past})
        return [(layer.keys[0], layer.values[0]) for layer in getattr(out, KV_CACHE).layers]

    def keep(self, cache, rows: list[int], sequences: torch.Tensor, starts: list[int]) -> None:
        """Keep rows `rows` of `cache` (row j's tokens: `sequences[j]` from `starts[j]`, its left padding before)
        as they are now: every position the cache holds."""
        held = cache.get_seq_length()
        for j in rows:
            ids = sequences[j, starts[j]:held].cpu()
            self.fresh.append((ids, [(layer.keys[j, :, starts[j]:held].clone(), layer.values[j, :, starts[j]:held]
                                     .clone()) for layer in cache.layers]))

    def retain(self, going: list[list[int]]) -> None:
        """The turn's end: keep only the rows that share the longest prefix with an episode that goes on (`going`:
        their ids), for the next turn to take."""
        wanted = {self.longest(torch.tensor(ids, dtype=torch.long))[1] for ids in going} - {None}
        self.rows = [row for i, row in enumerate(self.rows + self.fresh) if i in wanted]
        self.fresh = []
