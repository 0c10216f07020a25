"""One GRPO step: coderl's `train` vs TRL's `GRPOTrainer` on identical work, side by side in one run; and
with --stage, where the time of a pipeline config's RL stage goes (issue 55).

Both sides: the bundled smollm2-135m-instruct (one converted HF folder), fp32 (--dtype bfloat16: bf16
base weights on both sides, TRL through `model_init_kwargs`; LoRA weights fp32 on both), on --device (auto:
the GPU when one is present; TRL is told `use_cpu` only with cpu), LoRA r=8 alpha=16
dropout=0.05 on q/k/v/o_proj; the first --prompts HumanEval prompts as raw text (completion format, no
chat template) x --samples samples at temperature 1, exactly --new-tokens new tokens (min = max new
tokens), beta 0 (no reference model), one optimiser step per generation, the same constant learning
rate; reward 1/0 = every unit test passes, through coderl's sandbox (TRL: a reward function running
`task.build_request(completion)` on one shared `Sandbox`, the completion extracted by coderl's
completion format as in coderl's own rollouts).  TRL keeps its default loss type (1.16: "dapo", token
sum / active tokens in the batch); coderl gets the matching --aggregation (dapo -> token_mean).  TRL's
own bf16 autocast and gradient checkpointing are switched off (fp32 and no recompute, as coderl;
--trl-defaults keeps them).

Each side runs in its own subprocess (`--only coderl|trl --json`; its stderr is this process's), one after the
other: one warm-up
step, then --steps timed steps; the table shows per-column medians over the timed steps.
  coderl  `train(TrainConfig(...))` on a temp JSONL of the same prompts (prompts_per_step = --prompts),
          from RUN/metrics.jsonl: gen = time/generation, score = time/sandbox_wait, fwd/bwd =
          time/optimisation (rewards, advantages, forward, backward, optimiser step), step = time/step.
  trl     step = on_step_begin -> on_step_end of a TrainerCallback (not logging); gen and score = TRL's
          own profiling timers of `transformers.generate` and `_calculate_rewards` (TRL reports them
          only to wandb/mlflow/trackio; `ProfilingContext._log_metrics` is replaced to record them);
          fwd/bwd = step - gen - score (tokenising, decoding, advantages, forward, backward, optimiser).
  floor   plain HF in a third subprocess: one batched `generate` of exactly --new-tokens tokens for all
          rows (base model without LoRA, use_cache=True, sampling); one no-grad forward and one
          forward+backward of the LoRA model over the full rows (prompt + new tokens), median of 3.
  coderl-vllm  coderl with `--engine vllm` (the engine in its own process, sent the policy after every
          update, its rows corrected off-policy: on CPU the adapter merged into the base weights and reloaded);
          `coderl-vllm@0` binds the engine's CPU threads to core 0 (VLLM_CPU_OMP_THREADS_BIND), `@0-1` to both.
  trl-vllm  TRL with use_vllm=True, vllm_mode="colocate", run with the engine's Python (.venv-vllm, with trl
          installed there).  On vllm-cpu 0.32 it stops at TRL's first weight sync (`load_weights` on the CPU
          model: 'Parameter' object has no attribute 'weight_loader'); kept for a GPU machine.
--sides picks them (default: coderl trl); --ragged lets completions end at EOS (and coderl's stop strings)
instead of exactly --new-tokens.
--reward parity replaces the unit-test reward, on both sides, by 1/0 from the completion text's CRC-32 (the sandbox
still runs every program): at the default work every unit-test reward is 0, so coderl skips the update that TRL
runs for a zero gradient; with parity both run the whole update, the same work.
--rounds R runs each side R times, alternating which goes first.  Each side after the first is reported
as its median step over the first side's; with `--sides coderl trl` the last line is `speedup: N.Nx` =
TRL median step / coderl median step.

    make bench-rl                                  # = python bench/rl_step.py
    python bench/rl_step.py --prompts 2 --samples 2 --new-tokens 8 --steps 1    # a quick smoke run
    python bench/rl_step.py --device cuda          # issue 15's GPU comparison
    python bench/rl_step.py --dtype bfloat16 --prompts 4 --samples 8 --ragged --rounds 2 \
        --sides coderl coderl-vllm@0-1 coderl-vllm@0 trl   # issue 42: the engines, the demo's GRPO shape

TRL is an optional dependency (`pip install 'coderl[bench]'`); without it the script says so in one line.

--stage CONFIG runs the first `rl:` entry of a pipeline config (--run NAME another) as `coderl pipeline`
runs it (its fields; model: the SFT adapter when one exists under the config's `out`, else the base
model), into a temporary directory, --max-steps capping its steps (evaluations still at every
eval_steps and at the last step).  No TRL needed.  From the run's metrics.jsonl it prints, per step,
each disjoint part of `time/step` and its share (`STEP_PARTS`; docs/training.md, "Where a step's time
goes"), with the refill rounds inside generation and scoring; then the stage: its wall time (model
loading, the leak check and checkpoints included) split into steps, of which refill rounds and the
reference pass, and selection evaluations (step 0's included), with their shares.  --json PATH also
writes the rows and both splits.

    python bench/rl_step.py --stage configs/cpu-demo.yaml --max-steps 2 --json stage.json
"""

