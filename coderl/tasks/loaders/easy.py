"""The hand-written easy set: short Python function tasks bundled as `coderl/tasks/data/easy.jsonl`.

HumanEval layout (`task_id` "easy/N", `prompt`, `canonical_solution`, `test` with `def check(candidate)`
and 4-8 `assert candidate(...) == ...`, `entry_point`), loaded with the HumanEval loader; spec `easy`.
The tasks are one-liners and short loops, meant to be within reach of a ~135M instruct model.  The
set is the generalisation check of every training run: never tune anything on it.
"""

from __future__ import annotations

import os

from coderl.tasks.rows import BUNDLED
from coderl.tasks.types import Task, TaskFormatError

EASY_FILE = os.path.join(BUNDLED, "easy.jsonl")


def easy_path() -> str:
    """Path of the bundled easy.jsonl."""
    if not os.path.isfile(EASY_FILE):
        raise TaskFormatError(
            f"task spec 'easy': the bundled file {EASY_FILE} is missing (the package was installed "
            "without its data/*.jsonl package data)"
        )
    return EASY_FILE


def load_easy() -> list[Task]:
    from coderl.tasks.loaders.humaneval import load_humaneval

    return load_humaneval(easy_path())
