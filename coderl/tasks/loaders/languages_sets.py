"""Bundled task sets in other languages than Python, as task-spec sources (`coderl.tasks.spec`):

    verilog                    36+ hand-written Verilog problems (`coderl.tasks.hdl`); split by the seeded
                               shuffle of their ids, like any file
    verilog:PATH               a problem file in the same layout
    stdio-basics               16 stdin/stdout problems with references in Python, JavaScript and Lua
    stdio-basics:language=L    the same in language L (python, javascript, or a runner file's, e.g. lua);
                               split by the file's own `split` field (train 11 / test 5)
"""

from __future__ import annotations

import json
import os

from coderl.sandbox.types import CheckKind, TestCase
from coderl.tasks.rows import BUNDLED
from coderl.tasks.split import SPLITS, split_tasks
from coderl.tasks.types import Task, TaskFormatError

SOURCES = ("verilog", "stdio-basics")
STDIO_BASICS = os.path.join(BUNDLED, "stdio_basics.jsonl")
OPTION_KEYS = ("language",)  # stdio-basics's (verilog takes a file)


def load_stdio_basics(language: str = "python") -> list[Task]:
    """The bundled multi-language stdin/stdout problems, with `language`'s reference (when it has one)."""
    from coderl.languages import get_language

    get_language(language)  # a one-line error for an unknown language
    tasks = []
    with open(STDIO_BASICS, encoding="utf-8") as f:
        for lineno, line in enumerate(f, 1):
            row = json.loads(line)
            tests = tuple(TestCase(id=str(i), source=t["input"], check=CheckKind.STDOUT, expected=t["output"])
                          for i, t in enumerate(row["tests"]))
            tasks.append(Task(
                task_id=row["task_id"] if language == "python" else f"{row['task_id']}-{language}",
                kind="stdio", prompt=row["prompt"], tests=tests, language=language,
                reference_solution=row["references"].get(language), source=f"{STDIO_BASICS}:{lineno}",
                metadata={"format": "stdio", "split": row["split"], "wrong": row.get("wrong", {}).get(language)}))
    return tasks


def parse_options(options: dict[str, str]) -> dict[str, str]:
    """stdio-basics's options (keys: `OPTION_KEYS`, checked by `coderl.tasks.spec.source_options`); the language
    is checked when the set loads."""
    return options


def load_language_set(source: str, path: str | None, options: dict[str, str], split: str, seed: int,
                      spec: str) -> list[Task]:
    """The tasks of one of `SOURCES` in `split` ("all", "train", "test")."""
    if split not in SPLITS:
        raise TaskFormatError(f"task spec {spec!r}: split {split!r}: {source} has splits {', '.join(SPLITS)}")
    try:
        if source == "verilog":
            from coderl.tasks.hdl import load_verilog

            return split_tasks(load_verilog(path), split, seed)
        tasks = load_stdio_basics(options.get("language", "python"))
        return [t for t in tasks if split == "all" or t.metadata["split"] == split]
    except (ValueError, RuntimeError) as exc:
        if isinstance(exc, TaskFormatError):
            raise
        raise TaskFormatError(f"task spec {spec!r}: {exc}") from None
