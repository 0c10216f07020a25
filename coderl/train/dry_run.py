"""`coderl train --dry-run`: validate a config (every field, its YAML file's keys) and print what one step
does, on one process and shared across ranks (`train/distributed.py`), without loading a model, tasks
or the sandbox -- so a GPU or cluster config can be checked on a laptop.  Its task specs are parsed (a mistyped
preset or option is the run's one-line error), not read: a dataset that is not on this machine is said, not
refused (a config written for a cluster names the cluster's paths)."""

from __future__ import annotations

import math
import os

import yaml

from coderl.train.distributed import Ranks
from coderl.train.memory import (
    AUTO_FRACTION,
    SAFETY,
    check_weights,
    chunk_bytes,
    gigabytes,
    machine_bytes,
    parse_size,
)
from coderl.train.sources.rounds import generation_chunk


def memory_line(cfg) -> str:
    """What --memory-budget chooses (`train/memory.py`), as far as it is known before a model loads."""
    o = cfg.optim
    checkpointing = "; decoder layers checkpointed (--gradient-checkpointing)" if o.gradient_checkpointing else ""
    if o.micro_batch_size is not None:
        return f"micro-batches of {o.micro_batch_size} rows (--micro-batch-size, over any memory budget){checkpointing}"
    if o.memory_budget.strip().lower() == "none":
        return f"no memory budget: whole minibatches in one forward/backward{checkpointing}"
    budget = parse_size(o.memory_budget)
    check_weights(cfg, budget, "cpu" if cfg.device == "cpu" else "cuda")  # the CPU's runtime floor where it is known
    where = (gigabytes(budget) if budget is not None else
             f"auto: {AUTO_FRACTION:g} of the GPU's memory, or on the CPU of this machine's or its cgroup limit "
             f"({gigabytes(AUTO_FRACTION * machine_bytes())} here, shared by the processes on it)")
    return (f"memory budget {where}: each kind of training pass first runs one row alone, and its micro-batch is "
            f"(budget - memory in use, or what the machine has left if less) / ({SAFETY:g} x that row's measured "
            f"peak) rows; log-prob logits in chunks of <= {gigabytes(chunk_bytes(budget))}{checkpointing}")


def task_lines(cfg) -> list[str]:
    """Each task spec of the config parsed (`TaskFormatError` on a bad one), and a line for each whose file or
    folder is not here."""
    from coderl.tasks.spec import parse_task_spec

    lines = []
    for field, spec in (("tasks", cfg.tasks), ("eval_tasks", cfg.eval.eval_tasks)):
        if not spec:
            continue
        bare = spec.partition("@")[0].strip()
        if ":" not in bare and ("/" in bare or "." in bare) and not os.path.exists(bare):  # a PATH, not a name
            lines.append(f"{field}: {bare} is no file or folder here; a dry run reads no tasks (the run reads it "
                         "where it runs)")
            continue
        parsed = parse_task_spec(spec)
        if isinstance(parsed.path, str) and not os.path.exists(parsed.path):
            cached = " or in the Hugging Face cache" if parsed.source == "hf" else ""
            lines.append(f"{field}: {parsed.path} is no file or folder here; a dry run reads no tasks (the run reads "
                         f"it where it runs{cached})")
    return lines


def dry_run_report(cfg, world: int = 1) -> str:
    """The config's step shape, per process count (1, 2, 8 and `world`), then the config as YAML."""
    o = cfg.optim
    rows = cfg.prompts_per_step * cfg.samples_per_prompt
    minibatch = min(o.minibatch_size or rows, rows)
    updates = o.epochs * math.ceil(rows / minibatch)
    chunk = generation_chunk(cfg)
    lines = [
        f"coderl train --dry-run: {cfg.config or 'the command line'} is valid; nothing loaded (model {cfg.model}, "
        f"tasks {cfg.tasks}, sandbox)",
        f"algo {cfg.algo} (advantage {cfg.advantage}, loss {cfg.loss}, aggregation {cfg.aggregation}); "
        f"KL beta {cfg.kl.kl_beta} ({cfg.kl.kl_estimator}, in the {cfg.kl.kl_in}); lr {o.learning_rate}; "
        + (("full fine-tuning (every weight" + (", a frozen reference copy)" if cfg.kl.reference else ")"))
         if cfg.lora.full else f"LoRA r {cfg.lora.rank}" + (" over a 4-bit base (QLoRA)" if cfg.lora.qlora else "")),
        f"one step: {cfg.prompts_per_step} prompts x {cfg.samples_per_prompt} samples = {rows} rollouts of <= "
        f"{cfg.max_new_tokens} new tokens (sequences <= {cfg.max_total_sequence_length} tokens); {o.epochs} "
        f"epoch(s) of minibatches of {minibatch} rows = {updates} optimizer updates; {cfg.steps} steps",
        "processes  prompts generated per rank  rows per rank per update",
    ]
    for n in sorted({1, 2, 8, world}):
        prompts = max(end - start for start, end in (Ranks(r, n).shard(cfg.prompts_per_step, chunk)
                                                     for r in range(n)))
        lines.append(f"{n:>9}  {prompts:>25}  {math.ceil(minibatch / n):>25}")
    lines.append(memory_line(cfg))
    lines.extend(task_lines(cfg))
    from coderl.train.tracking import missing_packages

    lines.extend(f"{line}; here the run would refuse to start" for line in missing_packages(cfg.log_with, cfg.engine))
    a = cfg.asynchronous
    if a.on:
        lines.append(f"asynchronous rollouts: a generation worker process samples step k+1.. while step k trains, "
                     f"every sample at most {a.async_max_age} step(s) old, truncated IS cap {a.tis_cap}; one "
                     "training process only (refused under accelerate launch; docs/async.md)")
    if os.environ.get("ACCELERATE_USE_FSDP", "false").lower() == "true":
        lines.append(f"FSDP (this launch): the weights are sharded over the {world} processes, each holding 1/{world} "
                     "and gathering a layer at a time; the ranks generate in lockstep (docs/scaling.md)")
    lines.append("several processes: accelerate launch --config_file configs/accelerate/ddp.yaml (every rank holds "
                 "the whole model) or configs/accelerate/fsdp.yaml (the weights sharded: a model too large for one "
                 "GPU) --num_processes N -m coderl train ... (docs/scaling.md)")
    lines.append("--- config ---")
    lines.append(yaml.safe_dump(cfg.to_dict(), sort_keys=False).rstrip())
    return "\n".join(lines)
