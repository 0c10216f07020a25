"""`coderl pipeline`: seed 001's whole flow from one YAML file -- base evaluation -> SFT -> RL runs ->
evaluation of every checkpoint on the same tasks -> one report directory.

Schema (every section's fields are the fields of the real dataclass config, validated by building it)::

    out: runs/pipeline/demo        # output directory (`--out DIR` overrides it)
    model: smollm2-135m-instruct   # the base model every stage starts from (alias, HF folder, GGUF, hub id)
    format: chat                   # prompt format of every stage: SFT, RL and evaluation must agree
    dtype: float32                 # weights of the base model in every stage (float32, bfloat16, or auto:
                                   # bfloat16 where the GPU/CPU runs it natively, else float32)
    seed: 0                        # seed of every stage; it also picks the train/test split of file task
                                   # sources, so SFT's train split and the evaluation's test split agree
    title: ...                     # optional: heading of the report
    allow_eval_overlap: false      # optional: allow training prompts that are also evaluation prompts
    eval:                          # `EvalConfig` fields (`coderl eval --help`) but out, model, format,
      tasks: humaneval             #   seed, label, method (the pipeline sets those per checkpoint)
      split: test
      max_new_tokens: 256
    sft:                           # `SFTConfig` fields (`coderl sft --help`) but out, model, format, seed;
      method: SFT (LoRA)           #   null or absent: no SFT.  `method`: its label in tables (default
      data: humaneval              #   "SFT (LoRA)", or "SFT (QLoRA + LoRA)" with qlora: true)
      split: train
    rl:                            # a list of runs (absent or []: no RL); each is
      - name: reinforce-a0.01      #   name: directory OUT/rl/<name> (letters, digits, . _ -; unique; not "sft")
        method: REINFORCE (α = 0.01)  # label in tables (default: the algo, plus alpha for reward seed001)
        split: train               #   optional: train on this split of `tasks` (file sources; see below)
        algo: reinforce            #   + `TrainConfig` fields (`coderl train --help`) but out, model, format,
        reward: seed001            #   config, resume; `seed` defaults to the top-level seed
        length_alpha: 0.01

RL runs start from the SFT adapter when SFT ran, else from `model`.  Validation builds `EvalConfig`,
`SFTConfig` and `TrainConfig` for every stage with its planned output path, so `--dry-run` checks every
field: an unknown name is one line naming the section and field; a bad value is the dataclass's own
one-line error prefixed with the section (`rl[2] (ppo): --clip-eps=-1.0: expected a positive number`).
It also loads the task sets (not the model) and refuses training prompts identical to evaluation prompts
(SFT data or an RL run's tasks), naming the fix; `allow_eval_overlap: true` permits it (tiny tests).

RL `split`.  `coderl train` has no split field: it trains on every task of its spec.  With `split:
train`, the pipeline writes that split of a file source (`humaneval`, `easy`, `humaneval:PATH`, ...)
for the top-level seed to `OUT/data/<spec>-<split>-seed<seed>.jsonl` (the source rows, byte for byte)
and trains on that file.  Synthetic specs carry their own `split=` option instead.

Layout and order (each RL run is evaluated right after it finishes, so results arrive early)::

    OUT/pipeline.yaml        the config file as given          OUT/plan.json   the resolved plan: every
    OUT/pipeline.log         everything the stages logged                       stage's full config
    OUT/base-eval/           `coderl eval` run of `model`
    OUT/sft/                 `coderl sft` run (adapter in OUT/sft/adapter)
    OUT/eval/sft/            `coderl eval` run of OUT/sft/adapter
    OUT/rl/<name>/           `coderl train` run (final checkpoint OUT/rl/<name>/checkpoints/step-<steps>)
    OUT/eval/<name>/         `coderl eval` run of that checkpoint
    OUT/data/                task splits written for RL runs with `split:`
    OUT/report/              report.md, report.html, report.json, PNGs (`coderl.eval.report`)

Resume.  A finished stage writes `pipeline_stage.json` into its directory: its config (paths inside OUT
written as `OUT/...`) and the sha256 of the adapter it started from.  A rerun skips every stage whose
stamp matches the current plan, resumes an RL run from its newest checkpoint (`coderl train --resume`:
exact), and redoes an interrupted SFT or evaluation from scratch.  A stage whose stamp (or an RL run
whose config.yaml) differs from the plan -- an edited config, or an upstream stage that will run again --
stops the run before anything starts, with one line naming the directories to delete: outputs are never
deleted or mixed silently.  The report is rebuilt on every run.
"""

