"""The token ids generation stops on and pads rows with, whatever engine samples: the model's generation config's
EOS ids and the tokenizer's EOS (`eos_token_ids`), the tokenizer's pad token else the first EOS id
(`pad_token_id`).  The HF engine, vLLM's and SFT's examples (which end where generation would stop) read them
here."""

from __future__ import annotations

from typing import Any


def eos_token_ids(model: Any, tokenizer: Any) -> list[int]:
    ids = getattr(getattr(model, "generation_config", None), "eos_token_id", None)
    ids = [] if ids is None else [ids] if isinstance(ids, int) else list(ids)
    if tokenizer.eos_token_id is not None and tokenizer.eos_token_id not in ids:
        ids.append(tokenizer.eos_token_id)
    return ids


def pad_token_id(model: Any, tokenizer: Any) -> int:
    """The id rows are padded with: the tokenizer's pad token, else the first EOS id."""
    pad_id = tokenizer.pad_token_id
    if pad_id is None:
        pad_id = (eos_token_ids(model, tokenizer) or [None])[0]
    if pad_id is None:
        raise ValueError("generate: the tokenizer has neither a pad nor an EOS token")
    return pad_id
