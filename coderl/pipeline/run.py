"""Running the pipeline: every stage in order, stamps, plan files, the report, and `coderl pipeline`."""

from __future__ import annotations

import contextlib
import dataclasses
import datetime
import gc
import json
import os
import shutil
import sys
import time

from coderl.base.config import ConfigError
from coderl.base.outputs import writable, write_json

# ---------------------------------------------------------------------------------------------------
# running
from coderl.pipeline.plan import STAMP, PipelineConfig, Plan, Stage, evaluation_tasks, load_plan, training_tasks
from coderl.pipeline.state import (
    adapter_sha256,
    code_version,
    format_plan,
    plan_states,
    portable_config,
    portable_values,
    stage_status,
    stale_error,
)
from coderl.pipeline.tasks import write_split
from coderl.rollout.engine import ENGINE_LOG
from coderl.tasks.spec import open_sandbox
from coderl.train.tracking import missing_packages


class _Log:
    """Print to stderr and append to OUT/pipeline.log (stage loops log through it too)."""

    def __init__(self, path: str):
        self.file = open(path, "a", encoding="utf-8")

    def __call__(self, message: str) -> None:
        print(message, file=sys.stderr, flush=True)
        self.file.write(f"{datetime.datetime.now().isoformat(timespec='seconds')} {message}\n")
        self.file.flush()

    def close(self) -> None:
        self.file.close()


def run_pipeline(plan: Plan, *, log=None) -> str:
    """Run every stage that is not done, then build the report; returns the report's path."""
    from coderl.pipeline.report import build_report

    states = plan_states(plan)
    message = stale_error(plan, states)
    if message:
        raise ConfigError(message)
    sft_stage = next((s for s in plan.stages if s.kind == "sft"), None)
    if sft_stage and sft_stage.config.lora.qlora and states["sft"][0] != "done":
        from coderl.models.quantized import require_cuda_for_qlora

        require_cuda_for_qlora()  # fail before the base evaluation, not an hour into the run
    rows, warnings = check_overlap(plan)  # a refused plan writes nothing
    os.makedirs(plan.out, exist_ok=True)
    own_log = log is None
    log = log or _Log(os.path.join(plan.out, "pipeline.log"))
    try:
        _write_plan_files(plan)
        for line in warnings:
            log(line)
        write_json(os.path.join(plan.out, "overlap.json"), rows)
        with _run_engine(plan):
            _run_stages(plan, log)
        report = build_report(plan.out, log=log)
        log(f"report: {report}")
        return report
    finally:
        if own_log:
            log.close()


def _run_engine(plan: Plan):
    """One vLLM engine for every stage that asks for one (`engine: vllm`): started at the first such stage,
    serving LoRA up to the plan's largest rank, each checkpoint served as an adapter (docs/engines.md)."""
    stages = [s for s in plan.stages if getattr(s.config, "engine", "hf") == "vllm"]
    if not stages:
        return contextlib.nullcontext()
    from coderl.rollout.vllm_engine import one_engine

    ranks = [s.config.lora.rank for s in plan.stages if hasattr(s.config, "lora")]
    return one_engine(lora_rank=max(ranks, default=0) or None, log_file=os.path.join(plan.out, ENGINE_LOG))


def _run_stages(plan: Plan, log) -> None:
    for i, stage in enumerate(plan.stages, 1):
        state, detail = stage_status(stage, plan.out)  # upstream stages may have just run
        if state == "done":
            log(f"[{i}/{len(plan.stages)}] {stage.name}: done ({detail}), skipped")
            continue
        if state == "stale":
            raise ConfigError(stale_error(plan, plan_states(plan)))
        log(f"[{i}/{len(plan.stages)}] {stage.name}: {detail or 'running'} -> {stage.dir}")
        t0 = time.perf_counter()
        _run_stage(stage, state, log)
        _write_stamp(stage, plan.out, time.perf_counter() - t0)
        gc.collect()


class NotRemembered(BaseException):
    """A dry run's overlap check asked to run: its verdict is not remembered (a BaseException: nothing on the way
    takes it for the check's own failure)."""


