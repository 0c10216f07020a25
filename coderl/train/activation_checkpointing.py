"""Activation checkpointing (`--gradient-checkpointing`): each decoder layer keeps only its input for
backward and recomputes its activations there.

Why not `model.gradient_checkpointing_enable()`: transformers checkpoints a layer only while it is in
training mode, and the RL loops differentiate the policy in eval mode (dropout off: the function that
sampled is the one differentiated).  So each decoder layer (transformers' `GradientCheckpointingLayer`,
every decoder layer of the causal LMs it ships) gets its `forward` wrapped here: under a graph it runs
through `torch.utils.checkpoint` (non-reentrant, the RNG state preserved, so a dropout mask is the same
in the recomputation), in any mode; without a graph (generation, reference passes) it runs as is.

A checkpointed layer must not write a KV cache (the backward replay would write it a second time): on a graph
the wrapper drops the layer's cache arguments, as transformers' own checkpointing does, and
`logprobs.token_logprobs` runs the plain forward, without the shared-prompt cache, when
`is_checkpointed(model)`. A layer that transformers already checkpoints (QLoRA's preparation turns it on, in
training mode) is not checkpointed a second time. Cost: one more forward of every layer in backward (not
yet timed); saving: a layer's intermediate activations (attention, MLP) of every row and token.
"""

from __future__ import annotations

import torch
from torch.utils.checkpoint import checkpoint

from coderl.train.distributed import unwrapped

MARK = "_coderl_activation_checkpointing"


def checkpointable_layers(model) -> list:
    """The decoder layers of `model` (through peft and DDP wrappers) that can be checkpointed."""
    try:
        from transformers.modeling_layers import GradientCheckpointingLayer
    except ImportError:  # transformers older than the layer class: nothing known to checkpoint
        return []
    return [m for m in model.modules() if isinstance(m, GradientCheckpointingLayer)]


def enable(model) -> int:
    """Checkpoint every decoder layer of `model`; the number of layers.  Raises ValueError (one line, the
    caller names its flag) when the model has none."""
    layers = checkpointable_layers(model)
    if not layers:
        raise ValueError(f"{type(model).__name__} has no decoder layers that transformers can checkpoint")
    for layer in layers:
        if getattr(layer, MARK, False):
            continue
        layer.forward = _checkpointed(layer, layer.forward)
        setattr(layer, MARK, True)
    setattr(unwrapped(model), MARK, True)
    return len(layers)


def is_checkpointed(model) -> bool:
    return bool(getattr(unwrapped(model), MARK, False))


_CACHE_ARGUMENTS = ("past_key_values", "past_key_value", "cache", "layer_past")


def _checkpointed(layer, forward):
    def run(*args, **kwargs):
        if not torch.is_grad_enabled() or (getattr(layer, "gradient_checkpointing", False) and layer.training):
            return forward(*args, **kwargs)  # no backward to replay for, or transformers checkpoints it already
        if kwargs.get("use_cache"):
            kwargs["use_cache"] = False
        for name in _CACHE_ARGUMENTS:
            if kwargs.get(name) is not None:
                kwargs[name] = None
        return checkpoint(forward, *args, use_reentrant=False, **kwargs)
    return run