from __future__ import annotations

import argparse
import datetime
import gzip
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
import zlib

AGGREGATION_OF_TRL_LOSS = {"dapo": "token_mean", "bnpo": "token_mean", "grpo": "sequence_mean",
                           "dr_grpo": "token_sum_const"}
PASSED = ("model", "dtype", "device", "prompts", "samples", "new_tokens", "steps", "learning_rate", "loss_type",
          "timeout", "threads", "reward")


def text_parity(completion: str) -> float:
    """`--reward parity`: 1 or 0 by the parity of the completion text's CRC-32, the same function on both sides.  The
    unit-test reward of the default work is 0 for every row (the base model passes none of the first prompts), so
    no group varies and coderl skips the update (zero-advantage rows, issue 56) while TRL runs it for a zero
    gradient; this reward varies inside groups, so both sides run the whole update: the same work."""
    return float(zlib.crc32(completion.encode()) % 2)
SIDES = ("coderl", "coderl-vllm", "trl", "trl-vllm")  # -vllm: coderl --engine vllm / TRL use_vllm (colocate)


def side_name(name: str) -> str:
    """A side, optionally with the vLLM engine's CPU cores, `coderl-vllm@0` (VLLM_CPU_OMP_THREADS_BIND=0)."""
    base, at, bind = name.partition("@")
    if base not in SIDES or (at and (not base.endswith("vllm") or not bind)):
        raise argparse.ArgumentTypeError(f"{name!r}: expected one of {', '.join(SIDES)}, a -vllm one optionally "
                                         "@CORES (e.g. coderl-vllm@0)")
    return name
NO_TRL = ("bench/rl_step.py: TRL is not installed (pip install 'coderl[bench]', or pip install trl); this benchmark "
          "compares coderl with TRL's GRPOTrainer")
LORA = (8, 16, 0.05)  # r, alpha, dropout


def first_tasks(n: int):
    from coderl.tasks import load_tasks

    return load_tasks("humaneval").tasks[:n]


def model_folder(spec: str) -> str:
    from coderl.models import BUILTINS, builtin_folder

    return str(builtin_folder(spec)) if spec in BUILTINS else spec


def write_tasks(path: str, n: int) -> str:
    """The first n HumanEval rows, verbatim, as a JSONL file (a task spec coderl accepts)."""
    from coderl.tasks.loaders.humaneval import bundled_humaneval_path

    ids = {t.task_id for t in first_tasks(n)}
    with gzip.open(bundled_humaneval_path(), "rt", encoding="utf-8") as f, open(path, "w", encoding="utf-8") as out:
        out.writelines(line for line in f if line.strip() and json.loads(line)["task_id"] in ids)
    return path


