"""Which engine samples (`--engine hf|vllm`; docs/engines.md): `hf`, the model itself in this process
(`rollout.hf_engine.HFEngine`), or `vllm`, a `VLLMEngine` in a process of its own (`rollout.vllm_engine`).  Wherever a
collector takes `model` it takes either: `rollout.generation.engine_of` is the one place that tells them
apart, and from there every caller speaks to an `Engine`.

    engine = engine_of(model)                                   # an HF model: HFEngine(model, HFOptions())
    rows = engine.sample_rows(tokenizer, prompt_ids, stops, Sampling(max_new_tokens=128, temperature=0.8))

What every engine samples with is a `Sampling`; what only one engine has (the HF engine's rows per call, shared
prefills, compaction, static cache) is a typed object of that engine's own (`rollout.hf_config.HFOptions`), which the
engine holds: no caller hands an engine keywords it would have to ignore.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

ENGINES = ("hf", "vllm")
ENGINE_LOG = "engine.log"  # in a run directory: the output of an engine of its own
ENGINE_CHUNK = 256  # rows per chunk a collection hands an engine of its own (vLLM) when no batch size is set


@dataclass(frozen=True)
class Sampling:
    """How every engine samples a row: up to `max_new_tokens`, from softmax(logits / temperature) (0: greedy) within
    the top-p nucleus, EOS forbidden before `min_new_tokens`; `seed` seeds the draw (row by row on vLLM)."""

    max_new_tokens: int
    temperature: float = 0.0
    top_p: float = 1.0
    seed: int = 0
    min_new_tokens: int | None = None


class Engine:
    """A generation engine: `sample_rows` samples one continuation of each row of token ids.  This base is an
    engine of its own (vLLM): it batches continuously and compiles nothing, so a collection's chunks only overlap
    the sandbox (`ENGINE_CHUNK` rows when no batch size is set) and every call is the same to it."""

    def sample_rows(self, tokenizer: Any, prompt_ids: list[list[int]], stops: list[tuple[str, ...]],
                    sampling: Sampling) -> list:
        raise NotImplementedError

    def pad_token_id(self, tokenizer: Any) -> int:
        """The id a batch's rows are padded with."""
        from coderl.rollout.special_ids import pad_token_id

        return pad_token_id(self, tokenizer)

    def chunk_rows(self, rows: int, max_tokens: int) -> int:
        """Rows per chunk of a collection of `rows` rows of up to `max_tokens` tokens, when the caller sets none."""
        return ENGINE_CHUNK

    def for_calls(self, batch_size: int | None, planned_tokens: int | None) -> Engine:
        """This engine for calls of up to `batch_size` rows (None: its own choice) out of a caller's work of
        `planned_tokens` rows x tokens; an engine of its own batches continuously and compiles nothing: itself."""
        return self

    def for_episodes(self) -> Engine:
        """This engine for one collection of episodes (`rollout.episodes`), whose every call continues rows of the
        calls before it; an engine of its own caches prefixes itself (vLLM's prefix caching): itself."""
        return self

    def retain(self, going: list[list[int]]) -> None:
        """The episodes that go on (their ids so far): what `for_episodes` kept for the others may go."""

    def chunks(self, tasks: int, rows_per_task: int, batch_size: int, max_new_tokens: int,
               planned_tokens: int) -> tuple[list[int], Engine]:
        """Where a collection's chunks of `batch_size` rows start (`batching.chunk_bounds`), then the end, and the
        engine that generates them: for an engine of its own, plain chunks and itself (`planned_tokens`, the
        caller's whole work, only matters where generation compiles: `rollout.hf_engine.HFEngine.chunks`)."""
        from coderl.rollout.batching import chunk_bounds  # torch: this module stays light (the CLI reads ENGINES)

        return chunk_bounds(tasks, max(1, batch_size // rows_per_task), balanced=False), self
