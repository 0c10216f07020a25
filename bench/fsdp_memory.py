"""Per-process memory of `coderl train` on 1 process against 2 FSDP processes (issue 44).

A random model larger than the bundled one (SmolLM2-360M's shape: 32 layers, hidden 960, 362M parameters;
the bundled model's tokenizer) trains 2 GRPO steps with KL, on CPU in float32, two ways per mode:
  1 process     `python -m coderl train ...` (nothing sharded)
  2 processes   `accelerate launch --config_file configs/accelerate/fsdp.yaml --num_processes 2 -m coderl ...`
and two modes: `lora` (r 8 adapter; the reference is the base with the adapter off) and `full` (--finetune
full: every weight trains with AdamW, and a frozen reference copy).  Each process measures itself (Linux
/proc/self/status; the peak is reset through /proc/self/clear_refs between phases):
  baseline     RSS after importing coderl and torch, before anything loads
  load peak    peak RSS until the optimiser is built: every rank loads the whole model, then shards it
  steps peak   peak RSS over the steps: generation, reference and old log-prob passes, the update, AdamW
  resident     RSS after the steps (weights, reference copy, AdamW moments, allocator caches; weights read
               from a safetensors file count once touched, so only here for an unsharded LoRA base)
  save peak    peak RSS of the final checkpoint (under FSDP rank 0 gathers the full state dicts)
glibc's dynamic mmap threshold is pinned (MALLOC_MMAP_THRESHOLD_=131072), so a freed tensor leaves the RSS.

    python bench/fsdp_memory.py                     # both modes (about 10 minutes on 2 cores)
    python bench/fsdp_memory.py --modes lora --layers 4 --new-tokens 4   # a smoke run
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GB = 1e9


def status() -> dict:
    """VmRSS and VmHWM of this process, bytes."""
    with open("/proc/self/status") as f:
        return {k: int(v.split()[0]) * 1024 for k, v in (line.split(":", 1) for line in f) if k in ("VmRSS", "VmHWM")}


def reset_peak() -> None:
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")


def worker(spec: dict) -> None:
    """One training process: coderl's own `coderl train`, with the phases measured around what it calls."""
    import coderl.train.rl.common as common
    import coderl.train.rl.ledger as ledger
    from coderl.base.config import build
    from coderl.train.config import TrainConfig
    from coderl.train.rl.policy_gradient import train

    seen = {"baseline": status()["VmRSS"]}
    reset_peak()
    build_optimizer, weights = common.build_optimizer, ledger.Ledger._weights

    def measured_optimizer(*args, **kwargs):  # start_run builds it once the modules are sharded
        now = status()
        seen.update(load_peak=now["VmHWM"])
        reset_peak()
        return build_optimizer(*args, **kwargs)

    def measured_weights(self):  # the checkpoint gathers the weights first
        now = status()
        seen.update(steps_peak=now["VmHWM"], resident=now["VmRSS"])
        reset_peak()
        return weights(self)

    common.build_optimizer, ledger.Ledger._weights = measured_optimizer, measured_weights
    train(build(TrainConfig, spec["fields"]), log=lambda m: None)
    seen["save_peak"] = status()["VmHWM"]
    rank = os.environ.get("RANK", "0")
    with open(os.path.join(spec["fields"]["out"], f"memory-rank{rank}.json"), "w") as f:
        json.dump(seen, f)
    if int(os.environ.get("WORLD_SIZE", "1")) > 1:
        from coderl.train.distributed import exit_process

        exit_process(0)


def random_model(folder: str, layers: int) -> int:
    """SmolLM2-360M's shape with `layers` decoder layers, random weights (seed 0), and the bundled tokenizer;
    its parameter count."""
    import torch
    from transformers import AutoTokenizer, LlamaConfig, LlamaForCausalLM

    from coderl.models import builtin_folder

    bundled = str(builtin_folder("smollm2-135m-instruct"))
    config = LlamaConfig.from_pretrained(bundled)
    config.update(dict(hidden_size=960, intermediate_size=2560, num_hidden_layers=layers, num_attention_heads=15,
                       num_key_value_heads=5, head_dim=64))
    torch.manual_seed(0)
    model = LlamaForCausalLM(config)
    model.save_pretrained(folder)
    AutoTokenizer.from_pretrained(bundled).save_pretrained(folder)
    return sum(p.numel() for p in model.parameters())


def run(args, mode: str, processes: int, model: str, tasks: str, workdir: str) -> list[dict]:
    out = os.path.join(workdir, f"{mode}-{processes}")
    fields = dict(out=out, model=model, tasks=tasks, format="completion", steps=args.steps, prompts_per_step=2,
                  samples_per_prompt=2, max_new_tokens=args.new_tokens, min_new_tokens=args.new_tokens,
                  generation_batch_size=4, temperature=1.0, algo="grpo", kl_beta=0.05, learning_rate=1e-5,
                  save_steps=1000, workers=1, progress=False, seed=0, device="cpu", dtype="float32",
                  memory_budget="none", **(dict(finetune="full") if mode == "full" else dict(lora_r=8)))
    spec = json.dumps({"fields": fields})
    env = {**os.environ, "OMP_NUM_THREADS": "1", "MALLOC_MMAP_THRESHOLD_": "131072",
           "PYTHONPATH": os.pathsep.join(filter(None, [ROOT, os.environ.get("PYTHONPATH")]))}
    me = [os.path.abspath(__file__), "--worker", spec]
    if processes == 1:
        cmd = [sys.executable, *me]
    else:
        cmd = [os.path.join(os.path.dirname(sys.executable), "accelerate"), "launch", "--config_file",
               os.path.join(ROOT, "configs", "accelerate", "fsdp.yaml"), "--num_processes", str(processes),
               "--main_process_port", str(args.port), *me]
    done = subprocess.run(cmd, env=env, cwd=ROOT, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"bench/fsdp_memory.py: {mode} on {processes} process(es) failed:\n{done.stderr[-3000:]}")
    return [json.load(open(os.path.join(out, f"memory-rank{r}.json"))) for r in range(processes)]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--modes", default="lora,full")
    ap.add_argument("--layers", type=int, default=32)
    ap.add_argument("--new-tokens", type=int, default=16)
    ap.add_argument("--steps", type=int, default=2)
    ap.add_argument("--port", type=int, default=29581)
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        worker(json.loads(args.worker))
        return 0
    from rl_step import machine, write_tasks

    with tempfile.TemporaryDirectory() as workdir:
        model = os.path.join(workdir, "model")
        params = random_model(model, args.layers)
        tasks = write_tasks(os.path.join(workdir, "tasks.jsonl"), 2)
        print(machine(1, "cpu"))
        print(f"model: random, SmolLM2-360M's shape with {args.layers} layers, {params / 1e6:.0f}M parameters "
              f"({params * 4 / GB:.2f} GB in float32); {args.steps} GRPO steps of 2 prompts x 2 samples x "
              f"{args.new_tokens} new tokens, KL 0.05, 1 thread per process; GB = 1e9 bytes")
        print("| mode | processes | rank | baseline | load peak | steps peak | resident | save peak |")
        print("|---|---|---|---|---|---|---|---|")
        for mode in args.modes.split(","):
            for processes in (1, 2):
                for rank, m in enumerate(run(args, mode, processes, model, tasks, workdir)):
                    print(f"| {mode} | {processes} | {rank} | " + " | ".join(
                        f"{m[k] / GB:.2f}" for k in ("baseline", "load_peak", "steps_peak", "resident", "save_peak"))
                        + " |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
