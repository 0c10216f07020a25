"""Finished rows leaving the batch (`compact_rows`) vs every row decoding until its chunk's longest ends.

The bundled model (or --model) in bf16 answers the 76 hand-written easy tasks greedily in chat format
(max 192 new tokens, batch 32: the evaluation of `make demo` / `make reproduce-cpu`), alternately
without (`compact_rows=0`, the anchor: plain batched `generate`) and with compaction, --repeats times
each, in one process after a warm-up.  Prints seconds and tokens/s per run, how many answers are
identical, and last `speedup: N.NNx` (median seconds without / with).

    python bench/compaction.py                     # make bench-compaction
    python bench/compaction.py --repeats 3 --batch-size 32 --max-new-tokens 192
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
    ap.add_argument("--tasks", default="easy")
    ap.add_argument("--dtype", default="bfloat16", choices=["float32", "bfloat16"])
    ap.add_argument("--batch-size", type=int, default=32)
    ap.add_argument("--max-new-tokens", type=int, default=192)
    ap.add_argument("--repeats", type=int, default=2)
    args = ap.parse_args()
    import torch

    from coderl.models import load_model
    from coderl.rollout.generation import generate
    from coderl.rollout.hf_config import HFOptions
    from coderl.tasks import load_tasks

    loaded = load_model(args.model, dtype=args.dtype)
    tasks = load_tasks(args.tasks).tasks
    kw = dict(format="chat", max_new_tokens=args.max_new_tokens, temperature=0.0)
    generate(loaded.model, loaded.tokenizer, tasks[:2], **{**kw, "max_new_tokens": 8})  # warm-up
    runs, answers = [], {}
    for _ in range(args.repeats):
        for compact in (0, 8):
            t = time.perf_counter()
            batch = generate(loaded.model, loaded.tokenizer, tasks, **kw,
                             hf=HFOptions(batch_size=args.batch_size, compact_rows=compact))
            seconds = time.perf_counter() - t
            runs.append((compact, int(batch.mask.sum()), seconds))
            answers[compact] = [s.raw_output for s in batch.samples]
    print(f"{'compact_rows':>12} | {'tokens':>6} | {'seconds':>7} | {'tokens/s':>8}")
    for compact, tokens, seconds in runs:
        print(f"{compact:>12} | {tokens:>6} | {seconds:>7.1f} | {tokens / seconds:>8.1f}")
    same = sum(a == b for a, b in zip(answers[0], answers[8]))
    print(f"identical answers: {same} / {len(tasks)}"
          + (" (bf16 kernels round differently with the batch width)" if same < len(tasks) else ""))
    print(f"model {args.model} ({args.dtype}), {args.tasks} ({len(tasks)} tasks), batch {args.batch_size}, "
          f"max_new_tokens {args.max_new_tokens}, torch {torch.__version__}, {torch.get_num_threads()} threads, "
          f"nproc {os.cpu_count()}, {platform.processor() or platform.machine()}, {datetime.date.today()}")
    median = {c: statistics.median(s for k, _, s in runs if k == c) for c in (0, 8)}
    print(f"speedup: {median[0] / median[8]:.2f}x")


if __name__ == "__main__":
    main()
