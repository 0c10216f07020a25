"""Where a decoding step goes: one `generate` call at the demo's eval-sampled shape, timed and profiled by op
(issue 72; BENCHMARKS.md, "Where a decoding step goes").

The bundled model in bf16 under a fresh rank-8 LoRA adapter on q/k/v/o (B drawn at std 0.02, seeded, as
`bench/demo_phases.py` makes it), `--tasks` easy tasks x `--samples` samples, chat, T 0.8, one batch, `--tokens`
new tokens.  Prints each call's rows, tokens (up to each row's stop), seconds and tokens/s; with `--profile`, a
`torch.profiler` table of the last call by self CPU time.  Side by side with another checkout: run it twice with
PYTHONPATH pointing at each (the script imports whichever coderl is first on the path), alternating, alone.

    python bench/decode_profile.py --tokens 48 --repeat 3
    python bench/decode_profile.py --tokens 48 --profile
"""

from __future__ import annotations

import argparse
import time

import torch


def hf_rows(batch_size: int) -> dict:
    """`generate`'s rows per call at this checkout (an `HFOptions`, since issue 76) or an earlier one (a keyword)."""
    try:
        from coderl.rollout.hf_config import HFOptions
    except ImportError:
        return {"batch_size": batch_size}
    return {"hf": HFOptions(batch_size=batch_size)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tasks", type=int, default=8, help="the first N easy tasks")
    ap.add_argument("--samples", type=int, default=8)
    ap.add_argument("--tokens", type=int, default=48, help="max new tokens")
    ap.add_argument("--repeat", type=int, default=2, help="calls (the first warms up)")
    ap.add_argument("--profile", action="store_true", help="profile the last call by op")
    args = ap.parse_args(argv)
    from peft import LoraConfig, get_peft_model

    from coderl.models import load_model
    from coderl.rollout import generation
    from coderl.tasks import load_tasks

    torch.manual_seed(0)
    loaded = load_model("smollm2-135m-instruct", dtype="bfloat16", device="cpu")
    model = get_peft_model(loaded.model, LoraConfig(r=8, lora_alpha=16, lora_dropout=0.05,
                                                    target_modules=["q_proj", "k_proj", "v_proj", "o_proj"]))
    with torch.no_grad():
        for name, p in model.named_parameters():
            if "lora_B" in name:
                torch.nn.init.normal_(p, std=0.02)
    tasks = load_tasks("easy").tasks[:args.tasks]
    rows = args.tasks * args.samples

    def call():
        t = time.perf_counter()
        out = generation.generate(model, loaded.tokenizer, tasks, format='chat', samples_per_prompt=args.samples,
                                  max_new_tokens=args.tokens, temperature=0.8, seed=0, **hf_rows(rows))
        seconds = time.perf_counter() - t
        tokens = sum(len(s.gen_tokens) for s in out.samples)
        print(f"rows {rows} tokens {tokens} {seconds:.2f} s {tokens / seconds:.0f} tok/s", flush=True)

    for _ in range(args.repeat - (1 if args.profile else 0)):
        call()
    if args.profile:
        from torch.profiler import ProfilerActivity, profile

        with profile(activities=[ProfilerActivity.CPU]) as prof:
            call()
        print(prof.key_averages().table(sort_by="self_cpu_time_total", row_limit=20))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
