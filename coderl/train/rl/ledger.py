"""The ledger of a training run: what is recorded and kept -- metrics (the tracker), evaluation-based
selection of the best checkpoint with early stop, checkpoints, and the state a resume continues from.

    ledger = Ledger(cfg, log, policy, updater, resumed, curriculum_state=...)   # `train/rl/common.py` builds it
    ledger.evaluate_start()                                       # a fresh run's step 0 evaluation
    for step in ledger.steps(): ...                               # ends early when selection says so
        ledger.finish_step(step + 1, metrics, rolled)             # eval if due, log, checkpoint if due

Only the main process evaluates and writes; every process follows the main one's early stop.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import torch

from coderl.train.canary import warning as canary_warning
from coderl.train.checkpoint import STALENESS_FILE, restore, save_checkpoint, truncate_metrics
from coderl.train.infra_guard import InfraGuard
from coderl.train.policy import Policy, save_policy
from coderl.train.rl.selection import Selection, save_best
from coderl.train.rl.watch import write_top_samples
from coderl.train.stalls import Watch
from coderl.train.tracking import Progress, SilentTracker, Tracker
from coderl.train.updater import Updater


@dataclass
class Resumed:
    """The trainer state of the checkpoint a run resumes from (`load`); a fresh run's is empty."""

    step: int = 0
    advantage_state: dict = field(default_factory=dict)
    selection: dict = field(default_factory=dict)
    curriculum: dict | list = field(default_factory=dict)  # `Curriculum.state_dict()` (a list before issue 55)
    checkpoint: str | None = None
    steps: int | None = None  # the --steps its schedule was made for (None: a checkpoint from before issue 60)

    @classmethod
    def load(cls, checkpoint: str | None, updater: Updater, log: Callable) -> Resumed:
        """Load `checkpoint`'s updater (optimiser, schedule, non-finite counts) and RNG states into place;
        the rest as a record."""
        if not checkpoint:
            return cls()
        state = restore(checkpoint, updater, log)
        return cls(state["step"], state["advantage_state"], state.get("selection", {}), state.get("curriculum") or {},
                   checkpoint, state.get("steps"))


