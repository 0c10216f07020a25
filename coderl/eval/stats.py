"""Confidence intervals over tasks: percentile bootstrap, plain and paired.

Tasks are the unit of resampling (seed 001 reports pass@1 over 33 tasks: the interval says how
much that number moves with the choice of tasks).  Pure Python, seeded, so the same inputs give the
same interval.
"""

from __future__ import annotations

import random
from collections.abc import Sequence


def _percentile(sorted_values: Sequence[float], q: float) -> float:
    """Linear interpolation between closest ranks (numpy's default)."""
    if not sorted_values:
        raise ValueError("percentile of no values")
    pos = (len(sorted_values) - 1) * q
    lo = int(pos)
    hi = min(lo + 1, len(sorted_values) - 1)
    return sorted_values[lo] + (sorted_values[hi] - sorted_values[lo]) * (pos - lo)


def bootstrap_ci(values: Sequence[float], *, confidence: float = 0.95, resamples: int = 2000,
                 seed: int = 0) -> tuple[float, float]:
    """Percentile-bootstrap interval of the mean of `values` (one value per task)."""
    if not values:
        raise ValueError("bootstrap of no values")
    rng = random.Random(seed)
    n = len(values)
    means = sorted(sum(values[rng.randrange(n)] for _ in range(n)) / n for _ in range(resamples))
    alpha = (1.0 - confidence) / 2.0
    return _percentile(means, alpha), _percentile(means, 1.0 - alpha)


def paired_bootstrap_ci(before: Sequence[float], after: Sequence[float], *, confidence: float = 0.95,
                        resamples: int = 2000, seed: int = 0) -> tuple[float, float, float]:
    """Mean of (after - before) over the same tasks and its percentile-bootstrap interval."""
    if len(before) != len(after):
        raise ValueError(f"paired bootstrap needs the same tasks on both sides ({len(before)} vs {len(after)})")
    diffs = [a - b for a, b in zip(after, before)]
    lo, hi = bootstrap_ci(diffs, confidence=confidence, resamples=resamples, seed=seed)
    return sum(diffs) / len(diffs), lo, hi
