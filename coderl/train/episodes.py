"""Repair episodes in the RL loops (`--turns N`): every turn's answer scored on the hidden tests, the
episode metrics, and a step's advantages under the chosen credit (`--credit`, `coderl.algorithms.turns`).

    turn_rewards, scores, metrics = score_turns(rewards_cfg, collected, tasks, override, turns)   # [N, K], repair/*
    advantages, state = step_advantages(cfg, rolled, mask, rewards, per_token, ...)   # every loop's estimator call
"""

from __future__ import annotations

import torch

from coderl.algorithms.turns import previous_rewards, turn_advantages
from coderl.rewards import score


def repair_tasks(cfg, tasks: list, log) -> list:
    """The training tasks that have hidden tests (only they can be scored); the others are named once and
    left out, so no step draws a task it cannot score.  None left is one ConfigError line."""
    from coderl.tasks.visibility import split_tests

    kept = [t for t in tasks if split_tests(t).has_hidden]
    if not kept:
        raise cfg.repair.no_hidden_test(cfg.tasks)
    if len(kept) < len(tasks):
        left = [t.task_id for t in tasks if t not in kept]
        log(f"--turns {cfg.repair.turns}: {len(left)} of {len(tasks)} tasks have no hidden test and are left out: "
            + ", ".join(left[:10]) + (" ..." if len(left) > 10 else ""))
    return kept


def score_turns(rewards_cfg, got, step_tasks, override, turns: int) -> tuple[torch.Tensor, object, dict]:
    """(turn_rewards [N, K] float32: the total reward of each row's answer after turn k, scored on the hidden
    tests, 0 for turns the row did not take; the final answers' `score` breakdown; repair/* metrics).

    `override(results, samples, tasks)` (or None) replaces the sandbox reward, as in the single-turn loop."""
    episodes = got.episodes
    num_turns = max(len(e.turns) for e in episodes)
    pairs = [(i, k) for i, e in enumerate(episodes) for k in range(len(e.turns))]
    results = [episodes[i].turns[k].hidden for i, k in pairs]
    samples = [episodes[i].turns[k].sample for i, k in pairs]
    tasks = [step_tasks[episodes[i].group] for i, _ in pairs]
    every = score(rewards_cfg, results, samples, tasks)
    totals = override(results, samples, tasks) if override is not None else every.total
    turn_rewards = torch.zeros((len(episodes), num_turns), dtype=torch.float32)
    for (i, k), value in zip(pairs, totals):
        turn_rewards[i, k] = float(value)
    final = [i for i, (row, k) in enumerate(pairs) if k == len(episodes[row].turns) - 1]
    breakdown = every.select(final)  # the last answers' rewards, already computed
    return turn_rewards, breakdown, episode_metrics(episodes, turns, got.no_hidden)


def episode_metrics(episodes, num_turns: int, no_hidden) -> dict:
    """repair/pass_after_turn_t (hidden tests, the answer standing after turn t), repair/turns_used,
    repair/feedback_tokens (per episode), repair/out_of_room (fraction of episodes), repair/no_hidden_tasks;
    `num_turns` = --turns, so every step logs the same keys (an episode that ended keeps its answer)."""
    n = max(len(episodes), 1)
    out = {f"repair/pass_after_turn_{t}": sum(e.passed_after(t) for e in episodes) / n
           for t in range(1, num_turns + 1)}
    out["repair/turns_used"] = sum(len(e.turns) for e in episodes) / n
    out["repair/feedback_tokens"] = sum(e.feedback_tokens for e in episodes) / n
    out["repair/out_of_room"] = sum(e.out_of_room for e in episodes) / n
    out["repair/no_hidden_tasks"] = float(len(no_hidden))
    return out


def step_advantages(cfg, rolled, mask, rewards, per_token, *, values=None, state=None):
    """A step's advantages [N, T] and the estimator's new state: `cfg.advantage`'s estimator on `rewards`
    ([N] or [N, T]); for repair episodes under `--credit improvement`, each turn credited with its
    improvement on `per_token()` ([N, T]: the final reward on the last token, minus any KL).
    `values` [N, T]: a critic's, for the estimators that take them (gae).

    Rows that were infrastructure failures (`rolled.infra`) earned no reward: the advantages are those of the
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

    failed = getattr(rolled, "infra", None)
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
