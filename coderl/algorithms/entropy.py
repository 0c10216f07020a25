"""Per-token entropy of the policy's next-token distribution, for logging and the entropy bonus.

The bonus (seed 003: coefficient 0.01) is added to the loss as `-coef * aggregate(entropy, mask,
mode)` with the same aggregation as the policy loss, so maximising entropy lowers the loss.
Pass the logits the rollout sampled from (divided by the sampling temperature, as the rollout's
log-probs are log_softmax(logits / temperature)), or the entropy describes a different distribution.
"""

from __future__ import annotations

import torch
from torch import Tensor


def entropy_from_logits(logits: Tensor) -> Tensor:
    """H = -sum_v p_v log p_v over the last dim: logits [B, T, V] -> [B, T].

    Computed from log_softmax (no exp of raw logits, so large logits cannot overflow).  Vocabulary
    entries masked with -inf logits have p = 0 and contribute 0 (not NaN) to the value and gradient.
    """
    log_probs = torch.log_softmax(logits, dim=-1)
    probs = log_probs.exp()
    # 0 * log 0 is NaN: take log p as 0 where p == 0 (the term's limit is 0 either way).
    log_probs = log_probs.masked_fill(probs == 0, 0.0)
    return -(probs * log_probs).sum(-1)
