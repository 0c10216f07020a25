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

Under FSDP (`configs/accelerate/fsdp.yaml`: accelerate sets `ACCELERATE_USE_FSDP`, `FSDP_VERSION=2`) the same
loops run on weights sharded with torch's `fully_shard` (`Ranks.fully_shard`: accelerate's FSDP2 plugin
prepares models only on GPUs and only together with their optimizer, so coderl applies `fully_shard` itself,
with the launch's settings read by accelerate's `FullyShardedDataParallelPlugin`).  Every forward of a sharded
model is a collective, so every rank must run the same sequence of them:

* generation runs in lockstep (`Ranks.generating`: `rollout.hf.Lockstep`, `generate(synced_gpus=True)`, dummy
  calls on a rank with nothing left to generate), rank 0's evaluation included;
* a no-grad pass gives every rank the same number of rows (`map_rows` pads the short shards), and each
  log-prob pass runs the same forwards whatever its rows (the shared-prompt pair always, never chunked
  logits: `train/logprobs.py`);
* checkpoints hold full state dicts, gathered on rank 0 (`full_state`, `optimizer_state`), so a checkpoint is
  a one-process one and resumes on any number of ranks, sharded or not.

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
    fsdp: Any = None  # under FSDP: the launch's settings (accelerate's FullyShardedDataParallelPlugin)

    @property
    def is_main(self) -> bool:
        return self.rank == 0

    @property
    def on(self) -> bool:
        return self.world > 1

    @property
    def sharded(self) -> bool:
        """The weights are sharded across the ranks (FSDP): every forward is a collective."""
        return self.fsdp is not None

    def refuse_qlora(self, qlora: bool) -> None:
        """--qlora under FSDP is one ConfigError line: coderl shards no 4-bit weights."""
        if self.sharded and qlora:
            raise ConfigError("--qlora under FSDP: 4-bit weights are not sharded by coderl; drop --qlora, or launch "
                              "with configs/accelerate/ddp.yaml")

    @classmethod
    def start(cls, device: str = "cpu") -> Ranks:
        """The processes `accelerate launch` (or torchrun) started; one process: `Ranks()`."""
        if int(os.environ.get("WORLD_SIZE", "1")) <= 1:
            return cls()
        if os.environ.get("ACCELERATE_USE_DEEPSPEED", "false").lower() == "true":  # set by accelerate launch's config
            raise ConfigError("accelerate launch with DeepSpeed (ACCELERATE_USE_DEEPSPEED=true): coderl shards with "
                              "FSDP2 (configs/accelerate/fsdp.yaml) or data-parallel (configs/accelerate/ddp.yaml); "
                              "DeepSpeed is not wired into its loops (docs/scaling.md)")
        fsdp = _fsdp_settings() if os.environ.get("ACCELERATE_USE_FSDP", "false").lower() == "true" else None
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
        # FSDP: accelerate says FSDP on GPUs, MULTI_CPU on CPUs (its FSDP plugin is GPU-only); coderl shards either way
        if kind not in (DistributedType.MULTI_GPU, DistributedType.MULTI_CPU, DistributedType.FSDP):
            raise ConfigError(f"accelerate distributed_type {kind.value}: coderl trains data-parallel (DDP: "
                              "configs/accelerate/ddp.yaml, MULTI_GPU or MULTI_CPU) or sharded (FSDP2: "
                              "configs/accelerate/fsdp.yaml; docs/scaling.md)")
        return cls(accelerator.process_index, accelerator.num_processes, accelerator, fsdp)

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
        rows = torch.arange(start, end)
        if self.sharded:  # every rank runs the same passes: the short shards are padded with a copy of a row
            most = max(e - s for s, e in (Ranks(r, self.world).shard(count, 1) for r in range(self.world)))
            padded = torch.cat([rows, torch.full((most - len(rows),), int(rows[-1]) if len(rows) else 0)])
            out = fn(padded)
            part = out[:len(rows)] if len(rows) else None
        else:
            part = fn(rows) if end > start else None
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

    def wrap(self, module):
        """`module` under DDP (through accelerate) for the differentiated forward passes; itself alone, or
        when it is sharded already (FSDP: `fully_shard`, before the optimiser is built)."""
        if not self.on or self.sharded or not any(p.requires_grad for p in module.parameters()):
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

    # --- FSDP: sharded weights ----------------------------------------------------------------------------

    def fully_shard(self, module):
        """Under FSDP: `module`'s parameters sharded across the ranks in place (torch's `fully_shard`), and
        `module` returned; otherwise `module` untouched.  A Hugging Face model (inside a peft wrapper: the
        model the wrapper holds) gets one group per decoder layer (the classes it names in `_no_split_modules`,
        or the launch's fsdp_transformer_layer_cls_to_wrap: accelerate's TRANSFORMER_BASED_WRAP) and a root
        group with the rest (embeddings, final norm, output head; a tied pair stays one parameter); any other
        module (the value head) is one group.  Build the optimiser after this: the parameters are new
        (DTensors, each rank holding its shard)."""
        if not self.sharded:
            return module
        from torch.distributed.fsdp import fully_shard

        target = module.get_base_model() if hasattr(module, "get_base_model") else module  # peft: the HF model
        names = set(self.fsdp.transformer_cls_names_to_wrap or getattr(target, "_no_split_modules", None) or [])
        options = {"reshard_after_forward": bool(self.fsdp.reshard_after_forward)}
        for layer in [m for m in target.modules() if type(m).__name__ in names and m is not target]:
            fully_shard(layer, **options)
        fully_shard(target, **options)
        setattr(module, SHARDED, True)
        setattr(target, SHARDED, True)
        return module

    def shard_note(self, modules: list) -> str:
        """One line for the run log: how much of `modules`' parameters this rank holds (under FSDP)."""
        from torch.distributed.tensor import DTensor

        params = [p for m in modules if m is not None for p in m.parameters()]
        held = sum((p.to_local() if isinstance(p, DTensor) else p).numel() for p in params)  # a DTensor's shard
        total = sum(p.numel() for p in params)
        return (f"FSDP over {self.world} processes: rank {self.rank} holds {held:,} of the {total:,} parameters "
                f"({100 * held / max(total, 1):.1f}%; docs/scaling.md)")

    def full_state(self, module, *, trainable: bool = False) -> dict | None:
        """Under FSDP: `module`'s full state dict on rank 0 (CPU tensors; the other ranks get {}), every rank
        calling together; `trainable`: only the parameters that train (a LoRA adapter's, not the base's).  A
        parameter under two names (tied embeddings) is kept under its first, as a one-process model writes it.
        None when the weights are not sharded (the module's own state is whole)."""
        if not self.sharded:
            return None
        from torch.distributed.checkpoint.state_dict import StateDictOptions, get_model_state_dict

        state = get_model_state_dict(module, options=StateDictOptions(full_state_dict=True, cpu_offload=True,
                                                                      ignore_frozen_params=trainable))
        names = {n for n, _ in module.named_parameters()} | {n for n, _ in module.named_buffers()}
        return {k: v for k, v in state.items() if k in names}

    def module_state(self, module) -> dict:
        """`module.state_dict()` whole (under FSDP gathered on rank 0, every rank calling together)."""
        state = self.full_state(module)
        return module.state_dict() if state is None else state

    def optimizer_state(self, optimizer) -> dict:
        """`optimizer.state_dict()` as one process holds it: under FSDP every sharded moment is gathered
        (every rank calling together) and rank 0 keeps it whole on the CPU (the other ranks' values are None)."""
        state = optimizer.state_dict()
        if not self.sharded:
            return state
        from torch.distributed.tensor import DTensor

        def whole(value):
            if not isinstance(value, DTensor):
                return value
            full = value.full_tensor()  # a collective: one tensor at a time, so no rank holds the whole state
            return full.cpu() if self.is_main else None

        return {"state": {i: {k: whole(v) for k, v in s.items()} for i, s in state["state"].items()},
                "param_groups": state["param_groups"]}

    def load_optimizer_state(self, optimizer, state: dict) -> None:
        """Load what `optimizer_state` wrote (or a one-process checkpoint's state): under FSDP each rank takes
        its shard of every moment (a local slice: every rank read the same file)."""
        if self.sharded:
            import torch
            from torch.distributed.tensor import DTensor, distribute_tensor

            params = [p for group in optimizer.param_groups for p in group["params"]]

            def shard(value, param):
                if not isinstance(param, DTensor) or not isinstance(value, torch.Tensor) or value.shape != param.shape:
                    return value
                return distribute_tensor(value.to(param.device_mesh.device_type), param.device_mesh, param.placements,
                                         src_data_rank=None)

            state = {"state": {i: {k: shard(v, params[int(i)]) for k, v in s.items()}
                               for i, s in state["state"].items()},
                     "param_groups": state["param_groups"]}
        optimizer.load_state_dict(state)

    def generating(self, policy):
        """The context every generation with `policy` (a `Policy`) runs in.  Under FSDP the ranks generate in
        lockstep (`HFEngine.lockstep`, `rollout.hf.Lockstep`): inside it a rank announces each generation call, and
        when it leaves it keeps stepping with dummy calls while another rank still generates.  A rank with nothing to
        generate (rank 0 evaluates alone) enters and leaves it all the same.  Otherwise a plain context."""
        import contextlib

        if not self.sharded:
            return contextlib.nullcontext()
        from coderl.rollout.generation import engine_of

        return engine_of(policy.model).lockstep(policy.tokenizer, lambda busy: any(self.gather(bool(busy))))


