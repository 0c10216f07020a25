"""One GRPO step on N processes through `accelerate launch` (DDP) against the same step on 1 process.

The same `coderl train` command line runs three ways, one after the other, `--rounds` times (the order
rotates each round):
  1 process              `python -m coderl train ...` with every core as torch threads (the anchor)
  1 process, 1 thread    the same with OMP_NUM_THREADS=1 (what each rank gets below)
  N processes            `accelerate launch --config_file configs/accelerate/ddp.yaml --num_processes N`,
                         OMP_NUM_THREADS = cores / N per rank; each rank generates for and scores its shard
                         of the prompts and trains on its share of every minibatch (docs/scaling.md)
Work: the bundled model (or --model), the first --prompts HumanEval prompts x --samples samples at
temperature 1, exactly --new-tokens new tokens (min = max), --generation-batch-size rows per generate
call, one optimiser update per step, no KL, no evaluation.  From each run's metrics.jsonl (rank 0): medians
over the steps after the first (warm-up) of time/generation, time/sandbox_wait, time/optimisation and
time/step.  The last line is `speedup: N.NNx` = anchor step / N-process step.

    python bench/ddp_step.py                       # 2 processes on this machine's cores
    python bench/ddp_step.py --prompts 2 --samples 2 --new-tokens 8 --steps 2 --rounds 1   # a smoke run
    python bench/ddp_step.py --device cuda --processes 8 --threads 4   # one rank per GPU
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from rl_step import machine, model_folder, write_tasks  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
COLUMNS = ("time/generation", "time/sandbox_wait", "time/optimisation", "time/step")


def command(args, tasks: str, out: str) -> list[str]:
    settings = out + ".yaml"  # min_new_tokens is YAML-only (a benchmark's setting: every row the same length)
    with open(settings, "w", encoding="utf-8") as f:
        f.write(f"min_new_tokens: {args.new_tokens}\n")
    return ["-m", "coderl", "train", "--config", settings, "--model", model_folder(args.model), "--tasks", tasks,
            "--format", "completion",
            "--out", out, "--steps", str(args.steps + 1), "--prompts-per-step", str(args.prompts),
            "--samples-per-prompt", str(args.samples), "--max-new-tokens", str(args.new_tokens),
            "--temperature", "1.0",
            "--generation-batch-size", str(args.generation_batch_size), "--device", args.device,
            "--dtype", args.dtype, "--algo", "grpo", "--kl-beta", "0", "--save-steps", "1000",
            "--no-progress", "--workers", "1", "--seed", "0"]


def run(args, name: str, tasks: str, workdir: str) -> dict:
    out = os.path.join(workdir, name.replace(" ", "-").replace(",", ""))
    cores = len(os.sched_getaffinity(0))
    env = dict(os.environ)
    if name.startswith("1 process"):
        env["OMP_NUM_THREADS"] = "1" if "1 thread" in name else str(args.threads or cores)
        cmd = [sys.executable, *command(args, tasks, out)]
    else:
        env["OMP_NUM_THREADS"] = str(args.threads or max(1, cores // args.processes))
        cmd = [os.path.join(os.path.dirname(sys.executable), "accelerate"), "launch", "--config_file",
               os.path.join(ROOT, "configs", "accelerate", "ddp.yaml"), "--num_processes", str(args.processes),
               "--main_process_port", str(args.port), *command(args, tasks, out)]
    done = subprocess.run(cmd, env=env, cwd=ROOT, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"bench/ddp_step.py: {name} failed:\n{done.stderr[-2000:]}")
    rows = [json.loads(line) for line in open(os.path.join(out, "metrics.jsonl"))][1:]  # first step: warm-up
    return {k: [r[k] for r in rows] for k in COLUMNS}


def rotated_medians(args, names: list[str], columns, run_one) -> dict:
    """Run each of `names` `args.rounds` times, the order rotating each round, on the first --prompts HumanEval
    tasks; {name: {column: median over every run's timed steps}}.  `run_one(args, name, tasks, workdir)`
    returns {column: [value per timed step]}."""
    results: dict[str, dict] = {n: {k: [] for k in columns} for n in names}
    with tempfile.TemporaryDirectory() as workdir:
        tasks = write_tasks(os.path.join(workdir, "tasks.jsonl"), args.prompts)
        for r in range(args.rounds):
            for name in names[r % len(names):] + names[: r % len(names)]:
                got = run_one(args, name, tasks, os.path.join(workdir, f"round{r}"))
                for k in columns:
                    results[name][k] += got[k]
    return {n: {k: statistics.median(v) for k, v in results[n].items()} for n in names}


def print_table(args, header: list[str], names: list[str], columns, med: dict) -> None:
    """The machine, the work, and one row of medians per run."""
    print(machine(args.threads or len(os.sched_getaffinity(0)), args.device))
    print(f"work: {args.prompts} prompts x {args.samples} samples x {args.new_tokens} new tokens, generate batch "
          f"{args.generation_batch_size}, {args.steps} timed steps x {args.rounds} rounds; medians, seconds")
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for n in names:
        print(f"| {n} | " + " | ".join(f"{med[n][k]:.2f}" for k in columns) + " |")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default="smollm2-135m-instruct")
    ap.add_argument("--processes", type=int, default=2)
    ap.add_argument("--threads", type=int, default=0, help="torch threads per process (default: cores / processes; "
                    "the 1-process anchor: all cores)")
    ap.add_argument("--prompts", type=int, default=4)
    ap.add_argument("--samples", type=int, default=4)
    ap.add_argument("--new-tokens", type=int, default=64)
    ap.add_argument("--generation-batch-size", type=int, default=8)
    ap.add_argument("--steps", type=int, default=3, help="timed steps per run (after one warm-up step)")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--dtype", default="float32")
    ap.add_argument("--port", type=int, default=29577)
    args = ap.parse_args()
    names = ["1 process", "1 process, 1 thread", f"{args.processes} processes"]
    med = rotated_medians(args, names, COLUMNS, run)
    print_table(args, ["run", "generation", "sandbox wait", "optimisation", "step"], names, COLUMNS, med)
    print(f"speedup: {med[names[0]]['time/step'] / med[names[2]]['time/step']:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
