"""Checkpoints of a training run: written to a temp dir, then renamed, so a crash never leaves half of one.

    checkpoints/step-N/
        adapter_model.safetensors, adapter_config.json, coderl_adapter.json   (PEFT format; base = coderl alias)
        trainer_state.pt   optimizer, scheduler, estimator state, step, data position, RNG states (Python,
                           torch CPU, and every CUDA device's where CUDA is present)
        value_head.pt      (PPO with a critic)
        manifest.json      every other file's size and sha256 (the ones torch.save writes hashed as they are
                           written, the adapter's as written by its library), the step and the run's --steps;
                           written last, atomically, inside the folder renamed into place

`--resume` continues exactly where the newest intact `step-N` stopped (`resume_checkpoint`): a checkpoint whose
files do not match its manifest (a file cut, changed or missing: a disk that filled, a copy that stopped) is
skipped with one line saying which and why, and the one before it is taken; none intact is one line (exit 2).
A checkpoint without a manifest is unfinished (the manifest is written last: a copy that stopped, a folder
renamed by hand) and is skipped the same way: nothing says its files are whole.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import re
import shutil

import torch

from coderl.base.config import ConfigError
from coderl.base.outputs import atomic, finished, write_json
from coderl.base.paths import sha256_file

STEP_DIR = re.compile(r"^step-(\d+)$")
MANIFEST = "manifest.json"


def checkpoint_dir(run_dir: str, step: int) -> str:
    return os.path.join(run_dir, "checkpoints", f"step-{step}")


def checkpoints(run_dir: str) -> list[str]:
    """The checkpoint folders of a run, newest first: every `step-N` folder, finished or not (`damage` tells; a
    folder still being written is `step-N.tmp`, never one of them)."""
    root = os.path.join(run_dir, "checkpoints")
    if not os.path.isdir(root):
        return []
    steps = [(int(m.group(1)), name) for name in os.listdir(root) if (m := STEP_DIR.match(name))
             and os.path.isdir(os.path.join(root, name))]
    return [os.path.join(root, name) for _, name in sorted(steps, reverse=True)]


def damage(path: str) -> str | None:
    """What is wrong with checkpoint `path` against its manifest (a file missing, of another size or content; the
    manifest itself missing: coderl writes it last, so the checkpoint is unfinished), or None when it is intact."""
    try:
        with open(os.path.join(path, MANIFEST), encoding="utf-8") as f:
            manifest = json.load(f)
        files = manifest["files"]
    except FileNotFoundError:
        return f"no {MANIFEST}: unfinished (coderl writes it last)"
    except (OSError, ValueError, KeyError, TypeError) as exc:
        return f"{MANIFEST} unreadable ({exc})"
    for name, want in files.items():
        file = os.path.join(path, name)
        if not os.path.isfile(file):
            return f"{name} missing"
        size = os.path.getsize(file)
        if size != want["size"]:
            return f"{name} is {size} bytes, its manifest says {want['size']}"
        if sha256_file(file) != want["sha256"]:
            return f"{name} differs from its manifest (sha256)"
    return None


def latest_checkpoint(run_dir: str) -> str | None:
    """The newest intact checkpoint of `run_dir` (`damage`), or None."""
    return next((path for path in checkpoints(run_dir) if damage(path) is None), None)


def resume_checkpoint(run_dir: str, log) -> str | None:
    """The checkpoint `--resume` continues from: the newest intact one, each newer damaged one skipped with a line
    through `log`; None when the run has none; a ConfigError when it has checkpoints but none is intact."""
    skipped = []
    for path in checkpoints(run_dir):
        problem = damage(path)
        if problem is None:
            for line in skipped:
                log(f"--resume: skipped {line}; resuming from {os.path.basename(path)}")
            return path
        skipped.append(f"{path} ({problem})")
    if skipped:
        raise ConfigError(f"--resume: no intact checkpoint in {run_dir}/checkpoints: {'; '.join(skipped)}; "
                          "restore one, or start a new run (--overwrite)")
    return None


def run_finished(run_dir: str, steps: int) -> str | None:
    """The line `coderl train --resume` says, without loading a model, when `run_dir`'s newest intact checkpoint is
    already at `steps` (nothing left to train); None when steps remain (or there is no checkpoint)."""
    checkpoint = latest_checkpoint(run_dir)
    done = int(STEP_DIR.match(os.path.basename(checkpoint)).group(1)) if checkpoint else 0
    if not checkpoint or done != steps:  # more steps done than asked for: prepare_run refuses --steps in one line
        return None
    return (f"--resume: {run_dir} has finished: its newest intact checkpoint ({checkpoint}) is at step {done} of "
            f"{steps}; nothing to train (--resume --steps N, more than {done}, trains on)")


def recorded_steps(run_dir: str) -> int:
    """The most --steps any checkpoint of `run_dir` was written for (a run grown with `--resume --steps N` records
    N), from the manifests (a checkpoint without one is unfinished and says nothing); 0 when none says."""
    found = [0]
    for path in checkpoints(run_dir):
        try:
            with open(os.path.join(path, MANIFEST), encoding="utf-8") as f:
                found.append(int(json.load(f).get("steps") or 0))
        except (OSError, ValueError, TypeError, AttributeError):  # none, or damaged: resume_checkpoint says so
            pass
    return max(found)


class _Hashed:
    """A binary file that hashes and counts what is written through it (torch.save writes through it)."""

    def __init__(self, f):
        self.f, self.digest, self.size = f, hashlib.sha256(), 0

    def write(self, data) -> int:
        written = self.f.write(data)
        self.digest.update(data)
        self.size += memoryview(data).nbytes
        return written

    def flush(self) -> None:
        self.f.flush()


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
        files = {}
        for root, _, names in os.walk(tmp):  # the adapter's (or the model's) files, as its library wrote them
            for name in names:
                file = os.path.join(root, name)
                files[os.path.relpath(file, tmp)] = {"size": os.path.getsize(file), "sha256": sha256_file(file)}
        for name, obj in {**(extra or {}), "trainer_state.pt": {**trainer_state, "rng": rng_state()}}.items():
            with open(os.path.join(tmp, name), "wb") as f:  # Python's file: a full disk is an OSError (the context
                hashed = _Hashed(f)                         # of torch's RuntimeError), not a bare RuntimeError
                torch.save(obj, hashed)
            files[name] = {"size": hashed.size, "sha256": hashed.digest.hexdigest()}
        write_json(os.path.join(tmp, MANIFEST), {"step": trainer_state.get("step"),
                                                 "steps": trainer_state.get("steps"), "files": files})
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
    """RUN/`name` = a copy of `checkpoint`'s weight files (not trainer_state.pt, nor the manifest), swapped in
    atomically."""
    final = os.path.join(run_dir, name)
    with finished(final) as (tmp,):
        shutil.rmtree(tmp, ignore_errors=True)  # a killed run's
        shutil.copytree(checkpoint, tmp, ignore=shutil.ignore_patterns("trainer_state.pt", MANIFEST))
    return final
