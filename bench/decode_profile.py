"""Where a decoding step goes: one `generate` call at the demo's eval-sampled shape, timed and profiled by op
(issue 72; BENCHMARKS.md, "Where a decoding step goes").

The bundled model in bf16 under a fresh rank-8 LoRA adapter on q/k/v/o (B drawn at std 0.02, seeded, as
`bench/demo_phases.py` makes it), `--tasks` easy tasks x `--samples` samples, chat, T 0.8, one batch, `--tokens`
new tokens.  Prints each call's rows, tokens (up to each row's stop), seconds and tokens/s; with `--profile`, a
`torch.profiler` table of the last call by self CPU time.  Side by side with another checkout: run it twice with
PYTHONPATH pointing at each (the script imports whichever coderl is first on the path), alternating, alone.

    python bench/decode_profile.py --tokens 48 --repeat 3
    python bench/decode_profile.py --tokens 48 --profile

`--plain eager|static|compiled` (issue 101 item 2) times plain HF `generate` of the bundled model instead (no
adapter, no coderl code): `--tasks` x `--samples` rows of `--prompt-tokens` seeded random ids, `--tokens` greedy new
tokens each (no EOS), with the dynamic KV cache (eager), a static cache (uncompiled), or a static cache whose
decoding step transformers compiles with torch.compile (inductor; on a CPU only when asked, `CompileConfig`'s
all-devices switch).  The first call of `compiled` pays the compilation; the outputs of each mode are printed as a
digest, to compare the modes' greedy tokens.  Run each mode in its own process, alone:

    python bench/decode_profile.py --plain eager --tasks 4 --samples 8 --prompt-tokens 154 --tokens 64 --repeat 4
    python bench/decode_profile.py --plain compiled --tasks 4 --samples 8 --prompt-tokens 154 --tokens 64 --repeat 4

`--plain int8` (float32 only): the eager mode on a copy whose linear layers are quantized dynamically to int8
(`torch.ao.quantization.quantize_dynamic`: int8 weights, activations quantized per call, int32 accumulation; the
weights a step streams are a quarter of float32's), after one float32 eager call whose greedy tokens it compares
with: the share of rows and of tokens (up to each row's first difference) that are the same.
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
    ap.add_argument("--plain", choices=("eager", "static", "compiled", "int8"),
                    help="time plain HF generate (docstring)")
    ap.add_argument("--prompt-tokens", type=int, default=154, help="--plain: each row's prompt length")
    ap.add_argument("--dtype", default="bfloat16", help="--plain: the model's dtype (bfloat16 or float32)")
    ap.add_argument("--inductor", action="append", default=[], metavar="KEY=VALUE",
                    help="--plain compiled: a torch._inductor.config setting (e.g. cpp_wrapper=True), repeatable")
    args = ap.parse_args(argv)
    if args.plain:
        return plain(args)
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


def plain(args) -> int:
    """`--plain`: plain HF `generate` of the bundled model in one of three decoding modes (module docstring)."""
    import ast
    import hashlib

    import torch._inductor.config as inductor
    from roofline import cpu_name_and_flags  # bench/, beside this script
    from transformers import GenerationConfig
    from transformers.generation.configuration_utils import CompileConfig

    from coderl.models import load_model

    for setting in args.inductor:
        key, _, value = setting.partition("=")
        target = inductor
        *path, leaf = key.split(".")
        for part in path:
            target = getattr(target, part)
        setattr(target, leaf, ast.literal_eval(value))
    torch.manual_seed(0)
    loaded = load_model("smollm2-135m-instruct", dtype=args.dtype, device="cpu")
    model = loaded.model.eval()
    rows = args.tasks * args.samples
    ids = torch.randint(100, 40000, (rows, args.prompt_tokens))

    def config():
        c = GenerationConfig(max_new_tokens=args.tokens, min_new_tokens=args.tokens, do_sample=False, pad_token_id=0,
                             eos_token_id=None)
        if args.plain not in ("eager", "int8"):
            c.cache_implementation = "static"
            c.max_cache_len = -(-(args.prompt_tokens + args.tokens) // 256) * 256
            if args.plain == "compiled":
                c.compile_config = CompileConfig(fullgraph=False, dynamic=False)
                c.compile_config._compile_all_devices = True  # transformers compiles on CUDA only unless asked
            else:
                c.disable_compile = True
        return c

    name, flags = cpu_name_and_flags()
    print(f"{name} ({' '.join(flags)}), torch threads {torch.get_num_threads()}, {args.dtype}, {args.plain}"
          f"{' ' + ' '.join(args.inductor) if args.inductor else ''}: "
          f"{rows} rows x {args.prompt_tokens} prompt tokens + {args.tokens} new", flush=True)
    reference = None
    with torch.no_grad():
        if args.plain == "int8":
            if args.dtype != "float32":
                raise SystemExit("--plain int8 quantizes a float32 model: give --dtype float32")
            t = time.perf_counter()
            out = model.generate(input_ids=ids, attention_mask=torch.ones_like(ids), generation_config=config())
            reference = out[:, args.prompt_tokens:]
            print(f"float32 eager, for the tokens: {time.perf_counter() - t:.2f} s", flush=True)
            t = time.perf_counter()
            model = torch.ao.quantization.quantize_dynamic(model, {torch.nn.Linear}, dtype=torch.qint8)
            print(f"quantized in {time.perf_counter() - t:.2f} s", flush=True)
        for call in range(args.repeat):
            t = time.perf_counter()
            out = model.generate(input_ids=ids, attention_mask=torch.ones_like(ids), generation_config=config())
            seconds = time.perf_counter() - t
            new = out[:, args.prompt_tokens:]
            digest = hashlib.sha256(new.numpy().tobytes()).hexdigest()[:12]
            same = ""
            if reference is not None:
                differ = new != reference
                prefix = torch.where(differ.any(1), differ.float().argmax(1), torch.tensor(new.shape[1]))
                same = (f", the same as float32: {int((~differ.any(1)).sum())} of {rows} rows, "
                        f"{int(prefix.sum())} of {new.numel()} tokens up to each row's first difference")
            print(f"call {call}: {seconds:.2f} s (prefill and {args.tokens} steps), tokens {digest}{same}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
