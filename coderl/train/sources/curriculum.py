"""An online curriculum: prefer the tasks the policy sometimes solves.

A task whose completions always pass or always fail gives a group-relative estimator no signal.
Each task keeps a running pass rate (an exponential moving average, momentum 0.5, of the fraction
of its completions that passed, updated every time it is drawn).  A step draws its prompts without
replacement with weight 1 for a task whose rate is unknown or strictly between 0 and 1, and `floor`
for the others, so solved and hopeless tasks still come back now and then (exploration) and their
rate can move.  The draw for a step is seeded by (seed, step).

Rates that fit fresh tasks (issue 55): in a generated pool almost every task drawn is new, so a rate
per task alone would plan nearly every draw as unseen.  Every task also belongs to coarser *groups*
(`task_groups`): its composition (a synthetic chain, ``L2/add_each_then_reverse``; a corpus family),
then its level (``synthetic/L2``).  Each group keeps a running rate the same way, updated by every
draw of any of its tasks, and a task never drawn plans with its finest group's rate (`Curriculum.rate`).
Measured pass rates (`--pass-rates`) seed the groups with the mean rate of their measured tasks.

`Curriculum` is the one owner of these rates: the rollout source holds it, the ledger saves its
`state_dict()` with every checkpoint, and a resumed run loads it back, so it draws what the
uninterrupted run drew.
"""

from __future__ import annotations

import random
from collections import defaultdict

MOMENTUM = 0.5
_EDGE = 1e-9


def task_weights(rates: list[float | None], floor: float) -> list[float]:
    """1 for unknown rates and 0 < rate < 1, `floor` for rate 0 or 1."""
    return [1.0 if r is None or _EDGE < r < 1 - _EDGE else floor for r in rates]


def weighted_sample(weights: list[float], k: int, rng: random.Random) -> list[int]:
    """k distinct indices, drawn in turn with probability proportional to weight among those left
    (Efraimidis & Spirakis 2006: the k largest keys u^(1/w)); zero weights only when nothing else is left."""
    keys = []
    for i, w in enumerate(weights):
        u = rng.random()
        keys.append((u ** (1.0 / w) if w > 0 else -1.0 + u * 1e-9, i))
    return [i for _, i in sorted(keys, reverse=True)[:k]]


def update_rate(old: float | None, passed_fraction: float) -> float:
    return passed_fraction if old is None else MOMENTUM * old + (1 - MOMENTUM) * passed_fraction


def frontier_fraction(rates: list[float | None]) -> float:
    """Of the tasks seen so far, the fraction with 0 < rate < 1."""
    seen = [r for r in rates if r is not None]
    return sum(_EDGE < r < 1 - _EDGE for r in seen) / len(seen) if seen else 0.0


def task_groups(task) -> tuple[str, ...]:
    """The groups whose rate a never-drawn `task` inherits, finest first: its composition (a synthetic
    chain, or a corpus family), then its source's level.  () for a task with neither."""
    meta = task.metadata
    origin = meta.get("format") or task.source
    groups = []
    if meta.get("composition"):
        groups.append(f"{origin}/L{meta.get('level')}/{'_then_'.join(meta['composition'])}")
    elif meta.get("family"):
        groups.append(f"{origin}/{meta['family']}")
    if meta.get("level") is not None:
        groups.append(f"{origin}/L{meta['level']}")
    return tuple(groups)


class Curriculum:
    """Running pass rates of a run's tasks and of their groups (module docstring)."""

    def __init__(self, tasks: list, measured: list[float | None] | None = None):
        self.groups = [task_groups(t) for t in tasks]  # per task, finest first
        self.rates: list[float | None] = list(measured) if measured else [None] * len(tasks)
        self.group_rates: dict[str, float] = {}
        if measured:  # a group starts at the mean measured rate of its tasks
            totals: dict[str, list[float]] = defaultdict(list)
            for keys, rate in zip(self.groups, measured):
                for key in keys if rate is not None else ():
                    totals[key].append(rate)
            self.group_rates = {key: sum(v) / len(v) for key, v in totals.items()}

    def rate(self, index: int) -> float | None:
        """The rate task `index` plans with: its own, else its finest group's that has one, else None."""
        own = self.rates[index]
        if own is not None:
            return own
        return next((self.group_rates[k] for k in self.groups[index] if k in self.group_rates), None)

    def planning_rates(self) -> list[float | None]:
        return [self.rate(i) for i in range(len(self.rates))]

    def record(self, index: int, passed_fraction: float) -> None:
        """Fold one group of completions of task `index` into its rate and its groups' rates."""
        self.rates[index] = update_rate(self.rates[index], passed_fraction)
        for key in self.groups[index]:
            self.group_rates[key] = update_rate(self.group_rates.get(key), passed_fraction)

    def draw(self, k: int, floor: float, rng: random.Random) -> list[int]:
        """k distinct task indices by the curriculum's weights (`task_weights` of the planning rates)."""
        return weighted_sample(task_weights(self.planning_rates(), floor), min(k, len(self.rates)), rng)

    def metrics(self) -> dict:
        """curriculum/frontier (of the tasks drawn so far, the fraction with 0 < rate < 1), curriculum/seen
        (the fraction of tasks drawn) and curriculum/inherited (the fraction never drawn that plan with a
        group's rate)."""
        seen = sum(r is not None for r in self.rates)
        inherited = sum(r is None and self.rate(i) is not None for i, r in enumerate(self.rates))
        return {"curriculum/frontier": frontier_fraction(self.rates), "curriculum/seen": seen / len(self.rates),
                "curriculum/inherited": inherited / len(self.rates)}

    def state_dict(self) -> dict:
        return {"rates": list(self.rates), "groups": dict(self.group_rates)}

    def load_state_dict(self, state: dict | list) -> None:
        """A checkpoint's state (a plain list of task rates from before issue 55 restores the task rates)."""
        if isinstance(state, list):
            state = {"rates": state, "groups": {}}
        if len(state["rates"]) != len(self.rates):
            raise ValueError(f"curriculum state of {len(state['rates'])} tasks for a run of {len(self.rates)}")
        self.rates = list(state["rates"])
        self.group_rates = dict(state["groups"])
