"""The bundled hand-written easy set: loads through the spec grammar, and every task is sound.

Canonical solutions run in-process (exec of prompt + solution + test + check); the sandbox is not used.
"""

import ast
import json
import os

import pytest

import coderl.tasks
from coderl.sandbox.types import CheckKind
from coderl.tasks import TaskFormatError, load_tasks, parse_task_spec
from coderl.tasks.loaders.easy import easy_path
from coderl.tasks.spec import TaskSpec


@pytest.fixture(scope="module")
def rows():
    with open(easy_path(), encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


@pytest.fixture(scope="module")
def tasks():
    return load_tasks("easy").tasks


def test_spec_and_file_location():
    assert parse_task_spec("easy") == TaskSpec("easy")
    with pytest.raises(TaskFormatError, match="'easy' takes no file or options"):
        parse_task_spec("easy:foo.jsonl")
    package_dir = os.path.dirname(coderl.tasks.__file__)
    assert os.path.dirname(easy_path()) == os.path.join(package_dir, "data")  # shipped as package data


def test_loads_at_least_60_tasks_with_unique_ids(tasks, rows):
    assert len(tasks) == len(rows) >= 60
    ids = [t.task_id for t in tasks]
    assert len(set(ids)) == len(ids)
    assert ids == [f"easy/{i}" for i in range(len(ids))]
    assert len({t.entry_point for t in tasks}) == len(tasks)
    assert all(t.metadata["format"] == "humaneval" for t in tasks)


def test_split_is_the_usual_seeded_split(tasks):
    train, test = load_tasks("easy", split="train"), load_tasks("easy", split="test")
    assert len(train) + len(test) == len(tasks) and not set(train.by_id) & set(test.by_id)


def test_rows_are_humaneval_layout_with_4_to_8_candidate_asserts(rows):
    for row in rows:
        assert set(row) == {"task_id", "prompt", "canonical_solution", "test", "entry_point"}
        module = ast.parse(row["prompt"] + row["canonical_solution"])
        fn = next(n for n in module.body if isinstance(n, ast.FunctionDef))
        assert fn.name == row["entry_point"] and ">>> " in (ast.get_docstring(fn) or "")
        (check,) = ast.parse(row["test"]).body
        assert isinstance(check, ast.FunctionDef) and check.name == "check"
        assert 4 <= len(check.body) <= 8 and all(isinstance(s, ast.Assert) for s in check.body)
        for stmt in check.body:  # no constant assert: every one compares a candidate call
            test = stmt.test
            assert isinstance(test, ast.Compare) and isinstance(test.ops[0], ast.Eq), row["task_id"]
            assert isinstance(test.left, ast.Call) and test.left.func.id == "candidate", row["task_id"]


def test_every_canonical_solution_passes(rows):
    for row in rows:
        ns: dict = {}
        exec(row["prompt"] + row["canonical_solution"] + "\n" + row["test"], ns)  # noqa: S102
        ns["check"](ns[row["entry_point"]])


def test_tests_are_parent_judged_and_reject_constant_solutions(tasks):
    for t in tasks:
        assert all(c.check is CheckKind.EQUALS for c in t.tests), t.task_id
        expected = [c.expected for c in t.tests]
        assert any(e != expected[0] for e in expected), t.task_id  # a constant answer fails


def test_empty_solution_fails_every_task(tasks):
    for t in tasks:
        ns: dict = {}
        exec(t.prompt + "    pass\n", ns)  # noqa: S102
        fn = ns[t.entry_point]
        assert not all(eval(c.source, {"candidate": fn}) == c.expected for c in t.tests), t.task_id
