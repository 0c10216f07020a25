"""Where a training step's scored rollouts come from: one interface, three sources.

    source.get(step) -> ScoredRollouts             # the step's completions, scored by the sandbox
    source.correction(rolled, updater, prox=None)  # how its rows enter the policy loss (`train/sources/off_policy.py`)
    source.publish(version)                        # the weights after `version` steps exist (the loop says so)
    source.close()

* `LocalSource`: generated and scored here, by the policy being trained (`rounds.step_rollouts`); under
  several training processes each generates and scores its slice of every round, the slices gathered so
  every process holds the whole step (`train/distributed.py`).
* `AsyncRollouts` (`train/sources/async_rollouts.py`): a generation worker process samples steps ahead from
  snapshots of the weights; its stale rows are corrected off-policy.
* `EngineSource` (`train/sources/engine_source.py`): `LocalSource` with a vLLM engine sampling (`--engine vllm`), sent
  the adapter after every update; its rows are corrected off-policy against the engine's log-probs.

What generating and scoring needs is one typed record, `RolloutContext` (`train/sources/rounds.py`); the
asynchronous worker receives the same fields and builds its own (its policy, its sandbox).
"""

from __future__ import annotations

from typing import Protocol

from torch import Tensor

from coderl.train.distributed import Ranks
from coderl.train.sources.off_policy import Correction, behaviour_correction
from coderl.train.sources.rounds import RolloutContext, ScoredRollouts, step_rollouts


class RolloutSource(Protocol):
    def get(self, step: int) -> ScoredRollouts: ...

    def correction(self, rolled: ScoredRollouts, updater=None, prox: Tensor | None = None) -> Correction: ...

    def publish(self, version: int, grad_norm: float | None = None) -> None: ...

    def close(self) -> None: ...


class LocalSource:
    """Rollouts generated and scored by the policy being trained: on-policy rows.  `ranks`: the training processes
    that share every round, each its slice (chunk-aligned and seeded as one process seeds those chunks), all
    gathering the whole round (None: this process alone)."""

    def __init__(self, ctx: RolloutContext, ranks: Ranks | None = None):
        self.ctx, self.ranks = ctx, ranks or Ranks()

    def get(self, step: int) -> ScoredRollouts:
        return step_rollouts(self.ctx, step, self.ranks)

    def correction(self, rolled: ScoredRollouts, updater=None, prox: Tensor | None = None) -> Correction:
        """The sampling log-probs are the old log-probs (the weights that sampled are the current ones)."""
        return behaviour_correction(self.ctx.cfg, self.ctx.policy.model, rolled.batch, None)

    def publish(self, version: int, grad_norm: float | None = None) -> None:
        """Nothing to send: the next step samples with the weights in this process."""

    def close(self) -> None:
        """Nothing to stop: the sandbox belongs to the run's session."""
