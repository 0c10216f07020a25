"""Sample token rows with Hugging Face `model.generate`: batched, left-padded, KV-cached (the `hf` engine
behind `rollout.generation`, which renders prompts, cuts rows and builds the `RolloutBatch`).

Sampling policy and its log-probs.  Tokens are drawn from softmax(logits / T), restricted to the
top-p nucleus when `top_p < 1`, with EOS forbidden before `min_new_tokens`; T = 0 is greedy.  The draw is
ours (`DrawToken`, the last processor, by inverse CDF) and `generate` decodes greedily over its one-hot
scores: HF's `torch.multinomial` cost a quarter of a CPU decoding step.  The
log-probs returned are `log_softmax(logits / T)` of the chosen tokens over the full vocabulary
(T = 1 for greedy): nucleus filtering and the EOS ban do not change them.  They are captured during
generation by `PolicyLogprobs`, the first logits processor in the chain, which sees the model's raw
logits of each step (HF copies them to float32 before any processor), keeps only that step's
[B, V] log-softmax, and gathers the chosen token's entry when it is called for the next step (the
last step's after `generate` returns); memory is O(B x V), never O(steps x B x V).  The model runs
in eval mode (no dropout) during generation; its previous mode is restored afterwards.

Every processor is ours.  The `GenerationConfig` is built from neutral values (temperature 1,
top_k 0, top_p 1, repetition_penalty 1, ...) because `generate` fills each unset field from the
model's own `generation_config`, which would silently add a repetition penalty or top-k and put
HF's processors ahead of the capture.  Fields whose "off" value is None cannot be neutralised that
way; a model whose generation_config sets one of them (`_NONE_MEANS_OFF`) is refused.

Stop sequences.  `StopOnText` stops a row once the text of its generated tokens contains a stop
sequence; it decodes only rows whose new token could complete one (a table lookup on the device,
one boolean read per step; see `hf_callbacks`).  Only generated text is searched (HF's `stop_strings`
also match across the prompt boundary, e.g. a prompt ending in "\\n" and a generated "def ").  The
kept tokens run up to and including the token that completed the stop string (or the EOS token):
like EOS, that token is the policy's decision to end, so it stays in `completion_ids`, `mask` and
`logprobs`; the stop text itself is cut from the completion (the format cuts at its own stops: the
chat format's closing fence ends the code block it extracts).

Static cache.  On CUDA (`static_cache=None`, or `CODERL_STATIC_CACHE=auto`) `generate` decodes with a
static KV cache, which lets transformers compile the decoding step (torch.compile, CUDA graphs); a
chunk is then one call at its full width (no compaction, no shared prefill: `generate` refuses a
cache given to it with a static one); a generation whose work (rows x max_new_tokens, of this call or, where the
caller states it, of its whole run: `planned_tokens`) is under `CODERL_COMPILE_MIN_TOKENS` (default 50,000,
measured: `hf_config.COMPILE_MIN_TOKENS`) stays uncompiled.  A compilation that fails is reported once and
decoding goes on uncompiled.  CPU keeps the dynamic cache.  `fill_batch_size` picks rows per call that fill a GPU (the
device's setup: `hf_config`).

Lockstep (a model sharded across processes, FSDP).  Every forward of such a model is a collective, so every
process must run the same sequence of forwards.  Inside `lockstep(Lockstep(model, tokenizer, any_busy))` each
generation call with that model is announced to the others (`any_busy(True)`), runs its prompt prefill as one
forward of its own (`_shared_prefill`, every prompt distinct or not) and `generate(synced_gpus=True)`, which
keeps a process that has finished stepping until all have (TRL does the same under ZeRO-3 and FSDP); no
compaction, no static cache.  On leaving the context a process runs dummy calls of the same shape (a 2-token
prompt, one greedy token) for as long as another still announces calls, so the processes may make different
numbers of calls (their shards' chunks, rank 0's evaluation alone).  The tokens of a process are those it samples
alone with compaction off (`compact_rows=0`).

Seeding.  `torch.manual_seed(seed)` inside `torch.random.fork_rng`, so the same seed (and the same
`batch_size`) gives the same outputs and the caller's RNG stream is left untouched.  `DrawToken` draws
from the global generator (a private `torch.Generator` would need one per call threaded through).
"""

