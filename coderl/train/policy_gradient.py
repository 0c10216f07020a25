"""The policy-gradient loop: REINFORCE, RLOO, GRPO and critic-free PPO with LoRA, in one readable function.

One step, as DESIGN.md draws it:

    rollouts   = generate(policy, tasks, samples_per_prompt)          # + sampling log-probs
    results    = sandbox.submit(...) while the next chunk generates    # per-test outcomes
    rewards    = score(reward_config, results, samples, tasks)         # total + components
    advantages = ADVANTAGES[cfg.advantage](rewards, group_ids, mask, state=state)   # [N, T]
    loss       = POLICY_LOSSES[cfg.loss](logprobs, old_logprobs, advantages, mask) (+ KL, - entropy)

Critic-free PPO (seed 001, `--algo ppo_critic_free`) is this loop with batch-normalised advantages, a
sequence-level ratio and 4 epochs; PPO with a value head is `train/ppo.py`, which reuses the helpers
below (rollouts, scoring, reference pass, end of step).

The reference policy for KL is the *starting* policy: the base with the adapter disabled, or, when
--model is an SFT adapter, that adapter loaded a second time and frozen (`train/policy.py`).
Rollouts and every log-prob pass run with dropout off (`model.eval()`; autograd still works), so the
sampling log-probs are the old log-probs of the importance ratio: the first minibatch has ratio 1.
"""

from __future__ import annotations

import inspect
import math
import os
import random
import time
from dataclasses import dataclass

import torch
import yaml

from coderl.algorithms import ADVANTAGES, POLICY_LOSSES, aggregate, kl_estimator, kl_loss
from coderl.rewards import score
from coderl.rollout.hf import generate
from coderl.rollout.types import RolloutBatch
from coderl.sandbox.client import Sandbox, usable_cpus
from coderl.sandbox.types import Limits
from coderl.tasks import load_tasks
from coderl.train.checkpoint import latest_checkpoint, load_trainer_state, save_checkpoint, set_rng_state
from coderl.train.config import TrainConfig
from coderl.train.logprobs import build_sequences, token_logprobs
from coderl.train.policy import build_policy, reward_config, save_policy_adapter
from coderl.train.tracking import Tracker


def accepted_options(fn, options: dict) -> dict:
    """The subset of `options` that `fn` takes as keyword arguments (one call site for every name)."""
    params = inspect.signature(fn).parameters
    return {k: v for k, v in options.items() if k in params}


def _schedule(cfg: TrainConfig):
    def factor(step: int) -> float:
        if cfg.warmup_steps and step < cfg.warmup_steps:
            return (step + 1) / cfg.warmup_steps
        if cfg.lr_schedule == "constant":
            return 1.0
        progress = (step - cfg.warmup_steps) / max(1, cfg.steps - cfg.warmup_steps)
        if cfg.lr_schedule == "linear":
            return max(0.0, 1.0 - progress)
        return 0.5 * (1.0 + math.cos(math.pi * min(1.0, progress)))

    return factor


def _data_order(num_tasks: int, seed: int, epoch: int) -> list[int]:
    order = list(range(num_tasks))
    random.Random(f"{seed}:{epoch}").shuffle(order)
    return order


def prompts_for_step(num_tasks: int, cfg: TrainConfig, step: int) -> list[int]:
    """Task indices of a step: a seeded shuffle per pass over the tasks (data position = step)."""
    out = []
    start = step * cfg.prompts_per_step
    for pos in range(start, start + cfg.prompts_per_step):
        epoch, offset = divmod(pos, num_tasks)
        out.append(_data_order(num_tasks, cfg.seed, epoch)[offset])
    return out


