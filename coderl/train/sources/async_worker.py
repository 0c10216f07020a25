"""The generation worker of asynchronous rollouts: a process of its own that samples and scores steps
from the newest snapshot of the trainer's weights (`train/sources/async_rollouts.py` starts it and talks to it).

    WorkerSpec once, then (version v = steps trained, LoRA tensors) | None (stop)   trainer -> worker
    ("rollouts", Produced) | ("log", line) | ("error", ...)                          worker -> trainer

over one socket pair (`Channel`).  The worker is `python -c "...serve(FD)"`, not a multiprocessing
child, so no caller's main module is ever imported again in it (a script without a __main__ guard, a
notebook, pytest), and it needs nothing of the trainer's process but the messages.

Before step j the worker loads the newest weights waiting in its inbox, and waits while the newest it
has is older than version j - max_age: so no sample is more than max_age steps old, and the worker
runs at most max_age steps ahead of the trainer.  It then runs the step exactly as the synchronous
loop does (`rounds.step_rollouts` on a `RolloutContext` of its own: prompts, curriculum, generation
seeded by step, the sandbox, rewards, dynamic-sampling refills) on its own copy of the model and its
own sandbox.  With max_age 0 it therefore samples every step from the trainer's current weights: the
synchronous run's tokens.
"""

from __future__ import annotations

import copy
import pickle
import queue
import socket
import threading
import time
import traceback
from dataclasses import dataclass
from multiprocessing.connection import Connection

import torch

from coderl.base.config import ConfigError
from coderl.base.process import die_with_parent
from coderl.rollout.weights_digest import fingerprint
from coderl.sandbox.client import SandboxUnavailable
from coderl.tasks.types import TaskFormatError
from coderl.train.sources.curriculum import Curriculum
from coderl.train.sources.rounds import ScoredRollouts, step_rollouts

STOP = "stop"
CLOSED = ("closed", None)  # the other end has gone


class Channel:
    """Pickled messages both ways over one socket.  Sends block only until the other side's reader thread
    takes them, so the trainer publishing weights and the worker sending rollouts never wait on each other."""

    def __init__(self, sock: socket.socket):
        self.conn = Connection(sock.detach())
        self.received: queue.Queue = queue.Queue()
        threading.Thread(target=self._read, daemon=True, name="coderl-async-reader").start()

    def _read(self) -> None:
        while True:
            try:
                data = self.conn.recv_bytes()
            except (EOFError, OSError):  # the other end closed, or died
                self.received.put(CLOSED)
                return
            try:
                self.received.put(pickle.loads(data))
            except Exception:  # noqa: BLE001 - a class this side cannot import, say: said, not dropped
                self.received.put(("unreadable", traceback.format_exc()))

    def send(self, message) -> None:
        self.conn.send_bytes(pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL))

    def get(self, block: bool = True, timeout: float | None = None):
        """The next message (raises queue.Empty when none came in time, or none is waiting and not `block`)."""
        return self.received.get(block=block, timeout=timeout)

    def close(self) -> None:
        self.conn.close()


@dataclass
class WorkerSpec:
    """Everything the worker needs, sent once when it starts (pickled: spawn)."""

    cfg: object  # the TrainConfig
    tasks: list  # the trainer's training tasks (test cut, repair split already applied)
    start_step: int
    reward_override: object  # None, or a module-level function (tests)
    curriculum: dict  # the curriculum's state (`Curriculum.state_dict`, resumed from the checkpoint)
    threads: int | None  # torch threads, None: torch's default
    device: str | None  # cpu, cuda or cuda:N; None: the trainer's --device


@dataclass
class Produced:
    """One step's rollouts, as the worker sends them."""

    step: int
    rolled: ScoredRollouts
    version: int  # steps trained into the weights that sampled every row of this step
    fingerprint: str  # of those weights as the worker's model held them (`fingerprint`)
    curriculum: dict  # the curriculum's state after this step's rounds
    waited: float  # seconds the worker waited for weights before this step


def trainable_state(model) -> dict:
    """name -> the trainable tensors (the LoRA adapter being trained, or every weight), as they are in `model`."""
    return {n: p for n, p in model.named_parameters() if p.requires_grad}


