"""MultiPL-E's JavaScript and Lua rows through the `multipl-e` preset (coderl.tasks.loaders.multipl_e; issue 77).

The rows are transcribed in tests/tasks/multipl_e_rows.py (its docstring cites the sources).  Each test is a
literal call read as data: the argument list's JSON and the expected JSON value; MultiPL-E's test text never
runs.  MultiPL-E has no reference: a completion written for each row passes every test, a wrong one fails.
"""

from __future__ import annotations

import json
import os

import pytest

from coderl.tasks.loaders.literals import UNDEFINED, LiteralError, js_argument, js_expected, read_js
from coderl.tasks.loaders.lua_literals import NIL, LuaTable, lua_argument, lua_expected, read_lua
from coderl.tasks.loaders.multipl_e import multipl_e_row
from coderl.tasks.rows import skipping_bad_rows
from coderl.tasks.spec import load_tasks
from coderl.tasks.types import TaskFormatError
from tests.conftest import require_binaries
from tests.tasks.multipl_e_rows import CORRECT, JS_ROWS, LUA_ROWS, WRONG

LUA_RUNNER = os.path.join(os.path.dirname(__file__), "..", "..", "examples", "lua", "lua.yaml")


@pytest.mark.parametrize("text, value", [
    ("[1.0, 2.0, 3.9]", [1, 2, 3.9]), ("-3", -3), ("1e-05", 1e-05), ("true", True), ("null", None),
    ("undefined", UNDEFINED), ('"a\\nb\\u00e9\\u{1F600}\\x41"', "a\nb\u00e9\U0001F600A"), ("'it\\'s'", "it's"),
    ("{1: 1, 2: 3}", {"1": 1, "2": 3}), ('{"a": [], b: {}}', {"a": [], "b": {}}), ("[[1, 2], []]", [[1, 2], []]),
    ("9007199254740993", 9007199254740992.0),  # past 2^53: the double JavaScript rounds the literal to
    ("6775685320645824322581483068371419745979053216268760300", 6.775685320645824e54),
    ('"\\ud83d\\ude00"', "\U0001F600"), ("[1, 2,]", [1, 2]), ("/* c */ 7 // d", 7),
])
def test_javascript_literals_are_read_as_javascript_means_them(text, value):
    assert read_js(text) == value and type(read_js(text)) is type(value)


@pytest.mark.parametrize("text, value", [
    ("{1.0, 2.0}", LuaTable((1.0, 2.0))), ("{['a'] = 2, b = 3}", LuaTable((), ((b"a", 2), (b"b", 3)))),
    ("'it\\'s\\n'", b"it's\n"), ('"\\xff\\65\\u{e9}"', b"\xffA\xc3\xa9"), ("None", NIL), ("nil", NIL),
    ("-5", -5), ("9223372036854775807", 2 ** 63 - 1),
    ("9223372036854775808", 9.223372036854776e18),  # past 64 bits a Lua numeral is a float
    ("{{1, 2}, {}}", LuaTable((LuaTable((1, 2)), LuaTable()))), ("{1; 2}", LuaTable((1, 2))),
    ("'a\\z   b'", b"ab"), ("{} -- c", LuaTable()),
])
def test_lua_literals_are_read_as_lua_means_them(text, value):
    assert read_lua(text) == value and type(read_lua(text)) is type(value)


@pytest.mark.parametrize("text", ["x", "1 + 2", "f(1)", "[1,,2]", "Infinity", "NaN", "0x10", "{__proto__: 1}",
                                  "{1.5: 2}", '"a\nb"', '"\\1"', "-x", "1e999", "`t`"])
def test_what_is_no_javascript_literal_is_refused(text):
    with pytest.raises(LiteralError):
        read_js(text)


@pytest.mark.parametrize("text", ["x", "inf", "nan", "1 + 2", "f(1)", "{1, ['a'] = 2}", "[[long]]", "'\\u00e9'",
                                  "0x10", "'a\nb'", "'\\q'", "'\\256'", "1e999", "{1 2}", "#t"])
def test_what_is_no_lua_literal_is_refused(text):
    with pytest.raises(LiteralError):
        read_lua(text)


