"""Loss aggregation: one function that turns a per-token loss [B, T] into the scalar we differentiate.

How per-token terms are averaged decides how much each token of each completion weighs, and so
carries a length bias.  The choice is always explicit and named (docs/architecture.md, convention 3), never a default
hidden inside a loss.  Modes and their verl `agg_loss` names (verl `trainer/ppo/core_algos.py`):

| mode              | formula                                      | verl                      |
|-------------------|----------------------------------------------|---------------------------|
| `token_mean`      | sum_{i,t} x_it m_it / sum_{i,t} m_it         | `token-mean`              |
| `sequence_mean`   | mean_i [ sum_t x_it m_it / sum_t m_it ]      | `seq-mean-token-mean`     |
| `token_sum`       | (1/B) sum_i sum_t x_it m_it                  | `seq-mean-token-sum`      |
| `token_sum_const` | sum_{i,t} x_it m_it / (B * max_tokens)       | `seq-mean-token-sum-norm` |

Length bias (|o_i| = valid tokens of completion i; Liu et al., "Understanding R1-Zero-Like Training:
A Critical Perspective" (Dr. GRPO), arXiv 2503.20783, sec. 3.1):

* `token_mean`: every valid token in the batch weighs 1/N (N = valid tokens in the batch), so a
  completion weighs in proportion to its length.  No per-completion 1/|o_i| factor, but the step size
  of every token shrinks when the batch happens to hold long completions (N varies between batches).
  DAPO's choice.
* `sequence_mean`: every completion weighs 1/B, so each of its tokens weighs 1/(B |o_i|).  With a
  positive advantage short completions get larger per-token updates (favours short correct answers);
  with a negative advantage long completions are penalised less per token (favours long wrong
  answers).  This is the length bias Dr. GRPO identifies in the GRPO objective (DeepSeekMath eq. 3).
* `token_sum`: every token weighs 1/B, so a completion weighs in proportion to its length and the
  loss scale grows with length.  This is seed 001's REINFORCE, -R * sum_t log p, averaged over the
  batch.
* `token_sum_const`: `token_sum` divided by a constant generation budget `max_tokens`: no 1/|o_i|
  factor and a scale that does not depend on the batch's lengths (Dr. GRPO's fix: divide by a
  constant such as the generation budget instead of by |o_i|).

A completion with no valid tokens contributes 0 to the sums; `sequence_mean` leaves it out of the mean
over completions (its per-token mean is undefined).  An all-padding batch aggregates to 0.
"""

from __future__ import annotations

import torch
from torch import Tensor

AGGREGATIONS = ("token_mean", "sequence_mean", "token_sum", "token_sum_const")


def masked_sum(x: Tensor, mask: Tensor, dim: int | None = None) -> Tensor:
    """Sum of x where mask > 0.  Uses `where`, not a product, so inf/NaN on padding cannot leak in."""
    masked = torch.where(mask > 0, x, torch.zeros_like(x))
    return masked.sum() if dim is None else masked.sum(dim)


def masked_mean(x: Tensor, mask: Tensor) -> Tensor:
    """Mean of x over the positions where mask > 0 (0 if there are none)."""
    return masked_sum(x, mask) / (mask > 0).sum().clamp(min=1)


def aggregate(per_token: Tensor, mask: Tensor, mode: str, *, max_tokens: int | None = None) -> Tensor:
    """Reduce a per-token loss [B, T] to a scalar over the valid tokens (mask > 0) by `mode`.

    `max_tokens` is the constant of `token_sum_const` (the generation budget, e.g. max_new_tokens);
    the other modes ignore it.  See the module docstring for each mode's length bias.
    """
    if per_token.shape != mask.shape or per_token.dim() != 2:
        raise ValueError(f"aggregate: per_token and mask must both be [B, T]; "
                         f"got {tuple(per_token.shape)} and {tuple(mask.shape)}")
    valid = mask > 0
    batch = per_token.shape[0]
    if mode == "token_mean":
        return masked_mean(per_token, mask)
    if mode == "sequence_mean":
        lengths = valid.sum(-1)
        per_sequence = masked_sum(per_token, mask, dim=-1) / lengths.clamp(min=1)
        return per_sequence.sum() / (lengths > 0).sum().clamp(min=1)
    if mode == "token_sum":
        return masked_sum(per_token, mask) / max(batch, 1)
    if mode == "token_sum_const":
        if max_tokens is None or max_tokens <= 0:
            raise ValueError("aggregation 'token_sum_const' needs a positive constant max_tokens "
                             "(the generation budget), e.g. aggregate(..., max_tokens=512)")
        return masked_sum(per_token, mask) / (max(batch, 1) * max_tokens)
    raise ValueError(f"unknown aggregation {mode!r}; choose one of {AGGREGATIONS}")


def denominator_share(part: Tensor, whole: Tensor, mode: str) -> float:
    """The share of `whole`'s aggregation denominator that the rows `part` [b, T] of it hold: what a
    loss aggregated over `part` is multiplied by to become its term of the loss aggregated over `whole`
    [B, T] (both masks).  Data-parallel ranks each aggregate their rows; sum_r share_r * aggregate(part_r)
    = aggregate(whole) because every mode is a sum over rows divided by one denominator:

        token_mean       valid tokens                  share = tokens(part) / tokens(whole)
        sequence_mean    rows with a valid token       share = such rows(part) / such rows(whole)
        token_sum(_const) rows (x max_tokens)          share = b / B

    An empty `whole` (nothing valid) gives 0: its aggregate is 0 whatever the rows hold.
    """
    if mode == "token_mean":
        num, den = (part > 0).sum(), (whole > 0).sum()
    elif mode == "sequence_mean":
        num, den = (part > 0).any(-1).sum(), (whole > 0).any(-1).sum()
    elif mode in ("token_sum", "token_sum_const"):
        num, den = part.shape[0], whole.shape[0]
    else:
        raise ValueError(f"unknown aggregation {mode!r}; choose one of {AGGREGATIONS}")
    return float(num) / float(den) if float(den) > 0 else 0.0
