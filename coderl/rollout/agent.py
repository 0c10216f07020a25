"""Agent episodes on repository tasks (issue 98): the episode collector (`rollout.episodes`) over the repository
environment (`rollout.repository_env`), one sandbox working copy per row, and what training and evaluation read of it.

    got = collect_agent(model, tokenizer, tasks, sandbox, gen, AgentConfig(agent=True))
    got.batch      RolloutBatch, one row per episode: the issue, then every reply and the command output after it;
                   `mask` on the replies only, `attention_mask` on everything, `turns` the reply each token is of
    got.results    the grading run of each row's working copy (what the reward scores: FULL / PARTIAL / NO)
    got.episodes   per row: `AgentEpisode` (why it ended, the verdict, turns, tokens, malformed replies)

The rows of one task (`samples_per_prompt`, a GRPO/RLOO group) each start from a copy of the task's base (the
sandbox's episode: a copy-on-write working copy); `AgentEpisode.reset_seconds` is what making it took.

What counts in the loss (`AgentConfig.limit_episodes`): an episode that ended at a limit (turns, context, wall time,
malformed replies) is graded like any other -- the working copy as it stands -- but by default left out of the loss
(`drop`: its advantage is 0 and the group's baseline is taken over the others), as DeepSWE and NeMo Gym do; `train`
keeps it.  Infrastructure failures (the grading run did not complete) are always left out.  Both are counted in the
step's metrics (`agent/limit_episodes`, `sandbox/infra_failures`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from coderl.base.config import ConfigError
from coderl.rollout.collect import AgentConfig, Generation
from coderl.rollout.episodes import run_episodes
from coderl.rollout.repository_env import RepositoryEnvironment
from coderl.rollout.tool_calls import resolve
from coderl.rollout.types import RolloutBatch
from coderl.sandbox.types import ExecutionResult
from coderl.tasks.types import Task

ENDED_BY_AGENT = ("submitted",)  # every other end is a limit (turns, context, wall_time, malformed)


@dataclass
class AgentEpisode:
    task_id: str
    group: int
    reason: str  # submitted, turns, context, wall_time, malformed
    verdict: dict  # `grade.verdict`: status FULL / PARTIAL / NO, f2p_fraction, ...
    turns: int  # replies given
    policy_tokens: int  # tokens the model generated
    observation_tokens: int  # tokens of the observations between replies
    malformed: int  # replies that were not one command
    commands: int
    reset_seconds: float  # making the working copy
    replies: list[str] = field(default_factory=list)
    observations: list[str] = field(default_factory=list)

    @property
    def at_limit(self) -> bool:
        return self.reason not in ENDED_BY_AGENT

    @property
    def status(self) -> str:
        return self.verdict.get("status", "NO")


@dataclass
class AgentCollected:
    batch: RolloutBatch | None
    results: list[ExecutionResult]  # row i: the grading run of its working copy
    episodes: list[AgentEpisode]  # row i = batch.samples[i]
    skipped: list[str]  # task ids whose first prompt was longer than max_prompt_tokens
    gen_seconds: float
    gen_tokens: int
    tool_format: str = "bash-block"  # the format the replies were read in (`--tool-format auto` resolved)

    @property
    def samples(self) -> list:
        return self.batch.samples if self.batch is not None else []


def collect_agent(model, tokenizer, tasks: Sequence[Task], sandbox, gen: Generation, cfg: AgentConfig, *,
                  max_prompt_tokens: int | None = None, max_sequence_tokens: int | None = None,
                  log: Callable[[str], None] | None = None) -> AgentCollected:
    """One agent episode per row (`gen.samples_per_prompt` rows per task), each in a working copy of its own, replies
    in `cfg.tool_format` (resolved against the tokenizer's chat template: a format it does not speak is a
    ConfigError)."""
    try:
        tool_format = resolve(cfg.tool_format, tokenizer)
    except ValueError as exc:
        raise ConfigError(str(exc)) from None
    limits = cfg.limits()
    if cfg.context_tokens is not None:
        max_sequence_tokens = min(cfg.context_tokens, max_sequence_tokens or cfg.context_tokens)
    envs = []
    for index, task in enumerate(tasks):
        for _ in range(gen.samples_per_prompt):
            env = RepositoryEnvironment(sandbox, task, limits, tool_format=tool_format)
            env.group = index
            envs.append(env)
    # the sandbox keeps a bounded number of working copies open: more episodes run in waves of whole groups, each
    # wave's generation seeded apart (one wave -- every training step of the recipes -- is the call it always was)
    capacity = getattr(sandbox, "episode_capacity", None) or len(envs) or 1
    if gen.samples_per_prompt > capacity:
        raise ConfigError(f"{gen.samples_per_prompt} episodes a task (--samples-per-prompt, or eval's --samples): a "
                          f"task's episodes run at once, and the sandbox keeps at most {capacity} working copies open "
                          "(8 per --workers); raise --workers or lower them")
    wave = capacity // gen.samples_per_prompt * gen.samples_per_prompt
    rows, batches, skipped_rows, gen_seconds, gen_tokens = [], [], [], 0.0, 0
    for k, lo in enumerate(range(0, len(envs), wave)):
        part = envs[lo:lo + wave]
        got = run_episodes(model, tokenizer, part, [e.group for e in part],
                           dataclasses.replace(gen, seed=gen.seed + 7_919 * k) if k else gen, max_turns=limits.turns,
                           max_prompt_tokens=max_prompt_tokens, max_sequence_tokens=max_sequence_tokens, log=log)
        rows += got.rows
        skipped_rows += [lo + i for i in got.skipped]
        batches += [got.batch] if got.batch is not None else []
        gen_seconds, gen_tokens = gen_seconds + got.gen_seconds, gen_tokens + got.gen_tokens
    if len(batches) > 1:
        from coderl.rollout.batching import concat_batches
        from coderl.rollout.generation import engine_of

        batches = [concat_batches(batches, engine_of(model).pad_token_id(tokenizer))]
    batch = batches[0] if batches else None
    skipped = list(dict.fromkeys(envs[i].task.task_id for i in skipped_rows))
    episodes = [AgentEpisode(
        task_id=row.env.task.task_id, group=row.group, reason=row.end.reason, verdict=row.end.verdict,
        turns=len(row.samples), policy_tokens=sum(len(s.gen_tokens) for s in row.samples),
        observation_tokens=sum(row.glue_tokens), malformed=row.env.malformed_total, commands=row.env.commands,
        reset_seconds=row.env.reset_seconds, replies=[s.raw_output for s in row.samples],
        observations=[s.observation for s in row.steps[:-1]]) for row in rows]
    return AgentCollected(batch, [row.end.result for row in rows], episodes, skipped, gen_seconds, gen_tokens,
                          tool_format.name)


def agent_metrics(episodes: Sequence[AgentEpisode]) -> dict:
    """agent/* of a step: resolved (FULL) and partial rates, turns and tokens per episode, the tool-error rate
    (malformed replies per reply), the share that ended at a limit, and by which end."""
    n = max(len(episodes), 1)
    replies = max(sum(e.turns for e in episodes), 1)
    out = {"agent/resolved": sum(e.status == "FULL" for e in episodes) / n,
           "agent/partial": sum(e.status == "PARTIAL" for e in episodes) / n,
           "agent/turns": sum(e.turns for e in episodes) / n,
           "agent/policy_tokens": sum(e.policy_tokens for e in episodes) / n,
           "agent/observation_tokens": sum(e.observation_tokens for e in episodes) / n,
           "agent/tool_error_rate": sum(e.malformed for e in episodes) / replies,
           "agent/limit_episodes": sum(e.at_limit for e in episodes) / n,
           "agent/reset_seconds": sum(e.reset_seconds for e in episodes) / n}
    for reason in ("submitted", "turns", "context", "wall_time", "malformed"):
        out[f"agent/ended_{reason}"] = sum(e.reason == reason for e in episodes) / n
    return out
