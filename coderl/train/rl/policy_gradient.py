"""The policy-gradient loop: REINFORCE, RLOO, GRPO and critic-free PPO with LoRA, in one readable function.

One step, as docs/architecture.md draws it (convention 1):

    rollouts   = generate(policy, tasks, samples_per_prompt)          # + sampling log-probs
    results    = sandbox.submit(...) while the next chunk generates    # per-test outcomes
    rewards    = score(reward_config, results, samples, tasks)         # total + components
    advantages = ADVANTAGES[cfg.advantage](rewards, group_ids, mask, state=state)   # [N, T]
    loss       = POLICY_LOSSES[cfg.loss](logprobs, old_logprobs, advantages, mask) (+ KL, - entropy)

Critic-free PPO (seed 001, `--algo ppo_critic_free`) is this loop with batch-normalised advantages, a
sequence-level ratio and 4 epochs; PPO with a value head is `train/rl/ppo.py`.  The loop's collaborators
(docs/architecture.md, "One GRPO step"): the rollout source (`train/sources/rollout_source.py`), the updater
(`train/updater.py`) and the ledger (`train/rl/ledger.py`), built by `train/rl/common.py`'s `start_run`.

The reference policy for KL is the *starting* policy: the base with the adapter disabled, or, when
--model is an SFT adapter, that adapter loaded a second time and frozen (`train/policy.py`).
Rollouts and every log-prob pass run with dropout off (`model.eval()`; autograd still works), so the
sampling log-probs are the old log-probs of the importance ratio: the first minibatch has ratio 1.
"""

from __future__ import annotations

import time

from coderl.algorithms import POLICY_LOSSES, aggregate, terminal_rewards
from coderl.base.config import ConfigError
from coderl.train.advantages import step_advantages
from coderl.train.config import TrainConfig
from coderl.train.logprobs import build_sequences, token_logprobs
from coderl.train.rl import common
from coderl.train.updater import Averages


def train(cfg: TrainConfig, *, log=print, reward_override=None) -> dict:
    """Run (or resume) training; returns the last step's metrics.

    `reward_override(results, samples, tasks) -> list[float]` replaces the sandbox reward (tests use it to
    inject a deterministic reward that varies within each group).
    """
    if cfg.value.value_head:
        raise ConfigError(f"--algo {cfg.algo} with --value-head runs in the PPO loop "
                          "(coderl.train.run_training), not the policy-gradient loop")
    run = common.start_run(cfg, log, reward_override=reward_override)
    metrics: dict = {}
    with run.session():
        for step in run.ledger.steps():
            t0 = time.perf_counter()
            rolled = run.source.get(step)
            t1 = time.perf_counter()
            run.ledger.watch.phase("optimisation")
            stats, run.ledger.advantage_state = _optimise(cfg, run, rolled, step)
            metrics = {**rolled.metrics, **stats, "train/lr": run.updater.end_step(),
                       **common.step_timings(t0, t1, rolled, run.updater)}
            run.source.publish(step + 1, grad_norm=metrics.get("train/grad_norm"))  # an engine: proven, engine_weights
            run.ledger.finish_step(step + 1, metrics, rolled)
    return metrics


def _optimise(cfg, run, rolled, step) -> tuple[dict, dict]:
    """Advantages, then `epochs` passes over minibatches; (averaged loss statistics, estimator state)."""
    batch, rewards, metrics = rolled.batch, rolled.rewards, rolled.metrics
    model = run.updater.trained[0]  # the policy, as the updater differentiates it
    mask = common.loss_mask(batch, cfg.sampling.overlong_filter, rolled.out_of_loss)  # [N, T]
    with run.updater.clock("old_logprobs"):  # before any update: how each row enters the loss (may run a pass)
        correction = run.source.correction(rolled, run.updater)
    ref_logprobs = common.reference_logprobs(cfg, run.policy, batch, run.updater)  # [N, T] or None
    token_rewards = rewards
    kl_reward = common.kl_as_reward(cfg.kl, batch, ref_logprobs)  # [N, T] or None
    if kl_reward is not None:
        token_rewards = rewards - kl_reward.sum(1)  # KL as a (sequence-summed) reward penalty
        metrics["kl/reward_penalty"] = float(kl_reward.sum(1).mean())
    advantages, new_state = step_advantages(
        cfg, rolled, mask, token_rewards, state=run.ledger.advantage_state,
        per_token=lambda: terminal_rewards(rewards, mask) - (kl_reward if kl_reward is not None else 0.0))
    moving = (advantages.abs() * mask).sum(1) != 0  # [N] rows whose advantage moves the policy (NaN: the guard's)
    counts = {"advantage/mean_abs": float(advantages.abs().sum() / mask.sum().clamp(min=1)),
              "advantage/nonzero_rows": float(moving.float().mean()),  # of the rows trained on
              "advantage/updated_rows": float(moving.sum())}  # 0: no group varied, the step taught nothing
    only_advantage = not (cfg.kl.kl_in == "loss" and cfg.kl.kl_beta > 0) and cfg.entropy_coef <= 0
    if not moving.any() and only_advantage:
        # Every gradient would be zero: no forward or backward (every process holds the same advantages, so
        # all skip alike).  The schedule still advances (`end_step`); the optimiser does not step.
        return {**counts, "train/empty_step": 1.0}, new_state
    # A row of zero advantage then adds exactly 0 to the loss and its gradient: only moving rows run the
    # passes (unless the correction's pass must see every row).
    live = moving if only_advantage and not correction.needs_every_row else None
    policy_loss = POLICY_LOSSES[cfg.loss]
    loss_options = cfg.loss_kwargs(policy_loss)
    agg = cfg.aggregation_kwargs
    averages = Averages()
    want_entropy = cfg.entropy_coef > 0
    run.policy.model.eval()  # dropout off: the function that sampled is the function we differentiate
    for minibatch in common.minibatches(cfg, len(batch), step):
        def piece_loss(rows):
            out = token_logprobs(model, build_sequences(batch, rows), cfg.temperature, with_entropy=want_entropy,
                                 chunk_bytes=run.updater.memory.chunk_bytes)
            logprobs, entropy = out if want_entropy else (out, None)
            mb_mask = mask[rows]
            old, weighted = correction.for_rows(rows, logprobs, mb_mask, advantages[rows])
            loss, stats = policy_loss(logprobs, old, weighted, mb_mask,
                                      aggregation=cfg.aggregation, **agg, **loss_options)
            stats = {k if k.startswith("loss/") else f"loss/{k}": v for k, v in stats.items()}
            kl_term, kl_stats = common.kl_terms(cfg, logprobs, ref_logprobs, rows, mb_mask)
            loss = loss + kl_term
            stats.update(kl_stats)
            if entropy is not None:
                ent = aggregate(entropy, mb_mask, cfg.aggregation, **agg)
                loss = loss - cfg.entropy_coef * ent
                stats["loss/entropy"] = float(ent.detach())
            # On-policy check, kept from the step's first piece: the old log-probs must be this function's (ratio 1).
            stats["first_minibatch/max_abs_log_ratio"] = ((logprobs.detach() - old).abs() * mb_mask).max()
            if "loss/clip_fraction" in stats:
                stats["first_minibatch/clip_fraction"] = stats["loss/clip_fraction"]
            return loss, stats

        # a minibatch with no live row still steps (AdamW moves on a zero gradient), over all its rows
        here = live if live is not None and live[minibatch].any() else None
        averages.add(run.updater.update(minibatch, mask, piece_loss, width=batch.width, live=here))
    return {**run.updater.mean(averages.result()), **correction.stats(mask), **counts}, new_state
