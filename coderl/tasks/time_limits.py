"""Time limits that cost only what they must: a task's CPU limit from its reference's measured CPU time.

As EvalPlus does (a factor on the ground truth's time, with a floor), a task's `time_limit` is

    max(FLOOR, FACTOR x the CPU seconds its reference used)     (rounded up to the hundredth)

taken per process: a function task's one program process, the slowest test's process of a stdin/stdout or
command task.  The run's own limit (`--timeout`) stays the most any program gets: a task's limit only lowers
it, so a program slower than FACTOR x its task's reference (and than FLOOR) now times out, where before it had
`--timeout`.  The wall-clock backstop follows (3 x the task's limit + 1 s): CPU time decides a timeout, and a
program the backstop ends is said to have been (`coderl.sandbox.judge.wall_backstop`: a sleep, a blocked read, or a
machine too loaded to run it), with the CPU seconds it had used.

Where the limits come from:
- a task file in coderl's layout holds them in its `time_limit` field; `coderl check --tasks SPEC --reference
  --time-limits OUT.jsonl` measures every reference and writes the tasks with theirs;
- the bundled and generated sets (`BUNDLED`) take theirs from their references' CPU seconds recorded in
  `data/time_limits.json`, keyed by each task's content (`task_key`: the same task in a file of one's own gets the
  same limit; a task with other tests, none), written by `python scripts/time_limits.py`.

Recorded seconds are one machine's.  The table also holds that machine's CPU seconds for a fixed pure-Python
workload (`machine_seconds`), and a machine that runs the workload at least twice as slowly multiplies every
recorded limit by the power of two at or below its slowdown (`machine_scale`): a correct reference must not time
out on a slow laptop because a fast server measured it.  Within twice the recording machine's time the limits apply
as recorded, so a verdict does not move with a machine's noise.

A limit set on a row of coderl's layout is scaled the same way where the row's `time_limit_machine_seconds` names
the machine it was set on (`machine_seconds` there; `--time-limits` and `coderl tasks export` write it); without the
field it applies as set, and loading says so (`loaders.task_rows`).  An explicit limit never gets `FLOOR`.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import json
import math
import os
import time
from collections.abc import Iterable, Sequence

from coderl.tasks.types import Task, TaskFormatError

FACTOR = 4.0  # EvalPlus's gt_time_limit_factor
FLOOR = 0.5  # CPU seconds (chosen by measurement: docs/tasks.md, "Time limits"; 0.25 before issue 73)
RECORDED = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "time_limits.json")
# The sets recorded in RECORDED: the bundled ones, and the generated ones the configs train and select on
BUNDLED = ("humaneval", "easy", "corpus", "stdio-basics", "stdio-basics:language=javascript", "pool", "synthetic",
           "synthetic:level=1-2,n=200,split=valid", "synthetic:level=1-2,n=100,split=test")


def derive(reference_cpu: float, factor: float = FACTOR, floor: float = FLOOR) -> float:
    """A task's limit from its reference's CPU seconds: max(floor, factor x CPU), rounded up to 0.01 s."""
    return max(floor, math.ceil(round(factor * reference_cpu * 100, 6)) / 100)


# EvalPlus's per-input limit (evalplus/config.py DEFAULT_GT_TIME_LIMIT_FACTOR, DEFAULT_MIN_TIME_LIMIT; applied in
# evalplus/eval/__init__.py `untrusted_check`): max(floor, factor x the reference's time on that input)
INPUT_FACTOR = 4.0
INPUT_FLOOR = 1.0


def per_input_limit(reference_cpu: float, factor: float = INPUT_FACTOR, floor: float = INPUT_FLOOR) -> float:
    """One test's own limit from its reference's CPU in it: max(floor, factor x CPU), rounded up to 0.01 s."""
    return derive(reference_cpu, factor, floor)


def with_input_limits(task: Task, result) -> Task:
    """A function task with each test's own limit (`per_input_limit`) from its reference's passing result, where
    the sandbox measured the test (`TestOutcome.call_cpu_seconds`); the task's other tests as they are."""
    cpu = {t.id: t.call_cpu_seconds for t in result.tests if getattr(t, "call_cpu_seconds", None) is not None}
    if task.kind != "function" or not cpu:
        return task
    return dataclasses.replace(task, tests=tuple(
        dataclasses.replace(t, time_limit=per_input_limit(cpu[t.id])) if t.id in cpu else t for t in task.tests))


def _workload() -> int:
    """A fixed pure-Python workload (a loop of integer arithmetic, str and dict work, a comprehension, a sort): what a
    reference's CPU seconds scale with from one machine to another."""
    counts: dict[str, int] = {}
    total = 0
    for i in range(40_000):
        key = str(i * 7919 % 10007)
        counts[key] = counts.get(key, 0) + 1
        total += len(key) + (i % 13) * (i % 7)
    return total + len(sorted(counts)) + [x * 2 for x in range(20_000) if x % 3][-1]


