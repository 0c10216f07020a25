"""Several training processes through accelerate: `accelerate launch [--config_file F] -m coderl train ...`.

accelerate starts the processes, the process group and DDP; coderl adds only what its loops must agree
on (docs/scaling.md):

* Rollouts are sharded: each rank generates and scores a contiguous, chunk-aligned slice of the step's
  prompts (`shard`), with the seeds the one-process run gives those chunks, so the tokens do not depend
  on the number of ranks.
* The scored slices are gathered (`gather`): every rank then holds the whole step's batch, so
  advantages see whole groups and any global baseline, and dynamic sampling and the curriculum decide
  the same on every rank.
* Optimisation splits each minibatch's rows across ranks; each rank's loss is rescaled to the whole
  minibatch's denominator (`algorithms.aggregation.denominator_share`) and DDP averages the gradients,
  so an update equals the one-process update on the same minibatch.
* Metrics are averaged over ranks (`mean`); only rank 0 logs, evaluates and writes checkpoints, and a
  checkpoint resumes on any number of ranks (nothing in it is per rank).

One process (no `WORLD_SIZE` > 1 in the environment): no accelerate state is created and every helper
is the identity, so the one-process path is unchanged.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from coderl.base.config import ConfigError

PROCESS_GROUP_TIMEOUT = 4 * 3600  # seconds a rank waits in a collective (the others' evaluation, generation)


def unwrapped(module):
    """The module a `Ranks.wrap` (DDP) wrapper holds, or `module` itself."""
    return getattr(module, "module", module)


@dataclass
class Ranks:
    """This process's place among the training processes."""

    rank: int = 0
    world: int = 1
    accelerator: Any = None

    @property
    def is_main(self) -> bool:
        return self.rank == 0

    @property
    def on(self) -> bool:
        return self.world > 1

    @classmethod
    def start(cls, device: str = "cpu") -> Ranks:
        """The processes `accelerate launch` (or torchrun) started; one process: `Ranks()`."""
        if int(os.environ.get("WORLD_SIZE", "1")) <= 1:
            return cls()
        for variable, name in (("ACCELERATE_USE_FSDP", "FSDP"), ("ACCELERATE_USE_DEEPSPEED", "DeepSpeed")):
            if os.environ.get(variable, "false").lower() == "true":  # set by accelerate launch's config
                raise ConfigError(f"accelerate launch with {name} ({variable}=true): coderl trains data-parallel "
                                  "only (DDP: configs/accelerate/ddp.yaml); FSDP and DeepSpeed are not wired into its "
                                  "loops yet (docs/scaling.md)")
        import torch
        from accelerate import Accelerator
        from accelerate.utils import DistributedDataParallelKwargs, DistributedType, InitProcessGroupKwargs

        # Without CUDA (or with --device cpu) the ranks are CPU processes over gloo (accelerate's MULTI_CPU).
        # DDP does not broadcast buffers: a rank's forward passes then hold no collective, so ranks may run
        # different numbers of them (a shared-prompt pass is two); the buffers (rotary tables) never change.
        # The process group waits up to PROCESS_GROUP_TIMEOUT: the other ranks wait while rank 0 evaluates.
        # Precision is coderl's own (--dtype): accelerate's mixed precision would autocast the differentiated
        # passes only, and the sampling log-probs would no longer be the same function's.
        accelerator = Accelerator(cpu=device == "cpu" or not torch.cuda.is_available(), mixed_precision="no",
                                  kwargs_handlers=[DistributedDataParallelKwargs(broadcast_buffers=False),
                                                   InitProcessGroupKwargs(timeout=timedelta(seconds=PROCESS_GROUP_TIMEOUT))])
        dynamo = getattr(getattr(accelerator.state, "dynamo_plugin", None), "backend", None)
        dynamo = str(getattr(dynamo, "value", dynamo or "no")).lower()
        if dynamo != "no":
            raise ConfigError(f"accelerate launch with dynamo_backend {dynamo}: coderl compiles nothing through "
                              "accelerate; launch with --dynamo_backend no (configs/accelerate/ddp.yaml)")
        kind = accelerator.distributed_type
        if kind not in (DistributedType.MULTI_GPU, DistributedType.MULTI_CPU):
            raise ConfigError(f"accelerate distributed_type {kind.value}: coderl trains data-parallel only (DDP: "
                              "configs/accelerate/ddp.yaml, MULTI_GPU or MULTI_CPU; docs/scaling.md)")
        return cls(accelerator.process_index, accelerator.num_processes, accelerator)

    def shard(self, count: int, chunk: int) -> tuple[int, int]:
        """[start, end) of this rank's items among `count`: contiguous, cut at multiples of `chunk` (the
        generation chunk, so every chunk and its seed are the one-process run's) and balanced over the
        chunks.  With fewer chunks than ranks, cut per item instead (balanced; the chunks, so the sampled
        tokens, then differ from one process's)."""
        chunk = max(chunk, 1)
        chunks = -(-count // chunk)
        if chunks < self.world:
            chunk, chunks = 1, count
        start = min(count, self.rank * chunks // self.world * chunk)
        return start, min(count, (self.rank + 1) * chunks // self.world * chunk)

    def rows(self, rows, chunk: int = 1):
        """This rank's share of a minibatch's rows: a contiguous cut at multiples of `chunk` (a group's
        samples, so they share their prompt's pass), whatever rank generated them."""
        if not self.on:
            return rows
        start, end = self.shard(len(rows), chunk)
        return rows[start:end]

    def slots(self, items: list) -> list[tuple]:
        """(item, weight) pairs this rank runs of `items` (a step's micro-batches): every world-th item with
        weight `world` (DDP averages, so the ranks' gradients sum), padded to the same count on every
        rank with (items[0], 0.0), because every rank must join each synchronising backward.  One
        process: every item, weight 1."""
        if not self.on:
            return [(item, 1.0) for item in items]
        mine = [(item, float(self.world)) for item in items[self.rank::self.world]]
        return mine + [(items[0], 0.0)] * (-(-len(items) // self.world) - len(mine))

    def map_rows(self, count: int, fn):
        """`fn(rows)` -> a tensor with one row per row of `rows`, for all `count` rows: each rank computes a
        contiguous share and every rank gets them all (one process: `fn(None)`, i.e. every row)."""
        if not self.on:
            return fn(None)
        import torch

        start, end = self.shard(count, 1)
        part = fn(torch.arange(start, end)) if end > start else None
        return torch.cat([p for p in self.gather(part) if p is not None])

    def gather(self, obj) -> list:
        """`obj` of every rank, in rank order (pickled; CPU tensors only)."""
        if not self.on:
            return [obj]
        from accelerate.utils import gather_object

        return gather_object([obj])

    def broadcast(self, obj):
        """Rank 0's `obj` on every rank."""
        if not self.on:
            return obj
        from accelerate.utils import broadcast_object_list

        return broadcast_object_list([obj], from_process=0)[0]

    def mean(self, metrics: dict) -> dict:
        """Each key's mean over the ranks that report it (keys in rank 0's order, then the others')."""
        if not self.on:
            return metrics
        parts = self.gather(metrics)
        keys = list(dict.fromkeys(k for part in parts for k in part))
        return {k: sum(float(p[k]) for p in parts if k in p) / sum(k in p for p in parts) for k in keys}

    def mean_value(self, value: float) -> float:
        """`value`'s mean over the ranks."""
        return value if not self.on else sum(self.gather(float(value))) / self.world

    def wrap(self, module):
        """`module` under DDP (through accelerate) for the differentiated forward passes; itself alone."""
        if not self.on or not any(p.requires_grad for p in module.parameters()):
            return module
        import warnings

        with warnings.catch_warnings():  # torch >= 2.12 renames broadcast_buffers (same meaning for us)
            warnings.filterwarnings("ignore", message=".*broadcast_buffers.*", category=FutureWarning)
            return self.accelerator.prepare_model(module, device_placement=False)

    def no_sync(self, module, sync: bool):
        """DDP's `no_sync` (gradients accumulate locally) unless `sync`; a plain context with one process."""
        import contextlib

        return module.no_sync() if self.on and not sync and hasattr(module, "no_sync") else contextlib.nullcontext()

    def wait(self) -> None:
        if self.on:
            self.accelerator.wait_for_everyone()


def exit_process(code: int) -> None:
    """End a process of a launch (`WORLD_SIZE` > 1) with `code`, never returning.  The interpreter's own exit
    may abort it: gloo's worker threads drop the last collectives' tensors after the collective returns, and
    one that does so while the interpreter finalises is killed inside a C++ destructor (`terminate called
    without an active exception`, SIGABRT; 1 run in 5-7 of a bare 2-process all_reduce script).  So what the
    interpreter's exit does first happens here (the other threads joined, `atexit` handlers run, the streams
    flushed) and the process then ends at once (`os._exit`), before the finalisation that races with them."""
    import atexit
    import sys
    import threading

    for thread in threading.enumerate():
        if thread is not threading.current_thread() and not thread.daemon:
            thread.join()
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    os._exit(code)


def is_main_process() -> bool:
    """Rank 0 of a launch, or the only process (for what the CLI prints once)."""
    return int(os.environ.get("RANK", "0")) == 0
