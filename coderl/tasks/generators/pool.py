"""The RL pool: generated tasks to train on, decontaminated by behaviour (issue 55).

    pool                 synthetic levels 1 and 2, train compositions, seed 0, 2,000 tasks a level, minus every
                         task whose reference passes every test of an evaluation task: 2,054 tasks (848 of level
                         1, 1,206 of level 2) of 348 compositions are left of 4,000 of 547
    pool:level=2         one level (1, 2 or 1-2)
    pool:n=N             the first N tasks (shared evenly over the levels, as `synthetic:` shares n)

Why generated: the SFT policy is on the frontier (passes some samples, not all) of most level-1 and a
third of level-2 synthetic compositions, against an eighth of the corpus warm-ups (RESULTS.md), and a
generator gives a long run fresh tasks.  Why decontaminated: a training primitive such as `sum_list` is
an evaluation task under another name (docs/decontamination.md), so a task whose reference solves an
evaluation task teaches its answer.  The check is `coderl decontaminate` (`coderl.eval.decontaminate`)
of `POOL_SPEC` against `AGAINST`: the easy set, HumanEval's test split, and the synthetic valid and test
splits of levels 1 and 2 at sizes that contain every held-out synthetic spec the project evaluates on
(per level, a smaller n is a prefix of a larger one).  Its verdict is kept in `data/pool_leaks.json`
with digests of the pool and of the evaluation tasks, and the evaluation tasks the removed tasks solved
(`solved`: the held-out subset "no training reference solves" leaves them out); loading the pool refuses
a generator whose tasks no longer match the record, and `tests/tasks/test_pool.py` checks both digests.
To remake the record after a change to the generator or to an evaluation set:

    coderl decontaminate --tasks "synthetic:level=1-2,n=4000,split=train" --against "<AGAINST>" --out runs/pool
    python scripts/pool_record.py runs/pool.json

The pool is training data: its only split is train (`load_tasks(..., split="train" or "all")`).
"""

from __future__ import annotations

import functools
import json
import os

from coderl.tasks.rows import BUNDLED
from coderl.tasks.types import Task, TaskFormatError, digest

POOL_SPEC = "synthetic:level=1-2,n=4000,split=train"
AGAINST = ("easy humaneval@test synthetic:level=1,split=valid,n=200 synthetic:level=2,split=valid,n=600 "
           "synthetic:level=1,split=test,n=200 synthetic:level=2,split=test,n=600")
RECORD = os.path.join(BUNDLED, "pool_leaks.json")
OPTION_KEYS = ("level", "n")


def parse_options(options: dict[str, str]) -> tuple[tuple[int, ...], int | None]:
    """(levels, n or None) of a pool spec's options (keys: `OPTION_KEYS`); a one-line `ValueError` naming the value."""
    levels = {"1": (1,), "2": (2,), "1-2": (1, 2)}.get(options.get("level", "1-2"))
    if levels is None:
        raise ValueError(f"option level={options['level']!r}: expected 1, 2 or 1-2")
    n = options.get("n")
    if n is not None and (not n.isdigit() or int(n) < 1):
        raise ValueError(f"option n={n!r}: expected an integer >= 1")
    return levels, int(n) if n is not None else None


def read_record() -> dict:
    with open(RECORD, encoding="utf-8") as f:
        return json.load(f)


def generated() -> list[Task]:
    """Every task of `POOL_SPEC`, leaked or not."""
    from coderl.tasks.generators.synthetic import generate, parse_options

    options = dict(item.split("=") for item in POOL_SPEC.partition(":")[2].split(","))
    return generate(parse_options(options), "train")[0]


@functools.lru_cache(maxsize=1)
def _decontaminated() -> tuple[Task, ...] | None:
    """`POOL_SPEC`'s tasks minus the record's leaked ones, or None when the generator no longer makes the tasks the
    record was made for.  Made once a process (generating and hashing 4,000 tasks takes seconds; a pipeline and the
    test suite load the pool many times): the tasks are frozen and nothing writes their metadata after generation."""
    tasks, record = generated(), read_record()
    if digest(tasks) != record["pool_digest"]:
        return None
    leaked = set(record["leaked"])
    return tuple(t for t in tasks if t.task_id not in leaked)


def load_pool(options: dict[str, str], spec: str, split: str = "all") -> list[Task]:
    """The pool's tasks for a spec's options: `POOL_SPEC` minus the record's leaked tasks (its split is train)."""
    if split not in ("all", "train"):
        raise TaskFormatError(f"task spec {spec!r}: split {split!r}: the pool is training tasks only (its held-out "
                              "tasks are synthetic:...,split=valid or test)")
    levels, n = parse_options(options)
    decontaminated = _decontaminated()
    if decontaminated is None:
        raise TaskFormatError(f"task spec {spec!r}: the generator no longer makes the tasks its decontamination "
                              f"record ({RECORD}) was made for; remake it (coderl.tasks.generators.pool's docstring)")
    kept = [t for t in decontaminated if t.metadata["level"] in levels]
    if n is None:
        return kept
    out = []
    for i, level in enumerate(levels):
        share = n // len(levels) + (i < n % len(levels))
        out += [t for t in kept if t.metadata["level"] == level][:share]
    return out