def run_coderl(args) -> dict:
    from coderl.base.config import build
    from coderl.train.config import TrainConfig
    from coderl.train.rl.policy_gradient import train
    from coderl.train.tracking import read_metrics

    with tempfile.TemporaryDirectory() as tmp:
        cfg = build(TrainConfig, dict(
            out=os.path.join(tmp, "run"), algo="grpo", model=args.model, format="completion", eval_tasks=None,
            tasks=write_tasks(os.path.join(tmp, "tasks.jsonl"), args.prompts), steps=1 + args.steps, dtype=args.dtype,
            device=args.device,
            prompts_per_step=args.prompts, samples_per_prompt=args.samples,
            generation_batch_size=args.prompts * args.samples, max_new_tokens=args.new_tokens,
            min_new_tokens=None if args.ragged else args.new_tokens, temperature=1.0,
            engine="vllm" if args.only.startswith("coderl-vllm") else "hf", learning_rate=args.learning_rate,
            kl_beta=0.0,
            aggregation=AGGREGATION_OF_TRL_LOSS[args.loss_type], reward="pass", lora_r=LORA[0],
            lora_alpha=LORA[1], lora_dropout=LORA[2], timeout=args.timeout, save_steps=10**9, progress=False))
        override = None
        if args.reward == "parity":
            def override(results, samples, tasks):
                return [text_parity(s.completion) for s in samples]
        train(cfg, log=lambda message: None, reward_override=override)
        rows = read_metrics(cfg.out)[1:]  # the first step is the warm-up
    keys = {"gen": "time/generation", "score": "time/sandbox_wait", "fwd_bwd": "time/optimisation",
            "step": "time/step", "gen_tokens": "rollout/gen_tokens", "reward": "reward/total"}
    return {**{k: [r[v] for r in rows] for k, v in keys.items()}, "loss": f"coderl ppo_clip + {cfg.aggregation}"}