def train(cfg: TrainConfig, *, log=print, reward_override=None) -> dict:
    """Run (or resume) training; returns the last step's metrics.

    `reward_override(results, samples, tasks) -> list[float]` replaces the sandbox reward (tests use it to
    inject a deterministic reward that varies within each group).
    """
    if cfg.value_head:
        from coderl.config import ConfigError

        raise ConfigError(f"--algo {cfg.algo} with --value-head runs in the PPO loop "
                          "(coderl.train.run_training), not the policy-gradient loop")
    ckpt, tasks = prepare_run(cfg, log)
    policy = build_policy(cfg, resume_from=ckpt)
    if policy.note:
        log(policy.note)
    trainable = [p for p in policy.model.parameters() if p.requires_grad]
    log_trainable([policy.model], log)
    optimizer, scheduler = build_optimizer(cfg, trainable)
    adv_state, start_step = restore_trainer_state(cfg, ckpt, optimizer, scheduler, log)
    tracker = Tracker(cfg.out, cfg.log_with, cfg.to_dict(), resume=bool(ckpt))
    rewards_cfg = reward_config(cfg)
    limits = Limits(cpu_seconds=cfg.timeout)
    metrics: dict = {}
    with Sandbox(workers=cfg.workers or usable_cpus(), limits=limits, isolation=cfg.isolation) as sandbox:
        progress = Progress(cfg, start_step) if cfg.progress else None
        for step in range(start_step, cfg.steps):
            t0 = time.perf_counter()
            step_tasks = [tasks[i] for i in prompts_for_step(len(tasks), cfg, step)]
            rolled = rollout_and_score(cfg, policy, step_tasks, sandbox, limits, step, rewards_cfg,
                                       reward_override, log)
            t1 = time.perf_counter()
            stats = _optimise(cfg, policy, optimizer, rolled.batch, rolled.rewards, adv_state, rolled.metrics, step)
            adv_state = stats.pop("_advantage_state")
            scheduler.step()
            metrics = {**rolled.metrics, **stats, "train/lr": scheduler.get_last_lr()[0],
                       **step_timings(t0, t1, rolled.gen_seconds)}
            finish_step(cfg, policy, step + 1, metrics, log=log, tracker=tracker, progress=progress,
                        optimizer=optimizer, scheduler=scheduler, advantage_state=adv_state)
        if progress:
            progress.close()
    tracker.close()
    return metrics


# ---------------------------------------------------------------------------------------------------
# Pieces every RL loop shares (train/ppo.py imports them): run set-up, rollouts scored by the sandbox,
# the reference pass, step timings, and the end of a step (eval, metrics, checkpoint).


def refuse_existing_run(out: str) -> None:
    """A fresh run never writes into another run's directory (its checkpoints would be mixed with ours)."""
    from coderl.config import ConfigError

    held = [name for name in ("checkpoints", "metrics.jsonl")
            if os.path.exists(os.path.join(out, name)) and (name != "metrics.jsonl"
                                                            or os.path.getsize(os.path.join(out, name)) > 0)]
    if held:
        raise ConfigError(f"--out {out}: already holds a run ({', '.join(held)}); pass --resume to continue it, "
                          "or choose another --out")


def prepare_run(cfg: TrainConfig, log) -> tuple[str | None, list]:
    """Create the run directory and config.yaml; (checkpoint to resume from or None, training tasks).

    Seeds torch, so the model built next gets the run's LoRA initialisation.
    """
    from coderl.models import resolve_device

    resolve_device(cfg.device)  # a missing GPU is refused before anything is written
    if not cfg.resume:
        refuse_existing_run(cfg.out)
    os.makedirs(cfg.out, exist_ok=True)
    ckpt = latest_checkpoint(cfg.out) if cfg.resume else None
    if cfg.resume and ckpt is None:
        log(f"--resume: no checkpoint in {cfg.out}/checkpoints; starting from step 0")
    with open(os.path.join(cfg.out, "config.yaml"), "w", encoding="utf-8") as f:
        yaml.safe_dump(cfg.to_dict(), f, sort_keys=False)
    tasks = load_tasks(cfg.tasks).tasks
    if cfg.max_tests_per_problem:
        tasks = [t.with_tests(t.tests[: cfg.max_tests_per_problem]) for t in tasks]
    torch.manual_seed(cfg.seed)
    return ckpt, tasks


def log_trainable(modules: list, log) -> None:
    total = sum(p.numel() for m in modules for p in m.parameters())
    n_train = sum(p.numel() for m in modules for p in m.parameters() if p.requires_grad)
    log(f"trainable parameters: {n_train:,} / {total:,} ({100 * n_train / total:.2f}%)")


def build_optimizer(cfg: TrainConfig, params: list):
    optimizer = torch.optim.AdamW(params, lr=cfg.learning_rate, weight_decay=cfg.weight_decay)
    return optimizer, torch.optim.lr_scheduler.LambdaLR(optimizer, _schedule(cfg))


