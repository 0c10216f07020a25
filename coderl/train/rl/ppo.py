"""PPO with a value head on the policy (seed 003: LoRA r 16, clip 0.2, value coef 0.5, max grad norm 0.5,
entropy coef 0.01), in one readable loop.  `--algo ppo` selects it (`coderl.train.run_training`).

One step:

    rollouts      = generate(policy, tasks) while the sandbox runs earlier chunks   # policy_gradient's helpers
    rewards       = score(reward_config, results, samples, tasks)                  # [N]
    old_values    = value_head(last hidden state), no grad, dropout off             # [N, T]
    token_rewards = terminal_rewards(rewards) - kl_beta * KL_t(pi_old || ref)       # [N, T], KL per token
    advantages, returns = ADVANTAGES["gae"](token_rewards, values=old_values)       # [N, T], gamma 1, lambda 0.95
    advantages    = whiten(advantages)                                              # per batch (whiten_advantages)
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
    POLICY_LOSSES,
    aggregate,
    clipped_value_loss,
    explained_variance,
    kl_penalty_reward,
    masked_mean,
    terminal_rewards,
)
from coderl.train.advantages import step_advantages
from coderl.train.config import TrainConfig
from coderl.train.logprobs import build_sequences, token_logprobs_and_values
from coderl.train.rl import common
from coderl.train.rl.value_head import FILENAME as VALUE_HEAD_FILE
from coderl.train.rl.value_head import build_value_head
from coderl.train.sources.off_policy import Correction
from coderl.train.updater import Averages, Updater


def train(cfg: TrainConfig, *, log=print, reward_override=None) -> dict:
    """Run (or resume) PPO with a value head; returns the last step's metrics.

    `reward_override(results, samples, tasks) -> list[float]` replaces the sandbox reward (tests).
    """
    run = common.start_run(cfg, log, reward_override=reward_override,
                           extra_modules=lambda policy, ckpt: [build_value_head(policy.model, resume_from=ckpt)])
    value_head = run.updater.modules[1]
    metrics: dict = {}
    with run.session():
        for step in run.ledger.steps():
            t0 = time.perf_counter()
            rolled = run.source.get(step)
            t1 = time.perf_counter()
            run.ledger.watch.phase("optimisation")
            targets = compute_targets(cfg, run.policy, value_head, rolled, run.updater)
            correction = run.source.correction(rolled, run.updater, prox=targets.start_logprobs)
            stats = _optimise(cfg, run, rolled.batch, targets, correction, step, rolled.out_of_loss)
            metrics = {**rolled.metrics, **targets.metrics, **stats, "train/lr": run.updater.end_step(),
                       **common.step_timings(t0, t1, rolled, run.updater)}
            run.source.publish(step + 1, grad_norm=metrics.get("train/grad_norm"))  # an engine: proven, engine_weights
            # GAE keeps no state between batches, so the checkpoint's advantage state is empty.
            run.ledger.finish_step(step + 1, metrics, rolled, extra={VALUE_HEAD_FILE: value_head})
    return metrics


@dataclass
class Targets:
    """What one batch is optimised towards, fixed before the first minibatch."""

    old_values: Tensor  # [N, T] V(s_t) at rollout time, 0 on padding
    ref_logprobs: Tensor | None  # [N, T] reference log-probs (None when --kl-beta is 0)
    token_rewards: Tensor  # [N, T] sequence reward on the last valid token, minus the per-token KL penalty
    advantages: Tensor  # [N, T] GAE advantages, whitened when whiten_advantages; 0 on padding
    returns: Tensor  # [N, T] GAE returns (raw advantages + old values): the value head's targets
    metrics: dict  # value/returns_mean, value/values_mean, value/explained_variance, advantage/*, kl/reward_penalty
    start_logprobs: Tensor | None = None  # [N, T] the same pass's log-probs: the step's starting policy


@torch.no_grad()
def compute_targets(cfg: TrainConfig, policy, value_head, rolled, updater: Updater) -> Targets:
    """Old values (one no-grad pass, dropout off; the updater's processes share the rows), per-token
    rewards, GAE advantages and returns of the step's scored rollouts `rolled`."""
    batch, rewards = rolled.batch, rolled.rewards
    model = policy.model
    model.eval()  # dropout off: these values are the ones the first minibatch recomputes
    mask = common.loss_mask(batch, cfg.sampling.overlong_filter, rolled.out_of_loss)  # [N, T]

    def values_of(selected):  # [n, 2, T]: values and log-probs
        chunks = []
        selected = torch.arange(len(batch)) if selected is None else selected
        for rows in selected.split(cfg.optim.minibatch_size or len(batch)):  # bounded memory
            logprobs, values, _ = token_logprobs_and_values(model, value_head, build_sequences(batch, rows),
                                                            cfg.temperature, entropy_grad=False,
                                                            chunk_bytes=updater.memory.chunk_bytes)
            chunks.append(torch.stack([values.cpu(), logprobs.cpu()], 1))
        return torch.cat(chunks)

    with updater.clock("old_logprobs"):  # and the old values
        both = updater.map_rows(len(batch), values_of, width=batch.width)
    old_values, start_logprobs = both[:, 0], both[:, 1]  # [N, T] each
    ref_logprobs = common.reference_logprobs(cfg, policy, batch, updater)  # [N, T] or None
    metrics = {}
    token_rewards = terminal_rewards(rewards, mask)  # [N, T]
    kl_reward = common.kl_as_reward(cfg.kl, batch, ref_logprobs)  # [N, T] beta * KL_t, or None
    if kl_reward is not None:
        token_rewards = kl_penalty_reward(token_rewards, kl_reward, 1.0, mask=mask)  # per token
        metrics["kl/reward_penalty"] = float(kl_reward.sum(1).mean())
    advantages, state = step_advantages(cfg, rolled, mask, token_rewards, lambda: token_rewards, values=old_values)
    returns = state["returns"]  # value-based estimators return their value targets here (see gae)
    metrics.update({
        "value/returns_mean": float(masked_mean(returns, mask)),
        "value/values_mean": float(masked_mean(old_values, mask)),
        "value/explained_variance": explained_variance(old_values, returns, mask),
        "advantage/mean_abs": float(masked_mean(advantages.abs(), mask)),  # before whitening
    })
    if cfg.value.whiten_advantages:
        advantages = _whiten(advantages, mask)
    return Targets(old_values, ref_logprobs, token_rewards, advantages, returns, metrics, start_logprobs)


def _whiten(advantages: Tensor, mask: Tensor, eps: float = 1e-8) -> Tensor:
    """(A - mean) / (std + eps) over the batch's valid tokens (population std), 0 on padding."""
    mean = masked_mean(advantages, mask)
    std = masked_mean((advantages - mean) ** 2, mask).sqrt()
    return torch.where(mask > 0, (advantages - mean) / (std + eps), torch.zeros_like(advantages))


def _optimise(cfg, run, batch, targets: Targets, correction: Correction, step, failed=None) -> dict:
    """`epochs` passes over minibatches of the clipped policy loss + value loss - entropy bonus; each
    row enters the policy loss as `correction` says (its old log-probs, its advantage's weight)."""
    model, value_head = run.updater.trained  # as the updater differentiates them
    mask = common.loss_mask(batch, cfg.sampling.overlong_filter, failed)  # [N, T]
    policy_loss = POLICY_LOSSES[cfg.loss]
    loss_options = cfg.loss_kwargs(policy_loss)
    agg = cfg.aggregation_kwargs
    value_clip = cfg.value.value_clip or None  # 0 = unclipped
    averages = Averages()
    run.policy.model.eval()  # dropout off: the function that sampled is the function we differentiate
    for minibatch in common.minibatches(cfg, len(batch), step):
        def piece_loss(rows):
            mb_mask = mask[rows]
            logprobs, values, entropy = token_logprobs_and_values(
                model, value_head, build_sequences(batch, rows), cfg.temperature, entropy_grad=cfg.entropy_coef > 0,
                chunk_bytes=run.updater.memory.chunk_bytes)
            old, weighted = correction.for_rows(rows, logprobs, mb_mask, targets.advantages[rows])
            pg_loss, pg_stats = policy_loss(logprobs, old, weighted, mb_mask,
                                            aggregation=cfg.aggregation, **agg, **loss_options)
            value_loss, value_stats = clipped_value_loss(values, targets.old_values[rows], targets.returns[rows],
                                                         mb_mask, value_clip, aggregation=cfg.aggregation, **agg)
            ent = aggregate(entropy, mb_mask, cfg.aggregation, **agg)
            loss = pg_loss + cfg.value.value_coef * value_loss - cfg.entropy_coef * ent
            stats = {f"loss/{k}": v for k, v in pg_stats.items()}  # clip_fraction, approx_kl, ratio_mean/max
            stats.update({"loss/policy": float(pg_loss.detach()), "loss/value": float(value_loss.detach()),
                          "value/clip_fraction": value_stats["clip_fraction"], "loss/entropy": float(ent.detach())})
            kl_term, kl_stats = common.kl_terms(cfg, logprobs, targets.ref_logprobs, rows, mb_mask)
            stats.update(kl_stats)
            # On-policy check, kept from the step's first piece: it recomputes the rollout's log-probs and values.
            stats.update({
                "first_minibatch/max_abs_log_ratio": ((logprobs.detach() - old).abs() * mb_mask).max(),
                "first_minibatch/max_abs_value_change": ((values.detach() - targets.old_values[rows]).abs()
                                                         * mb_mask).max(),
                "first_minibatch/clip_fraction": stats["loss/clip_fraction"],
                "first_minibatch/value_clip_fraction": stats["value/clip_fraction"]})
            return loss + kl_term, stats

        # LoRA and value head are clipped as one vector; an infinite bound (0 = off) only measures.
        averages.add(run.updater.update(minibatch, mask, piece_loss, width=batch.width))
    return {**run.updater.mean(averages.result()), **correction.stats(mask)}
