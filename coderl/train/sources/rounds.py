"""One round of rollouts for the RL loops: generate for some of a step's prompts (overlapped with the
sandbox), score every completion, and update the curriculum's running pass rates.

Under several ranks (`train/distributed.py`) each rank generates and scores a contiguous slice of the
prompts, cut at generation chunks and seeded as the one-process run seeds those chunks; the slices
are gathered, so every rank returns the same `ScoredRollouts` for the whole round.
"""

from __future__ import annotations

import dataclasses
import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import torch

from coderl.algorithms.sampling import zero_variance_fraction
from coderl.base.config import ConfigError
from coderl.rewards import RewardConfig, score
from coderl.rollout.batching import concat_batches, select_rows
from coderl.rollout.collect import Generation
from coderl.rollout.repair import collect_episodes
from coderl.rollout.types import RolloutBatch
from coderl.sandbox.types import Status
from coderl.tasks.types import Task
from coderl.train.canary import attempt_metrics, canary_count, canary_tasks, is_canary
from coderl.train.config import TrainConfig
from coderl.train.distributed import Ranks
from coderl.train.episodes import score_turns
from coderl.train.order import seeded_order
from coderl.train.policy import Policy
from coderl.train.sources.curriculum import Curriculum
from coderl.train.sources.refill import cat_turns, refill

if TYPE_CHECKING:
    from coderl.rollout.vllm_engine import VLLMEngine
    from coderl.sandbox.client import Sandbox


@dataclass
class ScoredRollouts:
    batch: RolloutBatch
    rewards: torch.Tensor  # [N] float32, one scalar reward per completion
    metrics: dict  # reward/*, sandbox/*, rollout/* of the step
    gen_seconds: float  # time spent in generate (the rest of the rollout time waits on the sandbox)
    turn_rewards: torch.Tensor | None = None  # [N, K] repair episodes (--turns): each turn's reward; else None
    ages: torch.Tensor | None = None  # [N] long, asynchronous rollouts: updates since the sampling weights; else None
    infra: torch.Tensor | None = None  # [N] bool: infrastructure failures (no reward earned: advantage 0); None: none
    infra_cause: str = ""  # the first infrastructure failure's message (the guard's stop line names it)
    limited: torch.Tensor | None = None  # [N] bool: agent episodes that ended at a limit, left out of the loss
    # (`--limit-episodes drop`, rollout/agent.py); None: none

    @property
    def out_of_loss(self) -> torch.Tensor | None:
        """[N] bool: the rows the loss, advantages and KL leave out (infrastructure failures, and agent episodes
        that ended at a limit under `drop`); None: none."""
        if self.limited is None:
            return self.infra
        return self.limited if self.infra is None else self.infra | self.limited


@dataclass(frozen=True)
class RolloutContext:
    """What a step's rollouts read: settings, tasks, the policy that samples, the sandbox that scores; every
    field set when it is built (the trainer's session builds it with the open sandbox, `EngineSource` with its
    engine)."""

    cfg: TrainConfig  # sampling, rewards, repair, curriculum settings
    log: Callable[[str], None]
    tasks: list[Task]  # the training tasks (tests cut, repair split applied)
    policy: Policy  # .model samples, .tokenizer renders
    rewards_cfg: RewardConfig
    reward_override: Callable | None  # (results, samples, tasks) -> rewards: tests inject one
    curriculum: Curriculum  # running pass rates per task and composition; this source's own (`curriculum.py`)
    sandbox: Sandbox | None = None  # the open sandbox that scores (None: a trainer whose worker scores)
    engine: VLLMEngine | None = None  # a generation engine of its own that samples instead of policy.model


@dataclass
class _Slice:
    """One rank's part of a round, before gathering."""

    start: int  # position of its first prompt in the round: its group ids are shifted by this
    batch: RolloutBatch | None  # None: no prompt, or every prompt too long
    rewards: list  # [n] total reward per row
    passed: list  # [n] bool per row
    metrics: dict  # means over its rows (reward/*, sandbox/*, repair/*)
    skipped: list  # task ids of prompts longer than the limit
    gen_seconds: float
    turn_rewards: torch.Tensor | None = None  # [n, K]
    infra: list = dataclasses.field(default_factory=list)  # [n] bool per row: an infrastructure failure
    infra_cause: str = ""
    limited: list = dataclasses.field(default_factory=list)  # [n] bool per row: an agent episode left out


