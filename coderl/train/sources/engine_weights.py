"""How a vLLM engine gets the policy being trained (`--engine vllm`; docs/engines.md): started on the base
weights, then after every update sent the adapter (a new LoRARequest) or the whole weights, reloaded in place
(`sync_mode`).  The trainer's `EngineSource` and the asynchronous worker both serve it this way.
"""

from __future__ import annotations

import os
import shutil

from coderl.rollout.engine import ENGINE_LOG

ADAPTERS = "engine-adapters"  # under the run directory: the adapter the engine serves (the newest only)
WEIGHTS = "engine-weights"  # full fine-tuning: the whole model the engine last reloaded (the newest only)


def sync_mode(policy) -> str:
    """How the engine gets the policy after an update: "full" (every weight trains: the whole model, reloaded
    in place), "merged" (the LoRA adapter merged into the base weights, reloaded in place) or "adapter" (served
    as a new LoRARequest).  It merges when the trainer runs on CPU, where vLLM's LoRA path decodes 2.5x slower
    than the base weights (docs/engines.md), and serves the adapter on a GPU."""
    if policy.full:
        return "full"
    return "adapter" if next(policy.model.parameters()).device.type == "cuda" else "merged"


def start_engine(cfg, policy, log, threads: int | None = None):
    """A vLLM engine for the policy being trained (LoRA up to its rank when it will be sent adapters), output in
    OUT/engine.log; `threads`: cores it binds (None: all this process may use)."""
    from coderl.rollout.vllm_engine import engine_for

    return engine_for(policy.model, policy.path, cfg.model, dtype=cfg.dtype, seed=cfg.seed,
                      max_model_len=cfg.max_total_sequence_length, threads=threads, log=log,
                      log_file=os.path.join(cfg.out, ENGINE_LOG), lora=sync_mode(policy) == "adapter")


def serve_policy(engine, policy, out: str, version: int) -> str:
    """Have the engine sample with the policy's weights after `version` steps, as `sync_mode` says, saved under
    the run directory `out`: the adapter in OUT/engine-adapters/vVERSION, served as a new LoRARequest, or the
    whole weights in OUT/engine-weights/vVERSION (full fine-tuning: the model; LoRA: the adapter merged into the
    base, `models.merge`), which the engine reloads in place (`VLLMEngine.reload_weights`).  The older versions
    are removed; the folder served."""
    from coderl.models.load import save_adapter, save_model
    from coderl.models.merge import save_merged

    adapter = sync_mode(policy) == "adapter"
    folder = os.path.join(out, ADAPTERS if adapter else WEIGHTS)
    path = os.path.join(folder, f"v{version}")
    shutil.rmtree(path, ignore_errors=True)
    if adapter:
        save_adapter(policy.model, path, policy.base, adapters=["default"])
        path = path if os.path.exists(os.path.join(path, "adapter_config.json")) else os.path.join(path, "default")
        engine.set_adapter(path)
    else:
        if policy.full:
            save_model(policy.model, policy.tokenizer, path)
        else:
            save_merged(policy.model, path)
        engine.reload_weights(path)
    for old in os.listdir(folder):
        if old != f"v{version}":
            shutil.rmtree(os.path.join(folder, old), ignore_errors=True)
    return path
