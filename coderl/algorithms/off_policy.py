"""Truncated importance sampling for rollouts sampled by older weights (asynchronous rollouts).

Three policies meet in an asynchronous step (`train/sources/async_rollouts.py`):

    mu        the behaviour policy: the weights the generation worker sampled with, at most `max_age`
              updates old; its log-probs are recorded at generation (`RolloutBatch.logprobs`).
    pi_prox   the proximal policy: the trainer's weights at the start of the step, before its first
              update (one no-grad pass over the stale rows).
    pi_theta  the policy being optimised.

The PPO ratio is pi_theta / pi_prox, clipped as usual, so the trust region is around the current weights
and not around stale ones (decoupled PPO: Hilton et al. 2022, arXiv 2110.00641; AReaL, arXiv
2505.24298).  The gap between pi_prox and mu is corrected by importance sampling, truncated so that
no sample's weight can exceed `cap` (IMPALA's truncation, Espeholt et al. 2018; TIS, Yao et al. 2025,
"Your efficient RL framework secretly brings you off-policy RL training"):

    w = min(pi_prox / mu, cap)        detached: a weight, not a path for the gradient

at the level of the ratio the loss uses: per token (`token`), per completion as the product of its
token ratios (`sequence`), or their geometric mean (`sequence_mean`, GSPO's).  Truncation bounds the
variance and biases towards mu's samples; `cap` is `tis_cap` (2 by default, as in the TIS post).

A policy loss weighted by w per token is the loss of the advantages times w: pg's -A * log p and
ppo_clip's -min(r * A, clip(r) * A) are both positively homogeneous in A, so for w >= 0 the loss of
(w * A) is w times the loss of A, term by term (`weighted_advantages`; tested against both).
A fresh sample (age 0) has pi_prox = mu: no pass, weight exactly 1.
"""

from __future__ import annotations

import math

import torch
from torch import Tensor

from coderl.algorithms.aggregation import masked_mean

LEVELS = ("token", "sequence", "sequence_mean")


@torch.no_grad()
def truncated_is_weights(prox_logprobs: Tensor, behaviour_logprobs: Tensor, mask: Tensor, cap: float,
                         level: str = "token") -> tuple[Tensor, dict[str, float]]:
    """(weights [B, T], stats): min(pi_prox / mu, cap) per token or per row (broadcast to its tokens),
    0 on padding.  Stats: is/weight_mean (over valid tokens), is/truncated_fraction (of valid tokens,
    or of rows with a sequence level, whose ratio exceeded `cap`), is/max_abs_log_ratio and
    is/mean_abs_log_ratio (|log pi_prox - log mu| per token: the largest, and the mean over valid tokens)."""
    if level not in LEVELS:
        raise ValueError(f"truncated_is_weights: level must be one of {', '.join(LEVELS)}; got {level!r}")
    if not (prox_logprobs.shape == behaviour_logprobs.shape == mask.shape) or mask.dim() != 2:
        raise ValueError(f"prox_logprobs, behaviour_logprobs and mask must all be [B, T]; got "
                         f"{tuple(prox_logprobs.shape)}, {tuple(behaviour_logprobs.shape)}, {tuple(mask.shape)}")
    if cap < 1:
        raise ValueError(f"truncated_is_weights: cap must be >= 1; got {cap}")
    valid = mask > 0
    token_log_ratio = torch.where(valid, prox_logprobs - behaviour_logprobs, torch.zeros_like(prox_logprobs))
    log_ratio = token_log_ratio
    if level != "token":
        log_ratio = token_log_ratio.sum(-1, keepdim=True)
        if level == "sequence_mean":
            log_ratio = log_ratio / valid.sum(-1, keepdim=True).clamp(min=1)
        log_ratio = log_ratio.expand_as(token_log_ratio)
    log_cap = math.log(cap)
    weights = torch.where(valid, log_ratio.clamp(max=log_cap).exp(), torch.zeros_like(log_ratio))
    over = (log_ratio > log_cap) & valid
    if level == "token":
        truncated = float(over.sum() / valid.sum().clamp(min=1))
    else:
        rows = valid.any(-1)
        truncated = float(over.any(-1)[rows].sum() / rows.sum().clamp(min=1))
    stats = {"is/weight_mean": float(masked_mean(weights, mask)), "is/truncated_fraction": truncated,
             "is/max_abs_log_ratio": float(token_log_ratio.abs().max()) if token_log_ratio.numel() else 0.0,
             "is/mean_abs_log_ratio": float(masked_mean(token_log_ratio.abs(), mask)) if mask.any() else 0.0}
    return weights, stats


def weighted_advantages(advantages: Tensor, weights: Tensor | None) -> Tensor:
    """The advantages whose policy loss is the IS-weighted loss (module docstring): A * w, or A when
    there are no weights (every sample fresh)."""
    return advantages if weights is None else advantages * weights
