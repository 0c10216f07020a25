"""How wide a paired pass@1 interval is, what makes it that wide, and what more samples a task would buy
(issue 72: "each evaluation set sized by what it must decide").

For two `coderl eval` runs of the same tasks (before, after): the paired difference of per-task pass rates and its
95% bootstrap interval (as `coderl compare` reports it, over tasks), and the split of the difference's variance
into its within-task part (the binomial noise of n samples a task: p(1 - p) / (n - 1) per side, unbiased) and the
between-task part (how much the change really differs from task to task; what more samples cannot remove).  From
that split: the normal-approximation half-width at m samples a task, and the smallest true difference that such an
interval would exclude 0 for in 80% of runs ((1.96 + 0.84) x standard error).

    python scripts/interval_budget.py BEFORE_RUN AFTER_RUN [--samples 4 8 16 32]
"""

from __future__ import annotations

import argparse
import math
import sys

from coderl.base.config import ConfigError
from coderl.eval.compare import task_samples
from coderl.eval.stats import paired_bootstrap_ci
from coderl.tasks.types import TaskFormatError


def budget(before: dict, after: dict, samples: list[int]) -> dict:
    """The figures above from two runs' per-task [samples, passed, tokens] (`compare.task_samples`)."""
    tasks = sorted(set(before) & set(after))
    if not tasks or set(before) != set(after):
        raise ConfigError(f"interval_budget: the two runs do not hold the same tasks ({len(before)} and "
                          f"{len(after)} tasks, {len(tasks)} in common); give two evaluations of one task set")
    rates = [(before[t][1] / before[t][0], after[t][1] / after[t][0]) for t in tasks]
    diffs = [a - b for b, a in rates]
    k = len(tasks)
    mean = sum(diffs) / k
    total = sum((d - mean) ** 2 for d in diffs) / (k - 1)  # variance of a task's difference, as observed
    n = min(min(before[t][0], after[t][0]) for t in tasks)
    within = 0.0
    if n > 1:
        for t, (b, a) in zip(tasks, rates):
            within += b * (1 - b) / (before[t][0] - 1) + a * (1 - a) / (after[t][0] - 1)
        within /= k
    between = max(total - within, 0.0)
    _, lo, hi = paired_bootstrap_ci([b for b, _ in rates], [a for _, a in rates])
    out = {"tasks": k, "samples": n, "delta": mean, "ci": (lo, hi), "half_width": (hi - lo) / 2,
           "within_share": within / total if total else 0.0, "projection": {}}
    for m in samples:
        se = math.sqrt((between + within * n / m) / k)
        out["projection"][m] = (1.96 * se, 2.80 * se)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("before")
    ap.add_argument("after")
    ap.add_argument("--samples", type=int, nargs="+", default=[1, 4, 8, 16, 32])
    args = ap.parse_args()
    try:
        b = budget(task_samples(args.before), task_samples(args.after), args.samples)
    except (ConfigError, TaskFormatError) as e:  # a bad samples.jsonl, or two task sets: one line, exit 2
        print(f"error: {e}", file=sys.stderr)
        raise SystemExit(2) from None
    lo, hi = b["ci"]
    print(f"{b['tasks']} tasks x {b['samples']} samples: delta pass@1 {b['delta']:+.3f} [{lo:+.3f}, {hi:+.3f}] "
          f"(half-width {b['half_width']:.3f}); within-task (sampling) share of the variance "
          f"{b['within_share']:.0%}, between-task {1 - b['within_share']:.0%}")
    print("samples a task | half-width (normal approx.) | smallest difference decided in 80% of runs")
    for m, (half, mde) in b["projection"].items():
        print(f"{m:>14} | {half:>27.3f} | {mde:.3f}")


if __name__ == "__main__":
    main()