def step_rollouts(ctx: RolloutContext, step: int, ranks: Ranks | None = None) -> ScoredRollouts:
    """A step's rollouts: its prompts (the curriculum's draw, or the seeded pass), one scored round, and
    with `dynamic_sampling` the refill (`train/sources/refill.py`).  `ctx`: the `RolloutContext` (above), in the
    trainer or in the asynchronous generation worker; `ranks`: the processes that share each round (None: this
    one alone)."""
    cfg, ranks = ctx.cfg, ranks or Ranks()
    if cfg.sampling.curriculum_floor is not None:
        rng = random.Random(f"{cfg.seed}:curriculum:{step}")
        indices = ctx.curriculum.draw(cfg.prompts_per_step, cfg.sampling.curriculum_floor, rng)
    else:
        indices = seeded_order(len(ctx.tasks), cfg.seed, step * cfg.prompts_per_step, cfg.prompts_per_step)
    canaries = canary_count(cfg.sampling.canary_fraction, len(indices))
    scoring = ctx
    if canaries:  # the step's last prompts become canary tasks (`train/canary.py`)
        scoring, drawn = _with_canaries(ctx, step, canaries)
        indices = indices[:len(indices) - canaries] + drawn
    first = scored_round(scoring, step, indices, 0, ranks)
    if cfg.sampling.canary_beside:
        _measure_canaries_beside(ctx, step, first, ranks)
    if not cfg.sampling.dynamic_sampling:
        return first
    return refill(ctx, step, first, lambda draw, round_: scored_round(scoring, step, draw, round_, ranks))


def _with_canaries(ctx: RolloutContext, step: int, n: int) -> tuple[RolloutContext, list[int]]:
    """`ctx` with the canary tasks indexed after the training tasks, and the indices of the step's `n` canaries
    (drawn in turn from step to step)."""
    pool = canary_tasks()
    return (dataclasses.replace(ctx, tasks=[*ctx.tasks, *pool]),
            [len(ctx.tasks) + (step * n + j) % len(pool) for j in range(n)])


CANARY_ROUND = -1  # the seed's round of the canaries sampled beside a step (refill rounds count up from 1)


def _measure_canaries_beside(ctx: RolloutContext, step: int, scored: ScoredRollouts, ranks: Ranks) -> None:
    """`--canary-beside N`: N canary prompts (`train/canary.py`, drawn in turn) sampled in a round of their own and
    scored; only their hack/* metrics join the step's, with `hack/canary_seconds` (the round's wall time: what the
    measurement costs), and their generation time its `gen_seconds`.  Their rows never reach the batch, so the
    training rows, rewards and curriculum are those of the run without them."""
    scoring, indices = _with_canaries(ctx, step, ctx.cfg.sampling.canary_beside)
    started = time.perf_counter()
    canaries = scored_round(scoring, step, indices, CANARY_ROUND, ranks)
    scored.metrics.update({k: v for k, v in canaries.metrics.items() if k.startswith("hack/")})
    scored.metrics["hack/canary_seconds"] = time.perf_counter() - started  # what the measurement costs a step
    scored.gen_seconds += canaries.gen_seconds


