"""A step's advantages from its scored rollouts: every RL loop's estimator call (`--advantage`,
`algorithms/advantages.py`), with repair episodes credited turn by turn under `--credit improvement`
(`coderl.algorithms.turns`; each turn's reward: `train/episodes.py`).

    advantages, state = step_advantages(cfg, rolled, mask, rewards, per_token, ...)   # every loop's estimator call
"""

from __future__ import annotations

from coderl.algorithms.turns import previous_rewards, turn_advantages


def step_advantages(cfg, rolled, mask, rewards, per_token, *, values=None, state=None):
    """A step's advantages [N, T] and the estimator's new state: `cfg.advantage`'s estimator on `rewards`
    ([N] or [N, T]); for repair episodes under `--credit improvement`, each turn credited with its
    improvement on `per_token()` ([N, T]: the final reward on the last token, minus any KL).
    `values` [N, T]: a critic's, for the estimators that take them (gae).

    Rows that were infrastructure failures (`rolled.infra`) earned no reward, and agent episodes that ended at a
    limit (`rolled.limited`, under `--limit-episodes drop`) are left out: the advantages are those of the
    remaining rows computed alone, and 0 on them and on any group they left with fewer than 2 rows
    (`scored_rows`); without a failure the estimator sees the whole batch, as before."""
    from coderl.algorithms import ADVANTAGES
    from coderl.algorithms.advantages import on_rows, scored_rows

    estimator = ADVANTAGES[cfg.advantage]
    batch = rolled.batch
    credit = rolled.turn_rewards is not None and cfg.repair.credit == "improvement"

    def estimate(rows=None):
        def pick(t):
            return t if rows is None or t is None else t[rows]
        if credit:
            return credit_advantages(cfg, estimator, pick(per_token()), pick(batch.group_ids), pick(mask),
                                     pick(batch.turns), pick(rolled.turn_rewards), values=pick(values), state=state)
        return estimator(pick(rewards), pick(batch.group_ids), pick(mask), values=pick(values), state=state,
                         **cfg.advantage_kwargs(estimator))

    failed = getattr(rolled, "out_of_loss", getattr(rolled, "infra", None))
    if failed is None or not bool(failed.any()):
        return estimate()
    return on_rows(estimate, scored_rows(failed, batch.group_ids), mask)


def credit_advantages(cfg, estimator, token_rewards, group_ids, mask, turns, turn_rewards, *, values=None,
                      state=None):
    """Advantages [N, T] and the estimator's new state under `--credit improvement` (`turn_advantages`):
    token_rewards [N, T] the rows' per-token rewards (final reward on the last token, minus any KL); turns [N, T]
    each token's turn; turn_rewards [N, K] each turn's reward."""
    used = (turns.clamp(min=-1).max(dim=1).values + 1).clamp(min=0)  # [N] turns each row took
    previous = previous_rewards(turn_rewards, used)
    return turn_advantages(estimator, token_rewards, group_ids, mask, turns, previous, values=values,
                           state=state, **cfg.advantage_kwargs(estimator))
