"""Call-based rows (issue 100): a problem whose tests call a function, as the dataset's own grader defines them.

- APPS / TACO (`input_output.fn_name`; hendrycks/apps eval/testing_util.py, FlagOpen/TACO metrics/testing_util.py):
  each `inputs[i]` is the list of arguments (`method(*inputs)`), each `outputs[i]` the expected value, which the
  datasets wrap in a list (`[3]` for 3): the grader passes the value itself or that first item
  (`outputs.apps_value_match`).  As the graders do, a first argument that is a dict with integer-like keys gets
  integer keys (and the whole argument list becomes that one dict: upstream's own line), and so does an expected
  dict (then wrapped in a list) or an expected list whose first item is such a dict.
- verl's `prime_code` rows (`reward_model.ground_truth.fn_name`; verl/utils/reward_score/prime_code/testing_util.py):
  inputs and outputs as LiveCodeBench's (below), then APPS's integer keys and APPS's comparison.
- NeMo Gym (`verifier_metadata.unit_tests.fn_name`; its lcb_integration/testing_util.py `grade_call_based`) and
  LiveCodeBench: each input is one JSON value per line (every line, as upstream reads it: a blank line is no JSON
  and the row is refused), the output one JSON value.

The function is `Solution().FN` when the row's code (its starter code, or for NeMo Gym the problem text, which
carries LiveCodeBench's starter code) defines `class Solution`, else the module's `FN`: the graders look for
"class Solution" in the submitted program; coderl decides from the row, so a program that answers a plain-function
problem with a class (or the reverse) fails here.  Each test is an EQUALS check of that call, judged in the parent
by the dataset's rule (`metadata["compare"]`).  Arguments are Python literals of the JSON values; a value that has
none (NaN, an infinity) refuses the row in one line.
"""

from __future__ import annotations

import ast
import json
import math
from typing import Any

from coderl.sandbox.types import CheckKind, TestCase
from coderl.tasks.loaders.mbpp import docstring_header
from coderl.tasks.types import Task, TaskFormatError


def _int_keys(value: dict) -> dict | None:
    try:
        return {int(k): v for k, v in value.items()}
    except (ValueError, TypeError):
        return None


def apps_case(inputs: Any, output: Any, where: str, label: str) -> tuple[list, Any]:
    """(arguments, expected) of one APPS/TACO call-based test, with the graders' integer-key conversions."""
    if not isinstance(inputs, list):
        raise TaskFormatError(f"{where}: field '{label}' is not a list (a call-based test's inputs are the list of "
                              "arguments)")
    if inputs and isinstance(inputs[0], dict) and (keyed := _int_keys(inputs[0])) is not None:
        inputs = [keyed]
    if isinstance(output, dict) and (keyed := _int_keys(output)) is not None:
        output = [keyed]
    if isinstance(output, list) and output and isinstance(output[0], dict) and \
            (keyed := _int_keys(output[0])) is not None:
        output = [keyed]
    return inputs, output


def lcb_case(inputs: Any, output: Any, where: str, label: str) -> tuple[list, Any]:
    """(arguments, expected) of one LiveCodeBench-style test: one JSON value per input line, the output JSON."""
    if not isinstance(inputs, str) or not isinstance(output, str):
        raise TaskFormatError(f"{where}: field '{label}': a call-based test's input and output are JSON text")
    try:
        args = [json.loads(line) for line in inputs.split("\n")]
    except json.JSONDecodeError as e:
        raise TaskFormatError(f"{where}: field '{label}.input': a line is not a JSON value ({e.msg}; the grader "
                              "reads every line, a blank one too, so no program could pass)") from None
    try:
        expected = json.loads(output)
    except json.JSONDecodeError as e:
        raise TaskFormatError(f"{where}: field '{label}.output' is not a JSON value ({e.msg})") from None
    return args, expected


def verl_case(inputs: Any, output: Any, where: str, label: str) -> tuple[list, Any]:
    """(arguments, expected) of one call-based test of verl's `prime_code` rows: read as LiveCodeBench's (one JSON
    value per input line, the output JSON text), then APPS's integer-key conversions."""
    args, expected = lcb_case(inputs, output, where, label)
    return apps_case(args, expected, where, label)


def _literal(args: list, where: str, label: str) -> str:
    """The arguments as Python source, checked to read back as the same values."""
    try:
        text = ", ".join(repr(a) for a in args)
        same = not _has_nan(args) and ast.literal_eval(f"[{text}]") == args
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        same = False
    if not same:
        raise TaskFormatError(f"{where}: field '{label}': an argument has no Python literal (NaN, an infinity, or "
                              "nested too deeply)")
    return text


def _has_nan(value) -> bool:
    stack = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, float) and not math.isfinite(v):
            return True
        if isinstance(v, (list, tuple)):
            stack.extend(v)
        elif isinstance(v, dict):
            stack.extend(v.values())
    return False


def call_task(*, task_id: str, question: str, code: str, fn_name: Any, cases: list[tuple[list, Any, bool]],
              solution: str | None, where: str, field: str, compare: str, layout: str) -> Task:
    """A function task whose tests call `fn_name` (module docstring); `cases`: (arguments, expected, hidden);
    `code`: the row's starter code (decides `class Solution`); `field`: the field that names the function."""
    if not isinstance(fn_name, str) or not fn_name.isidentifier():
        raise TaskFormatError(f"{where}: field '{field}' is {fn_name!r}: expected the name of the function the "
                              "tests call")
    if not cases:
        raise TaskFormatError(f"{where}: no tests for the call-based problem")
    method = "class Solution" in code
    entry = "Solution" if method else fn_name
    call = f"Solution().{fn_name}" if method else fn_name
    tests = tuple(TestCase(id=str(i), source=f"{call}({_literal(args, where, f'tests[{i}]')})", check=CheckKind.EQUALS,
                           expected=expected, hidden=hidden) for i, (args, expected, hidden) in enumerate(cases))
    if all(t.hidden for t in tests):
        tests = tuple(TestCase(t.id, t.source, t.check, t.expected) for t in tests)
    starter = code.strip() if code and code.strip() else ""
    parts = [question] + ([f"Complete this code:\n{starter}"] if starter and starter not in question else [])
    return Task(task_id=str(task_id), kind="function", prompt=docstring_header(*parts), tests=tests,
                entry_point=entry, reference_solution=solution, source=where,
                metadata={"format": "call_based", "layout": layout, "fn_name": fn_name, "compare": compare})
