"""Does a training config give the same run twice?  Runs `coderl train --config CONFIG` twice for `--steps` steps
(into OUT/a and OUT/b, with --deterministic on or off) and prints, per step, the logged figures that differ (times
and speeds left out).  What docs/training.md ("Resume on a GPU") quotes for the CPU:

    python scripts/determinism_check.py runs/pipeline/cpu-demo/rl/grpo/config.yaml --steps 1 --out /tmp/det
    python scripts/determinism_check.py runs/pipeline/cpu-demo/rl/grpo/config.yaml --steps 1 --out /tmp/detd \
        --deterministic
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys

import yaml

NOT_COMPARED = ("time/", "tok_s", "second")


def differences(a: list[dict], b: list[dict]) -> list[dict]:
    """Per step: {key: (a's value, b's value)} for the figures that differ (times and speeds left out)."""
    return [{k: (x[k], y.get(k)) for k in x if x[k] != y.get(k) and not any(n in k for n in NOT_COMPARED)}
            for x, y in zip(a, b)]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("config", help="a train config (a run's config.yaml)")
    ap.add_argument("--steps", type=int, default=2)
    ap.add_argument("--out", required=True, help="OUT/a and OUT/b get the two runs")
    ap.add_argument("--deterministic", action="store_true")
    args = ap.parse_args()
    with open(args.config) as f:
        cfg = yaml.safe_load(f)
    runs = []
    for name in ("a", "b"):
        out = os.path.join(args.out, name)
        os.makedirs(args.out, exist_ok=True)
        cfg.update(out=out, steps=args.steps, save_steps=args.steps + 1, deterministic=args.deterministic,
                   overwrite=True, config=None, resume=False)
        path = os.path.join(args.out, f"{name}.yaml")
        with open(path, "w") as f:
            yaml.safe_dump(cfg, f)
        subprocess.run([sys.executable, "-m", "coderl", "train", "--config", path], check=True)
        with open(os.path.join(out, "metrics.jsonl")) as f:
            runs.append([json.loads(line) for line in f])
    for step, diff in enumerate(differences(*runs), 1):
        print(f"step {step}: {len(diff)} figures differ" + "".join(f"\n  {k}: {v[0]!r} vs {v[1]!r}"
                                                               for k, v in sorted(diff.items())))


if __name__ == "__main__":
    main()