def run_trl(args) -> dict:
    vllm = args.only.startswith("trl-vllm")
    if vllm:  # TRL's colocated engine is vLLM's external launcher: a torch.distributed world of one
        os.environ.update(RANK="0", LOCAL_RANK="0", WORLD_SIZE="1", MASTER_ADDR="127.0.0.1", MASTER_PORT="29531")
    from datasets import Dataset
    from transformers import PrinterCallback, TrainerCallback
    from trl import GRPOConfig, GRPOTrainer
    from trl.extras import profiling

    from coderl.models import lora_config
    from coderl.rollout.formats import get_format
    from coderl.sandbox.client import Sandbox, usable_cpus
    from coderl.sandbox.types import Limits

    tasks = {t.task_id: t for t in first_tasks(args.prompts)}
    fmt, limits = get_format("completion"), Limits(cpu_seconds=args.timeout)
    timers: dict[int, dict[str, float]] = {}  # global step -> TRL profiling name -> seconds (summed)
    steps, logged = [], []  # on_step_begin -> on_step_end seconds; TRL's logged metrics per step

    def record(self, duration):
        name = self.name.split(".", 1)[1]  # "GRPOTrainer.transformers.generate" -> "transformers.generate"
        timers.setdefault(self.step, {})[name] = timers.get(self.step, {}).get(name, 0.0) + duration

    profiling.ProfilingContext._log_metrics = record

    class StepTimer(TrainerCallback):
        def on_step_begin(self, _args, state, control, **kwargs):
            self.t0 = time.perf_counter()

        def on_step_end(self, _args, state, control, **kwargs):
            steps.append(time.perf_counter() - self.t0)

        def on_log(self, _args, state, control, logs=None, **kwargs):
            if logs and "completions/mean_length" in logs:
                logged.append(dict(logs))

    with Sandbox(workers=usable_cpus(), limits=limits) as sandbox, tempfile.TemporaryDirectory() as tmp:
        def unit_tests(prompts, completions, task_id, **kwargs):
            futures = [sandbox.submit(tasks[t].build_request(fmt.extract(tasks[t], c).completion, limits))
                       for t, c in zip(task_id, completions)]
            passed = [1.0 if f.result().passed else 0.0 for f in futures]
            if args.reward == "parity":  # the sandbox still runs every program: the same scoring work as coderl's
                return [text_parity(fmt.extract(tasks[t], c).completion) for t, c in zip(task_id, completions)]
            return passed

        batch = args.prompts * args.samples  # one generation batch = one optimiser step: steps_per_generation 1
        config = GRPOConfig(
            output_dir=tmp, use_cpu=args.device == "cpu", report_to=[], save_strategy="no", logging_steps=1,
            disable_tqdm=True,
            max_steps=1 + args.steps, seed=0, learning_rate=args.learning_rate, lr_scheduler_type="constant",
            weight_decay=0.0, max_grad_norm=1.0, per_device_train_batch_size=batch, generation_batch_size=batch,
            gradient_accumulation_steps=1, num_generations=args.samples, num_iterations=1, beta=0.0,
            loss_type=args.loss_type, epsilon=0.2, temperature=1.0, top_p=1.0, top_k=0,
            max_completion_length=args.new_tokens,
            generation_kwargs={} if args.ragged else {"min_tokens" if vllm else "min_new_tokens": args.new_tokens},
            **(dict(use_vllm=True, vllm_mode="colocate", vllm_enable_sleep_mode=False) if vllm else {}),
            bf16=args.trl_defaults, fp16=False, gradient_checkpointing=args.trl_defaults,
            model_init_kwargs={"dtype": args.dtype})
        dataset = Dataset.from_list([{"prompt": t.prompt, "task_id": t.task_id} for t in tasks.values()])
        trainer = GRPOTrainer(model=model_folder(args.model), reward_funcs=unit_tests, args=config,
                              train_dataset=dataset, peft_config=lora_config(*LORA), callbacks=[StepTimer()])
        trainer.remove_callback(PrinterCallback)  # it prints every log to stdout, where our JSON goes
        trainer.train()
    step = steps[1:]  # global step 0 is the warm-up
    gen = [sum(v for k, v in timers[s].items() if k.endswith("generate")) for s in range(1, len(steps))]
    score = [timers[s]["_calculate_rewards"] for s in range(1, len(steps))]
    return {"gen": gen, "score": score, "fwd_bwd": [t - g - r for t, g, r in zip(step, gen, score)], "step": step,
            "gen_tokens": [g["completions/mean_length"] for g in logged[1:]],
            "reward": [g["reward"] for g in logged[1:]],
            "loss": f"TRL loss_type {config.loss_type} (bf16 {config.bf16}, "
                    f"gradient checkpointing {config.gradient_checkpointing}, weights {args.dtype})"}


