"""Generation behind one interface, whatever samples (`--engine hf|vllm`, `rollout.engine`): a task's prompt
rendered by its format (`rollout.formats`), tokenised, its rows sampled, each row cut at its stops and
extracted, and the rows gathered into a `RolloutBatch`.

    generate(model, tokenizer, tasks, format="chat", samples_per_prompt=8, temperature=1.0) -> RolloutBatch
    sample_rows(model, tokenizer, prompt_ids, stops, max_new_tokens=...) -> [SampledRow]   (the repair turns)

Only the sampling differs between engines: an HF model is sampled in this process (`rollout.generation.sample_rows`:
coderl's own processors, stops and log-prob capture), a generation engine of its own (`is_engine`: vLLM,
`rollout.vllm_engine`) samples the rows itself and ignores the HF-only keywords.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import torch
from torch.nn.utils.rnn import pad_sequence

from coderl.rollout.batching import left_pad
from coderl.rollout.engine import is_engine
from coderl.rollout.formats import cut_at_stop, get_format, prompt_text
from coderl.rollout.hf_config import pad_token_id
from coderl.rollout.types import RolloutBatch, Sample, SampledRow
from coderl.tasks.types import Task


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


def sample_rows(model: Any, tokenizer: Any, prompt_ids: list[list[int]], stops: list[tuple[str, ...]], *,
                max_new_tokens: int, temperature: float = 0.0, top_p: float = 1.0, seed: int = 0,
                min_new_tokens: int | None = None, **hf_only: Any) -> list[SampledRow]:
    """Sample one continuation of each row of token ids (`generate` without the prompt format: the
    multi-turn collector continues conversations it has tokenised itself).  Arguments as `generate`; a
    generation engine of its own (`is_engine`: vLLM) samples the rows itself, without the HF-only keywords
    (`hf_only`: batch_size, share_prompts, compact_rows, static_cache, static_rows, planned_tokens, with
    `rollout.hf.sample_rows`'s defaults)."""
    options = dict(max_new_tokens=max_new_tokens, temperature=temperature, top_p=top_p, seed=seed,
                   min_new_tokens=min_new_tokens)
    if is_engine(model):
        return model.sample_rows(tokenizer, prompt_ids, stops, **options)
    from coderl.rollout import hf

    return hf.sample_rows(model, tokenizer, prompt_ids, stops, **options, **hf_only)


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
    batch_size: int | None = 16,
    stop: Sequence[str] | None = None,
    min_new_tokens: int | None = None,
    share_prompts: bool = True,
    compact_rows: int = 8,
    static_cache: bool | None = None,
    static_rows: int | None = None,
    planned_tokens: int | None = None,
) -> RolloutBatch:
    """Sample `samples_per_prompt` completions for each task (rows task-major; group id = task index).
    `model`: an HF model, sampled in this process (`rollout.hf`), or a generation engine (`rollout.engine`:
    vLLM), which ignores the HF-only keywords (batch_size, share_prompts, compact_rows, static_cache,
    static_rows, planned_tokens).

    format: a name in `coderl.rollout.formats.FORMATS` (how prompts are rendered and outputs extracted).
    temperature: 0 = greedy; otherwise sampling from softmax(logits / temperature).
    top_p: nucleus sampling threshold (sampling only); does not change the returned log-probs.
    stop: stop sequences searched in the generated text; None = the format's defaults, [] = none.
    min_new_tokens: EOS is forbidden before this many tokens (stop sequences still apply).
    batch_size: rows per `model.generate` call; outputs depend on it when sampling (RNG order).
        None = `fill_batch_size` (CPU: 16; CUDA: every row, up to 256 and the free memory).
    share_prompts: rows of a chunk that repeat a prompt share one prefill of it (`rollout.hf`).
    compact_rows: finished rows leave the batch (`rollout.hf`) while more than this many run; 0 = off.
    static_cache: decode with a static KV cache, compiled on CUDA (no compaction, no shared prefill);
        None = `use_static_cache` (on CUDA unless CODERL_STATIC_CACHE=off; never on CPU).
    static_rows: with a static cache, rows per call, shorter calls padded to it (`collect` gives its chunks
        one compiled shape); None = `hf_config.static_batch_rows`.
    planned_tokens: rows x max_new_tokens of the caller's whole run (an evaluation's rows, a training run's
        steps): a compilation is repaid over all of it (`hf_config.use_static_cache`); None = this call's.
    """
    if not tasks:
        raise ValueError("generate: no tasks")
    if samples_per_prompt < 1 or max_new_tokens < 1 or (batch_size is not None and batch_size < 1):
        raise ValueError("generate: samples_per_prompt, max_new_tokens and batch_size must be >= 1")
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
    sampled = sample_rows(model, tokenizer, [prompt_ids[t] for t in rows], [stops[t] for t in rows],
                          max_new_tokens=max_new_tokens, temperature=temperature, top_p=top_p, seed=seed,
                          batch_size=batch_size, min_new_tokens=min_new_tokens, share_prompts=share_prompts,
                          compact_rows=compact_rows, static_cache=static_cache, static_rows=static_rows,
                          planned_tokens=planned_tokens)
    pad_id = pad_token_id(model, tokenizer)

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
