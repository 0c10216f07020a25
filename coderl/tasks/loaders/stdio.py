"""Standard-input/standard-output problems -> `Task(kind="stdio")`, two layouts detected per row.

Nemotron-RL competitive coding (seed 002; NeMo Gym's layout, its `resources_servers/code_gen`):
    responses_create_params.input             chat messages: the first user message's content is the prompt
    verifier_metadata.unit_tests.inputs/outputs equal-length lists of strings
    hash_id | id | task_id                      the task id (else "<file stem>/<line>")
APPS / TACO:
    question                                    the problem text
    input_output                                a JSON string (or object) with `inputs`, `outputs`
    problem_id                                  the task id
    solutions                                   a JSON string list; the first is the reference
    hidden_input_output                         optional, as input_output: tests kept out of multi-turn
                                                feedback (a dataset's private tests: docs/data.md)

A row's optional `language` names the program's language (default python; another needs its runner:
`coderl.languages.runner`, a YAML runner file for a language coderl does not know).

Each input/output pair is one `TestCase(check=STDOUT, source=stdin, expected=stdout)`.  Inputs or
outputs given as lists of lines are joined with "\\n".  Call-based rows (APPS/TACO `input_output.fn_name`, NeMo
Gym `verifier_metadata.unit_tests.fn_name`) become function tasks whose tests call the function
(`coderl.tasks.loaders.call_based`).  A row with no tests or with different numbers of inputs and outputs is
rejected with one line.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from typing import Any

from coderl.sandbox.types import CheckKind, TestCase
from coderl.tasks.loaders import call_based
from coderl.tasks.loaders.hf_contest_sets import several_answers
from coderl.tasks.rows import Rows, TaskIds, jsonl_rows, optional, require
from coderl.tasks.types import Task, TaskFormatError

_ID_FIELDS = ("hash_id", "id", "task_id", "problem_id")
CALL_READING = "__call_reading__"  # a converted row whose call-based tests are verl's ("verl"), not APPS's
COMPARE = "__compare__"  # a converted row's comparison rule, where its preset's differs by row (DeepCoder's)


def _text(value: Any, where: str, label: str) -> str:
    """A test's stdin/stdout: a string, or a list of line strings joined with newlines."""
    if isinstance(value, str):
        return value
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return "\n".join(value)
    raise TaskFormatError(
        f"{where}: field '{label}' is not a string (expected a string or a list of strings)"
    )


def _pairs(io: dict[str, Any], where: str, prefix: str) -> list[tuple[str, str]]:
    inputs = require(io, "inputs", list, where, label=f"{prefix}.inputs")
    outputs = require(io, "outputs", list, where, label=f"{prefix}.outputs")
    if len(inputs) != len(outputs):
        raise TaskFormatError(
            f"{where}: fields '{prefix}.inputs' and '{prefix}.outputs' differ in length "
            f"({len(inputs)} inputs, {len(outputs)} outputs)"
        )
    if not inputs:
        raise TaskFormatError(f"{where}: field '{prefix}.inputs' is empty (expected at least one test)")
    return [
        (_text(i, where, f"{prefix}.inputs[{n}]"), _text(o, where, f"{prefix}.outputs[{n}]"))
        for n, (i, o) in enumerate(zip(inputs, outputs))
    ]


def _nemotron(row: dict[str, Any], where: str) -> tuple[str, list[tuple[str, str]], list, str | None]:
    prompt = _nemotron_prompt(row, where)
    return prompt, _pairs(_unit_tests(row, where), where, "verifier_metadata.unit_tests"), [], None


def _nemotron_prompt(row: dict[str, Any], where: str) -> str:
    """The first user message of `responses_create_params.input`."""
    params = require(row, "responses_create_params", dict, where)
    messages = require(params, "input", list, where, label="responses_create_params.input")
    if not messages:
        raise TaskFormatError(
            f"{where}: field 'responses_create_params.input' is empty (expected the problem)"
        )
    users = [n for n, m in enumerate(messages) if isinstance(m, dict) and m.get("role", "user") == "user"]
    if not users:
        raise TaskFormatError(f"{where}: field 'responses_create_params.input' has no user message (expected "
                              "the problem as one)")
    n = users[0]
    return require(messages[n], "content", str, where, label=f"responses_create_params.input[{n}].content")


