"""Deterministic train/test split of a task list.

The task ids are sorted, shuffled with `random.Random(seed)`, and the first
`round(n * test_fraction)` shuffled ids form the test set (HumanEval: 164 -> 131 train / 33 test).
The selected tasks are returned in their original order.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Sequence

from coderl.tasks.types import Task

SPLITS = ("all", "train", "test")


def test_ids(task_ids: Sequence[str], seed: int = 0, test_fraction: float = 0.2) -> set[str]:
    """The ids in the test split."""
    if not 0.0 <= test_fraction <= 1.0:
        raise ValueError(f"test_fraction={test_fraction!r}: expected a number between 0 and 1")
    ids = sorted(task_ids)
    if len(set(ids)) != len(ids):
        dup = next(a for a, b in itertools.pairwise(ids) if a == b)
        raise ValueError(f"task id {dup!r} appears more than once; ids must be unique to split")
    random.Random(seed).shuffle(ids)
    return set(ids[: round(len(ids) * test_fraction)])


def split_tasks(
    tasks: Sequence[Task], split: str = "all", seed: int = 0, test_fraction: float = 0.2
) -> list[Task]:
    if split not in SPLITS:
        raise ValueError(f"unknown split {split!r} (expected one of: {', '.join(SPLITS)})")
    held_out = test_ids([t.task_id for t in tasks], seed, test_fraction)
    if split == "all":
        return list(tasks)
    want_test = split == "test"
    return [t for t in tasks if (t.task_id in held_out) == want_test]
