"""Generation throughput: batched vs unbatched Hugging Face `generate` through coderl's rollout.

The bundled model (or --model) generates exactly --new-tokens tokens (min_new_tokens = max_new_tokens,
no stop sequences) for the first --prompts HumanEval prompts in completion format, once one prompt at
a time and once in batches of each --batch-sizes value, in the same process, after one warm-up call.
Prints tokens/s per setting; the last line is `speedup: N.Nx` (largest batch vs unbatched).

    python bench/generate.py                       # make bench-generate
    python bench/generate.py --prompts 32 --new-tokens 64 --batch-sizes 8,16,32
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import time


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default="smollm2-135m-instruct")
    ap.add_argument("--prompts", type=int, default=16)
    ap.add_argument("--new-tokens", type=int, default=64)
    ap.add_argument("--batch-sizes", default="4,8,16")
    args = ap.parse_args()
    import torch

    from coderl.models import load_model
    from coderl.rollout.hf import generate
    from coderl.tasks import load_tasks

    loaded = load_model(args.model)
    tasks = load_tasks("humaneval").tasks[: args.prompts]
    kw = dict(format="completion", max_new_tokens=args.new_tokens, min_new_tokens=args.new_tokens, stop=[])
    generate(loaded.model, loaded.tokenizer, tasks[:2], batch_size=2, **kw)  # warm-up
    rows = []
    for bs in [1] + [int(b) for b in args.batch_sizes.split(",")]:
        t = time.perf_counter()
        batch = generate(loaded.model, loaded.tokenizer, tasks, batch_size=bs, **kw)
        seconds = time.perf_counter() - t
        tokens = int(batch.mask.sum())
        rows.append((bs, tokens, seconds, tokens / seconds))
    print(f"{'batch':>5} | {'tokens':>6} | {'seconds':>7} | {'tokens/s':>8}")
    for bs, tokens, seconds, rate in rows:
        print(f"{bs:>5} | {tokens:>6} | {seconds:>7.2f} | {rate:>8.1f}")
    print(f"model {args.model}, {args.prompts} HumanEval prompts x {args.new_tokens} new tokens, "
          f"torch {torch.__version__}, {torch.get_num_threads()} threads, nproc {os.cpu_count()}, "
          f"{platform.processor() or platform.machine()}, {datetime.date.today()}")
    print(f"speedup: {rows[-1][3] / rows[0][3]:.1f}x")


if __name__ == "__main__":
    main()