class Ledger:
    """Tracker, selection, checkpoints and resume state of one RL run."""

    def __init__(self, cfg, log: Callable, policy: Policy, updater: Updater, resumed: Resumed, *,
                 curriculum_state: Callable[[], dict]):
        """`curriculum_state()`: the rollout source's curriculum state, saved with every checkpoint."""
        self.cfg, self.log, self.policy, self.updater = cfg, log, policy, updater
        self.curriculum_state = curriculum_state
        self.ranks = updater.ranks  # the processes the updater's passes share
        self.start_step = resumed.step
        self.grown = resumed.steps is not None and resumed.steps != cfg.steps  # --steps grew: said and recorded
        if self.grown:
            log(f"--resume: --steps {resumed.steps} -> {cfg.steps} at step {resumed.step}: the learning-rate schedule "
                f"now runs over {cfg.steps} steps (metrics.jsonl: train/steps at step {resumed.step + 1})")
        self.advantage_state = resumed.advantage_state  # the estimator's running state (a global baseline)
        self.selection = Selection.from_state(resumed.selection, cfg.eval.early_stop)
        self.stopped = False  # early stop: the loop ends after the current step
        self.infra_guard = InfraGuard(cfg.out)  # a sandbox failing step after step stops the run (exit 3)
        self.watch = Watch(log)  # stalls, slowdowns, the hard limit on every wait (`train/stalls.py`)
        main = self.ranks.is_main
        if main:  # rows of steps after the start (a crash before the first checkpoint) are sampled again
            if resumed.checkpoint:
                truncate_metrics(cfg.out, resumed.step)
            truncate_metrics(cfg.out, resumed.step, STALENESS_FILE)
        self.tracker = (Tracker(cfg.out, cfg.log_with, cfg.to_dict(), resume=bool(resumed.checkpoint)) if main
                        else SilentTracker())
        # a line per step (`coderl.base.progress`, through `log`); on a terminal, unless --no-progress, a bar too
        self.progress = Progress("step", cfg.steps, resumed.step, _describe, bar=cfg.progress, log=log, every=0) \
            if main else None

    def steps(self):
        for step in range(self.start_step, self.cfg.steps):
            if self.stopped:
                return
            self.watch.phase("rollouts", step)  # the loops mark "optimisation" once the rollouts are in
            yield step

    def evaluate_start(self) -> None:
        """With evaluations on, a fresh run first evaluates its starting policy (logged as step 0), so the
        curve has its origin and the selection can keep the start when no step beats it."""
        if self.start_step == 0 and self.cfg.eval.on:
            metrics: dict = {}
            self._select(0, metrics)
            self.tracker.log(0, metrics)  # rank 0's tracker (the others' is silent)

    def _select(self, done: int, metrics: dict) -> None:
        """Evaluate on the held-out eval tasks (adds eval/*, select/* and time/evaluation, its seconds with
        keeping a new best, to `metrics`); keep a new best.  Every rank calls it: rank 0 evaluates (under FSDP
        the others generate with it in lockstep, `Ranks.generating`) and every rank learns whether it kept a
        new best, whose weights they gather when sharded."""
        start, best = time.perf_counter(), False
        with self.ranks.generating(self.policy):
            if self.ranks.is_main:
                metrics.update(evaluate(self.cfg, self.policy, done, self.log))
                best = self.selection.update(done, metrics)
        if self.ranks.broadcast(best):
            weights = self._weights()
            if self.ranks.is_main:
                save_best(self.cfg.out, done, metrics, self.cfg.eval.eval_tasks,
                          lambda path: save_policy(self.policy, path, weights),
                          name="model" if self.policy.full else "adapter")
        if self.ranks.is_main:
            metrics.update(self.selection.metrics())
            metrics["time/evaluation"] = round(time.perf_counter() - start, 3)

    def _weights(self) -> dict | None:
        """The policy's trained weights gathered whole on rank 0 when they are sharded (FSDP; every rank calls
        together): the adapter's, or with full fine-tuning the whole model's; None otherwise (its own)."""
        return self.ranks.full_state(self.policy.model, trainable=not self.policy.full)

    def finish_step(self, done: int, metrics: dict, rolled=None, *, extra: dict | None = None) -> None:
        """Evaluate if due (adds eval/* to `metrics`), log the metrics, checkpoint if due.  `rolled`: the
        step's scored rollouts (the reward-hacking watch samples them); `extra`: more files for the
        checkpoint, name -> object for torch.save, or a module whose whole state dict is saved (the value head)."""
        cfg = self.cfg
        self.watch.phase("bookkeeping")
        tokens = float(rolled.batch.mask.sum()) if rolled is not None and rolled.batch is not None else None
        programs = len(rolled.rewards) if rolled is not None else None
        for line in self.watch.finished_step(done, metrics, tokens, programs):
            self.log(line)
        # canary samples subverting their weak harness (`train/canary.py`); a step that taught nothing
        for line in (canary_warning(done, metrics), empty_step_warning(done, metrics)):
            if line and self.ranks.is_main:
                self.log(line)
        metrics.update(self.updater.count_nonfinite(done, metrics))
        if self.grown and done == self.start_step + 1:
            metrics["train/steps"] = cfg.steps
        if cfg.eval.on and (done % cfg.eval.eval_steps == 0 or done == cfg.steps):
            self._select(done, metrics)  # the main process evaluates and keeps the best; every process follows its stop
            if rolled is not None and self.ranks.is_main:
                write_top_samples(cfg.out, done, rolled.batch, rolled.rewards)
            if self.ranks.broadcast(self.selection.should_stop):
                self.stopped = True
                self.log(f"step {done}: no evaluation has beaten the best for {self.selection.since_best} evaluations "
                         f"(best {self.selection.best_score:.3f} at step {self.selection.best_step}, in "
                         f"{os.path.join(cfg.out, 'best')}); stopping early")
        self.tracker.log(done, metrics)
        self.updater.nonfinite.stop_if_due(done)  # after logging the step, before a checkpoint of it
        self.infra_guard.stop_if_due(done, rolled)  # so is a sandbox failing step after step
        if done % cfg.save_steps == 0 or done == cfg.steps or self.stopped:
            # Every rank gathers (FSDP: weights, optimiser moments and extra modules are sharded); rank 0 writes.
            weights, updater = self._weights(), self.updater.state_dict()  # optimizer, scheduler, nonfinite
            extra = {name: self.ranks.module_state(obj) if isinstance(obj, torch.nn.Module) else obj
                     for name, obj in (extra or {}).items()}
            if self.ranks.is_main:
                save_checkpoint(cfg.out, done, save_adapter=lambda path: save_policy(self.policy, path, weights),
                                trainer_state={**updater, "advantage_state": self.advantage_state, "step": done,
                                               "steps": cfg.steps,
                                               "data_position": done * cfg.prompts_per_step,
                                               "selection": self.selection.state_dict(),
                                               "curriculum": self.curriculum_state()},
                                extra=extra)
        if self.progress:
            seconds = metrics.get("time/step") or 0
            tokens = float(rolled.batch.mask.sum()) if rolled is not None and rolled.batch is not None else None
            self.progress.update(done, {**metrics, "rollout/tokens_per_second": tokens / seconds
                                        if tokens is not None and seconds else None})

    def close(self) -> None:
        if self.progress:
            self.progress.close()
        self.tracker.close()


