"""Name -> object registries (languages, runners, task kinds, reward terms, advantage estimators, policy
losses): each is a plain dict filled at import time by its module's `register_*`, which all add through
`register_once`, so a name registered twice is the same one-line error everywhere."""

from __future__ import annotations

from typing import TypeVar

T = TypeVar("T")


def register_once(table: dict[str, T], name: str, value: T, what: str) -> T:
    """`table[name] = value`; ValueError naming `what` (e.g. "task kind") when `name` is already there."""
    if name in table:
        raise ValueError(f"{what} {name!r} is registered twice")
    table[name] = value
    return value
