"""Repair episodes in the RL loops (`--turns N`): the tasks they can train on (those with hidden tests),
every turn's answer scored on the hidden tests, and the episode metrics.  Each turn's reward is then credited
by `train/advantages.py` under `--credit`.

    tasks = repair_tasks(cfg, tasks, log)                                                          # rl/common.py
    turn_rewards, scores, metrics = score_turns(rewards_cfg, collected, tasks, override, turns)   # [N, K], repair/*
"""

from __future__ import annotations

import torch

from coderl.rewards import score


def repair_tasks(cfg, tasks: list, log) -> list:
    """The training tasks that have hidden tests (only they can be scored); the others are named once and
    left out, so no step draws a task it cannot score.  None left is one ConfigError line."""
    from coderl.tasks.visibility import split_tests

    kept = [t for t in tasks if split_tests(t).has_hidden]
    if not kept:
        raise cfg.repair.no_hidden_test(cfg.tasks, tasks)
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
