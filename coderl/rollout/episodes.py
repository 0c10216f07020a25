"""The one episode collector: the model and an environment take turns, on the exact token ids the engine generated.
Repair (`rollout.repair`: feedback from the visible tests) and the repository agent (`rollout.agent`: shell commands
in the task's working copy) are two environments of it; both train and evaluate through it.

    envs = [MyEnvironment(...) for ...]                      # each: prompt, reset, step, finish (below)
    got = run_episodes(model, tokenizer, envs, groups, gen, max_sequence_tokens=2048)
    got.rows[i].segments   (ids, logprobs or None, turn): the replies the engine generated, then the observation
                           glue (the template's end of the reply, the observation message, the next header)
    got.rows[i].end        the environment's step that ended the episode (its reason: the environment's own, or
                           `context` when the next turn would not fit, or `turns` at the collector's turn cap)

An environment (duck-typed; see `Environment`):
* `prompt(tokenizer) -> (messages, text)`: the first chat messages and the prompt text (the template applied: an
  agent's tools rendered into it); pure, so a prompt too long is skipped before anything runs;
* `reset()`: make the episode's state (a sandbox working copy); called once the row is kept;
* `step(text) -> step` with `.observation`, `.done`, `.reason`: the reply acted on;
* `finish(reason) -> step`: end it now (out of context or turns): what is graded then is the environment's rule;
* `sample(tokenizer, prompt, row, stops) -> Sample`, `stops() -> tuple`, `observation_role` ("user" or "tool"),
  `tools` (what the template renders into every prompt, or None).

Token bookkeeping (docs/agents.md, "Exact tokens"): every reply is kept as the ids the engine sampled, with their
log-probs; the observation between two replies is the text the chat template puts there (`turn_glue`), tokenised
once and attended but never trained (its segment has no log-probs: `mask` 0); the next turn's prompt is the previous
prompt, the reply's ids and the glue's ids, so it extends the previous one by construction. A template that renders a
conversation other than by appending turns is refused (`turn_glue`). Steps of the environments of one turn run in
parallel threads (the sandbox client is thread-safe); generation is batched across rows.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Protocol

import torch
from torch.nn.utils.rnn import pad_sequence

from coderl.rollout.batching import left_pad
from coderl.rollout.types import RolloutBatch, Sample, Step

_SENTINEL = "\ue000coderl-answer\ue000"  # a private-use character no template rewrites


class Environment(Protocol):
    observation_role: str
    tools: list | None  # the tools the chat template renders (an agent's templated tool-call format), or None

    def prompt(self, tokenizer: Any) -> tuple[list, str]: ...

    def reset(self) -> None: ...

    def step(self, text: str) -> Step: ...

    def finish(self, reason: str) -> Step: ...

    def stops(self) -> tuple[str, ...]: ...

    def sample(self, tokenizer: Any, prompt: str, row: Any, stops: Sequence[str]) -> Sample: ...


@dataclass
class EpisodeRow:
    env: Any
    group: int  # the index of its task: the rows of one task form a group
    messages: list  # the conversation so far (replies as decoded text)
    ids: list[int]  # every token id so far, the first prompt included
    text: str  # the same, as text
    prompt_length: int
    segments: list = field(default_factory=list)  # (ids, logprobs or None for observations, turn)
    samples: list = field(default_factory=list)  # per reply, its `Sample` (prompt = the conversation it continued)
    steps: list = field(default_factory=list)  # per reply, the environment's step
    glue_tokens: list = field(default_factory=list)  # per reply, tokens added after it (0 when it ended the episode)
    end: Any = None  # the step that ended the episode
    out_of_room: bool = False  # ended because the next turn would not fit in max_sequence_tokens
    eos: str = ""  # the special token the last reply ended with ("" when a stop sequence or the cap ended it)


@dataclass
class EpisodesCollected:
    rows: list[EpisodeRow]  # the rows rolled out
    skipped: list[int]  # indices (into `envs`) whose first prompt was longer than max_prompt_tokens
    batch: RolloutBatch | None  # one row per episode (None: no row)
    gen_seconds: float
    gen_tokens: int


def turn_glue(tokenizer, messages: list, observation: dict, ended_with: str | None, tools: list | None = None) -> str:
    """The text between a reply and the next reply: the template's end of the assistant turn, the observation
    message (`{"role": "user" | "tool", "content": ...}`), and the next assistant header.  `ended_with`: the special
    token the reply already ended with (its EOS), which the glue then does not repeat; `tools`: what the prompt
    rendered (`rollout.tool_calls.TOOLS`), rendered here too so both renderings share their system prompt."""
    answer = {"role": "assistant", "content": _SENTINEL}
    closed = tokenizer.apply_chat_template(messages + [answer], tools=tools, tokenize=False)
    opened = tokenizer.apply_chat_template(messages + [answer, observation], tools=tools, tokenize=False,
                                           add_generation_prompt=True)
    if closed.count(_SENTINEL) != 1 or not opened.startswith(closed):
        raise ValueError("a multi-turn episode needs a chat template that renders a conversation by appending "
                         "turns (this one rewrites earlier turns)")
    end_of_answer = closed[closed.index(_SENTINEL) + len(_SENTINEL):]
    if ended_with and end_of_answer.startswith(ended_with):
        end_of_answer = end_of_answer[len(ended_with):]
    return end_of_answer + opened[len(closed):]


def run_episodes(model, tokenizer, envs: Sequence[Any], groups: Sequence[int], gen, *, max_turns: int,
                 max_prompt_tokens: int | None = None, max_sequence_tokens: int | None = None,
                 threads: int = 8, log: Callable[[str], None] | None = None) -> EpisodesCollected:
    """Roll out one episode per environment (`groups[i]`: its task's index).  Each turn the active rows generate
    (`gen.batch_size` rows a call, seeded `gen.seed + 1_000_003 * turn + c` for the call starting at row c), every
    reply is stepped, and the rows whose episode goes on get the observation's glue.  At most `max_turns` replies a
    row (the environment ends it first as a rule)."""
    from coderl.rollout.engine import Engine, Sampling
    from coderl.rollout.generation import engine_of

    # a row holds for sure at most `max_sequence_tokens`, never more than an engine of its own holds (vLLM's
    # max_model_len, its `config.max_position_embeddings`: a longer row is an error there); an HF model's positions
    # only bound the turns (a row may pass them)
    positions = getattr(getattr(model, "config", None), "max_position_embeddings", None)
    bound = min(max_sequence_tokens or positions, positions) if isinstance(model, Engine) and positions \
        else max_sequence_tokens
    room = bound or positions
    if max_prompt_tokens is None and bound is not None:  # a first prompt with no room for a reply is skipped (the
        max_prompt_tokens = bound - gen.max_new_tokens   # caller reports it), never rolled out
    rows: list[EpisodeRow] = []
    skipped: list[int] = []
    for index, (env, group) in enumerate(zip(envs, groups)):
        messages, text = env.prompt(tokenizer)
        ids = tokenizer(text, add_special_tokens=False)["input_ids"]
        if max_prompt_tokens is not None and len(ids) > max_prompt_tokens:
            skipped.append(index)
            continue
        rows.append(EpisodeRow(env, group, list(messages), list(ids), text, len(ids)))
    gen_seconds, gen_tokens = 0.0, 0
    planned = max(gen.planned_tokens or 0, len(rows) * max_turns * gen.max_new_tokens)  # at most
    engine = engine_of(model).for_calls(gen.batch_size, planned).for_episodes()  # a turn runs only what it adds
    with ThreadPoolExecutor(max_workers=max(1, threads), thread_name_prefix="coderl-episode") as pool:
        list(pool.map(lambda r: r.env.reset(), rows))
        active = list(rows)
        for turn in range(max_turns):
            if not active:
                break
            per_call = gen.batch_size or len(active)
            for c in range(0, len(active), per_call):
                chunk = active[c: c + per_call]
                stops = [tuple(gen.stop) if gen.stop is not None else r.env.stops() for r in chunk]
                t0 = time.perf_counter()
                sampling = Sampling(max_new_tokens=gen.max_new_tokens, temperature=gen.temperature, top_p=gen.top_p,
                                    seed=gen.seed + 1_000_003 * turn + c, min_new_tokens=gen.min_new_tokens)
                sampled = engine.sample_rows(tokenizer, [r.ids for r in chunk], stops, sampling)
                gen_seconds += time.perf_counter() - t0
                for row, got, row_stops in zip(chunk, sampled, stops):
                    gen_tokens += len(got.ids)
                    row.samples.append(row.env.sample(tokenizer, row.text, got, row_stops))
                    row.segments.append((list(got.ids), got.logprobs, turn))
                    row.ids += got.ids
                    row.text += got.text
                    row.messages.append({"role": "assistant", "content": got.text})
                    row.eos = tokenizer.decode(got.ids[-1:], skip_special_tokens=False) if got.eos else ""
            if log is not None:
                log(f"turn {turn + 1}: {len(active)} replies ({gen_tokens / max(gen_seconds, 1e-9):.0f} tokens/s)")
            steps = list(pool.map(lambda r: r.env.step(r.samples[-1].raw_output), active))
            going, ending = [], []
            for row, step in zip(active, steps):
                row.steps.append(step)
                row.glue_tokens.append(0)
                if step.done:
                    row.end = step
                    continue
                if turn + 1 >= max_turns:
                    ending.append((row, "turns"))
                    continue
                observation = {"role": row.env.observation_role, "content": step.observation}
                glue = turn_glue(tokenizer, row.messages[:-1], observation, row.eos or None, row.env.tools)
                glue_ids = tokenizer(glue, add_special_tokens=False)["input_ids"]
                if room is not None and len(row.ids) + len(glue_ids) + gen.max_new_tokens > room:
                    row.out_of_room = True
                    ending.append((row, "context"))
                    continue
                row.glue_tokens[-1] = len(glue_ids)
                row.messages.append(observation)
                row.segments.append((glue_ids, None, -1))
                row.ids += glue_ids
                row.text += glue
                going.append(row)
            for (row, _), end in zip(ending, pool.map(lambda pair: pair[0].env.finish(pair[1]), ending)):
                row.end = end
            active = going
            engine.retain([r.ids for r in going])
    batch = assemble(rows, [r.samples[-1] for r in rows], engine.pad_token_id(tokenizer)) if rows else None
    return EpisodesCollected(rows, skipped, batch, gen_seconds, gen_tokens)


def assemble(rows: list, samples: list[Sample], pad_id: int) -> RolloutBatch:
    """One row per episode: the first prompt left-padded, then its replies and observations right-padded.  `rows`:
    each with `.ids` (the first `.prompt_length` the prompt), `.segments` and `.group`; `samples`: row i's `Sample`."""
    def pad(part, value) -> torch.Tensor:
        """[N, T]: per row, `part(ids, logprobs, turn)` of each of its segments joined, right-padded with `value`."""
        return pad_sequence([torch.cat([part(*segment) for segment in r.segments]) for r in rows], batch_first=True,
                            padding_value=value)

    # a segment with log-probs is a reply (the policy's tokens); one without is an observation (attended only)
    completion_ids = pad(lambda ids, lp, turn: torch.tensor(ids, dtype=torch.long), pad_id)
    attention = pad(lambda ids, lp, turn: torch.ones(len(ids), dtype=torch.float32), 0.0)
    mask = pad(lambda ids, lp, turn: torch.full((len(ids),), float(lp is not None), dtype=torch.float32), 0.0)
    logprobs = pad(lambda ids, lp, turn: torch.zeros(len(ids), dtype=torch.float32) if lp is None else lp.float(), 0.0)
    turns = pad(lambda ids, lp, turn: torch.full((len(ids),), -1 if lp is None else turn, dtype=torch.long), -1)
    return RolloutBatch(
        samples=list(samples),
        prompt_ids=left_pad([r.ids[:r.prompt_length] for r in rows], pad_id)[0],
        prompt_lengths=torch.tensor([r.prompt_length for r in rows], dtype=torch.long),
        completion_ids=completion_ids,
        mask=mask,
        logprobs=logprobs,
        group_ids=torch.tensor([r.group for r in rows], dtype=torch.long),
        attention_mask=attention,
        turns=turns,
    )
