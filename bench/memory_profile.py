"""Where an RL update's memory goes, and what the memory bounds change (issue 40).

One policy-gradient update of the bundled model (LoRA r 8, bf16 weights by default) on a synthetic batch
the shape of two runs that ran out of memory or nearly did:
  repair    16 rows (4 prompts x 4 samples), 200 prompt + 850 completion tokens (a 3-turn repair GRPO run:
            24 GB RSS and OOM-killed, RESULTS.md issue 19)
  verilog   32 rows (4 x 8), 250 prompt + 256 completion tokens (a Verilog GRPO run: 11 GB)
The update is what `coderl train` runs: the reference pass (no grad, KL), then the loss's forward and
backward through the real `Updater` (micro-batches from the memory budget when one is set), and one
AdamW step.  Token ids are random (the memory does not depend on them).

Each configuration runs in its own process, so its peak is its own:
  before        the full-logits path, whole minibatch, no budget (what the code did before issue 40)
  chunked       log-probs and entropy in chunks (default chunk size), whole minibatch
  checkpointed  chunked + --gradient-checkpointing
  budget        chunked + --memory-budget (8G unless --budget), micro-batches from the one-row probe
Columns: peak RSS (the larger of the process's VmHWM and this script's 50 ms polling of it), RSS after loading
the model, the full float32 logits [n, T, V] the loss would hold, what autograd saved for backward split into
vocabulary-sized tensors (logits, softmax) and the rest (layer activations), optimizer state, micro-batch
rows, and the update's wall time. A process above --kill-above is stopped and its row says so.

    python bench/memory_profile.py                               # both scenarios, every configuration
    python bench/memory_profile.py --scenario verilog --configs before,budget
    python bench/memory_profile.py --rows 2 --prompt 16 --tokens 32 --configs before,chunked   # a smoke run
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

SCENARIOS = {"repair": dict(rows=16, group=4, prompt=200, tokens=850),
             "verilog": dict(rows=32, group=8, prompt=250, tokens=256)}
CONFIGS = ("before", "chunked", "checkpointed", "budget")
GB = 1 << 30


def child(spec: dict) -> dict:
    import torch
    from peft import get_peft_model

    from coderl.models import load_model, lora_config
    from coderl.train import logprobs as lp
    from coderl.train.activation_checkpointing import enable
    from coderl.train.memory import MemoryBudget, PeakMeter, parse_size, status_bytes
    from coderl.train.updater import Updater, build_optimizer, trainable_parameters

    torch.manual_seed(0)
    loaded = load_model(spec["model"], dtype=spec["dtype"])
    model = get_peft_model(loaded.model, lora_config(8, 16, 0.0))
    model.eval()
    rss_model = PeakMeter().in_use()
    config = spec["config"]
    if config == "checkpointed":
        enable(model)
    vocab = model.get_output_embeddings().weight.shape[0]
    n, group, P, T = spec["rows"], spec["group"], spec["prompt"], spec["tokens"]
    prompts = torch.randint(3, vocab, (n // group, P)).repeat_interleave(group, 0)
    ids = torch.cat([prompts, torch.randint(3, vocab, (n, T))], 1)
    seqs = lp.Sequences(ids, torch.ones(n, P + T, dtype=torch.long), torch.arange(P + T).repeat(n, 1), ids[:, P:],
                        torch.ones(n, T))
    advantages = torch.randn(n)
    chunk = 1 << 40 if config == "before" else None
    budget = MemoryBudget(parse_size(spec["budget"]) if config == "budget" else None, log=print)
    if chunk is None:
        chunk = budget.chunk_bytes

    def rows_of(rows):
        if rows is None:
            return seqs
        return lp.Sequences(seqs.input_ids[rows], seqs.attention_mask[rows], seqs.position_ids[rows],
                            seqs.completion_ids[rows], seqs.mask[rows])

    optimizer, scheduler = build_optimizer(trainable_parameters([model]), learning_rate=1e-5, weight_decay=0.0,
                                           schedule="constant", warmup_steps=0, total_steps=1)
    updater = Updater([model], optimizer, scheduler, max_grad_norm=1.0, group=group, memory=budget)
    saved = {"vocab": 0, "other": 0}
    seen: set = set()

    def pack(t):
        storage = t.untyped_storage()
        key = storage.data_ptr()
        if key not in seen:
            seen.add(key)
            saved["vocab" if t.dim() and t.shape[-1] == vocab else "other"] += storage.nbytes()
        return t

    t0 = time.perf_counter()
    with torch.no_grad():
        ref = updater.map_rows(n, lambda rows: lp.token_logprobs(model, rows_of(rows), 1.0, chunk_bytes=chunk),
                               width=P + T)

    def loss_fn(rows):
        if updater.probing:
            out, ent = lp.token_logprobs(model, rows_of(rows), 1.0, with_entropy=True, chunk_bytes=chunk)
        else:
            with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
                out, ent = lp.token_logprobs(model, rows_of(rows), 1.0, with_entropy=True, chunk_bytes=chunk)
        mask = seqs.mask[rows]
        kl = (out - ref[rows]) ** 2
        loss = (-(out * advantages[rows, None]) + 0.04 * kl - 0.001 * ent).mul(mask).sum() / seqs.mask.sum()
        return loss, {}

    updater.update(torch.arange(n), seqs.mask, loss_fn, width=P + T)
    seconds = time.perf_counter() - t0
    state = sum(t.numel() * t.element_size() for s in optimizer.state.values() for t in s.values()
                if torch.is_tensor(t))
    peak = status_bytes("VmHWM")
    return {"peak": peak, "rss_model": rss_model, "logits": n * T * vocab * 4, "saved_vocab": saved["vocab"],
            "saved_other": saved["other"], "optimizer": state, "rows": budget.used.get("grad", n),
            "seconds": seconds}


def run_child(spec: dict, kill_above: int) -> dict:
    from coderl.train.memory import status_bytes

    proc = subprocess.Popen([sys.executable, os.path.abspath(__file__), "--child", json.dumps(spec)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    high, stopped = [0], [False]

    def watch():
        while proc.poll() is None:
            try:
                rss = status_bytes("VmRSS", proc.pid)
            except OSError:
                break
            high[0] = max(high[0], rss)
            if rss > kill_above:
                stopped[0] = True
                proc.kill()
                break
            time.sleep(0.05)

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    out, err = proc.communicate()
    watcher.join()
    if stopped[0]:
        return {"killed": high[0]}
    if proc.returncode != 0:
        return {"error": (err.strip().splitlines() or ["?"])[-1], "high": high[0]}
    result = json.loads(out.strip().splitlines()[-1])
    result["peak"] = max(result["peak"], high[0])  # the budget's probes reset VmHWM: the watcher saw all of it
    return result


def table(rows: list[tuple[str, str, dict]]) -> str:
    head = ("| scenario | configuration | peak RSS | after load | full logits | saved: vocabulary-sized | saved: other "
            "| optimizer | rows at once | update |\n|---|---|---|---|---|---|---|---|---|---|")
    lines = [head]
    for scenario, config, r in rows:
        if "killed" in r:
            lines.append(f"| {scenario} | {config} | > {r['killed'] / GB:.1f} GB (stopped) | | | | | | | |")
            continue
        if "error" in r:
            lines.append(f"| {scenario} | {config} | failed at {r['high'] / GB:.1f} GB: {r['error']} | | | | | | | |")
            continue
        lines.append(f"| {scenario} | {config} | {r['peak'] / GB:.2f} GB | {r['rss_model'] / GB:.2f} GB | "
                     f"{r['logits'] / GB:.2f} GB | {r['saved_vocab'] / GB:.2f} GB | {r['saved_other'] / GB:.2f} GB | "
                     f"{r['optimizer'] / (1 << 20):.1f} MB | {r['rows']} | {r['seconds']:.1f} s |")
    return "\n".join(lines)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--child", help=argparse.SUPPRESS)
    ap.add_argument("--model", default="smollm2-135m-instruct")
    ap.add_argument("--dtype", default="bfloat16", choices=["float32", "bfloat16"])
    ap.add_argument("--scenario", default="repair,verilog", help="comma-separated: " + ", ".join(SCENARIOS))
    ap.add_argument("--configs", default=",".join(CONFIGS), help="comma-separated: " + ", ".join(CONFIGS))
    ap.add_argument("--budget", default="8G", help="the budget configuration's --memory-budget")
    ap.add_argument("--rows", type=int, help="override the scenario's rows (a multiple of its group)")
    ap.add_argument("--prompt", type=int, help="override the prompt tokens")
    ap.add_argument("--tokens", type=int, help="override the completion tokens")
    ap.add_argument("--kill-above", default="20G", help="stop a configuration whose RSS passes this")
    args = ap.parse_args()
    if args.child:
        print(json.dumps(child(json.loads(args.child))))
        return 0
    from rl_step import machine, model_folder

    from coderl.train.memory import parse_size

    rows = []
    for scenario in args.scenario.split(","):
        shape = dict(SCENARIOS[scenario])
        for key in ("rows", "prompt", "tokens"):
            if getattr(args, key):
                shape[key] = getattr(args, key)
        shape["group"] = min(shape["group"], shape["rows"])
        for config in args.configs.split(","):
            spec = dict(shape, model=model_folder(args.model), dtype=args.dtype, config=config, budget=args.budget)
            rows.append((f"{scenario} ({shape['rows']} x {shape['prompt']}+{shape['tokens']})", config,
                         run_child(spec, parse_size(args.kill_above))))
            print(f"{scenario} {config}: {json.dumps(rows[-1][2])}", flush=True)
    print(machine(torch_threads(), "cpu"))
    print(f"model {args.model}, {args.dtype}, LoRA r 8; budget configuration: --memory-budget {args.budget}")
    print(table(rows))
    return 0


def torch_threads() -> int:
    import torch

    return torch.get_num_threads()


if __name__ == "__main__":
    sys.exit(main())
