"""The state of each stage in OUT: done, to run, resumable or stale (stamps, config diffs), and the printed plan."""

from __future__ import annotations

import dataclasses
import functools
import json
import os

from coderl.base.config import ConfigError, flatten, leaves
from coderl.base.outputs import COSMETIC
from coderl.base.paths import sha256_file
from coderl.base.yaml_file import read_yaml_mapping

# ---------------------------------------------------------------------------------------------------
# stage state: done, to run, resumable, stale
from coderl.pipeline.plan import STAMP, Plan, Stage, is_inside


def portable_values(values: dict, out: str) -> dict:
    """`values` with paths inside OUT written `OUT/...` (so a moved OUT or another cwd still matches) and
    cosmetic fields dropped."""
    root = os.path.abspath(out)
    result = {}
    for k, v in values.items():
        if k in COSMETIC:
            continue
        if isinstance(v, str) and k in ("out", "model", "tasks", "data") and is_inside(v, root):
            v = "OUT" + os.path.abspath(v)[len(root):].replace(os.sep, "/")
        result[k] = v
    return result


def portable_config(cfg, out: str) -> dict:
    """A stage config as compared between runs and recorded in its stamp and in plan.json."""
    return portable_values(flatten(cfg), out)


def adapter_sha256(directory: str | None) -> str | None:
    path = os.path.join(directory, "adapter_model.safetensors") if directory else None
    return sha256_file(path) if path and os.path.isfile(path) else None


def _outputs_complete(stage: Stage) -> bool:
    if stage.kind == "eval":
        return os.path.isfile(os.path.join(stage.dir, "summary.json"))
    if stage.kind == "sft":
        return os.path.isfile(os.path.join(stage.dir, "adapter", "adapter_model.safetensors"))
    cfg = stage.config
    if cfg.eval.on:  # a selecting run (it may stop early): its best
        return os.path.isfile(os.path.join(stage.dir, "best", "adapter", "adapter_model.safetensors"))
    return os.path.isfile(os.path.join(stage.dir, "checkpoints", f"step-{cfg.steps}", "adapter_model.safetensors"))


def _diff(old: dict, new: dict) -> str:
    keys = [k for k in sorted(set(old) | set(new)) if k not in old or k not in new or old[k] != new[k]]
    shown = ", ".join(f"{k}: {old.get(k)!r} -> {new.get(k)!r}" for k in keys[:3])
    return shown + (f" and {len(keys) - 3} more" if len(keys) > 3 else "")


def stage_status(stage: Stage, out: str) -> tuple[str, str]:
    """(state, detail): state is done, run, resume or stale."""
    stamp_path = os.path.join(stage.dir, STAMP)
    new = portable_config(stage.config, out)
    if os.path.isfile(stamp_path):
        try:
            with open(stamp_path, encoding="utf-8") as f:
                stamp = json.load(f)
        except ValueError:
            return "stale", f"unreadable {STAMP}"
        old = stamp.get("config") or {}
        compared = _without_new_defaults(new, old, stage.config)
        if old != compared:
            return "stale", "made with a different config (" + _diff(old, compared) + ")"
        if stamp.get("input_sha256") != adapter_sha256(stage.input_dir):
            return "stale", f"its input {stage.input_dir} changed since"
        if not _outputs_complete(stage):
            return "stale", "outputs missing"
        detail = f"finished {stamp.get('finished', '?')}"
        if stamp.get("code", "unrecorded") != code_version():   # kept, but never silently: say so
            detail += f"; made by coderl {stamp.get('code', '(unrecorded)')}, now {code_version()}"
        return "done", detail
    if stage.kind == "rl":
        from coderl.train.checkpoint import latest_checkpoint

        ckpt = latest_checkpoint(stage.dir)
        if ckpt:
            old = _read_yaml_dict(os.path.join(stage.dir, "config.yaml"))
            # its paths are relative to the OUT it was written in (OUT/rl/<name>), which may have moved
            old = portable_values(old, os.path.dirname(os.path.dirname(str(old.get("out") or stage.dir))))
            compared = _without_new_defaults(new, old, stage.config)
            if old and old != compared:
                return "stale", "interrupted run made with a different config (" + _diff(old, compared) + ")"
            return "resume", f"resumes from {os.path.basename(ckpt)}"
    return "run", ""


# Options that are None exactly when the stage's setup does not use them (the loss does not take it, no
# value head, no length_penalty component).  Stamps written before that rule recorded a default value there.
UNUSED_WHEN_NONE = ("ratio_level", "value_coef", "value_clip", "whiten_advantages", "length_alpha",
                    "length_penalty_on")


def _without_new_defaults(new: dict, old: dict, cfg) -> dict:
    """`new` minus the fields `old` does not have that sit at their default: a field added to coderl
    after a stage ran (e.g. `device`) does not make the stage stale unless it is set to something else.
    An option the stage does not use (None in `new`, UNUSED_WHEN_NONE) is taken as `old` recorded it, and
    `device: auto` matches the device auto picks on this machine; a removed setting recorded at the value whose
    behaviour stayed is taken as recorded."""
    from coderl.models.load import resolve_device

    defaults = {name: f.default for name, (_, f, _) in leaves(type(cfg)).items()
                if f.default is not dataclasses.MISSING}
    kept = {k: v for k, v in new.items() if k in old or k not in defaults or v != defaults[k]}
    kept.update({k: old[k] for k in UNUSED_WHEN_NONE if k in old and k in kept and kept[k] is None})
    # a setting removed since, recorded at the behaviour that stayed (TrainConfig.REMOVED), is no change
    removed = getattr(type(cfg), "REMOVED", {})
    kept.update({k: old[k] for k, (value, _) in removed.items() if k in old and old[k] == value})
    if kept.get("device") == "auto" and old.get("device") == resolve_device("auto"):
        kept["device"] = old["device"]  # `device: cpu` dropped for auto, which picks the same device here
    return kept


