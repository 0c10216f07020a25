"""What `generate` hands to transformers' `model.generate` while it decodes: the per-token log-prob
recorder (a LogitsProcessor), the stopping criteria (stop text, rows finished), and cutting a row at
its stop sequence or EOS."""

from __future__ import annotations

import bisect
import json
import re
import weakref
from collections.abc import Sequence
from typing import Any

import torch
from transformers import LogitsProcessor, StoppingCriteria

from coderl.rollout.formats import ClosingFence, first_stop
from coderl.rollout.types import SampledRow


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


class DrawToken(LogitsProcessor):
    """Last logits processor when sampling: draws each row's token and marks it +inf in the scores, so
    `generate`, decoding greedily, picks it.

    The distribution is softmax of the scores the processors before it left: with `top_p` 1 that is the
    policy `capture` (PolicyLogprobs) already holds, exp(log_softmax(logits / T)), with the tokens an
    earlier processor set to -inf (the EOS ban) taken out -- no second temperature division and softmax
    over the vocabulary; under top-p the warped scores themselves.  The draw is by inverse CDF: one uniform
    per row against the cumulative sum of the probabilities (a token of probability 0 adds nothing to it
    and is never drawn).  It replaces HF's `torch.multinomial`, which on CPU draws an exponential variate
    for every entry of the [B, V] scores: 82 ms of a 370-ms decoding step of 64 rows x 49,152 tokens on 2
    cores (BENCHMARKS.md, "Where a decoding step goes").  Same distribution, another random stream (torch's
    global generator, which `sample_rows` seeds)."""

    def __init__(self, capture: PolicyLogprobs | None = None, *, banned: bool = True):
        self.capture = capture  # None: the distribution is softmax(scores)
        self.banned = banned  # a processor between `capture` and this one may set scores to -inf (the EOS ban)

    def __call__(self, input_ids: torch.LongTensor, scores: torch.FloatTensor) -> torch.FloatTensor:
        if self.capture is not None:
            probs = self.capture.current.exp()  # a score the model made -inf has probability 0 here already
            if self.banned:
                probs.masked_fill_(torch.isneginf(scores), 0.0)
        else:
            probs = torch.softmax(scores.float(), dim=-1)
        return scores.scatter_(1, draw(probs).unsqueeze(1), float("inf"))


def draw(probs: torch.Tensor) -> torch.Tensor:
    """[B] token ids drawn from [B, V] probabilities (each row's sum need not be 1), by inverse CDF."""
    cdf = probs.float().cumsum(dim=-1)
    u = torch.rand((probs.shape[0], 1), device=probs.device) * cdf[:, -1:]
    ids = torch.searchsorted(cdf, u, right=True).squeeze(1)
    over = ids >= probs.shape[1]  # u rounded up to the total: the last token of positive probability
    if bool(over.any()):
        ids[over] = probs.shape[1] - 1 - (probs[over] > 0).flip(-1).int().argmax(-1)
    return ids


def decode(tokenizer: Any, ids: Sequence[int]) -> str:
    """Text of generated ids, special tokens (EOS, padding) dropped; the one decoding rule used for
    stop detection during generation, for cutting afterwards and for `Sample.raw_output`."""
    return tokenizer.decode(list(ids), skip_special_tokens=True)


# --- stopping on text without decoding every step -------------------------------------------------
#
# A row's text can come to contain a stop only at a step whose token adds the stop's last character.
# For the decoders named in `_decoding` that is exact: the text after token t is the text before it
# plus t's piece (its decoding after a plain "a"), unless the piece is empty or holds U+FFFD (an
# incomplete UTF-8 byte sequence, completed or not by the next tokens), and such tokens are
# candidates too.  `_Vocab.table` is that rule as a [V + 1] boolean table (the last entry, for ids past
# the tokenizer's vocabulary, is True), so each step costs one lookup on the device and one read of
# [2, B] booleans, and only candidate rows are decoded: with byte-level BPE (`window`) only the tokens
# since the last clean split (`_RowText`), with other known decoders the row's whole text.  Any other
# tokenizer makes every token a candidate: its whole text every step, as before.

_VOCAB: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # tokenizer -> _Vocab
_SPLIT_DECODERS = ("ByteLevel",)  # text of ids[:k] + text of ids[k:] == text of ids when the former
# does not end in U+FFFD (and, with clean_up_tokenization_spaces, ends in a newline)
_PIECE_DECODERS = {"ByteLevel", "Metaspace", "Replace", "ByteFallback", "Fuse", "Strip"}


