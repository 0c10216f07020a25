"""coderl's own task layout: any `Task` as one row, and back, exactly (issue 41).

`coderl tasks export --format jsonl|parquet` writes it; a JSONL file or an `hf:` dataset in it loads by
itself (its columns `task_id`, `kind` and `tests` tell the layout).  It is the one layout that keeps
everything a task is, whatever its source: a generated synthetic or math set, a Verilog problem, a task
in another language, a dataset read through a preset.  The exported file is then a self-contained copy of
the tasks, which the command that reads it need not be able to rebuild.

A row:

    task_id, kind, language, prompt, entry_point, test_preamble, reference_solution, float_tolerance,
    time_limit:  CPU seconds a program may use (optional; `coderl check --reference --time-limits` measures it)
    time_limit_machine_seconds:  the CPU seconds of `time_limits.machine_seconds()` on the machine `time_limit`
                 was set on (optional): a machine at least twice as slow multiplies the limit by its
                 `time_limits.machine_scale`, as the recorded sets' limits are; without it the limit applies as
                 set, unscaled, and loading says so on stderr, once a source.  An explicit limit never gets the
                 0.5 s floor (`time_limits.FLOOR`): it is its author's, as set (or scaled)
    tests:    [{id, source, check, expected, setup, hidden, argv, time_limit}, ...]  (a test's `time_limit`,
              optional: CPU seconds of a function task's program in that test alone, EvalPlus's per-input limit;
              `coderl check --reference --time-limits` measures it for function tasks)
    metadata: {...}

`tests` and `metadata` are JSON values in a JSONL file, or JSON text (a parquet column of strings, so
that rows with values of different types share one schema); both read back.  A value JSON cannot hold
(a tuple, a set, bytes, a complex number, an infinite float, a dict with keys that are not strings)
is written as a one-key object tagged `$tuple`, `$set`, `$bytes`, `$complex`, `$float` or `$dict`, so
that a test's expected value compares as it did before the export.
"""

from __future__ import annotations

import base64
import binascii
import dataclasses
import json
import math
import os
import sys
from collections.abc import Callable
from typing import Any

from coderl.sandbox.types import MODE_CHECKS, CheckKind, TestCase, misfit
from coderl.tasks.rows import Rows, TaskIds, jsonl_rows, optional, require
from coderl.tasks.types import Task, TaskFormatError

COLUMNS = ("task_id", "kind", "language", "prompt", "entry_point", "test_preamble", "reference_solution",
           "float_tolerance", "time_limit", "time_limit_machine_seconds", "tests", "metadata")
_TAGS = ("$tuple", "$set", "$frozenset", "$bytes", "$complex", "$float", "$dict")


def layout_of(keys) -> str | None:
    """The layout a row's fields (a dataset's columns) are in: coderl (this one), humaneval, mbpp, stdio or gsm8k;
    None when they are in none of them."""
    keys = set(keys)
    if {"task_id", "kind", "tests"} <= keys:
        return "coderl"
    if {"entry_point", "test", "prompt"} <= keys:
        return "humaneval"
    if "test_list" in keys:
        return "mbpp"
    if "responses_create_params" in keys or "input_output" in keys:
        return "stdio"
    if {"question", "answer"} <= keys:
        return "gsm8k"
    return None


def encode(value: Any) -> Any:
    """A Python value as JSON data, tagged where JSON would change it (module docstring)."""
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else {"$float": repr(value)}
    if isinstance(value, list):
        return [encode(v) for v in value]
    if isinstance(value, tuple):
        return {"$tuple": [encode(v) for v in value]}
    if isinstance(value, (set, frozenset)):
        tag = "$set" if isinstance(value, set) else "$frozenset"
        return {tag: sorted((encode(v) for v in value), key=lambda v: json.dumps(v, sort_keys=True))}
    if isinstance(value, bytes):
        return {"$bytes": base64.b64encode(value).decode("ascii")}
    if isinstance(value, complex):
        return {"$complex": [encode(value.real), encode(value.imag)]}
    if isinstance(value, dict):
        if all(isinstance(k, str) for k in value) and not (len(value) == 1 and next(iter(value)) in _TAGS):
            return {k: encode(v) for k, v in value.items()}
        return {"$dict": [[encode(k), encode(v)] for k, v in value.items()]}
    raise TypeError(f"a value of type {type(value).__name__} cannot be written ({value!r:.60})")