from __future__ import annotations

import contextlib
import copy
import warnings
from collections.abc import Callable
from typing import Any

import torch
from transformers import (
    GenerationConfig,
    LogitsProcessorList,
    StoppingCriteriaList,
)
from transformers.generation.logits_process import (
    MinNewTokensLengthLogitsProcessor,
    TemperatureLogitsWarper,
    TopPLogitsWarper,
)

from coderl.models.outputs import KV_CACHE
from coderl.rollout.batching import left_pad
from coderl.rollout.engine import Sampling
from coderl.rollout.hf_callbacks import DrawToken, PolicyLogprobs, RowsFinished, StopOnText, cut_rows
from coderl.rollout.hf_config import (
    HFOptions,
    fill_batch_size,
    generation_config,
    is_compile_failure,
    owns_cache,
    static_batch_rows,
    use_static_cache,
)
from coderl.rollout.kv_cache import growing_cache
from coderl.rollout.merged_view import merged_lora
from coderl.rollout.special_ids import eos_token_ids, pad_token_id
from coderl.rollout.turn_cache import TurnCache
from coderl.rollout.types import SampledRow


def _shared_prefill(model, prompts: list[list[int]], input_ids: torch.Tensor, attention: torch.Tensor, device,
                    always: bool = False, cache=None):
    """The KV cache of every row's prompt but its last token, each distinct prompt computed once and
    gathered to its rows; None when no two rows share a prompt (or a prompt is one token long).  `always`
    (lockstep): computed even when every prompt is distinct, so every call runs this one forward.

    `generate` then runs only the last prompt token and the new ones: the per-sample copies of a
    GRPO group no longer each pay the prompt's prefill.  Positions are those `generate` would use
    (cumulative count of real tokens), so the logits are the same up to float rounding.
    """
    distinct: dict[tuple[int, ...], int] = {}
    inverse = torch.tensor([distinct.setdefault(tuple(p), len(distinct)) for p in prompts], dtype=torch.long)
    if (len(distinct) == len(prompts) and not always) or input_ids.shape[1] < 2:
        return None
    if owns_cache(model):
        return None  # the model asks generate for its own cache (static, ...): generate refuses a given one
    first = torch.tensor([inverse.tolist().index(k) for k in range(len(distinct))], dtype=torch.long)
    ids, mask = input_ids[first, :-1], attention[first, :-1]
    positions = (mask.cumsum(-1) - 1).masked_fill(mask == 0, 1)
    out = model(input_ids=ids.to(device), attention_mask=mask.to(device), position_ids=positions.to(device),
                use_cache=True, logits_to_keep=1, **({KV_CACHE: cache} if cache is not None else {}))
    cache = getattr(out, KV_CACHE)
    if not hasattr(cache, "reorder_cache"):  # not a transformers Cache (recurrent state, legacy tuples)
        return None
    cache.reorder_cache(inverse.to(device))
    return cache