@functools.cache
def machine_seconds(repeats: int = 5) -> float:
    """This machine's CPU seconds for `_workload`: the least of `repeats` runs, in this thread's CPU time alone (a
    trainer's other threads do not count).  About 0.07 s on a machine that runs Python 8 times slower than the one
    that recorded the bundled table; measured once a process."""
    seconds = []
    for _ in range(repeats):
        start = time.thread_time()
        _workload()
        seconds.append(time.thread_time() - start)
    return min(seconds)


SCALE_ENV = "CODERL_TIME_LIMIT_SCALE"  # a factor forced on every recorded limit (a user's setting)
MACHINE_ENV = "CODERL_MACHINE_SECONDS"  # this machine's `machine_seconds`: the first process to measure it sets it


def shared_machine_seconds() -> float:
    """This machine's `machine_seconds`, shared by a run's processes: $CODERL_MACHINE_SECONDS when set (by the
    first process that measured it), else measured and written there, so the processes it starts (pipeline stages,
    workers) scale every limit from one measurement rather than each its own, which on a noisy machine can straddle a
    power of two."""
    given = os.environ.get(MACHINE_ENV, "")
    try:
        value = float(given)
        if 0 < value < math.inf:
            return value
    except ValueError:
        pass
    value = machine_seconds()
    os.environ[MACHINE_ENV] = repr(value)
    return value


def machine_scale(recorded_seconds: float, here: float | None = None) -> int:
    """What limits recorded on a machine that ran `_workload` in `recorded_seconds` are multiplied by on this one
    (`here`: its seconds): 1 below twice the recording machine's time, else the power of two at or below the slowdown
    (2, 4, 8, ...).  Without `here`: $CODERL_TIME_LIMIT_SCALE when set (a whole number >= 1, forced on every recorded
    limit), else from this machine's shared measurement (`shared_machine_seconds`) -- the scale is the recording
    machine's: a row set on this machine is scaled by 1 whatever the bundled table's machine was."""
    if here is None and os.environ.get(SCALE_ENV):
        given = os.environ[SCALE_ENV]
        if not given.isdigit() or int(given) < 1:
            raise TaskFormatError(f"${SCALE_ENV}={given!r}: expected a whole number >= 1 (the factor on recorded "
                                  "time limits)")
        return int(given)
    ratio = (shared_machine_seconds() if here is None else here) / recorded_seconds
    return 1 if ratio < 2 else 2 ** int(math.log2(ratio))


def reference_cpu(result) -> float:
    """The CPU seconds a limit bounds, from a reference's `ExecutionResult`: the slowest process, a test's where
    each test ran in a process of its own (and the build's, the CPU the tests' processes did not use), else the
    run's one program process."""
    per_test = [t.cpu_seconds for t in result.tests if t.cpu_seconds is not None]
    return max(per_test + [result.cpu_seconds - sum(per_test)]) if per_test else result.cpu_seconds


def measured(tasks: Sequence[Task], results: Sequence) -> dict[str, float]:
    """{task id: its reference's CPU seconds (`reference_cpu`)} from each task's reference result; a reference that
    did not pass is one line (no limit can be taken from a run that failed)."""
    seconds = {}
    for task, result in zip(tasks, results):
        if not result.passed:
            raise TaskFormatError(f"{task.source or task.task_id}: task {task.task_id!r}: its reference did not pass "
                                  f"({result.status.value}: {result.message[:120]}); expected a passing reference to "
                                  "measure a time limit on")
        seconds[task.task_id] = reference_cpu(result)
    return seconds


def scaled_inputs(task: Task, scale: float) -> Task:
    """`task` with each test's own limit times `scale` (0: none left)."""
    if not any(t.time_limit is not None for t in task.tests):
        return task
    return dataclasses.replace(task, tests=tuple(
        t if t.time_limit is None else dataclasses.replace(t, time_limit=round(t.time_limit * scale, 2) or None)
        for t in task.tests))


