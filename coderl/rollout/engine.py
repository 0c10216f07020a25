"""The generation engine behind `generate` and the collectors (`--engine hf|vllm`; docs/engines.md).

* `hf`: the model itself, in this process (`rollout.generation.sample_rows`: HF `generate` with coderl's own
  processors, stops and log-prob capture).
* `vllm`: a `VLLMEngine` (`rollout.vllm_engine`), vLLM in a process of its own.

Wherever a collector takes `model`, it takes either: `rollout.generation.sample_rows` hands an engine's rows
to the engine (`is_engine`) and an HF model's to `rollout.hf`.  Prompts, formats,
stop rules, the cut of each row and the extraction are the same code for both; only the sampling differs.
"""

from __future__ import annotations

ENGINES = ("hf", "vllm")
ENGINE_LOG = "engine.log"  # in a run directory: the output of an engine of its own


def is_engine(model) -> bool:
    """A generation engine of its own (vLLM), not an HF model sampled in this process."""
    return callable(getattr(model, "sample_rows", None))