def _read_yaml_dict(path: str) -> dict:
    """The mapping of an interrupted run's config.yaml, or {} where it cannot be read as one."""
    try:
        return read_yaml_mapping(path, expected="a mapping")
    except (ConfigError, OSError):
        return {}


def plan_states(plan: Plan) -> dict[str, tuple[str, str]]:
    """Every stage's state; a finished stage downstream of one that will run from scratch is stale too.

    (Downstream of a resumed RL run nothing can be finished yet; the adapter hash in each stamp is
    checked again just before a stage would be skipped.)"""
    states = {s.name: stage_status(s, plan.out) for s in plan.stages}
    for s in plan.stages:
        if states[s.name][0] in ("run", "stale"):
            for d in plan.downstream(s):
                if states[d.name][0] in ("done", "resume"):
                    states[d.name] = ("stale", f"starts from {s.name}, which runs again")
    return states


def stale_error(plan: Plan, states: dict) -> str | None:
    stale = [s for s in plan.stages if states[s.name][0] == "stale"]
    if not stale:
        return None
    first = stale[0]
    dirs = []
    for s in stale:
        for d in [s, *plan.downstream(s)]:
            if d.dir not in dirs and (os.path.exists(d.dir)):
                dirs.append(d.dir)
    return (f"{first.dir}: {states[first.name][1]}; delete {' '.join(dirs)} to redo "
            f"{'it' if len(dirs) == 1 else 'them'}, or use another --out")


# ---------------------------------------------------------------------------------------------------
# printing the plan


def _evaluation_line(title: str, ev, tasks: int | None) -> str:
    sampling = "greedy" if ev.temperature == 0 else f"temperature {ev.temperature}"
    return (f"{title}: {ev.tasks} split {ev.split}" + (f" (first {ev.limit})" if ev.limit else "")
            + (f": {tasks} tasks" if tasks else "")
            + f" x {ev.samples} sample(s), {sampling}, max_new_tokens {ev.max_new_tokens}"
            + (f", repair episodes of {ev.repair.turns} turns (hidden tests)" if ev.repair.on else ""))


def format_plan(plan: Plan, states: dict | None = None) -> str:
    lines = [f"pipeline {plan.config_path} -> {plan.out}",
             f"model {plan.model}, format {plan.format}, weights {plan.dtype}, seed {plan.seed}",
             _evaluation_line("evaluation", plan.stage("base-eval").config, plan.eval_tasks)]
    lines += [_evaluation_line(f"evaluation set {s.eval_set}", s.config, plan.set_tasks.get(s.eval_set))
              for s in plan.stages if s.eval_set and s.role == "base"]
    lines.append("")
    width = max(18, *(len(s.name) for s in plan.stages))
    for i, s in enumerate(plan.stages, 1):
        c = s.config
        if s.kind == "eval":
            what = f"evaluate {_short(c.model, plan.out)}"
        elif s.kind == "sft":
            what = (f"{s.method} of {_short(c.model, plan.out)} on {c.data} ({c.split}"
                    + (f", {s.train_tasks} tasks" if s.train_tasks is not None else "")
                    + f"), {c.epochs} epoch(s), batch {c.batch_size} x {c.gradient_accumulation}, lr {c.learning_rate},"
                    f" LoRA r {c.lora.rank}")
        else:
            tasks = f"{s.split_file[0]} ({s.split_file[1]})" if s.split_file else c.tasks
            what = (f"{s.method}: --algo {c.algo} from {_short(c.model, plan.out)} on {tasks}"
                    + (f" ({s.train_tasks} tasks)" if s.train_tasks is not None else "")
                    + f", {c.steps} steps x {c.prompts_per_step} prompts x {c.samples_per_prompt} samples, "
                    f"reward {c.rewards.reward}" + (f" alpha {c.rewards.length_alpha}"
                                                    if c.rewards.reward in ("seed001", "pass_minus_length") else "")
                    + f", T {c.temperature}, lr {c.optim.learning_rate}, max_new_tokens {c.max_new_tokens}"
                    + (f", {c.repair.turns} turns, credit {c.repair.credit}" if c.repair.on else ""))
        state = ""
        if states:
            st, detail = states[s.name]
            state = f"  [{st}{': ' + detail if detail else ''}]"
        lines.append(f"{i:2d}. {s.name:<{width}} {what}")
        lines.append(f"    -> {s.dir}{state}")
    lines.append(f"{len(plan.stages) + 1:2d}. {'report':<{width}} -> {os.path.join(plan.out, 'report')}")
    lines += [f"note: {n}" for n in plan.notes]
    return "\n".join(lines)


def _short(path: str, out: str) -> str:
    return "OUT" + os.path.abspath(path)[len(os.path.abspath(out)):] if is_inside(path, out) else path


@functools.lru_cache(maxsize=1)
def code_version() -> str:
    """coderl's version, plus the git commit (and "-dirty") when it runs from a git checkout."""
    import importlib.metadata
    import subprocess

    try:
        version = importlib.metadata.version("coderl")
    except importlib.metadata.PackageNotFoundError:
        version = "unknown"
    src = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    try:
        sha = subprocess.run(["git", "-C", src, "rev-parse", "--short=12", "HEAD"], capture_output=True,
                             text=True, timeout=10).stdout.strip()
        dirty = subprocess.run(["git", "-C", src, "status", "--porcelain", "--untracked-files=no", "--", "coderl"],
                               capture_output=True, text=True, timeout=10).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return version
    return f"{version}+g{sha}" + ("-dirty" if dirty else "") if sha else version
