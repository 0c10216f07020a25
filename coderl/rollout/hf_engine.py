"""The HF engine: an HF model sampled in this process (`rollout.hf`), behind the `Engine` every collector speaks
to (`rollout.engine`), laid out by its own `HFOptions` (`rollout.hf_config`).  `rollout.generation.engine_of`
wraps an HF model in one."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from coderl.rollout import hf
from coderl.rollout.batching import chunk_bounds
from coderl.rollout.engine import Engine, Sampling
from coderl.rollout.hf_config import HFOptions, fill_batch_size, static_batch_rows
from coderl.rollout.special_ids import pad_token_id
from coderl.rollout.turn_cache import TurnCache
from coderl.rollout.types import SampledRow


class HFEngine(Engine):
    """The HF model in this process, sampled with coderl's own processors, stops and log-prob capture, laid out
    by its `HFOptions`."""

    def __init__(self, model: Any, options: HFOptions | None = None, turns: TurnCache | None = None):
        self.model, self.options, self.turns = model, options or HFOptions(), turns

    def __repr__(self) -> str:
        return f"HFEngine({type(self.model).__name__}, {self.options})"

    def sample_rows(self, tokenizer: Any, prompt_ids: list[list[int]], stops: list[tuple[str, ...]],
                    sampling: Sampling) -> list[SampledRow]:
        return hf.sample_rows(self.model, tokenizer, prompt_ids, stops, sampling, self.options, self.turns)

    def pad_token_id(self, tokenizer: Any) -> int:
        return pad_token_id(self.model, tokenizer)

    def lockstep(self, tokenizer: Any, any_busy):
        """The context generation with this model, sharded across processes, runs in: in lockstep with the other
        processes (`hf.Lockstep`; `any_busy(flag)`: a collective every process calls, True when any passes True)."""
        return hf.lockstep(hf.Lockstep(self.model, tokenizer, any_busy))

    def chunk_rows(self, rows: int, max_tokens: int) -> int:
        """What fills the device: on a GPU every row at once, up to 256 (`fill_batch_size`); CPU 16."""
        return fill_batch_size(self.model, rows, max_tokens=max_tokens)

    def for_calls(self, batch_size: int | None, planned_tokens: int | None) -> HFEngine:
        return HFEngine(self.model, replace(self.options, batch_size=batch_size, planned_tokens=planned_tokens))

    def for_episodes(self) -> HFEngine:
        """This engine with a `TurnCache` of its own (`rollout.turn_cache`): each turn prefills only what it added
        to its row (unless `HFOptions.reuse_turns` is off)."""
        return HFEngine(self.model, self.options, TurnCache() if self.options.reuse_turns else None)

    def retain(self, going: list[list[int]]) -> None:
        if self.turns is not None:
            self.turns.retain(going)

    def chunks(self, tasks: int, rows_per_task: int, batch_size: int, max_new_tokens: int,
               planned_tokens: int) -> tuple[list[int], HFEngine]:
        """Where generation compiles (CUDA under the static-cache policy, `decodes_static`, decided on the caller's
        whole planned work), chunks of balanced sizes, every one padded to the largest one's rows: one compiled
        shape.  The engine returned samples them with these rows per call and that plan."""
        work = tasks * rows_per_task * max_new_tokens
        static = bool(tasks) and hf.decodes_static(self.model, self.options.static_cache, work, planned_tokens)
        bounds = chunk_bounds(tasks, max(1, batch_size // rows_per_task), balanced=static)
        static_rows = self.options.static_rows
        if static:
            largest = max(end - start for start, end in zip(bounds, bounds[1:]))
            static_rows = static_batch_rows(largest * rows_per_task, batch_size)
        return bounds, HFEngine(self.model, replace(self.options, batch_size=batch_size, planned_tokens=planned_tokens,
                                                    static_rows=static_rows))
