"""Generating with a LoRA adapter: peft's unmerged layers against the adapter merged into the base weights
(what `coderl eval` does with an adapter folder), side by side in one process.

The adapter (--model, an adapter folder) answers the first --limit tasks of --tasks greedily in chat format,
--max-new-tokens at most, --batch-size rows a call, in float32 on the CPU; the two sides alternate
--repeats times (A B A B ...) so a drifting machine shares its drift.  Prints each run's seconds, tokens and
tokens/s, whether the two sides' token ids are identical, and last `speedup: N.NNx` (the median of the
per-pair ratios, merged / unmerged tokens/s).

    python bench/adapter_merge.py --model runs/pipeline/cpu-demo/sft/adapter
"""

from __future__ import annotations

import argparse
import copy
import platform
import statistics
import time


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", required=True, help="a LoRA adapter folder")
    ap.add_argument("--tasks", default="synthetic:level=1,n=100,split=valid")
    ap.add_argument("--limit", type=int, default=32)
    ap.add_argument("--max-new-tokens", type=int, default=128)
    ap.add_argument("--batch-size", type=int, default=32)
    ap.add_argument("--repeats", type=int, default=2)
    args = ap.parse_args()

    import torch

    from coderl.models import load_model
    from coderl.rollout.hf import generate
    from coderl.tasks import load_tasks

    tasks = load_tasks(args.tasks).tasks[:args.limit]
    loaded = load_model(args.model, dtype="float32")
    sides = {"unmerged": loaded.model.eval()}
    sides["merged"] = copy.deepcopy(sides["unmerged"]).merge_and_unload().eval()
    rates, ids = {name: [] for name in sides}, {}
    print(f"{platform.processor() or platform.machine()}, {torch.get_num_threads()} threads, torch {torch.__version__}")
    for rep in range(args.repeats):
        for name, model in sides.items():
            start = time.perf_counter()
            batch = generate(model, loaded.tokenizer, tasks, format="chat", max_new_tokens=args.max_new_tokens,
                             temperature=0.0, batch_size=args.batch_size)
            seconds = time.perf_counter() - start
            tokens = int(batch.mask.sum())
            rates[name].append(tokens / seconds)
            ids[name] = batch.completion_ids
            print(f"{name:9s} run {rep}: {seconds:6.1f} s, {tokens} tokens, {tokens / seconds:6.1f} tokens/s",
                  flush=True)
    print("identical token ids:", torch.equal(ids["merged"], ids["unmerged"]))
    ratios = [m / u for m, u in zip(rates["merged"], rates["unmerged"])]
    print(f"speedup: {statistics.median(ratios):.2f}x (pairs: {', '.join(f'{r:.2f}' for r in ratios)})")


if __name__ == "__main__":
    main()
