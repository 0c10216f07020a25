"""The order a run draws its items in: a step's prompts (RL, `train/sources/rounds.py`, without a curriculum)
and SFT's examples (`train/sft/run.py`)."""

from __future__ import annotations

import random


def seeded_order(count: int, seed: int, start: int, length: int) -> list[int]:
    """Positions [start, start + length) of an endless order of range(count): a seeded shuffle per pass over
    it (pass e shuffled by `random.Random(f"{seed}:{e}")`), as the RL loops draw prompts and SFT examples."""
    first = start // count
    order: list[int] = []
    for epoch in range(first, (start + length - 1) // count + 1):
        perm = list(range(count))
        random.Random(f"{seed}:{epoch}").shuffle(perm)
        order += perm
    return order[start - first * count: start - first * count + length]