def _generate_rows(model, tokenizer, prompts: list[list[int]], stops: list[tuple[str, ...]], *,
                   config: GenerationConfig, temperature: float, top_p: float, min_new_tokens: int,
                   device: torch.device, share_prompts: bool = True, compact_rows: int = 8,
                   synced: bool = False, turns: TurnCache | None = None) -> tuple[list[list[int]], list[torch.Tensor]]:
    """Per row: (generated ids, possibly followed by padding after the row ended; their log-probs).

    Rows that finish early do not keep the batch wide: once at most half of a call's rows (and more
    than `compact_rows` rows in all) are still running, the call ends, and the running rows continue
    in a new, smaller call on their own rows of the KV cache (`Cache.reorder_cache` with the running
    rows' indices): same positions, same cached keys/values, no recomputation.  Greedy outputs are the
    same as one long call up to float rounding (bf16 kernels differ with batch width); sampled rows
    draw from the same distributions with a different RNG sequence.  `compact_rows=0` turns this off;
    so does a model that asks `generate` for its own cache (static, ...).  `synced` (lockstep, module
    docstring): one prefill forward and one `generate(synced_gpus=True)` call, whatever the rows.  `turns`
    (episodes, `rollout.turn_cache`): each row's prompt starts from the keys and values kept from earlier calls, and
    every row's are kept as it leaves this call.
    """
    own = owns_cache(model, config)
    if own or synced:
        compact_rows = 0
    n = len(prompts)
    out_ids: list[list[int]] = [[] for _ in range(n)]
    out_lp: list[list[torch.Tensor]] = [[] for _ in range(n)]
    input_ids, attention = left_pad(prompts, config.pad_token_id, min_width=2 if synced else 0)
    # keys and values written in place, not concatenated each step (rollout/kv_cache.py); not in lockstep
    growing = None if own or synced else growing_cache(model, input_ids.shape[1] + config.max_new_tokens)
    if growing is None or min(map(len, prompts)) < 2:
        turns = None
    if turns is not None:
        cache = turns.prefill(model, prompts, input_ids.shape[1], device, growing)
        starts = [input_ids.shape[1] - len(p) for p in prompts]
    else:
        cache = (_shared_prefill(model, prompts, input_ids, attention, device, synced, cache=growing)
                 if (share_prompts or synced) and not own else None)
    if cache is None and growing is not None and growing.get_seq_length() == 0:
        cache = growing
    active = list(range(n))
    budget = config.max_new_tokens
    while active and budget > 0:
        leave = len(active) // 2 if compact_rows and len(active) > compact_rows else 0
        call = copy.deepcopy(config)
        call.max_new_tokens = budget
        call.return_dict_in_generate = True
        done_steps = config.max_new_tokens - budget
        carry = [out_ids[i] for i in active]
        ids, lps, running, sequences, cache = _generate_chunk(
            model, tokenizer, input_ids, attention, [stops[i] for i in active], carry=carry, cache=cache,
            config=call, temperature=temperature, top_p=top_p, min_new_tokens=max(0, min_new_tokens - done_steps),
            device=device, leave=leave, synced=synced)
        for j, i in enumerate(active):
            out_ids[i] += ids[j].tolist()
            out_lp[i].append(lps[j])
        budget -= ids.shape[1]
        keep = [j for j in range(len(active)) if running[j]]
        if turns is not None:  # the rows leaving: kept before the cache drops them
            turns.keep(cache, [j for j in range(len(active)) if not keep or budget <= 0 or not running[j]],
                       sequences, [starts[i] for i in active])
        if not keep or budget <= 0:
            break
        rows = torch.tensor(keep, dtype=torch.long)
        if hasattr(cache, "reorder_cache"):
            cache.reorder_cache(rows.to(device))  # the running rows' keys/values, nothing recomputed
        else:  # not a transformers Cache (recurrent state, legacy tuples): the next call recomputes them
            cache = None
        input_ids = sequences[rows].cpu()
        attention = torch.cat([attention[rows], torch.ones((len(keep), ids.shape[1]), dtype=attention.dtype)], dim=1)
        active = [active[j] for j in keep]
    return out_ids, [torch.cat(parts) for parts in out_lp]


