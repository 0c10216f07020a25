"""The pipeline's plan: its YAML read and checked field by field into stages (`load_plan`), and its task sets
checked before anything runs (counts, the leak check between training and evaluation tasks, RL splits).

Over 400 lines: every stage a config can ask for (evaluations, SFT, RL runs with their splits and measured
pass rates) is planned and checked here, before anything runs, so a bad field is one line at `--dry-run`."""

from __future__ import annotations

import dataclasses
import os
import re
from dataclasses import dataclass, field
from typing import Any

from coderl.base.config import (
    DEVICES,
    ConfigError,
    build,
    leaves,
    option,
    require,
    sections,
    suggest,
)
from coderl.base.yaml_file import read_yaml_mapping

STAMP = "pipeline_stage.json"
TOP_LEVEL = ("out", "model", "format", "dtype", "device", "seed", "title", "allow_eval_overlap", "eval", "evals", "sft",
             "rl")
# Fields each section may not set: the pipeline decides them (paths, the model each stage starts from,
# and the format/seed every stage must share).
OWNED = {
    "eval": ("out", "model", "format", "dtype", "seed", "label", "method", "resume"),
    "sft": ("out", "model", "format", "dtype", "seed", "resume"),
    "rl": ("out", "model", "format", "dtype", "config", "resume"),
}
PIPELINE_KEYS = {"eval": (), "sft": ("method",), "rl": ("name", "method", "split", "measure_rates")}
COMMANDS = {"eval": "coderl eval", "sft": "coderl sft", "rl": "coderl train"}
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
    eval_set: str | None = None  # evaluations of a further set of `evals:`: its name (None: the `eval:` set)


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
    device: str | None = None  # top-level device of every stage that sets none (None: their default, auto)
    eval_tasks: int = 0
    notes: list[str] = field(default_factory=list)
    set_tasks: dict[str, int] = field(default_factory=dict)  # tasks of each set of `evals:`, found at validation
    allow_eval_overlap: bool = False  # training tasks may share prompts with, or solve, evaluation tasks

    def stage(self, name: str) -> Stage:
        return next(s for s in self.stages if s.name == name)

    def downstream(self, stage: Stage) -> list[Stage]:
        """Stages that start from `stage`'s output, directly or not."""
        out, frontier = [], {stage.dir}
        for s in self.stages[self.stages.index(stage) + 1:]:
            if s.input_dir and any(is_inside(s.input_dir, d) for d in frontier):
                out.append(s)
                frontier.add(s.dir)
        return out


def is_inside(path: str, directory: str) -> bool:
    path, directory = os.path.abspath(path), os.path.abspath(directory)
    return path == directory or path.startswith(directory + os.sep)


