"""An online curriculum: prefer the tasks the policy sometimes solves.

A task whose completions always pass or always fail gives a group-relative estimator no signal.
Each task keeps a running pass rate (an exponential moving average, momentum 0.5, of the fraction
of its completions that passed, updated every time it is drawn; unseen tasks have none).  A step
draws its prompts without replacement with weight 1 for a task that is unseen or whose running
rate is strictly between 0 and 1, and `floor` for the others, so solved and hopeless tasks still
come back now and then (exploration) and their rate can move.  The draw for a step is seeded by
(seed, step), and the rates are saved with every checkpoint, so a resumed run draws the same.
"""

from __future__ import annotations

import random

MOMENTUM = 0.5
_EDGE = 1e-9


def task_weights(rates: list[float | None], floor: float) -> list[float]:
    """1 for unseen tasks and tasks with 0 < rate < 1, `floor` for rate 0 or 1."""
    return [1.0 if r is None or _EDGE < r < 1 - _EDGE else floor for r in rates]


def weighted_sample(weights: list[float], k: int, rng: random.Random) -> list[int]:
    """k distinct indices, drawn in turn with probability proportional to weight among those left
    (Efraimidis & Spirakis 2006: the k largest keys u^(1/w)); zero weights only when nothing else is left."""
    keys = []
    for i, w in enumerate(weights):
        u = rng.random()
        keys.append((u ** (1.0 / w) if w > 0 else -1.0 + u * 1e-9, i))
    return [i for _, i in sorted(keys, reverse=True)[:k]]


def update_rate(old: float | None, passed_fraction: float) -> float:
    return passed_fraction if old is None else MOMENTUM * old + (1 - MOMENTUM) * passed_fraction


def curriculum_prompts(rates: list[float | None], k: int, floor: float, seed: int, step: int) -> list[int]:
    rng = random.Random(f"{seed}:curriculum:{step}")
    return weighted_sample(task_weights(rates, floor), min(k, len(rates)), rng)


def frontier_fraction(rates: list[float | None]) -> float:
    """Of the tasks seen so far, the fraction with 0 < rate < 1."""
    seen = [r for r in rates if r is not None]
    return sum(_EDGE < r < 1 - _EDGE for r in seen) / len(seen) if seen else 0.0
