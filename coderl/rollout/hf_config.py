"""How `coderl.rollout.hf` sets up a `generate` call: the HF engine's own options (`HFOptions`), a neutral
`GenerationConfig` (nothing inherited from the model that would change the sampling policy), and the device's
decoding setup (static cache, compilation failures, rows per call).  The ids generation stops on and pads with,
which every engine reads, are `rollout.special_ids`'.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass
from typing import Any

import torch
from transformers import GenerationConfig

# GenerationConfig fields that add a logits processor or stopping rule whenever they are not None;
# `generate` would inherit them from the model's generation_config and we cannot switch them off
# (min_length / min_new_tokens are refused when > 0: setting them to 0 here makes HF warn).
_NONE_MEANS_OFF = (
    "sequence_bias", "bad_words_ids", "forced_bos_token_id", "forced_eos_token_id",
    "exponential_decay_length_penalty", "suppress_tokens", "begin_suppress_tokens", "min_p", "top_h",
    "watermarking_config", "stop_strings", "max_time",
)


@dataclass(frozen=True)
class HFOptions:
    """What only the HF engine has: how it lays a call's rows out on the device."""

    batch_size: int | None = 16  # rows per `model.generate` call; outputs depend on it when sampling (RNG order);
    # None = `fill_batch_size` (CPU: 16; CUDA: every row, up to 256 and the free memory)
    share_prompts: bool = True  # rows of a call that repeat a prompt share one prefill of it
    compact_rows: int = 8  # finished rows leave the batch while more than this many run; 0 = off
    reuse_turns: bool = True  # an episode's turn prefills only what it added to its row (`rollout.turn_cache`)
    static_cache: bool | None = None  # decode with a static KV cache, compiled on CUDA (no compaction, no shared
    # prefill); None = `use_static_cache` (on CUDA unless CODERL_STATIC_CACHE=off; never on CPU)
    static_rows: int | None = None  # with a static cache, the rows of every call (shorter calls padded to it: one
    # compiled shape across a caller's chunks); None = `static_batch_rows`
    planned_tokens: int | None = None  # rows x max_new_tokens the caller's whole run generates (an evaluation's
    # rows, a training run's steps): a compilation is repaid over all of it (`use_static_cache`); None = this call's

    def __post_init__(self):
        for name, least in (("batch_size", 1), ("static_rows", 1), ("compact_rows", 0)):
            value = getattr(self, name)
            if value is not None and value < least:
                raise ValueError(f"generate: {name} must be >= {least}" + (" or None" if name != "compact_rows" else "")
                                 + f" (got {value})")


def generation_config(model: Any, *, max_new_tokens: int, eos_ids: list[int], pad_id: int) -> GenerationConfig:
    """A neutral greedy GenerationConfig, nothing inherited that alters logits: sampling is a logits processor of
    ours (`hf_callbacks.DrawToken`), so `generate` itself always decodes greedily."""
    inherited = getattr(model, "generation_config", None)
    surprises = [f for f in _NONE_MEANS_OFF if getattr(inherited, f, None) is not None]
    surprises += [f for f in ("min_length", "min_new_tokens") if (getattr(inherited, f, None) or 0) > 0]
    if surprises:
        raise ValueError(
            f"model.generation_config sets {', '.join(surprises)}, which would change the sampling policy; "
            "unset them before generating rollouts")
    return GenerationConfig(
        max_new_tokens=max_new_tokens, do_sample=False, num_beams=1, num_return_sequences=1,
        repetition_penalty=1.0, encoder_repetition_penalty=1.0, no_repeat_ngram_size=0,
        encoder_no_repeat_ngram_size=0, guidance_scale=1.0, renormalize_logits=False,
        remove_invalid_values=False, use_cache=True, output_scores=False, output_logits=False,
        return_dict_in_generate=False, eos_token_id=eos_ids or None, pad_token_id=pad_id,
        bos_token_id=getattr(inherited, "bos_token_id", None),
    )


# --- the device ------------------------------------------------------------------------------

def owns_cache(model: Any, config: Any = None) -> bool:
    """`generate` builds its own cache (static, ...): it refuses one given to it."""
    return bool(getattr(config, "cache_implementation", None)
                or getattr(getattr(model, "generation_config", None), "cache_implementation", None))


def is_compile_failure(exc: BaseException | None) -> bool:
    """An error of torch.compile (dynamo, inductor, CUDA graphs) anywhere in the exception's chain: its
    class comes from there or it was raised there."""
    while exc is not None:
        tb = exc.__traceback__
        while tb is not None and tb.tb_next is not None:
            tb = tb.tb_next
        where = tb.tb_frame.f_code.co_filename.replace(os.sep, "/") if tb is not None else ""
        if type(exc).__module__.startswith(("torch._dynamo", "torch._inductor")) or any(
                f"/torch/{part}/" in where for part in ("_dynamo", "_inductor")):
            return True
        exc = exc.__cause__ or exc.__context__
    return False