def load_plan(path: str, out: str | None = None, *, check_tasks: bool = True) -> Plan:
    """Validate the pipeline YAML at `path` (every field, through the real dataclasses) and plan its stages.

    `check_tasks` loads every task set (no model) to count tasks, write nothing, and refuse training
    prompts that are evaluation prompts.  Raises `ConfigError` with one line.
    """
    from coderl.rollout.formats import FORMATS

    data = read_yaml_mapping(path, expected="a mapping with out, model, eval, sft, rl")
    for key in data:
        if key not in TOP_LEVEL:
            from coderl.train.config import TrainConfig

            hint = ("; this looks like a `coderl train --config` file" if key in leaves(TrainConfig) else "")
            raise ConfigError(f"{path}: unknown top-level field '{key}'{suggest(key, TOP_LEVEL)} "
                              f"(expected: {', '.join(TOP_LEVEL)}){hint}")
    out = out or data.get("out")
    require(isinstance(out, str) and out.strip() != "", f"{path}: out", out, "an output directory (or --out DIR)")
    model = data.get("model", "smollm2-135m-instruct")
    require(isinstance(model, str) and model.strip() != "", f"{path}: model", model, "a model spec")
    from coderl.eval.run import DEFAULT_FORMAT

    fmt = data.get("format", DEFAULT_FORMAT)
    require(fmt in FORMATS, f"{path}: format", fmt, "one of " + ", ".join(sorted(FORMATS)))
    dtype = data.get("dtype", "float32")
    require(dtype in ("float32", "bfloat16", "auto"), f"{path}: dtype", dtype, "float32, bfloat16 or auto")
    slow_cpu = False
    if dtype == "auto":  # resolved once, here: stamps and the plan record what actually ran
        import torch

        from coderl.models.load import fast_dtype

        dtype = fast_dtype()
        slow_cpu = dtype == "float32" and not torch.cuda.is_available()
    device = data.get("device")  # None: each section's own (default auto); a stage may still set its own
    require(device is None or device in DEVICES, f"{path}: device", device, "one of " + ", ".join(DEVICES))
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
    evals = data.get("evals") or []
    require(isinstance(evals, list), f"{path}: evals", evals,
            "a list of evaluation sets ({name, <coderl eval fields>})")
    _check_model(path, model)
    plan = Plan(out=out, config_path=path, model=model, format=fmt, dtype=dtype, seed=seed, title=str(title), stages=[],
                device=device, allow_eval_overlap=allow_overlap)
    if slow_cpu:
        plan.notes.append("dtype auto: float32, this CPU having neither AVX-512 BF16 nor AMX (bf16 would be "
                          "emulated): every model stage runs several times slower than on one that has them (the "
                          "CPU demo's base evaluation took 147 s on such a 2-core Xeon against 29 s; RESULTS.md)")
    _plan_stages(plan, data.get("eval") or {}, data.get("sft"), rl, evals)
    if check_tasks:
        count_and_check_tasks(plan, allow_overlap)
    return plan


def _check_model(path: str, model: str) -> None:
    from coderl.models.spec import resolve_spec  # torch-free: classifies the spec, loads nothing

    try:
        resolve_spec(model)
    except ConfigError as exc:
        raise ConfigError(f"{path}: {exc}") from None


def _entry(where: str, entry, fields: str, reserved: str, taken, kind: str) -> tuple[str, str, dict]:
    """(name, `where` with the name, the other fields) of an entry of `evals:` or `rl:`, checked: the entry a mapping
    of `fields`, the name a directory name other than `reserved` and not `taken` by an earlier `kind`; else one
    line."""
    if not isinstance(entry, dict):
        raise ConfigError(f"{where}: expected a mapping with {fields}")
    name = entry.get("name")
    if not isinstance(name, str) or not _NAME.match(name) or name == reserved:
        raise ConfigError(f"{where}: name={name!r}: expected a directory name (letters, digits, '.', '_', '-'; not "
                          f"'{reserved}')")
    if name in taken:
        raise ConfigError(f"{where}: name={name!r}: used by an earlier {kind} (names must be unique)")
    return name, f"{where} ({name})", {k: v for k, v in entry.items() if k != "name"}


def _eval_sets(evals: list, eval_values: dict) -> dict[str, tuple[str, dict]]:
    """`evals:`: name -> (where, the `coderl eval` fields of that set over the `eval:` section's values)."""
    from coderl.eval.run import EvalConfig

    sets: dict[str, dict] = {}
    for i, entry in enumerate(evals):
        name, where, fields = _entry(f"evals[{i}]", entry, "name and `coderl eval` fields", "eval", sets, "set")
        sets[name] = (where, {**eval_values, **_section_values(where, "eval", fields, EvalConfig)})
    return sets


