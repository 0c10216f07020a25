"""Print RESULTS.md's math table from `coderl eval` run directories (one sample per task, greedy).

    python scripts/math_table.py SET=BEFORE_DIR,AFTER_DIR [SET=BEFORE_DIR,AFTER_DIR ...]

For each task set: accuracy (pass@1) before and after with 95% bootstrap intervals over tasks, the paired
difference after - before (same tasks, 95% paired-bootstrap interval), the share of replies whose final
answer is marked (`####`, `\\boxed{}`: the chat format's `format_ok`), and the mean generated tokens.
"""

from __future__ import annotations

import gzip
import json
import os
import sys

from coderl.eval.stats import bootstrap_ci, paired_bootstrap_ci
from coderl.tasks.rows import plain_or_gzip

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from repair_table import parse_sets  # noqa: E402  -- the scripts' shared SET=BEFORE,AFTER arguments


def _load(run_dir: str) -> dict[str, dict]:
    path = plain_or_gzip(os.path.join(run_dir, "samples.jsonl"))  # results/ keeps samples.jsonl.gz
    if not os.path.exists(path):
        raise SystemExit(f"{path}: no such file (a `coderl eval` run directory was expected)")
    rows: dict[str, dict] = {}
    with (gzip.open if path.endswith(".gz") else open)(path, "rt", encoding="utf-8") as f:
        for line in f:
            row = json.loads(line)
            if row["task_id"] in rows:
                raise SystemExit(f"{path}: task {row['task_id']} has several samples (expected --samples 1)")
            rows[row["task_id"]] = row
    return rows


def _mean(values: list[float]) -> float:
    return sum(values) / len(values)


def _cell(values: list[float]) -> str:
    lo, hi = bootstrap_ci(values, seed=0)
    return f"{_mean(values):.3f} [{lo:.3f}, {hi:.3f}]"


def table(sets: list[tuple[str, str, str]]) -> str:
    out = ["| tasks | before: pass@1 | after: pass@1 | after - before (paired) | marked answers before / after | "
           "tokens before / after |", "|---|---|---|---|---|---|"]
    for name, before_dir, after_dir in sets:
        before, after = _load(before_dir), _load(after_dir)
        tasks = sorted(set(before) & set(after))
        if not tasks:
            raise SystemExit(f"{name}: the two runs share no task")
        b = [float(before[t]["passed"]) for t in tasks]
        a = [float(after[t]["passed"]) for t in tasks]
        mean, lo, hi = paired_bootstrap_ci(b, a, seed=0)
        marked = [_mean([float(r[t]["format_ok"]) for t in tasks]) for r in (before, after)]
        tokens = [_mean([r[t]["gen_tokens"] for t in tasks]) for r in (before, after)]
        out.append(f"| {name} ({len(tasks)}) | {_cell(b)} | {_cell(a)} | {mean:+.3f} [{lo:+.3f}, {hi:+.3f}] | "
                   f"{marked[0]:.2f} / {marked[1]:.2f} | {tokens[0]:.0f} / {tokens[1]:.0f} |")
    return "\n".join(out) + "\n"


def main(argv: list[str]) -> int:
    print(table(parse_sets(argv, __doc__)), end="")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