def run_floor(args) -> dict:
    import torch
    from peft import get_peft_model
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from coderl.models import lora_config

    folder, n, device = model_folder(args.model), args.new_tokens, args.device
    tok = AutoTokenizer.from_pretrained(folder, padding_side="left")
    if tok.pad_token is None:  # batched prompts need padding (as coderl's loader: pad = eos)
        tok.pad_token = tok.eos_token
    model = AutoModelForCausalLM.from_pretrained(folder, dtype=getattr(torch, args.dtype)).to(device).eval()
    enc = tok([t.prompt for t in first_tasks(args.prompts) for _ in range(args.samples)], return_tensors="pt",
              padding=True).to(device)
    sampling = dict(do_sample=True, temperature=1.0, top_k=0, top_p=1.0, use_cache=True, pad_token_id=tok.pad_token_id)

    def sync():  # CUDA runs asynchronously: a timer must wait for the work it times
        if device == "cuda":
            torch.cuda.synchronize()

    with torch.no_grad():
        model.generate(**enc, max_new_tokens=2, min_new_tokens=2, **sampling)  # warm-up
        sync()
        t = time.perf_counter()
        seqs = model.generate(**enc, max_new_tokens=n, min_new_tokens=n, **sampling)
        sync()
        gen = time.perf_counter() - t
    assert seqs.shape[1] == enc["input_ids"].shape[1] + n, "generate did not produce exactly --new-tokens tokens"
    model = get_peft_model(model, lora_config(*LORA)).eval()  # dropout off, as in coderl's loss pass
    attention = torch.cat([enc["attention_mask"], torch.ones(len(seqs), n, dtype=torch.long, device=device)], 1)

    def forward(grad: bool) -> float:
        sync()
        t = time.perf_counter()
        with torch.set_grad_enabled(grad):
            logits = model(input_ids=seqs, attention_mask=attention, logits_to_keep=n + 1).logits[:, :-1].float()
            logp = torch.log_softmax(logits, -1).gather(-1, seqs[:, -n:].unsqueeze(-1)).mean()
            if grad:
                logp.backward()
                model.zero_grad(set_to_none=True)
        sync()
        return time.perf_counter() - t

    forward(True)  # warm-up
    return {"generate": gen, "forward": statistics.median(forward(False) for _ in range(3)),
            "forward_backward": statistics.median(forward(True) for _ in range(3)), "shape": list(seqs.shape)}


# Disjoint parts of a step's time/step; rollout_wait replaces generation and sandbox_wait with async rollouts.
STEP_PARTS = ("generation", "sandbox_wait", "rollout_wait", "old_logprobs", "reference", "memory_probe", "forward",
              "backward", "optimizer")


def step_split(row: dict) -> dict:
    """Seconds of each part of one metrics row's step, and `other`: the rest of time/step (rewards,
    advantages, bookkeeping).  Asynchronous rollouts were generated in the worker meanwhile: the step's
    part is its wait for them, not their generation."""
    parts = {p: row[f"time/{p}"] for p in STEP_PARTS
             if f"time/{p}" in row and not (p == "generation" and "time/rollout_wait" in row)}
    return {**parts, "other": row["time/step"] - sum(parts.values())}


def stage_split(rows: list[dict], wall: float) -> dict:
    """name -> {count, seconds, share of `wall`} of a run's metrics rows: its steps, the refill rounds and
    the reference pass inside them, its selection evaluations (step 0's row included), and `other`: the
    wall time outside steps and evaluations (model loading, the leak check, checkpoints)."""
    steps = [r for r in rows if "time/step" in r]
    evaluations = [r["time/evaluation"] for r in rows if "time/evaluation" in r]

    def total(key):
        return sum(r.get(key, 0.0) for r in steps)

    split = {"steps": (len(steps), total("time/step")),
             "refill rounds": (int(total("sampling/extra_rounds")), total("time/refill")),
             "reference pass": (sum("time/reference" in r for r in steps), total("time/reference")),
             "selection evaluations": (len(evaluations), sum(evaluations))}
    split["other"] = (None, wall - split["steps"][1] - split["selection evaluations"][1])
    return {name: {"count": n, "seconds": sec, "share": sec / wall} for name, (n, sec) in split.items()}


