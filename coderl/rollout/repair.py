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

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import torch
from torch.nn.utils.rnn import pad_sequence

from coderl.rollout.batching import left_pad
from coderl.rollout.collect import Generation, RepairConfig, collect
from coderl.rollout.feedback import feedback_message, warn_unless_isolated
from coderl.rollout.formats import get_format, prompt_text
from coderl.rollout.types import RolloutBatch, Sample
from coderl.sandbox.types import ExecutionResult, Limits
from coderl.tasks.types import Task
from coderl.tasks.visibility import TestSplit, split_tests

_SENTINEL = "\ue000coderl-answer\ue000"  # a private-use character no template rewrites


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


@dataclass
class _Row:
    task: Task
    split: TestSplit
    group: int
    messages: list  # the conversation so far, as chat messages (the assistant answers as decoded text)
    ids: list[int]  # every token id so far, the first prompt included
    text: str  # the same as text
    prompt_length: int
    segments: list = field(default_factory=list)  # (ids, logprobs or None for feedback, turn)
    episode: Episode | None = None
    futures: list = field(default_factory=list)  # per turn: (visible future or None, hidden future)
    eos: str = ""  # the special token the last answer ended with ("" when a stop sequence or the cap ended it)


def turn_glue(tokenizer, messages: list, feedback: str, ended_with: str | None) -> str:
    """The text between an answer and the next answer: the template's end of the assistant turn, the
    feedback as a user message, and the next assistant header.  `ended_with`: the special token the
    answer already ended with (its EOS), which the glue then does not repeat."""
    answer = {"role": "assistant", "content": _SENTINEL}
    closed = tokenizer.apply_chat_template(messages + [answer], tokenize=False)
    opened = tokenizer.apply_chat_template(messages + [answer, {"role": "user", "content": feedback}],
                                           tokenize=False, add_generation_prompt=True)
    if closed.count(_SENTINEL) != 1 or not opened.startswith(closed):
        raise ValueError("multi-turn repair needs a chat template that renders a conversation by appending "
                         "turns (this one rewrites earlier turns)")
    end_of_answer = closed[closed.index(_SENTINEL) + len(_SENTINEL):]
    if ended_with and end_of_answer.startswith(ended_with):
        end_of_answer = end_of_answer[len(ended_with):]
    return end_of_answer + opened[len(closed):]


