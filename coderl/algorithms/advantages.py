"""Advantage estimators: rewards -> per-token advantages [B, T], one signature, registered by name.

Every estimator is called the same way, so a training loop never special-cases a name
(docs/architecture.md, convention 2):

    advantages, state = ADVANTAGES[name](rewards, group_ids, mask, values=values, state=state, **options)

rewards    [B] one scalar per completion, or [B, T] per-token rewards (e.g. a terminal reward plus a
           per-token KL penalty from `kl.kl_penalty_reward`).  Sequence-level estimators (all but
           `gae`) first sum a [B, T] reward over each row's valid tokens; `gae` puts a [B] reward on
           the last valid token of its row (`terminal_rewards`).
group_ids  [B] long; completions of the same prompt share an id (any integers, in any order).
mask       [B, T] 1 on completion tokens, 0 on padding.  Rows may end at different positions (right
           padding); `gae` also skips interior zeros.
values     [B, T] value-head predictions V(s_t).  Only `gae` reads them; the others ignore them.
state      dict the caller carries from one call to the next (reinforce's running mean); None = fresh.
options    the estimator's own keyword-only parameters (listed in each docstring).  They are explicit
           parameters, not a catch-all, so a misspelt option raises TypeError instead of being ignored.

Returns (advantages [B, T] float32, zero where mask == 0, detached from rewards and values;
new_state: a new dict with the input state's entries plus the estimator's own, the input untouched).

Standard deviations are population std (unbiased=False) throughout: with G samples, (r - mean)/std
then has unit population variance, and a group of two rewards [1, 0] maps to exactly [+1, -1].  verl
and TRL use torch's default Bessel-corrected std, which gives advantages smaller by sqrt((G-1)/G).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

import torch
from torch import Tensor

from coderl.algorithms.sampling import zero_variance_groups
from coderl.base.registry import register_once


class AdvantageEstimator(Protocol):
    def __call__(self, rewards: Tensor, group_ids: Tensor, mask: Tensor, values: Tensor | None = None,
                 state: dict | None = None, **options) -> tuple[Tensor, dict]: ...


ADVANTAGES: dict[str, AdvantageEstimator] = {}


def register_advantage(name: str, *, needs_values: bool = False,
                       ) -> Callable[[AdvantageEstimator], AdvantageEstimator]:
    """Register an estimator under `name` in ADVANTAGES (a name may be registered only once).
    `needs_values`: it reads per-token value estimates (`values`) and returns value targets
    (`state["returns"]`), so it runs with a value head (the PPO loop); the config asks the estimator,
    never its name (`fn.needs_values`)."""
    def decorator(fn: AdvantageEstimator) -> AdvantageEstimator:
        fn.needs_values = needs_values  # type: ignore[attr-defined]
        return register_once(ADVANTAGES, name, fn, "advantage estimator")
    return decorator


# ---------------------------------------------------------------------------------------------------
# helpers


def _check_shapes(rewards: Tensor, group_ids: Tensor, mask: Tensor) -> None:
    if mask.dim() != 2:
        raise ValueError(f"mask must be [B, T]; got {tuple(mask.shape)}")
    batch = mask.shape[0]
    if tuple(rewards.shape) not in ((batch,), tuple(mask.shape)):
        raise ValueError(f"rewards must be [B] or [B, T] = {tuple(mask.shape)}; got {tuple(rewards.shape)}")
    if tuple(group_ids.shape) != (batch,):
        raise ValueError(f"group_ids must be [B] = ({batch},); got {tuple(group_ids.shape)}")


def sequence_rewards(rewards: Tensor, mask: Tensor) -> Tensor:
    """One reward per completion [B]: a [B] reward as is, a [B, T] reward summed over valid tokens."""
    rewards = rewards.detach().to(torch.float32)
    if rewards.dim() == 1:
        return rewards
    return torch.where(mask > 0, rewards, torch.zeros_like(rewards)).sum(-1)


def terminal_rewards(rewards: Tensor, mask: Tensor) -> Tensor:
    """Place a per-completion reward [B] on the last valid token of its row -> [B, T] (0 elsewhere).

    A row with no valid token has nowhere to put its reward and gets all zeros.
    """
    rewards = rewards.detach().to(torch.float32)
    valid = mask > 0
    positions = torch.arange(mask.shape[1], device=mask.device).expand_as(mask)
    last = torch.where(valid, positions, torch.full_like(positions, -1)).max(-1).values  # [B]
    out = torch.zeros(mask.shape, dtype=torch.float32, device=mask.device)
    has_token = last >= 0
    rows = torch.arange(mask.shape[0], device=mask.device)[has_token]
    out[rows, last[has_token]] = rewards[has_token]
    return out


def _broadcast(per_sequence: Tensor, mask: Tensor) -> Tensor:
    """[B] -> [B, T]: each row's value on its valid tokens, 0 on padding."""
    per_token = per_sequence.to(torch.float32)[:, None].expand(mask.shape)
    return torch.where(mask > 0, per_token, torch.zeros_like(per_token))