from __future__ import annotations

import dataclasses
import datetime
import difflib
import functools
import gc
import gzip
import hashlib
import json
import os
import re
import shutil
import sys
import time
from dataclasses import dataclass, field
from typing import Any

from coderl.base.config import (
    ConfigError,
    build,
    coerce,
    flatten,
    leaves,
    option,
    read_yaml_mapping,
    require,
    sections,
)

STAMP = "pipeline_stage.json"
TOP_LEVEL = ("out", "model", "format", "dtype", "seed", "title", "allow_eval_overlap", "eval", "sft", "rl")
# Fields each section may not set: the pipeline decides them (paths, the model each stage starts from,
# and the format/seed every stage must share).
OWNED = {
    "eval": ("out", "model", "format", "dtype", "seed", "label", "method"),
    "sft": ("out", "model", "format", "dtype", "seed"),
    "rl": ("out", "model", "format", "dtype", "config", "resume"),
}
PIPELINE_KEYS = {"eval": (), "sft": ("method",), "rl": ("name", "method", "split")}
COMMANDS = {"eval": "coderl eval", "sft": "coderl sft", "rl": "coderl train"}
# Fields that change nothing in a stage's outputs: a rerun with a different value still counts as done.
COSMETIC = ("progress", "workers", "log_with", "resume", "shared_prompt")
ALGO_LABELS = {"reinforce": "REINFORCE", "rloo": "RLOO", "grpo": "GRPO", "ppo_critic_free": "PPO (critic-free)",
               "ppo": "PPO (value head)"}
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")


@dataclass
class PipelineConfig:
    """Run seed 001's flow from one YAML file: base eval -> SFT -> RL runs -> eval of every checkpoint -> report."""

    config: str | None = option(None, "pipeline YAML file (schema: docs/pipeline.md)")
    out: str | None = option(None, "output directory (default: the config's `out`)")
    dry_run: bool = option(False, "validate every field, print the plan and the state of OUT, load no model")
    report_only: bool = option(False, "only (re)build OUT/report from the stage outputs already in OUT")

    def __post_init__(self):
        require(self.config is not None or (self.report_only and self.out is not None), "--config", self.config,
                "a pipeline YAML file (or --report-only --out DIR)")


# ---------------------------------------------------------------------------------------------------
# the plan


@dataclass
class Stage:
    name: str  # base-eval, sft, eval/sft, rl/<name>, eval/<name>
    kind: str  # eval | sft | rl
    dir: str
    config: Any  # EvalConfig | SFTConfig | TrainConfig
    method: str = ""  # label in tables
    role: str = ""  # for evaluations: base | sft | rl
    input_dir: str | None = None  # the adapter inside OUT this stage starts from (fingerprinted)
    rl_dir: str | None = None  # evaluations of RL checkpoints: the run directory (curves)
    split_file: tuple | None = None  # RL with `split:`: (spec, split, seed, path) to write before it runs
    train_tasks: int | None = None  # RL/SFT: tasks found at validation


@dataclass
class Plan:
    out: str
    config_path: str
    model: str
    format: str
    seed: int
    title: str
    stages: list[Stage]
    dtype: str = "float32"
    eval_tasks: int = 0
    notes: list[str] = field(default_factory=list)

    def stage(self, name: str) -> Stage:
        return next(s for s in self.stages if s.name == name)

    def downstream(self, stage: Stage) -> list[Stage]:
        """Stages that start from `stage`'s output, directly or not."""
        out, frontier = [], {stage.dir}
        for s in self.stages[self.stages.index(stage) + 1:]:
            if s.input_dir and any(_inside(s.input_dir, d) for d in frontier):
                out.append(s)
                frontier.add(s.dir)
        return out


