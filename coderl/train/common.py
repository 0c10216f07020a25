"""What every RL loop shares: run set-up, data order, optimiser and schedule, rollouts scored by the
sandbox, the reference pass, KL terms, minibatches, the optimiser step, and the end of a step (eval,
metrics, checkpoint).  `train/policy_gradient.py` and `train/ppo.py` are each one readable loop over these.

    run = start_run(cfg, log, extra_modules)          # run dir, tasks, policy, optimiser, resume, tracker
    with run.sandbox_session():                       # the sandbox, and the progress bar
        for step in run.steps():
            rolled = run.rollouts(step)               # generate + sandbox (overlapped) + rewards
            ... the loop's own optimisation ...
            run.finish_step(step + 1, metrics, ...)   # eval if due, log, checkpoint if due
"""

from __future__ import annotations

import contextlib
import os
import time
from dataclasses import dataclass, field

import torch
import yaml

from coderl.algorithms import kl_estimator, kl_loss
from coderl.algorithms.sampling import overlong_mask
from coderl.base.config import ConfigError
from coderl.rollout.types import RolloutBatch
from coderl.tasks import load_tasks
from coderl.tasks.spec import open_sandbox
from coderl.train.async_rollouts import STALENESS_FILE
from coderl.train.checkpoint import (
    latest_checkpoint,
    load_trainer_state,
    save_checkpoint,
    set_rng_state,
    truncate_metrics,
)
from coderl.train.config import TrainConfig
from coderl.train.distributed import Ranks
from coderl.train.episodes import repair_tasks
from coderl.train.logprobs import build_sequences, token_logprobs
from coderl.train.policy import build_policy, save_policy_adapter
from coderl.train.rewards import check_rewards_fit_tasks, reward_config
from coderl.train.rounds import ScoredRollouts, scored_round, step_rollouts
from coderl.train.scaffold import NonFiniteSteps, Progress, build_optimizer, log_trainable, refuse_existing_run
from coderl.train.selection import Selection, save_best
from coderl.train.tracking import SilentTracker, Tracker
from coderl.train.watch import write_top_samples

# ---------------------------------------------------------------------------------------------------
# Run set-up


def prepare_run(cfg: TrainConfig, log, ranks: Ranks | None = None) -> tuple[str | None, list]:
    """Create the run directory and config.yaml; (checkpoint to resume from or None, training tasks).
    Under several ranks every rank checks, then rank 0 alone writes.

    Seeds torch, so the model built next gets the run's LoRA initialisation.
    """
    from coderl.models import resolve_device

    resolve_device(cfg.device)  # a missing GPU is refused before anything is written
    if cfg.lora.qlora:
        from coderl.models.quantized import require_cuda_for_qlora

        require_cuda_for_qlora()
    if cfg.deterministic:  # before cuBLAS starts (it reads the variable once); warn_only: a kernel without a
        os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")  # deterministic version warns, never stops
        torch.use_deterministic_algorithms(True, warn_only=True)
    if not cfg.resume:
        refuse_existing_run(cfg.out)
    tasks = load_tasks(cfg.tasks).tasks
    check_rewards_fit_tasks(reward_config(cfg), tasks)
    if cfg.eval.on and cfg.eval.check_overlap:
        from coderl.eval.leak_report import overlap_error

        error = overlap_error(cfg.tasks, tasks, cfg.eval.eval_tasks, cfg.sandbox)
        if error:
            raise ConfigError(error)
    if cfg.max_tests_per_problem:
        tasks = [t.with_tests(t.tests[: cfg.max_tests_per_problem]) for t in tasks]
    if cfg.repair.on:
        tasks = repair_tasks(cfg, tasks, log)
    ranks = ranks or Ranks()
    ckpt = ranks.broadcast(latest_checkpoint(cfg.out) if cfg.resume else None)  # rank 0's: one step for all
    if ckpt and not os.path.isdir(ckpt):
        raise ConfigError(f"--resume: rank {ranks.rank} cannot read {ckpt}, the checkpoint rank 0 resumes from; "
                          "on several machines --out must be a shared file system")
    ranks.wait()  # every rank has checked the run directory before rank 0 writes into it
    if cfg.resume and ckpt is None:
        log(f"--resume: no checkpoint in {cfg.out}/checkpoints; starting from step 0")
    if ranks.is_main:
        os.makedirs(cfg.out, exist_ok=True)
        with open(os.path.join(cfg.out, "config.yaml"), "w", encoding="utf-8") as f:
            yaml.safe_dump(cfg.to_dict(), f, sort_keys=False)
    torch.manual_seed(cfg.seed)
    return ckpt, tasks


