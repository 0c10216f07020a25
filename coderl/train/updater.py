"""The updater: what one optimiser update needs behind one call, so the loops only say what the loss is.

    optimizer, scheduler = build_optimizer(trainable_parameters(modules), ...)   # AdamW, `lr_factor`'s schedule
    updater = Updater(modules, optimizer, scheduler, ranks, ...)    # `train/rl/common.py` builds it
    model, *rest = updater.trained                                   # the modules to differentiate
    stats = updater.update(rows, mask, loss_fn, width=W)             # RL: one minibatch's rows
    stats = updater.update_batches(batches, loss_fn)                 # SFT: one step's micro-batches
    lr = updater.end_step()                                          # the schedule moves on

Inside: the optimiser (AdamW) and its schedule (`build_optimizer`, `lr_factor`), the trainable parameters
(`log_trainable` counts them), the training processes (a minibatch's rows shared across ranks, DDP
synchronising only the last backward), micro-batches (gradient accumulation, `train/microbatch.py`) of
`--micro-batch-size` rows or sized by the memory budget (`train/memory.py`: a one-row probe per kind of
pass), gradient clipping and the optimiser step (`apply_gradients`), and the non-finite guard (a NaN or
infinite update is never applied; `NonFiniteSteps.limit` such steps in a row stop the run: `NonFiniteUpdates`).
Its `clock` times the parts of a step (`Clock`; the loops log them through `common.step_timings`).
"""

from __future__ import annotations

import contextlib
import math
import time
import warnings
from collections.abc import Callable

import torch

from coderl.base.config import ConfigError
from coderl.train.distributed import Ranks
from coderl.train.memory import MemoryBudget
from coderl.train.microbatch import pieces, synchronising


def lr_factor(schedule: str, warmup_steps: int, total_steps: int):
    """step (0-based) -> learning-rate multiplier: linear warmup over `warmup_steps`, then constant,
    linear or cosine decay over the remaining steps."""
    def factor(step: int) -> float:
        if warmup_steps and step < warmup_steps:
            return (step + 1) / warmup_steps
        if schedule == "constant":
            return 1.0
        progress = (step - warmup_steps) / max(1, total_steps - warmup_steps)
        if schedule == "linear":
            return max(0.0, 1.0 - progress)
        return 0.5 * (1.0 + math.cos(math.pi * min(1.0, progress)))

    return factor


def build_optimizer(params: list, *, learning_rate: float, weight_decay: float, schedule: str, warmup_steps: int,
                    total_steps: int):
    """(AdamW over `params`, its LambdaLR schedule of `lr_factor`): the one optimiser SFT and the RL loops step."""
    # The schedule counts optimiser steps, applied or skipped (`apply_gradients`); when the first update is
    # skipped torch warns that the scheduler stepped before the optimiser, which is what we mean.
    warnings.filterwarnings("ignore", message=r"Detected call of `lr_scheduler\.step\(\)` before")
    optimizer = torch.optim.AdamW(params, lr=learning_rate, weight_decay=weight_decay)
    return optimizer, torch.optim.lr_scheduler.LambdaLR(optimizer, lr_factor(schedule, warmup_steps, total_steps))


def apply_gradients(params: list, optimizer, max_grad_norm: float | None, *, loss: float) -> dict:
    """Clip the gradient already accumulated in `params` as one vector (`max_grad_norm` 0 = off: only
    measured), then one optimiser step.  `loss`: the value those gradients came from (logged).

    A non-finite update is never applied: when the loss or the gradient norm is NaN or infinite, the
    gradient is dropped and the optimiser does not step (weights and AdamW moments stay as they were;
    `train/skipped_update_fraction` says so, and `NonFiniteSteps` counts and stops)."""
    norm = float(torch.nn.utils.clip_grad_norm_(params, max_grad_norm or float("inf")))
    applied = math.isfinite(norm) and math.isfinite(loss)
    if applied:
        optimizer.step()
    else:
        optimizer.zero_grad(set_to_none=True)
    return {"train/grad_norm": norm, "loss/total": loss, "train/skipped_update_fraction": 0.0 if applied else 1.0}


class NonFiniteUpdates(ConfigError):
    """Too many steps in a row whose update was not finite: the run stops (one line, exit code 2)."""


class NonFiniteSteps:
    """Steps with a skipped (non-finite) update: `train/nonfinite_steps` (cumulative), and a stop after
    `limit` such steps in a row.  `state` / `state_dict()`: kept in checkpoints, so resume counts on."""

    limit = 3

    def __init__(self, state: dict | None = None, *, advice: str = "Lower --learning-rate or --max-grad-norm"):
        self.total = int((state or {}).get("total", 0))
        self.in_a_row = int((state or {}).get("in_a_row", 0))
        self.advice = advice

    def end_step(self, step: int, skipped: bool) -> dict:
        """Count step `step` (1-based); its metric."""
        self.total += bool(skipped)
        self.in_a_row = self.in_a_row + 1 if skipped else 0
        return {"train/nonfinite_steps": self.total}

    def stop_if_due(self, step: int) -> None:
        if self.in_a_row >= self.limit:
            raise NonFiniteUpdates(f"step {step}: loss or gradient not finite in {self.in_a_row} steps in a row "
                                   f"(steps {step - self.in_a_row + 1}-{step}); not applied. {self.advice}")

    def state_dict(self) -> dict:
        return {"total": self.total, "in_a_row": self.in_a_row}