def _inside(path: str, directory: str) -> bool:
    path, directory = os.path.abspath(path), os.path.abspath(directory)
    return path == directory or path.startswith(directory + os.sep)


def read_yaml(path: str) -> dict:
    """The YAML mapping at `path`; a key given twice in one mapping is an error (PyYAML keeps the last)."""
    import yaml

    class StrictLoader(yaml.SafeLoader):
        pass

    def mapping(loader, node):
        keys = [(loader.construct_object(k, deep=True), k.start_mark.line + 1) for k, _ in node.value]
        seen = set()
        for key, line in keys:
            if key in seen:
                raise ConfigError(f"--config {path}: line {line}: field '{key}' given twice in one mapping")
            seen.add(key)
        return loader.construct_mapping(node, deep=True)

    StrictLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, mapping)
    return read_yaml_mapping(path, loader=StrictLoader, expected="a mapping with out, model, eval, sft, rl")


def load_plan(path: str, out: str | None = None, *, check_tasks: bool = True) -> Plan:
    """Validate the pipeline YAML at `path` (every field, through the real dataclasses) and plan its stages.

    `check_tasks` loads every task set (no model) to count tasks, write nothing, and refuse training
    prompts that are evaluation prompts.  Raises `ConfigError` with one line.
    """
    from coderl.rollout.formats import FORMATS

    data = read_yaml(path)
    for key in data:
        if key not in TOP_LEVEL:
            raise ConfigError(f"{path}: unknown top-level field '{key}'{_suggest(key, TOP_LEVEL)} "
                              f"(expected: {', '.join(TOP_LEVEL)})")
    out = out or data.get("out")
    require(isinstance(out, str) and out.strip() != "", f"{path}: out", out, "an output directory (or --out DIR)")
    model = data.get("model", "smollm2-135m-instruct")
    require(isinstance(model, str) and model.strip() != "", f"{path}: model", model, "a model spec")
    from coderl.eval.run import DEFAULT_FORMAT

    fmt = data.get("format", DEFAULT_FORMAT)
    require(fmt in FORMATS, f"{path}: format", fmt, "one of " + ", ".join(sorted(FORMATS)))
    dtype = data.get("dtype", "float32")
    require(dtype in ("float32", "bfloat16", "auto"), f"{path}: dtype", dtype, "float32, bfloat16 or auto")
    if dtype == "auto":  # resolved once, here: stamps and the plan record what actually ran
        from coderl.models.load import fast_dtype

        dtype = fast_dtype()
    seed = data.get("seed", 0)
    require(isinstance(seed, int) and not isinstance(seed, bool), f"{path}: seed", seed, "an integer")
    title = data.get("title") or f"coderl pipeline: {os.path.basename(path)}"
    allow_overlap = data.get("allow_eval_overlap", False)
    require(isinstance(allow_overlap, bool), f"{path}: allow_eval_overlap", allow_overlap, "true or false")
    for key in ("eval", "sft"):
        require(data.get(key) is None or isinstance(data[key], dict), f"{path}: {key}", data.get(key),
                "a mapping of field: value" + (" (or null)" if key == "sft" else ""))
    rl = data.get("rl") or []
    require(isinstance(rl, list), f"{path}: rl", rl, "a list of runs ({name, method, <coderl train fields>})")
    _check_model(path, model)
    plan = Plan(out=out, config_path=path, model=model, format=fmt, dtype=dtype, seed=seed, title=str(title), stages=[])
    _plan_stages(plan, data.get("eval") or {}, data.get("sft"), rl)
    if check_tasks:
        _check_tasks(plan, allow_overlap)
    return plan