def _group_stats(rewards: Tensor, group_ids: Tensor) -> tuple[Tensor, Tensor, Tensor]:
    """Per element: (mean of its group, population std of its group, size of its group), each [B].

    A group whose rewards are equal up to float noise (`zero_variance_groups`: eight rewards of 0.1 sum
    to 0.8000001) has each reward as its own mean and std 0, so every group estimator gives it advantage
    exactly 0; otherwise GRPO's division by the std would blow the noise up to unit scale."""
    _, index = torch.unique(group_ids, return_inverse=True)
    num_groups = int(index.max()) + 1 if index.numel() else 0
    zeros = torch.zeros(num_groups, dtype=torch.float32, device=rewards.device)
    count = zeros.scatter_add(0, index, torch.ones_like(rewards))
    mean = zeros.scatter_add(0, index, rewards) / count
    var = zeros.scatter_add(0, index, (rewards - mean[index]) ** 2) / count
    flat = zero_variance_groups(rewards, group_ids)
    return (torch.where(flat, rewards, mean[index]), torch.where(flat, 0.0, var[index].sqrt()), count[index])


def scored_rows(failed: Tensor, group_ids: Tensor) -> Tensor:
    """[B] bool: the rows whose rewards the advantages use.  `failed` [B] bool marks infrastructure failures
    (a sandbox that failed where the program could not have caused it: no reward was earned): those rows are
    left out, and so is every row of a group they left with fewer than 2 rows (no baseline to compare with).
    A group without a failure keeps all its rows, whatever its size."""
    if failed.shape != group_ids.shape or failed.dim() != 1:
        raise ValueError(f"failed {tuple(failed.shape)} and group_ids {tuple(group_ids.shape)} must be [B]")
    failed = failed.bool()
    _, index = torch.unique(group_ids, return_inverse=True)
    groups = int(index.max()) + 1 if index.numel() else 0
    zeros = torch.zeros(groups, dtype=torch.long, device=failed.device)
    lost = zeros.scatter_add(0, index, failed.long())[index]  # [B] failures in the row's group
    left = zeros.scatter_add(0, index, (~failed).long())[index]  # [B] rows left in it
    return ~failed & ((lost == 0) | (left >= 2))


def on_rows(estimate: Callable[[Tensor], tuple[Tensor, dict]], keep: Tensor, mask: Tensor) -> tuple[Tensor, dict]:
    """Advantages [B, T] computed on the rows `keep` ([B] bool) alone, 0 on every other row: `estimate(rows)`
    returns the estimator's (advantages [n, T], state) for the row indices `rows` (its rewards, group ids,
    mask and values at those rows).  A state entry of shape [n, T] (gae's `returns`) is spread back the same
    way.  With every row kept it is `estimate(all rows)` itself."""
    rows = keep.nonzero().squeeze(1)
    if rows.numel() == keep.numel():
        return estimate(rows)
    out = torch.zeros(mask.shape, dtype=torch.float32, device=mask.device)
    if rows.numel() == 0:
        return out, {}
    part, state = estimate(rows)
    out[rows] = part.to(torch.float32)
    for name, value in list(state.items()):
        if isinstance(value, Tensor) and value.shape == part.shape:
            spread = torch.zeros(mask.shape, dtype=value.dtype, device=value.device)
            spread[rows] = value
            state[name] = spread
    return out, state


# ---------------------------------------------------------------------------------------------------
# estimators


