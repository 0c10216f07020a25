"""Asynchronous rollouts with bounded staleness (seed 002's async GRPO, `max_trajectory_age_steps`;
docs/async.md): the trainer's side.

    --async-max-age A:
      worker process (`train/sources/async_worker.py`)          trainer (this process)
      step j: wait for weights >= j - A, sample, score    step k: take step k's rollouts, update
              send (rollouts, version, fingerprint)              publish weights version k + 1

Version v is the weights after v steps (a step's updates count as one); the trainer at step k holds
version k, so a sample of version v is k - v steps old (its age), and the worker's wait bounds every
age by A.  While the trainer updates on step k the worker samples step k + 1 (A >= 1) with version k,
up to step k + A.
A = 0: the worker waits for every update, and the run is the synchronous one (same tokens, same
update), only in another process.

Stale samples (age > 0) are corrected by truncated importance sampling against the behaviour
log-probs the worker recorded (`train/sources/off_policy.py`; the math is `algorithms/off_policy.py`).
Every step checks that the weights the worker sampled with are, bit for bit, the version the trainer
published (a sha256 of the adapter as the worker's model held it), and logs each sample's age in
OUT/staleness.jsonl and the step's in metrics (`async/*`, `is/*`).
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import pickle
import queue
import socket
import subprocess
import sys
import time

import torch
from torch import Tensor

from coderl.base.config import ConfigError
from coderl.rollout.weights_digest import fingerprint
from coderl.train.checkpoint import STALENESS_FILE
from coderl.train.sources.async_worker import CLOSED, Channel, WorkerSpec, trainable_state
from coderl.train.sources.engine_weights import WeightsProof
from coderl.train.sources.off_policy import Correction, behaviour_correction


class AsyncRollouts:
    """The generation worker, seen from the trainer: a rollout source (`train/sources/rollout_source.py`).
    `get(step)` its rollouts, `correction` of their stale rows, `publish(version)` the weights after an
    update, `close()`.  `ctx`: the trainer's rollout context (no sandbox: the worker scores in its own)."""

    def __init__(self, ctx, start_step: int):
        cfg = ctx.cfg
        self.ctx, self.max_age = ctx, cfg.asynchronous.async_max_age
        self.fingerprints: dict[int, str] = {}
        self.proof: WeightsProof | None = None
        trainer_threads, worker_threads = split_threads(cfg, torch.get_num_threads())
        self.restore_threads = torch.get_num_threads() if trainer_threads else None
        spec = WorkerSpec(cfg, ctx.tasks, start_step, ctx.reward_override, ctx.curriculum.state_dict(), worker_threads,
                          cfg.asynchronous.async_worker_device)
        try:
            message = pickle.dumps(spec)
        except (pickle.PicklingError, AttributeError, TypeError) as e:
            raise ConfigError(f"asynchronous rollouts: the worker's settings cannot be sent to its process ({e}); "
                              "a reward_override must be a module-level function") from None
        self.proc, self.channel = None, None
        try:
            ours, theirs = socket.socketpair()
            env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}  # what this process imports
            self.proc = subprocess.Popen([sys.executable, "-c", f"from coderl.train.sources.async_worker import serve; "
                                          f"serve({theirs.fileno()})"], pass_fds=[theirs.fileno()], env=env)
            theirs.close()
            self.channel = Channel(ours)
            if trainer_threads:
                torch.set_num_threads(trainer_threads)
            self._send(message)
            ctx.log(f"asynchronous rollouts: a generation worker (pid {self.proc.pid}) samples from weights at most "
                    f"{self.max_age} step(s) old" + (f"; threads: trainer {trainer_threads}, worker {worker_threads}"
                                                     if trainer_threads else ""))
            self.publish(start_step)
        except BaseException:
            self.close()  # no worker left behind, the trainer's threads restored
            raise

    def publish(self, version: int, grad_norm: float | None = None) -> None:
        """Send the weights after `version` steps (the trainable adapter, copied to the CPU); after the first update
        whose gradient (`grad_norm`, the step's train/grad_norm) is not zero, they must have changed
        (`engine_weights.WeightsProof`: exit 5)."""
        state = {n: p.detach().to("cpu", copy=True) for n, p in trainable_state(self.ctx.policy.model).items()}
        self.fingerprints[version] = fingerprint(state)
        if self.proof is None:  # the first: what the worker starts with (each version's is proven in `get`)
            self.proof = WeightsProof(lambda: self.fingerprints[max(self.fingerprints)], "the generation worker")
        self.proof.check(version, grad_norm)
        self._send((version, state))

    def _send(self, message) -> None:
        """Send to the worker (`bytes`: already pickled); if it has gone, raise what it said before going."""
        try:
            if isinstance(message, bytes):
                self.channel.conn.send_bytes(message)
            else:
                self.channel.send(message)
        except OSError:
            self._receive(keep_rollouts=False)  # raises the worker's error, or that it exited

    def get(self, step: int):
        """Step `step`'s rollouts from the worker (blocking), with each sample's age; checks the bound and
        that the weights the worker used are the ones published."""
        t = time.perf_counter()
        produced = self._receive()
        waited = time.perf_counter() - t
        age = step - produced.version
        if produced.step != step or not 0 <= age <= self.max_age:
            raise RuntimeError(f"asynchronous rollouts: expected step {step + 1} with weights at most {self.max_age} "
                               f"steps old; the worker sent step {produced.step + 1} from version {produced.version}")
        if produced.fingerprint != self.fingerprints.get(produced.version):
            raise RuntimeError(f"asynchronous rollouts: step {step + 1} was sampled from weights that differ from the "
                               f"version {produced.version} the trainer published")
        for old in [v for v in self.fingerprints if v < step - self.max_age]:
            del self.fingerprints[old]
        rolled = produced.rolled
        self.ctx.curriculum.load_state_dict(produced.curriculum)  # the worker drew and recorded this step
        ages = torch.full((len(rolled.batch),), age, dtype=torch.long)
        metrics = {**rolled.metrics, "async/age_mean": float(ages.float().mean()), "async/age_max": float(ages.max()),
                   "async/weights_version": float(produced.version), "async/trainer_wait": round(waited, 3),
                   "async/worker_wait": round(produced.waited, 3)}
        log_staleness(self.ctx.cfg.out, step, rolled.batch.samples, ages, produced.version)
        return dataclasses.replace(rolled, ages=ages, metrics=metrics)

    def correction(self, rolled, updater=None, prox: Tensor | None = None) -> Correction:
        """Rows sampled by older weights get pi_prox and truncated IS weights (`train/sources/off_policy.py`);
        `prox`: the current weights' log-probs of every row, when the loop has them (PPO's values pass);
        otherwise a no-grad pass in the pieces `updater`'s memory budget allows."""
        ages = rolled.ages
        if self.ctx.cfg.engine == "vllm":  # the engine's rows are off-policy whatever their age (docs/engines.md)
            ages = ages.clamp(min=1)
        return behaviour_correction(self.ctx.cfg, self.ctx.policy.model, rolled.batch, ages, prox=prox,
                                    updater=updater)

    def _receive(self, keep_rollouts: bool = True):
        """The worker's next rollouts (its log lines go to the run's log); its error, or its end, raised.
        keep_rollouts=False: the worker has gone; read on to what it said last."""
        while True:
            try:
                kind, payload = self.channel.get(timeout=1.0)
            except queue.Empty:
                if self.proc.poll() is None:
                    continue
                kind = CLOSED[0]
            if kind == CLOSED[0]:
                try:
                    code = self.proc.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    code = "none: it closed its end but still runs"
                raise RuntimeError(f"asynchronous rollouts: the generation worker exited (code {code}) without a word")
            if kind == "log":
                self.ctx.log(payload)
            elif kind == "error":
                what, message, *code = payload
                if what == "config":
                    error = ConfigError(message)
                    error.exit_code = code[0] if code else 2  # the worker's (`engine_weights.WeightsSyncError`: 5)
                    raise error
                raise RuntimeError(f"asynchronous rollouts: the generation worker failed:\n{message}")
            elif kind == "unreadable":
                raise RuntimeError(f"asynchronous rollouts: a message from the generation worker cannot be read:\n"
                                   f"{payload}")
            elif keep_rollouts:
                return payload

    def close(self) -> None:
        """Stop the worker (at once if it is mid-step: its rollouts are not needed any more)."""
        if self.proc is not None:
            with contextlib.suppress(OSError, AttributeError):
                self.channel.send(None)
            try:
                self.proc.wait(timeout=2)
            except subprocess.TimeoutExpired:
                self.proc.terminate()
                try:
                    self.proc.wait(timeout=5)
                except subprocess.TimeoutExpired:
                    self.proc.kill()
                    self.proc.wait()
        if self.channel is not None:
            self.channel.close()
        if self.restore_threads:
            torch.set_num_threads(self.restore_threads)


def split_threads(cfg, cores: int) -> tuple[int | None, int | None]:
    """(trainer threads or None: unchanged, worker threads or None: torch's default) on a CPU.

    max_age 0: the worker takes the trainer's count, and with it the same numerics (the two overlap only
    while the trainer evaluates and saves).  max_age >= 1: they run side by side; the worker takes half
    the cores and the trainer the rest.  On a GPU, threads are left alone."""
    from coderl.models import resolve_device

    a = cfg.asynchronous
    if (a.async_worker_device or resolve_device(cfg.device)) != "cpu":
        return None, None
    if a.async_max_age == 0:
        return None, cores
    worker = max(1, cores // 2)
    return max(1, cores - worker), worker


def log_staleness(out: str, step: int, samples, ages: Tensor, version: int) -> None:
    """OUT/staleness.jsonl: one line per step, each sample's task and age (steps behind the trainer)."""
    row = {"step": step + 1, "weights_version": version, "task_ids": [s.task_id for s in samples],
           "ages": ages.tolist()}
    with open(os.path.join(out, STALENESS_FILE), "a", encoding="utf-8") as f:
        f.write(json.dumps(row) + "\n")
