"""The pipeline's task sets: counts, the leak check between training and evaluation tasks, RL splits."""

from __future__ import annotations

import gzip
import os
import re

# ---------------------------------------------------------------------------------------------------
# task sets: counts, leak check, RL splits
from typing import TYPE_CHECKING

from coderl.base.config import (
    ConfigError,
    require,
)

if TYPE_CHECKING:
    from coderl.pipeline.plan import Plan, Stage


def _split_file(where: str, spec: str, split, plan: Plan) -> tuple:
    from coderl.tasks.spec import parse_task_spec

    require(split in ("all", "train", "test"), f"{where}: split", split, "one of all, train, test")
    if parse_task_spec(spec).source == "synthetic":
        raise ConfigError(f"{where}: split={split!r}: synthetic specs carry their own split= option "
                          f"(e.g. tasks: synthetic:level=1,n=200,split=train)")
    slug = re.sub(r"[^A-Za-z0-9]+", "-", spec).strip("-")[:60] or "tasks"
    path = os.path.join(plan.out, "data", f"{slug}-{split}-seed{plan.seed}.jsonl")
    return (spec, split, plan.seed, path)


def evaluation_tasks(plan: Plan) -> list:
    """The tasks every checkpoint is evaluated on (the base evaluation's spec, split, seed and limit)."""
    from coderl.tasks import load_tasks

    base = plan.stage("base-eval").config
    tasks = load_tasks(base.tasks, base.split, base.seed).tasks
    return tasks[: base.limit] if base.limit else tasks


def training_tasks(stage: Stage) -> tuple[str, str, list]:
    """(spec, split, tasks) a training stage learns from: the SFT data (a task spec's split, or a
    pairs file), or an RL run's tasks (the split it writes when it has `split:`, else all of them)."""
    from coderl.tasks import load_tasks
    from coderl.train.sft_data import load_sft_tasks

    if stage.kind == "sft":
        c = stage.config
        return c.data, c.split, load_sft_tasks(c.data, c.split, c.seed)[0]
    spec, split, seed = stage.split_file[:3] if stage.split_file else (stage.config.tasks, "all", 0)
    return spec, split, load_tasks(spec, split, seed).tasks


def _check_tasks(plan: Plan, allow_overlap: bool) -> None:
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
    prompts = {t.prompt: t.task_id for t in eval_tasks}
    for stage in plan.stages:
        if stage.kind == "sft":
            where = "sft"
            fix = "train on another split (split: train) or other data"
        elif stage.kind == "rl":
            where = f"rl[{_rl_index(plan, stage)}] ({stage.name[3:]})"
            held_spec = stage.config.eval.eval_tasks
            if held_spec:   # the run's own held-out set, evaluated during training
                held = load(f"{where} eval_tasks", load_tasks, held_spec).tasks
                require(len(held) > 0, f"{where}: eval_tasks", held_spec, "at least one task")
            fix = "add `split: train` to this run or use other tasks"
        else:
            continue
        tasks = load(where, training_tasks, stage)[2]
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