def loss_mask(cfg: TrainConfig, batch: RolloutBatch) -> torch.Tensor:
    """[N, T] the tokens the loss, advantages and KL see: the batch's mask, without truncated rows
    when `overlong_filter` is on."""
    if not cfg.sampling.overlong_filter:
        return batch.mask
    truncated = torch.tensor([s.truncated for s in batch.samples], dtype=torch.bool)
    return overlong_mask(batch.mask, truncated)


@dataclass
class Run:
    """One training run's state: config, tasks, policy, optimiser, tracker, and (inside
    `sandbox_session`) the sandbox and progress bar."""

    cfg: TrainConfig
    log: object
    tasks: list
    policy: object
    trainable: list
    optimizer: object
    scheduler: object
    start_step: int
    advantage_state: dict
    tracker: Tracker
    checkpoint: str | None
    reward_override: object = None
    sandbox: object = None
    progress: object = None
    rewards_cfg: object = field(default=None)
    nonfinite: NonFiniteSteps = field(default_factory=NonFiniteSteps)
    selection: Selection = field(default_factory=Selection)
    stopped: bool = False  # early stop (`selection`): the loops end after the current step
    last: ScoredRollouts | None = None  # the latest step's rollouts (for the reward-hacking watch)
    rates: list = field(default_factory=list)  # per task: running pass rate or None (`coderl.train.curriculum`)
    ranks: Ranks = field(default_factory=Ranks)  # the training processes (`train/distributed.py`)
    train_model: object = None  # policy.model, under DDP when there are several ranks
    source: object = None  # the asynchronous generation worker (`train/async_rollouts.py`), or None: rollouts here

    def __post_init__(self):
        self.rates = self.rates or [None] * len(self.tasks)
        self.train_model = self.train_model or self.policy.model

    def steps(self):
        for step in range(self.start_step, self.cfg.steps):
            if self.stopped:
                return
            yield step

    @contextlib.contextmanager
    def sandbox_session(self):
        try:
            # asynchronous rollouts are scored in the worker's sandbox; evaluations open their own
            opened = (contextlib.nullcontext() if self.cfg.asynchronous.on
                      else open_sandbox(self.cfg.sandbox, self.cfg.tasks, self.cfg.eval.eval_tasks))
            with opened as sandbox:
                self.sandbox = sandbox
                if self.cfg.asynchronous.on:  # the worker samples while the start is evaluated
                    from coderl.train.async_rollouts import AsyncRollouts

                    self.source = AsyncRollouts(self)
                self.progress = (Progress("step", self.cfg.steps, self.start_step, _describe)
                                 if self.cfg.progress and self.ranks.is_main else None)
                self.evaluate_start()
                yield self
        finally:
            if self.source is not None:
                self.source.close()
            if self.progress:
                self.progress.close()
            self.tracker.close()

    def rollouts(self, step: int) -> ScoredRollouts:
        """The step's scored rollouts: generated here (`rounds.step_rollouts`), or by the asynchronous
        generation worker (`train/async_rollouts.py`), whose samples carry their ages."""
        self.last = self.source.get(step) if self.source is not None else step_rollouts(self, step)
        return self.last

    def scored_round(self, step: int, indices: list[int], round_: int) -> ScoredRollouts:
        """One round of generation and scoring for the tasks at `indices` (`train/rounds.py`)."""
        return scored_round(self, step, indices, round_)

    def select(self, done: int, metrics: dict) -> None:
        """Evaluate on the held-out eval tasks (adds eval/* and select/* to `metrics`); keep a new best."""
        metrics.update(evaluate(self.cfg, self.policy, done, self.log))
        if self.selection.update(done, metrics):
            save_best(self.cfg.out, done, metrics, self.cfg.eval.eval_tasks,
                      lambda path: save_policy_adapter(self.policy, path))
        metrics.update(self.selection.metrics())

    def evaluate_start(self) -> None:
        """With evaluations on, a fresh run first evaluates its starting policy (logged as step 0), so the
        curve has its origin and the selection can keep the start when no step beats it."""
        if self.start_step == 0 and self.cfg.eval.on and self.ranks.is_main:
            metrics: dict = {}
            self.select(0, metrics)
            self.tracker.log(0, metrics)

    def finish_step(self, done: int, metrics: dict, *, extra: dict | None = None) -> None:
        """Evaluate if due (adds eval/* to `metrics`), log the metrics, checkpoint if due.

        `extra`: more files for the checkpoint, name -> object for torch.save (the value head).
        """
        cfg = self.cfg
        if self.source is not None:  # first: the worker waits for these weights while we evaluate and save
            self.source.publish(done)
        metrics.update(self.nonfinite.end_step(done, metrics.get("train/skipped_update_fraction", 0.0) > 0))
        if cfg.eval.on and (done % cfg.eval.eval_steps == 0 or done == cfg.steps):
            if self.ranks.is_main:  # rank 0 evaluates and keeps the best; every rank follows its stop
                self.select(done, metrics)
                if self.last is not None:
                    write_top_samples(cfg.out, done, self.last.batch, self.last.rewards)
            if self.ranks.broadcast(self.selection.should_stop):
                self.stopped = True
                self.log(f"step {done}: no evaluation has beaten the best for {self.selection.since_best} evaluations "
                         f"(best {self.selection.best_score:.3f} at step {self.selection.best_step}, in "
                         f"{os.path.join(cfg.out, 'best')}); stopping early")
        self.tracker.log(done, metrics)
        self.nonfinite.stop_if_due(done)  # after logging the step, before a checkpoint of it
        if (done % cfg.save_steps == 0 or done == cfg.steps or self.stopped) and self.ranks.is_main:
            save_checkpoint(cfg.out, done, save_adapter=lambda path: save_policy_adapter(self.policy, path),
                            trainer_state={"optimizer": self.optimizer.state_dict(),
                                           "scheduler": self.scheduler.state_dict(),
                                           "advantage_state": self.advantage_state, "step": done,
                                           "data_position": done * cfg.prompts_per_step,
                                           "nonfinite": self.nonfinite.state_dict(),
                                           "selection": self.selection.state_dict(),
                                           "curriculum": list(self.rates)},
                            extra=extra)
        if self.progress:
            self.progress.update(done, metrics)