def _plan_stages(plan: Plan, eval_fields: dict, sft_fields: dict | None, rl: list, evals: list) -> None:
    from coderl.eval.run import EvalConfig
    from coderl.train.config import TrainConfig
    from coderl.train.sft.run import SFTConfig

    out = plan.out
    common = {"format": plan.format, "dtype": plan.dtype, "seed": plan.seed}
    device = {"device": plan.device} if plan.device else {}  # under each section's own values: they win
    eval_values = {**device, **_section_values("eval", "eval", eval_fields, EvalConfig)}
    sets = {None: ("eval", eval_values), **_eval_sets(evals, eval_values)}

    def evaluation(name: str, model: str, label: str, method: str, role: str, input_dir=None, rl_dir=None):
        """The checkpoint's evaluation on the `eval:` set (OUT/<name>), then on each set of `evals:`
        (OUT/evals/<set>/<name>, stage <name>@<set>)."""
        stages = []
        for eval_set, (where, values) in sets.items():
            directory = os.path.join(out, *(("evals", eval_set) if eval_set else ()), name)
            cfg = _build(where, EvalConfig, {**values, **common, "out": directory, "model": model, "label": label,
                                              "method": method})
            stages.append(Stage(name + (f"@{eval_set}" if eval_set else ""), "eval", directory, cfg, method, role,
                                input_dir=input_dir, rl_dir=rl_dir, eval_set=eval_set))
        return stages

    plan.stages += evaluation("base-eval", plan.model, plan.model, "Base", "base")
    start = plan.model
    if sft_fields is not None:
        values = {**device, **_section_values("sft", "sft", sft_fields, SFTConfig)}
        method = values.pop("method", None)
        sft_dir = os.path.join(out, "sft")
        cfg = _build("sft", SFTConfig, {**values, **common, "out": sft_dir, "model": plan.model})
        method = _label("sft", method) or ("SFT (QLoRA + LoRA)" if cfg.lora.qlora else "SFT (LoRA)")
        plan.stages.append(Stage("sft", "sft", sft_dir, cfg, method))
        start = os.path.join(sft_dir, "adapter")
        plan.stages += evaluation("eval/sft", start, "sft/adapter", method, "sft", input_dir=start)
        if cfg.lora.qlora:
            plan.notes.append("sft: qlora needs a CUDA GPU and bitsandbytes when it runs (checked before the "
                              "first stage, not by --dry-run); the RL runs and evaluations of this plan load "
                              "the base unquantised (give them qlora: true to load it in 4-bit too)")
    names: set[str] = set()
    for i, entry in enumerate(rl):
        name, where, fields = _entry(f"rl[{i}]", entry, "name, method and `coderl train` fields", "sft", names, "run")
        names.add(name)
        values = {**device, **_section_values(where, "rl", fields, TrainConfig)}
        method, split = values.pop("method", None), values.pop("split", None)
        measure = values.pop("measure_rates", None)
        run_dir = os.path.join(out, "rl", name)
        split_file = None
        if split is not None:
            split_file = rl_split_file(where, values.get("tasks", TrainConfig.tasks), split, plan)
            values["tasks"] = split_file[3]
        cfg = _build(where, TrainConfig, {"seed": plan.seed, **values, "format": plan.format, "dtype": plan.dtype,
                                          "out": run_dir, "model": start})
        method = _label(where, method) or ALGO_LABELS.get(cfg.algo, cfg.algo) + (
            f" (α = {cfg.rewards.length_alpha})" if cfg.rewards.reward in ("seed001", "pass_minus_length") else "")
        input_dir = start if start != plan.model else None
        if measure is not None:
            require(split is None, f"{where}: measure_rates", measure,
                    "a run without split: (its split file is written when the run starts)")
            plan.stages.append(_rates_stage(where, plan, cfg, measure, name, {**eval_values, **common}, input_dir))
            cfg = dataclasses.replace(cfg, sampling=dataclasses.replace(cfg.sampling,
                                                                        pass_rates=plan.stages[-1].dir))
        plan.stages.append(Stage(f"rl/{name}", "rl", run_dir, cfg, method, input_dir=input_dir,
                                 split_file=split_file))
        # with held-out evaluations during training, the run's selected checkpoint (coderl.train.rl.selection:
        # the best on its eval_tasks, possibly the start; an early stop leaves no step-<steps>), else the last
        checkpoint = (os.path.join(run_dir, "best", "adapter") if cfg.eval.on
                      else os.path.join(run_dir, "checkpoints", f"step-{cfg.steps}"))
        plan.stages += evaluation(f"eval/{name}", checkpoint, name, method, "rl", input_dir=checkpoint, rl_dir=run_dir)