class RemembersOnly:
    """The sandbox a dry run hands the overlap check (`cached_leaks`): it runs nothing; asked for anything, the
    verdict was not among those remembered (the cache, the shipped record)."""

    def __getattr__(self, name):
        raise NotRemembered(name)


def record_overlap(plan: Plan, log) -> list[dict]:
    """`check_overlap`, its warnings logged and its rows written to OUT/overlap.json."""
    rows, warnings = check_overlap(plan)
    for line in warnings:
        log(line)
    write_json(os.path.join(plan.out, "overlap.json"), rows)
    return rows


def check_overlap(plan: Plan, *, cached_only: bool = False) -> tuple[list[dict], list[str]]:
    """Which evaluation tasks each training stage's tasks solve by behaviour (`coderl.eval.decontaminate`): every
    evaluation set's (`eval:` and `evals:`), and an RL run's own selection tasks (`eval_tasks`, where `eval_steps` >
    0). A stage whose training tasks solve any of them is refused in one line before anything runs (issue 55: a leak
    pays the policy for an answer it was shown), unless the config sets `allow_eval_overlap: true`; then it is a
    warning.  OUT/overlap.json has a row per stage and set (the report shows them and reports each set also
    on the tasks no training reference solves): `solved` by the stage's tasks, and for the RL pool
    `solved_by_generator`, the tasks its generator's removed tasks solve (`coderl.tasks.generators.pool`).  The pool
    is not run again against the tasks its record decided, and no check the shipped record holds runs again
    (`cached_leaks`).  Returns (the rows, warnings to log); writes nothing but the cache (`run_pipeline` makes it
    before it writes anything).  `cached_only` (`--dry-run`): no sandbox, no program run; only the verdicts already
    remembered are read, and refuse as the run would."""
    from coderl.base.paths import cache_root
    from coderl.base.progress import on_stderr
    from coderl.eval.decontaminate import cached_leaks
    from coderl.tasks.generators.pool import read_record
    from coderl.tasks.spec import parse_task_spec

    sets = [(s, evaluation_tasks(plan, s)) for s in plan.stages if s.kind == "eval" and s.role == "base"]
    sandbox_cfg = plan.stage("base-eval").config.sandbox
    rows, refusals, warnings = [], [], []
    with contextlib.nullcontext(RemembersOnly()) if cached_only else open_sandbox(sandbox_cfg) as sandbox:
        for stage, spec, split, train, against, held, selection in overlap_checks(plan, sets):
            try:
                report = cached_leaks(train, list(against.values()), sandbox,
                                      os.path.join(cache_root(), "decontamination"), spec, on_stderr)
            except NotRemembered:  # a dry run, and no verdict remembered: the run decides it
                continue
            solved = {e for _, e in report.leaks + report.same}
            generator = set(read_record()["solved"]) if parse_task_spec(spec).source == "pool" else set()
            for base, tasks in sets + ([(None, selection)] if held else []):
                ids = {t.task_id for t in tasks}
                rows.append({"stage": stage.name, "tasks": spec, "split": split,
                             "eval_set": base.eval_set if base else "selection",
                             "eval_tasks": base.config.tasks if base else held,
                             "eval_split": base.config.split if base else "all",
                             "solved": sorted(solved & ids), "solved_by_generator": sorted(generator & ids),
                             "of": len(ids), "training_tasks": len(report.leaked_train_ids),
                             "undecided": sorted(set(report.incomplete) & ids)})
            if report.incomplete:
                warnings.append(f"warning: {stage.name}: the behaviour check could not decide {len(report.incomplete)} "
                                f"evaluation tasks (e.g. {report.incomplete[0]}: a run that did not finish)")
            if solved:
                example = min(pair for pair in report.leaks + report.same)
                specs = " ".join(dict.fromkeys([b.config.tasks for b, _ in sets] + ([held] if held else [])))
                refusals.append(f"{stage.name}'s training tasks ({spec}) solve {len(solved)} of its {len(against)} "
                                f"evaluation and selection tasks by behaviour (e.g. {example[0]} solves {example[1]}; "
                                f"coderl decontaminate --tasks '{spec}' --against '{specs}')")
    if refusals and not plan.allow_eval_overlap:
        raise ConfigError(refusals[0] + ": train on tasks that solve none (tasks: pool is decontaminated against easy, "
                          "humaneval@test and the synthetic held-out splits), evaluate on other tasks, or set "
                          "allow_eval_overlap: true to compare on a set the training touches")
    warnings += [f"warning: {message}; its evaluation is not fully held out (allow_eval_overlap: true)"
                 for message in refusals]
    return rows, warnings


