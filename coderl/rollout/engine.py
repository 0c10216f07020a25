"""Which engine samples (`--engine hf|vllm`; docs/engines.md): `hf`, the model itself in this process
(`rollout.hf`), or `vllm`, a `VLLMEngine` in a process of its own (`rollout.vllm_engine`).  Wherever a collector
takes `model` it takes either: `rollout.generation` is the one way in, and only the sampling differs."""

from __future__ import annotations

ENGINES = ("hf", "vllm")
ENGINE_LOG = "engine.log"  # in a run directory: the output of an engine of its own


def is_engine(model) -> bool:
    """A generation engine of its own (vLLM), not an HF model sampled in this process."""
    return callable(getattr(model, "sample_rows", None))