def collect_repair(model, tokenizer, tasks: Sequence[Task], sandbox, gen: Generation, limits: Limits | None,
                   repair: RepairConfig, *, max_prompt_tokens: int | None = None,
                   max_sequence_tokens: int | None = None,
                   log: Callable[[str], None] | None = None) -> RepairCollected:
    """Roll out one repair episode per row (`gen.samples_per_prompt` rows per task with hidden tests)."""
    from coderl.rollout.engine import Sampling
    from coderl.rollout.generation import engine_of, to_sample

    warn_unless_isolated(sandbox, "multi-turn repair")
    fmt = get_format(gen.format)
    room = max_sequence_tokens or getattr(getattr(model, "config", None), "max_position_embeddings", None)
    rows, skipped, no_hidden, rules = [], [], [], {}
    for index, task in enumerate(tasks):
        split = split_tests(task)
        rules[task.task_id] = split.rule
        if not split.has_hidden:
            no_hidden.append(task.task_id)
            continue
        messages = fmt.render(task, tokenizer)
        if isinstance(messages, str):
            raise ValueError(f"multi-turn repair needs a chat format (format {gen.format!r} renders plain text)")
        text = prompt_text(messages, tokenizer)
        ids = tokenizer(text, add_special_tokens=False)["input_ids"]
        if max_prompt_tokens is not None and len(ids) > max_prompt_tokens:
            skipped.append(task.task_id)
            continue
        rows += [_Row(task, split, index, list(messages), list(ids), text, len(ids),
                      episode=Episode(task.task_id, index)) for _ in range(gen.samples_per_prompt)]

    def count_tokens(text: str) -> int:
        return len(tokenizer(text, add_special_tokens=False)["input_ids"])

    gen_seconds, gen_tokens = 0.0, 0
    active = list(rows)
    planned = max(gen.planned_tokens or 0, len(rows) * repair.turns * gen.max_new_tokens)  # at most
    engine = engine_of(model).for_calls(gen.batch_size, planned)
    for turn in range(repair.turns):
        if not active:
            break
        per_call = gen.batch_size or len(active)
        for c in range(0, len(active), per_call):
            chunk = active[c: c + per_call]
            stops = [tuple(gen.stop) if gen.stop is not None else fmt.stop_sequences(r.task) for r in chunk]
            t0 = time.perf_counter()
            sampling = Sampling(max_new_tokens=gen.max_new_tokens, temperature=gen.temperature, top_p=gen.top_p,
                                seed=gen.seed + 1_000_003 * turn + c, min_new_tokens=gen.min_new_tokens)
            sampled = engine.sample_rows(tokenizer, [r.ids for r in chunk], stops, sampling)
            gen_seconds += time.perf_counter() - t0
            for row, got, row_stops in zip(chunk, sampled, stops):
                gen_tokens += len(got.ids)
                sample = to_sample(fmt, tokenizer, row.task, row.group, row.text, got, row_stops)
                row.segments.append((list(got.ids), got.logprobs, turn))
                row.ids += got.ids
                row.text += got.text
                row.messages.append({"role": "assistant", "content": got.text})
                row.episode.turns.append(Turn(sample, None))
                row.futures.append((_run(sandbox, row.task, row.split.visible, sample.completion, limits),
                                    _run(sandbox, row.task, row.split.hidden, sample.completion, limits)))
                row.eos = tokenizer.decode(got.ids[-1:], skip_special_tokens=False) if got.eos else ""
        if log is not None:
            log(f"turn {turn + 1}: {len(active)} answers ({gen_tokens / max(gen_seconds, 1e-9):.0f} tokens/s)")
        going = []
        for row in active:
            visible_future, _ = row.futures[-1]
            last = row.episode.turns[-1]
            last.visible = visible_future.result() if visible_future is not None else None
            if turn + 1 >= repair.turns or last.visible is None or last.visible.passed:
                continue
            message = feedback_message(row.task, row.split.visible, last.visible, count_tokens=count_tokens,
                                       max_tokens=repair.feedback_tokens)
            glue = turn_glue(tokenizer, row.messages[:-1], message, row.eos or None)
            glue_ids = tokenizer(glue, add_special_tokens=False)["input_ids"]
            if room is not None and len(row.ids) + len(glue_ids) + gen.max_new_tokens > room:
                row.episode.out_of_room = True
                continue
            last.feedback, last.added_tokens = message, len(glue_ids)
            row.messages.append({"role": "user", "content": message})
            row.segments.append((glue_ids, None, -1))
            row.ids += glue_ids
            row.text += glue
            going.append(row)
        active = going
    for row in rows:
        for turn, (_, hidden) in zip(row.episode.turns, row.futures):
            turn.hidden = hidden.result()
    batch = _assemble(rows, engine.pad_token_id(tokenizer)) if rows else None
    return RepairCollected(batch, [r.episode.final.hidden for r in rows], [r.episode for r in rows],
                           skipped, no_hidden, gen_seconds, gen_tokens, rules)


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


def _assemble(rows: list[_Row], pad_id: int) -> RolloutBatch:
    """One row per episode: the first prompt left-padded, then its turns and feedback right-padded."""
    def pad(part, value) -> torch.Tensor:
        """[N, T]: per row, `part(ids, logprobs, turn)` of each of its segments joined, right-padded with `value`."""
        return pad_sequence([torch.cat([part(*segment) for segment in r.segments]) for r in rows], batch_first=True,
                            padding_value=value)

    # a segment with log-probs is a turn's answer (the policy's tokens); one without is feedback (attended only)
    completion_ids = pad(lambda ids, lp, turn: torch.tensor(ids, dtype=torch.long), pad_id)
    attention = pad(lambda ids, lp, turn: torch.ones(len(ids), dtype=torch.float32), 0.0)
    mask = pad(lambda ids, lp, turn: torch.full((len(ids),), float(lp is not None), dtype=torch.float32), 0.0)
    logprobs = pad(lambda ids, lp, turn: torch.zeros(len(ids), dtype=torch.float32) if lp is None else lp.float(), 0.0)
    turns = pad(lambda ids, lp, turn: torch.full((len(ids),), -1 if lp is None else turn, dtype=torch.long), -1)
    return RolloutBatch(
        samples=[r.episode.final.sample for r in rows],
        prompt_ids=left_pad([r.ids[:r.prompt_length] for r in rows], pad_id)[0],
        prompt_lengths=torch.tensor([r.prompt_length for r in rows], dtype=torch.long),
        completion_ids=completion_ids,
        mask=mask,
        logprobs=logprobs,
        group_ids=torch.tensor([r.group for r in rows], dtype=torch.long),
        attention_mask=attention,
        turns=turns,
    )
