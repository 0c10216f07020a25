"""Print the repair results table of RESULTS.md from `coderl eval --turns N` run directories.

    python scripts/repair_table.py SET=BEFORE_DIR,AFTER_DIR [SET=BEFORE_DIR,AFTER_DIR ...]

For each task set: pass@1 after turn 1 and after the last turn, before and after training, each with its
95% bootstrap interval over tasks; then paired differences (same tasks, 95% paired-bootstrap interval):
last turn - turn 1 within each model, and after - before at turn 1 and at the last turn.
"""

from __future__ import annotations

import json
import os
import sys

from coderl.eval.stats import bootstrap_ci, paired_bootstrap_ci


def _load(run_dir: str) -> dict:
    with open(os.path.join(run_dir, "summary.json"), encoding="utf-8") as f:
        repair = json.load(f).get("repair")
    if not repair:
        raise SystemExit(f"{run_dir}/summary.json: no `repair` block (run coderl eval with --turns N > 1)")
    return repair


def _cell(values: list[float]) -> str:
    lo, hi = bootstrap_ci(values, seed=0)
    return f"{sum(values) / len(values):.3f} [{lo:.3f}, {hi:.3f}]"


def _diff(before: list[float], after: list[float]) -> str:
    mean, lo, hi = paired_bootstrap_ci(before, after, seed=0)
    return f"{mean:+.3f} [{lo:+.3f}, {hi:+.3f}]"


def table(sets: list[tuple[str, str, str]]) -> str:
    rows = ["| tasks | model | pass@1 after turn 1 | after last turn | last - turn 1 (paired) | turns used | "
            "feedback tokens |", "|---|---|---|---|---|---|---|"]
    diffs = ["| tasks | after - before, turn 1 | after - before, last turn |", "|---|---|---|"]
    for name, before_dir, after_dir in sets:
        runs = {"before": _load(before_dir), "after": _load(after_dir)}
        last = str(runs["before"]["turns"])
        tasks = sorted(set(runs["before"]["per_task_after_turn"]["1"]) & set(runs["after"]["per_task_after_turn"]["1"]))
        values = {label: {t: [r["per_task_after_turn"][t][task] for task in tasks] for t in ("1", last)}
                  for label, r in runs.items()}
        for label, r in runs.items():
            v = values[label]
            rows.append(f"| {name} ({len(tasks)}) | {label} | {_cell(v['1'])} | {_cell(v[last])} | "
                        f"{_diff(v['1'], v[last])} | {r['turns_used']:.2f} | {r['feedback_tokens']:.0f} |")
        diffs.append(f"| {name} | {_diff(values['before']['1'], values['after']['1'])} | "
                     f"{_diff(values['before'][last], values['after'][last])} |")
    return "\n".join(rows + [""] + diffs) + "\n"


def parse_sets(argv: list[str], usage: str | None) -> list[tuple[str, str, str]]:
    """(set name, before dir, after dir) of each `SET=BEFORE_DIR,AFTER_DIR` argument (also math_table.py's)."""
    sets = []
    for arg in argv:
        name, _, dirs = arg.partition("=")
        before, _, after = dirs.partition(",")
        if not (name and before and after):
            raise SystemExit(f"argument {arg!r}: expected SET=BEFORE_DIR,AFTER_DIR")
        sets.append((name, before, after))
    if not sets:
        raise SystemExit(usage)
    return sets


def main(argv: list[str]) -> int:
    print(table(parse_sets(argv, __doc__)), end="")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
