"""What every RL loop shares: run set-up (`start_run`: the three collaborators of one run), the loss
mask, the reference pass, the KL terms, minibatches and step timings.  `train/rl/policy_gradient.py` and
`train/rl/ppo.py` are each one readable loop over these.

    run = start_run(cfg, log, extra_modules)      # run dir, tasks, policy, resume
    with run.session():                            # the sandbox and the rollout source
        for step in run.ledger.steps():
            rolled = run.source.get(step)          # `train/sources/rollout_source.py`: generated + scored
            ... the loop's own optimisation ...    # `train/updater.py`: run.updater.update(rows, mask, loss_fn)
            run.source.publish(step + 1)
            run.ledger.finish_step(step + 1, metrics, rolled)   # `train/rl/ledger.py`: eval, log, checkpoint
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import time
from dataclasses import dataclass

import torch

from coderl.algorithms import kl_estimator, kl_loss
from coderl.algorithms.sampling import overlong_mask
from coderl.base.config import ConfigError
from coderl.base.outputs import write_yaml
from coderl.rollout.types import RolloutBatch
from coderl.tasks import load_tasks
from coderl.tasks.spec import open_sandbox
from coderl.tasks.types import for_training
from coderl.train.checkpoint import recorded_steps, resume_checkpoint
from coderl.train.config import KLConfig, TrainConfig
from coderl.train.distributed import Ranks
from coderl.train.episodes import repair_tasks
from coderl.train.logprobs import build_sequences, token_logprobs
from coderl.train.memory import MemoryBudget, check_weights, gigabytes, resolve_budget
from coderl.train.policy import Policy, build_policy
from coderl.train.rewards import check_rewards_fit_tasks, reward_config
from coderl.train.rl.ledger import Ledger, Resumed
from coderl.train.run_dir import check_resume, refuse_existing_run, replace_run
from coderl.train.sources.curriculum import Curriculum
from coderl.train.sources.pass_rates import describe_rates, measured_rates
from coderl.train.sources.rollout_source import LocalSource, RolloutSource
from coderl.train.sources.rounds import RolloutContext, ScoredRollouts
from coderl.train.stalls import Heartbeat
from coderl.train.updater import NonFiniteSteps, Updater, build_optimizer, log_trainable, trainable_parameters

# ---------------------------------------------------------------------------------------------------
# Run set-up


def prepare_run(cfg: TrainConfig, log, ranks: Ranks) -> tuple[str | None, list]:
    """Create the run directory and config.yaml; (checkpoint to resume from or None, training tasks).
    Under several ranks every rank checks, then rank 0 alone writes.

    Seeds torch, so the model built next gets the run's LoRA initialisation.
    """
    from coderl.models import resolve_device, resolve_spec

    resolve_device(cfg.device)  # a missing GPU is refused before anything is written
    resolve_spec(cfg.model)  # so is a --model that names nothing loadable
    if cfg.lora.qlora:
        from coderl.models.quantized import require_cuda_for_qlora

        require_cuda_for_qlora()
    if cfg.deterministic:  # before cuBLAS starts (it reads the variable once); warn_only: a kernel without a
        os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")  # deterministic version warns, never stops
        torch.use_deterministic_algorithms(True, warn_only=True)
    if not cfg.resume:
        refuse_existing_run(cfg.out, overwrite=cfg.overwrite)
    tasks = for_training(load_tasks(cfg.tasks).tasks)  # an unsound upstream rule: its strict form (docs/data.md)
    check_rewards_fit_tasks(reward_config(cfg), tasks)
    if cfg.eval.on and cfg.eval.check_overlap:
        from coderl.eval.leak_report import overlap_error

        error = overlap_error(cfg.tasks, tasks, cfg.eval.eval_tasks, cfg.sandbox)
        if error:
            raise ConfigError(error)
    elif cfg.eval.on:
        load_tasks(cfg.eval.eval_tasks)  # a bad --eval-tasks is one line now, not at the first evaluation
    if cfg.max_tests_per_problem:
        tasks = [t.with_tests(t.tests[: cfg.max_tests_per_problem]) for t in tasks]
    if cfg.repair.on:
        tasks = repair_tasks(cfg, tasks, log)
    if cfg.agent.on:
        others = sorted({t.kind for t in tasks} - {"repository"})
        if others:
            raise ConfigError(f"--agent: --tasks {cfg.tasks} holds {', '.join(others)} tasks; an agent works on "
                              "repository tasks only (repo:POOL, swebench:FILE)")
    quiet = log if ranks.is_main else (lambda message: None)
    ckpt = ranks.broadcast(resume_checkpoint(cfg.out, quiet) if cfg.resume else None)  # rank 0's: one step for all
    if ckpt and not os.path.isdir(ckpt):
        raise ConfigError(f"--resume: rank {ranks.rank} cannot read {ckpt}, the checkpoint rank 0 resumes from; "
                          "on several machines --out must be a shared file system")
    ranks.wait()  # every rank has checked the run directory before rank 0 writes into it
    if cfg.resume:
        check_resume(cfg.out, cfg.to_dict(), ckpt)
    grown = max(recorded_steps(cfg.out), int(ckpt.rsplit("-", 1)[1])) if ckpt else 0
    if cfg.steps < grown:  # a plain --resume takes the run's own (`coderl train`); fewer was asked for
        raise ConfigError(f"--resume: --steps {cfg.steps} is fewer than the {grown} steps of the run in {cfg.out} (its "
                          f"checkpoints' record); give --steps {grown} or more, or drop --steps to continue to them")
    if cfg.resume and ckpt is None:
        log(f"--resume: no checkpoint in {cfg.out}/checkpoints; starting from step 0")
    if ranks.is_main and not ckpt:  # a resumed run's config.yaml stays the record of its steps
        if cfg.overwrite:
            replace_run(cfg.out)
        os.makedirs(cfg.out, exist_ok=True)
        write_yaml(os.path.join(cfg.out, "config.yaml"), cfg.to_dict())
    torch.manual_seed(cfg.seed)
    return ckpt, tasks


def loss_mask(batch: RolloutBatch, overlong_filter: bool, failed: torch.Tensor | None = None) -> torch.Tensor:
    """[N, T] the tokens the loss, advantages and KL see: the batch's mask, without truncated rows
    when `overlong_filter` is on, and without the rows `failed` marks ([N] bool: infrastructure failures,
    which earned no reward and teach nothing)."""
    mask = batch.mask
    if overlong_filter:
        mask = overlong_mask(mask, torch.tensor([s.truncated for s in batch.samples], dtype=torch.bool))
    if failed is not None and bool(failed.any()):
        mask = overlong_mask(mask, failed)
    return mask


@dataclass
class Training:
    """One RL run's collaborators (docs/architecture.md, "One GRPO step"): where rollouts come from, what
    updates the weights, and what is recorded and kept.  Inside `session()` the source is open."""

    cfg: TrainConfig
    context: RolloutContext  # without a sandbox: `session()` gives the source one with the sandbox it opens
    updater: Updater
    ledger: Ledger
    source: RolloutSource | None = None

    @property
    def policy(self) -> Policy:
        return self.context.policy

    @property
    def ranks(self) -> Ranks:
        return self.updater.ranks

    @contextlib.contextmanager
    def session(self):
        """Open the sandbox (asynchronous rollouts score in the worker's; evaluations open their own) and the
        rollout source, evaluate a fresh run's start, and close everything after the loop."""
        cfg = self.cfg
        try:
            opened = (contextlib.nullcontext() if cfg.asynchronous.on
                      else open_sandbox(cfg.sandbox, cfg.tasks, cfg.eval.eval_tasks))
            with opened as sandbox:
                context = dataclasses.replace(self.context, sandbox=sandbox)
                if cfg.asynchronous.on:  # the worker samples while the start is evaluated
                    from coderl.train.sources.async_rollouts import AsyncRollouts

                    self.source = AsyncRollouts(context, self.ledger.start_step)
                elif cfg.engine == "vllm":
                    from coderl.train.sources.engine_source import EngineSource

                    self.source = EngineSource(context, self.ledger.start_step)
                else:  # its slice of every round on each of several processes
                    self.source = LocalSource(context, self.ranks)
                # RUN/heartbeat.json, stalls said while they last, the hard limit on every wait (`train/stalls.py`)
                beating = Heartbeat(cfg.out, self.ledger.watch) if self.ranks.is_main else contextlib.nullcontext()
                with beating:
                    self.ledger.evaluate_start()
                    yield self
        finally:
            if self.source is not None:
                self.source.close()
            self.ledger.close()


def start_run(cfg: TrainConfig, log, *, reward_override=None, extra_modules=None) -> Training:
    """Run directory, tasks, policy (+ `extra_modules(policy, checkpoint)`: more trainable modules, the
    value head), the updater (one AdamW over everything that trains), the ledger, and the state of the
    checkpoint resumed from."""
    ranks = Ranks.start(cfg.device)
    if ranks.on and cfg.rewards.reward_model and cfg.rewards.reward_model_normalize == "batch":
        raise ConfigError("reward_model_normalize: batch z-scores one scoring call, which under several processes is "
                          "one rank's shard, not the step; use sigmoid or none with accelerate launch")
    if cfg.engine == "vllm" and ranks.on:
        raise ConfigError("--engine vllm samples in one engine beside one training process: drop accelerate launch "
                          "(the processes do not share an engine yet)")
    if ranks.on and cfg.asynchronous.on:
        raise ConfigError("--async-max-age: asynchronous rollouts run with one training process (its generation "
                          "worker beside it); drop accelerate launch, or --async-max-age")
    ranks.refuse_qlora(cfg.lora.qlora)
    log = log if ranks.is_main else (lambda message: None)  # rank 0 reports for all
    budget_lines: list[str] = []  # said once the run's input is checked: a refusal is the only line on stderr
    memory = memory_budget(cfg, ranks, budget_lines.append)  # an impossible budget: one line before anything is written
    ckpt, tasks = prepare_run(cfg, log, ranks)
    for line in budget_lines:
        log(line)
    measured = None
    if cfg.sampling.pass_rates and not ckpt:  # a resumed run has its own running rates
        measured = measured_rates(cfg.sampling.pass_rates, [t.task_id for t in tasks])
        log(f"pass rates from {cfg.sampling.pass_rates}: {describe_rates(measured)}")
    policy = build_policy(cfg, resume_from=ckpt)
    if policy.note:
        log(policy.note)
    modules = [policy.model, *(extra_modules(policy, ckpt) if extra_modules else [])]
    modules = [ranks.fully_shard(m) for m in modules]  # FSDP: sharded before the optimiser takes their parameters
    if policy.frozen is not None:
        ranks.fully_shard(policy.frozen)  # full fine-tuning's reference copy
    if ranks.sharded:
        log(ranks.shard_note([*modules, policy.frozen]) + "; the ranks generate in lockstep")
    log_trainable(modules, log)
    o = cfg.optim
    optimizer, scheduler = build_optimizer(trainable_parameters(modules), learning_rate=o.learning_rate,
                                           weight_decay=o.weight_decay, schedule=o.lr_schedule,
                                           warmup_steps=o.warmup_steps, total_steps=cfg.steps)
    advice = "Lower --learning-rate or --max-grad-norm, and check the rewards (a NaN reward makes every update NaN)"
    updater = Updater(modules, optimizer, scheduler, ranks=ranks, max_grad_norm=o.max_grad_norm,
                      micro_batch_size=o.micro_batch_size, aggregation=cfg.aggregation,
                      group=cfg.samples_per_prompt,
                      nonfinite=NonFiniteSteps(advice=advice), memory=memory)
    resumed = Resumed.load(ckpt, updater, log)
    curriculum = Curriculum(tasks, measured)
    if resumed.curriculum:
        curriculum.load_state_dict(resumed.curriculum)
    context = RolloutContext(cfg, log, tasks, policy, reward_config(cfg), reward_override, curriculum)
    ledger = Ledger(cfg, log, policy, updater, resumed, curriculum_state=curriculum.state_dict)
    return Training(cfg, context, updater, ledger)


def memory_budget(cfg, ranks: Ranks, log) -> MemoryBudget:
    """The run's `MemoryBudget` (`train/memory.py`) from --memory-budget on this device, checked against the
    model's weights before they load."""
    from coderl.models import resolve_device

    device = str(resolve_device(cfg.device))
    local = int(os.environ.get("LOCAL_WORLD_SIZE", ranks.world if ranks.on else 1))
    local += 1 if cfg.asynchronous.on else 0  # the generation worker holds a copy of the model beside it
    budget = resolve_budget(cfg.optim.memory_budget, device, local)
    check_weights(cfg, budget, device)
    if budget is not None and cfg.optim.micro_batch_size is None:
        log(f"memory budget {gigabytes(budget)} ({cfg.optim.memory_budget}): micro-batches from a one-row probe "
            "of each kind of pass")
    return MemoryBudget(budget, device, gather_min=lambda value: min(ranks.gather(value)), log=log)


# ---------------------------------------------------------------------------------------------------
# Pieces of the optimisation both loops use


def reference_logprobs(cfg, policy, batch, updater: Updater) -> torch.Tensor | None:
    """Log-probs [N, T] of the rollouts under the reference (starting) policy; None when --kl-beta is 0
    (unless `log_kl` asks for the KL curve).  The updater's processes share the rows and gather them."""
    if not cfg.kl.reference:
        return None
    with torch.no_grad(), updater.clock("reference"), policy.reference() as reference:
        return updater.map_rows(len(batch), lambda rows: token_logprobs(
            reference, build_sequences(batch, rows), cfg.temperature, chunk_bytes=updater.memory.chunk_bytes),
            width=batch.width)


def kl_as_reward(kl: KLConfig, batch, ref_logprobs) -> torch.Tensor | None:
    """beta * KL_t(pi_old || ref) per token [N, T] (0 on padding) when the KL is paid as a reward, else None."""
    if ref_logprobs is None or kl.kl_in != "reward" or kl.kl_beta <= 0:
        return None
    return kl.kl_beta * kl_estimator(batch.logprobs, ref_logprobs, kl.kl_estimator) * batch.mask


def kl_terms(cfg, logprobs, ref_logprobs, rows, mask) -> tuple[torch.Tensor | float, dict]:
    """(beta * KL loss term, or 0 when the KL is not in the loss; {"kl/mean"}) of one minibatch's `rows` (log-probs
    and mask [n, T] of those rows; the step's reference log-probs [N, T] or None), aggregated as the policy loss is."""
    if ref_logprobs is None:
        return 0.0, {}
    kl, ref_logprobs = cfg.kl, ref_logprobs[rows]
    kl_tok = kl_estimator(logprobs.detach(), ref_logprobs, kl.kl_estimator)
    stats = {"kl/mean": float((kl_tok * mask).sum() / mask.sum().clamp(min=1))}
    if kl.kl_in == "loss" and kl.kl_beta > 0:
        return kl.kl_beta * kl_loss(logprobs, ref_logprobs, mask, kl.kl_estimator, cfg.aggregation,
                                    **cfg.aggregation_kwargs), stats
    return 0.0, stats


def minibatches(cfg, n: int, step: int):
    """The rows of each minibatch over `epochs` passes: shuffled per epoch when there are several minibatches."""
    size = cfg.optim.minibatch_size or n
    generator = torch.Generator().manual_seed(cfg.seed * 1_000_003 + step)
    for epoch in range(cfg.optim.epochs):
        order = torch.randperm(n, generator=generator) if (cfg.optim.epochs > 1 and size < n) else torch.arange(n)
        for start in range(0, n, size):
            yield order[start: start + size]


def step_timings(t0: float, t1: float, rolled: ScoredRollouts, updater: Updater) -> dict:
    """time/* of a step (docs/training.md, "Metrics"): t0: step start, t1: rollouts scored; everything
    after t1 until now is optimisation, split by the updater's clock (`Clock`: reference, old_logprobs,
    memory_probe, forward, backward, optimizer).  Asynchronous rollouts were generated in the worker
    meanwhile: the step waited t1 - t0 for them."""
    now = time.perf_counter()
    out = {"time/generation": round(rolled.gen_seconds, 3)}
    if rolled.ages is None:
        out["time/sandbox_wait"] = round(t1 - t0 - rolled.gen_seconds, 3)
    else:
        out["time/rollout_wait"] = round(t1 - t0, 3)
    return {**out, **updater.clock.take(), "time/optimisation": round(now - t1, 3), "time/step": round(now - t0, 3)}