def generation_chunk(cfg) -> int:
    """Prompts per `collect` chunk, each seeded by its position: batch_size // samples_per_prompt.  With a
    device-filling batch size (None) chunks depend on the slice, so slices are cut per prompt.  Where generation
    compiles (CUDA), `collect` balances each slice's chunks (`rollout.hf_engine.HFEngine.chunks`): an N-rank run's
    chunks are then the one-process run's only where the balanced splits coincide."""
    return max(1, (cfg.generation_batch_size or 1) // cfg.samples_per_prompt)


def scored_round(ctx, step: int, indices: list[int], round_: int, ranks: Ranks):
    """Generate for and score the tasks at `indices`: each of `ranks` its slice, cut where the one-process
    run's generation chunks start (so each chunk, and its seed, is the one-process run's), and every rank
    gets the whole round back."""
    cfg = ctx.cfg
    start, end = ranks.shard(len(indices), generation_chunk(cfg))
    # collect seeds a chunk by its first prompt's position, collect_repair by its first row's
    offset = start * (cfg.samples_per_prompt if cfg.repair.on else 1)
    gen = Generation(format=cfg.format, samples_per_prompt=cfg.samples_per_prompt, max_new_tokens=cfg.max_new_tokens,
                     temperature=cfg.temperature, seed=cfg.seed * 1_000_003 + step * 1009 + round_ * 7919 + offset,
                     batch_size=cfg.generation_batch_size, min_new_tokens=cfg.min_new_tokens,
                     stop=[] if (cfg.min_new_tokens or 0) >= cfg.max_new_tokens else None,
                     # the run repeats this shape every step: a compilation is repaid over all of them
                     planned_tokens=cfg.steps * max(end - start, 1) * cfg.samples_per_prompt * cfg.max_new_tokens
                     * cfg.repair.turns)
    with ranks.generating(ctx.policy):  # sharded weights (FSDP): the ranks generate in lockstep
        part = _slice(ctx, step, [ctx.tasks[i] for i in indices[start:end]], start, gen)
    parts = ranks.gather(part)
    max_prompt = cfg.max_total_sequence_length - cfg.max_new_tokens
    skipped = [t for p in parts for t in p.skipped]
    if all(p.batch is None for p in parts):
        raise ConfigError(f"step {step + 1}: every prompt is longer than --max-total-sequence-length "
                          f"{cfg.max_total_sequence_length} minus --max-new-tokens {cfg.max_new_tokens}"
                          + (" or has no hidden test (--turns)" if cfg.repair.on else ""))
    if skipped:
        ctx.log(f"step {step + 1}: skipped prompts longer than {max_prompt} tokens: {', '.join(skipped)}")
    scored, passed = _merge(parts)
    batch, rewards = scored.batch, scored.rewards
    failed = scored.infra if scored.infra is not None else torch.zeros(len(rewards), dtype=torch.bool)
    earned = rewards[~failed]  # an infrastructure failure's reward was not earned: no mean counts it
    scored.metrics.update({"reward/total": float(earned.mean()) if len(earned) else 0.0,
                           "sandbox/infra_failures": float(failed.sum()),
                           "rollout/gen_tokens": float(batch.mask.sum(1).mean()),
                           "rollout/skipped_prompts": float(len(skipped)),
                           "rollout/truncated": sum(s.truncated for s in batch.samples) / len(batch.samples),
                           "rollout/zero_variance_groups": zero_variance_fraction(rewards, batch.group_ids)})
    scored.metrics.update(level_pass_rates([ctx.tasks[indices[s.group]] for s in batch.samples], passed,
                                           failed.tolist()))
    if any(is_canary(ctx.tasks[i]) for i in indices):  # measured beside the reward, never part of it
        row_tasks = [ctx.tasks[indices[s.group]] for s in batch.samples]
        scored.metrics.update(attempt_metrics(ctx.sandbox, cfg.sandbox.limits(), row_tasks,
                                              [s.completion for s in batch.samples], passed, failed.tolist()))
    for group, index in enumerate(indices):  # the curriculum's running pass rates (not of the canaries)
        if is_canary(ctx.tasks[index]):
            continue
        outcomes = [ok for s, ok, bad in zip(batch.samples, passed, failed.tolist()) if s.group == group and not bad]
        if outcomes:
            ctx.curriculum.record(index, sum(outcomes) / len(outcomes))
    if cfg.sampling.curriculum_floor is not None:
        scored.metrics.update(ctx.curriculum.metrics())
    return scored


def level_pass_rates(row_tasks: list, passed: list, failed: list) -> dict:
    """`sandbox/pass_rate/level_N`: the pass rate of the rows whose task's metadata names level N (the generated
    pool's compositions: how often the policy solves level 2, step by step; the corpus's levels are its warm-ups and
    standard problems, under the same key), infrastructure failures left out.
    {} when no task has a level."""
    by_level: dict = {}
    for task, ok, bad in zip(row_tasks, passed, failed):
        level = (task.metadata or {}).get("level")
        if level is not None and not bad:
            by_level.setdefault(level, []).append(bool(ok))
    return {f"sandbox/pass_rate/level_{lv}": sum(v) / len(v) for lv, v in sorted(by_level.items())}


def _slice(ctx, step: int, step_tasks: list, start: int, gen: Generation) -> _Slice:
    """Generate for and score this rank's prompts; group ids are local (0 = its first prompt).  Agent episodes
    (`--agent`, rollout/agent.py) are scored as single answers are: each on its working copy's grading run."""
    cfg = ctx.cfg
    if not step_tasks:
        return _Slice(start, None, [], [], {}, [], 0.0)
    max_prompt = cfg.max_total_sequence_length - cfg.max_new_tokens
    model = ctx.engine or ctx.policy.model
    if cfg.agent.on:
        from coderl.rollout.agent import collect_agent

        got = collect_agent(model, ctx.policy.tokenizer, step_tasks, ctx.sandbox, gen, cfg.agent,
                            max_prompt_tokens=max_prompt, max_sequence_tokens=cfg.max_total_sequence_length)
    else:
        got = collect_episodes(model, ctx.policy.tokenizer, step_tasks, ctx.sandbox, gen, cfg.sandbox.limits(),
                               cfg.repair, max_prompt_tokens=max_prompt,
                               max_sequence_tokens=cfg.max_total_sequence_length)
    if got.batch is None:
        return _Slice(start, None, [], [], {}, got.skipped, got.gen_seconds)
    batch = got.batch
    turn_rewards, episode_metrics, limited = None, {}, []
    passed = [r.passed for r in got.results]
    if cfg.repair.on:
        turn_rewards, rb, episode_metrics = score_turns(ctx.rewards_cfg, got, step_tasks, ctx.reward_override,
                                                        cfg.repair.turns)
        totals = turn_rewards[torch.arange(len(batch)), [len(e.turns) - 1 for e in got.episodes]].tolist()
    else:
        group_tasks = [step_tasks[s.group] for s in batch.samples]
        rb = score(ctx.rewards_cfg, got.results, batch.samples, group_tasks)
        totals = (ctx.reward_override(got.results, batch.samples, group_tasks)
                  if ctx.reward_override is not None else rb.total)
    if cfg.agent.on:  # resolved is FULL; episodes that ended at a limit are left out under `drop`
        from coderl.rollout.agent import agent_metrics

        passed = [e.status == "FULL" for e in got.episodes]
        limited = [e.at_limit and cfg.agent.limit_episodes == "drop" for e in got.episodes]
        episode_metrics = {**agent_metrics(got.episodes), "agent/left_out": sum(limited) / len(limited)}
    failed = rb.infra  # the sandbox's or the reward model's infrastructure failures (each row's last answer)
    causes = [r.message if r.status is Status.SANDBOX_ERROR else e
              for r, e in zip(got.results, rb.scorer_error or [""] * len(failed))]
    cause = next((c for c, bad in zip(causes, failed) if bad), "")
    return _Slice(start, batch, [float(t) for t in totals], passed, {**rb.metrics(), **episode_metrics}, got.skipped,
                  got.gen_seconds, turn_rewards, list(failed), cause, limited)


def _merge(parts: list[_Slice]) -> tuple[ScoredRollouts, list]:
    """The whole round from the ranks' slices: rows in prompt order, group ids made global, metrics
    weighted by rows (one slice: its own, untouched); gen_seconds is the slowest rank's."""
    full = [p for p in parts if p.batch is not None]
    if len(full) == 1 and full[0].start == 0:
        p = full[0]
        return ScoredRollouts(p.batch, torch.tensor(p.rewards, dtype=torch.float32), dict(p.metrics),
                              max(q.gen_seconds for q in parts), p.turn_rewards, infra=_infra(p.infra),
                              infra_cause=p.infra_cause, limited=_infra(p.limited)), p.passed
    batch = concat_batches([select_rows(p.batch, list(range(len(p.batch))), p.start) for p in full])
    rows = [len(p.batch) for p in full]
    keys = list(dict.fromkeys(k for p in full for k in p.metrics))
    metrics = {k: sum(p.metrics.get(k, 0.0) * n for p, n in zip(full, rows)) / sum(rows) for k in keys}
    turns = [p.turn_rewards for p in full if p.turn_rewards is not None]
    turn_rewards = cat_turns(turns) if turns else None
    rewards = torch.tensor([r for p in full for r in p.rewards], dtype=torch.float32)
    return (ScoredRollouts(batch, rewards, metrics, max(p.gen_seconds for p in parts), turn_rewards,
                           infra=_infra([bad for p in full for bad in p.infra]),
                           infra_cause=next((p.infra_cause for p in full if p.infra_cause), ""),
                           limited=_infra([bad for p in full for bad in (p.limited or [False] * len(p.batch))])),
            [ok for p in full for ok in p.passed])


def _infra(failed: list) -> torch.Tensor | None:
    """[N] bool of the infrastructure failures, or None when there is none (the fault-free run's path)."""
    return torch.tensor(failed, dtype=torch.bool) if any(failed) else None
