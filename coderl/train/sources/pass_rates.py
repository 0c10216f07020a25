"""Measured pass rates that start the curriculum: the frontier pool (docs/training.md).

A `coderl eval` run of the policy about to be trained, on the training tasks with `--samples` n > 1,
writes one row per sample to `samples.jsonl` (`task_id`, `passed`).  Each task's fraction of passing
samples becomes its starting running rate (`train/sources/curriculum.py`), so the first steps already know
which tasks are solved (rate 1), hopeless so far (rate 0) or on the frontier (in between): the
curriculum draws the frontier (with `--curriculum-floor 0`, only it while it lasts).  Tasks the run did
not sample stay unseen (None).
"""

from __future__ import annotations

import gzip
import json
import os
from collections import Counter

from coderl.base.config import ConfigError
from coderl.tasks.rows import plain_or_gzip


def measured_rates(path: str, task_ids: list[str]) -> list[float | None]:
    """Per task of `task_ids`: its pass rate in the eval run at `path` (a directory or its samples.jsonl; a
    `results/` folder's samples.jsonl.gz too), or None if the run has no sample of it.  One-line `ConfigError`s
    naming --pass-rates."""
    file = plain_or_gzip(os.path.join(path, "samples.jsonl")) if os.path.isdir(path) else path
    if not os.path.isfile(file):
        raise ConfigError(f"--pass-rates {path!r}: no such file (expected a `coderl eval` run directory or its "
                          "samples.jsonl)")
    samples, passed = Counter(), Counter()
    opener = gzip.open if file.endswith(".gz") else open
    try:
        with opener(file, "rt", encoding="utf-8") as f:
            for number, line in enumerate(f, 1):
                if not line.strip():
                    continue
                try:
                    row = json.loads(line)
                    task_id, ok = row["task_id"], row["passed"]
                except (ValueError, KeyError, TypeError):
                    raise ConfigError(f"--pass-rates {file}: line {number} is not a `coderl eval` sample row "
                                      "(expected JSON with task_id and passed)") from None
                if not isinstance(ok, bool):
                    raise ConfigError(f"--pass-rates {file}: line {number}: passed {ok!r} (expected true or false)")
                samples[task_id] += 1
                passed[task_id] += ok
    except (OSError, EOFError, UnicodeDecodeError) as e:  # a cut or corrupt .gz, bytes that are not UTF-8
        raise ConfigError(f"--pass-rates {file}: cannot read ({e})") from None
    known = [t for t in task_ids if t in samples]
    if not known:
        raise ConfigError(f"--pass-rates {file}: none of its {len(samples)} tasks is a training task (evaluate "
                          "the policy on the --tasks it trains on)")
    single = [t for t in known if samples[t] < 2]
    if single:
        raise ConfigError(f"--pass-rates {file}: task {single[0]} has one sample (a rate needs `coderl eval "
                          "--samples` n > 1, e.g. 16)")
    return [passed[t] / samples[t] if t in samples else None for t in task_ids]


def describe_rates(rates: list[float | None]) -> str:
    """`N tasks measured: a never passed, b sometimes, c always; d unseen`."""
    seen = [r for r in rates if r is not None]
    never = sum(r == 0 for r in seen)
    always = sum(r == 1 for r in seen)
    return (f"{len(seen)} tasks measured: {never} never passed, {len(seen) - never - always} sometimes (the "
            f"frontier), {always} always; {len(rates) - len(seen)} unseen")