def _check_model(path: str, model: str) -> None:
    from coderl.models.spec import resolve_spec  # torch-free: classifies the spec, loads nothing

    try:
        resolve_spec(model)
    except ConfigError as exc:
        raise ConfigError(f"{path}: {exc}") from None


def _plan_stages(plan: Plan, eval_fields: dict, sft_fields: dict | None, rl: list) -> None:
    from coderl.eval.run import EvalConfig
    from coderl.train.config import TrainConfig
    from coderl.train.sft import SFTConfig

    out = plan.out
    common = {"format": plan.format, "dtype": plan.dtype, "seed": plan.seed}
    eval_values = _section_values("eval", "eval", eval_fields, EvalConfig)

    def evaluation(name: str, model: str, label: str, method: str, role: str, input_dir=None, rl_dir=None):
        directory = os.path.join(out, name)
        cfg = _build("eval", EvalConfig, {**eval_values, **common, "out": directory, "model": model,
                                           "label": label, "method": method})
        return Stage(name, "eval", directory, cfg, method, role, input_dir=input_dir, rl_dir=rl_dir)

    plan.stages.append(evaluation("base-eval", plan.model, plan.model, "Base", "base"))
    start = plan.model
    if sft_fields is not None:
        values = _section_values("sft", "sft", sft_fields, SFTConfig)
        method = values.pop("method", None)
        sft_dir = os.path.join(out, "sft")
        cfg = _build("sft", SFTConfig, {**values, **common, "out": sft_dir, "model": plan.model})
        method = _label("sft", method) or ("SFT (QLoRA + LoRA)" if cfg.qlora else "SFT (LoRA)")
        plan.stages.append(Stage("sft", "sft", sft_dir, cfg, method))
        start = os.path.join(sft_dir, "adapter")
        plan.stages.append(evaluation("eval/sft", start, "sft/adapter", method, "sft", input_dir=start))
        if cfg.qlora:
            plan.notes.append("sft: qlora needs a CUDA GPU and bitsandbytes when it runs (checked before the "
                              "first stage, not by --dry-run); RL and evaluation load the base unquantised "
                              "(coderl train / coderl eval have no qlora field)")
    names: set[str] = set()
    for i, entry in enumerate(rl):
        where = f"rl[{i}]"
        if not isinstance(entry, dict):
            raise ConfigError(f"{where}: expected a mapping with name, method and `coderl train` fields")
        name = entry.get("name")
        if not isinstance(name, str) or not _NAME.match(name) or name == "sft":
            raise ConfigError(f"{where}: name={name!r}: expected a directory name (letters, digits, '.', '_', "
                              "'-'; not 'sft')")
        if name in names:
            raise ConfigError(f"{where}: name={name!r}: used by an earlier run (names must be unique)")
        names.add(name)
        where = f"rl[{i}] ({name})"
        values = _section_values(where, "rl", {k: v for k, v in entry.items() if k != "name"}, TrainConfig)
        method, split = values.pop("method", None), values.pop("split", None)
        run_dir = os.path.join(out, "rl", name)
        split_file = None
        if split is not None:
            split_file = _split_file(where, values.get("tasks", _default(TrainConfig, "tasks")), split, plan)
            values["tasks"] = split_file[3]
        cfg = _build(where, TrainConfig, {"seed": plan.seed, **values, "format": plan.format, "dtype": plan.dtype,
                                          "out": run_dir, "model": start})
        method = _label(where, method) or ALGO_LABELS.get(cfg.algo, cfg.algo) + (
            f" (α = {cfg.rewards.length_alpha})" if cfg.rewards.reward in ("seed001", "pass_minus_length") else "")
        input_dir = start if start != plan.model else None
        plan.stages.append(Stage(f"rl/{name}", "rl", run_dir, cfg, method, input_dir=input_dir,
                                 split_file=split_file))
        checkpoint = os.path.join(run_dir, "checkpoints", f"step-{cfg.steps}")
        plan.stages.append(evaluation(f"eval/{name}", checkpoint, name, method, "rl", input_dir=checkpoint,
                                      rl_dir=run_dir))


