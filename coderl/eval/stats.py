"""Confidence intervals: percentile bootstrap, plain and paired, over tasks or over clusters of tasks.

Tasks are the unit of resampling unless `clusters` names a cluster per task: then whole clusters are
resampled (a cluster bootstrap).  Synthetic tasks cluster by *composition* (the chain of primitives,
`task.metadata["composition"]`): 400 tasks of 256 compositions are not 400 independent draws, and level 1
has 8 test compositions in all, so an interval over its tasks would be far too narrow.  Each resample
draws as many clusters as there are, with replacement, and takes the mean over every task they hold
(with one task a cluster: the plain bootstrap, draw for draw).  Pure Python, seeded, so the same inputs
give the same interval.
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


def cluster_totals(values: Sequence[float], clusters: Sequence | None = None) -> list[tuple[float, int]]:
    """(sum of values, tasks) per cluster, clusters in order of first appearance; None: each value its own."""
    if clusters is None:
        return [(v, 1) for v in values]
    if len(clusters) != len(values):
        raise ValueError(f"one cluster per value needed ({len(clusters)} clusters for {len(values)} values)")
    totals: dict = {}
    for v, c in zip(values, clusters):
        s, n = totals.get(c, (0, 0))
        totals[c] = (s + v, n + 1)
    return list(totals.values())


def resample_means(totals: list[tuple[float, int]], resamples: int, rng: random.Random) -> list[float]:
    """Per resample: draw len(totals) clusters with replacement, the mean over every task they hold."""
    k = len(totals)
    means = []
    for _ in range(resamples):
        s = n = 0
        for _ in range(k):
            cs, cn = totals[rng.randrange(k)]
            s += cs
            n += cn
        means.append(s / n)
    return means


def bootstrap_ci(values: Sequence[float], *, clusters: Sequence | None = None, confidence: float = 0.95,
                 resamples: int = 2000, seed: int = 0) -> tuple[float, float]:
    """Percentile-bootstrap interval of the mean of `values` (one value per task), resampling tasks, or the
    clusters `clusters` names (one label per value; see the module docstring)."""
    if not values:
        raise ValueError("bootstrap of no values")
    means = sorted(resample_means(cluster_totals(values, clusters), resamples, random.Random(seed)))
    alpha = (1.0 - confidence) / 2.0
    return _percentile(means, alpha), _percentile(means, 1.0 - alpha)


def paired_bootstrap_ci(before: Sequence[float], after: Sequence[float], *, clusters: Sequence | None = None,
                        confidence: float = 0.95, resamples: int = 2000, seed: int = 0) -> tuple[float, float, float]:
    """Mean of (after - before) over the same tasks and its percentile-bootstrap interval (over clusters
    when `clusters` is given: both sides of a task move together, and so do a cluster's tasks)."""
    if len(before) != len(after):
        raise ValueError(f"paired bootstrap needs the same tasks on both sides ({len(before)} vs {len(after)})")
    diffs = [a - b for a, b in zip(after, before)]
    lo, hi = bootstrap_ci(diffs, clusters=clusters, confidence=confidence, resamples=resamples, seed=seed)
    return sum(diffs) / len(diffs), lo, hi
