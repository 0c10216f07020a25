"""Policy losses: per-token log-probs and advantages -> scalar loss, one signature, registered by name.

Every loss is called the same way (docs/architecture.md, convention 2):

    loss, stats = POLICY_LOSSES[name](logprobs, old_logprobs, advantages, mask,
                                      aggregation=..., max_tokens=..., **options)

logprobs      [B, T] log pi_theta(token) under the policy being trained (carries the gradient).
old_logprobs  [B, T] log-probs of the policy that sampled the tokens (detached here).
advantages    [B, T] from an estimator in `advantages.py` (detached here).
mask          [B, T] 1 on completion tokens, 0 on padding (right padding).
aggregation   required: how per-token terms become a scalar (`aggregation.py`; each mode's length
              bias is documented there).  `max_tokens` is only read by `token_sum_const`.
options       the loss's own keyword-only parameters; a misspelt option raises TypeError.

Returns (loss: scalar tensor to minimise, stats: dict of Python floats).  Every loss reports the same
stats keys, so logging needs no special case:
  clip_fraction  fraction of valid tokens (sequences, for a sequence-level ratio) where the clipped
                 branch of the PPO objective is taken (its gradient is then 0); 0 for `pg`.
  approx_kl      mean over valid tokens of (ratio - 1) - log ratio with the per-token ratio
                 pi_theta/pi_old: Schulman's k3 estimate of KL(pi_old || pi_theta) from samples of
                 pi_old (always per token, so it is comparable across ratio levels).
  ratio_mean, ratio_max   of the ratio the loss uses (per valid token, or per sequence).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

import torch
from torch import Tensor

from coderl.algorithms.aggregation import aggregate, masked_mean
from coderl.base.registry import register_once

# exp() of a log-ratio above ~88 overflows float32 to inf, and inf * 0 in backward is NaN.  A policy
# this far from the sampler is broken anyway; like verl we clamp the log-ratio (its gradient is then 0).
_LOG_RATIO_LIMIT = 20.0


class PolicyLoss(Protocol):
    def __call__(self, logprobs: Tensor, old_logprobs: Tensor, advantages: Tensor, mask: Tensor, *,
                 aggregation: str, **options) -> tuple[Tensor, dict[str, float]]: ...


POLICY_LOSSES: dict[str, PolicyLoss] = {}


def register_policy_loss(name: str) -> Callable[[PolicyLoss], PolicyLoss]:
    """Register a policy loss under `name` in POLICY_LOSSES (a name may be registered only once)."""
    def decorator(fn: PolicyLoss) -> PolicyLoss:
        return register_once(POLICY_LOSSES, name, fn, "policy loss")
    return decorator


def _token_log_ratio(logprobs: Tensor, old_logprobs: Tensor, mask: Tensor) -> Tensor:
    """log(pi_theta / pi_old) per token, 0 on padding (so padding never enters a sequence sum)."""
    if not (logprobs.shape == old_logprobs.shape == mask.shape) or mask.dim() != 2:
        raise ValueError(f"logprobs, old_logprobs and mask must all be [B, T]; got {tuple(logprobs.shape)}, "
                         f"{tuple(old_logprobs.shape)}, {tuple(mask.shape)}")
    log_ratio = logprobs - old_logprobs.detach()
    return torch.where(mask > 0, log_ratio, torch.zeros_like(log_ratio))


@torch.no_grad()
def _approx_kl(token_log_ratio: Tensor, mask: Tensor) -> float:
    log_ratio = token_log_ratio.clamp(-_LOG_RATIO_LIMIT, _LOG_RATIO_LIMIT)
    return float(masked_mean(log_ratio.exp() - 1 - log_ratio, mask))


@register_policy_loss("pg")
def pg(logprobs: Tensor, old_logprobs: Tensor, advantages: Tensor, mask: Tensor, *,
       aggregation: str, max_tokens: int | None = None) -> tuple[Tensor, dict[str, float]]:
    """Vanilla policy gradient (REINFORCE, Williams 1992): per token -A_t * log pi_theta(token_t).

    With a per-sequence advantage A = R and `token_sum` aggregation this is exactly seed 001's
    L = -R * log p(completion) = -R * sum_t log p_t, averaged over the batch.  old_logprobs are only
    used for the stats (how far the policy has moved from the sampler).
    """
    token_log_ratio = _token_log_ratio(logprobs, old_logprobs, mask)
    per_token = -advantages.detach() * logprobs
    loss = aggregate(per_token, mask, aggregation, max_tokens=max_tokens)
    with torch.no_grad():
        ratio = token_log_ratio.clamp(-_LOG_RATIO_LIMIT, _LOG_RATIO_LIMIT).exp()
        valid = mask > 0
        stats = {
            "clip_fraction": 0.0,
            "approx_kl": _approx_kl(token_log_ratio, mask),
            "ratio_mean": float(masked_mean(ratio, mask)),
            "ratio_max": float(ratio[valid].max()) if valid.any() else 0.0,
        }
    return loss, stats


@register_policy_loss("ppo_clip")
def ppo_clip(logprobs: Tensor, old_logprobs: Tensor, advantages: Tensor, mask: Tensor, *,
             aggregation: str, max_tokens: int | None = None, eps: float = 0.2,
             eps_high: float | None = None, ratio_level: str = "token") -> tuple[Tensor, dict[str, float]]:
    """PPO clipped surrogate (Schulman et al. 2017, arXiv 1707.06347, eq. 7), per token:

        loss_t = -min(ratio * A_t, clip(ratio, 1 - eps, 1 + eps_high) * A_t)

    `eps_high` (default: eps) sets an asymmetric upper bound, DAPO's clip-higher (arXiv 2503.14476,
    sec. 3.1), which lets low-probability tokens with A > 0 grow further before the clip.
    `ratio_level="token"`: ratio = pi_theta(token_t) / pi_old(token_t) per token (standard PPO/GRPO).
    `ratio_level="sequence"`: ratio = exp(sum_t (log pi_theta - log pi_old)) over the row's valid
    tokens, one ratio per completion broadcast to its tokens (seed 001, a completion is one action).
    Seed 001's per-sequence loss -min(ratio * A, clip(ratio) * A), averaged over the batch, is this
    with `ratio_level="sequence"` and `sequence_mean` aggregation.
    `ratio_level="sequence_mean"`: GSPO's length-normalised sequence ratio (Zheng et al. 2025, arXiv
    2507.18071, eq. 7), s_i = (pi_theta(y_i) / pi_old(y_i))^(1/|y_i|) = exp(mean_t (log pi_theta -
    log pi_old)), one per completion, so a long answer's ratio is not a product of hundreds of token
    ratios; GSPO clips it with a much smaller eps (3e-4 / 4e-4 in the paper) and averages over
    completions (`sequence_mean`).

    Log-ratios are clamped to +-20 before exp (see _LOG_RATIO_LIMIT).  With A < 0 the ratio is not
    bounded above (no dual clip), as in the original objective.
    """
    if ratio_level not in ("token", "sequence", "sequence_mean"):
        raise ValueError(f"ppo_clip: ratio_level must be 'token', 'sequence' or 'sequence_mean'; got {ratio_level!r}")
    upper = eps if eps_high is None else eps_high
    token_log_ratio = _token_log_ratio(logprobs, old_logprobs, mask)
    log_ratio = token_log_ratio
    if ratio_level == "sequence":
        log_ratio = token_log_ratio.sum(-1, keepdim=True).expand_as(token_log_ratio)
    elif ratio_level == "sequence_mean":
        lengths = mask.sum(-1, keepdim=True).clamp(min=1)
        log_ratio = (token_log_ratio.sum(-1, keepdim=True) / lengths).expand_as(token_log_ratio)
    ratio = log_ratio.clamp(-_LOG_RATIO_LIMIT, _LOG_RATIO_LIMIT).exp()
    advantages = advantages.detach()
    unclipped = ratio * advantages
    clipped = ratio.clamp(1 - eps, 1 + upper) * advantages
    per_token = -torch.min(unclipped, clipped)
    loss = aggregate(per_token, mask, aggregation, max_tokens=max_tokens)

    with torch.no_grad():
        valid = mask > 0
        clipped_taken = (clipped < unclipped) & valid
        if ratio_level == "token":
            clip_fraction = float(clipped_taken.sum() / valid.sum().clamp(min=1))
            ratios = ratio[valid]
        else:
            # per completion: the fraction of its tokens clipped (all or none when A is constant along
            # the row), then the mean over completions that have tokens.
            lengths = valid.sum(-1)
            has_tokens = lengths > 0
            per_row = clipped_taken.sum(-1) / lengths.clamp(min=1)
            clip_fraction = float(per_row[has_tokens].sum() / has_tokens.sum().clamp(min=1))
            ratios = ratio[:, 0][has_tokens] if ratio.shape[1] else ratio.new_zeros(0)
        stats = {
            "clip_fraction": clip_fraction,
            "approx_kl": _approx_kl(token_log_ratio, mask),
            "ratio_mean": float(ratios.mean()) if ratios.numel() else 0.0,
            "ratio_max": float(ratios.max()) if ratios.numel() else 0.0,
        }
    return loss, stats
