"""Names transformers gives the parts of a causal LM's call: the KV cache's keyword and output field, which
transformers 5 renamed (`past_key_values` -> `cache`).  Read by the HF sampler (`rollout/hf.py`) and the
log-prob passes (`train/logprobs.py`) alike."""

from transformers.generation.utils import GenerateDecoderOnlyOutput

KV_CACHE = "cache" if "cache" in getattr(GenerateDecoderOnlyOutput, "__dataclass_fields__", {}) else "past_key_values"
