"""Group sizes from measured pass rates: spend a step's samples where they teach (issue 39).

A group-relative estimator learns from a group only when its rewards differ: with pass rate p, a group
of n samples has both a pass and a fail with probability

    informative(n, p) = 1 - p^n - (1 - p)^n

which is 0 for a solved (p = 1) or hopeless (p = 0) task at every n, near 1 at small n for p = 1/2,
and grows slowly, up to n ~ 1/p, for a rare success.  `allocate_group_sizes` shares a fixed budget of
samples among a step's tasks to maximise the expected number of informative groups: greedily, each
next block of samples goes where it adds the most probability per sample (the first block of a task
is a whole minimal group).  So solved tasks get nothing, easy-but-not-solved ones a small group,
rare successes large ones, and the budget is never exceeded.

A running rate of exactly 0 is an estimate from few samples, not a proof: `hopeless_rate` stands in for
it (a small chance of success, so a hopeless task is explored only once better uses of the budget are
full).  A task never measured gets `unseen_rate`.
"""

from __future__ import annotations

_EDGE = 1e-9


def informative(n: int, p: float) -> float:
    """P(a group of `n` samples of pass rate `p` holds both a pass and a fail)."""
    if n < 2:
        return 0.0
    return max(0.0, 1.0 - p ** n - (1.0 - p) ** n)


def effective_rate(rate: float | None, *, unseen_rate: float, hopeless_rate: float) -> float:
    """The rate the allocation plans with: `unseen_rate` for an unmeasured task, `hopeless_rate` for a
    measured 0, the rate itself otherwise (1 stays 1: a solved task gets no samples)."""
    if rate is None:
        return unseen_rate
    if rate <= _EDGE:
        return hopeless_rate
    return min(rate, 1.0)


def allocate_group_sizes(rates: list[float | None], budget: int, *, min_group: int = 2, max_group: int = 32,
                         block: int = 2, unseen_rate: float = 0.5, hopeless_rate: float = 0.02) -> list[int]:
    """Samples per task (0, or `min_group` to `max_group` in steps of `block`), summing to at most `budget`,
    that maximise the expected number of informative groups (module docstring).  Ties go to the earlier
    task.  Unspent budget means no task could use it (all solved, or every group at `max_group`)."""
    if min_group < 2 or block < 1 or max_group < min_group or budget < 0:
        raise ValueError(f"allocate_group_sizes: need min_group >= 2, block >= 1, max_group >= min_group and "
                         f"budget >= 0 (got {min_group}, {block}, {max_group}, {budget})")
    plan = [effective_rate(r, unseen_rate=unseen_rate, hopeless_rate=hopeless_rate) for r in rates]
    sizes = [0] * len(rates)
    left = budget
    while True:
        best, best_step, best_gain = None, 0, 0.0
        for i, p in enumerate(plan):
            n = sizes[i]
            step = min_group if n == 0 else min(block, max_group - n)
            if step <= 0 or step > left:
                continue
            gain = (informative(n + step, p) - informative(n, p)) / step
            if gain > best_gain + 1e-12:
                best, best_step, best_gain = i, step, gain
        if best is None:
            return sizes
        sizes[best] += best_step
        left -= best_step
