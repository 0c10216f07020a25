"""QLoRA's 4-bit base: NF4 weights through bitsandbytes with bfloat16 compute (Dettmers et al. 2023),
for `coderl sft`, `coderl train` and `coderl eval` (`--qlora`).  Needs a CUDA GPU and bitsandbytes;
anywhere else `require_cuda_for_qlora` is one line.  Never run on our CPU machines (docs/scaling.md)."""

from __future__ import annotations

import importlib.util

from coderl.base.config import ConfigError

QLORA_NO_CUDA = ("--qlora needs a CUDA GPU (bitsandbytes 4-bit kernels); this machine has none "
                 "— drop --qlora to load the model in full precision")


def require_cuda_for_qlora() -> None:
    """One line if `--qlora` cannot run here (no CUDA GPU, or no bitsandbytes)."""
    import torch

    if not torch.cuda.is_available():
        raise ConfigError(QLORA_NO_CUDA)
    if importlib.util.find_spec("bitsandbytes") is None:
        raise ConfigError("--qlora needs the bitsandbytes package (pip install bitsandbytes)")


def load_quantized(spec: str, *, trainable: bool):
    """A `LoadedModel` of `spec` with its base in 4-bit on this process's GPU.  An adapter spec comes back
    as a peft model with that adapter (kind "adapter", trainable when `trainable`), as `load_model` gives
    it; `trainable` also prepares the base for k-bit training (peft: norms in float32, input gradients)."""
    import torch
    from peft import PeftModel, prepare_model_for_kbit_training
    from transformers import AutoModelForCausalLM, AutoTokenizer, BitsAndBytesConfig

    from coderl.models import LoadedModel, resolve_spec
    from coderl.models.load import local_folder
    from coderl.models.spec import adapter_base

    require_cuda_for_qlora()
    r = resolve_spec(spec)
    adapter = None
    if r.kind == "adapter":
        adapter, r = str(r.path), resolve_spec(adapter_base(r.path))
    if r.kind == "adapter":
        raise ConfigError(f"--qlora: model '{spec}' is an adapter over an adapter (not supported)")
    folder = r.spec if r.kind == "hub" else str(local_folder(r))
    quant = BitsAndBytesConfig(load_in_4bit=True, bnb_4bit_quant_type="nf4", bnb_4bit_compute_dtype=torch.bfloat16)
    # this process's GPU: the one accelerate gave the rank under `accelerate launch`, else GPU 0
    model = AutoModelForCausalLM.from_pretrained(folder, quantization_config=quant,
                                                 device_map={"": torch.cuda.current_device()}, dtype=torch.bfloat16)
    if trainable:
        model = prepare_model_for_kbit_training(model)
    tok = AutoTokenizer.from_pretrained(folder)
    if tok.pad_token is None and tok.eos_token is not None:
        tok.pad_token = tok.eos_token
    kind = r.kind
    if adapter:
        model, kind = PeftModel.from_pretrained(model, adapter, is_trainable=trainable), "adapter"
    return LoadedModel(model, tok, spec, base=r.base or r.spec, adapter_path=adapter, kind=kind, path=folder)
