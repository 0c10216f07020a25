"""The off-policy correction of a step whose rollouts came from older weights (asynchronous rollouts,
`train/sources/async_rollouts.py`); the math is `algorithms/off_policy.py`.

Rows sampled by the current weights (age 0) are what the synchronous loop trains on: their old log-probs
are the sampling ones and their weight is 1.  Stale rows (age > 0) get pi_prox, the current weights'
log-probs before the step's first update, as the ratio's denominator, and the truncated IS weight
min(pi_prox / mu, cap) on their loss terms.  pi_prox costs one no-grad pass over the stale rows, except
when the step makes a single update (one epoch, one minibatch: GRPO's default): then every forward pass of
that update runs on the step's starting weights, so pi_prox is the pass's own log-probs, detached, and
no extra pass is run.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import Tensor

from coderl.algorithms.off_policy import truncated_is_weights, weighted_advantages
from coderl.train.config import OptimConfig
from coderl.train.logprobs import build_sequences, token_logprobs

FRESH = {"is/weight_mean": 1.0, "is/truncated_fraction": 0.0, "is/max_abs_log_ratio": 0.0,
         "is/mean_abs_log_ratio": 0.0, "is/stale_fraction": 0.0}


@dataclass
class Correction:
    """How a step's rows enter the policy loss (`for_rows`), and the step's is/* statistics (`stats`)."""

    old_logprobs: Tensor  # [N, T] mu's log-probs on fresh rows, pi_prox's on stale ones (filled by `for_rows`
    # when `in_loss`)
    behaviour: Tensor  # [N, T] mu: the sampling log-probs the worker recorded
    stale: Tensor | None  # [N] bool, rows sampled by older weights; None: none (the synchronous loop's case)
    in_loss: bool  # pi_prox of stale rows is the update's own forward pass (a single update per step)
    cap: float
    level: str  # the ratio's level: token, sequence or sequence_mean
    asynchronous: bool  # rollouts came from the worker (is/* metrics are logged)

    @property
    def needs_every_row(self) -> bool:
        """The update's pass sets the stale rows' old log-probs (`in_loss`), so every row must run it."""
        return self.stale is not None and self.in_loss

    def for_rows(self, rows, logprobs: Tensor, mask: Tensor, advantages: Tensor) -> tuple[Tensor, Tensor]:
        """(old log-probs [n, T], advantages [n, T] times the IS weights) of `rows`, given the pass's
        log-probs [n, T]."""
        if self.stale is None:
            return self.old_logprobs[rows], advantages
        old = self.old_logprobs[rows]
        if self.in_loss:
            old = torch.where(self.stale[rows][:, None], logprobs.detach().to(old), old)
            self.old_logprobs[rows] = old
        weights, _ = truncated_is_weights(old, self.behaviour[rows], mask, self.cap, self.level)
        return old, weighted_advantages(advantages, weights)

    def stats(self, mask: Tensor) -> dict:
        """is/*: the weights' mean, the truncated fraction, the largest |log pi_prox - log mu| and the stale
        rows' fraction, over the step (after every row has been through `for_rows`); {} when synchronous."""
        if not self.asynchronous:
            return {}
        if self.stale is None:
            return dict(FRESH)
        _, stats = truncated_is_weights(self.old_logprobs, self.behaviour, mask, self.cap, self.level)
        return {**stats, "is/stale_fraction": float(self.stale.float().mean())}


def single_update(optim: OptimConfig, rows: int) -> bool:
    """The step makes one optimizer update: one epoch over one minibatch of every row."""
    return optim.epochs == 1 and (optim.minibatch_size or rows) >= rows


def behaviour_correction(cfg, model, batch, ages: Tensor | None, prox: Tensor | None = None,
                         updater=None) -> Correction:
    """The step's correction (module docstring).  Synchronous rollouts (ages None) and all-fresh steps
    train as the synchronous loop does; otherwise pi_prox is `prox` when the loop has it already ([N, T]
    under the step's starting weights: PPO's pass for the old values), else computed now (several
    updates; in the pieces the `updater`'s memory budget allows) or in the update's own pass (one
    update).  `model`: the policy being trained."""
    level = cfg.loss_options.ratio_level or "token"
    stale = None if ages is None or not bool((ages > 0).any()) else ages > 0
    in_loss = single_update(cfg.optim, len(batch)) and prox is None
    old = batch.logprobs if stale is None else batch.logprobs.clone()
    if stale is not None and prox is not None:
        old[stale] = prox[stale].to(old)
    elif stale is not None and not in_loss:
        model.eval()  # dropout off, as in every log-prob pass
        stale_rows = torch.nonzero(stale).flatten()
        chunk_bytes = updater.memory.chunk_bytes if updater is not None else None

        def pi_prox(rows):
            return token_logprobs(model, build_sequences(batch, rows), cfg.temperature, chunk_bytes=chunk_bytes).to(old)

        whole = cfg.optim.micro_batch_size or cfg.optim.minibatch_size or len(batch)  # the update's rows
        with torch.no_grad():
            if updater is None:
                old[stale_rows] = torch.cat([pi_prox(rows) for rows in stale_rows.split(whole)])
            else:
                old[stale_rows] = updater.pieces(stale_rows, pi_prox, width=batch.width, whole=whole)
    return Correction(old, batch.logprobs, stale, in_loss, cfg.asynchronous.tis_cap, level, ages is not None)