def _label(where: str, method) -> str | None:
    require(method is None or isinstance(method, str), f"{where}: method", method, "a label (text)")
    return method


def _default(cls, name: str):
    return leaves(cls)[name][1].default


def _suggest(name: str, known) -> str:
    close = difflib.get_close_matches(str(name), list(known), n=1)
    return f" (did you mean '{close[0]}'?)" if close else ""


def _section_values(where: str, section: str, values: dict, cls) -> dict:
    """Check field names and types of one section; returns the values (floats written `5e-5` coerced)."""
    fields = leaves(cls)
    owned, extra = OWNED[section], PIPELINE_KEYS[section]
    out = {}
    for name, value in flat_values_or_names(cls, values):
        if name in extra:
            out[name] = value
            continue
        if name in owned:
            why = ("set by the pipeline for each stage" if name in ("out", "model", "label", "method", "resume",
                                                                      "config")
                   else "set once at the top level, for every stage")
            raise ConfigError(f"{where}: field '{name}' cannot be set here ({why})")
        if name not in fields:
            allowed = [n for n in fields if n not in owned] + list(extra)
            raise ConfigError(f"{where}: unknown field '{name}'{_suggest(name, allowed)} "
                              f"(see `{COMMANDS[section]} --help`)")
        _, f, annotation = fields[name]
        try:
            value = coerce(value, annotation, "--" + name.replace("_", "-"))
        except ConfigError as exc:
            raise ConfigError(f"{where}: {exc}") from None
        choices = f.metadata.get("choices")
        if choices and value is not None:
            require(value in choices, f"{where}: --{name.replace('_', '-')}", value,
                    "one of " + ", ".join(map(str, choices)))
        out[name] = value
    return out


def flat_values_or_names(cls, values: dict):
    """(name, value) of a YAML section, a config section's mapping (`sandbox: {timeout: 3}`) spread out."""
    secs = sections(cls)
    for name, value in values.items():
        if name in secs and isinstance(value, dict):
            yield from value.items()
        else:
            yield name, value


def _build(where: str, cls, values: dict):
    """The dataclass itself validates; its one-line error gets the section in front."""
    try:
        return build(cls, values, where=where)
    except ConfigError as exc:
        raise ConfigError(f"{where}: {exc}") from None
    except (TypeError, ValueError) as exc:
        raise ConfigError(f"{where}: {str(exc).splitlines()[0]}") from None


# ---------------------------------------------------------------------------------------------------
# task sets: counts, leak check, RL splits


def _split_file(where: str, spec: str, split, plan: Plan) -> tuple:
    from coderl.tasks.spec import parse_task_spec

    require(split in ("all", "train", "test"), f"{where}: split", split, "one of all, train, test")
    if parse_task_spec(spec).source == "synthetic":
        raise ConfigError(f"{where}: split={split!r}: synthetic specs carry their own split= option "
                          f"(e.g. tasks: synthetic:level=1,n=200,split=train)")
    slug = re.sub(r"[^A-Za-z0-9]+", "-", spec).strip("-")[:60] or "tasks"
    path = os.path.join(plan.out, "data", f"{slug}-{split}-seed{plan.seed}.jsonl")
    return (spec, split, plan.seed, path)