def _describe(m: dict) -> str:
    """The step's part of the progress line: reward, pass rate, mean completion length, generated tokens per second
    of the step's wall time (this process's rows), seconds per step."""
    speed = m.get("rollout/tokens_per_second")
    return (f"reward {m.get('reward/total', 0):.3f}  pass {m.get('sandbox/pass_rate', 0):.2f}  "
            f"len {m.get('rollout/gen_tokens', 0):.0f}  " + (f"{speed:.0f} tok/s  " if speed is not None else "")
            + f"{m.get('time/step', 0):.1f}s/step")


def evaluate(cfg, policy: Policy, step: int, log: Callable) -> dict:
    """eval/* of `policy` on the run's held-out eval tasks (`coderl eval`'s code, greedy unless
    `repeat_eval` samples several), written under OUT/eval/step-N."""
    from coderl.eval.run import EvalConfig, run_eval

    ecfg = EvalConfig(out=os.path.join(cfg.out, "eval", f"step-{step}"), model=cfg.model, tasks=cfg.eval.eval_tasks,
                      limit=cfg.eval.eval_problems, samples=cfg.eval.repeat_eval,
                      temperature=0.0 if cfg.eval.repeat_eval == 1 else cfg.temperature, format=cfg.format,
                      max_new_tokens=cfg.max_new_tokens, seed=cfg.seed, label=f"step-{step}", method=cfg.algo,
                      sandbox=cfg.sandbox, batch_size=cfg.generation_batch_size,
                      overwrite=True)  # after a resume, the evaluations after its checkpoint run again
    summary = run_eval(ecfg, loaded=policy, log=lambda m: None)
    out = {f"eval/{k}": v for k, v in summary["pass_at_k"].items()}
    out["eval/fraction_passed"] = summary["mean_fraction_passed"] or 0.0
    out["eval/avg_gen_tokens"] = summary["avg_gen_tokens"]
    log(f"step {step}: eval " + ", ".join(f"{k}={v:.3f}" for k, v in out.items()))
    return out


def empty_step_warning(step: int, metrics: dict) -> str | None:
    """The log's line for a step that taught nothing (`train/empty_step`), saying why: every episode left out at a
    limit, or no group whose rewards varied."""
    if metrics.get("train/empty_step") != 1.0:
        return None
    left_out = metrics.get("agent/left_out")
    if left_out == 1.0:
        why = ("every episode ended at a limit and was left out of the loss (--limit-episodes drop; "
               f"malformed replies {metrics.get('agent/ended_malformed', 0.0):.0%}, turns "
               f"{metrics.get('agent/ended_turns', 0.0):.0%}, context {metrics.get('agent/ended_context', 0.0):.0%})")
    else:
        why = "no group's rewards varied (every sample of each prompt scored alike)"
    return f"step {step}: no update: {why}"