def stage_config(path: str, name: str | None, max_steps: int | None, out: str, log):
    """The TrainConfig of the `rl:` entry `name` (None: the first) of pipeline config `path`, as the pipeline
    runs it, writing into `out`."""
    import dataclasses

    from coderl.pipeline.plan import load_plan
    from coderl.pipeline.tasks import write_split

    plan = load_plan(path, check_tasks=False)
    stage = next((s for s in plan.stages if s.kind == "rl" and name in (None, s.name[3:])), None)
    if stage is None:
        sys.exit(f"bench/rl_step.py: {path} has no rl: entry" + (f" named {name}" if name else ""))
    cfg = stage.config
    changes = {"out": os.path.join(out, "run"), "steps": min(cfg.steps, max_steps or cfg.steps)}
    if not os.path.isdir(cfg.model):  # the SFT adapter this entry starts from is not trained yet
        changes["model"] = plan.model
    if stage.split_file:
        spec, split, seed, _ = stage.split_file
        changes["tasks"] = os.path.join(out, "tasks.jsonl")
        write_split(spec, split, seed, changes["tasks"])
    rates = cfg.sampling.pass_rates
    if rates and not os.path.exists(rates):
        log(f"{stage.name}: its measured pass rates ({rates}) are not there yet: the curriculum starts without them")
        changes["sampling"] = dataclasses.replace(cfg.sampling, pass_rates=None)
    log(f"{stage.name} of {path}: model {changes.get('model', cfg.model)}, {changes['steps']} of {cfg.steps} steps")
    return dataclasses.replace(cfg, **changes)


def run_stage(args) -> int:
    from coderl.train import run_training
    from coderl.train.tracking import read_metrics

    with tempfile.TemporaryDirectory() as tmp:
        cfg = stage_config(args.stage, args.run, args.max_steps, tmp, print)
        start = time.perf_counter()
        run_training(cfg, log=print)
        wall = time.perf_counter() - start
        rows = read_metrics(cfg.out)
    steps = [r for r in rows if "time/step" in r]
    print_table(step_table(steps))
    stage = stage_split(rows, wall)
    print(f"\nstage wall time {wall:.1f} s")
    print_table([["stage", "count", "seconds", "share"]] + [
        [k, "" if v["count"] is None else str(v["count"]), f"{v['seconds']:.1f}", f"{v['share']:.0%}"]
        for k, v in stage.items()])
    import torch

    from coderl.models import resolve_device

    print(machine(torch.get_num_threads(), str(resolve_device(cfg.device))))
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump({"config": args.stage, "model": cfg.model, "steps": cfg.steps, "wall": wall, "rows": rows,
                       "step_split": [step_split(r) for r in steps], "stage_split": stage}, f, indent=1)
    return 0


def step_table(steps: list[dict]) -> list[list[str]]:
    """The per-step table: each part's seconds and share of its step, the refill rounds under the wait."""
    splits = [step_split(r) for r in steps]
    table = [["part", *(f"step {r['step']}" for r in steps)]]
    for k in dict.fromkeys(k for split in splits for k in split):
        table.append([k, *(f"{s[k]:.2f} {s[k] / r['time/step']:4.0%}" if k in s else "-"
                           for s, r in zip(splits, steps))])
        if k in ("sandbox_wait", "rollout_wait") and any("time/refill" in r for r in steps):
            table.append(["  refill rounds (in gen + wait)", *(
                f"{r['time/refill']:.2f} {r['time/refill'] / r['time/step']:4.0%} x{r['sampling/extra_rounds']:g}"
                for r in steps)])
    return table + [["step", *(f"{r['time/step']:.2f} 100%" for r in steps)]]


