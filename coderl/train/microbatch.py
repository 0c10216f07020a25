"""What one optimiser update runs as: a minibatch's rows shared across ranks (`train/distributed.py`), then
cut into micro-batches of `--micro-batch-size` rows (gradient accumulation), each with the weight that
makes the sum of their backward passes the gradient of the whole minibatch's loss.

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


def pieces(cfg, ranks, minibatch: torch.Tensor, mask: torch.Tensor) -> list[tuple[torch.Tensor, float]]:
    """[(rows, weight)] of one update on this rank.  One process without micro-batches: [(minibatch, 1.0)]."""
    size = cfg.optim.micro_batch_size
    if not ranks.on and (not size or size >= len(minibatch)):
        return [(minibatch, 1.0)]
    group = cfg.samples_per_prompt  # ranks cut the rows at groups, so a group shares its prompt's pass
    rows = ranks.rows(minibatch, group)
    parts = [p for p in (rows.split(size) if size else [rows]) if len(p)]
    out = [(p, ranks.world * denominator_share(mask[p], mask[minibatch], cfg.aggregation)) for p in parts]
    spans = [Ranks(r, ranks.world).shard(len(minibatch), group) for r in range(ranks.world)]
    most = max((max(1, math.ceil((end - start) / size)) if size else 1) for start, end in spans)
    return out + [(minibatch[:1], 0.0)] * (most - len(out))


def synchronising(ranks, modules: list, last: bool):
    """DDP's `no_sync` on every module unless this is the update's last piece."""
    stack = contextlib.ExitStack()
    for module in modules:
        stack.enter_context(ranks.no_sync(module, sync=last))
    return stack


def update(run, modules: list, parts: list, piece_loss) -> dict:
    """One optimiser update: `piece_loss(rows) -> (loss, stats)` per piece, each backward weighted, then one
    clipped step (`apply_gradients`, on the loss summed over pieces and ranks).  Statistics: the mean over
    this rank's real pieces, then `train/grad_norm`, `loss/total`, `train/skipped_update_fraction`."""
    from coderl.train.common import Averages
    from coderl.train.scaffold import apply_gradients

    run.optimizer.zero_grad(set_to_none=True)
    total, averages = 0.0, Averages()
    for i, (rows, weight) in enumerate(parts):
        with synchronising(run.ranks, modules, last=i == len(parts) - 1):
            loss, stats = piece_loss(rows)
            (loss * weight).backward()
        total += float(loss.detach()) * weight
        if weight > 0:
            averages.add(stats)
    stats = averages.result()
    stats.update(apply_gradients(run.trainable, run.optimizer, run.cfg.optim.max_grad_norm,
                                 loss=run.ranks.mean_value(total)))  # weights hold `world`: the mean is the sum
    return stats
