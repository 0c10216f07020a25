"""coderl's own task layout (coderl/tasks/loaders/task_rows.py; issue 41): every task, from every source, written as a
row and read back (JSON lines here; parquet in tests/integrations/test_export.py) is the same task: the same
fields, tests, expected values of the same types, and metadata."""

from __future__ import annotations

import dataclasses
import json
import math

import pytest

from coderl.tasks import load_tasks
from coderl.tasks.loaders.task_rows import decode, encode, task_row
from coderl.tasks.rows import skipping_bad_rows
from coderl.tasks.types import TaskFormatError


def _write(path, tasks, **kw):
    with open(path, "w", encoding="utf-8") as f:
        for t in tasks:
            f.write(json.dumps(task_row(t, **kw)) + "\n")
    return str(path)


def _same(a, b):
    """Equal tasks: every field (the source, file:line, is where each was read from) and the metadata."""
    assert dataclasses.replace(a, source="") == dataclasses.replace(b, source=""), a.task_id
    assert a.metadata == b.metadata, a.task_id
    for x, y in zip(a.tests, b.tests):
        assert type(x.expected) is type(y.expected), (a.task_id, x.id)


@pytest.mark.parametrize("spec", ["humaneval", "easy", "corpus", "synthetic:level=1-3,n=40", "math:n=30",
                                  "verilog", "stdio-basics:language=javascript"])
def test_every_bundled_source_round_trips(tmp_path, spec):
    tasks = load_tasks(spec).tasks
    for text in (False, True):  # tests and metadata as JSON data (JSONL) or as JSON text (parquet's columns)
        back = load_tasks(_write(tmp_path / f"t{text}.jsonl", tasks, text=text)).tasks
        assert [t.task_id for t in back] == [t.task_id for t in tasks]
        for a, b in zip(tasks, back):
            _same(a, b)
    assert back[0].source == f"{tmp_path}/tTrue.jsonl:1"


def test_what_json_cannot_hold_is_tagged_and_comes_back():
    values = [(1, (2, "x")), {3, 1}, frozenset({"a"}), b"\x00\xff", 1 + 2j, float("inf"), -float("inf"),
              {1: "a", (2, 3): [4]}, {"$tuple": [1]}, [1.0, 1, True, None], {"a": {"b": (1,)}}]
    for value in values:
        data = json.loads(json.dumps(encode(value)))
        back = decode(data)
        assert back == value and type(back) is type(value), (value, data)
    assert encode((1, 2)) == {"$tuple": [1, 2]} and encode({"$tuple": [1]}) == {"$dict": [["$tuple", [1]]]}
    assert math.isnan(decode(encode(float("nan"))))
    with pytest.raises(TypeError, match="a value of type object cannot be written"):
        encode(object())


def test_expected_values_keep_their_types_so_the_judge_compares_as_before(tmp_path, sandbox):
    # HumanEval/107 expects a tuple, HumanEval/8 a tuple of ints: a list in its place would fail the reference
    tasks = [t for t in load_tasks("humaneval").tasks if t.task_id in ("HumanEval/8", "HumanEval/107")]
    back = load_tasks(_write(tmp_path / "he.jsonl", tasks)).tasks
    assert {type(c.expected) for t in back for c in t.tests if c.check.value == "equals"} == {tuple}
    for t in back:
        assert sandbox.submit(t.build_request(t.reference_solution)).result().passed, t.task_id