def _check_tasks(plan: Plan, allow_overlap: bool) -> None:
    from coderl.tasks import TaskFormatError, load_tasks
    from coderl.train.sft_data import load_sft_tasks

    def load(where, fn, *args):
        try:
            return fn(*args)
        except (TaskFormatError, ConfigError, ValueError) as exc:
            raise ConfigError(f"{where}: {str(exc).splitlines()[0]}") from None

    base = plan.stage("base-eval").config
    eval_tasks = load("eval", load_tasks, base.tasks, base.split, base.seed).tasks
    eval_tasks = eval_tasks[: base.limit] if base.limit else eval_tasks
    plan.eval_tasks = len(eval_tasks)
    require(plan.eval_tasks > 0, "eval: --tasks", base.tasks, "a task set with tasks in the chosen split")
    prompts = {t.prompt: t.task_id for t in eval_tasks}
    for stage in plan.stages:
        if stage.kind == "sft":
            tasks = load("sft", load_sft_tasks, stage.config.data, stage.config.split, stage.config.seed)[0]
            where = "sft"
            fix = "train on another split (split: train) or other data"
        elif stage.kind == "rl":
            where = f"rl[{_rl_index(plan, stage)}] ({stage.name[3:]})"
            if stage.split_file:
                spec, split, seed, _ = stage.split_file
                tasks = load(where, load_tasks, spec, split, seed).tasks
            else:
                tasks = load(where, load_tasks, stage.config.tasks).tasks
            eval_tasks = stage.config.eval.eval_tasks
            if eval_tasks:   # the run's own held-out set, evaluated during training
                held = load(f"{where} eval_tasks", load_tasks, eval_tasks).tasks
                require(len(held) > 0, f"{where}: eval_tasks", eval_tasks, "at least one task")
            fix = "add `split: train` to this run or use other tasks"
        else:
            continue
        stage.train_tasks = len(tasks)
        require(len(tasks) > 0, f"{where}: tasks", getattr(stage.config, "tasks", None), "at least one task")
        shared = [prompts[t.prompt] for t in tasks if t.prompt in prompts]
        if shared and not allow_overlap:
            raise ConfigError(f"{where}: trains on {len(set(shared))} of the {len(eval_tasks)} evaluation tasks "
                              f"(e.g. {shared[0]}): {fix}, or set allow_eval_overlap: true")


def _rl_index(plan: Plan, stage: Stage) -> int:
    return [s for s in plan.stages if s.kind == "rl"].index(stage)


def write_split(spec: str, split: str, seed: int, path: str) -> int:
    """Write the `split` of a file task source to `path` as its source rows, byte for byte; returns the count.

    Every task records `source` = "file:line"; reloading the written file gives the same tasks (checked).
    """
    from coderl.tasks import load_tasks

    tasks = load_tasks(spec, split=split, seed=seed).tasks
    wanted: dict[str, set[int]] = {}
    for t in tasks:
        file, _, line = t.source.rpartition(":")
        if not file or not line.isdigit():
            raise ConfigError(f"split {split} of '{spec}': task {t.task_id} has no source row ({t.source!r})")
        wanted.setdefault(file, set()).add(int(line))
    rows: list[str] = []
    for file, lines in wanted.items():
        opener = gzip.open if file.endswith(".gz") else open
        with opener(file, "rt", encoding="utf-8") as f:
            rows += [text if text.endswith("\n") else text + "\n" for n, text in enumerate(f, 1) if n in lines]
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path + ".tmp", "w", encoding="utf-8") as f:
        f.writelines(rows)
    written = load_tasks(path + ".tmp").tasks
    if [(t.task_id, t.prompt) for t in written] != [(t.task_id, t.prompt) for t in tasks]:
        raise ConfigError(f"split {split} of '{spec}': the rows written to {path} do not reload as the same tasks")
    os.replace(path + ".tmp", path)
    return len(tasks)


# ---------------------------------------------------------------------------------------------------
# stage state: done, to run, resumable, stale


def _portable(values: dict, out: str) -> dict:
    """`values` with paths inside OUT written `OUT/...` (so a moved OUT or another cwd still matches) and
    cosmetic fields dropped."""
    root = os.path.abspath(out)
    result = {}
    for k, v in values.items():
        if k in COSMETIC:
            continue
        if isinstance(v, str) and k in ("out", "model", "tasks", "data") and _inside(v, root):
            v = "OUT" + os.path.abspath(v)[len(root):].replace(os.sep, "/")
        result[k] = v
    return result


def portable_config(cfg, out: str) -> dict:
    """A stage config as compared between runs and recorded in its stamp and in plan.json."""
    return _portable(flatten(cfg), out)


