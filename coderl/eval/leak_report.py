"""`coderl decontaminate`: training tasks against evaluation sets, by behaviour and by n-gram overlap.

Writes a Markdown report (the one in `docs/decontamination.md` is this command's output) and a JSON
file with every leak and every evaluation task's overlap.  Exit status 1 when anything leaks (a
reference passes an evaluation task's tests, or a prompt is identical) or a run did not finish.
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import asdict, dataclass

from coderl.base.config import option, require, section
from coderl.base.outputs import finished, refuse_existing, refuse_inputs
from coderl.base.progress import on_stderr
from coderl.eval.decontaminate import Decontamination, behaviour_leaks, ngram_overlap
from coderl.eval.render import md_table
from coderl.sandbox.config import SandboxConfig
from coderl.tasks import load_tasks
from coderl.tasks.spec import open_sandbox, task_files

EVAL_SETS = ("easy humaneval@test synthetic:level=1,split=test synthetic:level=2,split=test "
             "synthetic:level=3,split=test")


@dataclass
class DecontaminateConfig:
    """Run every evaluation task's tests against every training reference (a pass is a leak) and report the
    word n-gram overlap between training and evaluation prompts."""

    tasks: str = option("corpus", "training task spec (its tasks need reference solutions)")
    against: str = option(EVAL_SETS, "evaluation task specs, separated by spaces")
    out: str | None = option(None, "write OUT.md (report) and OUT.json (every leak and overlap)")
    overwrite: bool = option(False, "replace an earlier report's OUT.md and OUT.json (refused without it)")
    ngram: str = option("8,13", "n-gram sizes of the overlap report (comma-separated)")
    sandbox: SandboxConfig = section(SandboxConfig)

    def __post_init__(self):
        require(bool(self.against.split()), "--against", self.against, "at least one task spec")
        sizes = [part.strip() for part in self.ngram.split(",")]
        require(all(p.isdigit() and int(p) >= 1 for p in sizes), "--ngram", self.ngram,
                "comma-separated positive integers")


def run_decontaminate(cfg: DecontaminateConfig) -> tuple[Decontamination, str, dict]:
    paths = [cfg.out + ".md", cfg.out + ".json"] if cfg.out else []
    refuse_inputs({"--out": paths}, [(flag, path) for flag, spec in (("--tasks", cfg.tasks), ("--against", cfg.against))
                                     for part in spec.split() for path in task_files(part)])
    refuse_existing("--out", cfg.out, [p for p in paths if os.path.exists(p)], overwrite=cfg.overwrite, kind="prefix")
    train = load_tasks(cfg.tasks).tasks
    sets = {spec: load_tasks(spec).tasks for spec in cfg.against.split()}
    evals = [t for tasks in sets.values() for t in tasks]
    start = time.perf_counter()
    with open_sandbox(cfg.sandbox, cfg.tasks, *sets) as sandbox:
        report = behaviour_leaks(train, evals, sandbox, on_stderr)
    seconds = time.perf_counter() - start
    overlaps = {n: {spec: ngram_overlap(train, tasks, n) for spec, tasks in sets.items()}
                for n in map(int, cfg.ngram.split(","))}
    text = format_report(cfg, report, overlaps, seconds)
    data = {"tasks": cfg.tasks, "against": list(sets), "behaviour": asdict(report),
            "ngram": {str(n): {spec: [asdict(o) for o in rows] for spec, rows in per.items()}
                      for n, per in overlaps.items()}}
    with finished(*paths) as tmps:  # both whole, or neither
        for tmp, content in zip(tmps, (text, json.dumps(data, indent=1))):
            with open(tmp, "w", encoding="utf-8") as f:
                f.write(content)
    return report, text, data


def format_report(cfg, report: Decontamination, overlaps: dict, seconds: float) -> str:
    lines = ["# Decontamination report", "",
             f"Command: `coderl decontaminate --tasks {cfg.tasks} --against \"{cfg.against}\"`", "",
             "## By behaviour", "",
             f"{report.train_tasks} training tasks against {report.eval_tasks} evaluation tasks: "
             f"{report.pairs} (reference, tests) pairs with compatible signatures ran in {seconds:.0f} s.", ""]
    leaks = sorted(set(report.leaks))
    lines.append(f"**Leaks: {len(leaks)}** (a training reference that passes every test of an evaluation task)"
                 + (":" if leaks else "."))
    if leaks:
        lines += ["", *md_table(["training task", "passes the tests of"], leaks)]
    same = sorted(set(report.same))
    lines += ["", f"Same id or prompt: {len(same)}" + (": " + ", ".join(f"{a} = {b}" for a, b in same[:20])
                                                     if same else ".")]
    lines.append(f"Not checked: {len(report.skipped_train)} training tasks (no reference, or not a module-level "
                 f"function: classes), {len(report.skipped_eval)} evaluation tasks (not function tasks, or no "
                 f"signature found); undecided: {len(report.incomplete)} evaluation tasks whose run did not finish. "
                 f"{len(report.timeouts)} pairs timed out (1 s of CPU) and count as failing"
                 + (f" (e.g. {', '.join(f'{a} on {b}' for a, b in sorted(report.timeouts)[:3])})" if report.timeouts
                    else "") + ".")
    for n, per in overlaps.items():
        lines += ["", f"## Word {n}-gram overlap of the prompts", "",
                  f"Per evaluation prompt: the share of its distinct {n}-grams that occur in some training prompt, "
                  "and the training prompt sharing the most.", "",
                  "| evaluation set | tasks | with any shared | mean share | max share | closest pair at max |",
                  "|---|---|---|---|---|---|"]
        for spec, rows in per.items():
            shares = [(o.shared / o.ngrams if o.ngrams else 0.0, o) for o in rows]
            top = max(shares, key=lambda s: s[0], default=(0.0, None))
            pair = f"{top[1].eval_id} ~ {top[1].closest}" if top[1] and top[1].shared else "-"
            mean = sum(s for s, _ in shares) / len(shares) if shares else 0.0
            lines.append(f"| {spec} | {len(rows)} | {sum(1 for s, _ in shares if s > 0)} | {mean:.3f} | "
                         f"{top[0]:.3f} | {pair} |")
    return "\n".join(lines) + "\n"


def overlap_error(train_spec: str, train, eval_spec: str, sandbox_cfg: SandboxConfig) -> str | None:
    """One line refusing a run whose training tasks leak into its evaluation tasks, or None.

    The verdict is cached in `$CODERL_CACHE/decontamination` by the tasks' content."""
    from coderl.base.paths import cache_root
    from coderl.eval.decontaminate import cached_leaks

    evals = load_tasks(eval_spec).tasks
    with open_sandbox(sandbox_cfg, train_spec, eval_spec) as sandbox:
        report = cached_leaks(list(train), evals, sandbox, os.path.join(cache_root(), "decontamination"),
                              train_spec)
    pairs = sorted(set(report.same)) + sorted(set(report.leaks))
    if pairs:
        a, b = pairs[0]
        how = "is the same task as" if (a, b) in report.same else "passes the tests of"
        return (f"training tasks '{train_spec}' overlap eval tasks '{eval_spec}': {len(report.leaked_train_ids)} "
                f"training tasks solve evaluation tasks ({a} {how} {b}); train on other tasks or evaluate on "
                f"others (coderl decontaminate --tasks '{train_spec}' --against '{eval_spec}' lists them)")
    if report.incomplete:
        return (f"could not check training tasks '{train_spec}' against eval tasks '{eval_spec}': the check did "
                f"not finish for {len(report.incomplete)} evaluation tasks (first: {report.incomplete[0]}); "
                "`check_overlap: false` in a --config YAML file skips it")
    return None
