"""Refill (rows that end make room for waiting ones, `rollout/hf.py` `_refilled_rows`) against the chunks of one batch
each that `coderl eval` generated before it (each chunk decoding until its longest row ends, with compaction).

The bundled model (or --model) in bf16, chat format, batch 64, the demo's evaluation shapes: `--tasks` easy tasks
x 8 samples at T 0.8, 128 new tokens (the demo's easy-sampled set), and the 76 easy tasks greedy at 256 new tokens
(its easy greedy).  Refill: one `generate` call over all rows (as a chunk of `coderl eval` holding
REFILL_CHUNKS batches); anchor: one call per 64 rows, seeded as `coderl eval`'s chunks were.  Alternating,
--repeats times each, in one process after a warm-up.  Prints seconds, tokens (up to each row's stop) and
tokens/s per run, and the median speedup per shape.  Sampled answers are draws of the same distributions in
another random order; greedy ones differ only where bf16 rounds differently with the rows beside them.

    python bench/refill.py                  # make bench-refill
    python bench/refill.py --tasks 32 --repeats 2
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import statistics
import time


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default="smollm2-135m-instruct")
    ap.add_argument("--dtype", default="bfloat16", choices=["float32", "bfloat16"])
    ap.add_argument("--tasks", type=int, default=32, help="easy tasks of the sampled shape (x 8 samples)")
    ap.add_argument("--repeats", type=int, default=2, help="runs of the sampled shape per side")
    ap.add_argument("--greedy-repeats", type=int, default=1, help="runs of the greedy shape per side")
    args = ap.parse_args()
    import torch

    from coderl.models import load_model
    from coderl.rollout import hf
    from coderl.rollout.generation import generate
    from coderl.tasks import load_tasks

    loaded = load_model(args.model, dtype=args.dtype)
    easy = load_tasks("easy").tasks
    shapes = {"sampled": (easy[:args.tasks], dict(samples_per_prompt=8, temperature=0.8, max_new_tokens=128),
                          args.repeats),
              "greedy": (easy, dict(samples_per_prompt=1, temperature=0.0, max_new_tokens=256), args.greedy_repeats)}
    real = hf.refills

    def run(tasks, kw, refill: bool) -> tuple[int, float, list[str]]:
        hf.refills = real if refill else (lambda *a, **k: False)
        per_call = len(tasks) if refill else max(1, 64 // kw["samples_per_prompt"])
        t = time.perf_counter()
        samples = []
        for c in range(0, len(tasks), per_call):
            samples += generate(loaded.model, loaded.tokenizer, tasks[c:c + per_call], format="chat", batch_size=64,
                                seed=c, **kw).samples
        seconds = time.perf_counter() - t
        hf.refills = real
        return sum(len(s.gen_tokens) for s in samples), seconds, [s.raw_output for s in samples]

    generate(loaded.model, loaded.tokenizer, easy[:2], format="chat", max_new_tokens=8, batch_size=64)  # warm-up
    print(f"{'shape':>7} | {'side':>7} | {'tokens':>6} | {'seconds':>7} | {'tokens/s':>8}")
    for name, (tasks, kw, repeats) in shapes.items():
        runs, answers = [], {}
        for _ in range(repeats):
            for refill in (False, True):
                tokens, seconds, answers[refill] = run(tasks, kw, refill)
                runs.append((refill, seconds))
                print(f"{name:>7} | {'refill' if refill else 'chunks':>7} | {tokens:>6} | {seconds:>7.1f} | "
                      f"{tokens / seconds:>8.1f}", flush=True)
        median = {r: statistics.median(s for k, s in runs if k == r) for r in (False, True)}
        same = sum(a == b for a, b in zip(answers[False], answers[True]))
        print(f"{name}: speedup {median[False] / median[True]:.2f}x (median seconds chunks / refill); "
              f"identical answers {same} / {len(answers[True])}")
    print(f"model {args.model} ({args.dtype}), batch 64, torch {torch.__version__}, {torch.get_num_threads()} "
          f"threads, nproc {os.cpu_count()}, {platform.processor() or platform.machine()}, {datetime.date.today()}")


if __name__ == "__main__":
    main()