def start_run(cfg: TrainConfig, log, *, reward_override=None, extra_modules=None) -> Run:
    """Run directory, tasks, policy (+ `extra_modules(policy, checkpoint)`: more trainable modules, the
    value head), one AdamW over everything that trains, and the state of the checkpoint resumed from."""
    ranks = Ranks.start(cfg.device)
    if ranks.on and cfg.rewards.reward_model and cfg.rewards.reward_model_normalize == "batch":
        raise ConfigError("--reward-model-normalize batch z-scores one scoring call, which under several processes is "
                          "one rank's shard, not the step; use sigmoid or none with accelerate launch")
    if ranks.on and cfg.asynchronous.on:
        raise ConfigError("--async-max-age: asynchronous rollouts run with one training process (its generation "
                          "worker beside it); drop accelerate launch, or --async-max-age")
    log = log if ranks.is_main else _silent
    ckpt, tasks = prepare_run(cfg, log, ranks)
    policy = build_policy(cfg, resume_from=ckpt)
    if policy.note:
        log(policy.note)
    extra = list(extra_modules(policy, ckpt)) if extra_modules else []
    trainable = [p for p in policy.model.parameters() if p.requires_grad] + [p for m in extra for p in m.parameters()]
    log_trainable([policy.model, *extra], log)
    o = cfg.optim
    optimizer, scheduler = build_optimizer(trainable, learning_rate=o.learning_rate, weight_decay=o.weight_decay,
                                           schedule=o.lr_schedule, warmup_steps=o.warmup_steps, total_steps=cfg.steps)
    adv_state, start, nonfinite, selection, rates = {}, 0, {}, {}, []
    if ckpt:
        state = load_trainer_state(ckpt)
        optimizer.load_state_dict(state["optimizer"])
        scheduler.load_state_dict(state["scheduler"])
        set_rng_state(state["rng"])
        log(f"resumed from {ckpt} at step {state['step']}")
        if ranks.is_main:
            truncate_metrics(cfg.out, state["step"])
        adv_state, start, nonfinite = state["advantage_state"], state["step"], state.get("nonfinite", {})
        selection, rates = state.get("selection", {}), state.get("curriculum") or []
    if ranks.is_main:  # rows of steps after the start (a crash before the first checkpoint) are sampled again
        truncate_metrics(cfg.out, start, STALENESS_FILE)
    tracker = Tracker(cfg.out, cfg.log_with, cfg.to_dict(), resume=bool(ckpt)) if ranks.is_main else SilentTracker()
    return Run(cfg, log, tasks, policy, trainable, optimizer, scheduler, start, adv_state, tracker, ckpt,
               reward_override=reward_override, rewards_cfg=reward_config(cfg),
               nonfinite=NonFiniteSteps(nonfinite, advice="Lower --learning-rate or --max-grad-norm, and check "
                                        "the rewards (a NaN reward makes every update NaN)"),
               selection=Selection.from_state(selection, cfg.eval.early_stop), rates=rates, ranks=ranks,
               train_model=ranks.wrap(policy.model))