class Averages:
    """Running means of statistics; a `first_minibatch/*` diagnostic is the first one added, as it is."""

    def __init__(self):
        self.sums: dict[str, float] = {}
        self.counts: dict[str, int] = {}  # per key: a rank left with only padding in an update reports none

    def add(self, stats: dict, *, count: bool = True) -> None:
        """`count=False` (a padding piece): only a first diagnostic not yet seen is kept."""
        for k, v in stats.items():
            if k.startswith("first_minibatch/"):
                if k not in self.sums:
                    self.sums[k] = float(v)
            elif count:
                self.sums[k] = self.sums.get(k, 0.0) + float(v)
                self.counts[k] = self.counts.get(k, 0) + 1

    def result(self) -> dict:
        return {k: (v / self.counts[k] if not k.startswith("first_minibatch/") else v) for k, v in self.sums.items()}


class Clock:
    """Seconds spent per named part of a step: `with clock("reference"): ...`; `take()` -> {"time/<part>": s}
    and starts over.  A part timed inside another is taken out of the outer one's time, so the parts never
    overlap and sum to no more than the step.

    Host wall time, and nothing more: no `torch.cuda.synchronize` is added (it would stall every piece).  On
    the CPU, the target, a part's time is its own; on CUDA kernels run asynchronously, so a part can end
    before its kernels do and their time lands in the next part that waits for them (each piece's
    `float(loss)` after its backward waits)."""

    def __init__(self):
        self.seconds: dict[str, float] = {}
        self.inner = [0.0]  # per open part: the seconds of the parts timed inside it

    @contextlib.contextmanager
    def __call__(self, part: str):
        self.inner.append(0.0)
        start = time.perf_counter()
        try:
            yield
        finally:
            spent = time.perf_counter() - start
            self.seconds[part] = self.seconds.get(part, 0.0) + spent - self.inner.pop()
            self.inner[-1] += spent

    def take(self) -> dict:
        out = {f"time/{part}": round(seconds, 3) for part, seconds in self.seconds.items()}
        self.seconds = {}
        return out


def trainable_parameters(modules: list) -> list:
    """What the optimiser steps: every parameter of `modules` that requires a gradient, in order."""
    return [p for m in modules for p in m.parameters() if p.requires_grad]


def log_trainable(modules: list, log) -> None:
    total = sum(p.numel() for m in modules for p in m.parameters())
    n_train = sum(p.numel() for m in modules for p in m.parameters() if p.requires_grad)
    log(f"trainable parameters: {n_train:,} / {total:,} ({100 * n_train / total:.2f}%)")