def serve(fd: int) -> None:
    """The worker process's entry point (`fd`: its end of the socket pair); every failure goes back to the
    trainer as one message."""
    from coderl.models.hub import quiet_library_warnings

    die_with_parent()
    quiet_library_warnings()
    channel = Channel(socket.socket(fileno=fd))
    try:
        spec = channel.get()
        if spec == CLOSED:
            return
        if isinstance(spec, tuple) and spec[0] == "unreadable":
            raise RuntimeError(f"the worker cannot read its settings:\n{spec[1]}")
        _run(spec, channel)
    except (ConfigError, SandboxUnavailable, TaskFormatError) as e:  # the synchronous run's one-line errors
        channel.send(("error", ("config", str(e), getattr(e, "exit_code", 2))))  # its exit code too (a weights sync: 5)
    except BaseException:  # noqa: BLE001 - reported to the trainer, which raises it
        channel.send(("error", ("crash", traceback.format_exc())))


def _run(spec: WorkerSpec, channel: Channel) -> None:
    from coderl.tasks.spec import open_sandbox
    from coderl.train.policy import build_policy
    from coderl.train.rewards import reward_config
    from coderl.train.sources.rounds import RolloutContext

    cfg = spec.cfg
    if cfg.deterministic:  # as the trainer (`common.prepare_run`); CUBLAS_WORKSPACE_CONFIG came with its environment
        torch.use_deterministic_algorithms(True, warn_only=True)
    if spec.threads:
        torch.set_num_threads(spec.threads)
    if spec.device:
        if spec.device.startswith("cuda:"):
            torch.cuda.set_device(int(spec.device.split(":")[1]))
        cfg = copy.copy(cfg)  # not dataclasses.replace: the config is settled, its checks need not run again
        cfg.device = spec.device.split(":")[0]
    policy = build_policy(cfg, reference=False)  # the trained weights' shapes; their values come from the trainer
    params = trainable_state(policy.model)
    max_age, version = cfg.asynchronous.async_max_age, None

    def log(message: str) -> None:
        channel.send(("log", message))

    engine = None
    if cfg.engine == "vllm":  # the engine samples; this worker serves it each version's adapter (docs/engines.md)
        from coderl.train.sources.engine_weights import serve_policy, start_engine

        engine = start_engine(cfg, policy, log, threads=spec.threads)
    try:
        with open_sandbox(cfg.sandbox, cfg.tasks, cfg.eval.eval_tasks) as sandbox:
            curriculum = Curriculum(spec.tasks)
            curriculum.load_state_dict(spec.curriculum)
            ctx = RolloutContext(cfg, log, spec.tasks, policy, reward_config(cfg), spec.reward_override, curriculum,
                                 sandbox, engine)
            for step in range(spec.start_step, cfg.steps):
                t = time.perf_counter()
                newest = _newest(channel, version, need=step - max_age)
                if newest == STOP:
                    return
                if newest is not None:
                    version = _load(params, *newest)
                    if engine is not None:
                        serve_policy(engine, policy, cfg.out, version, log=log)
                waited = time.perf_counter() - t
                rolled = step_rollouts(ctx, step)
                channel.send(("rollouts", Produced(step, rolled, version, fingerprint(params), curriculum.state_dict(),
                                                   waited)))
        _newest(channel, version, need=float("inf"))  # every step sent: wait for the trainer's stop
    finally:
        if engine is not None:
            engine.close()


def _newest(channel: Channel, version: int | None, need: float):
    """The newest (version, state) the trainer has sent, None when nothing newer is waiting, or STOP (the
    trainer's stop, or the trainer gone).  Blocks while the newest version at hand is older than `need`."""
    newest = None
    while True:
        have = newest[0] if newest is not None else version
        try:
            message = channel.get(block=have is None or have < need)
        except queue.Empty:
            return newest
        if message is None or message == CLOSED:
            return STOP
        if message[0] == "unreadable":
            raise RuntimeError(f"the worker cannot read the weights the trainer sent:\n{message[1]}")
        newest = message


@torch.no_grad()
def _load(params: dict, version: int, state: dict) -> int:
    if set(state) != set(params):
        raise RuntimeError(f"weights version {version}: the trainer sent {len(state)} tensors, the worker's "
                           f"adapter has {len(params)} (names differ: {sorted(set(state) ^ set(params))[:3]})")
    for name, value in state.items():
        params[name].copy_(value)
    return version