class _Vocab:
    """Per tokenizer: how it decodes (`window`, `table` or `every`), each token's piece, cached tables."""

    def __init__(self, tokenizer: Any):
        backend = getattr(tokenizer, "backend_tokenizer", None)
        kinds = _decoder_kinds(backend)
        self.mode = ("every" if not kinds or not kinds <= _PIECE_DECODERS else
                     "window" if kinds <= set(_SPLIT_DECODERS) else "table")
        self.cleanup = bool(getattr(tokenizer, "clean_up_tokenization_spaces", False))
        self.size = len(tokenizer)
        self.pieces: list[str | None] = []
        if self.mode != "every":
            prefix = tokenizer("a", add_special_tokens=False)["input_ids"]
            head = decode(tokenizer, prefix)
            pairs = [prefix + [i] for i in range(self.size)]
            texts = tokenizer.batch_decode(pairs, skip_special_tokens=True, clean_up_tokenization_spaces=False)
            self.pieces = [t[len(head):] if t.startswith(head) else None for t in texts]
        self.special = set(getattr(tokenizer, "all_special_ids", None) or [])
        self.tables: dict[tuple, torch.Tensor] = {}

    def table(self, chars: frozenset[str], device: torch.device) -> torch.Tensor:
        """[V + 1] bool on `device`: the token may complete a stop whose last character is in `chars`."""
        key = (chars, str(device))
        if key not in self.tables:
            cpu = self.tables.get((chars, "cpu"))
            if cpu is None:
                if self.mode == "every":
                    flags = [True] * self.size
                else:
                    rx = re.compile("[" + re.escape("".join(sorted(chars))) + "\ufffd]")
                    flags = [p is None or (p == "" and i not in self.special) or rx.search(p) is not None
                             for i, p in enumerate(self.pieces)]
                cpu = self.tables[(chars, "cpu")] = torch.tensor(flags + [True], dtype=torch.bool)
            self.tables[key] = cpu.to(device)
        return self.tables[key]


def _decoder_kinds(backend: Any) -> set[str]:
    try:
        spec = json.loads(backend.decoder.__getstate__())
    except Exception:  # no fast tokenizer, no decoder, an unreadable one: every token is a candidate
        return set()
    parts = spec.get("decoders", [spec]) if spec.get("type") == "Sequence" else [spec]
    return {str(p.get("type")) for p in parts}


def _vocab(tokenizer: Any) -> _Vocab:
    vocab = _VOCAB.get(tokenizer)
    if vocab is None or vocab.size != len(tokenizer):
        vocab = _VOCAB[tokenizer] = _Vocab(tokenizer)
    return vocab


class _RowText:
    """One row's stop search over the text decoded so far (`window` mode): `base` tokens are folded
    into `tail` (their text's last characters, as many as a plain stop needs to straddle) and the
    fence state (`line`: the text after the last newline; `inside`: a block is open before it)."""

    __slots__ = ("plain", "fence", "keep", "base", "tail", "line", "inside")

    def __init__(self, stops: Sequence[str]):
        self.plain = [s for s in stops if s and not isinstance(s, ClosingFence)]
        self.fence = any(isinstance(s, ClosingFence) for s in stops)
        self.keep = max((len(s) for s in self.plain), default=1) - 1
        self.base, self.tail, self.line, self.inside = 0, "", "", False

    def check(self, text: str, end: int, cleanup: bool) -> bool:
        """Whether the row's text, folded text + `text` (the tokens base..end), contains a stop, given
        that the text before this step's tokens did not.  Folds `text` in when it ends on a clean split."""
        if self.plain:
            recent = self.tail + text
            if any(s in recent for s in self.plain):
                return True
        if self.fence:
            at, inside, rest = ClosingFence.scan(self.line + text, self.inside)
            if at is not None:
                return True
        if not text or (text[-1] != "\ufffd" and (not cleanup or text[-1] == "\n")):
            self.base = end
            self.tail = (self.tail + text)[-self.keep:] if self.keep else ""
            if self.fence:
                self.line, self.inside = (self.line + text)[rest:], inside
        return False


