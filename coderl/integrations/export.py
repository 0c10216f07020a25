"""`coderl tasks export`: any task spec as the rows other trainers read (issue 41).

    coderl tasks export --tasks humaneval@train --format verl --out train.parquet
    coderl tasks export --tasks "hf:mine.parquet:preset=mbpp" --format trl --out mine-trl
    coderl tasks export --tasks synthetic:level=2 --format jsonl --out synthetic-l2.jsonl

- `verl`: a parquet file of verl's RL rows (`coderl.integrations.verl.verl_rows`: `data_source`, `prompt`,
  `ability`, `reward_model.ground_truth` = the task id, `extra_info` with the task spec). verl reads it as
  `data.train_files`, and coderl's `compute_score` / `compute_score_batch` score its responses.
- `trl`: a `save_to_disk` folder of TRL rows (`CoderlRewards.dataset()`: `prompt`, `task_id`), for
  `GRPOTrainer(train_dataset=load_from_disk(OUT), reward_funcs=CoderlRewards(SPEC).functions())`.
- `jsonl` / `parquet`: coderl's own layout (`coderl.tasks.loaders.task_rows`): every task whole, its tests,
  expected values and metadata included, so the file is the task set wherever it goes (`--tasks FILE.jsonl`,
  `--tasks hf:FILE.parquet`), whatever built it: a generator's seed, a dataset's preset, a Verilog testbench.

The verl and TRL rows are those the adapters build, not a second copy; exporting and loading them back with
`datasets` gives rows whose references the adapters score as passing (tests/integrations/test_export.py).

`--out` appears whole or not at all (written under OUT.tmp, then renamed); an existing one is refused unless
`--overwrite`, and one that is a task file of `--tasks` is refused before anything is read.
"""

from __future__ import annotations

import gzip
import json
import os
from dataclasses import dataclass

from coderl.base.config import ConfigError, option
from coderl.base.outputs import finished, refuse_existing, refuse_inputs
from coderl.tasks import load_tasks
from coderl.tasks.loaders.task_rows import task_row
from coderl.tasks.spec import task_files
from coderl.tasks.time_limits import portable

FORMATS = ("verl", "trl", "jsonl", "parquet")


@dataclass
class ExportConfig:
    """Write a task spec as the rows another trainer reads (verl's RL parquet, a TRL dataset folder), or as
    coderl's own task file (JSONL or parquet) that loads back as the same tasks."""

    tasks: str = option(help="task spec to export (docs/tasks.md), e.g. humaneval@train or hf:PATH:preset=mbpp")
    out: str = option(help="where to write: a .parquet file (verl, parquet), a .jsonl or .jsonl.gz file (jsonl) "
                           "or a folder (trl)")
    format: str = option("verl", "verl: verl's RL parquet rows; trl: a save_to_disk folder of prompt/task_id rows; "
                         "jsonl, parquet: coderl's own task layout, every task whole", choices=FORMATS)
    prompt_format: str = option("chat", "how prompts are written: chat messages, or the raw prompt (completion)",
                                choices=("chat", "completion"))
    overwrite: bool = option(False, "replace an existing --out (refused without it)")


def export_tasks(cfg: ExportConfig) -> int:
    """Write the rows; returns how many."""
    if cfg.format == "trl" and cfg.out.endswith((".jsonl", ".jsonl.gz", ".json", ".parquet")):
        raise ConfigError(f"--out {cfg.out!r}: --format trl writes a save_to_disk folder; expected a folder's path, "
                          "not a file name")
    suffix = {"jsonl": (".jsonl", ".jsonl.gz"), "trl": ("",)}.get(cfg.format, (".parquet",))
    if not cfg.out.endswith(suffix):
        raise ConfigError(f"--out {cfg.out!r}: --format {cfg.format} writes "
                          f"{'JSON lines' if cfg.format == 'jsonl' else 'parquet'}; expected a path ending in "
                          + " or ".join(suffix))
    refuse_inputs({"--out": [cfg.out]}, [("--tasks", path) for path in task_files(cfg.tasks)])
    held = os.path.exists(cfg.out) and (not os.path.isdir(cfg.out) or os.listdir(cfg.out))  # an empty folder is free
    refuse_existing("--out", cfg.out, [cfg.out] if held else [], overwrite=cfg.overwrite,
                    kind="folder" if cfg.format == "trl" else "file")
    if cfg.format == "jsonl":
        return _write_jsonl(cfg)
    try:
        import datasets
    except ImportError:
        raise ConfigError("coderl tasks export needs the datasets library: pip install 'coderl[data]'") from None
    datasets.disable_progress_bars()
    if cfg.format in ("verl", "parquet"):
        if cfg.format == "verl":
            from coderl.integrations.verl import verl_rows

            rows = verl_rows(cfg.tasks, format=cfg.prompt_format)
        else:
            rows = [task_row(portable(t), text=True) for t in load_tasks(cfg.tasks).tasks]
        with finished(cfg.out) as (tmp,):
            datasets.Dataset.from_list(rows).to_parquet(tmp)
        return len(rows)
    from coderl.integrations.trl import CoderlRewards

    rewards = CoderlRewards(cfg.tasks, format=cfg.prompt_format)
    try:
        rows = rewards.dataset()
    finally:
        rewards.close()
    with finished(cfg.out) as (tmp,):
        datasets.Dataset.from_list(rows).save_to_disk(tmp)
    return len(rows)


def _write_jsonl(cfg: ExportConfig) -> int:
    """coderl's own layout as JSON lines (gzip-compressed when `--out` ends in .gz)."""
    tasks = load_tasks(cfg.tasks).tasks
    opener = gzip.open if cfg.out.endswith(".gz") else open
    with finished(cfg.out) as (tmp,), opener(tmp, "wt", encoding="utf-8") as f:
        for task in tasks:
            f.write(json.dumps(task_row(portable(task)), ensure_ascii=False) + "\n")
    return len(tasks)
