"""Checkpoints of a training run: written to a temp dir, then renamed, so a crash never leaves half of one.

    checkpoints/step-N/
        adapter_model.safetensors, adapter_config.json, coderl_adapter.json   (PEFT format; base = coderl alias)
        trainer_state.pt   optimizer, scheduler, estimator state, step, data position, RNG states (Python,
                           torch CPU, and every CUDA device's where CUDA is present)
        value_head.pt      (PPO with a critic)

`--resume` loads the newest complete `step-N` and continues exactly where it stopped.
"""

from __future__ import annotations

import json
import os
import random
import re
import shutil

import torch

from coderl.base.outputs import atomic, finished

STEP_DIR = re.compile(r"^step-(\d+)$")


def checkpoint_dir(run_dir: str, step: int) -> str:
    return os.path.join(run_dir, "checkpoints", f"step-{step}")


def latest_checkpoint(run_dir: str) -> str | None:
    root = os.path.join(run_dir, "checkpoints")
    if not os.path.isdir(root):
        return None
    steps = [(int(m.group(1)), name) for name in os.listdir(root) if (m := STEP_DIR.match(name))
             and os.path.isfile(os.path.join(root, name, "trainer_state.pt"))]
    return os.path.join(root, max(steps)[1]) if steps else None


def rng_state() -> dict:
    """Python's, torch's CPU and (where CUDA is present) every GPU's generator state: sampling on a GPU draws
    from the CUDA generator, so an exact resume needs it too."""
    state = {"python": random.getstate(), "torch": torch.get_rng_state()}
    if torch.cuda.is_available():
        state["cuda"] = [s.cpu() for s in torch.cuda.get_rng_state_all()]
    return state


def set_rng_state(state: dict) -> None:
    """Restore `rng_state()`.  A checkpoint written without CUDA leaves the GPU generators as seeded; one
    written on a GPU machine restores what this machine has of them (none on a CPU-only machine)."""
    random.setstate(state["python"])
    torch.set_rng_state(state["torch"])
    if state.get("cuda") and torch.cuda.is_available():
        for device, cuda_state in enumerate(state["cuda"][: torch.cuda.device_count()]):
            torch.cuda.set_rng_state(cuda_state.cpu(), device)


def save_checkpoint(run_dir: str, step: int, *, save_adapter, trainer_state: dict, extra: dict | None = None) -> str:
    """`save_adapter(path)` writes the adapter; `trainer_state` goes to trainer_state.pt; `extra`: name -> object."""
    final = checkpoint_dir(run_dir, step)
    with finished(final) as (tmp,):  # STEP.tmp, renamed when complete; an interrupt or a failed write leaves none
        shutil.rmtree(tmp, ignore_errors=True)  # a killed run's
        os.makedirs(tmp)
        save_adapter(tmp)
        for name, obj in {**(extra or {}), "trainer_state.pt": {**trainer_state, "rng": rng_state()}}.items():
            with open(os.path.join(tmp, name), "wb") as f:  # Python's file: a full disk is an OSError (the context
                torch.save(obj, f)                          # of torch's RuntimeError), not a bare RuntimeError
    return final


def load_trainer_state(path: str) -> dict:
    """trainer_state.pt, every tensor on the CPU (written on a GPU, it loads on a machine without one;
    `optimizer.load_state_dict` then moves the moments to the parameters' device)."""
    return torch.load(os.path.join(path, "trainer_state.pt"), map_location="cpu", weights_only=False)


def restore(checkpoint: str, updater, log) -> dict:
    """A resume (RL and SFT): `checkpoint`'s updater state (optimiser, schedule, non-finite counts) and RNG states
    loaded into place; its trainer state.  (The main process then cuts metrics.jsonl back: `truncate_metrics`.)"""
    state = load_trainer_state(checkpoint)
    updater.load_state_dict(state)
    set_rng_state(state["rng"])
    log(f"resumed from {checkpoint} at step {state['step']}")
    return state


STALENESS_FILE = "staleness.jsonl"  # asynchronous rollouts: each sample's age, per step; a resume truncates it


def truncate_metrics(run_dir: str, step: int, name: str = "metrics.jsonl") -> None:
    """Drop the rows of OUT/`name` logged after the checkpoint we resume from (they will be produced again), and
    a last line a kill cut short; rewritten whole (`atomic`)."""
    path = os.path.join(run_dir, name)
    if not os.path.exists(path):
        return
    with open(path, encoding="utf-8") as f:
        rows = [line for line in f if line.endswith("\n") and json.loads(line)["step"] <= step]
    with atomic(path) as f:
        f.writelines(rows)


def final_copy(run_dir: str, checkpoint: str, name: str) -> str:
    """RUN/`name` = a copy of `checkpoint`'s weight files (not trainer_state.pt), swapped in atomically."""
    final = os.path.join(run_dir, name)
    with finished(final) as (tmp,):
        shutil.rmtree(tmp, ignore_errors=True)  # a killed run's
        shutil.copytree(checkpoint, tmp, ignore=shutil.ignore_patterns("trainer_state.pt"))
    return final
