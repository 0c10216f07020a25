"""Asynchronous rollouts (`--async-max-age`) against the synchronous loop: one GRPO step of identical work.

The same `coderl train` command line (`bench/ddp_step.py`'s: the bundled model, the first --prompts HumanEval
prompts x --samples samples at temperature 1, exactly --new-tokens new tokens, one update per step, no KL,
no evaluation) runs these ways, one after the other, `--rounds` times (the order rotates each round):
  sync                   the synchronous loop, every core as torch threads (the anchor)
  async, max age A       a generation worker process samples step k+1.. while the trainer updates on step k;
                         on a CPU the cores are split: half for the worker, the rest
                         for the trainer (docs/async.md)
From each run's metrics.jsonl: medians over the steps after the first (warm-up) of time/generation (the
worker's, in the async runs), the rollout wait (sync: the sandbox wait after generation; async: the trainer
waiting for the worker), time/optimisation and time/step, and the mean age of the samples trained on.
The last line is `speedup: N.NNx` = anchor step / the best async step.

    python bench/async_rollouts.py                              # max ages 1 and 2 on this machine's cores
    python bench/async_rollouts.py --prompts 2 --samples 2 --new-tokens 8 --steps 2 --rounds 1   # a smoke run
    python bench/async_rollouts.py --device cuda --worker-device cuda:1   # the worker on a GPU of its own
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ddp_step import command, print_table, rotated_medians  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
COLUMNS = ("time/generation", "wait", "time/optimisation", "time/step", "async/age_mean")


def run(args, name: str, tasks: str, workdir: str) -> dict:
    out = os.path.join(workdir, name.replace(" ", "-").replace(",", ""))
    cmd = [sys.executable, *command(args, tasks, out)]
    if name.startswith("async"):
        cmd += ["--async-max-age", name.rsplit(" ", 1)[1]]
        worker = {k: v for k, v in (("async_worker_device", args.worker_device),) if v}
        if worker:  # YAML-only settings of coderl train
            settings = os.path.join(workdir, f"{os.path.basename(out)}.yaml")
            with open(settings, "w", encoding="utf-8") as f:
                json.dump(worker, f)  # JSON is YAML
            cmd += ["--config", settings]
    env = {**os.environ, "OMP_NUM_THREADS": str(args.threads or len(os.sched_getaffinity(0)))}
    done = subprocess.run(cmd, env=env, cwd=ROOT, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"bench/async_rollouts.py: {name} failed:\n{done.stderr[-2000:]}")
    rows = [json.loads(line) for line in open(os.path.join(out, "metrics.jsonl"))][1:]  # first step: warm-up
    for r in rows:
        r["wait"] = r.get("time/rollout_wait", r.get("time/sandbox_wait"))
        r.setdefault("async/age_mean", 0.0)
    return {k: [r[k] for r in rows] for k in COLUMNS}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default="smollm2-135m-instruct")
    ap.add_argument("--max-ages", default="1,2", help="comma-separated --async-max-age values to run")
    ap.add_argument("--threads", type=int, default=0, help="torch threads of the process (default: all cores); "
                    "the async runs split them between trainer and worker")
    ap.add_argument("--worker-device", default="", help="async_worker_device (default: --device)")
    ap.add_argument("--prompts", type=int, default=4)
    ap.add_argument("--samples", type=int, default=4)
    ap.add_argument("--new-tokens", type=int, default=64)
    ap.add_argument("--generation-batch-size", type=int, default=8)
    ap.add_argument("--steps", type=int, default=4, help="timed steps per run (after one warm-up step)")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--dtype", default="float32")
    args = ap.parse_args()
    names = ["sync"] + [f"async, max age {a}" for a in args.max_ages.split(",")]
    med = rotated_medians(args, names, COLUMNS, run)
    print_table(args, ["run", "generation", "rollout wait", "optimisation", "step", "mean age"], names, COLUMNS, med)
    best = min(med[n]["time/step"] for n in names[1:])
    print(f"speedup: {med['sync']['time/step'] / best:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