def overlap_checks(plan: Plan, sets: list):
    """Per training stage of `plan` that has programs to run: (stage, its task spec, split, training tasks, the
    evaluation and selection tasks they are checked against by id, the selection spec or None, the selection tasks);
    `sets`: (evaluation stage, its tasks) of every evaluation set."""
    from coderl.tasks import load_tasks

    for stage in plan.stages:
        if stage.kind not in ("sft", "rl"):
            continue
        spec, split, train = training_tasks(stage)  # a pairs file (SFT) has no tasks: nothing to run
        # an agent's trajectories and repository tasks have no program to run against other tasks' tests: their
        # overlap with the evaluation sets is the plan's prompt check (`plan.count_and_check_tasks`) alone
        train = [t for t in train if getattr(t, "kind", "repository") != "repository"]
        if not train:
            continue
        evaluation = getattr(stage.config, "eval", None)  # an RL run's own selection, when it evaluates at all
        held = evaluation.eval_tasks if evaluation is not None and evaluation.eval_steps > 0 else None
        against = {t.task_id: t for _, tasks in sets for t in tasks}
        selection = load_tasks(held).tasks if held else []
        against.update({t.task_id: t for t in selection})
        yield stage, spec, split, train, against, held, selection


def _run_stage(stage: Stage, state: str, log) -> None:
    if stage.kind in ("eval", "sft"):  # an interrupted one resumes when its settings are the plan's, else restarts
        resume = _resumable(stage)
        if not resume:
            _clear(stage.dir)  # nothing of the old one stays (no stray checkpoints)
        cfg = dataclasses.replace(stage.config, resume=resume, overwrite=stage.config.overwrite and not resume)
    if stage.kind == "eval":
        from coderl.eval.run import format_summary, run_eval

        log(format_summary(run_eval(cfg, log=log)))
    elif stage.kind == "sft":
        from coderl.train.sft.run import sft

        result = sft(cfg, log=log)
        log(f"sft: {result.steps} optimizer steps, last sft/loss {result.metrics['sft/loss']:.4f}, "
            f"adapter {result.adapter}")
        del result
    else:
        from coderl.train import run_training

        if stage.split_file:
            n = write_split(*stage.split_file)
            log(f"{stage.name}: wrote {n} tasks ({stage.split_file[0]}, split {stage.split_file[1]}) to "
                f"{stage.split_file[3]}")
        if state != "resume":
            _clear(stage.dir)  # interrupted before its first checkpoint: nothing to keep
        cfg = dataclasses.replace(stage.config, resume=state == "resume")
        metrics = run_training(cfg, log=log)
        shown = {k: round(v, 4) for k, v in metrics.items() if k.startswith(("reward/total", "sandbox/pass_rate"))}
        log(f"{stage.name}: {cfg.steps} steps done; last step {shown}")


def _resumable(stage: Stage) -> bool:
    """Whether an eval or SFT stage was interrupted with something kept (finished chunks, a checkpoint) under the
    settings it has now (`eval --resume`'s and `sft --resume`'s own checks)."""
    try:
        if stage.kind == "eval":
            from coderl.eval.chunks import PARTIAL, read_partial

            partial = os.path.join(stage.dir, PARTIAL)
            return os.path.isfile(partial) and bool(read_partial(stage.config, partial)[1])
        from coderl.train.checkpoint import latest_checkpoint
        from coderl.train.run_dir import check_resume

        ckpt = latest_checkpoint(stage.dir)
        if ckpt:
            check_resume(stage.dir, stage.config.to_dict(), ckpt)
        return bool(ckpt)
    except ConfigError:
        return False