def _silent(message: str) -> None:
    """The log of ranks other than 0 (rank 0 reports for all)."""


# ---------------------------------------------------------------------------------------------------
# Pieces of the optimisation both loops use


def reference_logprobs(cfg, policy, batch, ranks: Ranks | None = None) -> torch.Tensor | None:
    """Log-probs [N, T] of the rollouts under the reference (starting) policy; None when --kl-beta is 0
    (unless --log-kl asks for the KL curve).  Several ranks share the rows and gather them."""
    if cfg.kl.kl_beta <= 0 and not cfg.kl.log_kl:
        return None
    with torch.no_grad(), policy.reference():
        return (ranks or Ranks()).map_rows(len(batch), lambda rows: token_logprobs(
            policy.model, build_sequences(batch, rows), cfg.temperature, shared_prompt=cfg.shared_prompt))


def kl_as_reward(cfg, batch, ref_logprobs) -> torch.Tensor | None:
    """beta * KL_t(pi_old || ref) per token [N, T] (0 on padding) when the KL is paid as a reward, else None."""
    if ref_logprobs is None or cfg.kl.kl_in != "reward" or cfg.kl.kl_beta <= 0:
        return None
    return cfg.kl.kl_beta * kl_estimator(batch.logprobs, ref_logprobs, cfg.kl.kl_estimator) * batch.mask