def _adapter_sha256(directory: str | None) -> str | None:
    path = os.path.join(directory, "adapter_model.safetensors") if directory else None
    if not path or not os.path.isfile(path):
        return None
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def _outputs_complete(stage: Stage) -> bool:
    if stage.kind == "eval":
        return os.path.isfile(os.path.join(stage.dir, "summary.json"))
    if stage.kind == "sft":
        return os.path.isfile(os.path.join(stage.dir, "adapter", "adapter_model.safetensors"))
    return os.path.isfile(os.path.join(stage.dir, "checkpoints", f"step-{stage.config.steps}",
                                       "adapter_model.safetensors"))


def _diff(old: dict, new: dict) -> str:
    keys = [k for k in sorted(set(old) | set(new)) if old.get(k) != new.get(k)]
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
        if old != _without_new_defaults(new, old, stage.config):
            return "stale", "made with a different config (" + _diff(old, new) + ")"
        if stamp.get("input_sha256") != _adapter_sha256(stage.input_dir):
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
            old = _portable(old, os.path.dirname(os.path.dirname(str(old.get("out") or stage.dir))))
            if old and old != _without_new_defaults(new, old, stage.config):
                return "stale", "interrupted run made with a different config (" + _diff(old, new) + ")"
            return "resume", f"resumes from {os.path.basename(ckpt)}"
    return "run", ""


def _without_new_defaults(new: dict, old: dict, cfg) -> dict:
    """`new` minus the fields `old` does not have that sit at their default: a field added to coderl
    after a stage ran (e.g. `device`) does not make the stage stale unless it is set to something else."""
    defaults = {name: f.default for name, (_, f, _) in leaves(type(cfg)).items()
                if f.default is not dataclasses.MISSING}
    return {k: v for k, v in new.items() if k in old or k not in defaults or v != defaults[k]}


def _read_yaml_dict(path: str) -> dict:
    import yaml

    try:
        with open(path, encoding="utf-8") as f:
            data = yaml.safe_load(f)
    except (OSError, yaml.YAMLError):
        return {}
    return data if isinstance(data, dict) else {}


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


def format_plan(plan: Plan, states: dict | None = None) -> str:
    ev = plan.stage("base-eval").config
    sampling = "greedy" if ev.temperature == 0 else f"temperature {ev.temperature}"
    lines = [f"pipeline {plan.config_path} -> {plan.out}",
             f"model {plan.model}, format {plan.format}, weights {plan.dtype}, seed {plan.seed}",
             f"evaluation: {ev.tasks} split {ev.split}" + (f" (first {ev.limit})" if ev.limit else "")
             + (f": {plan.eval_tasks} tasks" if plan.eval_tasks else "")
             + f" x {ev.samples} sample(s), {sampling}, max_new_tokens {ev.max_new_tokens}", ""]
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
                    + f", T {c.temperature}, lr {c.optim.learning_rate}, max_new_tokens {c.max_new_tokens}")
        state = ""
        if states:
            st, detail = states[s.name]
            state = f"  [{st}{': ' + detail if detail else ''}]"
        lines.append(f"{i:2d}. {s.name:<18} {what}")
        lines.append(f"    -> {s.dir}{state}")
    lines.append(f"{len(plan.stages) + 1:2d}. report             -> {os.path.join(plan.out, 'report')}")
    lines += [f"note: {n}" for n in plan.notes]
    return "\n".join(lines)


def _short(path: str, out: str) -> str:
    return "OUT" + os.path.abspath(path)[len(os.path.abspath(out)):] if _inside(path, out) else path