def decode(data: Any) -> Any:
    """`encode`'s inverse; a malformed tag raises ValueError."""
    if isinstance(data, list):
        return [decode(v) for v in data]
    if not isinstance(data, dict):
        return data
    if len(data) == 1 and next(iter(data)) in _TAGS:
        tag, body = next(iter(data.items()))
        if tag == "$float":
            if body not in ("inf", "-inf", "nan"):
                raise ValueError(f"$float {body!r}: expected inf, -inf or nan")
            return float(body)
        if tag == "$bytes":
            if not isinstance(body, str):
                raise ValueError("$bytes: expected base64 text")
            try:
                return base64.b64decode(body, validate=True)
            except binascii.Error as e:
                raise ValueError(f"$bytes: {e}") from None
        if not isinstance(body, list):
            raise ValueError(f"{tag}: expected a list")
        items = [decode(v) for v in body]
        if tag == "$tuple":
            return tuple(items)
        if tag in ("$set", "$frozenset"):
            try:
                return set(items) if tag == "$set" else frozenset(items)
            except TypeError as e:
                raise ValueError(f"{tag}: {e}") from None
        if tag == "$complex":
            if len(items) != 2 or not all(isinstance(v, (int, float)) for v in items):
                raise ValueError("$complex: expected [real, imaginary]")
            return complex(*items)
        if not all(isinstance(pair, list) and len(pair) == 2 for pair in body):  # $dict
            raise ValueError("$dict: expected a list of [key, value] pairs")
        try:
            return {decode(k): decode(v) for k, v in body}
        except TypeError as e:
            raise ValueError(f"$dict: {e}") from None
    return {k: decode(v) for k, v in data.items()}


def task_row(task: Task, *, text: bool = False) -> dict[str, Any]:
    """One task as a row of this layout; `text`: `tests` and `metadata` as JSON text (for parquet)."""
    tests = [{"id": t.id, "source": t.source, "check": t.check.value, "expected": encode(t.expected),
              "setup": t.setup, "hidden": t.hidden, "argv": list(t.argv),
              **({"time_limit": t.time_limit} if t.time_limit is not None else {})} for t in task.tests]
    metadata = dict(task.metadata)
    set_on = metadata.pop(SET_ON, None)  # (limit as set, its machine's seconds): written as the row's field
    metadata = encode(metadata)
    row = {"task_id": task.task_id, "kind": task.kind, "language": task.language, "prompt": task.prompt,
           "entry_point": task.entry_point, "test_preamble": task.test_preamble,
           "reference_solution": task.reference_solution, "float_tolerance": task.float_tolerance,
           "time_limit": task.time_limit,
           "time_limit_machine_seconds": set_on[1] if set_on and task.time_limit == set_on[0] else None,
           "tests": tests, "metadata": metadata}
    if text:
        row["tests"], row["metadata"] = json.dumps(tests, ensure_ascii=False), json.dumps(metadata,
                                                                                          ensure_ascii=False)
    return row


def _json_field(row: dict[str, Any], field: str, expected: type, where: str) -> Any:
    """A field held as JSON data, or as JSON text (parquet); decoded."""
    value = row.get(field)
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except (json.JSONDecodeError, RecursionError) as e:
            reason = e.msg if isinstance(e, json.JSONDecodeError) else "nested too deeply"
            raise TaskFormatError(f"{where}: field '{field}' is not valid JSON text ({reason})") from None
    value = require({field: value}, field, expected, where)
    try:
        return decode(value)
    except (ValueError, RecursionError) as e:
        raise TaskFormatError(f"{where}: field '{field}': {e}") from None