def restore_trainer_state(cfg: TrainConfig, ckpt: str | None, optimizer, scheduler, log) -> tuple[dict, int]:
    """Load optimizer, scheduler, RNG and estimator state from `ckpt`: (advantage state, start step)."""
    if not ckpt:
        return {}, 0
    state = load_trainer_state(ckpt)
    optimizer.load_state_dict(state["optimizer"])
    scheduler.load_state_dict(state["scheduler"])
    set_rng_state(state["rng"])
    log(f"resumed from {ckpt} at step {state['step']}")
    _truncate_metrics(cfg.out, state["step"])
    return state["advantage_state"], state["step"]


@dataclass
class ScoredRollouts:
    batch: RolloutBatch
    rewards: torch.Tensor  # [N] float32, one scalar reward per completion
    metrics: dict  # reward/*, sandbox/*, rollout/* of the step
    gen_seconds: float  # time spent in generate (the rest of the rollout time waits on the sandbox)


def rollout_and_score(cfg, policy, step_tasks, sandbox, limits, step, rewards_cfg, reward_override,
                      log) -> ScoredRollouts:
    """Generate (overlapped with the sandbox), name skipped prompts, score every completion."""
    batch, results, gen_seconds = _rollout(cfg, policy.model, policy.tokenizer, step_tasks, sandbox, limits, step)
    skipped = sorted({t.task_id for t in step_tasks} - {s.task_id for s in batch.samples})
    if skipped:
        log(f"step {step + 1}: skipped prompts longer than "
            f"{cfg.max_total_sequence_length - cfg.max_new_tokens} tokens: {', '.join(skipped)}")
    group_tasks = [step_tasks[s.group] for s in batch.samples]
    rb = score(rewards_cfg, results, batch.samples, group_tasks)
    totals = reward_override(results, batch.samples, group_tasks) if reward_override is not None else rb.total
    rewards = torch.tensor(totals, dtype=torch.float32)  # [N]
    metrics = {**rb.metrics(), "reward/total": float(rewards.mean()),
               "rollout/gen_tokens": float(batch.mask.sum(1).mean()), "rollout/skipped_prompts": float(len(skipped))}
    return ScoredRollouts(batch, rewards, metrics, gen_seconds)


def reference_logprobs(cfg, policy, batch) -> torch.Tensor | None:
    """Log-probs [N, T] of the rollouts under the reference (starting) policy; None when --kl-beta is 0
    (unless --log-kl asks for the KL curve)."""
    if cfg.kl_beta <= 0 and not cfg.log_kl:
        return None
    with torch.no_grad(), policy.reference():
        return token_logprobs(policy.model, build_sequences(batch), cfg.temperature, shared_prompt=cfg.shared_prompt)


def step_timings(t0: float, t1: float, gen_seconds: float) -> dict:
    """t0: step start, t1: rollouts scored; everything after t1 until now is optimisation."""
    now = time.perf_counter()
    return {"time/generation": round(gen_seconds, 3), "time/sandbox_wait": round(t1 - t0 - gen_seconds, 3),
            "time/optimisation": round(now - t1, 3), "time/step": round(now - t0, 3)}


def finish_step(cfg, policy, done: int, metrics: dict, *, log, tracker, progress, optimizer, scheduler,
                advantage_state: dict, extra: dict | None = None) -> None:
    """Evaluate if due (adds eval/* to `metrics`), log the metrics, checkpoint if due.

    `extra`: more files for the checkpoint, name -> object for torch.save (the value head).
    """
    if cfg.eval_steps and cfg.eval_tasks and (done % cfg.eval_steps == 0 or done == cfg.steps):
        metrics.update(evaluate(cfg, policy, done, log))
    tracker.log(done, metrics)
    if done % cfg.save_steps == 0 or done == cfg.steps:
        save_checkpoint(cfg.out, done, save_adapter=lambda path: save_policy_adapter(policy, path),
                        trainer_state={"optimizer": optimizer.state_dict(), "scheduler": scheduler.state_dict(),
                                       "advantage_state": advantage_state, "step": done,
                                       "data_position": done * cfg.prompts_per_step},
                        extra=extra)
    if progress:
        progress.update(done, metrics)