def _clear(directory: str) -> None:
    if os.path.isdir(directory):
        shutil.rmtree(directory)


def _write_stamp(stage: Stage, out: str, seconds: float) -> None:
    stamp = {"stage": stage.name, "kind": stage.kind, "method": stage.method, "code": code_version(),
             "config": portable_config(stage.config, out),
             "input": portable_values({"model": stage.input_dir}, out)["model"],
             "input_sha256": adapter_sha256(stage.input_dir), "seconds": round(seconds, 1),
             "finished": datetime.datetime.now().isoformat(timespec="seconds")}
    write_json(os.path.join(stage.dir, STAMP), stamp)


def _write_plan_files(plan: Plan) -> None:
    copy = os.path.join(plan.out, "pipeline.yaml")
    if os.path.abspath(plan.config_path) != os.path.abspath(copy):
        shutil.copyfile(plan.config_path, copy)
    stages = [{"name": s.name, "kind": s.kind, "dir": os.path.relpath(s.dir, plan.out), "method": s.method,
               "role": s.role, "rl_dir": os.path.relpath(s.rl_dir, plan.out) if s.rl_dir else None,
               **({"eval_set": s.eval_set} if s.eval_set else {}),
               "config": portable_config(s.config, plan.out)} for s in plan.stages]
    write_json(os.path.join(plan.out, "plan.json"),
                {"title": plan.title, "config": "pipeline.yaml", "model": plan.model, "format": plan.format,
                 "dtype": plan.dtype, "seed": plan.seed, "stages": stages})


def run_command(cfg: PipelineConfig, own=lambda *outputs: None) -> int:
    """`coderl pipeline`: dry run, report only, or the whole flow; `own(("--out", path))` holds the pipeline's
    folder, the whole tree, for the rest of the command (`base/ownership.owned`): its stages take none."""
    if cfg.report_only and cfg.dry_run:
        raise ConfigError("--dry-run and --report-only: the one plans a run, the other rebuilds a finished run's "
                          "report; give one")
    if cfg.report_only:
        from coderl.pipeline.report import build_report

        out = cfg.out or load_plan(cfg.config, check_tasks=False).out
        own(("--out" if cfg.out else f"{cfg.config}: out", out))
        print(f"report: {build_report(out, log=lambda m: print(m, file=sys.stderr))}")
        return 0
    out = load_plan(cfg.config, cfg.out, check_tasks=False).out  # its folder, before any task set loads
    writable("--out" if cfg.out else f"{cfg.config}: out", out, "folder")
    if not cfg.dry_run:  # its states are read by their owner; a busy OUT is refused before the task sets load
        own(("--out" if cfg.out else f"{cfg.config}: out", out))
    plan = load_plan(cfg.config, cfg.out)
    states = plan_states(plan) if os.path.isdir(plan.out) else None
    message = stale_error(plan, states) if states else None
    # a tracker or vLLM a stage needs and this machine lacks: said before any model loads
    missing = [f"{stage.name}: {line}" for stage in plan.stages for line in missing_packages(
        getattr(stage.config, "log_with", "none"), getattr(stage.config, "engine", "hf"))]
    message = message or (missing[0] if missing else None)
    if cfg.dry_run:
        print(format_plan(plan, states))
        if message:
            print(f"a run would stop: {message}")
        check_overlap(plan, cached_only=True)  # a leak already decided refuses here as the run would
        print("dry run: every field validated, task sets loaded, identical prompts checked, leak verdicts already "
              "cached read; no model loaded, nothing written. The run first checks each training stage's tasks "
              "against the evaluation tasks by behaviour (references run in the sandbox, cached) and refuses a leak "
              "before it writes anything")
        return 0
    if message:
        raise ConfigError(message)
    print(format_plan(plan, states), file=sys.stderr)
    report = run_pipeline(plan)
    from coderl.eval.render import render_terminal

    with open(os.path.join(os.path.dirname(report), "report.json"), encoding="utf-8") as f:
        print(render_terminal(json.load(f)))
    print(f"done: {len(plan.stages)} stages in {plan.out}; report: {report}")
    return 0
