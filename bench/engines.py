"""Generation engines side by side (issue 42): vLLM (`--engine vllm`) vs coderl's HF engine vs plain HF
`generate`, on the same prompts, in one run.

Rollout batches: N prompts (the easy set's chat prompts, repeated to N) x exactly --new-tokens tokens each
(EOS and stops forbidden: min = max new tokens), greedy, for each --dtype.  Every configuration runs
--rounds times, the engines alternating within a round; the table shows the median tokens/s and the load
average (1 min) logged at each round's start.

* vllm: `VLLMEngine.sample_rows` (its own process, eager, bound to --bind cores), all N rows in one call;
* coderl-hf: `rollout.generation.sample_rows` (the HF engine of `coderl eval`/`train`), 16 rows a call;
* plain-hf: `model.generate` with its defaults on the same left-padded prompts, 16 rows a call.

--lora R adds the same engines serving a LoRA adapter of rank R (random weights far from zero, on every
linear layer as coderl trains them): `vllm+lora` (the adapter as a LoRARequest) and `coderl-hf+lora` (the
peft model), which is what a training step's rollouts cost.  --load N... repeats everything with N
single-thread busy loops beside (foreign work, as sandbox workers and a trainer are), to compare core
bindings under load.

    .venv/bin/python bench/engines.py                               # 16 and 64 prompts, bf16 and fp32
    .venv/bin/python bench/engines.py --prompts 16 --dtypes bfloat16 --bind 0 0-1 --load 0 1
    .venv/bin/python bench/engines.py --prompts 16 64 --dtypes bfloat16 --lora 8
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import multiprocessing
import os
import platform
import statistics
import tempfile
import time


def _prompts(tokenizer, n: int) -> list[list[int]]:
    from coderl.rollout.formats import get_format, prompt_text
    from coderl.tasks import load_tasks

    fmt = get_format("chat")
    tasks = load_tasks("easy").tasks
    ids = [tokenizer(prompt_text(fmt.render(t, tokenizer), tokenizer), add_special_tokens=False)["input_ids"]
           for t in tasks]
    return [ids[i % len(ids)] for i in range(n)]


def _plain(model, tokenizer, prompts, new_tokens: int, batch: int) -> int:
    import torch

    pad = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else tokenizer.eos_token_id
    made = 0
    with torch.no_grad():
        for start in range(0, len(prompts), batch):
            chunk = prompts[start:start + batch]
            width = max(len(p) for p in chunk)
            ids = torch.tensor([[pad] * (width - len(p)) + p for p in chunk])
            attention = (torch.arange(width)[None, :] >= torch.tensor([width - len(p) for p in chunk])[:, None]).long()
            out = model.generate(input_ids=ids, attention_mask=attention, max_new_tokens=new_tokens,
                                 min_new_tokens=new_tokens, do_sample=False, pad_token_id=pad)
            made += (out.shape[1] - width) * len(chunk)
    return made


def _spin() -> None:
    while True:
        pass


@contextlib.contextmanager
def _busy(n: int):
    """n single-thread busy loops beside the benchmark (killed at the end)."""
    procs = [multiprocessing.get_context("fork").Process(target=_spin, daemon=True) for _ in range(n)]
    for p in procs:
        p.start()
    try:
        yield
    finally:
        for p in procs:
            p.kill()
            p.join()


def _lora_model(model, rank: int, folder: str, spec: str):
    """`model` with a fresh LoRA adapter of rank `rank` whose B weights are random (not zero), saved in
    `folder`; the peft model."""
    import torch
    from peft import get_peft_model

    from coderl.models.load import save_adapter
    from coderl.models.lora import LoraConfig

    torch.manual_seed(0)
    peft = get_peft_model(model, LoraConfig(lora_r=rank, lora_alpha=2 * rank).peft())
    with torch.no_grad():
        for name, p in peft.named_parameters():
            if "lora_B" in name:
                p.normal_(0, 0.02)
    peft.eval()
    save_adapter(peft, folder, spec)
    return peft


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default="smollm2-135m-instruct")
    ap.add_argument("--prompts", type=int, nargs="+", default=[16, 64])
    ap.add_argument("--dtypes", nargs="+", default=["bfloat16", "float32"])
    ap.add_argument("--new-tokens", type=int, default=128)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--bind", nargs="+", default=[None], help="vLLM core bindings to compare (e.g. 0 0-1); "
                    "default: coderl's (every core)")
    ap.add_argument("--lora", type=int, default=0, help="also serve a LoRA adapter of this rank (0: none)")
    ap.add_argument("--load", type=int, nargs="+", default=[0], help="single-thread busy loops beside (each value "
                    "a pass of the whole benchmark)")
    ap.add_argument("--no-plain", action="store_true", help="leave out plain HF generate")
    args = ap.parse_args()

    import torch

    from coderl.models import load_model
    from coderl.rollout.engine import Sampling
    from coderl.rollout.generation import sample_rows
    from coderl.rollout.hf_config import HFOptions
    from coderl.rollout.vllm_engine import VLLMEngine

    rows = []
    scratch = tempfile.mkdtemp(prefix="bench-engines-")
    for dtype in args.dtypes:
        loaded = load_model(args.model, dtype=dtype)
        adapter = os.path.join(scratch, f"lora-{dtype}")
        peft = _lora_model(load_model(args.model, dtype=dtype).model, args.lora, adapter, args.model) \
            if args.lora else None
        engines = {}
        for bind in args.bind:
            if bind is not None:
                os.environ["VLLM_CPU_OMP_THREADS_BIND"] = bind
            for lora in ([False, True] if args.lora else [False]):
                e = VLLMEngine(loaded.path, dtype=dtype, max_model_len=1024, lora_rank=args.lora or None,
                               generation_config=loaded.model.generation_config,
                               log=lambda line: print(line, flush=True), log_file=os.devnull)
                if lora:
                    e.set_adapter(adapter)
                engines[f"vllm{'+lora' if lora else ''} (bind {bind or 'all'})"] = e
            os.environ.pop("VLLM_CPU_OMP_THREADS_BIND", None)
        try:
            for n in args.prompts:
                prompts = _prompts(loaded.tokenizer, n)
                stops = [()] * n
                kw = dict(max_new_tokens=args.new_tokens, min_new_tokens=args.new_tokens)
                runs = {name: (lambda e=e: sum(len(r.ids) for r in
                                               e.sample_rows(loaded.tokenizer, prompts, stops, Sampling(**kw))))
                        for name, e in engines.items()}
                for name, model in (("coderl-hf", loaded.model), ("coderl-hf+lora", peft)):
                    if model is not None:
                        runs[name] = lambda m=model: sum(len(r.ids) for r in sample_rows(
                            m, loaded.tokenizer, prompts, stops, Sampling(**kw), hf=HFOptions(batch_size=16)))
                if not args.no_plain:
                    runs["plain-hf"] = lambda: _plain(loaded.model, loaded.tokenizer, prompts, args.new_tokens, 16)
                for name, run in runs.items():  # warm-up
                    run() if n == args.prompts[0] else None
                for load in args.load:
                    speeds: dict[str, list[float]] = {name: [] for name in runs}
                    loads = []
                    with _busy(load):
                        for _ in range(args.rounds):
                            loads.append(os.getloadavg()[0])
                            for name, run in runs.items():
                                t = time.perf_counter()
                                tokens = run()
                                speeds[name].append(tokens / (time.perf_counter() - t))
                                print(f"{dtype} {n} prompts, {load} busy: {name}: {speeds[name][-1]:.0f} tok/s",
                                      flush=True)
                    for name, s in speeds.items():
                        rows.append((dtype, n, load, name, statistics.median(s), min(s), max(s), loads))
        finally:
            for e in engines.values():
                e.close()
    print(f"\n{datetime.date.today()} {platform.node()} {os.cpu_count()} CPUs, torch {torch.__version__}, "
          f"torch threads {torch.get_num_threads()}, {args.new_tokens} new tokens per row, greedy")
    print("| dtype | prompts | busy loops beside | engine | tokens/s (median) | min-max | load (1 min) per round |")
    print("|---|---|---|---|---|---|---|")
    for dtype, n, load, name, med, lo, hi, loads in rows:
        print(f"| {dtype} | {n} | {load} | {name} | {med:.0f} | {lo:.0f}-{hi:.0f} | "
              f"{', '.join(f'{x:.1f}' for x in loads)} |")


if __name__ == "__main__":
    main()