def _rates_stage(where: str, plan: Plan, cfg, samples, name: str, eval_values: dict, input_dir) -> Stage:
    """`measure_rates: N` of an RL run: before it, evaluate its starting policy on its training tasks with N
    samples a task at its own temperature and budget (OUT/rates/<name>); the run's `pass_rates` reads it
    (`coderl/train/sources/pass_rates.py`: the frontier pool starts from these rates)."""
    from coderl.eval.run import EvalConfig

    require(isinstance(samples, int) and not isinstance(samples, bool) and samples >= 2,
            f"{where}: measure_rates", samples, "samples a task, an integer >= 2")
    require(cfg.sampling.pass_rates is None, f"{where}: measure_rates", samples,
            "no pass_rates beside it (measure_rates writes the run's pass_rates)")
    directory = os.path.join(plan.out, "rates", name)
    values = {**eval_values, "out": directory, "model": cfg.model, "tasks": cfg.tasks, "split": "all",
              "samples": samples, "temperature": cfg.temperature, "max_new_tokens": cfg.max_new_tokens,
              "batch_size": cfg.generation_batch_size, "limit": None, "label": f"{name} start",
              "method": "pass rates"}
    return Stage(f"rates/{name}", "eval", directory, _build(where, EvalConfig, values), "pass rates", "rates",
                 input_dir=input_dir)


def _label(where: str, method) -> str | None:
    require(method is None or isinstance(method, str), f"{where}: method", method, "a label (text)")
    return method


def _section_values(where: str, section: str, values: dict, cls) -> dict:
    """Check the field names of one section (the pipeline's own keys kept, the ones it sets refused); returns the
    values, whose types `build` checks when the stage's config is made (`_build`)."""
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
            raise ConfigError(f"{where}: unknown field '{name}'{suggest(name, allowed)} "
                              f"(see `{COMMANDS[section]} --help`)")
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
        cfg = build(cls, values, where=where)
    except ConfigError as exc:
        raise ConfigError(f"{where}: {exc}") from None
    except (TypeError, ValueError) as exc:
        raise ConfigError(f"{where}: {str(exc).splitlines()[0]}") from None
    if getattr(getattr(cfg, "lora", None), "full", False):
        raise ConfigError(f"{where}: finetune='full': the pipeline chains LoRA adapters from stage to stage; run "
                          "coderl sft / coderl train --finetune full on their own (docs/training.md)")
    return cfg


# ---- the plan's task sets: counts, the leak check between training and evaluation tasks, RL splits
def rl_split_file(where: str, spec: str, split, plan: Plan) -> tuple:
    from coderl.tasks.spec import parse_task_spec

    require(split in ("all", "train", "test"), f"{where}: split", split, "one of all, train, test")
    if parse_task_spec(spec).source == "synthetic":
        raise ConfigError(f"{where}: split={split!r}: synthetic specs carry their own split= option "
                          f"(e.g. tasks: synthetic:level=1,n=200,split=train)")
    slug = re.sub(r"[^A-Za-z0-9]+", "-", spec).strip("-")[:60] or "tasks"
    path = os.path.join(plan.out, "data", f"{slug}-{split}-seed{plan.seed}.jsonl")
    return (spec, split, plan.seed, path)


def evaluation_tasks(plan: Plan, base: Stage | None = None) -> list:
    """The tasks every checkpoint is evaluated on: the base evaluation's spec, split, seed and limit (of `base`,
    the base evaluation of a set of `evals:`; default the `eval:` set's)."""
    from coderl.tasks import load_tasks

    base = (base or plan.stage("base-eval")).config
    tasks = load_tasks(base.tasks, base.split, base.seed).tasks
    return tasks[: base.limit] if base.limit else tasks


