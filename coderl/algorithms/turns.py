"""Credit across the turns of a repair episode (`coderl.rollout.repair`): pure tensor math.

A repair row holds every answer of one episode; `turns` [N, T] says which turn (0-based) each policy
token belongs to (-1 on feedback and padding).  r_k is the reward of turn k's answer (scored on the
hidden tests), and the episode's reward is its last answer's, r_final.  Two credits (`--credit`):

* `final`: every turn's tokens are credited with r_final.  This needs nothing here: the row is one
  sample with reward r_final, and every estimator runs on it as on a single-turn batch.
* `improvement`: turn k is credited with the improvement from the answer standing before it to the
  final answer, r_final - r_{k-1} (r_{-1} = 0), i.e. the sum of the per-turn improvements
  r_j - r_{j-1} from turn k on.  A first answer that passes and needs no repair earns r_final; a
  repair that fixes a 0.4 answer into a 1.0 one earns 0.6, and the turn before it keeps its own credit.
  Each (row, turn) becomes one entry of an expanded batch, whose reward is turn k's tokens' own
  per-token rewards (the KL penalty) plus, on its last token, the rest of the row's rewards from turn
  k on (later turns' KL, the final reward) minus r_{k-1}; its group is (the row's group, k), so a
  group baseline compares the repairs of the same task at the same turn.  Any estimator runs on that
  batch unchanged (GAE sees one episode per turn whose terminal reward is the return from there on),
  and its advantages fold back into the rows (the turns' masks are disjoint).

Worked example (hand-computed in tests/algorithms/test_turns.py): two rows of one task, no KL.
Row a: turn 0 scores 0.2, turn 1 scores 1.0; row b: turn 0 scores 1.0 (no repair).  Entries:
(a, 0): 1.0 - 0 = 1.0, group (g, 0); (b, 0): 1.0, group (g, 0); (a, 1): 1.0 - 0.2 = 0.8, group (g, 1).
"""

from __future__ import annotations

from collections.abc import Callable

import torch
from torch import Tensor


def previous_rewards(turn_rewards: Tensor, turns_used: Tensor) -> Tensor:
    """[N, K] r_{k-1} per turn (0 for the first turn and for turns a row did not take)."""
    n, k = turn_rewards.shape
    previous = torch.zeros((n, k), dtype=torch.float32)
    previous[:, 1:] = turn_rewards[:, :-1].float()
    used = torch.arange(k).unsqueeze(0) < turns_used.unsqueeze(1)
    return torch.where(used, previous, torch.zeros_like(previous))


def expand_turns(token_rewards: Tensor, group_ids: Tensor, mask: Tensor, turns: Tensor,
                 previous: Tensor) -> tuple[Tensor, Tensor, Tensor, Tensor]:
    """One entry per (row, turn present in the row) -> (rewards [M, T], group_ids [M], mask [M, T], rows [M]).

    token_rewards [N, T]: the row's per-token rewards (the final reward on its last valid token, minus
    any per-token KL); group_ids [N]; mask [N, T] the loss mask; turns [N, T] long; previous [N, K]:
    r_{k-1} of each turn (`previous_rewards`).  Entry (i, k): mask = turn k's tokens of row i; rewards =
    its own per-token rewards, plus on its last token the row's rewards after turn k minus r_{k-1}.
    """
    num_turns = previous.shape[1]
    valid = mask > 0
    rewards, groups, masks, rows = [], [], [], []
    for i in range(mask.shape[0]):
        for k in range(num_turns):
            segment = valid[i] & (turns[i] == k)
            if not bool(segment.any()):
                continue
            later = valid[i] & (turns[i] > k)
            own = token_rewards[i].float()
            row = torch.where(segment, own, torch.zeros_like(own))
            last = int(segment.nonzero().max())
            row[last] += token_rewards[i][later].float().sum() - previous[i, k]
            rewards.append(row)
            groups.append(int(group_ids[i]) * num_turns + k)
            masks.append(segment.to(mask.dtype))
            rows.append(i)
    if not rows:
        empty = torch.zeros((0, mask.shape[1]))
        return empty, torch.zeros(0, dtype=torch.long), empty.to(mask.dtype), torch.zeros(0, dtype=torch.long)
    return torch.stack(rewards), torch.tensor(groups), torch.stack(masks), torch.tensor(rows)


def fold_turns(per_entry: Tensor, rows: Tensor, num_rows: int) -> Tensor:
    """[M, T] per-entry tensors summed back into their rows -> [N, T] (the entries' masks are disjoint)."""
    out = torch.zeros((num_rows, per_entry.shape[1]), dtype=per_entry.dtype)
    return out.index_add(0, rows, per_entry)


def turn_advantages(estimator: Callable, token_rewards: Tensor, group_ids: Tensor, mask: Tensor, turns: Tensor,
                    previous: Tensor, values: Tensor | None = None, state: dict | None = None,
                    **options) -> tuple[Tensor, dict]:
    """Advantages [N, T] under the `improvement` credit: `estimator` (any of `ADVANTAGES`, with its
    options) on the expanded batch, folded back.  A [M, T] `returns` in the estimator's state (value
    targets) is folded back too."""
    rewards, groups, entry_mask, rows = expand_turns(token_rewards, group_ids, mask, turns, previous)
    if len(rows) == 0:  # no policy token at all (every row masked out): nothing to credit
        zeros = torch.zeros(mask.shape, dtype=torch.float32)
        return zeros, {**(state or {}), **({"returns": zeros.clone()} if values is not None else {})}
    entry_values = values[rows] * entry_mask if values is not None else None
    advantages, new_state = estimator(rewards, groups, entry_mask, values=entry_values, state=state, **options)
    if isinstance(new_state.get("returns"), Tensor) and new_state["returns"].shape == entry_mask.shape:
        new_state = {**new_state, "returns": fold_turns(new_state["returns"], rows, mask.shape[0])}
    return fold_turns(advantages, rows, mask.shape[0]), new_state