def _generate_chunk(model, tokenizer, input_ids: torch.Tensor, attention: torch.Tensor,
                    stops: list[tuple[str, ...]], *, config: GenerationConfig, temperature: float, top_p: float,
                    min_new_tokens: int, device: torch.device, carry: list[list[int]] | None = None,
                    cache=None, leave: int = 0, synced: bool = False):
    """One `model.generate` call on left-padded `input_ids` (`cache`: keys/values of all but their last
    token, or None).  Returns ([B, S] generated ids incl. padding after a row ended, [B, S] their
    policy log-probs, per row whether it is still running -- the call ended early (`leave`) before
    it emitted EOS or a stop --, the full [B, W + S] sequences, the cache after the call)."""
    width = input_ids.shape[1]
    eos = list(config.eos_token_id or [])
    if _COMPILE_FAILED:
        config.disable_compile = True

    def attempt():
        sampling = temperature > 0  # drawn by DrawToken; `generate` itself decodes greedily
        capture = PolicyLogprobs(temperature if sampling else 1.0, width)
        processors = [capture]
        if min_new_tokens:
            processors.append(MinNewTokensLengthLogitsProcessor(width, min_new_tokens, config.eos_token_id,
                                                                device=str(device)))
        if sampling and top_p < 1.0:  # the nucleus of softmax(logits / T); without it DrawToken reads `capture`
            processors += [TemperatureLogitsWarper(temperature)] if temperature != 1.0 else []
            processors += [TopPLogitsWarper(top_p)]
        if sampling:
            processors.append(DrawToken(None if top_p < 1.0 else capture, banned=bool(min_new_tokens)))
        stop = StopOnText(tokenizer, width, stops, carry, eos_ids=eos) if any(stops) or leave else None
        rows = RowsFinished(stop, leave) if leave else None
        criteria = [c for c in (stop, rows) if c is not None]  # generate ends rows on EOS by itself
        out = model.generate(
            input_ids=input_ids.to(device), attention_mask=attention.to(device), generation_config=config,
            logits_processor=LogitsProcessorList(processors), stopping_criteria=StoppingCriteriaList(criteria),
            **({KV_CACHE: cache} if cache is not None else {}), **({"synced_gpus": True} if synced else {}),
        )
        return out, capture, rows

    try:
        out, capture, rows = attempt()
    except Exception as exc:
        if not is_compile_failure(exc) or getattr(config, "disable_compile", False):
            raise
        _COMPILE_FAILED.append(f"{type(exc).__name__}: {(str(exc).strip().splitlines() or [''])[0]}")
        warnings.warn(f"coderl: compiling the decoding step failed ({_COMPILE_FAILED[0]}); decoding uncompiled",
                      RuntimeWarning, stacklevel=2)
        config.disable_compile = True
        out, capture, rows = attempt()
    sequences = out.sequences
    running = rows.running if rows is not None and rows.running is not None else [False] * len(stops)
    return (sequences[:, width:].cpu(), capture.finish(sequences).cpu(), running, sequences,
            getattr(out, KV_CACHE, None))


_COMPILE_FAILED: list[str] = []  # the first torch.compile failure in this process, if any


def decodes_static(model: Any, static_cache: bool | None, work_tokens: int | None,
                   planned_tokens: int | None = None) -> bool:
    """Whether `sample_rows` decodes `model` with a static cache (compiled on CUDA): `use_static_cache` on the
    model's device, never inside a `lockstep` of that model."""
    if _LOCKSTEP and _LOCKSTEP[-1].model is model:
        return False
    return use_static_cache(next(model.parameters()).device, static_cache, work_tokens, planned_tokens)


