"""Which groups and samples carry a learning signal: pure functions over rewards and flags.

`zero_variance_groups` finds the groups whose rewards do not vary (all pass or all fail): with any
group-relative advantage they contribute nothing but cost a generation, which is what DAPO's
dynamic sampling (Yu et al. 2025, arXiv 2503.14476, sec. 3.2) filters out.  The test is on the
standard deviation, not the mean (a group of rewards 0.5 and 0.5 is as uninformative as one of
1s), against a tolerance scaled to the rewards' magnitude, so float noise from summed reward
components (0.1 + 0.2 vs 0.3) does not count as variation.

`overlong_mask` drops truncated completions from the loss (DAPO's overlong filtering, sec. 3.4):
a completion cut at max_new_tokens is judged on code it never finished, so its reward says little
about its tokens.
"""

from __future__ import annotations

import torch
from torch import Tensor


def zero_variance_groups(rewards: Tensor, group_ids: Tensor, *, rel_tol: float = 1e-6) -> Tensor:
    """[B] bool: does this sample's group have (numerically) equal rewards?

    A group counts as zero-variance when max - min <= rel_tol * max(1, max |r|) over its rewards
    (the spread, which bounds the std, so the test is exact about what "all equal" means).  A group
    of one sample is zero-variance.
    """
    if rewards.shape != group_ids.shape or rewards.dim() != 1:
        raise ValueError(f"rewards {tuple(rewards.shape)} and group_ids {tuple(group_ids.shape)} must be [B]")
    _, index = torch.unique(group_ids, return_inverse=True)
    groups = int(index.max()) + 1 if index.numel() else 0
    r = rewards.to(torch.float64)
    high = torch.full((groups,), -torch.inf, dtype=torch.float64).scatter_reduce(0, index, r, "amax")
    low = torch.full((groups,), torch.inf, dtype=torch.float64).scatter_reduce(0, index, r, "amin")
    scale = torch.maximum(high.abs(), low.abs()).clamp(min=1.0)
    return ((high - low) <= rel_tol * scale)[index]


def zero_variance_fraction(rewards: Tensor, group_ids: Tensor, *, rel_tol: float = 1e-6) -> float:
    """The fraction of groups (not samples) whose rewards are all equal."""
    flat = zero_variance_groups(rewards, group_ids, rel_tol=rel_tol)  # the same for every sample of a group
    ids, index = torch.unique(group_ids, return_inverse=True)
    return float(torch.zeros(len(ids), dtype=torch.bool).scatter(0, index, flat).float().mean()) if len(ids) else 0.0


def overlong_mask(mask: Tensor, truncated: Tensor) -> Tensor:
    """[B, T] loss mask with the rows of truncated completions zeroed ([B] bool `truncated`)."""
    if truncated.shape != mask.shape[:1]:
        raise ValueError(f"truncated {tuple(truncated.shape)} must be [B] for mask {tuple(mask.shape)}")
    return mask * (~truncated.bool()).to(mask.dtype)[:, None]
