"""Pure tensor math for RL fine-tuning: advantages, policy/value losses, KL, entropy, aggregation.

Interchangeable math sits in name registries with one signature each, so a training loop looks a
name up and calls it without special cases:

    advantages, state = ADVANTAGES[name](rewards, group_ids, mask, values=None, state=state, **options)
    loss, stats = POLICY_LOSSES[name](logprobs, old_logprobs, advantages, mask, aggregation=..., **options)

Imports torch only.
"""

from coderl.algorithms.advantages import (
    ADVANTAGES,
    register_advantage,
    sequence_rewards,
    terminal_rewards,
)
from coderl.algorithms.aggregation import AGGREGATIONS, aggregate, denominator_share, masked_mean
from coderl.algorithms.entropy import entropy_from_logits
from coderl.algorithms.kl import kl_estimator, kl_loss, kl_penalty_reward
from coderl.algorithms.losses import POLICY_LOSSES, register_policy_loss
from coderl.algorithms.value import clipped_value_loss, explained_variance

__all__ = [
    "ADVANTAGES",
    "AGGREGATIONS",
    "POLICY_LOSSES",
    "aggregate",
    "denominator_share",
    "clipped_value_loss",
    "entropy_from_logits",
    "explained_variance",
    "kl_estimator",
    "kl_loss",
    "kl_penalty_reward",
    "masked_mean",
    "register_advantage",
    "register_policy_loss",
    "sequence_rewards",
    "terminal_rewards",
]
