"""What one optimiser update runs as (`train/updater.py` runs it): a minibatch's rows shared across
ranks (`train/distributed.py`), then cut into micro-batches of `--micro-batch-size` rows (gradient
accumulation), each with the weight that makes the sum of their backward passes the gradient of the
whole minibatch's loss.

The loss of every loop is an `aggregate` over rows (policy loss, KL, entropy, value loss: one mode), i.e.
a sum over rows divided by one denominator, so a piece's loss times its share of the minibatch's
denominator is exactly its term (`algorithms.aggregation.denominator_share`); DDP averages over ranks,
hence the extra factor `world`.  Every rank runs the same number of pieces, padding with one row
weighted 0, because each synchronising backward needs every rank; DDP synchronises only the last.
"""

from __future__ import annotations

import contextlib
import math

import torch

from coderl.algorithms import denominator_share
from coderl.train.distributed import Ranks


def pieces(ranks, minibatch: torch.Tensor, mask: torch.Tensor, *, size: int | None, group: int,
           aggregation: str, live: torch.Tensor | None = None) -> list[tuple[torch.Tensor, float]]:
    """[(rows, weight)] of one update on this rank: micro-batches of `size` rows (None: one), the ranks
    cutting the rows at whole groups of `group` samples (a group shares its prompt's pass), weighted by
    their share of the minibatch's `aggregation` denominator.  One process without micro-batches:
    [(minibatch, 1.0)].

    `live` [N] (one process): the rows whose loss term can be non-zero.  The others (a zero advantage and
    no KL or entropy term: their term and its gradient are exactly 0) run no forward or backward; the live
    rows keep their share of the whole minibatch's denominator, so the gradient is the same."""
    if live is not None and not ranks.on:
        kept = minibatch[live[minibatch]]
        parts = [p for p in (kept.split(size) if size else [kept]) if len(p)]
        return [(p, denominator_share(mask[p], mask[minibatch], aggregation)) for p in parts]
    if not ranks.on and (not size or size >= len(minibatch)):
        return [(minibatch, 1.0)]
    rows = ranks.rows(minibatch, group)
    parts = [p for p in (rows.split(size) if size else [rows]) if len(p)]
    out = [(p, ranks.world * denominator_share(mask[p], mask[minibatch], aggregation)) for p in parts]
    spans = [Ranks(r, ranks.world).shard(len(minibatch), group) for r in range(ranks.world)]
    most = max((max(1, math.ceil((end - start) / size)) if size else 1) for start, end in spans)
    return out + [(minibatch[:1], 0.0)] * (most - len(out))


def synchronising(ranks, modules: list, last: bool):
    """DDP's `no_sync` on every module unless this is the update's last piece."""
    stack = contextlib.ExitStack()
    for module in modules:
        stack.enter_context(ranks.no_sync(module, sync=last))
    return stack