def _test(item: Any, i: int, where: str) -> TestCase:
    label = f"tests[{i}]"
    if not isinstance(item, dict):
        raise TaskFormatError(f"{where}: field '{label}' is not an object (expected a test)")
    check = require(item, "check", str, where, label=f"{label}.check")
    try:
        kind = CheckKind(check)
    except ValueError:
        raise TaskFormatError(f"{where}: field '{label}.check' is {check!r} (expected one of "
                              f"{', '.join(k.value for k in CheckKind)})") from None
    argv = item.get("argv") or []
    if not isinstance(argv, list) or not all(isinstance(a, str) for a in argv):
        raise TaskFormatError(f"{where}: field '{label}.argv' is not a list of strings")
    limit = item.get("time_limit")
    if limit is not None and (isinstance(limit, bool) or not isinstance(limit, (int, float)) or not limit > 0):
        raise TaskFormatError(f"{where}: field '{label}.time_limit' is {limit!r} (expected CPU seconds > 0: the "
                              "test's own limit)")
    return TestCase(id=str(require(item, "id", (str, int), where, label=f"{label}.id")),
                    source=require(item, "source", str, where, label=f"{label}.source"), check=kind,
                    expected=item.get("expected"), setup=optional(item, "setup", str, where, "") or "",
                    hidden=bool(optional(item, "hidden", bool, where, False)), argv=tuple(argv),
                    time_limit=None if limit is None else float(limit))


SET_ON = "time_limit_set_on"  # a task's metadata: (its limit as set, `time_limit_machine_seconds`), for the export
_UNSCALED_SAID: set[str] = set()  # the sources whose unscaled explicit limits have been said (once each)


def _explicit_limit(limit: float, row: dict[str, Any], metadata: dict, source: str,
                    where: str) -> tuple[float, dict]:
    """A row's own `time_limit`, scaled by this machine's `machine_scale` from its `time_limit_machine_seconds`
    (the metadata then keeps both, so an export writes the limit as set); without the field, as set, and said on
    stderr once a source.  Never floored."""
    from coderl.tasks.time_limits import FLOOR, SCALE_ENV, machine_scale

    machine = row.get("time_limit_machine_seconds")
    if machine is not None:
        if isinstance(machine, bool) or not isinstance(machine, (int, float)) or not 0 < machine < math.inf:
            raise TaskFormatError(f"{where}: field 'time_limit_machine_seconds' is {machine!r} (expected a positive "
                                  "number: `coderl.tasks.time_limits.machine_seconds()` on the machine that set "
                                  "'time_limit')")
        return round(limit * machine_scale(float(machine)), 2), {**metadata, SET_ON: (limit, float(machine))}
    if source not in _UNSCALED_SAID:
        _UNSCALED_SAID.add(source)
        print(f"{where}: warning: 'time_limit' {limit:g}s has no 'time_limit_machine_seconds' (nor may other rows of "
              f"{source}), nor its tests' own: applied as set, not scaled by this machine's speed (${SCALE_ENV}), and "
              "without the "
              f"{FLOOR:g}s floor; give the field (`coderl.tasks.time_limits.machine_seconds()` where the limits were "
              "set) or measure them here (`coderl check --reference --time-limits`)", file=sys.stderr)
    return limit, metadata


def _recorded(task: Task, set_on: tuple[float, float]) -> bool:
    """Whether a row's limit and machine are the ones a recorded set's table holds for its content
    (`time_limits.portable` finds them there, so the task is the same as one loaded from its set)."""
    from coderl.tasks.time_limits import recorded_limit

    return set_on == recorded_limit(task)