def print_table(rows: list[list[str]]) -> None:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    for row in rows:
        print(" | ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(row, widths))))


def in_child(only: str, args) -> dict:
    flags = [x for k in PASSED for x in (f"--{k.replace('_', '-')}", str(getattr(args, k)))]
    python = sys.executable
    env = {**os.environ, "TOKENIZERS_PARALLELISM": "false", "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    if "@" in only:  # the engine's cores
        env["VLLM_CPU_OMP_THREADS_BIND"] = only.partition("@")[2]
    if only.startswith("trl-vllm"):  # TRL imports vllm in its own process: the engine's environment (trl there)
        from coderl.rollout.vllm_engine import REPO, engine_python

        python = engine_python()
        env["PYTHONPATH"] = str(REPO)
    cmd = [python, os.path.abspath(__file__), "--only", only, "--json", *flags]
    # the child's stderr is this process's (not captured): its errors, and the stacks it writes when a watchdog
    # stops it (scripts/gpu_check.sh: SIGABRT + PYTHONFAULTHANDLER), reach the log even when this process dies too
    proc = subprocess.run(cmd + ["--trl-defaults"] * args.trl_defaults + ["--ragged"] * args.ragged,
                          stdout=subprocess.PIPE, text=True, env=env)
    if proc.returncode != 0:
        sys.exit(f"--only {only} failed (exit {proc.returncode}); its stderr is above")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def machine(threads: int, device: str) -> str:
    import torch

    with open("/proc/cpuinfo") as f:
        cpu = next((line.split(":", 1)[1].strip() for line in f if line.startswith("model name")), "?")
    gpu = f" | {torch.cuda.get_device_name(0)}" if device == "cuda" else ""
    date = datetime.datetime.now().astimezone().isoformat("T", "seconds")
    return (f"machine: nproc {len(os.sched_getaffinity(0))} | {cpu}{gpu} | device {device} | torch {torch.__version__} "
            f"| threads {threads} | Python {platform.python_version()} | {date}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--model", default="smollm2-135m-instruct", help="built-in alias or HF folder (both sides)")
    ap.add_argument("--dtype", default="float32", choices=["float32", "bfloat16"], help="base weights (both sides)")
    ap.add_argument("--device", default="auto", choices=["auto", "cpu", "cuda"],
                    help="where both sides and the floor run (auto: cuda when present)")
    ap.add_argument("--prompts", type=int, default=4, help="HumanEval prompts per step (the first N)")
    ap.add_argument("--samples", type=int, default=4, help="completions per prompt (TRL num_generations, >= 2)")
    ap.add_argument("--new-tokens", type=int, default=128, help="exact new tokens per completion (--ragged: at most)")
    ap.add_argument("--ragged", action="store_true", help="completions end where they end (EOS; coderl: also its "
                    "stop strings) instead of exactly --new-tokens")
    ap.add_argument("--sides", nargs="+", type=side_name, default=["coderl", "trl"],
                    help="coderl-vllm: coderl --engine vllm; trl-vllm: TRL use_vllm=True, colocated, run with the "
                    "engine's Python (trl installed there); a -vllm side @CORES binds the engine's CPU threads "
                    "(VLLM_CPU_OMP_THREADS_BIND), e.g. coderl-vllm@0 coderl-vllm@0-1")
    ap.add_argument("--steps", type=int, default=3, help="timed steps per side (after one warm-up step)")
    ap.add_argument("--rounds", type=int, default=1, help="runs per side, alternating which side goes first")
    ap.add_argument("--learning-rate", type=float, default=2e-5)
    ap.add_argument("--loss-type", choices=sorted(AGGREGATION_OF_TRL_LOSS), help="TRL loss_type (default: TRL's)")
    ap.add_argument("--timeout", type=float, default=3.0, help="sandbox CPU seconds per program")
    ap.add_argument("--reward", choices=["tests", "parity"], default="tests",
                    help="tests: 1/0 by the unit tests; parity: 1/0 by the completion text's CRC-32 parity, which "
                         "varies inside groups, so both sides run the whole update (`text_parity`)")
    ap.add_argument("--threads", type=int, default=0, help="torch threads in each child (0: torch's default)")
    ap.add_argument("--trl-defaults", action="store_true", help="keep TRL's bf16 autocast and gradient checkpointing")
    ap.add_argument("--json", nargs="?", const="-", metavar="PATH", help="also dump all raw numbers here")
    ap.add_argument("--only", type=lambda v: v if v == "floor" else side_name(v), help=argparse.SUPPRESS)  # child
    ap.add_argument("--stage", metavar="CONFIG", help="split the RL stage of this pipeline config instead")
    ap.add_argument("--run", metavar="NAME", help="with --stage: its rl: entry of this name (default: the first)")
    ap.add_argument("--max-steps", type=int, help="with --stage: at most this many of its steps")
    args = ap.parse_args()
    if args.stage:
        if args.json == "-":
            ap.error("--json needs a PATH")
        return run_stage(args)
    import importlib.util

    if (args.only or "trl").startswith("trl") and importlib.util.find_spec("trl") is None:
        sys.exit(NO_TRL)
    import torch

    from coderl.base.config import ConfigError
    from coderl.models import resolve_device

    try:
        args.device = resolve_device(args.device)
    except ConfigError as exc:
        sys.exit(f"bench/rl_step.py: {exc}")
    if args.threads:
        torch.set_num_threads(args.threads)
    if args.loss_type is None:
        from trl import GRPOConfig

        args.loss_type = GRPOConfig.__dataclass_fields__["loss_type"].default
    if args.only:
        run = run_floor if args.only == "floor" else run_trl if args.only.startswith("trl") else run_coderl
        print(json.dumps(run(args)))
        return 0
    if args.json == "-":
        ap.error("--json needs a PATH")
    if min(args.prompts, args.steps, args.rounds, args.new_tokens) < 1 or args.samples < 2:
        ap.error("--prompts, --steps, --rounds and --new-tokens must be >= 1, --samples >= 2")

    raw: dict[str, list] = {side: [] for side in args.sides}
    for r in range(args.rounds):
        for side in args.sides if r % 2 == 0 else args.sides[::-1]:
            raw[side].append(in_child(side, args))
    floor = in_child("floor", args)
    columns = ("gen", "score", "fwd_bwd", "step")
    med = {side: {k: statistics.median(v for run in runs for v in run[k]) for k in columns}
           for side, runs in raw.items()}
    table = [("side", "gen s", "score s", "fwd/bwd s", "step s (median)", "steps timed")]
    print_table(table + [(side, *(f"{med[side][k]:.2f}" for k in columns), str(sum(len(run["step"]) for run in runs)))
                         for side, runs in raw.items()])
    print(f"work per step: {args.prompts} HumanEval prompts x {args.samples} samples x {args.new_tokens} new tokens, "
          f"LoRA r={LORA[0]}, lr {args.learning_rate:g}, one optimiser step, base weights {args.dtype}")
    print("loss: " + "  <->  ".join(f"{side}: {runs[0]['loss']}" for side, runs in raw.items()))
    for side, runs in raw.items():
        tokens, rewards = [t for run in runs for t in run["gen_tokens"]], [x for run in runs for x in run["reward"]]
        print(f"{side}: new tokens per completion (step means) {min(tokens):g}..{max(tokens):g}, "
              f"reward (step means) {min(rewards):.3f}..{max(rewards):.3f}")
    rows, width = floor["shape"]
    print(f"floor generate: {floor['generate']:.2f} s = plain HF model.generate of {rows} rows x {args.new_tokens} "
          "tokens in one batch (base model, no LoRA, use_cache=True, sampling)")
    print(f"floor forward:  {floor['forward']:.2f} s = one no-grad forward of the LoRA model, {rows} rows x {width} "
          "tokens (prompt + new), logits of the new tokens only")
    print(f"floor fwd+bwd:  {floor['forward_backward']:.2f} s = the same forward with grad, then backward (LoRA grads)")
    print(f"floor step:     {floor['generate'] + floor['forward_backward']:.2f} s = generate + fwd+bwd")
    print(machine(torch.get_num_threads(), args.device))
    first = args.sides[0]  # every other side's median step against the first one's
    ratios = {side: med[side]["step"] / med[first]["step"] for side in args.sides[1:]}
    speedup = ratios.get("trl") if first == "coderl" else None
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump({"args": vars(args), "raw": raw, "medians": med, "floor": floor, "speedup": speedup,
                       "step_over_first": ratios}, f, indent=1)
    for side, ratio in ratios.items():
        print(f"{side} median step / {first}'s: {ratio:.2f}")
    if speedup is not None:
        print(f"speedup: {speedup:.1f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
