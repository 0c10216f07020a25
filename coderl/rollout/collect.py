"""Rollout collection: generate completions chunk by chunk and run each chunk in the sandbox while the
next one generates.  Training (`train/sources/rounds.py`) and evaluation (`eval/run.py`) both collect here.

    collected = collect(model, tokenizer, tasks, sandbox, Generation(...), limits)
    collected.batch       RolloutBatch of the kept rows (group = index of the task in `tasks`)
    collected.results     ExecutionResult per row, row i = collected.batch.samples[i]
    collected.skipped     task ids whose prompt was longer than `max_prompt_tokens` (never truncated)

One turn per row.  The multi-turn collector (repair from execution feedback) is `rollout.repair`, set
up by `RepairConfig` (the `--turns` options of train and eval): its rows attend to the feedback tokens
(`attention_mask`) without training on them (`mask`).  `rollout.repair.collect_episodes` picks one of the
two by `RepairConfig.on`: training and evaluation both collect through it.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from coderl.base.config import ConfigError, option, require
from coderl.base.progress import eta
from coderl.rollout.repository_env import AgentLimits
from coderl.rollout.tool_calls import CHOICES as TOOL_FORMATS
from coderl.rollout.types import RolloutBatch
from coderl.sandbox.types import ExecutionResult, Limits
from coderl.tasks.types import Task


@dataclass(frozen=True)
class Generation:
    """How a collection samples: `rollout.generation.generate`'s arguments, and the rows per chunk and the planned
    work the engine lays its calls out by (`Engine.chunks`)."""

    format: str = "completion"
    samples_per_prompt: int = 1
    max_new_tokens: int = 256
    temperature: float = 0.0
    top_p: float = 1.0
    seed: int = 0  # a chunk starting at task index c samples with seed + c
    batch_size: int | None = 16  # sequences per generate call (None: `fill_batch_size`, CPU 16, a GPU's fill);
    # a chunk holds batch_size // samples_per_prompt tasks (at least 1); where generation compiles, as many
    # chunks of balanced sizes, padded to one shape (`rollout.hf_engine.HFEngine.chunks`)
    min_new_tokens: int | None = None
    stop: Sequence[str] | None = None  # None: the format's stop sequences
    planned_tokens: int | None = None  # rows x max_new_tokens the caller's whole run generates (an evaluation: all
    # its rows; training: steps x rows per step): the compile policy repays a compilation over all of it
    # (`hf_config.use_static_cache`); None: this collection's rows


@dataclass
class RepairConfig:
    """Multi-turn repair (docs/repair.md): feedback from the visible tests, reward from the hidden ones."""

    turns: int = option(1, "answers per episode: 1 = one answer on all tests; N > 1 = multi-turn repair: after a "
                        "failed answer the model sees the visible tests' outcomes and revises, up to N answers, "
                        "scored on the hidden tests only (docs/repair.md)")
    feedback_tokens: int = option(256, "repair: cap on the tokens of one feedback message")
    # Removed settings (`coderl.base.config.flat_values`): the value that is now always the behaviour, and
    # what replaces the setting.
    REMOVED = {"split_seed": (0, "the visible/hidden split of a task is seeded with 0, the same in training and "
                                 "evaluation (issue 62: no config or measurement set another seed)")}

    def __post_init__(self):
        require(self.turns >= 1, "--turns", self.turns, "an integer >= 1")
        require(self.feedback_tokens >= 1, "--feedback-tokens", self.feedback_tokens, "an integer >= 1")

    @property
    def on(self) -> bool:
        return self.turns > 1

    def no_hidden_test(self, spec: str, tasks=()) -> ConfigError:
        """The error when no task of `spec` (`tasks`, when known: the reason is told from them) has a hidden test:
        nothing a repair episode could be scored on."""
        from coderl.tasks.test_files import KIND as TEST_FILE

        files = sum(1 for t in tasks if t.kind == TEST_FILE)
        why = []
        if files:  # visibility.py rule 1: a pytest function is no (arguments, value) pair, so it is always visible
            which = f"its {files} tasks are" if files == len(tasks) and files > 1 else (
                "its task is" if files == len(tasks) else f"{files} of its {len(tasks)} tasks are")
            why.append(f"{which} test-file tasks, which repair cannot split (a pytest file's tests are functions, "
                       "not call/value pairs, so none can be kept out of the feedback on the others: every test "
                       "is visible)")
        if files < len(tasks) or not tasks:
            why.append("a task needs at least 2 tests, or a split of its own")
        return ConfigError(f"--turns {self.turns}: no task of --tasks {spec} has a hidden test: {'; '.join(why)} "
                           "(docs/repair.md, \"Visible and hidden tests\")")


@dataclass
class AgentConfig:
    """Agent episodes on repository tasks (docs/agents.md): the model runs shell commands in the task's working
    copy over many turns and is rewarded by the grader's verdict."""

    agent: bool = option(False, "roll out agent episodes (repository tasks only): the issue, then one command a turn "
                         "in the task's working copy until `submit` or a limit; the working copy is graded")
    agent_turns: int = option(AgentLimits.turns, "agent: replies an episode may give, the submit included")
    command_cpu_seconds: float = option(AgentLimits.command_cpu_seconds,
                                        "agent: one command's CPU limit (its wall backstop 3x + 1 s)")
    output_chars: int = option(AgentLimits.output_chars, "agent: a command's output kept (its first and last half)")
    malformed_in_a_row: int = option(AgentLimits.malformed_in_a_row,
                                     "agent: replies that are not one valid tool call, in a row, that end an episode")
    context_tokens: int | None = option(None, "agent: the most tokens an episode's conversation may hold; the episode "
                                        "ends (graded as it stands) when the next reply would not fit (default: the "
                                        "model's context; training: --max-total-sequence-length)")
    episode_wall_seconds: float = option(AgentLimits.wall_seconds,
                                         "agent: an episode's wall time (checked between turns)")
    tool_format: str = option("auto", "agent: how a reply calls a tool (docs/agents.md): bash-block (a fenced bash "
                              "block), hermes (<tool_call> JSON), qwen3-coder (<tool_call> XML), or auto (the "
                              "model's chat template's own, else bash-block)", choices=list(TOOL_FORMATS))
    limit_episodes: str = option("drop", "agent: episodes that ended at a limit (turns, context, wall time, malformed "
                                 "replies): drop (out of the loss, counted) or train", choices=["drop", "train"])

    def __post_init__(self):
        require(self.agent_turns >= 1, "--agent-turns", self.agent_turns, "an integer >= 1")
        require(self.command_cpu_seconds > 0, "--command-cpu-seconds", self.command_cpu_seconds, "a number > 0")
        require(self.output_chars >= 100, "--output-chars", self.output_chars, "an integer >= 100")
        require(self.malformed_in_a_row >= 1, "--malformed-in-a-row", self.malformed_in_a_row, "an integer >= 1")
        require(self.context_tokens is None or self.context_tokens >= 64, "--context-tokens", self.context_tokens,
                "an integer >= 64")
        require(self.episode_wall_seconds > 0, "--episode-wall-seconds", self.episode_wall_seconds, "a number > 0")

    @property
    def on(self) -> bool:
        return self.agent

    def limits(self) -> AgentLimits:
        """The environment's `AgentLimits` of these settings (whose defaults are these options')."""
        return AgentLimits(turns=self.agent_turns, command_cpu_seconds=self.command_cpu_seconds,
                           output_chars=self.output_chars, malformed_in_a_row=self.malformed_in_a_row,
                           wall_seconds=self.episode_wall_seconds)


