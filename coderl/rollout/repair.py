"""The multi-turn repair collector: the model answers, sees what its code did on the visible tests, and
revises, for up to `turns` answers; the reward comes from the hidden tests.  Training
(`train/sources/rounds.py`) and evaluation (`eval/run.py`) both collect episodes here.

    got = collect_repair(model, tokenizer, tasks, sandbox, Generation(format="chat", ...), limits,
                         RepairConfig(turns=3))
    got.batch       RolloutBatch, one row per episode: the first prompt, then every turn's answer and the
                    feedback between them; `mask` = the policy's tokens, `attention_mask` = all of them,
                    `turns` = the turn of each policy token (-1 on feedback and padding)
    got.results     the hidden tests' result of each row's last answer (what the reward scores)
    got.episodes    per row, every turn: the answer (`Sample`), the visible and hidden results, the feedback

The episode (docs/repair.md):
* a task's tests are split into visible and hidden ones (`coderl.tasks.visibility.split_tests`); a task
  without hidden tests is not rolled out (`no_hidden`), since nothing could score it;
* turn 1 is the chat prompt; every answer runs twice in the sandbox, once on the visible tests only
  (the feedback) and once on the hidden tests only (the reward), so nothing the program does while a
  hidden test runs can reach the conversation;
* the episode goes on while the visible tests fail and turns are left: the feedback
  (`coderl.rollout.feedback`) is a user message, the template's end of the answer and the next
  assistant header around it; the model continues the *same token ids* it has generated, never a
  re-tokenised text, so the training forward pass sees exactly what generation saw;
* it also ends when the next turn would not fit in `max_sequence_tokens`.

Whether the episode goes on depends on the visible tests only, so not even one bit about the hidden
tests reaches the model before its episode ends.  The separation of the two runs is the sandbox's:
under isolation `full` each run has its own file system; under `uid`/`rlimits` programs share /tmp,
and a warning says so (a hidden-test run could leave its arguments for a later visible-test run).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from coderl.rollout.collect import Generation, RepairConfig, collect
from coderl.rollout.episodes import run_episodes
from coderl.rollout.feedback import feedback_message, warn_unless_isolated
from coderl.rollout.formats import get_format, prompt_text
from coderl.rollout.types import RolloutBatch, Sample, Step
from coderl.sandbox.types import ExecutionResult, Limits
from coderl.tasks.types import Task
from coderl.tasks.visibility import TestSplit, split_tests


@dataclass
class Turn:
    sample: Sample  # this turn's answer; `sample.prompt` is the whole conversation it continued
    visible: ExecutionResult | None  # the visible tests' result (None: the task has no visible test)
    hidden: ExecutionResult | None = None  # the hidden tests' result (what the reward scores)
    feedback: str = ""  # the message sent after this answer ("" when the episode ended here)
    added_tokens: int = 0  # tokens added after this answer: the message and the template's glue


@dataclass
class Episode:
    task_id: str
    group: int  # index of its task in the `tasks` given to `collect_repair`
    turns: list[Turn] = field(default_factory=list)
    out_of_room: bool = False  # it ended because the next turn would not fit in max_sequence_tokens

    @property
    def final(self) -> Turn:
        return self.turns[-1]

    @property
    def feedback_tokens(self) -> int:
        return sum(t.added_tokens for t in self.turns)

    def passed_after(self, turn: int) -> bool:
        """Whether the answer standing after `turn` (1-based) passes the hidden tests: an episode that
        ended earlier keeps its last answer."""
        return self.turns[min(turn, len(self.turns)) - 1].hidden.passed


@dataclass
class RepairCollected:
    batch: RolloutBatch | None  # None when no task could be rolled out
    results: list[ExecutionResult]  # row i: hidden tests' result of its last answer
    episodes: list[Episode]  # row i = batch.samples[i]
    skipped: list[str]  # task ids whose first prompt was longer than max_prompt_tokens
    no_hidden: list[str]  # task ids without hidden tests (not rolled out)
    gen_seconds: float
    gen_tokens: int
    split_rules: dict[str, str] = field(default_factory=dict)  # task id -> the rule that split its tests

    @property
    def samples(self) -> list[Sample]:
        return self.batch.samples if self.batch is not None else []


class RepairEnvironment:
    """One repair episode as an environment of the episode collector (`rollout.episodes`): each answer runs on
    the visible tests (its feedback is the observation) and on the hidden tests (the reward, awaited only once
    the episode has ended)."""

    observation_role = "user"
    tools = None

    def __init__(self, task: Task, split: TestSplit, group: int, sandbox, fmt, limits: Limits | None,
                 repair: RepairConfig, tokenizer):
        self.task, self.split, self.sandbox, self.fmt = task, split, sandbox, fmt
        self.limits, self.repair, self.tokenizer = limits, repair, tokenizer
        self.episode = Episode(task.task_id, group)
        self.hidden: list = []  # per turn, the hidden tests' future
        self._answer: Sample | None = None

    def prompt(self, tokenizer) -> tuple[list, str]:
        messages = self.fmt.render(self.task, tokenizer)
        if isinstance(messages, str):
            raise ValueError(f"multi-turn repair needs a chat format (format {self.fmt.name!r} renders plain text)")
        return list(messages), prompt_text(messages, tokenizer)

    def reset(self) -> None:
        return None

    def stops(self) -> tuple[str, ...]:
        return tuple(self.fmt.stop_sequences(self.task))

    def sample(self, tokenizer, prompt: str, row, stops) -> Sample:
        from coderl.rollout.generation import to_sample

        self._answer = to_sample(self.fmt, tokenizer, self.task, self.episode.group, prompt, row, stops)
        return self._answer

    def step(self, text: str) -> Step:
        del text  # acted on as the `Sample` the collector just made of it (`sample`): its extracted code
        sample = self._answer
        visible = _run(self.sandbox, self.task, self.split.visible, sample.completion, self.limits)
        self.hidden.append(_run(self.sandbox, self.task, self.split.hidden, sample.completion, self.limits))
        turn = Turn(sample, visible.result() if visible is not None else None)
        self.episode.turns.append(turn)
        if turn.visible is None:
            return Step(done=True, reason="no_visible")
        if turn.visible.passed:
            return Step(done=True, reason="passed")
        if len(self.episode.turns) >= self.repair.turns:
            return Step(done=True, reason="turns")
        turn.feedback = feedback_message(self.task, self.split.visible, turn.visible, count_tokens=self._count,
                                         max_tokens=self.repair.feedback_tokens)
        return Step(turn.feedback)

    def finish(self, reason: str) -> Step:
        """Ended by the collector (out of context): the last answer stands, its feedback never sent."""
        self.episode.final.feedback = ""
        self.episode.out_of_room = reason == "context"
        return Step(done=True, reason=reason)

    def settle(self, glue_tokens: list[int]) -> Episode:
        """The episode, its hidden results awaited and every turn's added tokens set."""
        for turn, hidden, added in zip(self.episode.turns, self.hidden, glue_tokens):
            turn.hidden, turn.added_tokens = hidden.result(), added
        return self.episode

    def _count(self, text: str) -> int:
        return len(self.tokenizer(text, add_special_tokens=False)["input_ids"])


