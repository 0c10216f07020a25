"""`coderl sft`: supervised fine-tuning with LoRA (or QLoRA, or every weight: `--finetune full`) on reference
solutions, prompt masked.

The loop, top to bottom (seed 001's SFT stage: causal-LM loss on prompt + canonical solution with the
prompt tokens masked; LoRA r=8, alpha=16, dropout=0.05; lr 5e-5; 1 epoch; batch 1 x accumulation 8):

    tasks     = load_sft_tasks(cfg.data)                  # task spec or {"prompt", "completion"} JSONL
    examples  = build_examples(tasks, format, tokenizer)  # prompt ids + solution ids + end; prompt labels -100
    for each optimizer step:                              # `gradient_accumulation` micro-batches of `batch_size`
        for each micro-batch:                             # right-padded, labels -100 on padding
            loss_sum = cross_entropy(logits[:, :-1], labels[:, 1:], reduction="sum")
            (loss_sum / tokens_in_window).backward()
        clip to max_grad_norm; AdamW step (skipped if not finite); lr schedule step; log; maybe checkpoint

Loss and accumulation.  A micro-batch's loss is the mean over its non-masked tokens; micro-batches of
one optimizer step are weighted by their share of the step's target tokens, i.e. each backward gets
`micro_mean * micro_tokens / window_tokens` = `micro_sum / window_tokens`.  The step's gradient is
then exactly the gradient of the token mean over all examples of the window -- the same as one batch
of `batch_size * gradient_accumulation` -- and does not up-weight the tokens of short examples (what
averaging per-micro-batch means would do; cf. the 2024 gradient-accumulation fix in HF Trainer).
`sft/loss` is that window token mean (before the update), `sft/tokens` its token count.
Logits are computed from the first position that predicts a target on (`first_predicting`, `logits_to_keep`):
a prompt position's logits are a vocabulary-wide row the loss never reads.

Data order: a seeded shuffle per epoch; `epochs` may be fractional (`round(epochs * examples)`
examples are seen; the last optimizer step may have fewer micro-batches, the weighting above keeps it
a token mean).  LoRA dropout is on (ordinary SFT; the RL loop turns it off for its ratios).

Outputs in `--out` (the RL loop's conventions):

    config.yaml, metrics.jsonl             (sft/loss, sft/tokens, sft/examples, sft/epoch, train/lr, train/grad_norm,
                                            train/nonfinite_steps, time/step per optimizer step)
    sft_data.json                          data description, examples kept, skipped ids, the end token
    checkpoints/step-N/                    adapter (portable: `--model RUN/checkpoints/step-N` loads it)
                                           + trainer_state.pt (optimizer, scheduler, step, RNG): `--resume`
                                           continues from the newest exactly (metrics.jsonl cut back to it)
    adapter/                               the final adapter: a copy of the last checkpoint's adapter files

Full fine-tuning (`--finetune full`): every weight trains, with AdamW state for each; a checkpoint is the whole
model as a Hugging Face folder (config, safetensors, tokenizer) beside trainer_state.pt, and the final copy is
`RUN/model`, loadable with `--model` as any model folder.

`RUN/adapter` is a copy, not a symlink: a LoRA adapter is small (about 2 MB for a 135M model at r=8),
a copy survives `scp -r RUN/adapter` to another machine, filesystems without symlinks, and pruning of
old checkpoints.  Use it as `coderl eval --model RUN/adapter` or `coderl train --model RUN/adapter`.

QLoRA (`--qlora`): the base is loaded in 4-bit NF4 through bitsandbytes with bfloat16 compute and
prepared with peft's `prepare_model_for_kbit_training`, then the same LoRA adapter goes on top.  It
needs a CUDA GPU; on a machine without one `coderl sft --qlora` stops with one line.  That code path
is not exercised by the CPU test suite (no GPU, no bitsandbytes kernels here).
"""

from __future__ import annotations

import json
import math
import os
import time
from dataclasses import dataclass
from typing import Any

