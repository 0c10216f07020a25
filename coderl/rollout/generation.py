"""Generation behind one interface, whatever samples (`--engine hf|vllm`, `rollout.engine`): a task's prompt
rendered by its format (`rollout.formats`), tokenised, its rows sampled by the engine, each row cut at its stops and
extracted, and the rows gathered into a `RolloutBatch`.

    generate(model, tokenizer, tasks, format="chat", samples_per_prompt=8, temperature=1.0) -> RolloutBatch
    sample_rows(model, tokenizer, prompt_ids, stops, Sampling(max_new_tokens=...)) -> [SampledRow]   (repair turns)

`model` is an HF model or an `Engine` (`engine_of`, the one place that tells them apart): an HF model is sampled in
this process (`rollout.hf_engine.HFEngine`: coderl's own processors, stops and log-prob capture) with the `HFOptions`
given (`hf=`), an engine of its own (vLLM, `rollout.vllm_engine`) samples the rows itself and takes none.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import torch
from torch.nn.utils.rnn import pad_sequence

from coderl.rollout.batching import left_pad
from coderl.rollout.engine import Engine, Sampling
from coderl.rollout.formats import cut_at_stop, get_format, prompt_text
from coderl.rollout.hf_config import HFOptions
from coderl.rollout.hf_engine import HFEngine
from coderl.rollout.types import RolloutBatch, Sample, SampledRow
from coderl.tasks.types import Task


def engine_of(model: Any, hf: HFOptions | None = None) -> Engine:
    """The engine that samples for `model`: itself when it is an `Engine` already (vLLM's, or one made here), else
    the HF model sampled in this process with `hf` (its defaults when None).  HF options given with an engine of its
    own are refused (it would ignore them)."""
    if isinstance(model, Engine):
        if hf is not None:
            raise ValueError(f"{type(model).__name__}: HF generation options ({hf}) do not apply to it")
        return model
    return HFEngine(model, hf)


def to_sample(fmt, tokenizer: Any, task: Task, group: int, prompt: str, row: SampledRow,
              stops: Sequence[str]) -> Sample:
    """The `Sample` of a sampled row: its text extracted by the format, which cuts at its own stops (the chat stop is
    a closing fence, part of the block it extracts); only extra stops given by the caller are cut here."""
    extra = tuple(s for s in stops if s not in fmt.stop_sequences(task))
    extraction = fmt.extract(task, cut_at_stop(row.text, extra) if extra else row.text)
    return Sample(task_id=task.task_id, group=group, prompt=prompt, raw_output=row.text,
                  completion=extraction.completion, gen_tokens=tuple(row.ids),
                  code_tokens=tuple(tokenizer(extraction.completion, add_special_tokens=False)["input_ids"]),
                  truncated=not row.ended, format_ok=extraction.format_ok)


def sample_rows(model: Any, tokenizer: Any, prompt_ids: list[list[int]], stops: list[tuple[str, ...]],
                sampling: Sampling, hf: HFOptions | None = None) -> list[SampledRow]:
    """Sample one continuation of each row of token ids (`generate` without the prompt format: the multi-turn
    collector continues conversations it has tokenised itself)."""
    return engine_of(model, hf).sample_rows(tokenizer, prompt_ids, stops, sampling)


def generate(
    model: Any,
    tokenizer: Any,
    tasks: Sequence[Task],
    *,
    format: str = "completion",
    samples_per_prompt: int = 1,
    max_new_tokens: int = 256,
    temperature: float = 0.0,
    top_p: float = 1.0,
    seed: int = 0,
    stop: Sequence[str] | None = None,
    min_new_tokens: int | None = None,
    hf: HFOptions | None = None,
) -> RolloutBatch:
    """Sample `samples_per_prompt` completions for each task (rows task-major; group id = task index).
    `model`: an HF model, sampled in this process by `rollout.hf_engine.HFEngine` with `hf` (`HFOptions`: rows per call,
    shared prefills, compaction, static cache; its defaults when None), or an `Engine` (vLLM; `hf` refused).

    format: a name in `coderl.rollout.formats.FORMATS` (how prompts are rendered and outputs extracted).
    temperature: 0 = greedy; otherwise sampling from softmax(logits / temperature).
    top_p: nucleus sampling threshold (sampling only); does not change the returned log-probs.
    stop: stop sequences searched in the generated text; None = the format's defaults, [] = none.
    min_new_tokens: EOS is forbidden before this many tokens (stop sequences still apply).
    """
    if not tasks:
        raise ValueError("generate: no tasks")
    if samples_per_prompt < 1 or max_new_tokens < 1:  # HFOptions checks its own fields
        raise ValueError("generate: samples_per_prompt and max_new_tokens must be >= 1")
    if temperature < 0 or not 0.0 < top_p <= 1.0:
        raise ValueError(f"generate: need temperature >= 0 and 0 < top_p <= 1 (got {temperature}, {top_p})")
    fmt = get_format(format)
    rendered = [fmt.render(task, tokenizer) for task in tasks]
    texts = [prompt_text(r, tokenizer) for r in rendered]
    # A chat template already wrote the special tokens it wants; a raw prompt gets the tokenizer's (BOS).
    prompt_ids = [tokenizer(text, add_special_tokens=isinstance(r, str))["input_ids"]
                  for text, r in zip(texts, rendered)]
    for task, ids in zip(tasks, prompt_ids):
        if not ids:
            raise ValueError(f"generate: task {task.task_id}: the prompt is empty")
    stops = [tuple(stop) if stop is not None else fmt.stop_sequences(task) for task in tasks]
    rows = [t for t in range(len(tasks)) for _ in range(samples_per_prompt)]
    engine = engine_of(model, hf)
    sampling = Sampling(max_new_tokens=max_new_tokens, temperature=temperature, top_p=top_p, seed=seed,
                        min_new_tokens=min_new_tokens)
    sampled = engine.sample_rows(tokenizer, [prompt_ids[t] for t in rows], [stops[t] for t in rows], sampling)
    pad_id = engine.pad_token_id(tokenizer)

    samples = [to_sample(fmt, tokenizer, tasks[t], t, texts[t], row, stops[t]) for t, row in zip(rows, sampled)]
    return RolloutBatch(
        samples=samples,
        prompt_ids=left_pad([prompt_ids[t] for t in rows], pad_id)[0],
        prompt_lengths=torch.tensor([len(prompt_ids[t]) for t in rows], dtype=torch.long),
        completion_ids=pad_sequence([torch.tensor(row.ids, dtype=torch.long) for row in sampled], batch_first=True,
                                    padding_value=pad_id),
        mask=pad_sequence([torch.ones(len(row.ids), dtype=torch.float32) for row in sampled], batch_first=True),
        logprobs=pad_sequence([row.logprobs for row in sampled], batch_first=True),
        group_ids=torch.tensor(rows, dtype=torch.long),
    )
