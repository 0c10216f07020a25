"""MBPP loader: rows with `text` (or `prompt`), `test_list`, `code`, `task_id` -> function `Task`s.

The prompt uses HumanEval's layout so that `prompt + completion` is a valid program: a module
docstring holding the problem text and the first test, e.g.

    \"\"\"
    Write a function to find the shared elements from the given two lists.
    assert set(similar_elements((3, 4, 5, 6),(5, 7, 4, 10))) == set((4, 5))
    \"\"\"

and the completion is the whole function.  The entry point is the function the first test calls
(preferring a function that `code` defines, skipping builtins).  Each `test_list` item becomes one
test, classified like HumanEval's asserts with the entry point as the callee (see
`coderl.tasks.loaders.humaneval.classify_assert`); `challenge_test_list` items follow as hidden tests.
`test_setup_code` (original MBPP) or `test_imports` (sanitized MBPP) is the test preamble.
"""

from __future__ import annotations

import ast
import builtins
import os
from collections.abc import Callable
from typing import Any

from coderl.sandbox.types import TestCase
from coderl.tasks.loaders.humaneval import classify_statement
from coderl.tasks.rows import Rows, TaskIds, jsonl_rows, optional, require
from coderl.tasks.types import Task, TaskFormatError


def docstring_header(*parts: str) -> str:
    """A module docstring holding `parts` (one per line), escaped so any text stays inside it."""
    body = "\n".join(parts)
    body = body.replace("\\", "\\\\").replace('"""', '""\\"').replace("\x00", "\\x00")
    return '"""\n' + body + '\n"""\n'


def _called_names(node: ast.AST) -> list[str]:
    calls = [n for n in ast.walk(node) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)]
    calls.sort(key=lambda n: (n.lineno, n.col_offset))
    return [c.func.id for c in calls]


def _defined_functions(code: str | None) -> set[str]:
    if not code:
        return set()
    try:
        module = ast.parse(code)
    except SyntaxError:
        return set()
    return {
        n.name for n in module.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
    }


def find_entry_point(first_test: str, code: str | None = None) -> str | None:
    """The function under test: the first called name of `first_test` that `code` defines, else the
    first called name that is not a builtin; None if there is none."""
    names = _called_names(ast.parse(first_test))
    defined = _defined_functions(code)
    for name in names:
        if name in defined:
            return name
    for name in names:
        if not hasattr(builtins, name):
            return name
    return None


def _string_list(row: dict[str, Any], field: str, where: str, *, optional: bool = False) -> list[str]:
    if optional and row.get(field) is None:
        return []
    items = require(row, field, list, where)
    for i, item in enumerate(items):
        if not isinstance(item, str):
            raise TaskFormatError(f"{where}: field '{field}[{i}]' is not a string (expected a string)")
    return items


def load_mbpp(path: str | os.PathLike[str]) -> list[Task]:
    """All tasks of an MBPP-layout JSONL(.gz) file."""
    rows = jsonl_rows(path)
    return rows.collect(mbpp_builder(rows))


def mbpp_builder(rows: Rows) -> Callable[[int, dict], Task]:
    """`(n, row) -> Task` for the MBPP-layout rows of one source (an id seen twice is refused)."""
    ids = TaskIds(rows)

    def one(lineno: int, row: dict) -> Task:
        where = rows.where(lineno)
        text_field = "text" if row.get("text") is not None or row.get("prompt") is None else "prompt"
        text = require(row, text_field, str, where)
        raw_id = require(row, "task_id", (int, str), where)
        task_id = f"mbpp/{raw_id}" if isinstance(raw_id, int) else raw_id
        test_list = _string_list(row, "test_list", where)
        challenge = _string_list(row, "challenge_test_list", where, optional=True)
        if not test_list:
            raise TaskFormatError(f"{where}: field 'test_list' is empty (expected at least one assert)")
        code = optional(row, "code", str, where)
        if row.get("test_setup_code") is not None:  # a dataset's absent cell is None
            preamble = require(row, "test_setup_code", str, where)
        else:
            preamble = "".join(
                line + "\n" for line in _string_list(row, "test_imports", where, optional=True)
            )
        ids.check(task_id, lineno)

        tests: list[TestCase] = []
        entry_point: str | None = None
        for field, items, hidden in (
            ("test_list", test_list, False),
            ("challenge_test_list", challenge, True),
        ):
            for i, item in enumerate(items):
                label = f"{field}[{i}]"
                try:
                    if entry_point is None:
                        entry_point = find_entry_point(item, code)
                        if entry_point is None:
                            raise TaskFormatError(
                                f"{where}: field '{label}' calls no function by name (cannot tell the entry point)"
                            )
                    check, source, expected = classify_statement(item, entry_point)
                except SyntaxError as e:
                    raise TaskFormatError(
                        f"{where}: field '{label}' is not valid Python ({e.msg} at line {e.lineno})"
                    ) from None
                tests.append(
                    TestCase(id=str(len(tests)), source=source, check=check, expected=expected, hidden=hidden)
                )
        prompt = docstring_header(text, test_list[0].strip())
        try:
            ast.parse(prompt)
        except (SyntaxError, ValueError) as e:  # pragma: no cover - docstring_header escapes everything
            raise TaskFormatError(
                f"{where}: field '{text_field}' cannot be put in a docstring ({e})"
            ) from None
        ids.take(task_id, lineno)  # only once the row is good: a skipped row takes no id
        return Task(
            task_id=task_id,
            kind="function",
            prompt=prompt,
            tests=tuple(tests),
            entry_point=entry_point,
            test_preamble=preamble,
            reference_solution=code,
            source=where,
            metadata={"format": "mbpp"},
        )

    return one
