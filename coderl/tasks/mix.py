"""Weighted mixtures of task specs: `mix:SPEC*W+SPEC*W[+n=N]`.

    mix:corpus@train*3+humaneval@train*1          3/4 corpus train, 1/4 HumanEval train
    mix:corpus@train+synthetic:level=1-2*0.5+n=600

Each part is any task spec (with its own `@split` or options) and an optional weight `*W` (default
1; quote the spec in a shell).  The mixture has `n` tasks (default: all the parts' tasks together);
part i contributes `n * W_i / sum(W)` of them, rounded by largest remainder (ties to the earlier part;
a part that would get none is an error):
a seeded sample without replacement when the part has enough tasks, else every task of the part in
seeded order, repeated as often as needed, repeats renamed `ID#2`, `ID#3`, ... so ids stay unique.
The mixed list is shuffled with the seed (`load_tasks(..., seed=)`, else 0), which only draws and
orders: the parts' own train/test splits stay those of seed 0, so `humaneval@train` in a mix is the
`humaneval@train` every command sees.  `load_tasks`'s split applies to every part without its own.
`TaskSet.describe()["mix"]` records each part's spec, weight, available and drawn counts.
"""

from __future__ import annotations

import dataclasses
import math
import random
from collections.abc import Callable
from dataclasses import dataclass

from coderl.tasks.types import Task, TaskFormatError


@dataclass(frozen=True)
class MixPart:
    spec: str
    weight: float


@dataclass(frozen=True)
class Mix:
    parts: tuple[MixPart, ...]
    n: int | None = None


def parse_mix(spec: str, check_part: Callable[[str], object]) -> Mix:
    """The parts of a `mix:` spec; one-line `TaskFormatError`s naming the part.  `check_part(spec)` raises
    `TaskFormatError` for a part that is no task spec (`coderl.tasks.spec.parse_task_spec`: a mix's parts
    are specs of every other kind, which that module knows)."""
    body = spec.strip()[4:]
    parts: list[MixPart] = []
    n = None
    for raw in body.split("+"):
        item = raw.strip()
        if not item:
            raise TaskFormatError(f"task spec {spec!r}: an empty part (write mix:SPEC*W+SPEC*W)")
        if item.startswith("n="):
            if n is not None:
                raise TaskFormatError(f"task spec {spec!r}: n= given twice")
            try:
                n = int(item[2:])
            except ValueError:
                n = 0
            if n < 1:
                raise TaskFormatError(f"task spec {spec!r}: part {item!r}: expected n=<positive integer>")
            continue
        sub, star, weight_text = item.rpartition("*")
        if not star:
            sub, weight_text = item, "1"
        try:
            weight = float(weight_text)
        except ValueError:
            raise TaskFormatError(f"task spec {spec!r}: part {item!r}: weight {weight_text!r} is not a number"
                                  ) from None
        if not (weight > 0 and math.isfinite(weight)):
            raise TaskFormatError(f"task spec {spec!r}: part {item!r}: weight must be a finite number > 0")
        if sub.strip().lower().startswith("mix:"):
            raise TaskFormatError(f"task spec {spec!r}: part {item!r}: mixes do not nest")
        try:
            check_part(sub)
        except TaskFormatError as e:
            raise TaskFormatError(f"task spec {spec!r}: part {sub.strip()!r}: {e}") from None
        parts.append(MixPart(sub.strip(), weight))
    if not parts:
        raise TaskFormatError(f"task spec {spec!r}: no parts (write mix:SPEC*W+SPEC*W)")
    return Mix(tuple(parts), n)


def shares(n: int, weights: list[float]) -> list[int]:
    """`n` split in proportion to `weights`, by largest remainder (ties: the earlier part)."""
    total = sum(weights)
    exact = [n * w / total for w in weights]
    counts = [math.floor(x) for x in exact]
    order = sorted(range(len(weights)), key=lambda i: (-(exact[i] - counts[i]), i))
    for i in order[: n - sum(counts)]:
        counts[i] += 1
    return counts


def _draw(tasks: list[Task], count: int, rng: random.Random) -> list[Task]:
    if count <= len(tasks):
        return rng.sample(tasks, count)
    out: list[Task] = []
    round_ = 0
    while len(out) < count:
        round_ += 1
        order = rng.sample(tasks, len(tasks))
        for t in order[: count - len(out)]:
            out.append(t if round_ == 1 else dataclasses.replace(t, task_id=f"{t.task_id}#{round_}"))
    return out


def load_mix(mix: Mix, spec: str, split: str, seed: int, load: Callable[[str, str], list[Task]],
             ) -> tuple[list[Task], list[dict]]:
    """The mixture's tasks, and each part's spec, weight, available and drawn counts.  `load(spec, split)`
    is a part's task list at seed 0 (`coderl.tasks.spec.load_tasks`)."""
    loaded = [load(part.spec, split) for part in mix.parts]  # the parts' splits: at their seed 0
    for part, ts in zip(mix.parts, loaded):
        if not ts:
            raise TaskFormatError(f"task spec {spec!r}: part {part.spec!r} has no tasks in split {split!r}")
    seen: dict[str, int] = {}
    for k, (part, ts) in enumerate(zip(mix.parts, loaded)):
        for t in ts:
            if seen.setdefault(t.task_id, k) != k:
                raise TaskFormatError(f"task spec {spec!r}: task id {t.task_id!r} is in parts "
                                      f"{mix.parts[seen[t.task_id]].spec!r} and {part.spec!r} (mix disjoint sets)")
    n = mix.n or sum(len(ts) for ts in loaded)
    counts = shares(n, [p.weight for p in mix.parts])
    if 0 in counts:
        part = mix.parts[counts.index(0)]
        raise TaskFormatError(f"task spec {spec!r}: part {part.spec!r} gets no task of n={n} (raise n or its weight)")
    rng = random.Random(seed)
    tasks: list[Task] = []
    for ts, count in zip(loaded, counts):
        tasks += _draw(list(ts), count, rng)
    rng.shuffle(tasks)
    return tasks, [{"spec": p.spec, "weight": p.weight, "available": len(ts), "drawn": c}
                   for p, ts, c in zip(mix.parts, loaded, counts)]