# ---------------------------------------------------------------------------------------------------
# running


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
    from coderl.eval.report import build_report

    os.makedirs(plan.out, exist_ok=True)
    states = plan_states(plan)
    message = stale_error(plan, states)
    if message:
        raise ConfigError(message)
    own_log = log is None
    log = log or _Log(os.path.join(plan.out, "pipeline.log"))
    try:
        _write_plan_files(plan)
        sft_stage = next((s for s in plan.stages if s.kind == "sft"), None)
        if sft_stage and sft_stage.config.qlora and states["sft"][0] != "done":
            from coderl.train.sft import require_cuda_for_qlora

            require_cuda_for_qlora()  # fail before the base evaluation, not an hour into the run
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
        report = build_report(plan.out, log=log)
        log(f"report: {report}")
        return report
    finally:
        if own_log:
            log.close()


def _run_stage(stage: Stage, state: str, log) -> None:
    if stage.kind == "eval":
        from coderl.eval.run import format_summary, run_eval

        _clear(stage.dir)  # an interrupted evaluation restarts from scratch
        log(format_summary(run_eval(stage.config, log=log)))
    elif stage.kind == "sft":
        from coderl.train.sft import sft

        _clear(stage.dir)  # an interrupted SFT restarts from scratch (no stray checkpoints of the old one)
        result = sft(stage.config, log=log)
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


def _clear(directory: str) -> None:
    if os.path.isdir(directory):
        shutil.rmtree(directory)


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


def _write_stamp(stage: Stage, out: str, seconds: float) -> None:
    stamp = {"stage": stage.name, "kind": stage.kind, "method": stage.method, "code": code_version(),
             "config": portable_config(stage.config, out),
             "input": _portable({"model": stage.input_dir}, out)["model"],
             "input_sha256": _adapter_sha256(stage.input_dir), "seconds": round(seconds, 1),
             "finished": datetime.datetime.now().isoformat(timespec="seconds")}
    _write_json(os.path.join(stage.dir, STAMP), stamp)


def _write_json(path: str, data) -> None:
    with open(path + ".tmp", "w", encoding="utf-8") as f:
        json.dump(data, f, indent=2)
    os.replace(path + ".tmp", path)


def _write_plan_files(plan: Plan) -> None:
    copy = os.path.join(plan.out, "pipeline.yaml")
    if os.path.abspath(plan.config_path) != os.path.abspath(copy):
        shutil.copyfile(plan.config_path, copy)
    stages = [{"name": s.name, "kind": s.kind, "dir": os.path.relpath(s.dir, plan.out), "method": s.method,
               "role": s.role, "rl_dir": os.path.relpath(s.rl_dir, plan.out) if s.rl_dir else None,
               "config": portable_config(s.config, plan.out)} for s in plan.stages]
    _write_json(os.path.join(plan.out, "plan.json"),
                {"title": plan.title, "config": "pipeline.yaml", "model": plan.model, "format": plan.format,
                 "dtype": plan.dtype, "seed": plan.seed, "stages": stages})


def run_command(cfg: PipelineConfig) -> int:
    """`coderl pipeline`: dry run, report only, or the whole flow."""
    if cfg.report_only:
        from coderl.eval.report import build_report

        out = cfg.out or load_plan(cfg.config, check_tasks=False).out
        print(f"report: {build_report(out, log=lambda m: print(m, file=sys.stderr))}")
        return 0
    plan = load_plan(cfg.config, cfg.out)
    if cfg.dry_run:
        states = plan_states(plan) if os.path.isdir(plan.out) else None
        print(format_plan(plan, states))
        message = stale_error(plan, states) if states else None
        if message:
            print(f"a run would stop: {message}")
        print("dry run: every field validated, task sets loaded; no model loaded, nothing written")
        return 0
    states = plan_states(plan) if os.path.isdir(plan.out) else None
    message = stale_error(plan, states) if states else None
    if message:
        raise ConfigError(message)
    print(format_plan(plan, states), file=sys.stderr)
    report = run_pipeline(plan)
    from coderl.eval.report import render_terminal

    with open(os.path.join(os.path.dirname(report), "report.json"), encoding="utf-8") as f:
        print(render_terminal(json.load(f)))
    print(f"done: {len(plan.stages)} stages in {plan.out}; report: {report} "
          f"(and {os.path.join(os.path.dirname(report), 'report.html')})")
    return 0
