"""A LoRA policy's weights merged into its base, out of place: what a generation engine loads instead of
serving the adapter (`--engine vllm` on CPU, where vLLM's LoRA path decodes 2-3x slower than the base
weights: docs/engines.md).

    state = merged_state_dict(peft_model)        # {HF name: tensor}: W + scale * B @ A for every LoRA layer
    save_merged(peft_model, "folder")            # the same as a Hugging Face folder (config + safetensors)

The trained model is left as it was: no merge/unmerge round trip on its weights (which would drift by a
rounding each step in bfloat16).  Each merged weight is computed in float32 and cast once to the base
weight's dtype, as `merge_and_unload` does on CPU.  Tensors that share storage (tied embeddings) are written
once, under the first name, as `save_pretrained` does; the loader ties them again.
"""

from __future__ import annotations

import os


def merged_state_dict(peft_model, adapter: str = "default") -> dict:
    """The base model's state dict in its own names, with `adapter` merged into every layer it wraps (LoRA
    factors and peft's bookkeeping left out)."""
    import torch
    from peft.tuners.lora import LoraLayer

    base = peft_model.get_base_model()
    deltas = {name: module for name, module in base.named_modules()
              if isinstance(module, LoraLayer) and adapter in getattr(module, "lora_A", {})}
    out, seen = {}, set()
    with torch.no_grad():
        for key, value in base.state_dict(keep_vars=False).items():
            if ".lora_" in key or ".original_module." in key:
                continue
            module, _, leaf = key.rpartition(".base_layer.")
            name = f"{module}.{leaf}" if module else key.replace(f".modules_to_save.{adapter}.", ".")
            if module in deltas and leaf == "weight":
                value = (value.float() + deltas[module].get_delta_weight(adapter).float()).to(value.dtype)
            elif value.data_ptr() in seen:  # tied to a tensor already written
                continue
            seen.add(value.data_ptr())
            out[name] = value.detach().contiguous()
    return out


def save_merged(peft_model, folder: str | os.PathLike, adapter: str = "default", state: dict | None = None) -> str:
    """Write the merged weights as a Hugging Face folder (config.json, generation_config.json,
    model.safetensors) that `from_pretrained` and vLLM's `reload_weights` read; the folder.  `state`: the
    merged weights when the caller made them already (`merged_state_dict`)."""
    from safetensors.torch import save_file

    folder = str(folder)
    os.makedirs(folder, exist_ok=True)
    base = peft_model.get_base_model()
    base.config.save_pretrained(folder)
    if getattr(base, "generation_config", None) is not None:
        base.generation_config.save_pretrained(folder)
    state = merged_state_dict(peft_model, adapter) if state is None else state
    save_file(state, os.path.join(folder, "model.safetensors"), metadata={"format": "pt"})
    return folder