def training_tasks(stage: Stage) -> tuple[str, str, list]:
    """(spec, split, tasks) a training stage learns from: the SFT data (a task spec's split, or a
    pairs file), or an RL run's tasks (the split it writes when it has `split:`, else all of them)."""
    from coderl.tasks import load_tasks
    from coderl.train.sft.data import load_sft_tasks

    if stage.kind == "sft":
        c = stage.config
        return c.data, c.split, load_sft_tasks(c.data, c.split, c.seed)[0]
    spec, split, seed = stage.split_file[:3] if stage.split_file else (stage.config.tasks, "all", 0)
    return spec, split, load_tasks(spec, split, seed).tasks


def count_and_check_tasks(plan: Plan, allow_overlap: bool) -> None:
    from coderl.tasks import TaskFormatError, load_tasks

    def load(where, fn, *args):
        try:
            return fn(*args)
        except (TaskFormatError, ConfigError, ValueError) as exc:
            raise ConfigError(f"{where}: {str(exc).splitlines()[0]}") from None

    base = plan.stage("base-eval").config
    eval_tasks = load("eval", evaluation_tasks, plan)
    plan.eval_tasks = len(eval_tasks)
    require(plan.eval_tasks > 0, "eval: --tasks", base.tasks, "a task set with tasks in the chosen split")
    prompts = {t.prompt.strip(): t.task_id for t in eval_tasks}  # stripped: an issue as the agent sees it
    more: dict[str, tuple[str, int]] = {}  # a further set's prompt -> (set, its tasks)
    for i, s in enumerate(s for s in plan.stages if s.eval_set and s.role == "base"):
        c, where = s.config, f"evals[{i}] ({s.eval_set})"
        tasks = load(where, load_tasks, c.tasks, c.split, c.seed).tasks[: c.limit or None]
        plan.set_tasks[s.eval_set] = len(tasks)
        require(len(tasks) > 0, f"{where}: --tasks", c.tasks, "a task set with tasks in the chosen split")
        more.update({t.prompt.strip(): (s.eval_set, len(tasks)) for t in tasks if t.prompt.strip() not in more})
    for stage in plan.stages:
        # the side that needs a split: the training stage's, the evaluation's (`split: all` evaluates every task
        # a training split holds too), or both
        evaluate = ("" if base.split in ("test", "valid") else
                    f"evaluate on the test split (`split: test` under eval:, now {base.split})")
        if stage.kind == "sft":
            where = "sft"
            trains = stage.config.split
            fix = "; ".join(filter(None, ["" if trains == "train" else f"train on the train split (`split: train` "
                                          f"under sft:, now {trains})", evaluate])) or "train on other data"
        elif stage.kind == "rl":
            where = f"rl[{[s for s in plan.stages if s.kind == 'rl'].index(stage)}] ({stage.name[3:]})"
            held_spec = stage.config.eval.eval_tasks  # checked even unused: a typo is named
            if held_spec:   # the run's own held-out set, evaluated during training
                held = load(f"{where} eval_tasks", load_tasks, held_spec).tasks
                require(len(held) > 0, f"{where}: eval_tasks", held_spec, "at least one task")
            trains = stage.split_file[1] if stage.split_file else None
            fix = "; ".join(filter(None, ["" if trains == "train" else "add `split: train` to this run", evaluate]))
            fix = f"{fix}, or use other tasks" if fix else "use other tasks"
        else:
            continue
        tasks = load(where, training_tasks, stage)[2]
        stage.train_tasks = len(tasks)
        require(len(tasks) > 0, f"{where}: tasks", getattr(stage.config, "tasks", None), "at least one task")
        shared = [prompts[t.prompt.strip()] for t in tasks if t.prompt.strip() in prompts]
        if shared and not allow_overlap:
            raise ConfigError(f"{where}: trains on {len(set(shared))} of the {len(eval_tasks)} evaluation tasks "
                              f"(e.g. {shared[0]}): {fix}, or set allow_eval_overlap: true")
        shared_sets = [more[t.prompt.strip()] for t in tasks if t.prompt.strip() in more]
        if shared_sets and not allow_overlap:
            name, count = shared_sets[0]
            raise ConfigError(f"{where}: trains on {sum(1 for s in shared_sets if s[0] == name)} of the {count} tasks "
                              f"of evaluation set {name}: {fix}, or set allow_eval_overlap: true")
