"""The split of a file task source the pipeline writes for an RL run (`write_split`): its source rows, byte
for byte, so the run reads an ordinary task file."""

from __future__ import annotations

import gzip

from coderl.base.config import ConfigError
from coderl.base.outputs import finished


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
    with finished(path) as (tmp,):
        with open(tmp, "w", encoding="utf-8") as f:
            f.writelines(rows)
        if [(t.task_id, t.prompt) for t in load_tasks(tmp).tasks] != [(t.task_id, t.prompt) for t in tasks]:
            raise ConfigError(f"split {split} of '{spec}': the rows written to {path} do not reload as the same "
                              "tasks")
    return len(tasks)
