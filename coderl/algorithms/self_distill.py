"""Self-distillation from feedback (SDPO: Hübotter et al. 2026, "Reinforcement learning via self-distillation",
arXiv 2601.20802): the policy conditioned on the sandbox's feedback about its own failed answer is its own teacher,
and the unconditioned policy is moved toward the teacher's probabilities of the tokens it sampled.

The loss is SDPO's sampled-token form, the reverse KL(pi || teacher) along the sampled tokens.  Its gradient, for
tokens y ~ pi, is E[(log pi(y) - log teacher(y)) grad log pi(y)], a per-token policy gradient whose advantage is
the teacher's log-probability minus the student's, the teacher held fixed (a no-grad pass):

    per token t:   -(teacher_t - logprobs_t.detach()) * logprobs_t          (aggregated as the policy loss is,
                                                                              0 on rows without a teacher)

A token the teacher finds likelier than the student did is pushed up, one it finds less likely (what the feedback
explains as a mistake) down: a dense signal on rows whose reward is 0.  Imports torch only.
"""

from __future__ import annotations

from torch import Tensor

from coderl.algorithms.aggregation import aggregate


def self_distill_loss(logprobs: Tensor, teacher_logprobs: Tensor, mask: Tensor, taught: Tensor, aggregation: str, *,
                      max_tokens: int | None = None) -> tuple[Tensor, dict]:
    """(the sampled-token reverse-KL surrogate, aggregated over `mask` as the policy loss is, so that pieces of a
    minibatch add up to the whole whatever rows they hold; {"sdpo/gap": the mean of teacher - student log-probs over
    the taught tokens}).  `logprobs` [B, T] carry the graph; `teacher_logprobs` [B, T] are constants; `taught` [B]
    bool: the rows that have a teacher (the others add 0)."""
    on = (mask > 0) & taught[:, None]
    gap = (teacher_logprobs - logprobs.detach()) * on
    loss = aggregate(-gap * logprobs, mask, aggregation, max_tokens=max_tokens)
    return loss, {"sdpo/gap": float(gap.sum() / on.sum().clamp(min=1))}
