"""PrefixRL (Setlur et al. 2026, "Reuse your FLOPs: scaling RL on hard problems by conditioning on very off-policy
prefixes", arXiv 2601.18795): a prompt the policy almost never solves gives a group whose samples all fail and
no gradient.  Its reply is started for the model with the first lines of a known-good solution (the task's
reference: a pool task's is verified and decontaminated against every evaluation set), and the policy is trained
on-policy on what it writes after them.  The prefix is part of the prompt (`Task.opening`): never sampled, never
in the loss, so the update is the plain policy gradient of the prefixed problem; the paper shows that objective
consistent with the plain one, and that what is learnt on prefixed problems carries over to unprefixed ones.

Which prompts: those drawn for a step whose running pass rate (the curriculum's, `curriculum.Curriculum.rate`:
the task's own, else its composition's) is below `prefix_below`.  A prefixed group's outcome updates the task's
own rate (not its composition's, which plans unseen tasks unprefixed): a task the prefix makes solvable rises
above the threshold and is drawn next without it, so it is measured plain again.  How long (`cut`): `lines`,
`fraction` of the reference's non-blank lines, rounded down, at least one and never all of them (a reference of
one line has no prefix to give: its task stays plain); `words`, a word end drawn for each prompt and step,
uniformly among the first `fraction` of the reference's words (at least one, never all), so one task is seen
with prefixes of many lengths, as the paper varies its prefix length h, and a prefix may end inside a line.

    tasks = prefixed_round(tasks, rates, below=0.1, fraction=0.5, format="chat", cut="words", key="0/12")
"""

from __future__ import annotations

import dataclasses
import math
import random
import re
from collections.abc import Sequence

from coderl.rollout.formats import reply_opening
from coderl.tasks.kinds import get_kind
from coderl.tasks.types import Task


def _count(fraction: float, n: int) -> int:
    """floor(fraction * n) clamped to [1, n - 1]: at least one, never all."""
    return min(max(math.floor(fraction * n), 1), n - 1)


def word_prefix(solution: str, fraction: float, draw: random.Random) -> str | None:
    """`solution` up to the end of its k-th whitespace-separated word, k drawn uniformly from 1..floor(fraction * n)
    (clamped to [1, n - 1]) for its n words; None when n < 2."""
    ends = [m.end() for m in re.finditer(r"\S+", solution)]
    if len(ends) < 2:
        return None
    return solution[:ends[draw.randint(1, _count(fraction, len(ends))) - 1]]


def solution_prefix(solution: str, fraction: float) -> str | None:
    """The first k of the n non-blank lines of `solution` (with the blank lines among them), k = floor(fraction * n)
    clamped to [1, n - 1]; None when n < 2 (nothing can be given without giving all)."""
    lines = solution.split("\n")
    solid = [i for i, line in enumerate(lines) if line.strip()]
    if len(solid) < 2:
        return None
    k = _count(fraction, len(solid))
    return "\n".join(lines[:solid[k - 1] + 1]) + "\n"


def prefixed(task: Task, format: str, fraction: float, draw: random.Random | None = None) -> Task | None:
    """`task` with its reply opened by a prefix of its reference solution (`solution_prefix`; `word_prefix` when a
    `draw` is given), or None when it has no reference of two lines (words) or more, or its answer is not code."""
    if not task.reference_solution or not get_kind(task.kind).answer_is_code:
        return None
    prefix = (solution_prefix(task.reference_solution, fraction) if draw is None
              else word_prefix(task.reference_solution, fraction, draw))
    if prefix is None:
        return None
    return dataclasses.replace(task, opening=reply_opening(format, task, prefix))


def prefixed_round(tasks: Sequence[Task], rates: Sequence[float | None], *, below: float, fraction: float,
                   format: str, cut: str = "lines", key: str = "") -> list[Task]:
    """Each of a round's `tasks` (with its planning rate in `rates`), prefixed when its rate is known and below
    `below` and it has a prefix to give; the others as they are.  `cut` "words": each task's word end is drawn from
    a generator seeded by `key` (the run's seed and the step: a resumed run draws the same) and its task id."""
    out = []
    for position, (task, rate) in enumerate(zip(tasks, rates, strict=True)):
        draw = random.Random(f"{key}/{position}/{task.task_id}") if cut == "words" else None
        given = prefixed(task, format, fraction, draw) if rate is not None and rate < below else None
        out.append(given or task)
    return out