@register_advantage("reinforce")
def reinforce(rewards: Tensor, group_ids: Tensor, mask: Tensor, values: Tensor | None = None,
              state: dict | None = None, *, baseline: str = "none",
              baseline_momentum: float = 0.9) -> tuple[Tensor, dict]:
    """REINFORCE (Williams 1992): advantage = reward - baseline on every valid token.

    With `baseline="none"` this is seed 001's `-reward * log p(completion)` once paired with the `pg`
    loss and `token_sum` aggregation.  With `baseline="running_mean"` the baseline is an exponential
    moving average of past batch-mean rewards, kept in `state = {"running_mean": float, "count": int}`
    (count = batches folded in so far).  The advantage uses the baseline from *before* this batch's
    update, so a completion's own reward never enters its baseline and the gradient stays unbiased
    (a baseline must not depend on the action it scores).  Consequently the first batch (count 0) has
    baseline 0; it then initialises the running mean to its own mean, and later batches update it as
    running_mean <- momentum * running_mean + (1 - momentum) * batch_mean.
    """
    _check_shapes(rewards, group_ids, mask)
    per_sequence = sequence_rewards(rewards, mask)
    new_state = dict(state or {})
    if baseline == "none":
        return _broadcast(per_sequence, mask), new_state
    if baseline != "running_mean":
        raise ValueError(f"reinforce: baseline must be 'none' or 'running_mean'; got {baseline!r}")
    if not 0.0 <= baseline_momentum < 1.0:
        raise ValueError(f"reinforce: baseline_momentum must be in [0, 1); got {baseline_momentum}")
    count = int(new_state.get("count", 0))
    previous = float(new_state.get("running_mean", 0.0)) if count > 0 else 0.0
    batch_mean = float(per_sequence.mean()) if per_sequence.numel() else previous
    updated = batch_mean if count == 0 else baseline_momentum * previous + (1 - baseline_momentum) * batch_mean
    new_state.update(running_mean=updated, count=count + 1)
    return _broadcast(per_sequence - previous, mask), new_state


@register_advantage("batch_norm")
def batch_norm(rewards: Tensor, group_ids: Tensor, mask: Tensor, values: Tensor | None = None,
               state: dict | None = None, *, eps: float = 1e-8) -> tuple[Tensor, dict]:
    """Whole-batch normalisation, (r - mean(r)) / (std(r) + eps) over all B rewards (seed 001's PPO).

    Ignores group_ids.  std is the population std (see the module docstring); a batch of one, or of
    equal rewards, gets advantage 0.
    """
    _check_shapes(rewards, group_ids, mask)
    per_sequence = sequence_rewards(rewards, mask)
    centred = per_sequence - per_sequence.mean()
    return _broadcast(centred / (per_sequence.std(unbiased=False) + eps), mask), dict(state or {})


@register_advantage("grpo")
def grpo(rewards: Tensor, group_ids: Tensor, mask: Tensor, values: Tensor | None = None,
         state: dict | None = None, *, normalize_std: bool = True, eps: float = 1e-8) -> tuple[Tensor, dict]:
    """GRPO outcome advantage (Shao et al. 2024, DeepSeekMath, arXiv 2402.03300, sec. 4.1.2):

        A_i = (r_i - mean_g(r)) / (std_g(r) + eps)   over the completions i of group g

    with the group's population std.  `normalize_std=False` drops the division, which is Dr. GRPO's
    mean-centred advantage (arXiv 2503.20783, sec. 3.1: dividing by std up-weights prompts whose
    rewards barely vary, i.e. too easy or too hard); `dr_grpo` registers that directly.  A group whose
    rewards are all equal (or a group of one) gets advantage 0.
    """
    _check_shapes(rewards, group_ids, mask)
    per_sequence = sequence_rewards(rewards, mask)
    mean, std, _ = _group_stats(per_sequence, group_ids)
    advantage = per_sequence - mean
    if normalize_std:
        advantage = advantage / (std + eps)
    return _broadcast(advantage, mask), dict(state or {})


@register_advantage("dr_grpo")
def dr_grpo(rewards: Tensor, group_ids: Tensor, mask: Tensor, values: Tensor | None = None,
            state: dict | None = None) -> tuple[Tensor, dict]:
    """Dr. GRPO advantage (Liu et al., arXiv 2503.20783, sec. 3.1): A_i = r_i - mean_g(r), no std.

    Pair it with `token_sum_const` aggregation for Dr. GRPO's full fix of the length bias.
    """
    return grpo(rewards, group_ids, mask, values, state, normalize_std=False)


@register_advantage("rloo")
def rloo(rewards: Tensor, group_ids: Tensor, mask: Tensor, values: Tensor | None = None,
         state: dict | None = None, *, normalize_std: bool = False, eps: float = 1e-8) -> tuple[Tensor, dict]:
    """REINFORCE leave-one-out (Kool et al. 2019; Ahmadian et al. 2024, arXiv 2402.14740):

        A_i = r_i - mean_{j != i in g} r_j = G/(G-1) * (r_i - mean_g(r))   for a group of size G >= 2

    The baseline excludes r_i, so it is independent of completion i and the gradient is unbiased.
    `normalize_std=True` then divides by (population std of the whole group + eps), seed 002's
    NeMo-RL setting `normalize_rewards` + `use_leave_one_out_baseline`.  NeMo RL instead divides by
    each sample's leave-one-out std and skips the division where that std is 0; we use the group std,
    one scale per group, which never divides a lone success by ~0.
    A group of size 1 has no other sample to form a baseline: its advantage is 0 (no learning signal,
    like a group of equal rewards) rather than an error, so a filtered batch cannot crash a run.
    """
    _check_shapes(rewards, group_ids, mask)
    per_sequence = sequence_rewards(rewards, mask)
    mean, std, size = _group_stats(per_sequence, group_ids)
    scale = torch.where(size > 1, size / (size - 1).clamp(min=1), torch.zeros_like(size))
    advantage = scale * (per_sequence - mean)
    if normalize_std:
        advantage = advantage / (std + eps)
    return _broadcast(advantage, mask), dict(state or {})


