"""The generation settings of `coderl.rollout.hf`: a neutral `GenerationConfig` (nothing inherited from the
model that would change the sampling policy), the ids generation stops on, and the id rows are padded with.
"""

from __future__ import annotations

from typing import Any

from transformers import GenerationConfig

# GenerationConfig fields that add a logits processor or stopping rule whenever they are not None;
# `generate` would inherit them from the model's generation_config and we cannot switch them off
# (min_length / min_new_tokens are refused when > 0: setting them to 0 here makes HF warn).
_NONE_MEANS_OFF = (
    "sequence_bias", "bad_words_ids", "forced_bos_token_id", "forced_eos_token_id",
    "exponential_decay_length_penalty", "suppress_tokens", "begin_suppress_tokens", "min_p", "top_h",
    "watermarking_config", "stop_strings", "max_time",
)


def eos_token_ids(model: Any, tokenizer: Any) -> list[int]:
    ids = getattr(getattr(model, "generation_config", None), "eos_token_id", None)
    ids = [] if ids is None else [ids] if isinstance(ids, int) else list(ids)
    if tokenizer.eos_token_id is not None and tokenizer.eos_token_id not in ids:
        ids.append(tokenizer.eos_token_id)
    return ids


def generation_config(model: Any, *, max_new_tokens: int, do_sample: bool, eos_ids: list[int],
                      pad_id: int) -> GenerationConfig:
    """A neutral GenerationConfig: plain sampling or greedy, nothing inherited that alters logits."""
    inherited = getattr(model, "generation_config", None)
    surprises = [f for f in _NONE_MEANS_OFF if getattr(inherited, f, None) is not None]
    surprises += [f for f in ("min_length", "min_new_tokens") if (getattr(inherited, f, None) or 0) > 0]
    if surprises:
        raise ValueError(
            f"model.generation_config sets {', '.join(surprises)}, which would change the sampling policy; "
            "unset them before generating rollouts")
    # Warpers are applied only when sampling; setting them for greedy decoding makes HF warn.
    sampling = {"temperature": 1.0, "top_k": 0, "top_p": 1.0, "typical_p": 1.0, "epsilon_cutoff": 0.0,
                "eta_cutoff": 0.0}
    return GenerationConfig(
        max_new_tokens=max_new_tokens, do_sample=do_sample, num_beams=1, num_return_sequences=1,
        repetition_penalty=1.0, encoder_repetition_penalty=1.0, no_repeat_ngram_size=0,
        encoder_no_repeat_ngram_size=0, guidance_scale=1.0, renormalize_logits=False,
        remove_invalid_values=False, use_cache=True, output_scores=False, output_logits=False,
        return_dict_in_generate=False, eos_token_id=eos_ids or None, pad_token_id=pad_id,
        bos_token_id=getattr(inherited, "bos_token_id", None), **(sampling if do_sample else {}),
    )


def pad_token_id(model: Any, tokenizer: Any) -> int:
    """The id rows are padded with: the tokenizer's pad token, else the first EOS id."""
    pad_id = tokenizer.pad_token_id
    if pad_id is None:
        pad_id = (eos_token_ids(model, tokenizer) or [None])[0]
    if pad_id is None:
        raise ValueError("generate: the tokenizer has neither a pad nor an EOS token")
    return pad_id
