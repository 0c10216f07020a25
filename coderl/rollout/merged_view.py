"""Generation through merged and packed copies of the weights, without touching the model: inside
`merged_lora(model)` every plain LoRA linear layer computes `x @ (W + scale * B @ A).T + b` with one matmul on a
merged copy made on entry, instead of the base matmul plus the adapter's two small ones, its casts, scaling and
addition; and on a CPU in bfloat16 every linear layer (merged or not) runs on a copy of its weight packed once
into oneDNN's blocked layout.

Merging.  At the CPU demo's decoding shapes (64 rows, rank 8 on q/k/v/o of 30 layers) the adapter's share of a
step is 240 extra matmuls and about as many casts and additions a step (BENCHMARKS.md, "Where a decoding step
goes").  The copy is made from the adapter's current factors on every entry (about 120 small products:
milliseconds), so an RL step always samples from the weights it trains; the trained weights are never merged in
place (a merge/unmerge round trip in bfloat16 would drift by a rounding each step).  Each merged weight is
computed in float32 and cast once to the base weight's dtype, as `models/merge.py` does for an engine.

Packing.  A decoding step reads every weight once, from memory (268 MB a step for the bundled model).
`F.linear` hands oneDNN a plain row-major weight, which it re-lays out into its blocked format on every call:
at 32 rows a cold 576 x 1,536 bfloat16 matmul took 288 us against 154 us on the weight packed beforehand
(`torch.ops.mkldnn._reorder_linear_weight`, then `_linear_pointwise`), and the outputs are bit for bit those of
`F.linear` on a contiguous input (BENCHMARKS.md, "Weights packed once for oneDNN, LoRA dropout from
integers").  Packing every layer costs about 0.2 s an entry for the bundled model; an entry covers a whole
`sample_rows` call.  Only bfloat16 on a CPU whose torch has the oneDNN ops and whose oneDNN packs bfloat16 (AVX-512
or AVX-NE-CONVERT; an AVX2-only CPU keeps `F.linear`): in float32 the packed kernel accumulates in another order.

Left as they are (their layers keep their own forward): a quantized base (not `nn.Linear`), DoRA, more than
one active adapter, disabled adapters, a layer already merged, and a module in training mode (dropout on the
adapter's input would be skipped).  `sample_rows` uses it only on the dynamic-cache path: a compiled static
cache traces the forward it first saw.
"""

from __future__ import annotations

import contextlib
import functools

import torch
import torch.nn.functional as F


def _mergeable(module, adapter: str) -> bool:
    base = getattr(module, "base_layer", None)
    return (type(base) is torch.nn.Linear and not module.training and not getattr(module, "merged", False)
            and not getattr(module, "disable_adapters", False) and list(module.active_adapters) == [adapter]
            and adapter in module.lora_A and not module.use_dora.get(adapter, False)
            and not getattr(module, "fan_in_fan_out", False))


def packs(weight: torch.Tensor) -> bool:
    """Whether a linear layer of this weight runs packed (module docstring): bfloat16 on a CPU whose oneDNN packs
    it."""
    return weight.device.type == "cpu" and weight.dtype == torch.bfloat16 and _cpu_packs_bfloat16()


@functools.cache
def _cpu_packs_bfloat16() -> bool:
    """Whether this torch has oneDNN's linear ops and this CPU runs their bfloat16 path: it needs AVX-512 (BW, VL,
    DQ) or AVX-NE-CONVERT, and a CPU without them (AVX2 only) raises at packing, so one small weight is packed to
    find out."""
    if not (torch.backends.mkldnn.is_available() and hasattr(torch.ops.mkldnn, "_reorder_linear_weight")):
        return False
    try:
        torch.ops.mkldnn._reorder_linear_weight(torch.zeros(16, 16, dtype=torch.bfloat16), 1)
    except RuntimeError:
        return False
    return True


def _linear(weight: torch.Tensor, bias: torch.Tensor | None, rows: int):
    """The forward of a linear layer on `weight` (no gradient): packed for oneDNN where `packs`, else `F.linear`."""
    if packs(weight) and (bias is None or bias.dtype == weight.dtype):
        packed = torch.ops.mkldnn._reorder_linear_weight(weight, rows)
        return lambda x, *a, **k: torch.ops.mkldnn._linear_pointwise(x.to(weight.dtype).contiguous(), packed, bias,
                                                                     "none", [], "")
    return lambda x, *a, **k: F.linear(x.to(weight.dtype), weight, bias)


@contextlib.contextmanager
def merged_lora(model, adapter: str = "default", rows: int = 32):
    """Inside: `model`'s plain LoRA linear layers run on merged copies of their weights, and in bfloat16 on a CPU
    every linear layer on a packed copy (module docstring); `rows`: the rows a call decodes (oneDNN's layout
    hint).  Yields how many LoRA layers were merged.  Generation only: the copies have no gradient."""
    try:
        from peft.tuners.lora import LoraLayer
    except ImportError:  # no peft: no adapter
        LoraLayer = ()
    patched, merged, unused = [], 0, set()
    try:
        with torch.no_grad():
            for module in model.modules():  # a layer comes before its children
                if LoraLayer and isinstance(module, LoraLayer) and _mergeable(module, adapter):
                    base = module.base_layer
                    weight = (base.weight.float() + module.get_delta_weight(adapter).float()).to(base.weight.dtype)
                    module.forward = _linear(weight, base.bias, rows)
                    patched.append(module)
                    unused.update(map(id, [base, *module.lora_A.values(), *module.lora_B.values()]))  # never called
                    merged += 1
                elif type(module) is torch.nn.Linear and id(module) not in unused and packs(module.weight):
                    module.forward = _linear(module.weight, module.bias, rows)
                    patched.append(module)
        yield merged
    finally:
        for module in patched:
            del module.forward
