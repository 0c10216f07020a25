"""Generation through a LoRA policy's merged weights, without touching the policy: inside `merged_lora(model)`
every plain LoRA linear layer computes `x @ (W + scale * B @ A).T + b` with one matmul on a merged copy made
on entry, instead of the base matmul plus the adapter's two small ones, its casts, scaling and addition.

At the CPU demo's decoding shapes (64 rows, rank 8 on q/k/v/o of 30 layers) the adapter's share of a step is
240 extra matmuls and about as many casts and additions a step (BENCHMARKS.md, "Where a decoding step goes").
The copy is made from the adapter's current factors on every entry (about 120 small products: milliseconds),
so an RL step always samples from the weights it trains; the trained weights are never merged in place (a
merge/unmerge round trip in bfloat16 would drift by a rounding each step).  Each merged weight is computed in
float32 and cast once to the base weight's dtype, as `models/merge.py` does for an engine.

Left as they are (their layers keep peft's own forward): a quantized base (not `nn.Linear`), DoRA, more than
one active adapter, disabled adapters, a layer already merged, and a module in training mode (dropout on the
adapter's input would be skipped).  `sample_rows` uses it only on the dynamic-cache path: a compiled static
cache traces the forward it first saw.
"""

from __future__ import annotations

import contextlib

import torch
import torch.nn.functional as F


def _mergeable(module, adapter: str) -> bool:
    base = getattr(module, "base_layer", None)
    return (type(base) is torch.nn.Linear and not module.training and not getattr(module, "merged", False)
            and not getattr(module, "disable_adapters", False) and list(module.active_adapters) == [adapter]
            and adapter in module.lora_A and not module.use_dora.get(adapter, False)
            and not getattr(module, "fan_in_fan_out", False))


@contextlib.contextmanager
def merged_lora(model, adapter: str = "default"):
    """Inside: `model`'s plain LoRA linear layers run on merged copies of their weights (module docstring);
    nothing changes for a model without them.  Generation only: the copies have no gradient."""
    try:
        from peft.tuners.lora import LoraLayer
    except ImportError:  # no peft: no adapter
        yield 0
        return
    patched = []
    try:
        with torch.no_grad():
            for module in model.modules():
                if isinstance(module, LoraLayer) and _mergeable(module, adapter):
                    base = module.base_layer
                    weight = (base.weight.float() + module.get_delta_weight(adapter).float()).to(base.weight.dtype)
                    bias = base.bias
                    module.forward = lambda x, *a, _w=weight, _b=bias, **k: F.linear(x.to(_w.dtype), _w, _b)
                    patched.append(module)
        yield len(patched)
    finally:
        for module in patched:
            del module.forward