class StopOnText(StoppingCriteria):
    """Stops a row once the decoded text of its generated tokens contains one of its stop sequences.

    Same rows, same steps as decoding every row's whole text after every step, but on the device: the
    step's tokens are looked up in a candidate table (see above), one [2, B] boolean read per step
    brings the candidates (and, with `eos_ids`, the rows that emitted EOS: they are not decoded again,
    and `RowsFinished` needs no read of its own) to the host, and only candidate rows are decoded.

    carry: per row, the tokens it generated in earlier rounds (see `RowsFinished`), decoded in front
    of this round's so a stop that straddles two rounds is found (their text holds no stop)."""

    def __init__(self, tokenizer: Any, prompt_length: int, stops: list[tuple[str, ...]],
                 carry: list[list[int]] | None = None, eos_ids: Sequence[int] | None = None):
        self.tokenizer = tokenizer
        self.prompt_length = prompt_length
        self.stops = stops  # per row
        self.carry = carry or [[] for _ in stops]
        self.eos_ids = list(eos_ids or [])
        self.done = [False] * len(stops)  # the row's text contains one of its stops
        self.ended = [False] * len(stops)  # the row emitted EOS (tracked with eos_ids)
        self.decoded = 0  # rows decoded so far
        self._vocab = _vocab(tokenizer)
        self._rows = [_RowText(s) for s in stops]
        self._seen = 0  # generated tokens already looked at
        self._table: torch.Tensor | None = None

    def _start(self, device: torch.device) -> None:
        chars = frozenset("\n" if isinstance(s, ClosingFence) else s[-1] for row in self.stops for s in row if s)
        self._table = self._vocab.table(chars, device)
        self._watch = torch.tensor([any(s) for s in self.stops], dtype=torch.bool, device=device)
        self._done = torch.zeros(len(self.stops), dtype=torch.bool, device=device)
        self._ended = torch.zeros_like(self._done)
        self._eos = torch.tensor(self.eos_ids, dtype=torch.long, device=device) if self.eos_ids else None

    @property
    def finished(self) -> torch.Tensor:
        """[B] bool on the device: stopped on text or emitted EOS."""
        return self._done | self._ended

    def __call__(self, input_ids: torch.LongTensor, scores: Any, **kwargs) -> torch.BoolTensor:
        if self._table is None:
            self._start(input_ids.device)
        first = self.prompt_length + self._seen
        new = input_ids[:, first:]  # one token per step inside `generate`
        self._seen = input_ids.shape[1] - self.prompt_length
        hit = self._table[new.clamp(max=self._table.numel() - 1)].any(1) & self._watch
        if self._eos is None:
            rows = [i for i, h in enumerate(hit.tolist()) if h]  # the step's one read
        else:
            eos = torch.isin(new, self._eos).any(1)
            flags = torch.stack([hit, eos]).tolist()  # the step's one read
            rows = [i for i, h in enumerate(flags[0]) if h]
            if any(flags[1]):
                self.ended = [a or b for a, b in zip(self.ended, flags[1])]
                self._ended = self._ended | eos
                self._watch = self._watch & ~eos
        if rows:
            stopped = self._check(rows, input_ids, first)
            if stopped:
                mask = torch.zeros(len(self.stops), dtype=torch.bool)
                mask[stopped] = True
                mask = mask.to(input_ids.device)
                self._done = self._done | mask
                self._watch = self._watch & ~mask
        return self._done

    def _check(self, rows: list[int], input_ids: torch.Tensor, first: int) -> list[int]:
        """Decode the candidate rows; the ones whose text now holds a stop."""
        window = self._vocab.mode == "window"
        # window: the tokens from each row's `base` on (`skip` of them fetched before it); else all of them
        skips = [max(self._rows[i].base - len(self.carry[i]), 0) if window else 0 for i in rows]
        lo = min(skips)
        index = torch.tensor(rows, dtype=torch.long, device=input_ids.device)
        fetched = input_ids.index_select(0, index)[:, self.prompt_length + lo:].tolist()
        stopped = []
        for i, ids, skip in zip(rows, fetched, skips):
            carry, state = self.carry[i], self._rows[i]
            self.decoded += 1
            if window:
                text = decode(self.tokenizer, carry[state.base:] + ids[skip - lo:])
                hit = state.check(text, len(carry) + self._seen, self._vocab.cleanup)
            else:
                hit = first_stop(decode(self.tokenizer, carry + ids), self.stops[i]) is not None
            if hit:
                self.done[i] = True
                stopped.append(i)
        return stopped


class RowsFinished(StoppingCriteria):
    """Ends the whole `generate` call once at most `leave` of its rows are still running, so those can
    continue in a smaller batch (`_generate_rows`); until then it only reports rows that emitted EOS.

    A decoding step costs roughly in proportion to the rows it carries (on CPU: batch 32 ~234 ms,
    batch 8 ~88 ms per step for the bundled model), and without this every row of a chunk keeps
    decoding padding until its longest row ends.  `stop` (a `StopOnText` that tracks EOS, called before
    this in the same step) has read the step's stops and EOS: this reads nothing from the device."""

    def __init__(self, stop: StopOnText, leave: int):
        self.stop = stop
        self.leave = leave
        self.running: list[bool] | None = None  # per row, set when the call ends early: still running

    def __call__(self, input_ids: torch.LongTensor, scores: Any, **kwargs) -> torch.BoolTensor:
        done = self.stop.finished
        running = [not (d or e) for d, e in zip(self.stop.done, self.stop.ended)]
        if 0 < sum(running) <= self.leave:
            self.running = running
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
        # The smallest prefix whose text contains a stop (the step at which `StopOnText` fired), among 1..limit.
        found = bisect.bisect_left(range(1, limit), True,
                                   key=lambda k: first_stop(decode(tokenizer, ids[:k]), stops) is not None)
        return found + 1, True
    if eos is not None:
        return eos + 1, True
    return len(ids), False


def cut_rows(tokenizer: Any, rows: Sequence[tuple[Sequence[int], Any]], stops: Sequence[Sequence[str]],
             eos_ids: Sequence[int]) -> list[SampledRow]:
    """Every row of (generated ids, their log-probs) cut by `cut_generation`, as a `SampledRow`."""
    eos_set, out = set(eos_ids), []
    for (ids, logprobs), row_stops in zip(rows, stops):
        n, ended = cut_generation(ids, tokenizer, row_stops, eos_set)
        out.append(SampledRow(ids[:n], torch.as_tensor(logprobs[:n], dtype=torch.float32), decode(tokenizer, ids[:n]),
                              ended, n > 0 and ids[n - 1] in eos_set))
    return out