from coderl.base.config import ConfigError
from coderl.base.outputs import write_yaml
from coderl.models.quantized import QLORA_NO_CUDA, require_cuda_for_qlora  # noqa: F401
from coderl.models.spec import resolve_spec
from coderl.train.distributed import Ranks
from coderl.train.order import seeded_order
from coderl.train.policy import build_policy, save_policy
from coderl.train.run_dir import check_run_dir, fresh_run
from coderl.train.sft.config import SFTConfig
from coderl.train.sft.data import load_sft_tasks
from coderl.train.tracking import Progress


@dataclass
class SFTResult:
    """What `sft` returns: the trained model in memory and where everything was written."""

    steps: int
    metrics: dict  # the last optimizer step's
    checkpoint: str  # RUN/checkpoints/step-<steps>
    adapter: str  # RUN/adapter (full fine-tuning: RUN/model, the whole model)
    examples: int  # examples kept
    examples_seen: int  # examples trained on (epochs x examples, rounded)
    skipped_too_long: list[str]
    model: Any  # the peft model, or the model itself with --finetune full (train mode off on return)
    tokenizer: Any


def plan_steps(num_examples: int, cfg: SFTConfig) -> list[list[list[int]]]:
    """Example indices per optimizer step, per micro-batch: a seeded shuffle per epoch, concatenated and
    cut at `round(epochs * num_examples)` examples (at least one)."""
    total = max(1, round(cfg.epochs * num_examples))
    order = seeded_order(num_examples, cfg.seed, 0, total)
    micro = [order[i: i + cfg.batch_size] for i in range(0, total, cfg.batch_size)]
    return [micro[i: i + cfg.gradient_accumulation] for i in range(0, len(micro), cfg.gradient_accumulation)]


def first_predicting(labels) -> int:
    """The first position whose next token is a target in any row (labels [B, T], -100 where not trained):
    positions before it predict only prompt tokens, so their logits (a vocabulary-wide row each) are not
    computed.  `token_loss_sum(logits of positions start.., labels[:, start:])` is the whole sequence's loss."""
    from coderl.train.sft.data import IGNORE_INDEX

    targets = (labels[:, 1:] != IGNORE_INDEX).any(dim=0).nonzero()
    return int(targets[0]) if len(targets) else 0


def token_loss_sum(logits, labels):
    """(sum of next-token cross-entropies over non-masked labels, their count); position t predicts labels[t+1]."""
    import torch.nn.functional as F

    from coderl.train.sft.data import IGNORE_INDEX

    shifted = labels[:, 1:]
    loss = F.cross_entropy(logits[:, :-1].float().reshape(-1, logits.shape[-1]), shifted.reshape(-1),
                           ignore_index=IGNORE_INDEX, reduction="sum")
    return loss, int((shifted != IGNORE_INDEX).sum())


def sft(cfg: SFTConfig, *, log=print) -> SFTResult:
    """Run SFT as configured; returns the trained model and the paths written."""
    from coderl.models import resolve_device

    if cfg.lora.qlora:
        require_cuda_for_qlora()
    resolve_device(cfg.device)  # a missing GPU is refused before anything is written
    resolve_spec(cfg.model)  # so is a --model that names nothing loadable
    from coderl.train.tracking import require_packages

    require_packages(cfg.log_with)  # and a --log-with whose package is missing
    ranks = Ranks.start(cfg.device)  # several processes under `accelerate launch` (train/distributed.py)
    log = log if ranks.is_main else (lambda message: None)
    tasks, data_description = load_sft_tasks(cfg.data, cfg.split, cfg.seed)  # bad data fails before the model loads
    from coderl.train.checkpoint import resume_checkpoint

    ckpt = ranks.broadcast(resume_checkpoint(cfg.out, log) if cfg.resume else None)  # rank 0's: one step for all
    check_run_dir(cfg.out, cfg.to_dict(), ckpt, resume=cfg.resume, overwrite=cfg.overwrite)
    ranks.wait()  # every rank has checked before rank 0 writes
    with fresh_run(cfg.out, overwrite=cfg.overwrite, main=ranks.is_main):
        return _sft(cfg, ranks, tasks, data_description, ckpt, log)