def task_builder(rows: Rows) -> Callable[[int, dict[str, Any]], Task]:
    """`(n, row) -> Task` for the rows of one source (duplicate ids are refused across them)."""
    from coderl.languages import get_language
    from coderl.tasks.kinds import get_kind

    ids = TaskIds(rows)

    def one(n: int, row: dict[str, Any]) -> Task:
        where = rows.where(n)
        task_id = require(row, "task_id", str, where)
        kind = require(row, "kind", str, where)
        language = optional(row, "language", str, where, "python")
        try:
            get_kind(kind)
            get_language(language)
        except ValueError as e:
            raise TaskFormatError(f"{where}: {e}") from None
        tests = tuple(_test(item, i, where) for i, item in enumerate(_json_field(row, "tests", list, where)))
        if not tests:
            raise TaskFormatError(f"{where}: field 'tests' is empty (expected at least one test)")
        if kind == "function" and row.get("entry_point") is None:
            raise TaskFormatError(f"{where}: field 'entry_point' missing (expected a string: a function task names "
                                  "what its tests call)")
        tolerance = optional(row, "float_tolerance", (int, float), where)
        time_limit = row.get("time_limit")
        if time_limit is not None and (isinstance(time_limit, bool) or not isinstance(time_limit, (int, float))
                                       or not 0 < time_limit < math.inf):
            raise TaskFormatError(f"{where}: field 'time_limit' is {time_limit!r} (expected a positive number of "
                                  "CPU seconds)")
        metadata = _json_field(row, "metadata", dict, where) if row.get("metadata") is not None else {}
        if time_limit is not None:
            time_limit, metadata = _explicit_limit(float(time_limit), row, metadata, rows.name, where)
        task = Task(task_id=task_id, kind=kind, prompt=require(row, "prompt", str, where), tests=tests,
                    entry_point=optional(row, "entry_point", str, where),
                    test_preamble=optional(row, "test_preamble", str, where, ""),
                    reference_solution=optional(row, "reference_solution", str, where),
                    float_tolerance=None if tolerance is None else float(tolerance), source=where,
                    metadata=metadata, language=language, time_limit=time_limit)
        if SET_ON in metadata:  # its tests' own limits (EvalPlus's per-input ones) scaled as its limit was
            from coderl.tasks.time_limits import machine_scale, scaled_inputs

            task = scaled_inputs(task, machine_scale(metadata[SET_ON][1]))
        if SET_ON in metadata and _recorded(task, metadata[SET_ON]):  # an exported recorded set's: the table says it
            task = dataclasses.replace(task, metadata={k: v for k, v in metadata.items() if k != SET_ON})
        if kind == "test_file":
            from coderl.tasks.pytest_files import TestFileError
            from coderl.tasks.test_files import check_task

            try:
                why = check_task(task)
            except TestFileError as e:
                why = f"field 'test_preamble': {e}"
            if why:
                raise TaskFormatError(f"{where}: {why}")
        try:  # a task that cannot build its request (a field its kind needs is missing) fails here, not in a run
            request = task.build_request(task.reference_solution or "")
        except (KeyError, TypeError, ValueError, SyntaxError) as e:
            raise TaskFormatError(f"{where}: not a runnable {kind} task ({type(e).__name__}: {e})") from None
        bad = misfit(request)
        if bad is not None:  # e.g. assert tests on a stdin/stdout task: nothing could judge them
            i = next((j for j, t in enumerate(tests) if t.id == bad[1].id), bad[0])
            fits = ", ".join(sorted(c.value for c in MODE_CHECKS[request.mode.value]))
            raise TaskFormatError(f"{where}: field 'tests[{i}].check' is {bad[1].check.value!r}, which a {kind} task "
                                  f"cannot judge (expected one of {fits})")
        ids.take(task_id, n)
        return task

    return one


def load_task_rows(path: str | os.PathLike[str]) -> list[Task]:
    """All tasks of a JSONL(.gz) file in this layout."""
    rows = jsonl_rows(path)
    return rows.collect(task_builder(rows))
