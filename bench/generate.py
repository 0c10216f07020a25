"""Generation throughput: coderl's `generate` against plain Hugging Face `generate` on the same prompts.

The bundled model (or --model) answers --tasks (default: the 76 hand-written easy tasks; on CPU the
first 16 unless --limit says otherwise) in --format, greedily, --max-new-tokens at most, on --device in
--dtype.  Each side runs --repeats times after a warm-up (on CUDA the warm-up is a full run: it
compiles the decoding step once).  tokens/s = tokens up to each row's stop (its stop sequence or
EOS, inclusive; the same rule cuts both sides) / generation wall time.

* coderl: `coderl.rollout.generate` as `coderl eval` runs it: stops checked on the device, finished
  rows leaving the batch on CPU, a static compiled KV cache on CUDA (--static-cache), --batch-size rows
  a call (0 = `fill_batch_size`: 16 on CPU, every row up to 256 on CUDA).
* plain HF: `model.generate` with its defaults (dynamic cache, no compilation, no stop sequences: a
  row runs to EOS or the budget), the same prompts left-padded, the same rows a call.

Prints per run seconds, tokens and tokens/s, how many answers (the text up to the stop) are identical,
the machine, and last `speedup: N.NNx` (median tokens/s, coderl / plain HF).

    python bench/generate.py --device cpu --limit 4 --max-new-tokens 32     # a quick look on CPU
    python bench/generate.py --device cuda --dtype bfloat16                  # issue 15's target
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
    ap.add_argument("--limit", "--prompts", type=int, default=None,
                    help="first N tasks (default: all on CUDA, 16 on CPU)")
    ap.add_argument("--format", default="chat")
    ap.add_argument("--max-new-tokens", "--new-tokens", type=int, default=256)
    ap.add_argument("--batch-size", type=int, default=0, help="rows per generate call; 0 = fill_batch_size")
    ap.add_argument("--device", default="auto", choices=["auto", "cpu", "cuda"])
    ap.add_argument("--dtype", default="auto", choices=["auto", "float32", "bfloat16", "float16"],
                    help="auto: bfloat16 where the device runs it natively, else float32")
    ap.add_argument("--static-cache", default="auto", choices=["auto", "on", "off"],
                    help="coderl's side: static KV cache + compiled decoding (auto: on CUDA)")
    ap.add_argument("--repeats", type=int, default=2)
    ap.add_argument("--no-plain", action="store_true", help="skip the plain HF side")
    args = ap.parse_args()
    import torch
    import transformers

    from coderl.models import load_model, resolve_device
    from coderl.models.load import fast_dtype
    from coderl.rollout import generation, hf, hf_callbacks, hf_config, special_ids
    from coderl.rollout.batching import left_pad
    from coderl.rollout.formats import get_format, prompt_text
    from coderl.rollout.hf_config import HFOptions
    from coderl.tasks import load_tasks

    device = resolve_device(args.device)
    dtype = fast_dtype() if args.dtype == "auto" else args.dtype
    loaded = load_model(args.model, dtype=dtype, device=device)
    model, tok = loaded.model, loaded.tokenizer
    limit = args.limit or (None if device == "cuda" else 16)
    tasks = load_tasks(args.tasks).tasks[:limit]
    static = {"auto": None, "on": True, "off": False}[args.static_cache]
    fmt = get_format(args.format)
    rendered = [fmt.render(t, tok) for t in tasks]
    prompts = [tok(prompt_text(r, tok), add_special_tokens=isinstance(r, str))["input_ids"] for r in rendered]
    stops = [fmt.stop_sequences(t) for t in tasks]
    eos = set(special_ids.eos_token_ids(model, tok))
    pad = tok.pad_token_id if tok.pad_token_id is not None else min(eos)
    longest = max(map(len, prompts)) + args.max_new_tokens
    batch = args.batch_size or hf_config.fill_batch_size(model, len(tasks), max_tokens=longest)

    def sync():
        if device == "cuda":
            torch.cuda.synchronize()

    def ours(subset):
        out = generation.generate(model, tok, subset, format=args.format, max_new_tokens=args.max_new_tokens,
                                  temperature=0.0, hf=HFOptions(batch_size=batch, static_cache=static))
        return [list(s.gen_tokens) for s in out.samples]

    def plain(rows):
        out = []
        model.eval()
        with torch.no_grad():
            for start in range(0, len(rows), batch):
                ids, mask = left_pad(rows[start:start + batch], pad)
                seq = model.generate(input_ids=ids.to(device), attention_mask=mask.to(device), do_sample=False,
                                     max_new_tokens=args.max_new_tokens, pad_token_id=pad,
                                     eos_token_id=sorted(eos))
                out += seq[:, ids.shape[1]:].tolist()
        return [ids[:hf_callbacks.cut_generation(ids, tok, s, eos)[0]] for ids, s in zip(out, stops[:len(rows)])]

    sides = {"coderl": lambda n=None: ours(tasks[:n])}
    if not args.no_plain:
        sides["plain HF"] = lambda n=None: plain(prompts[:n])
    for run in sides.values():  # warm-up: on CUDA a full run (compilation), else two prompts
        run(None if device == "cuda" else 2)
    runs, answers = [], {}
    for _ in range(args.repeats):
        for name, run in sides.items():
            sync()
            t = time.perf_counter()
            kept = run()
            sync()
            seconds = time.perf_counter() - t
            tokens = sum(map(len, kept))
            runs.append((name, tokens, seconds))
            answers[name] = [hf_callbacks.decode(tok, ids) for ids in kept]
    print(f"{'side':>8} | {'batch':>5} | {'tokens':>6} | {'seconds':>7} | {'tokens/s':>8}")
    for name, tokens, seconds in runs:
        print(f"{name:>8} | {batch:>5} | {tokens:>6} | {seconds:>7.2f} | {tokens / seconds:>8.1f}")
    rate = {n: statistics.median(k / s for m, k, s in runs if m == n) for n in sides}
    if "plain HF" in answers:
        same = sum(a == b for a, b in zip(answers["coderl"], answers["plain HF"]))
        print(f"identical answers: {same} / {len(tasks)}")
    gpu = torch.cuda.get_device_name() if device == "cuda" else platform.processor() or platform.machine()
    used = hf_config.use_static_cache(torch.device(device), static)
    print(f"model {args.model} ({dtype}), {args.tasks} ({len(tasks)} tasks), {args.format}, greedy, "
          f"max_new_tokens {args.max_new_tokens}, static cache {'on' if used else 'off'}"
          f"{' (compile failed: ' + hf._COMPILE_FAILED[0] + ')' if hf._COMPILE_FAILED else ''}, {device}: {gpu}, "
          f"torch {torch.__version__}, transformers {transformers.__version__}, {torch.get_num_threads()} threads, "
          f"nproc {os.cpu_count()}, {datetime.date.today()}")
    if "plain HF" in rate:
        print(f"speedup: {rate['coderl'] / rate['plain HF']:.2f}x")
    else:
        print(f"tokens/s: {rate['coderl']:.1f}")


if __name__ == "__main__":
    main()