def test_values_become_the_json_each_harness_prints_and_reads():
    assert js_expected(read_js("[undefined, {a: undefined}]")) == [None, {"a": None}]  # printed as null
    with pytest.raises(LiteralError, match="undefined"):
        js_argument(read_js("[1, undefined]"))  # JSON would pass null
    expected = {"{}": [], "{1, None, 3}": {"1": 1, "3": 3}, "{None}": [], "{[2] = 'b', [1] = 'a'}": ["a", "b"],
                "{[20] = 2, ['x'] = 1}": {"20": 2, "x": 1}, "{['a'] = None}": [], "{[1.0] = 5}": [5], "None": None}
    assert {t: lua_expected(read_lua(t)) for t in expected} == expected
    arguments = {"{}": [], "{1, None, 3}": [1, None, 3], "{['k'] = 1, ['n'] = None}": {"k": 1},
                 "{[1] = 'a', [2] = 'b'}": ["a", "b"], "{1.0, 2}": [1.0, 2]}
    assert {t: lua_argument(read_lua(t)) for t in arguments} == arguments
    assert type(lua_argument(read_lua("{1.0}"))[0]) is float  # a Lua float stays one (json.dumps: 1.0)
    for bad in ("{[20] = 2}", "{[1] = 1, ['a'] = 2}"):
        with pytest.raises(LiteralError, match="JSON cannot pass"):
            lua_argument(read_lua(bad))
    for bad in ("{[1] = 1, ['1'] = 2}", "'\\xff'", "{[true] = 1}", "{[1.5] = 1}", "{[nil] = 1}"):
        with pytest.raises(LiteralError):
            lua_expected(read_lua(bad))


def test_each_row_becomes_a_function_task_of_json_tests():
    tasks = [multipl_e_row(dict(r), f"x row {i}") for i, r in enumerate(JS_ROWS + LUA_ROWS)]
    assert [t["task_id"] for t in tasks] == list(CORRECT)
    by_id = {t["task_id"]: t for t in tasks}
    longest = by_id["js/HumanEval_12_longest"]
    assert (longest["language"], longest["entry_point"], longest["kind"]) == ("javascript", "longest", "function")
    assert [(t["source"], t["expected"]) for t in longest["tests"]] == [
        ("[[]]", None), ('[["x", "y", "z"]]', "x"), ('[["x", "yyy", "zzzz", "www", "kkkk", "abc"]]', "zzzz")]
    assert by_id["js/mbpp_97_frequency_lists"]["tests"][2]["expected"] == {
        "20": 2, "30": 2, "40": 2, "17": 1, "18": 1, "16": 1, "14": 1, "13": 1, "10": 1}
    assert by_id["js/mbpp_67_bell_number"]["tests"][2]["expected"] == 6.775685320645824e54
    histogram = by_id["lua/HumanEval_111_histogram"]
    assert histogram["language"] == "lua" and histogram["prompt"].endswith("local function histogram(test)\n")
    assert [(t["source"], t["expected"]) for t in histogram["tests"]][-2:] == [('[""]', []), ('["a"]', {"a": 1})]
    assert by_id["lua/HumanEval_0_has_close_elements"]["tests"][0]["source"] == "[[1.0, 2.0, 3.9, 4.0, 5.0, 2.2], 0.3]"


def _with(row: dict, **changes) -> dict:
    out = {**row, **changes}
    return {k: v for k, v in out.items() if v is not None}


def _swap(row: dict, old: str, new: str) -> dict:
    assert old in row["tests"]
    return {**row, "tests": row["tests"].replace(old, new)}


JS, LUA = JS_ROWS[1], LUA_ROWS[1]
REFUSED = {
    "no tests": (_with(JS, tests=None), "field 'tests' missing"),
    "tests not text": (_with(JS, tests=["x"]), "field 'tests' is list"),
    "a variable": (_swap(JS, 'candidate(["x", "y", "z"])', "candidate(xs)"),
                   "statement 2 is not a literal call assert.deepEqual(candidate(ARGS), VALUE): the name 'xs'"),
    "an expression": (_swap(JS, '"zzzz");', '"zz" + "zz");'), "statement 3 is not a literal call"),
    "another assert": (_swap(JS, "assert.deepEqual(candidate([]),undefined)", "assert.ok(candidate([]))"),
                       "statement 1 is not a literal call"),
    "a message": (_swap(JS, '"x");', '"x", "msg");'), "statement 2 is not a literal call"),
    "a statement": (_swap(JS, "  let candidate = longest;\n", "  let candidate = longest;\n  let xs = [];\n"),
                    "statement 1 is not a literal call"),
    "undefined argument": (_swap(JS, "candidate([]),undefined", "candidate(undefined),undefined"),
                           "an argument holds undefined"),
    "not a suite": (_with(JS, tests="assert.deepEqual(longest([]), undefined);"), "not MultiPL-E's test suite"),
    "lua variable": (_swap(LUA, "candidate({})", "candidate(t)"),
                     "statement 1 is not a literal call lu.assertEquals(candidate(ARGS), VALUE): the name 't'"),
    "lua other assert": (_swap(LUA, "lu.assertEquals(candidate({}), None)", "lu.assertNil(candidate({}))"),
                         "statement 1 is not a literal call"),
    "lua bytes": (_swap(LUA, "'zzzz')", "'\\xff')"), "not UTF-8"),
    "lua keyed argument": (_swap(LUA, "candidate({})", "candidate({[3] = 'a'})"), "JSON cannot pass"),
    "language": (_with(JS, language="cpp"), "field 'language' is 'cpp' (coderl reads MultiPL-E's js and lua rows"),
    "no entry point": (_with(JS, prompt="//x\nfunction other(strings){\n"), "does not define function 'longest'"),
}


