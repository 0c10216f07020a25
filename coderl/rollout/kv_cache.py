"""A KV cache that grows in place: transformers' `DynamicCache` with layers that write each step's keys and
values into a buffer sized for the whole call, instead of concatenating a new [B, H, T, D] tensor every step.

`DynamicLayer.update` is `torch.cat([keys, new])`: every decoding step copies every layer's whole cache, so a
call's copying grows with the square of its length.  On 2 CPU cores that was a fifth of a decoding step at the
CPU demo's shapes (64 rows, ~150-token prompts: BENCHMARKS.md, "Where a decoding step goes").  `GrowingLayer`
keeps a buffer with room for `capacity` positions (the call's longest prompt plus its new tokens) and hands
attention a view of the filled part: same values, same shapes, no copy.  Past the capacity it doubles.  Anything
that replaces the layer's tensors (`reorder_cache` of compaction and shared prefill, `crop`, batch selection)
is followed: the next update starts a buffer from whatever the layer then holds.

Used only for full-attention decoder models (`growing_cache` returns None for sliding-window or other layer
types, which keep transformers' own cache), never with a static cache (CUDA compilation has its own).
"""

from __future__ import annotations

from typing import Any

import torch
from transformers.cache_utils import DynamicCache, DynamicLayer


class GrowingLayer(DynamicLayer):
    """A `DynamicLayer` whose keys and values are views of a buffer with room to grow (module docstring)."""

    def __init__(self, capacity: int):
        super().__init__()
        self.capacity = max(1, capacity)
        self._buffers: tuple[torch.Tensor, torch.Tensor] | None = None

    def _ours(self) -> bool:
        """Whether `keys`/`values` are still the views of our buffers (nothing replaced them)."""
        if self._buffers is None or self.keys is None or self.keys.numel() == 0:
            return False
        k, v = self._buffers
        return (self.keys.data_ptr() == k.data_ptr() and self.values.data_ptr() == v.data_ptr()
                and self.keys.shape[0] == k.shape[0])

    def update(self, key_states: torch.Tensor, value_states: torch.Tensor, *args, **kwargs):
        if not self.is_initialized:
            self.lazy_initialization(key_states, value_states)
        held = self.keys.shape[-2] if self.keys is not None and self.keys.numel() else 0
        need = held + key_states.shape[-2]
        if not self._ours() or need > self._buffers[0].shape[-2]:
            room = self.capacity
            while room < need:
                room *= 2
            self.capacity = room
            shape = (*key_states.shape[:-2], room, key_states.shape[-1])
            k = key_states.new_empty(shape)
            v = value_states.new_empty((*value_states.shape[:-2], room, value_states.shape[-1]))
            if held:
                k[..., :held, :].copy_(self.keys)
                v[..., :held, :].copy_(self.values)
            self._buffers = (k, v)
        k, v = self._buffers
        k[..., held:need, :].copy_(key_states)
        v[..., held:need, :].copy_(value_states)
        self.keys, self.values = k[..., :need, :], v[..., :need, :]
        return self.keys, self.values

    def reorder_cache(self, beam_idx: torch.LongTensor) -> None:
        """Rows `beam_idx` of the cache (compaction, shared prefill), their buffers' room kept."""
        if self.get_seq_length() == 0:
            return
        held = self.keys.shape[-2]
        if self._ours():
            k, v = self._buffers
            idx = beam_idx.to(k.device)
            self._buffers = (k.index_select(0, idx), v.index_select(0, idx))
            self.keys, self.values = self._buffers[0][..., :held, :], self._buffers[1][..., :held, :]
        else:
            super().reorder_cache(beam_idx)

    def reset(self) -> None:
        self._buffers = None
        super().reset()


def growing_cache(model: Any, capacity: int) -> DynamicCache | None:
    """A `DynamicCache` of `GrowingLayer`s with room for `capacity` positions per layer, or None where the
    model's decoder has layers other than full attention (sliding windows, linear attention, ...)."""
    config = getattr(model, "config", None)
    if config is None or not hasattr(config, "get_text_config"):
        return None
    text = config.get_text_config(decoder=True)
    types = getattr(text, "layer_types", None)
    if types is not None and any(t != "full_attention" for t in types):
        return None
    if getattr(text, "sliding_window", None) and getattr(text, "use_sliding_window", True):
        return None
    cache = DynamicCache()
    cache.layer_class_to_replicate = lambda: GrowingLayer(capacity)
    return cache