def settle(tasks: Sequence[Task], cpu: dict[str, float], run, timeout: float,
           rounds: int = 4, input_scales: dict[str, float] | None = None) -> dict[str, float | None]:
    """{task id: its limit, or None (it keeps the run's own `timeout`)}: `derive` from its reference's CPU seconds
    (`cpu`), then confirmed by running every reference again under its limit (`run`: tasks -> their references'
    results, at training's parallelism plus one concurrent check): a reference that times out under its limit gets
    it doubled, and is run again with the others, up to `rounds` times; one whose limit reaches `timeout` keeps no
    limit of its own.  A reference that fails otherwise under its limit is one line (the task is flaky: no limit
    can be taken from it).  No limit its own reference did not pass under is ever returned.

    A task whose tests carry limits of their own (`with_input_limits`) is run under them too; they are doubled with
    its limit, and dropped with it: `input_scales` (when given) gets each such task's factor on them (0: dropped)."""
    limits: dict[str, float | None] = {t.task_id: derive(cpu[t.task_id]) for t in tasks}
    limits = {k: (v if v < timeout else None) for k, v in limits.items()}
    scales = input_scales if input_scales is not None else {}
    scales.update({t.task_id: 1.0 for t in tasks if any(c.time_limit is not None for c in t.tests)})
    for _ in range(rounds):
        checked = [t for t in tasks if limits[t.task_id] is not None]
        if not checked:
            break
        results = run([dataclasses.replace(scaled_inputs(t, scales.get(t.task_id, 1.0)), time_limit=limits[t.task_id])
                       for t in checked])
        slow = []
        for task, result in zip(checked, results):
            if result.passed:
                continue
            if result.status.value != "timeout":
                raise TaskFormatError(f"{task.source or task.task_id}: task {task.task_id!r}: its reference passed "
                                      f"once but not under its limit of {limits[task.task_id]:g}s "
                                      f"({result.status.value}: {result.message[:120]}); expected a reference that "
                                      "passes every time")
            slow.append(task.task_id)
        if not slow:
            return limits
        for task_id in slow:
            doubled = 2 * limits[task_id]
            limits[task_id] = doubled if doubled < timeout else None
            if task_id in scales:
                scales[task_id] = 2 * scales[task_id] if doubled < timeout else 0.0
    else:  # the last round's raised limits were never run: they keep the run's own
        for task_id in slow:
            limits[task_id] = None
            if task_id in scales:
                scales[task_id] = 0.0
    for task_id, limit in limits.items():  # a task left without a limit of its own keeps none on its tests either
        if limit is None and task_id in scales:
            scales[task_id] = 0.0
    return limits


def task_key(task: Task) -> str:
    """What a limit is recorded under: a hash of the task's program-facing content (kind, language, prompt, entry
    point, preamble, tests, reference)."""
    text = repr((task.kind, task.language, task.prompt, task.entry_point, task.test_preamble, task.reference_solution,
                 [(t.check.value, t.setup, t.source, t.argv) for t in task.tests]))
    return hashlib.sha256(text.encode()).hexdigest()[:16]


_TABLE: dict | None = None  # RECORDED: {"calibration_seconds": the recording machine's, "references": {key: CPU-s}}


def _table() -> dict:
    global _TABLE
    if _TABLE is None:
        with open(RECORDED, encoding="utf-8") as f:
            _TABLE = json.load(f)
    return _TABLE


def recorded_limit(task: Task) -> tuple[float, float] | None:
    """(the limit `RECORDED` derives for the task's content, unscaled; the recording machine's seconds), or None."""
    seconds = _table()["references"].get(task_key(task))
    return None if seconds is None else (derive(seconds), _table()["calibration_seconds"])


def portable(task: Task) -> Task:
    """`task` with the limit it would carry to another machine: a recorded set's own (unscaled) where its limit is
    the recorded one this machine scaled, a row's own as set where this machine scaled it by the row's
    `time_limit_machine_seconds`, else as it is (what `coderl tasks export` writes)."""
    set_on = task.metadata.get("time_limit_set_on")  # a row's own limit and its machine (`task_rows`)
    if set_on is not None and task.time_limit == round(set_on[0] * machine_scale(set_on[1]), 2):
        # its tests' own limits were scaled with it: as set, too
        return dataclasses.replace(scaled_inputs(task, 1 / machine_scale(set_on[1])), time_limit=set_on[0])
    found = recorded_limit(task)
    if task.time_limit is None or found is None:
        return task
    recorded, machine = found
    if task.time_limit != round(recorded * machine_scale(machine), 2):
        return task
    # with the recording machine's seconds, so the machine that loads the file scales it as this one did
    return dataclasses.replace(task, time_limit=recorded,
                               metadata={**task.metadata, "time_limit_set_on": (recorded, machine)})


def with_recorded(tasks: Iterable[Task]) -> list[Task]:
    """The tasks, each without a limit of its own given the one its reference's CPU time recorded for its content
    (`RECORDED`) derives, if any, times this machine's `machine_scale`."""
    table = _table()["references"]
    tasks = list(tasks)
    if not any(t.time_limit is None and task_key(t) in table for t in tasks):
        return tasks
    scale = machine_scale(_table()["calibration_seconds"])
    return [t if t.time_limit is not None or task_key(t) not in table
            else dataclasses.replace(t, time_limit=round(derive(table[task_key(t)]) * scale, 2)) for t in tasks]
