"""DAPO's dynamic sampling for the RL loops: keep the groups whose rewards vary, refill the rest."""

from __future__ import annotations

import dataclasses
import random
import time
from collections import Counter

import torch

from coderl.algorithms.sampling import zero_variance_groups
from coderl.rollout.batching import concat_batches, select_rows


def refill(ctx, step: int, first, next_round):
    """DAPO's dynamic sampling (arXiv 2503.14476, sec. 3.2): drop the groups whose rewards are all
    equal (`zero_variance_groups`) and generate for further prompts, up to `dynamic_sampling` extra
    rounds, until the informative groups kept hold the step's sample budget (prompts_per_step x
    samples_per_prompt rows: prompts_per_step groups at a fixed group size).  Round r draws as the step
    does (the curriculum's weights when it is on, else uniformly), seeded for (seed, step, r), so a
    resumed run draws the same.  The step's reward/sandbox metrics stay those of its first round
    (comparable with runs without refill); if no group varies in any round, the first round is returned (its
    advantages are zero: the policy-gradient loop then skips the update, `train/empty_step`).
    `next_round(task_indices, round_)` generates and scores one more round
    (`rounds.scored_round`); `time/refill` is the seconds the extra rounds took (in the step's generation
    and sandbox wait)."""
    cfg = ctx.cfg
    kept, rewards, turn_rewards, groups, kept_rows, offset, rounds = [], [], [], 0, 0, 0, 0
    failed = []  # [n] bool per kept row: an infrastructure failure
    current, gen_seconds, generated, seconds = first, first.gen_seconds, 0, 0.0
    while True:
        generated += len(current.rewards)
        informative = ~zero_variance_groups(current.rewards, current.batch.group_ids)
        ids = current.batch.group_ids.tolist()
        size = Counter(ids)
        wanted = set()
        for g in dict.fromkeys(g for g, ok in zip(ids, informative.tolist()) if ok):
            if kept_rows >= cfg.batch_size:
                break
            wanted.add(g)
            kept_rows += size[g]
        rows = [i for i, g in enumerate(ids) if g in wanted]
        if rows:
            kept.append(select_rows(current.batch, rows, offset))
            rewards.append(current.rewards[rows])
            failed += [bool(current.infra[i]) for i in rows] if current.infra is not None else [False] * len(rows)
            if current.turn_rewards is not None:  # repair episodes: [N, K] per round (K may differ)
                turn_rewards.append(current.turn_rewards[rows])
        groups += len(wanted)
        offset += max(ids) + 1
        if kept_rows >= cfg.batch_size or rounds >= cfg.sampling.dynamic_sampling:
            break
        rounds += 1
        start = time.perf_counter()
        current = next_round(_draw(ctx, step, rounds), rounds)
        seconds += time.perf_counter() - start
        gen_seconds += current.gen_seconds
    metrics = {**first.metrics, "sampling/extra_rounds": float(rounds), "sampling/kept_groups": float(groups),
               "sampling/generated_rows": float(generated),  # every round's rows, kept or dropped
               "time/refill": round(seconds, 3)}
    if not kept:
        return dataclasses.replace(first, metrics=metrics, gen_seconds=gen_seconds)
    return dataclasses.replace(first, batch=concat_batches(kept, ctx.policy.tokenizer.pad_token_id or 0),
                               rewards=torch.cat(rewards), metrics=metrics, gen_seconds=gen_seconds,
                               turn_rewards=cat_turns(turn_rewards) if turn_rewards else None,
                               infra=torch.tensor(failed) if any(failed) else None)


def _draw(ctx, step: int, round_: int) -> list[int]:
    """Task indices of refill round `round_`: as many as a step draws, by the curriculum's weights when it
    is on."""
    cfg = ctx.cfg
    rng = random.Random(f"{cfg.seed}:refill:{step}:{round_}")
    count = min(cfg.prompts_per_step, len(ctx.tasks))
    if cfg.sampling.curriculum_floor is None:
        return rng.sample(range(len(ctx.tasks)), count)
    return ctx.curriculum.draw(count, cfg.sampling.curriculum_floor, rng)


def cat_turns(parts: list) -> torch.Tensor:
    """[N, K] per-turn rewards of several rounds; a round whose episodes all ended early has fewer columns."""
    width = max(p.shape[1] for p in parts)
    return torch.cat([torch.nn.functional.pad(p, (0, width - p.shape[1])) for p in parts])
