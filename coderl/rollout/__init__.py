"""Rollouts: render tasks as prompts, sample completions, extract the code, return typed batches.

`generate(model, tokenizer, tasks, format="chat", samples_per_prompt=8, temperature=1.0)` ->
`RolloutBatch` (`coderl.rollout.generation`: the HF model or a vLLM engine samples).  Prompt formats and code
extraction live in `coderl.rollout.formats`; `Sample` and `RolloutBatch` in `coderl.rollout.types`.

`import coderl.rollout` does not import torch or transformers; `generate` imports them when first used.
"""

from coderl.rollout.formats import FORMATS, Extraction, Format, extract_code, get_format, prompt_text
from coderl.rollout.types import RolloutBatch, Sample

__all__ = ["FORMATS", "Extraction", "Format", "RolloutBatch", "Sample", "extract_code", "generate",
           "get_format", "prompt_text"]


def __getattr__(name: str):
    if name == "generate":  # imports torch: only when first used
        from coderl.rollout.generation import generate

        return generate
    raise AttributeError(f"module 'coderl.rollout' has no attribute {name!r}")