def sample_rows(model: Any, tokenizer: Any, prompt_ids: list[list[int]], stops: list[tuple[str, ...]],
                sampling: Sampling, options: HFOptions, turns: TurnCache | None = None) -> list[SampledRow]:
    """Sample one continuation of each row of token ids with the HF model in this process (`HFEngine.sample_rows`:
    `Sampling` as every engine has it, `HFOptions` as only this one does; `turns`: an episode collector's kept keys
    and values, `rollout.turn_cache`)."""
    max_new_tokens, temperature, top_p = sampling.max_new_tokens, sampling.temperature, sampling.top_p
    min_new_tokens, batch_size, static_rows = sampling.min_new_tokens, options.batch_size, options.static_rows
    eos_ids = eos_token_ids(model, tokenizer)
    config = generation_config(model, max_new_tokens=max_new_tokens,  # greedy: DrawToken samples
                               eos_ids=eos_ids, pad_id=pad_token_id(model, tokenizer))
    device = next(model.parameters()).device
    longest = max(len(p) for p in prompt_ids)
    steps = _LOCKSTEP[-1] if _LOCKSTEP and _LOCKSTEP[-1].model is model else None
    static = decodes_static(model, options.static_cache, len(prompt_ids) * max_new_tokens, options.planned_tokens)
    if static:
        config.cache_implementation = "static"
        # One cache length for calls of different widths (a multiple of 256): no recompilation for each.
        config.max_cache_len = -(-(longest + max_new_tokens) // 256) * 256
    if batch_size is None:
        batch_size = fill_batch_size(model, len(prompt_ids), max_tokens=longest + max_new_tokens)
    # A compiled static cache: every call has the same few shapes, short ones padded with copies of their last row.
    width = (static_rows or static_batch_rows(len(prompt_ids), batch_size)) if static else batch_size
    generated: list[list[int]] = []
    row_logprobs: list[torch.Tensor] = []
    # a LoRA policy decodes through merged copies of its weights, every layer packed for oneDNN in bf16 on a CPU
    # (rollout/merged_view.py); not where a compiled static cache traced the adapter's forward, nor in lockstep
    # (a sharded model's weights are not whole here)
    merged = merged_lora(model, rows=width) if not static and steps is None else contextlib.nullcontext()
    with _sampling(model, device), merged:
        torch.manual_seed(sampling.seed)
        for start in range(0, len(prompt_ids), width):
            chunk, chunk_stops = prompt_ids[start:start + width], stops[start:start + width]
            real = len(chunk)
            if static:
                chunk, chunk_stops = _pad_rows(chunk, width), _pad_rows(chunk_stops, width)
            if steps is not None:
                steps.announce()
            ids, logprobs = _generate_rows(
                model, tokenizer, chunk, chunk_stops,
                config=config, temperature=temperature, top_p=top_p, min_new_tokens=min_new_tokens or 0,
                device=device, share_prompts=options.share_prompts, compact_rows=options.compact_rows,
                synced=steps is not None, turns=None if static or steps is not None else turns)
            generated += ids[:real]
            row_logprobs += logprobs[:real]
    return cut_rows(tokenizer, list(zip(generated, row_logprobs)), stops, eos_ids)


@contextlib.contextmanager
def _sampling(model, device: torch.device):
    """Inside: the model in eval mode (its mode restored after), no gradients, and a fork of the RNG streams
    (the caller's left untouched)."""
    was_training = model.training
    model.eval()
    try:
        with torch.random.fork_rng(devices=[device] if device.type == "cuda" else []), torch.no_grad():
            yield
    finally:
        model.train(was_training)


class Lockstep:
    """Generation with `model`, sharded across processes, in lockstep with the other processes (module
    docstring).  `any_busy(flag)`: a collective every process calls together, True when any passes True."""

    def __init__(self, model, tokenizer, any_busy: Callable[[bool], bool]):
        self.model, self.tokenizer, self.any_busy = model, tokenizer, any_busy

    def announce(self) -> None:
        """This process makes a generation call now (the others make one too, real or dummy)."""
        if not self.any_busy(True):
            raise RuntimeError("lockstep: no process announced the call this one announces")

    def finish(self) -> int:
        """Dummy calls while another process still announces calls; how many ran."""
        calls = 0
        while self.any_busy(False):
            self.dummy()
            calls += 1
        return calls

    def dummy(self) -> None:
        """One call of the shape every lockstep call has: a prefill forward, then `generate(synced_gpus=True)`
        stepping with the others (one greedy token of a 2-token prompt of its own); nothing is kept."""
        model = self.model
        pad = pad_token_id(model, self.tokenizer)
        config = generation_config(model, max_new_tokens=1,
                                   eos_ids=eos_token_ids(model, self.tokenizer), pad_id=pad)
        device = next(model.parameters()).device
        with _sampling(model, device):
            _generate_rows(model, self.tokenizer, [[pad, pad]], [()], config=config, temperature=0.0, top_p=1.0,
                           min_new_tokens=0, device=device, synced=True)


_LOCKSTEP: list[Lockstep] = []  # the innermost `lockstep` context's


@contextlib.contextmanager
def lockstep(steps: Lockstep):
    """Generation with `steps.model` in lockstep with the other processes inside; on leaving, this process
    steps with dummy calls until every process has left (`Lockstep.finish`)."""
    _LOCKSTEP.append(steps)
    try:
        yield steps
    finally:
        _LOCKSTEP.remove(steps)
    steps.finish()


def _pad_rows(rows: list, width: int) -> list:
    """`rows` followed by copies of its last row, `width` in all (a padded call's extra rows are dropped)."""
    return rows + [rows[-1]] * (width - len(rows))