def kl_terms(cfg, logprobs, ref_logprobs, mask, agg: dict) -> tuple[torch.Tensor | float, dict]:
    """(beta * KL loss term, or 0 when the KL is not in the loss; {"kl/mean"}) of one minibatch."""
    if ref_logprobs is None:
        return 0.0, {}
    kl_tok = kl_estimator(logprobs.detach(), ref_logprobs, cfg.kl.kl_estimator)
    stats = {"kl/mean": float((kl_tok * mask).sum() / mask.sum().clamp(min=1))}
    if cfg.kl.kl_in == "loss" and cfg.kl.kl_beta > 0:
        return cfg.kl.kl_beta * kl_loss(logprobs, ref_logprobs, mask, cfg.kl.kl_estimator, cfg.aggregation,
                                        **agg), stats
    return 0.0, stats


def minibatches(cfg, n: int, step: int):
    """(epoch, first?, rows) over `epochs` passes: shuffled per epoch when there are several minibatches."""
    size = cfg.optim.minibatch_size or n
    generator = torch.Generator().manual_seed(cfg.seed * 1_000_003 + step)
    for epoch in range(cfg.optim.epochs):
        order = torch.randperm(n, generator=generator) if (cfg.optim.epochs > 1 and size < n) else torch.arange(n)
        for start in range(0, n, size):
            yield epoch, epoch == 0 and start == 0, order[start: start + size]


class Averages:
    """Running sums of minibatch statistics; `first_minibatch/*` kept as they are."""

    def __init__(self):
        self.sums: dict[str, float] = {}
        self.counts: dict[str, int] = {}  # per key: a rank left with only padding in an update reports none

    def add(self, stats: dict) -> None:
        for k, v in stats.items():
            self.sums[k] = self.sums.get(k, 0.0) + float(v)
            self.counts[k] = self.counts.get(k, 0) + 1

    def first(self, stats: dict) -> None:
        self.sums.update({f"first_minibatch/{k}": float(v) for k, v in stats.items()})

    def result(self) -> dict:
        return {k: (v / self.counts[k] if not k.startswith("first_minibatch/") else v) for k, v in self.sums.items()}


def step_timings(t0: float, t1: float, rolled: ScoredRollouts) -> dict:
    """t0: step start, t1: rollouts scored; everything after t1 until now is optimisation.  Asynchronous
    rollouts were generated in the worker meanwhile: the step waited t1 - t0 for them."""
    now = time.perf_counter()
    out = {"time/generation": round(rolled.gen_seconds, 3)}
    if rolled.ages is None:
        out["time/sandbox_wait"] = round(t1 - t0 - rolled.gen_seconds, 3)
    else:
        out["time/rollout_wait"] = round(t1 - t0, 3)
    return {**out, "time/optimisation": round(now - t1, 3), "time/step": round(now - t0, 3)}


def evaluate(cfg, policy, step, log) -> dict:
    from coderl.eval.run import EvalConfig, run_eval

    ecfg = EvalConfig(out=os.path.join(cfg.out, "eval", f"step-{step}"), model=cfg.model, tasks=cfg.eval.eval_tasks,
                      limit=cfg.eval.eval_problems, samples=cfg.eval.repeat_eval,
                      temperature=0.0 if cfg.eval.repeat_eval == 1 else cfg.temperature, format=cfg.format,
                      max_new_tokens=cfg.max_new_tokens, seed=cfg.seed, label=f"step-{step}", method=cfg.algo,
                      sandbox=cfg.sandbox, batch_size=cfg.generation_batch_size)
    summary = run_eval(ecfg, loaded=policy, log=lambda m: None)
    out = {f"eval/{k}": v for k, v in summary["pass_at_k"].items()}
    out["eval/fraction_passed"] = summary["mean_fraction_passed"] or 0.0
    out["eval/avg_gen_tokens"] = summary["avg_gen_tokens"]
    log(f"step {step}: eval " + ", ".join(f"{k}={v:.3f}" for k, v in out.items()))
    return out


def _describe(m: dict) -> str:
    return (f"reward {m.get('reward/total', 0):.3f}  pass {m.get('sandbox/pass_rate', 0):.2f}  "
            f"len {m.get('rollout/gen_tokens', 0):.0f}  {m.get('time/step', 0):.1f}s/step")