class Updater:
    """Optimiser, schedule, trainable parameters, ranks and micro-batches of one training run."""

    def __init__(self, modules: list, optimizer, scheduler, *, ranks: Ranks | None = None,
                 max_grad_norm: float | None = None, micro_batch_size: int | None = None, group: int = 1,
                 aggregation: str = "token_mean", nonfinite: NonFiniteSteps | None = None,
                 memory: MemoryBudget | None = None):
        self.ranks = ranks or Ranks()
        self.memory = memory or MemoryBudget(None)
        self.modules = modules
        self.trained = [self.ranks.wrap(m) for m in modules]  # under DDP with several ranks
        self.trainable = trainable_parameters(modules)
        self.optimizer, self.scheduler = optimizer, scheduler
        self.max_grad_norm = max_grad_norm
        self.micro_batch_size, self.group, self.aggregation = micro_batch_size, group, aggregation
        self.nonfinite = nonfinite or NonFiniteSteps()
        self.clock = Clock()  # forward, backward, optimizer, memory_probe here; the loops time their own passes

    def update(self, rows: torch.Tensor, mask: torch.Tensor, loss_fn: Callable, *, width: int = 0,
               live: torch.Tensor | None = None) -> dict:
        """One update on a minibatch's `rows` (of a batch whose loss mask is `mask` [N, T] and whose
        sequences are `width` tokens): this rank's share cut into micro-batches (`--micro-batch-size`, or
        the memory budget's choice), `loss_fn(rows) -> (loss, stats)` on each, every backward weighted so
        the gradients sum to the whole minibatch's; then one clipped step.  Statistics are the pieces' means,
        and the first piece's `first_minibatch/*` diagnostics as they are; the budget's probe (one row's call of
        `loss_fn`) reports none.  `live`: the rows whose loss term can be non-zero
        (`microbatch.pieces`; one process)."""
        size = self.micro_batch_size
        if size is None and self.memory.budget is not None:
            widest = rows[int((mask[rows] != 0).sum(1).argmax())].reshape(1)  # the most loss tokens to project
            with self.clock("memory_probe"):  # the first (or a wider) batch: one row's forward and backward
                size = self.memory.rows("grad", len(rows), width, lambda: self._probe(widest, loss_fn))  # ranks alike
        return self._apply(pieces(self.ranks, rows, mask, size=size, group=self.group,
                                  aggregation=self.aggregation, live=live), loss_fn)

    def _probe(self, row: torch.Tensor, loss_fn: Callable) -> None:
        """One row's forward and backward (no gradient synchronised, none kept, its statistics dropped): the
        budget's measurement."""
        with synchronising(self.ranks, self.trained, last=False):
            loss_fn(row)[0].backward()
        self.optimizer.zero_grad(set_to_none=True)

    def update_batches(self, batches: list, loss_fn: Callable) -> dict:
        """One update over a step's micro-batches, shared among the ranks: `loss_fn(batch) -> (loss,
        stats)` with `loss` already that batch's share of the step's loss."""
        return self._apply(self.ranks.slots(batches), loss_fn)

    def _apply(self, parts: list, loss_fn: Callable) -> dict:
        """Statistics: the mean over this rank's real pieces, then `train/grad_norm`, `loss/total`,
        `train/skipped_update_fraction` (`apply_gradients`: a non-finite update is dropped)."""
        self.optimizer.zero_grad(set_to_none=True)
        total, averages = 0.0, Averages()
        for i, (item, weight) in enumerate(parts):
            with synchronising(self.ranks, self.trained, last=i == len(parts) - 1):
                with self.clock("forward"):
                    loss, stats = loss_fn(item)
                with self.clock("backward"):
                    (loss * weight).backward()
            total += float(loss.detach()) * weight
            averages.add(stats, count=weight > 0)
        stats = {**averages.result(), **self.memory.metrics()}
        with self.clock("optimizer"):  # clipping and the step; weights hold `world`: the loss's mean is the sum
            stats.update(apply_gradients(self.trainable, self.optimizer, self.max_grad_norm,
                                         loss=self.ranks.mean({"loss": total})["loss"]))
        return stats

    def end_step(self) -> float:
        """The schedule's next step; the learning rate it sets."""
        self.scheduler.step()
        return self.scheduler.get_last_lr()[0]

    def count_nonfinite(self, done: int, metrics: dict) -> dict:
        """Count step `done` (1-based) for the non-finite guard: `train/nonfinite_steps`."""
        return self.nonfinite.end_step(done, metrics.get("train/skipped_update_fraction", 0.0) > 0)

    def map_rows(self, count: int, fn: Callable, *, width: int = 0):
        """`fn(rows)` over all `count` rows, shared among the ranks (`Ranks.map_rows`): a no-grad pass, in
        pieces of the rows the memory budget allows (`fn` returns one row of output per row)."""
        if self.memory.budget is None:
            return self.ranks.map_rows(count, fn)
        return self.ranks.map_rows(count, lambda rows: self.pieces(torch.arange(count) if rows is None else rows, fn,
                                                                   width=width))

    def pieces(self, rows: torch.Tensor, fn: Callable, *, width: int = 0, whole: int | None = None):
        """`fn(part)` over this process's `rows` alone (a no-grad pass), concatenated: in pieces of what the
        memory budget allows, or without a budget of `--micro-batch-size` rows, else `whole` (None: all)."""
        if self.memory.budget is not None:  # sharded weights: every rank runs the same pieces (each is a collective)
            with self.clock("memory_probe"):
                size = self.memory.rows("no_grad", len(rows), width, lambda: fn(rows[:1]), agree=self.ranks.sharded)
        else:
            size = self.micro_batch_size or whole or len(rows)
        return fn(rows) if size >= len(rows) else torch.cat([fn(part) for part in rows.split(size)])

    def mean(self, stats: dict) -> dict:
        """Each statistic's mean over the ranks."""
        return self.ranks.mean(stats)

    def state_dict(self) -> dict:
        """Optimiser (whole, as one process holds it: under FSDP gathered on rank 0, every rank calling),
        schedule, non-finite counts."""
        return {"optimizer": self.ranks.optimizer_state(self.optimizer), "scheduler": self.scheduler.state_dict(),
                "nonfinite": self.nonfinite.state_dict()}

    def load_state_dict(self, state: dict) -> None:
        """What `state_dict` saved (a checkpoint's trainer state): optimiser, schedule, non-finite counts.  The
        learning rate of the next step is this schedule's at the saved position (the saved rate was the old
        schedule's: a resumed run with more --steps decays over the new total from its first step on)."""
        self.ranks.load_optimizer_state(self.optimizer, state["optimizer"])
        self.scheduler.load_state_dict(state["scheduler"])
        lrs = [base * factor(self.scheduler.last_epoch)
               for base, factor in zip(self.scheduler.base_lrs, self.scheduler.lr_lambdas)]
        for group, lr in zip(self.optimizer.param_groups, lrs):
            group["lr"] = lr
        self.scheduler._last_lr = lrs  # what get_last_lr() says (LambdaLR keeps no other copy)
        self.nonfinite = NonFiniteSteps(state.get("nonfinite", {}), advice=self.nonfinite.advice)

