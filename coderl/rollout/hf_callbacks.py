"""What `generate` hands to transformers' `model.generate` while it decodes: the per-token log-prob
recorder (a LogitsProcessor), the stopping criteria (stop text, rows finished), and cutting a row at
its stop sequence or EOS."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import torch
from transformers import LogitsProcessor, StoppingCriteria

from coderl.rollout.formats import first_stop


class PolicyLogprobs(LogitsProcessor):
    """First logits processor: records log_softmax(raw logits / T) of each chosen token; changes nothing."""

    def __init__(self, temperature: float, prompt_length: int):
        self.temperature = temperature
        self.prompt_length = prompt_length  # padded prompt length: generated tokens start here
        self.current: torch.Tensor | None = None  # [B, V] log-probs of the step being sampled
        self.chosen: list[torch.Tensor] = []  # per generated step: [B] log-prob of the token drawn

    def __call__(self, input_ids: torch.LongTensor, scores: torch.FloatTensor) -> torch.FloatTensor:
        self._gather(input_ids)
        self.current = torch.log_softmax(scores.float() / self.temperature, dim=-1)
        return scores

    def _gather(self, ids: torch.Tensor) -> None:
        # `ids` holds every token drawn so far; gather the one drawn from `current`, if not yet done.
        if ids.shape[1] - self.prompt_length > len(self.chosen):
            self.chosen.append(self.current.gather(1, ids[:, -1:]).squeeze(1))

    def finish(self, sequences: torch.Tensor) -> torch.Tensor:
        """[B, steps] log-probs of `sequences[:, prompt_length:]` (the final sequences of generate)."""
        self._gather(sequences)
        steps = sequences.shape[1] - self.prompt_length
        # `generate` may run one step more than it returns (deferred stop checks on mps): drop it.
        return torch.stack(self.chosen[:steps], dim=1)


def decode(tokenizer: Any, ids: Sequence[int]) -> str:
    """Text of generated ids, special tokens (EOS, padding) dropped; the one decoding rule used for
    stop detection during generation, for cutting afterwards and for `Sample.raw_output`."""
    return tokenizer.decode(list(ids), skip_special_tokens=True)


class StopOnText(StoppingCriteria):
    """Stops a row once the decoded text of its generated tokens contains one of its stop sequences.

    carry: per row, the tokens it generated in earlier rounds (see `RowsFinished`), decoded in front
    of this round's so a stop that straddles two rounds is found."""

    def __init__(self, tokenizer: Any, prompt_length: int, stops: list[tuple[str, ...]],
                 carry: list[list[int]] | None = None):
        self.tokenizer = tokenizer
        self.prompt_length = prompt_length
        self.stops = stops  # per row
        self.carry = carry or [[] for _ in stops]
        self.done = [False] * len(stops)

    def __call__(self, input_ids: torch.LongTensor, scores: Any, **kwargs) -> torch.BoolTensor:
        for i, row_stops in enumerate(self.stops):
            if row_stops and not self.done[i]:
                text = decode(self.tokenizer, self.carry[i] + input_ids[i, self.prompt_length:].tolist())
                self.done[i] = first_stop(text, row_stops) is not None
        return torch.tensor(self.done, dtype=torch.bool, device=input_ids.device)


class RowsFinished(StoppingCriteria):
    """Ends the whole `generate` call once at most `leave` of its rows are still running, so those can
    continue in a smaller batch (`_generate_rows`); until then it only reports rows that emitted EOS.

    A decoding step costs roughly in proportion to the rows it carries (on CPU: batch 32 ~234 ms,
    batch 8 ~88 ms per step for the bundled model), and without this every row of a chunk keeps
    decoding padding until its longest row ends."""

    def __init__(self, eos_ids: list[int], stop: StopOnText | None, leave: int):
        self.eos = torch.tensor(eos_ids or [-1], dtype=torch.long)
        self.stop = stop
        self.leave = leave
        self.eos_seen: torch.Tensor | None = None  # [B] bool, latched: a row's EOS is followed by padding
        self.running: list[bool] | None = None  # per row, set when the call ends early: still running

    def __call__(self, input_ids: torch.LongTensor, scores: Any, **kwargs) -> torch.BoolTensor:
        last = torch.isin(input_ids[:, -1], self.eos.to(input_ids.device))  # called once per new token
        self.eos_seen = last if self.eos_seen is None else self.eos_seen | last
        done = self.eos_seen
        if self.stop is not None:
            done = done | torch.tensor(self.stop.done, dtype=torch.bool, device=input_ids.device)
        if 0 < int((~done).sum()) <= self.leave:
            self.running = (~done).tolist()
            return torch.ones_like(done)
        return done


def cut_generation(ids: Sequence[int], tokenizer: Any, stops: Sequence[str], eos_ids: set[int]) -> tuple[int, bool]:
    """(kept, ended) for one row of generated ids (which may be followed by padding).

    kept = number of tokens up to and including the first EOS token or the token whose decoding
    completes the first stop sequence (whichever comes first); ended = such a token was found.
    Without one, all ids are kept and ended is False (max_new_tokens was reached).
    """
    eos = next((i for i, t in enumerate(ids) if t in eos_ids), None)
    limit = len(ids) if eos is None else eos
    if stops and first_stop(decode(tokenizer, ids[:limit]), stops) is not None:
        # The smallest prefix whose text contains a stop: the step at which `StopOnText` fired.
        lo, hi = 1, limit
        while lo < hi:
            mid = (lo + hi) // 2
            if first_stop(decode(tokenizer, ids[:mid]), stops) is None:
                lo = mid + 1
            else:
                hi = mid
        return lo, True
    if eos is not None:
        return eos + 1, True
    return len(ids), False