def _rollout(cfg, model, tokenizer, step_tasks, sandbox, limits, step):
    """Generate and submit to the sandbox chunk by chunk, so execution overlaps generation."""
    from coderl.train.policy import concat_batches, drop_long_prompts

    chunk_prompts = max(1, cfg.generation_batch_size // cfg.samples_per_prompt)
    batches, futures = [], []
    gen_seconds = 0.0
    for c in range(0, len(step_tasks), chunk_prompts):
        chunk = step_tasks[c: c + chunk_prompts]
        t = time.perf_counter()
        b = generate(model, tokenizer, chunk, format=cfg.format, samples_per_prompt=cfg.samples_per_prompt,
                     max_new_tokens=cfg.max_new_tokens, temperature=cfg.temperature,
                     seed=cfg.seed * 1_000_003 + step * 1009 + c, batch_size=cfg.generation_batch_size,
                     min_new_tokens=cfg.min_new_tokens, share_prompts=cfg.shared_prompt,
                     stop=[] if (cfg.min_new_tokens or 0) >= cfg.max_new_tokens else None)
        gen_seconds += time.perf_counter() - t
        b = drop_long_prompts(b, cfg.max_total_sequence_length - cfg.max_new_tokens, offset=c)
        futures += [sandbox.submit(chunk[s.group - c].build_request(s.completion, limits)) for s in b.samples]
        batches.append(b)
    if not any(len(b) for b in batches):
        from coderl.config import ConfigError

        raise ConfigError(f"step {step + 1}: every prompt is longer than --max-total-sequence-length "
                          f"{cfg.max_total_sequence_length} minus --max-new-tokens {cfg.max_new_tokens}")
    batch = concat_batches([b for b in batches if len(b)])
    return batch, [f.result() for f in futures], gen_seconds


def _optimise(cfg, policy, optimizer, batch, rewards, adv_state, metrics, step) -> dict:
    """Advantages, then `epochs` passes over minibatches; returns averaged loss statistics."""
    model = policy.model
    mask = batch.mask  # [N, T]
    ref_logprobs = reference_logprobs(cfg, policy, batch)  # [N, T] or None
    token_rewards = rewards
    if ref_logprobs is not None and cfg.kl_in == "reward" and cfg.kl_beta > 0:
        kl = kl_estimator(batch.logprobs, ref_logprobs, cfg.kl_estimator) * mask  # [N, T]
        token_rewards = rewards - cfg.kl_beta * kl.sum(1)  # KL as a (sequence-summed) reward penalty
        metrics["kl/reward_penalty"] = float((cfg.kl_beta * kl.sum(1)).mean())
    estimator = ADVANTAGES[cfg.advantage]
    advantages, new_state = estimator(token_rewards, batch.group_ids, mask, state=adv_state,
                                      **accepted_options(estimator, cfg.advantage_options()))
    n = len(batch)
    size = cfg.minibatch_size or n
    policy_loss = POLICY_LOSSES[cfg.loss]
    loss_options = accepted_options(policy_loss, cfg.loss_options())
    agg = {"max_tokens": cfg.max_new_tokens}  # used by token_sum_const only
    sums: dict[str, float] = {}
    count = 0
    model.eval()  # dropout off: the function that sampled is the function we differentiate
    generator = torch.Generator().manual_seed(cfg.seed * 1_000_003 + step)
    for epoch in range(cfg.epochs):
        order = torch.randperm(n, generator=generator) if (cfg.epochs > 1 and size < n) else torch.arange(n)
        for start in range(0, n, size):
            rows = order[start: start + size]
            seqs = build_sequences(batch, rows)
            want_entropy = cfg.entropy_coef > 0
            out = token_logprobs(model, seqs, cfg.temperature, with_entropy=want_entropy,
                                 shared_prompt=cfg.shared_prompt)
            logprobs, entropy = out if want_entropy else (out, None)
            mb_mask = mask[rows]
            loss, stats = policy_loss(logprobs, batch.logprobs[rows], advantages[rows], mb_mask,
                                      aggregation=cfg.aggregation, **agg, **loss_options)
            stats = {k if k.startswith("loss/") else f"loss/{k}": v for k, v in stats.items()}
            if ref_logprobs is not None:
                kl_tok = kl_estimator(logprobs.detach(), ref_logprobs[rows], cfg.kl_estimator)
                stats["kl/mean"] = float((kl_tok * mb_mask).sum() / mb_mask.sum().clamp(min=1))
                if cfg.kl_in == "loss" and cfg.kl_beta > 0:
                    kl_term = kl_loss(logprobs, ref_logprobs[rows], mb_mask, cfg.kl_estimator, cfg.aggregation, **agg)
                    loss = loss + cfg.kl_beta * kl_term
            if entropy is not None:
                ent = aggregate(entropy, mb_mask, cfg.aggregation, **agg)
                loss = loss - cfg.entropy_coef * ent
                stats["loss/entropy"] = float(ent)
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            if cfg.max_grad_norm:
                norm = torch.nn.utils.clip_grad_norm_([p for p in model.parameters() if p.requires_grad],
                                                      cfg.max_grad_norm)
                stats["train/grad_norm"] = float(norm)
            optimizer.step()
            stats["loss/total"] = float(loss.detach())
            for k, v in stats.items():
                sums[k] = sums.get(k, 0.0) + float(v)
            count += 1
            if epoch == 0 and start == 0:
                # On-policy check: the sampling log-probs must be this function's (ratio 1).
                drift = ((logprobs.detach() - batch.logprobs[rows]).abs() * mb_mask).max()
                sums["first_minibatch/max_abs_log_ratio"] = float(drift)
                if "loss/clip_fraction" in stats:
                    sums["first_minibatch/clip_fraction"] = float(stats["loss/clip_fraction"])
    out = {k: (v / count if not k.startswith("first_minibatch/") else v) for k, v in sums.items()}
    out["advantage/mean_abs"] = float(advantages.abs().sum() / mask.sum().clamp(min=1))
    out["_advantage_state"] = new_state
    return out


def evaluate(cfg, policy, step, log) -> dict:
    from coderl.eval.run import EvalConfig, run_eval

    ecfg = EvalConfig(out=os.path.join(cfg.out, "eval", f"step-{step}"), model=cfg.model, tasks=cfg.eval_tasks,
                      limit=cfg.eval_problems, samples=cfg.repeat_eval,
                      temperature=0.0 if cfg.repeat_eval == 1 else cfg.temperature, format=cfg.format,
                      max_new_tokens=cfg.max_new_tokens, seed=cfg.seed, label=f"step-{step}", method=cfg.algo,
                      timeout=cfg.timeout, workers=cfg.workers, isolation=cfg.isolation,
                      batch_size=cfg.generation_batch_size)
    summary = run_eval(ecfg, loaded=policy, log=lambda m: None)
    out = {f"eval/{k}": v for k, v in summary["pass_at_k"].items()}
    out["eval/avg_gen_tokens"] = summary["avg_gen_tokens"]
    log(f"step {step}: eval " + ", ".join(f"{k}={v:.3f}" for k, v in out.items()))
    return out


def _truncate_metrics(run_dir: str, step: int) -> None:
    """Drop rows logged after the checkpoint we resume from (they will be produced again)."""
    import json

    path = os.path.join(run_dir, "metrics.jsonl")
    if not os.path.exists(path):
        return
    with open(path, encoding="utf-8") as f:
        rows = [line for line in f if line.strip() and json.loads(line)["step"] <= step]
    with open(path, "w", encoding="utf-8") as f:
        f.writelines(rows)


class Progress:
    def __init__(self, cfg, start):
        from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn

        self.bar = Progress(TextColumn("step {task.completed}/{task.total}"), BarColumn(),
                            TextColumn("{task.fields[info]}"), TimeRemainingColumn(), transient=False)
        self.task = self.bar.add_task("train", total=cfg.steps, completed=start, info="")
        self.bar.start()

    def update(self, step, m):
        info = (f"reward {m.get('reward/total', 0):.3f}  pass {m.get('sandbox/pass_rate', 0):.2f}  "
                f"len {m.get('rollout/gen_tokens', 0):.0f}  {m.get('time/step', 0):.1f}s/step")
        self.bar.update(self.task, completed=step, info=info)

    def close(self):
        self.bar.stop()
