"""Value-head loss and diagnostics for PPO with a learned critic (seed 003: value coefficient 0.5).

The value loss is clipped like the policy (Schulman et al. 2017, PPO; the form used by OpenAI
baselines and CleanRL `ppo.py`): the new prediction may not profit from moving more than `clip` away
from the prediction made at rollout time.
"""

from __future__ import annotations

import torch
from torch import Tensor

from coderl.algorithms.aggregation import aggregate, masked_mean


def clipped_value_loss(values: Tensor, old_values: Tensor, returns: Tensor, mask: Tensor,
                       clip: float | None = 0.2, *, aggregation: str,
                       max_tokens: int | None = None) -> tuple[Tensor, dict[str, float]]:
    """0.5 * max((v - R)^2, (clip(v, v_old - clip, v_old + clip) - R)^2), aggregated over valid tokens.

    values [B, T] (carries the gradient), old_values [B, T] from the rollout, returns [B, T] the GAE
    targets (`gae`'s new_state["returns"]); the last two are detached.  `clip=None` gives the
    unclipped 0.5 * (v - R)^2.  stats["clip_fraction"]: fraction of valid tokens where the clipped
    term is the larger one (the gradient then comes from the clipped prediction, 0 outside the band).
    """
    if not (values.shape == old_values.shape == returns.shape == mask.shape):
        raise ValueError("clipped_value_loss: values, old_values, returns and mask must all be [B, T]")
    returns = returns.detach()
    unclipped = (values - returns) ** 2
    if clip is None:
        return aggregate(0.5 * unclipped, mask, aggregation, max_tokens=max_tokens), {"clip_fraction": 0.0}
    old_values = old_values.detach()
    clipped_values = old_values + (values - old_values).clamp(-clip, clip)
    clipped = (clipped_values - returns) ** 2
    loss = aggregate(0.5 * torch.max(unclipped, clipped), mask, aggregation, max_tokens=max_tokens)
    with torch.no_grad():
        clip_fraction = float(masked_mean((clipped > unclipped).float(), mask))
    return loss, {"clip_fraction": clip_fraction}


@torch.no_grad()
def explained_variance(values: Tensor, returns: Tensor, mask: Tensor) -> float:
    """1 - Var[R - V] / Var[R] over valid tokens (population variances), as in CleanRL.

    1 = perfect prediction, 0 = no better than predicting the mean, < 0 = worse.  NaN when the
    returns have no variance (the ratio is undefined).
    """
    valid = mask > 0
    returns, values = returns[valid].double(), values[valid].double()
    if returns.numel() == 0:
        return float("nan")
    var_returns = returns.var(unbiased=False)
    if var_returns == 0:
        return float("nan")
    return float(1 - (returns - values).var(unbiased=False) / var_returns)