@pytest.mark.parametrize("change, message", [
    ({"kind": "sql"}, r"t\.jsonl:1: unknown kind 'sql' \(expected one of "),
    ({"language": "cobol"}, r"t\.jsonl:1: language 'cobol': expected one of "),
    ({"tests": []}, r"t\.jsonl:1: field 'tests' is empty \(expected at least one test\)$"),
    ({"tests": "[1"}, r"t\.jsonl:1: field 'tests' is not valid JSON text "),
    ({"tests": [{"id": "0", "source": "1", "check": "approx"}]}, r"field 'tests\[0\]\.check' is 'approx' \(expected one of "),
    ({"tests": [{"id": "0", "check": "assert"}]}, r"field 'tests\[0\]\.source' missing \(expected a string\)$"),
    ({"tests": [{"id": "0", "source": "1", "check": "equals", "expected": {"$float": "1e3"}}]},
     r"field 'tests': \$float '1e3': expected inf, -inf or nan$"),
    ({"metadata": [1]}, r"field 'metadata' is list \(expected an object\)$"),
    ({"prompt": 3}, r"field 'prompt' is number \(expected a string\)$"),
    ({"entry_point": None}, r"t\.jsonl:1: field 'entry_point' missing \(expected a string: a function task "),
    ({"metadata": {}, "kind": "hdl", "language": "verilog"}, r"t\.jsonl:1: not a runnable hdl task \(KeyError: "),
    # a task's measured CPU limit (coderl/tasks/time_limits.py): a positive number of seconds
    *[({"time_limit": bad}, rf"t\.jsonl:1: field 'time_limit' is {shown} \(expected a positive number of CPU "
       r"seconds\)$") for bad, shown in ((0, "0"), (-1.5, "-1.5"), ("1", "'1'"), (True, "True"), (math.nan, "nan"),
                                         (math.inf, "inf"))],
    # kind x check: an output test on a function task, an assert-style test on a stdin/stdout task (issue 58)
    ({"tests": [{"id": "0", "source": "1 2\n", "check": "stdout", "expected": "3"}]},
     r"t\.jsonl:1: field 'tests\[0\]\.check' is 'stdout', which a function task cannot judge \(expected one of "
     r"assert, equals, falsy, is, truthy\)$"),
    ({"kind": "stdio", "tests": [{"id": "0", "source": "1 2\n", "check": "stdout", "expected": "3"},
                                 {"id": "1", "source": "assert True", "check": "assert"}]},
     r"field 'tests\[1\]\.check' is 'assert', which a stdio task cannot judge \(expected one of json, report, "
     r"stdout, tagged\)$"),
])
def test_a_bad_row_is_one_line_naming_the_line_and_field(tmp_path, change, message):
    row = {**task_row(load_tasks("easy").tasks[0]), **change}
    path = tmp_path / "t.jsonl"
    path.write_text(json.dumps(row) + "\n")
    with pytest.raises(TaskFormatError, match=message) as err:
        load_tasks(str(path))
    assert "\n" not in str(err.value)


def test_duplicate_ids_and_skipping(tmp_path):
    first, second = load_tasks("easy").tasks[:2]
    rows = [task_row(first), task_row(second), task_row(first), {**task_row(second), "kind": "sql", "task_id": "x"}]
    path = tmp_path / "d.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    with pytest.raises(TaskFormatError, match=rf"d\.jsonl:3: field 'task_id' {first.task_id!r} duplicates line 1$"):
        load_tasks(str(path))
    with skipping_bad_rows() as skipped:
        tasks = load_tasks(str(path)).tasks
    assert [t.task_id for t in tasks] == [first.task_id, second.task_id] and len(skipped) == 2


def test_a_dataset_in_the_layout_is_told_from_its_columns(tmp_path):
    datasets = pytest.importorskip("datasets")
    tasks = load_tasks("corpus:level=1").tasks[:5]
    path = str(tmp_path / "c.parquet")
    datasets.Dataset.from_list([task_row(t, text=True) for t in tasks]).to_parquet(path)
    for spec in (f"hf:{path}", f"hf:{path}:preset=coderl"):
        for a, b in zip(tasks, load_tasks(spec).tasks):
            _same(a, b)
    with pytest.raises(TaskFormatError, match=r"whose columns are not renamed; drop columns=$"):
        load_tasks(f"hf:{path}:columns=prompt=question")
    with pytest.raises(TaskFormatError, match=r"preset coderl converts its rows itself"):
        load_tasks(f"hf:{path}:preset=coderl,columns=prompt=question")
