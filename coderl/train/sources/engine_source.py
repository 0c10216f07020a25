"""Rollouts sampled by a vLLM engine (`--engine vllm`; docs/engines.md): `LocalSource` with the engine
sampling in place of the trained model.

    start:               the engine loads the base weights; the policy's adapter is saved and served
    get(step):           the step's prompts are sampled by the engine, scored here (`rounds.step_rollouts`)
    correction(rolled):  every row is off-policy: mu = the engine's log-probs, pi_prox = the trainer's
    publish(version):    the adapter after the update is saved and served (a new LoRARequest), or the whole
                         weights are saved and the engine reloads them in place: --finetune full, and LoRA
                         merged into the base (on CPU: `engine_weights.sync_mode`); proven by the digest of
                         what the engine loaded (`engine_weights.serve_policy`, `WeightsProof`)

The engine's weights are the trainer's (the same adapter file), but its kernels are not: its log-probs of a
token differ from the trainer's by a little (about 1e-5 in float32, more in bfloat16), and by more where a
near-tie made it sample a token the trainer would weigh differently.  So its rows enter the loss as the
asynchronous worker's stale rows do (`train/sources/off_policy.py`): the ratio's denominator is pi_prox, the
trainer's log-probs before the step's update (the update's own pass when the step makes one update, else one
no-grad pass), and each row's terms carry the truncated importance weight min(pi_prox / mu, cap).  The
is/* metrics log the mean and largest |log pi_prox - log mu| of every step.
"""

from __future__ import annotations

import dataclasses

import torch
from torch import Tensor

from coderl.train.sources.engine_weights import WeightsProof, serve_policy, start_engine
from coderl.train.sources.off_policy import Correction, behaviour_correction
from coderl.train.sources.rollout_source import LocalSource
from coderl.train.sources.rounds import RolloutContext


class EngineSource(LocalSource):
    """A vLLM engine samples; the trainer scores, corrects and updates (module docstring)."""

    def __init__(self, ctx: RolloutContext, start_step: int):
        self.engine = start_engine(ctx.cfg, ctx.policy, ctx.log)
        super().__init__(dataclasses.replace(ctx, engine=self.engine))  # the engine samples this source's rows
        try:
            self.publish(start_step)
            self.proof = WeightsProof(self.engine.loaded_digest)  # the first non-zero update must change them
        except BaseException:
            self.close()
            raise

    def publish(self, version: int, grad_norm: float | None = None) -> None:
        """Save the adapter being trained, or the whole model (after `version` steps), and have the engine
        serve it; proven by digest (`engine_weights.serve_policy`), and after the first update whose gradient
        (`grad_norm`, the step's train/grad_norm) is not zero, the engine's weights must have changed."""
        serve_policy(self.engine, self.ctx.policy, self.ctx.cfg.out, version, log=self.ctx.log)
        if hasattr(self, "proof"):
            self.proof.check(version, grad_norm)

    def correction(self, rolled, updater=None, prox: Tensor | None = None) -> Correction:
        """Every row is off-policy (age 1 in the asynchronous worker's terms): pi_prox and truncated IS weights."""
        ages = torch.ones(len(rolled.batch), dtype=torch.long)
        return behaviour_correction(self.ctx.cfg, self.ctx.policy.model, rolled.batch, ages, prox=prox,
                                    updater=updater)

    def close(self) -> None:
        self.engine.close()