SHARDED = "_coderl_sharded"  # set on a module `Ranks.fully_shard` sharded (and on the model a peft wrapper holds)


def is_sharded(module) -> bool:
    """Whether `module` (or the module a DDP wrapper holds) was sharded by `Ranks.fully_shard`."""
    return bool(getattr(unwrapped(module), SHARDED, False))


def _fsdp_settings():
    """The launch's FSDP settings (accelerate's `FullyShardedDataParallelPlugin`, read from the FSDP_* variables
    accelerate launch sets), refused in one line where coderl does not shard that way."""
    from accelerate.utils import FullyShardedDataParallelPlugin

    plugin = FullyShardedDataParallelPlugin()
    refused = [(plugin.fsdp_version != 2, f"fsdp_version {plugin.fsdp_version}",
                "coderl shards with FSDP2 (torch's fully_shard); set fsdp_version: 2"),
               (bool(plugin.cpu_ram_efficient_loading), "fsdp_cpu_ram_efficient_loading: true",
                "every rank loads the weights before they are sharded; set it to false"),
               (type(plugin.cpu_offload).__name__ == "CPUOffloadPolicy" or getattr(plugin.cpu_offload, "offload_params",
                                                                                False), "fsdp_offload_params: true",
                "parameters offloaded to the CPU are not supported; set it to false"),
               (bool(plugin.activation_checkpointing), "fsdp_activation_checkpointing: true",
                "use coderl's --gradient-checkpointing instead")]
    for bad, setting, fix in refused:
        if bad:
            raise ConfigError(f"accelerate launch with FSDP, {setting}: {fix} (configs/accelerate/fsdp.yaml)")
    return plugin


def exit_process(code: int) -> None:
    """End a process of a launch (`WORLD_SIZE` > 1) with `code`, never returning.  The interpreter's own exit
    may abort it: gloo's worker threads drop the last collectives' tensors after the collective returns, and
    one that does so while the interpreter finalises is killed inside a C++ destructor (`terminate called
    without an active exception`, SIGABRT; 1 run in 5-7 of a bare 2-process all_reduce script).  So what the
    interpreter's exit does first happens here (the other threads joined, `atexit` handlers run, the streams
    flushed) and the process then ends at once (`os._exit`), before the finalisation that races with them."""
    import atexit
    import contextlib
    import sys
    import threading

    for thread in threading.enumerate():
        if thread is not threading.current_thread() and not thread.daemon:
            thread.join()
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):
            stream.flush()
    os._exit(code)


def is_main_process() -> bool:
    """Rank 0 of a launch, or the only process (for what the CLI prints once)."""
    return int(os.environ.get("RANK", "0")) == 0