@register_advantage("reinforce_pp")
def reinforce_pp(rewards: Tensor, group_ids: Tensor, mask: Tensor, values: Tensor | None = None,
                 state: dict | None = None, *, eps: float = 1e-8) -> tuple[Tensor, dict]:
    """REINFORCE++-baseline (Hu et al. 2025, arXiv 2501.03262, sec. 3): the group mean as baseline,
    then one normalisation over the whole batch:

        A_i = r_i - mean_g(r);   A_i <- (A_i - mean_batch(A)) / (std_batch(A) + eps)

    The global scale (population std over all B advantages) replaces GRPO's per-group std, so a group
    whose rewards barely vary is not blown up to unit scale.  Groups of equal rewards have A = 0
    before the normalisation, and -mean_batch(A) / std afterwards, which is 0 (the centred
    advantages already have batch mean 0) up to float rounding.
    """
    _check_shapes(rewards, group_ids, mask)
    per_sequence = sequence_rewards(rewards, mask)
    mean, _, _ = _group_stats(per_sequence, group_ids)
    centred = per_sequence - mean
    normalised = (centred - centred.mean()) / (centred.std(unbiased=False) + eps)
    return _broadcast(normalised, mask), dict(state or {})


@register_advantage("gae", needs_values=True)
def gae(rewards: Tensor, group_ids: Tensor, mask: Tensor, values: Tensor | None = None,
        state: dict | None = None, *, gamma: float = 1.0, lam: float = 0.95) -> tuple[Tensor, dict]:
    """Generalized Advantage Estimation (Schulman et al. 2016, arXiv 1506.02438) per token:

        delta_t = r_t + gamma * V_{t+1} - V_t
        A_t     = delta_t + gamma * lam * A_{t+1}

    computed backwards over each row's valid tokens; V and A after the last valid token are 0 (the
    completion ends the episode, so nothing is bootstrapped).  Padding is skipped, not treated as a
    step: at a masked position A is 0 and the recursion carries V_{t+1}, A_{t+1} across it (verl's
    handling), so right padding, and interior masked tokens, both work.  `rewards` [B] is a terminal
    reward on each row's last valid token; [B, T] is used per token (masked positions dropped).
    `values` is required.  group_ids are ignored.

    new_state["returns"] = advantages + values on valid tokens (0 on padding): the value-head
    targets, returned through the state so every estimator keeps one signature.  It is per batch,
    replaced on every call; the caller can equally compute it as `advantages + values * mask`.
    """
    if values is None:
        raise ValueError("gae needs values [B, T] from a value head; pass values=...")
    _check_shapes(rewards, group_ids, mask)
    if values.shape != mask.shape:
        raise ValueError(f"gae: values must be [B, T] = {tuple(mask.shape)}; got {tuple(values.shape)}")
    valid = mask > 0
    token_rewards = terminal_rewards(rewards, mask) if rewards.dim() == 1 else torch.where(
        valid, rewards.detach().to(torch.float32), torch.zeros((), device=mask.device))
    values = torch.where(valid, values.detach().to(torch.float32), torch.zeros((), device=mask.device))
    advantages = torch.zeros(mask.shape, dtype=torch.float32, device=mask.device)
    next_value = torch.zeros(mask.shape[0], dtype=torch.float32, device=mask.device)
    next_advantage = torch.zeros_like(next_value)
    for t in reversed(range(mask.shape[1])):
        delta = token_rewards[:, t] + gamma * next_value - values[:, t]
        advantage = delta + gamma * lam * next_advantage
        is_valid = valid[:, t]
        advantages[:, t] = torch.where(is_valid, advantage, torch.zeros_like(advantage))
        next_value = torch.where(is_valid, values[:, t], next_value)
        next_advantage = torch.where(is_valid, advantage, next_advantage)
    returns = torch.where(valid, advantages + values, torch.zeros_like(values))
    return advantages, {**(state or {}), "returns": returns}
