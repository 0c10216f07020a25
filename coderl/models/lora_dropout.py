"""LoRA dropout with its mask drawn from integers: `nn.Dropout`'s function (in training, each element zeroed with
probability p and the others scaled by 1 / (1 - p); the identity otherwise), drawn several times faster on a CPU.

peft applies a LoRA layer's dropout to the layer's input before the adapter's first matmul, once per wrapped
layer and example: at the CPU demo's SFT (rank 8 on q/k/v/o, an example of ~300 tokens) 120 masks of
300 x 576 a forward.  `nn.Dropout` draws each with `bernoulli_`, 18% of an SFT step's op time there; a mask
compared from 24-bit integers (`torch.randint`) costs a fraction of it (BENCHMARKS.md, "Weights packed
once for oneDNN, LoRA dropout from integers").  The mask keeps an element when its integer is
>= round(p * 2**24): p is rounded to a multiple of 2**-24, nothing else about the distribution changes; the
stream of random numbers is another one, so a run's digits move once against `nn.Dropout`.  Off CPUs (a GPU's
`bernoulli_` is fused and fast) nothing is swapped.
"""

from __future__ import annotations

import torch

_BITS = 24


class IntegerMaskDropout(torch.nn.Module):
    """`nn.Dropout(p)` with the mask compared from 24-bit integers (module docstring)."""

    def __init__(self, p: float):
        super().__init__()
        if not 0 <= p < 1:
            raise ValueError(f"dropout probability {p!r}: expected a number in [0, 1)")
        self.p = p
        self.threshold = int(round(p * (1 << _BITS)))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if not self.training or self.threshold == 0:
            return x
        keep = torch.randint(0, 1 << _BITS, x.shape, dtype=torch.int32, device=x.device) >= self.threshold
        return x * (keep.to(x.dtype) * (1.0 / (1.0 - self.p)))

    def extra_repr(self) -> str:
        return f"p={self.p}"


def use_integer_masks(model) -> int:
    """Swap every CPU LoRA layer's `nn.Dropout` (p > 0) for `IntegerMaskDropout` of the same p; how many were
    swapped.  Layers on another device keep theirs."""
    swapped = 0
    for module in model.modules():
        dropouts = getattr(module, "lora_dropout", None)
        if not isinstance(dropouts, torch.nn.ModuleDict):
            continue
        weights = getattr(module, "lora_A", {})
        for name, dropout in list(dropouts.items()):
            device = weights[name].weight.device if name in weights else None
            if type(dropout) is torch.nn.Dropout and dropout.p > 0 and device is not None and device.type == "cpu":
                replacement = IntegerMaskDropout(dropout.p)
                replacement.train(dropout.training)
                dropouts[name] = replacement
                swapped += 1
    return swapped
