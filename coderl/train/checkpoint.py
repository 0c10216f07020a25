"""Checkpoints of a training run: written to a temp dir, then renamed, so a crash never leaves half of one.

    checkpoints/step-N/
        adapter_model.safetensors, adapter_config.json, coderl_adapter.json   (PEFT format; base = coderl alias)
        trainer_state.pt   optimizer, scheduler, estimator state, step, data position, RNG states
        value_head.pt      (PPO with a critic)

`--resume` loads the newest complete `step-N` and continues exactly where it stopped.
"""

from __future__ import annotations

import os
import random
import re
import shutil

import torch

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
    return {"python": random.getstate(), "torch": torch.get_rng_state()}


def set_rng_state(state: dict) -> None:
    random.setstate(state["python"])
    torch.set_rng_state(state["torch"])


def save_checkpoint(run_dir: str, step: int, *, save_adapter, trainer_state: dict, extra: dict | None = None) -> str:
    """`save_adapter(path)` writes the adapter; `trainer_state` goes to trainer_state.pt; `extra`: name -> object."""
    final = checkpoint_dir(run_dir, step)
    tmp = final + ".tmp"
    shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(tmp)
    save_adapter(tmp)
    for name, obj in (extra or {}).items():
        torch.save(obj, os.path.join(tmp, name))
    torch.save({**trainer_state, "rng": rng_state()}, os.path.join(tmp, "trainer_state.pt"))
    shutil.rmtree(final, ignore_errors=True)
    os.rename(tmp, final)
    return final


def load_trainer_state(path: str) -> dict:
    return torch.load(os.path.join(path, "trainer_state.pt"), weights_only=False)