def _unit_tests(row: dict[str, Any], where: str) -> dict[str, Any]:
    """NeMo Gym's `verifier_metadata.unit_tests`: an object, or that object as JSON text (its pydantic model reads
    both)."""
    meta = require(row, "verifier_metadata", dict, where)
    tests = require(meta, "unit_tests", (dict, str), where, label="verifier_metadata.unit_tests")
    if isinstance(tests, str):
        try:
            tests = json.loads(tests)
        except json.JSONDecodeError as e:
            raise TaskFormatError(f"{where}: field 'verifier_metadata.unit_tests' is text but not JSON ({e.msg}; "
                                  "expected {inputs, outputs, fn_name})") from None
        if not isinstance(tests, dict):
            raise TaskFormatError(f"{where}: field 'verifier_metadata.unit_tests' is not a JSON object (expected "
                                  "{inputs, outputs, fn_name})")
    return tests


def _io_object(row: dict[str, Any], field: str, where: str) -> dict[str, Any]:
    """`row[field]`: an object with inputs/outputs, or that as a JSON string."""
    io = require(row, field, (str, dict), where)
    if isinstance(io, str):
        try:
            io = json.loads(io)
        except json.JSONDecodeError as e:
            raise TaskFormatError(f"{where}: field '{field}' is not valid JSON ({e.msg})") from None
        if not isinstance(io, dict):
            raise TaskFormatError(f"{where}: field '{field}' is not a JSON object")
    return io


def _calls(io: dict[str, Any], where: str, prefix: str, hidden: bool, read) -> list[tuple[list, Any, bool]]:
    """The (arguments, expected, hidden) of a call-based test object, each read by `read` (`call_based`)."""
    inputs = require(io, "inputs", list, where, label=f"{prefix}.inputs")
    outputs = require(io, "outputs", list, where, label=f"{prefix}.outputs")
    if len(inputs) != len(outputs):
        raise TaskFormatError(f"{where}: fields '{prefix}.inputs' and '{prefix}.outputs' differ in length "
                              f"({len(inputs)} inputs, {len(outputs)} outputs)")
    return [(*read(i, o, where, f"{prefix}[{n}]"), hidden) for n, (i, o) in enumerate(zip(inputs, outputs))]


def _call_based(row: dict[str, Any], layout: str, where: str, task_id: str) -> Task | None:
    """A call-based row as a function task (`coderl.tasks.loaders.call_based`), or None for a stdin row: APPS/TACO
    `input_output.fn_name` (not None, as their graders read it), NeMo Gym `verifier_metadata.unit_tests.fn_name`."""
    if layout == "nemotron":
        prompt = _nemotron_prompt(row, where)
        tests = _unit_tests(row, where)
        if tests.get("fn_name") is None:
            return None
        cases = _calls(tests, where, "verifier_metadata.unit_tests", False, call_based.lcb_case)
        return call_based.call_task(task_id=task_id, question=prompt, code=prompt, fn_name=tests["fn_name"],
                                    cases=cases, solution=None, where=where, compare="nemo-gym", layout=layout,
                                    field="verifier_metadata.unit_tests.fn_name")
    io = _io_object(row, "input_output", where)
    if io.get("fn_name") is None:
        return None
    read = call_based.verl_case if row.get(CALL_READING) == "verl" else call_based.apps_case
    cases = _calls(io, where, "input_output", False, read)
    if row.get("hidden_input_output") is not None:
        cases += _calls(_io_object(row, "hidden_input_output", where), where, "hidden_input_output", True, read)
    starter = row.get("starter_code") if isinstance(row.get("starter_code"), str) else ""
    prompt = require(row, "question", str, where)
    return call_based.call_task(task_id=task_id, question=prompt, code=starter, fn_name=io["fn_name"], cases=cases,
                                solution=_solution(row, where), where=where, field="input_output.fn_name",
                                compare="verl-prime" if read is call_based.verl_case else "apps", layout=layout)