def use_static_cache(device: torch.device, static_cache: bool | None = None, work_tokens: int | None = None,
                     planned_tokens: int | None = None) -> bool:
    """Whether to decode with a static KV cache (compiled by transformers on CUDA): `static_cache` when
    given, else `CODERL_STATIC_CACHE` (on/off; auto, the default: on CUDA, never on CPU).  Under auto, the
    work a compilation is repaid over decides: a compilation is paid once per batch shape and process and
    repaid on every call of that shape, so the work counted is max(this call's `work_tokens`, the caller's
    `planned_tokens`: every call of the run in this shape, e.g. an evaluation's rows, or steps x rows per
    step for training), in rows x max_new_tokens; below `compile_min_tokens()` it decodes uncompiled.  No
    work stated (both None): compiled."""
    if static_cache is not None:
        return static_cache
    env = os.environ.get("CODERL_STATIC_CACHE", "auto").strip().lower()
    if env in ("1", "on", "true", "yes"):
        return True
    if env in ("0", "off", "false", "no"):
        return False
    if env not in ("", "auto"):
        raise ValueError(f"CODERL_STATIC_CACHE={env!r}: expected auto, on or off")
    if torch.device(device).type != "cuda":
        return False
    stated = [w for w in (work_tokens, planned_tokens) if w is not None]
    return not stated or max(stated) >= compile_min_tokens()


# The least work (rows x max_new_tokens over every call of one shape) that compiles by default.  Measured
# on an H200 with a model of SmolLM2-135M's shape (BENCHMARKS.md "On a GPU, third lease", compile-cost):
# compiling cost 32.6 s, decoding ran at 1,252 tok/s eager and 17,184 tok/s compiled (128 rows x 128
# tokens), so compiling pays from 32.6 / (1/1252 - 1/17184) = 44,000 work tokens; rounded up to 50,000
# because a real model's rows end early (EOS), which the uncompiled path's compaction uses and a static
# cache does not.
COMPILE_MIN_TOKENS = 50_000


def compile_min_tokens() -> int:
    """`CODERL_COMPILE_MIN_TOKENS`: the least rows x max_new_tokens, over every call of a shape, that
    compiles (default `COMPILE_MIN_TOKENS`, measured; 0: always compile on CUDA)."""
    text = os.environ.get("CODERL_COMPILE_MIN_TOKENS", "").strip() or str(COMPILE_MIN_TOKENS)
    try:
        value = int(text)
    except ValueError:
        value = -1
    if value < 0:
        raise ValueError(f"CODERL_COMPILE_MIN_TOKENS={text!r}: expected an integer >= 0 (rows x max_new_tokens)")
    return value


def static_batch_rows(rows: int, batch_size: int) -> int:
    """Rows per `generate` call with a compiled static cache, every call padded to it: the fewest calls of
    at most `batch_size`, their common size rounded up to a power of two where that stays within
    `batch_size`.  Each new batch shape compiles the decoding step again (40-60 s on an H100 for the
    bundled model, BENCHMARKS.md), so a run meets a few shapes (8, 16, 32, ...) instead of one per
    remainder: 76 rows at batch 64 are 2 calls of 64, not 64 + 12."""
    size = math.ceil(rows / math.ceil(rows / batch_size))
    bucket = 1 << (size - 1).bit_length()
    return bucket if bucket <= batch_size else size


def fill_batch_size(model: Any, rows: int, *, max_tokens: int, cap: int = 256, cpu: int = 16) -> int:
    """Rows per `generate` call: on CPU `cpu` (unchanged default); on CUDA all `rows` up to `cap`, fewer
    when their KV cache (`max_tokens` = prompt + new tokens per row) and float32 logits would not fit
    in half the free GPU memory, split into chunks of equal size (one compiled shape)."""
    device = next(model.parameters()).device
    if device.type != "cuda":
        return max(1, min(cpu, rows))
    text = model.config.get_text_config() if hasattr(model.config, "get_text_config") else model.config
    heads = getattr(text, "num_attention_heads", 1) or 1
    kv_heads = getattr(text, "num_key_value_heads", None) or heads
    head_dim = getattr(text, "head_dim", None) or getattr(text, "hidden_size", 64 * heads) // heads
    layers = getattr(text, "num_hidden_layers", 1) or 1
    width = next(model.parameters()).element_size()
    per_row = 2 * layers * kv_heads * head_dim * width * max_tokens + 8 * 4 * getattr(text, "vocab_size", 0)
    free, _ = torch.cuda.mem_get_info(device)
    return _fit_rows(rows, cap=cap, budget=free // 2, per_row=per_row)


def _fit_rows(rows: int, *, cap: int, budget: int, per_row: int) -> int:
    """The fewest equal calls of at most `cap` rows, each within `budget` bytes at `per_row` a row."""
    size = max(1, min(rows, cap, budget // max(per_row, 1)))
    return math.ceil(rows / math.ceil(rows / size))
