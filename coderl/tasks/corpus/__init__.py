"""The training corpus: hand-written programming problems in families, HumanEval layout, spec `corpus`.

Each family is a module in `coderl.tasks.corpus.families` holding real reference functions (see
`coderl.tasks.corpus.define` for how a problem is written and rendered).  The corpus was written
without opening the evaluation sets (easy, HumanEval, the synthetic generator), and is checked
against them by behaviour (`coderl decontaminate`, `docs/decontamination.md`): a problem whose
reference passes an evaluation task's tests is removed.  Every problem's tests must reject at least
two mutants of its reference (`coderl.tasks.corpus.mutants`; `coderl check --tasks corpus --reference --mutants 2`).

Splits: a problem is in the *valid* split when a fixed hash of its task id falls in the lowest 20%
of the hash range, else in *train*; so adding or removing a problem never moves another one, and
every family (about 20 problems) has some of each (a family with no hash in range gives its lowest).
The corpus has no test split: evaluate on `easy` and `humaneval@test`.

Levels: 1 = warm-up problems (a line or three; the bundled 135M model should solve some; the `basics_*`
families are the easiest, written for its level), 2 = standard problems (loops, parsing, small
algorithms; the default of `Family.problem`).

    corpus                   all problems (load_tasks's split picks train / valid, as below)
    corpus:split=valid       the valid split, whatever load_tasks's split is (it must agree or be all)
    corpus:family=strings    one family (repeat with mix: for several)
    corpus:level=1           the warm-up problems only
"""

from __future__ import annotations

import dataclasses
import functools

from coderl.tasks.corpus.define import Family, Problem, render, stable_hash
from coderl.tasks.corpus.families import family_modules, load_families
from coderl.tasks.types import Task, TaskFormatError

SPLITS = ("train", "valid")
VALID_FRACTION = 0.2
OPTION_KEYS = ("split", "family", "level")


@functools.cache
def family(name: str) -> Family:
    return load_families(only=name)[0]


def families() -> tuple[Family, ...]:
    return tuple(family(name) for name in family_modules())


def problems() -> list[Problem]:
    return [p for f in families() for p in f.problems]


def _split_hash(family_name: str, problem_name: str) -> int:
    return stable_hash(f"corpus-split:{family_name}/{problem_name}")


def valid_names(family: Family) -> set[str]:
    """The problems of a family in the valid split (module docstring); a family none of whose hashes
    falls in the valid range gives its lowest one, so every family is in both splits."""
    names = {p.name for p in family.problems if _split_hash(family.name, p.name) < VALID_FRACTION * 2**64}
    if not names and len(family.problems) > 1:
        names = {min(family.problems, key=lambda p: _split_hash(family.name, p.name)).name}
    return names


@functools.cache
def _family_tasks(name: str) -> tuple[Task, ...]:
    from coderl.tasks.loaders.humaneval import humaneval_task

    fam = family(name)
    valid = valid_names(fam)
    tasks = []
    seen: set[str] = set()
    for problem in fam.problems:
        try:
            row = render(problem)
        except ValueError as e:
            raise TaskFormatError(f"corpus family {name!r}: {e}") from None
        if row["task_id"] in seen:
            raise TaskFormatError(f"corpus: task id {row['task_id']!r} defined twice")
        seen.add(row["task_id"])
        task = humaneval_task(row, where=row["task_id"])
        task.metadata.update(format="corpus", family=name, level=problem.level,
                             split="valid" if problem.name in valid else "train")
        tasks.append(task)
    return tuple(tasks)


def parse_options(options: dict[str, str]) -> dict[str, str]:
    """Validated spec options (one-line `ValueError` naming the value; `coderl.tasks.spec.source_options` checks the
    keys against `OPTION_KEYS`)."""
    if options.get("split", "all") not in SPLITS + ("all",):
        raise ValueError(f"option split={options['split']!r}: expected train, valid or all")
    names = family_modules()
    if "family" in options and options["family"] not in names:
        raise ValueError(f"option family={options['family']!r}: no such family (known: {', '.join(names)})")
    if options.get("level", "1") not in ("1", "2"):
        raise ValueError(f"option level={options['level']!r}: expected 1 (warm-up) or 2 (standard)")
    return options


def load_corpus(split: str = "all", family_name: str | None = None, level: int | None = None) -> list[Task]:
    """The corpus's tasks of `split` (train / valid / all), optionally of one family and level."""
    if split not in SPLITS + ("all",):
        raise ValueError(f"the corpus has splits train and valid, not {split!r} (evaluate on easy or humaneval)")
    # a fresh metadata dict per call, so callers may annotate tasks without touching the cache
    names = family_modules() if family_name is None else [family_name]
    return [
        dataclasses.replace(t, metadata=dict(t.metadata))
        for name in names
        for t in _family_tasks(name)
        if (split == "all" or t.metadata["split"] == split) and level in (None, t.metadata["level"])
    ]
