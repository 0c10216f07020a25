"""PPO with a value head on the policy (seed 003: LoRA r 16, clip 0.2, value coef 0.5, max grad norm 0.5,
entropy coef 0.01), in one readable loop.  `--algo ppo` selects it (`coderl.train.run_training`).

One step:

    rollouts      = generate(policy, tasks) while the sandbox runs earlier chunks   # policy_gradient's helpers
    rewards       = score(reward_config, results, samples, tasks)                  # [N]
    old_values    = value_head(last hidden state), no grad, dropout off             # [N, T]
    token_rewards = terminal_rewards(rewards) - kl_beta * KL_t(pi_old || ref)       # [N, T], KL per token
    advantages, returns = ADVANTAGES["gae"](token_rewards, values=old_values)       # [N, T], gamma 1, lambda 0.95
    advantages    = whiten(advantages)                                              # per batch (--whiten-advantages)
    for each epoch, minibatch:
        logprobs, values, entropy = one forward pass (token_logprobs_and_values)
        loss = ppo_clip(logprobs, old_logprobs, advantages)
             + value_coef * clipped_value_loss(values, old_values, returns)
             - entropy_coef * entropy
        clip the gradient norm of LoRA and value head together; one AdamW step for both

The completion is the episode and each token an action: the sequence reward arrives on the last
valid token, and with `--kl-in reward` (the preset) every token also pays beta * KL (k1 by default,
whose sum over a completion is the sequence-level KL; see `algorithms/kl.py`), as in Ziegler et al.
2019 / InstructGPT.  GAE (Schulman et al. 2016) with gamma 1 bootstraps nothing past the end.

Old log-probs are the sampling log-probs and old values come from one pass right after the rollouts;
every pass runs with dropout off, so the first minibatch has ratio 1 and value-clip fraction 0
(logged under `first_minibatch/`).  The value head has the policy's optimizer and learning rate and
is checkpointed as `value_head.pt` beside the adapter.

Whitening the advantages (mean 0, std 1 over valid tokens) is standard PPO practice (CleanRL's
`norm_adv` per minibatch; TRL's PPOTrainer `masked_whiten` per batch, which we follow): GAE
advantages scale with the rewards and the critic's error, and whitening keeps the policy's step size
independent of both.  The returns are not whitened: they are the critic's regression targets.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import torch
from torch import Tensor

from coderl.algorithms import (
    ADVANTAGES,
    POLICY_LOSSES,
    aggregate,
    clipped_value_loss,
    explained_variance,
    kl_estimator,
    kl_loss,
    kl_penalty_reward,
    masked_mean,
    terminal_rewards,
)
from coderl.sandbox.client import Sandbox, usable_cpus
from coderl.sandbox.types import Limits
from coderl.train.config import TrainConfig
from coderl.train.logprobs import build_sequences, token_logprobs_and_values
from coderl.train.policy import build_policy, reward_config
from coderl.train.policy_gradient import (
    Progress,
    accepted_options,
    build_optimizer,
    finish_step,
    log_trainable,
    prepare_run,
    prompts_for_step,
    reference_logprobs,
    restore_trainer_state,
    rollout_and_score,
    step_timings,
)
from coderl.train.tracking import Tracker
from coderl.train.value_head import FILENAME as VALUE_HEAD_FILE
from coderl.train.value_head import build_value_head


def train(cfg: TrainConfig, *, log=print, reward_override=None) -> dict:
    """Run (or resume) PPO with a value head; returns the last step's metrics.

    `reward_override(results, samples, tasks) -> list[float]` replaces the sandbox reward (tests).
    """
    ckpt, tasks = prepare_run(cfg, log)
    policy = build_policy(cfg, resume_from=ckpt)
    if policy.note:
        log(policy.note)
    value_head = build_value_head(policy.model, resume_from=ckpt)
    trainable = [p for p in policy.model.parameters() if p.requires_grad] + list(value_head.parameters())
    log_trainable([policy.model, value_head], log)
    optimizer, scheduler = build_optimizer(cfg, trainable)
    _, start_step = restore_trainer_state(cfg, ckpt, optimizer, scheduler, log)
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
            targets = compute_targets(cfg, policy, value_head, rolled.batch, rolled.rewards)
            stats = _optimise(cfg, policy, value_head, trainable, optimizer, rolled.batch, targets, step)
            scheduler.step()
            metrics = {**rolled.metrics, **targets.metrics, **stats, "train/lr": scheduler.get_last_lr()[0],
                       **step_timings(t0, t1, rolled.gen_seconds)}
            # GAE keeps no state between batches, so the checkpoint's advantage state is empty.
            finish_step(cfg, policy, step + 1, metrics, log=log, tracker=tracker, progress=progress,
                        optimizer=optimizer, scheduler=scheduler, advantage_state={},
                        extra={VALUE_HEAD_FILE: value_head.state_dict()})
        if progress:
            progress.close()
    tracker.close()
    return metrics


@dataclass
class Targets:
    """What one batch is optimised towards, fixed before the first minibatch."""

    old_values: Tensor  # [N, T] V(s_t) at rollout time, 0 on padding
    ref_logprobs: Tensor | None  # [N, T] reference log-probs (None when --kl-beta is 0)
    token_rewards: Tensor  # [N, T] sequence reward on the last valid token, minus the per-token KL penalty
    advantages: Tensor  # [N, T] GAE advantages, whitened when --whiten-advantages; 0 on padding
    returns: Tensor  # [N, T] GAE returns (raw advantages + old values): the value head's targets
    metrics: dict  # value/returns_mean, value/values_mean, value/explained_variance, advantage/*, kl/reward_penalty


@torch.no_grad()
def compute_targets(cfg: TrainConfig, policy, value_head, batch, rewards: Tensor) -> Targets:
    """Old values (one no-grad pass, dropout off), per-token rewards, GAE advantages and returns."""
    model = policy.model
    model.eval()  # dropout off: these values are the ones the first minibatch recomputes
    mask = batch.mask  # [N, T]
    chunks = []
    for rows in torch.arange(len(batch)).split(cfg.minibatch_size or len(batch)):  # bounded memory
        _, values, _ = token_logprobs_and_values(model, value_head, build_sequences(batch, rows), cfg.temperature,
                                                 entropy_grad=False)
        chunks.append(values.cpu())
    old_values = torch.cat(chunks)  # [N, T]
    ref_logprobs = reference_logprobs(cfg, policy, batch)  # [N, T] or None
    metrics = {}
    token_rewards = terminal_rewards(rewards, mask)  # [N, T]
    if ref_logprobs is not None and cfg.kl_in == "reward" and cfg.kl_beta > 0:
        kl = kl_estimator(batch.logprobs, ref_logprobs, cfg.kl_estimator)  # [N, T]
        token_rewards = kl_penalty_reward(token_rewards, kl, cfg.kl_beta, mask=mask)
        metrics["kl/reward_penalty"] = float((cfg.kl_beta * (kl * mask).sum(1)).mean())
    estimator = ADVANTAGES[cfg.advantage]
    advantages, state = estimator(token_rewards, batch.group_ids, mask, values=old_values,
                                  **accepted_options(estimator, cfg.advantage_options()))
    returns = state["returns"]  # value-based estimators return their value targets here (see gae)
    metrics.update({
        "value/returns_mean": float(masked_mean(returns, mask)),
        "value/values_mean": float(masked_mean(old_values, mask)),
        "value/explained_variance": explained_variance(old_values, returns, mask),
        "advantage/mean_abs": float(masked_mean(advantages.abs(), mask)),  # before whitening
    })
    if cfg.whiten_advantages:
        advantages = _whiten(advantages, mask)
    return Targets(old_values, ref_logprobs, token_rewards, advantages, returns, metrics)


def _whiten(advantages: Tensor, mask: Tensor, eps: float = 1e-8) -> Tensor:
    """(A - mean) / (std + eps) over the batch's valid tokens (population std), 0 on padding."""
    mean = masked_mean(advantages, mask)
    std = masked_mean((advantages - mean) ** 2, mask).sqrt()
    return torch.where(mask > 0, (advantages - mean) / (std + eps), torch.zeros_like(advantages))