@dataclass
class Collected:
    batch: RolloutBatch | None  # None when every prompt was too long
    results: list[ExecutionResult]  # row i = batch.samples[i]
    skipped: list[str]  # task ids left out: prompt longer than max_prompt_tokens
    gen_seconds: float  # time inside generate (the rest waited on the sandbox)
    gen_tokens: int  # generated tokens, all rows

    @property
    def samples(self) -> list:
        return self.batch.samples if self.batch is not None else []


def chunk_batch_size(engine, gen: Generation, rows: int, max_prompt_tokens: int | None = None) -> int:
    """The rows of `collect`'s chunks: `gen.batch_size`, or when None the engine's (`Engine.chunk_rows`: an engine
    of its own batches continuously, so chunks only overlap the sandbox; the HF engine fills the device, on a GPU
    every one of the collection's `rows` at once, up to 256)."""
    if gen.batch_size is not None:
        return gen.batch_size
    return engine.chunk_rows(rows, (max_prompt_tokens or 1024) + gen.max_new_tokens)


def collect(model, tokenizer, tasks: Sequence[Task], sandbox, gen: Generation, limits: Limits | None = None, *,
            max_prompt_tokens: int | None = None, log: Callable[[str], None] | None = None,
            on_chunk: Callable | None = None) -> Collected:
    """Generate for `tasks` chunk by chunk, submitting every chunk's programs before the next chunk
    generates; then wait for all results.  `max_prompt_tokens`: rows with longer prompts are dropped.
    `on_chunk(start, end, batch, results, seconds)`: called with each chunk's rows and results in order, at
    the latest before the chunk after next generates (so at most one chunk runs in the sandbox unreported)."""
    from coderl.rollout.batching import concat_batches, drop_long_prompts
    from coderl.rollout.generation import engine_of, generate

    engine = engine_of(model)
    rows = gen.samples_per_prompt * len(tasks)
    batch_size = chunk_batch_size(engine, gen, rows, max_prompt_tokens)
    planned = max(gen.planned_tokens or 0, rows * gen.max_new_tokens)  # every chunk decides on the same work
    # where generation compiles (`HFEngine.chunks`), chunks of balanced sizes padded to one shape
    bounds, engine = engine.chunks(len(tasks), gen.samples_per_prompt, batch_size, gen.max_new_tokens, planned)
    batches, futures = [], []
    gen_seconds = 0.0
    gen_tokens = 0
    pending: list[tuple] = []  # chunks not yet given to `on_chunk`: (start, end, batch, futures, seconds)
    began = time.perf_counter()

    def report(keep: int) -> None:
        while len(pending) > keep:
            start, stop, b, fs, seconds = pending.pop(0)
            on_chunk(start, stop, b, [f.result() for f in fs], seconds)

    for c, end in zip(bounds, bounds[1:]):
        if on_chunk is not None:
            report(1)
        chunk = tasks[c:end]
        t = time.perf_counter()
        b = generate(engine, tokenizer, chunk, format=gen.format, samples_per_prompt=gen.samples_per_prompt,
                     max_new_tokens=gen.max_new_tokens, temperature=gen.temperature, top_p=gen.top_p,
                     seed=gen.seed + c, min_new_tokens=gen.min_new_tokens, stop=gen.stop)
        seconds = time.perf_counter() - t
        gen_seconds += seconds
        gen_tokens += sum(len(s.gen_tokens) for s in b.samples)
        if max_prompt_tokens is not None:
            b = drop_long_prompts(b, max_prompt_tokens, offset=c)
        elif c:
            b = drop_long_prompts(b, 1 << 62, offset=c)  # only renumbers the groups
        submitted = [sandbox.submit(chunk[s.group - c].build_request(s.completion, limits)) for s in b.samples]
        futures += submitted
        pending.append((c, end, b, submitted, seconds))
        if len(b):
            batches.append(b)
        if log is not None:
            log(f"generated {end}/{len(tasks)} tasks ({gen_tokens / max(gen_seconds, 1e-9):.0f} tokens/s"
                + (f", {eta((time.perf_counter() - began) / end * (len(tasks) - end))} left)"
                   if end < len(tasks) else ")"))
    if on_chunk is not None:
        report(0)
    batch = concat_batches(batches) if batches else None
    kept = {s.task_id for s in batch.samples} if batch is not None else set()
    skipped = sorted({t.task_id for t in tasks} - kept)
    return Collected(batch, [f.result() for f in futures], skipped, gen_seconds, gen_tokens)
