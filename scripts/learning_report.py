"""Before/after comparison of an RL run (RESULTS.md): paired pass@1 differences with 95% paired-bootstrap
intervals over tasks, and the run's curves as one PNG.

    python scripts/learning_report.py RUN_DIR --pair BEFORE_EVAL AFTER_EVAL [--pair ...] --png OUT.png
"""

from __future__ import annotations

import argparse
import json
import os

from coderl.eval.stats import paired_bootstrap_ci
from coderl.pipeline.report import task_pass_rates

CURVES = [("reward/total", "reward"), ("sandbox/pass_rate", "pass rate"), ("rollout/gen_tokens", "generated tokens"),
          ("kl/mean", "KL to the reference (k3, per token)"), ("rollout/empty_rate", "empty rate"),
          ("sandbox/tamper_rate", "tamper rate")]
WINDOW = 5  # steps in the moving average drawn over each curve


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("run")
    ap.add_argument("--pair", nargs=2, action="append", default=[], metavar=("BEFORE", "AFTER"))
    ap.add_argument("--png", required=True)
    args = ap.parse_args()
    for before, after in args.pair:
        a, b = task_pass_rates(before), task_pass_rates(after)
        if set(a) != set(b):
            raise SystemExit(f"{before} and {after} were evaluated on different tasks")
        ids = sorted(a)
        mean, lo, hi = paired_bootstrap_ci([a[t] for t in ids], [b[t] for t in ids])
        sb = json.load(open(os.path.join(before, "summary.json")))
        sa = json.load(open(os.path.join(after, "summary.json")))
        more = "".join(f"; {k} {sb['pass_at_k'][k]:.3f} -> {sa['pass_at_k'][k]:.3f}" for k in sb["pass_at_k"]
                       if k != "pass@1" and k in sa["pass_at_k"])
        print(f"{sb['tasks']['spec']} x {sb['samples_per_task']} (T={sb['temperature']}): pass@1 "
              f"{sb['pass_at_k']['pass@1']:.3f} -> {sa['pass_at_k']['pass@1']:.3f} "
              f"(paired diff {mean:+.3f}, 95% CI [{lo:+.3f}, {hi:+.3f}], n={len(ids)} tasks){more}; "
              f"avg tokens {sb['avg_gen_tokens']:.1f} -> {sa['avg_gen_tokens']:.1f}")
    rows = [json.loads(line) for line in open(os.path.join(args.run, "metrics.jsonl")) if line.strip()]
    print(signal_summary(rows))
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(2, 3, figsize=(12, 6.5), dpi=110)
    for ax, (key, label) in zip(axes.flat, CURVES):
        pts = [(r["step"], r[key]) for r in rows if key in r]
        if pts:
            xs, ys = zip(*pts)
            ax.plot(xs, ys, marker="o", markersize=3, alpha=0.45, label="per step")
            if len(ys) >= WINDOW:
                avg = [sum(ys[i - WINDOW + 1:i + 1]) / WINDOW for i in range(WINDOW - 1, len(ys))]
                ax.plot(xs[WINDOW - 1:], avg, linewidth=2, label=f"mean of last {WINDOW}")
                ax.legend(fontsize=7)
        ax.set_title(label)
        ax.set_xlabel("step")
        ax.grid(alpha=0.3)
    fig.suptitle(os.path.basename(os.path.normpath(args.run)))
    fig.tight_layout()
    fig.savefig(args.png)
    print(f"curves: {args.png}")


def signal_summary(rows: list[dict]) -> str:
    """Did the run have a signal: of its training steps, how many moved the policy (some row with a non-zero
    advantage), and each step's fraction of zero-variance groups (first round, before any refill)."""
    steps = [r for r in rows if "reward/total" in r]
    if not steps:
        return "signal: no training step in metrics.jsonl"
    moved = sum(r.get("advantage/nonzero_rows", r.get("advantage/mean_abs", 0.0)) > 0 for r in steps)
    flat = " ".join(f"{r.get('rollout/zero_variance_groups', float('nan')):.2f}" for r in steps)
    paid = sum(r.get("sandbox/pass_rate", 0.0) > 0 for r in steps)
    n = len(steps)
    return (f"signal: {moved}/{n} steps with a non-zero update ({moved / n:.0%}); {paid}/{n} steps with a passing "
            f"sample in the first round; zero-variance group fraction per step: {flat}")


if __name__ == "__main__":
    main()
