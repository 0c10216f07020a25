"""KL to the reference policy from per-token log-probs: Schulman's estimators, as a reward or a loss.

The estimators (Schulman, "Approximating KL Divergence", 2020) take tokens sampled from the current
policy pi and the log-probs of both policies at those tokens; with logr = log ref - log pi:

    k1 = -logr                 = log pi - log ref         unbiased for KL(pi || ref), can be < 0
    k2 = 0.5 * logr^2                                     biased (>= 0), low variance
    k3 = exp(logr) - logr - 1  = ref/pi - log(ref/pi) - 1 unbiased for KL(pi || ref), >= 0

An estimator's *value* and the *gradient* of that value used as a loss are different questions (Tang
& Munos, "On a few pitfalls in KL divergence gradient estimation for RL", arXiv 2506.09477).  For one
categorical distribution pi_theta with samples x ~ pi_theta, differentiating the sampled estimate (the
sampling distribution itself is not differentiated), tests/algorithms/test_kl.py proves exactly:

    k1 as a loss: expected gradient E_pi[grad log pi] = 0 -> it does not regularise at all.
    k2 as a loss: expected gradient = grad KL(pi || ref), the reverse KL.
    k3 as a loss: expected gradient = grad KL(ref || pi), the *forward* KL, even though its value
                  estimates the reverse KL.

Where the KL goes (`kl_in`):
* "reward": subtract beta * k(x) (detached) from the per-token reward (`kl_penalty_reward`), then
  estimate advantages as usual.  With k1 summed over the completion as a sequence-level reward,
  the score-function gradient E[(sum_t k1_t) * grad log pi(sequence)] is exactly the gradient of the
  sequence-level KL(pi || ref) (proved in test_kl.py on a two-token example).  This is the only place
  k1 is allowed.
* "loss": add beta * aggregate(k(x)) to the loss (`kl_loss`).  k1 is refused (zero expected
  gradient).  For sequences, summing per-token k2 terms gives only part of the gradient of the
  sequence-level reverse KL: it misses how a token changes the KL of the tokens after it
  (arXiv 2506.09477 calls it a partial gradient; test_kl.py shows the two differ on a two-token
  example).  So a KL loss regularises each next-token distribution, not the completion's KL.
"""

from __future__ import annotations

from collections.abc import Callable

import torch
from torch import Tensor

from coderl.algorithms.aggregation import aggregate


def k1(logprobs: Tensor, ref_logprobs: Tensor) -> Tensor:
    """log pi - log ref.  Unbiased value of KL(pi || ref); as a loss its expected gradient is 0."""
    return logprobs - ref_logprobs


def k2(logprobs: Tensor, ref_logprobs: Tensor) -> Tensor:
    """0.5 * (log pi - log ref)^2.  Biased value; as a loss, expected gradient of KL(pi || ref)."""
    return 0.5 * (logprobs - ref_logprobs) ** 2


def k3(logprobs: Tensor, ref_logprobs: Tensor) -> Tensor:
    """ref/pi - log(ref/pi) - 1.  Unbiased value of KL(pi || ref); as a loss, gradient of KL(ref || pi).

    Not clamped: exp(log ref - log pi) overflows when pi gives a token far less mass than ref
    (verl and NeMo RL offer clamps); we keep the estimator exact and leave clipping to the caller.
    """
    log_ratio = ref_logprobs - logprobs
    return torch.exp(log_ratio) - log_ratio - 1


KL_ESTIMATORS: dict[str, Callable[[Tensor, Tensor], Tensor]] = {"k1": k1, "k2": k2, "k3": k3}


def kl_estimator(logprobs: Tensor, ref_logprobs: Tensor, kind: str) -> Tensor:
    """Per-token KL estimate [B, T] of kind "k1" | "k2" | "k3" (ref_logprobs are detached).

    Not masked: pass the result through `aggregate` or `kl_penalty_reward(..., mask=...)`.
    """
    if kind not in KL_ESTIMATORS:
        raise ValueError(f"unknown KL estimator {kind!r}; choose one of {sorted(KL_ESTIMATORS)}")
    return KL_ESTIMATORS[kind](logprobs, ref_logprobs.detach())


def kl_penalty_reward(rewards: Tensor, kl: Tensor, beta: float, *, mask: Tensor | None = None) -> Tensor:
    """Per-token rewards [B, T] minus beta * kl.detach() (the KL enters as a reward, not a gradient).

    `rewards` are token-level ([B, T]; `advantages.terminal_rewards` places a per-completion reward on
    the last valid token).  With `mask`, the penalty is dropped on padding.  The result goes to any
    advantage estimator: `gae` uses it per token, the sequence-level ones sum it over valid tokens.
    """
    if rewards.shape != kl.shape:
        raise ValueError(f"kl_penalty_reward: rewards and kl must have the same [B, T] shape; "
                         f"got {tuple(rewards.shape)} and {tuple(kl.shape)}")
    penalty = beta * kl.detach()
    if mask is not None:
        penalty = torch.where(mask > 0, penalty, torch.zeros_like(penalty))
    return rewards.detach() - penalty


def kl_loss(logprobs: Tensor, ref_logprobs: Tensor, mask: Tensor, kind: str, aggregation: str, *,
            max_tokens: int | None = None) -> Tensor:
    """KL penalty as a differentiable loss term: aggregate(k(logprobs, ref_logprobs)) over valid tokens.

    The caller adds `beta * kl_loss(...)` to the policy loss.  "k2" follows the gradient of the
    reverse KL(pi || ref), "k3" that of the forward KL(ref || pi) (see the module docstring).
    """
    if kind == "k1":
        raise ValueError("k1 cannot be a KL loss: its expected gradient is E_pi[grad log pi] = 0 "
                         "(arXiv 2506.09477); use k1 in the reward, or k2/k3 as a loss")
    return aggregate(kl_estimator(logprobs, ref_logprobs, kind), mask, aggregation, max_tokens=max_tokens)