def _optimise(cfg, policy, value_head, trainable, optimizer, batch, targets: Targets, step) -> dict:
    """`epochs` passes over minibatches of the clipped policy loss + value loss - entropy bonus."""
    model = policy.model
    mask = batch.mask  # [N, T]
    n = len(batch)
    size = cfg.minibatch_size or n
    policy_loss = POLICY_LOSSES[cfg.loss]
    loss_options = accepted_options(policy_loss, cfg.loss_options())
    agg = {"max_tokens": cfg.max_new_tokens}  # used by token_sum_const only
    value_clip = cfg.value_clip or None  # 0 = unclipped
    sums: dict[str, float] = {}
    count = 0
    model.eval()  # dropout off: the function that sampled is the function we differentiate
    generator = torch.Generator().manual_seed(cfg.seed * 1_000_003 + step)
    for epoch in range(cfg.epochs):
        order = torch.randperm(n, generator=generator) if (cfg.epochs > 1 and size < n) else torch.arange(n)
        for start in range(0, n, size):
            rows = order[start: start + size]
            mb_mask = mask[rows]
            logprobs, values, entropy = token_logprobs_and_values(
                model, value_head, build_sequences(batch, rows), cfg.temperature, entropy_grad=cfg.entropy_coef > 0)
            pg_loss, pg_stats = policy_loss(logprobs, batch.logprobs[rows], targets.advantages[rows], mb_mask,
                                            aggregation=cfg.aggregation, **agg, **loss_options)
            value_loss, value_stats = clipped_value_loss(values, targets.old_values[rows], targets.returns[rows],
                                                         mb_mask, value_clip, aggregation=cfg.aggregation, **agg)
            ent = aggregate(entropy, mb_mask, cfg.aggregation, **agg)
            loss = pg_loss + cfg.value_coef * value_loss - cfg.entropy_coef * ent
            stats = {f"loss/{k}": v for k, v in pg_stats.items()}  # clip_fraction, approx_kl, ratio_mean/max
            stats.update({"loss/policy": float(pg_loss.detach()), "loss/value": float(value_loss.detach()),
                          "value/clip_fraction": value_stats["clip_fraction"], "loss/entropy": float(ent.detach())})
            if targets.ref_logprobs is not None:
                ref = targets.ref_logprobs[rows]
                kl_tok = kl_estimator(logprobs.detach(), ref, cfg.kl_estimator)
                stats["kl/mean"] = float(masked_mean(kl_tok, mb_mask))
                if cfg.kl_in == "loss" and cfg.kl_beta > 0:
                    kl_term = kl_loss(logprobs, ref, mb_mask, cfg.kl_estimator, cfg.aggregation, **agg)
                    loss = loss + cfg.kl_beta * kl_term
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            # LoRA and value head are clipped as one vector; an infinite bound (0 = off) only measures.
            norm = torch.nn.utils.clip_grad_norm_(trainable, cfg.max_grad_norm or float("inf"))
            stats["train/grad_norm"] = float(norm)
            optimizer.step()
            stats["loss/total"] = float(loss.detach())
            for k, v in stats.items():
                sums[k] = sums.get(k, 0.0) + float(v)
            count += 1
            if epoch == 0 and start == 0:
                # On-policy check: the first minibatch recomputes the rollout's log-probs and values.
                sums["first_minibatch/max_abs_log_ratio"] = float(
                    ((logprobs.detach() - batch.logprobs[rows]).abs() * mb_mask).max())
                sums["first_minibatch/max_abs_value_change"] = float(
                    ((values.detach() - targets.old_values[rows]).abs() * mb_mask).max())
                sums["first_minibatch/clip_fraction"] = stats["loss/clip_fraction"]
                sums["first_minibatch/value_clip_fraction"] = stats["value/clip_fraction"]
    return {k: (v / count if not k.startswith("first_minibatch/") else v) for k, v in sums.items()}