@pytest.mark.parametrize("case", list(REFUSED))
def test_a_row_it_cannot_read_is_one_line_naming_the_row(case):
    row, said = REFUSED[case]
    with pytest.raises(TaskFormatError) as refusal:
        multipl_e_row(row, "hf:m.parquet row 4")
    text = str(refusal.value)
    assert "\n" not in text and text.startswith("hf:m.parquet row 4: field '") and said in text, text


def _parquet(tmp_path, rows) -> str:
    datasets = pytest.importorskip("datasets")
    path = tmp_path / "multipl-e.parquet"
    datasets.Dataset.from_list(rows).to_parquet(str(path))
    return str(path)


@pytest.fixture
def lua_runner(monkeypatch):
    monkeypatch.setenv("CODERL_RUNNERS", os.path.abspath(LUA_RUNNER))


def test_skip_bad_rows_lists_each_row_it_cannot_read(tmp_path, lua_runner):
    rows = [JS_ROWS[0], REFUSED["a variable"][0], LUA_ROWS[0], REFUSED["lua other assert"][0]]
    with skipping_bad_rows() as skipped:
        tasks = load_tasks(f"hf:{_parquet(tmp_path, rows)}:preset=multipl-e").tasks
    assert [t.task_id for t in tasks] == ["js/HumanEval_0_has_close_elements", "lua/HumanEval_0_has_close_elements"]
    assert len(skipped) == 2 and "row 1: field 'tests': statement 2" in skipped[0] and "row 3: " in skipped[1]
    with pytest.raises(TaskFormatError, match="row 1: field 'tests'"):
        load_tasks(f"hf:{_parquet(tmp_path, rows)}:preset=multipl-e")


@pytest.mark.parametrize("language, binary", [("js", "node"), ("lua", "lua5.4")])
def test_a_correct_program_passes_and_a_wrong_one_fails(tmp_path, sandbox, lua_runner, language, binary):
    """In the sandbox, judged by the language's values harness (no measured time limit: only --timeout)."""
    require_binaries(binary)
    rows = JS_ROWS if language == "js" else LUA_ROWS
    tasks = load_tasks(f"hf:{_parquet(tmp_path, rows)}:preset=multipl-e").tasks
    assert all(t.reference_solution is None and t.time_limit is None for t in tasks)
    requests = [t.build_request(c) for t in tasks for c in (CORRECT[t.task_id], WRONG[t.task_id])]
    results = sandbox.run_many(requests)
    for t, good, bad in zip(tasks, results[::2], results[1::2]):
        assert good.passed and good.fraction_passed == 1.0, (t.task_id, good.message, good.stderr[-300:])
        assert not bad.passed and any(o.passed is False for o in bad.tests), (t.task_id, bad.message)
    messages = {t.task_id: bad.message for t, bad in zip(tasks, results[1::2])}
    if language == "lua":  # '' where the answer is nil: the harness printed a string, not null
        assert "expected None" in messages["lua/HumanEval_12_longest"], messages


def test_the_tests_json_is_what_the_harness_reads(tmp_path, lua_runner):
    """The exported task keeps each test as JSON (a coderl task file round trip)."""
    from coderl.tasks.loaders.task_rows import task_row

    tasks = load_tasks(f"hf:{_parquet(tmp_path, JS_ROWS + LUA_ROWS)}:preset=multipl-e").tasks
    path = tmp_path / "exported.jsonl"
    path.write_text("".join(json.dumps(task_row(t)) + "\n" for t in tasks))
    again = load_tasks(str(path)).tasks
    assert [(t.task_id, t.tests) for t in again] == [(t.task_id, t.tests) for t in tasks]