def _apps(row: dict[str, Any], where: str) -> tuple[str, list[tuple[str, str]], list, str | None]:
    prompt = require(row, "question", str, where)
    io = _io_object(row, "input_output", where)
    hidden = []
    if row.get("hidden_input_output") is not None:
        hidden = _pairs(_io_object(row, "hidden_input_output", where), where, "hidden_input_output")
    return prompt, _pairs(io, where, "input_output"), hidden, _solution(row, where)


def _solution(row: dict[str, Any], where: str) -> str | None:
    """The first of `solutions` (a list, or that as JSON text), or None."""
    solution = None
    solutions = row.get("solutions")
    if isinstance(solutions, str) and solutions.strip():
        try:
            solutions = json.loads(solutions)
        except json.JSONDecodeError as e:
            raise TaskFormatError(f"{where}: field 'solutions' is not valid JSON ({e.msg})") from None
    if isinstance(solutions, list) and solutions:
        if not isinstance(solutions[0], str):
            raise TaskFormatError(f"{where}: field 'solutions[0]' is not a string (expected a string)")
        solution = solutions[0]
    elif solutions not in (None, "", []):
        raise TaskFormatError(f"{where}: field 'solutions' is not a list (expected a JSON list of strings)")
    return solution


def _check_language(language: str, where: str) -> None:
    """A row's language must have a runner now, not at its first request (one line naming the row)."""
    from coderl.languages import get_language, get_runner

    try:
        get_language(language)
        get_runner(language)
    except ValueError as exc:
        raise TaskFormatError(f"{where}: field 'language': {exc}") from None


def detect_stdio_layout(row: dict[str, Any]) -> str | None:
    if "responses_create_params" in row:
        return "nemotron"
    if "input_output" in row:
        return "apps"
    return None


def load_stdio(path: str | os.PathLike[str]) -> list[Task]:
    """All tasks of a stdin/stdout JSONL(.gz) file (Nemotron-RL or APPS/TACO layout, by row)."""
    rows = jsonl_rows(path)
    return rows.collect(stdio_builder(rows))


def stdio_builder(rows: Rows) -> Callable[[int, dict], Task]:
    """`(n, row) -> Task` for the stdin/stdout rows of one source (an id seen twice is refused); a row without
    an id field is `STEM/N` (its line or row number)."""
    stem = rows.stem
    ids = TaskIds(rows)

    def one(lineno: int, row: dict) -> Task:
        where = rows.where(lineno)
        layout = detect_stdio_layout(row)
        if layout is None:
            raise TaskFormatError(
                f"{where}: neither field 'responses_create_params' (Nemotron-RL) nor 'input_output' "
                f"(APPS/TACO) present; fields: {', '.join(sorted(row)) or 'none'}"
            )
        task_id, id_field = f"{stem}/{lineno}", f"{rows.unit} number"
        for field in _ID_FIELDS:
            if row.get(field) is not None:
                task_id, id_field = str(require(row, field, (str, int), where)), f"field '{field}'"
                break
        ids.check(task_id, lineno, id_field)
        called = _call_based(row, layout, where, task_id)
        if called is not None:
            ids.take(task_id, lineno, id_field)
            return called
        prompt, pairs, hidden, solution = (_nemotron if layout == "nemotron" else _apps)(row, where)
        tests = tuple(
            TestCase(id=str(i), source=stdin, check=CheckKind.STDOUT, expected=stdout, hidden=i >= len(pairs))
            for i, (stdin, stdout) in enumerate(pairs + hidden)
        )
        language = optional(row, "language", str, where, "python")
        if language != "python":
            _check_language(language, where)
        metadata: dict[str, Any] = {"format": "stdio", "layout": layout}
        if layout == "nemotron":  # NeMo Gym's layout is judged as NeMo Gym judges it (docs/data.md), file or preset
            metadata["compare"] = "nemo-gym"
        if isinstance(row.get(COMPARE), str):
            metadata["compare"] = row[COMPARE]
        if layout == "nemotron" and (words := several_answers(prompt)):  # NeMo Gym marks no checker (docs/data.md)
            metadata["several_answers"] = words
        ids.take(task_id, lineno, id_field)  # only once the row is good: a skipped row takes no id
        return Task(
            task_id=task_id,
            kind="stdio",
            prompt=prompt,
            tests=tests,
            reference_solution=solution,
            source=where,
            metadata=metadata,
            language=language,
        )

    return one