def collect_repair(model, tokenizer, tasks: Sequence[Task], sandbox, gen: Generation, limits: Limits | None,
                   repair: RepairConfig, *, max_prompt_tokens: int | None = None,
                   max_sequence_tokens: int | None = None,
                   log: Callable[[str], None] | None = None) -> RepairCollected:
    """Roll out one repair episode per row (`gen.samples_per_prompt` rows per task with hidden tests)."""
    warn_unless_isolated(sandbox, "multi-turn repair")
    fmt = get_format(gen.format)
    envs, no_hidden, rules = [], [], {}
    for index, task in enumerate(tasks):
        split = split_tests(task)
        rules[task.task_id] = split.rule
        if not split.has_hidden:
            no_hidden.append(task.task_id)
            continue
        envs += [RepairEnvironment(task, split, index, sandbox, fmt, limits, repair, tokenizer)
                 for _ in range(gen.samples_per_prompt)]
    got = run_episodes(model, tokenizer, envs, [e.episode.group for e in envs], gen, max_turns=repair.turns,
                       max_prompt_tokens=max_prompt_tokens, max_sequence_tokens=max_sequence_tokens, log=log)
    skipped = list(dict.fromkeys(envs[i].task.task_id for i in got.skipped))
    episodes = [row.env.settle(row.glue_tokens) for row in got.rows]
    return RepairCollected(got.batch, [e.final.hidden for e in episodes], episodes, skipped, no_hidden,
                           got.gen_seconds, got.gen_tokens, rules)


def collect_episodes(model, tokenizer, tasks: Sequence[Task], sandbox, gen: Generation, limits: Limits | None,
                     repair: RepairConfig, *, max_prompt_tokens: int | None = None,
                     max_sequence_tokens: int | None = None, log: Callable[[str], None] | None = None,
                     on_chunk: Callable | None = None):
    """The collector training and evaluation both choose through: repair episodes (`collect_repair`) with
    `repair.on`, else one answer per row (`collect`; `on_chunk` is its, repair episodes are reported whole)."""
    if repair.on:
        return collect_repair(model, tokenizer, tasks, sandbox, gen, limits, repair,
                              max_prompt_tokens=max_prompt_tokens, max_sequence_tokens=max_sequence_tokens, log=log)
    return collect(model, tokenizer, tasks, sandbox, gen, limits, max_prompt_tokens=max_prompt_tokens, log=log,
                   on_chunk=on_chunk)


def _run(sandbox, task: Task, tests: tuple, completion: str, limits):
    """The future of `completion` run on `tests` only (None when there are none)."""
    return sandbox.submit(task.with_tests(tests).build_request(completion, limits)) if tests else None