def _sft(cfg: SFTConfig, ranks, tasks, data_description: str, ckpt: str | None, log) -> SFTResult:
    import torch

    from coderl.rollout.special_ids import eos_token_ids  # the ids generation stops on, whatever engine samples
    from coderl.train.checkpoint import checkpoint_dir, final_copy, restore, save_checkpoint, truncate_metrics
    from coderl.train.sft.conversations import Conversation
    from coderl.train.sft.data import build_conversation_examples, build_examples, collate, end_token
    from coderl.train.tracking import SilentTracker, Tracker, read_metrics
    from coderl.train.updater import Updater, build_optimizer, log_trainable, trainable_parameters

    if ranks.is_main and not ckpt:  # a resumed run's config.yaml stays the record of its steps
        write_yaml(os.path.join(cfg.out, "config.yaml"), cfg.to_dict())
    ranks.refuse_qlora(cfg.lora.qlora)
    policy = build_policy(cfg, ckpt, reference=False)  # LoRA (a fresh adapter, or the one --model names) or full
    model = ranks.fully_shard(policy.model)  # FSDP: sharded before the optimiser takes its parameters
    if ranks.sharded:
        log(ranks.shard_note([model]))
    tokenizer = policy.tokenizer
    if cfg.format != "completion" and not getattr(tokenizer, "chat_template", None):
        raise ConfigError(f"--format {cfg.format}: the tokenizer of '{cfg.model}' has no chat template; "
                          "use --format completion")
    end_id, end_why = end_token(tokenizer, cfg.format, eos_token_ids(model, tokenizer))
    if tasks and isinstance(tasks[0], Conversation):  # trajectories: the template renders them, whatever --format
        data = build_conversation_examples(tasks, tokenizer, end_id, cfg.max_length)
    else:
        data = build_examples(tasks, cfg.format, tokenizer, end_id, cfg.max_length)
    if data.no_reference:
        log(f"skipped {len(data.no_reference)} tasks without a reference solution")
    if data.too_long:
        log(f"skipped {len(data.too_long)} examples longer than --max-length {cfg.max_length}: "
            + ", ".join(data.too_long[:10]) + (" ..." if len(data.too_long) > 10 else ""))
    if data.unextractable:
        log(f"warning: {len(data.unextractable)} {cfg.format} targets do not survive the format's extraction "
            "(a prompt with no function body?); trained on anyway: " + ", ".join(data.unextractable[:10])
            + (" ..." if len(data.unextractable) > 10 else ""))
    examples = data.examples
    if not examples:
        raise ConfigError(f"--data {cfg.data}: no usable example ({len(tasks)} tasks; "
                          f"{len(data.too_long)} longer than --max-length {cfg.max_length}, "
                          f"{len(data.no_reference)} without a reference solution)")
    plan = plan_steps(len(examples), cfg)
    with open(os.path.join(cfg.out, "sft_data.json") if ranks.is_main else os.devnull, "w", encoding="utf-8") as f:
        json.dump({"data": data_description, "format": cfg.format, "examples": len(examples),
                   "optimizer_steps": len(plan), "end_token": {"id": end_id, "why": end_why},
                   "skipped_too_long": data.too_long, "skipped_no_reference": data.no_reference,
                   "unextractable": data.unextractable}, f, indent=2)

    log_trainable([model], log)
    log(f"{len(examples)} examples, {len(plan)} optimizer steps; each solution ends with {end_why}")
    warmup = math.ceil(cfg.warmup_ratio * len(plan))
    optimizer, scheduler = build_optimizer(trainable_parameters([model]), learning_rate=cfg.learning_rate,
                                           weight_decay=cfg.weight_decay, schedule=cfg.lr_schedule,
                                           warmup_steps=warmup, total_steps=len(plan))
    updater = Updater([model], optimizer, scheduler, ranks=ranks, max_grad_norm=cfg.max_grad_norm)
    if ranks.on:  # the ranks' LoRA dropout masks differ, as one process's differ between micro-batches
        torch.manual_seed(cfg.seed * 1_000_003 + ranks.rank)
    state = restore(ckpt, updater, log) if ckpt else {"step": 0, "examples_seen": 0}  # optimiser, schedule, RNG
    if ckpt and ranks.is_main:
        truncate_metrics(cfg.out, state["step"])
    tracker = Tracker(cfg.out, cfg.log_with, cfg.to_dict(), resume=bool(ckpt)) if ranks.is_main else SilentTracker()
    (trained,) = updater.trained
    pad_id = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else end_id
    device = next(model.parameters()).device

    progress = Progress("sft step", len(plan), state["step"], _describe, bar=cfg.progress, log=log) \
        if ranks.is_main else None  # a line every 30 s; with it, on a terminal, a bar

    def keep_checkpoint(done: int, seen: int) -> str:
        """Checkpoint step `done` (written by the main process alone; under FSDP every rank gathers); its directory."""
        weights = ranks.full_state(model, trainable=not cfg.lora.full)  # None unless sharded
        state = updater.state_dict()
        if ranks.is_main:
            save_checkpoint(cfg.out, done, save_adapter=lambda path: save_policy(policy, path, weights),
                            trainer_state={"optimizer": state["optimizer"], "scheduler": state["scheduler"],
                                           "step": done, "examples_seen": seen})
        return checkpoint_dir(cfg.out, done)

    metrics: dict = read_metrics(cfg.out)[-1] if ckpt and ranks.is_main else {}  # the last step's, until one runs
    seen = state["examples_seen"]
    checkpoint = ckpt or ""
    model.train()  # LoRA dropout (and the model's own, if any) on
    try:
        for step, micro_batches in enumerate(plan[state["step"]:], start=state["step"]):
            t0 = time.perf_counter()
            batches = [collate([examples[i] for i in mb], pad_id) for mb in micro_batches]
            window_tokens = sum(int((labels[:, 1:] != -100).sum()) for _, _, labels in batches)

            def batch_loss(batch):
                input_ids, attention, labels = batch
                start = first_predicting(labels)  # logits only where a target follows: the prompt's are unused
                logits = trained(input_ids=input_ids.to(device), attention_mask=attention.to(device),
                                 use_cache=False, logits_to_keep=labels.shape[1] - start).logits
                loss_sum, _ = token_loss_sum(logits, labels[:, start:].to(device))
                return loss_sum / window_tokens, {}  # its share of the token mean over the window

            lr = scheduler.get_last_lr()[0]  # the rate this step uses
            update = updater.update_batches(batches, batch_loss)
            updater.end_step()
            seen += sum(len(mb) for mb in micro_batches)
            done = step + 1
            metrics = {"sft/loss": update["loss/total"], "sft/tokens": window_tokens,
                       "sft/examples": sum(len(mb) for mb in micro_batches),
                       "sft/epoch": round(seen / len(examples), 4), "train/lr": lr,
                       "train/grad_norm": update["train/grad_norm"],
                       **updater.count_nonfinite(done, update), "time/step": round(time.perf_counter() - t0, 3)}
            tracker.log(done, metrics)
            updater.nonfinite.stop_if_due(done)
            if (cfg.save_steps and done % cfg.save_steps == 0) or done == len(plan):
                checkpoint = keep_checkpoint(done, seen)
            if progress:
                progress.update(done, metrics)
    finally:
        if progress:
            progress.close()
        tracker.close()
        model.eval()
    final = "model" if cfg.lora.full else "adapter"
    adapter = final_copy(cfg.out, checkpoint, final) if ranks.is_main else os.path.join(cfg.out, final)
    ranks.wait()  # the adapter is written before any rank returns it
    return SFTResult(steps=len(plan), metrics=metrics, checkpoint=checkpoint, adapter=adapter,
                     examples=len(examples), examples_seen=seen, skipped_too_long=data.too_long,
                     model=model, tokenizer=tokenizer)


def _describe(m: dict) -> str:
    return f"loss {m['sft/loss']:.4f}  epoch {m['sft/epoch']:.2f}  {m['time/step']:.1f}s/step"
