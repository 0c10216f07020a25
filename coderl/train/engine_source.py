"""Rollouts sampled by a vLLM engine (`--engine vllm`; docs/engines.md): `LocalSource` with the engine
sampling in place of the trained model.

    start:               the engine loads the base weights; the policy's adapter is saved and served
    get(step):           the step's prompts are sampled by the engine, scored here (`rounds.step_rollouts`)
    correction(rolled):  every row is off-policy: mu = the engine's log-probs, pi_prox = the trainer's
    publish(version):    the adapter after the update is saved and served (a new LoRARequest), or the whole
                         weights are saved and the engine reloads them in place: --finetune full, and LoRA
                         merged into the base (on CPU: `sync_mode`)

The engine's weights are the trainer's (the same adapter file), but its kernels are not: its log-probs of a
token differ from the trainer's by a little (about 1e-5 in float32, more in bfloat16), and by more where a
near-tie made it sample a token the trainer would weigh differently.  So its rows enter the loss as the
asynchronous worker's stale rows do (`train/off_policy.py`): the ratio's denominator is pi_prox, the
trainer's log-probs before the step's update (the update's own pass when the step makes one update, else one
no-grad pass), and each row's terms carry the truncated importance weight min(pi_prox / mu, cap).  The
is/* metrics log the mean and largest |log pi_prox - log mu| of every step.
"""

from __future__ import annotations

import os
import shutil

import torch
from torch import Tensor

from coderl.rollout.engine import ENGINE_LOG
from coderl.train.off_policy import Correction, behaviour_correction
from coderl.train.rollout_source import LocalSource, RolloutContext

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


def _newest_only(folder: str, version: int) -> None:
    for old in os.listdir(folder):
        if old != f"v{version}":
            shutil.rmtree(os.path.join(folder, old), ignore_errors=True)


def serve_adapter(engine, policy, out: str, version: int) -> str:
    """Save the adapter being trained (the weights after `version` steps) under OUT/engine-adapters/vVERSION,
    have the engine serve it, and remove the older ones; the folder served."""
    from coderl.models.load import save_adapter

    folder = os.path.join(out, ADAPTERS)
    path = os.path.join(folder, f"v{version}")
    shutil.rmtree(path, ignore_errors=True)
    save_adapter(policy.model, path, policy.base, adapters=["default"])
    served = path if os.path.exists(os.path.join(path, "adapter_config.json")) else os.path.join(path, "default")
    engine.set_adapter(served)
    _newest_only(folder, version)
    return served


def serve_weights(engine, policy, out: str, version: int) -> str:
    """Save the policy's whole weights after `version` steps under OUT/engine-weights/vVERSION (full
    fine-tuning: the model; LoRA: the adapter merged into the base, `models.merge`), have the engine reload
    them in place (`VLLMEngine.reload_weights`), and remove the older ones; the folder served."""
    from coderl.models.load import save_model
    from coderl.models.merge import save_merged

    folder = os.path.join(out, WEIGHTS)
    path = os.path.join(folder, f"v{version}")
    shutil.rmtree(path, ignore_errors=True)
    if policy.full:
        save_model(policy.model, policy.tokenizer, path)
    else:
        save_merged(policy.model, path)
    engine.reload_weights(path)
    _newest_only(folder, version)
    return path


def serve_policy(engine, cfg, policy, version: int) -> str:
    """Have the engine sample with the policy's weights after `version` steps, as `sync_mode` says: its adapter,
    or its whole weights (full fine-tuning, or the adapter merged)."""
    serve = serve_adapter if sync_mode(policy) == "adapter" else serve_weights
    return serve(engine, policy, cfg.out, version)


class EngineSource(LocalSource):
    """A vLLM engine samples; the trainer scores, corrects and updates (module docstring)."""

    def __init__(self, ctx: RolloutContext, start_step: int):
        super().__init__(ctx)
        self.engine = start_engine(ctx.cfg, ctx.policy, ctx.log)
        ctx.engine = self.engine
        try:
            self.publish(start_step)
        except BaseException:
            self.close()
            raise

    def publish(self, version: int) -> None:
        """Save the adapter being trained, or the whole model (after `version` steps), and have the engine
        serve it."""
        serve_policy(self.engine, self.ctx.cfg, self.ctx.policy, version)

    def correction(self, rolled, updater=None, prox: Tensor | None = None) -> Correction:
        """Every row is off-policy (age 1 in the asynchronous worker's terms): pi_prox and truncated IS weights."""
        ages = torch.ones(len(rolled.batch), dtype=torch.long)
        return behaviour_correction(self.ctx.cfg, self.ctx.policy.model, rolled.batch, ages, prox=prox,
                                    updater=updater)

    def close(self) -> None:
        self.engine.close()
        self.ctx.engine = None
