"""examples/lua/lua.yaml's values harness judges a Lua function task's result as MultiPL-E's luaunit
`assertEquals` judges it against the test's expected value (issue 77).  Differential, in the style of
test_js_values.py: luaunit is not installed here, so its verdict is computed in Lua by the structural equality
its `assertEquals` applies (the same type; numbers by `==`, so 3 equals 3.0; tables key by key, recursively).
coderl's verdict is `json_equal(what the harness printed for value i, lua_expected(literal j))`, the expected
value the `multipl-e` preset makes of a literal.  They agree on every pair but one documented kind: a table
keyed by the integer 1 and one keyed by the string "1" print alike (JSON object keys are text).

The other direction too: each argument the preset accepts, sent as JSON (`lua_argument`), arrives in the
function as the very value the literal builds (the same integer or float subtypes, the same `#` border of a
table with a nil in it), and what no JSON value is (NaN, inf, a function, a table holding itself, ...) is a
runtime error named on stderr, with no value line.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import tempfile

import pytest
import yaml

from coderl.sandbox.outputs import json_equal
from coderl.sandbox.types import VALUE_MARKER
from coderl.tasks.loaders.literals import LiteralError
from coderl.tasks.loaders.lua_literals import lua_argument, lua_expected, read_lua
from tests.conftest import require_binaries

NO_VALUE = object()  # no value line (a runtime error)
LUA_RUNNER = os.path.join(os.path.dirname(__file__), "..", "..", "examples", "lua", "lua.yaml")

HAND = [
    "None", "true", "false", "0", "3", "3.0", "-0.0", "2.5", "1e+100", "9223372036854775807", "9223372036854775808",
    "''", "'a'", "'A'", "'\\u{e9}'", "'\\u{1F600}'", "'tab\\there'", "'q\"\\\\'", "'\\0'", "'\\31'",
    "{}", "{1, 2}", "{1.0, 2}", "{2, 1}", "{[1] = 1, [2] = 2}", "{[2] = 2, [1] = 1}", "{1, 2, None}", "{None}",
    "{1, None, 3}", "{[1] = 1, [3] = 3}", "{['1'] = 1, ['3'] = 3}", "{['a'] = 1}", "{a = 1}", "{['a'] = 1.0}",
    "{['a'] = None}", "{[20] = 2, [30] = 1}", "{['20'] = 2, ['30'] = 1}", "{[0] = 1}", "{[-1] = 1}",
    "{{}}", "{{1}}", "{{}, {}}", "{['x'] = {}}", "{['x'] = {1, {['y'] = {}}}}", "{[1] = 'a'}", "{['1'] = 'a'}",
]
# the pairs luaunit tells apart that print alike: integer and string keys of the same text
KEY_TEXT_TWINS = [("{[1] = 1, [3] = 3}", "{['1'] = 1, ['3'] = 3}"), ("{1, None, 3}", "{['1'] = 1, ['3'] = 3}"),
                  ("{[20] = 2, [30] = 1}", "{['20'] = 2, ['30'] = 1}")]


def _generated(n: int, seed: int = 77) -> list[str]:
    """Random nested literals over small pools, so that many pairs are equal, nearly equal or alike in JSON."""
    rng = random.Random(seed)
    leaves = ["1", "2", "1.0", "2.5", "-3", "'a'", "'b'", "''", "true", "false"]

    def value(depth: int) -> str:
        kind = rng.random()
        if depth >= 3 or kind < 0.4:
            return rng.choice(leaves)
        size = rng.randint(0, 3)
        if kind < 0.7:
            return "{" + ", ".join(rng.choice([value(depth + 1)] * 5 + ["None"]) for _ in range(size)) + "}"
        if kind < 0.9:
            keys = rng.sample(["'a'", "'b'", "'c'"], size)
        else:
            keys = [str(k) for k in rng.sample([1, 2, 3, 5], size)]
        return "{" + ", ".join(f"[{k}] = {value(depth + 1)}" for k in keys) + "}"

    return [value(0) for _ in range(n)]


VALUES = list(dict.fromkeys(HAND + _generated(200)))

LUAUNIT_EQUAL = r"""
local function equal(a, b)  -- luaunit's assertEquals on plain data: same type, ==, tables key by key
  if type(a) ~= type(b) then return false end
  if type(a) ~= "table" then return a == b end
  for k, v in pairs(a) do if not equal(v, b[k]) then return false end end
  for k in pairs(b) do if a[k] == nil then return false end end
  return true
end
local rows = {}
for i = 1, N do
  local row = {}
  for j = 1, N do row[j] = equal(V[i], V[j]) and "1" or "0" end
  rows[i] = table.concat(row)
end
io.write(table.concat(rows, "\n"))
"""

SAME = r"""
local function same(a, b)  -- stricter than luaunit: integer and float subtypes and the # border too
  if type(a) ~= type(b) then return false end
  if type(a) == "number" then return math.type(a) == math.type(b) and a == b end
  if type(a) ~= "table" then return a == b end
  if #a ~= #b then return false end
  for k, v in pairs(a) do if not same(v, b[k]) then return false end end
  for k in pairs(b) do if a[k] == nil then return false end end
  return true
end
"""


@pytest.fixture(scope="module")
def harness():
    require_binaries("lua5.4")
    with open(LUA_RUNNER, encoding="utf-8") as f:
        return yaml.safe_load(f)["harness"]


def _run(program: str, stdin: str = "[]") -> tuple[object, str]:
    """(the value the harness printed, or NO_VALUE; stderr) of `program` run by lua5.4 (no sandbox: trusted code)."""
    with tempfile.NamedTemporaryFile("w", suffix=".lua", delete=False) as f:
        f.write(program)
    try:
        run = subprocess.run(["lua5.4", f.name], input=stdin, capture_output=True, text=True, timeout=30)
    finally:
        os.unlink(f.name)
    lines = [line for line in run.stdout.split("\n") if line.startswith(VALUE_MARKER)]
    if run.returncode != 0 or not lines:
        return NO_VALUE, run.stderr + (run.stdout if run.returncode == 0 else "")
    return json.loads(lines[-1][len(VALUE_MARKER):]), run.stderr


def _printed(harness: str, expression: str) -> tuple[object, str]:
    return _run("local function f(...) return " + expression + " end\n" + harness.replace("{entry_point}", "f"))


def test_the_values_are_varied():
    assert len(VALUES) >= 140
    tables = [v for v in VALUES if v.startswith("{")]
    assert len(tables) >= 100 and any("None" in v for v in tables) and any("[" in v for v in tables)


def test_the_harness_judges_as_luaunit_does(harness):
    """Every pair (i, j): coderl's verdict on a function returning value i against literal j is luaunit's."""
    program = "local V = {}\n" + "".join(f"V[{i}] = {v}\n" for i, v in enumerate(VALUES, 1))
    run = subprocess.run(["lua5.4", "-"], input=program + LUAUNIT_EQUAL.replace("N", str(len(VALUES))),
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    luaunit = [[c == "1" for c in row] for row in run.stdout.split("\n")]
    printed = {}
    for v in VALUES:
        value, stderr = _printed(harness, v)
        assert value is not NO_VALUE or "TypeError" in stderr, (v, stderr)
        printed[v] = value
    expected = {v: lua_expected(read_lua(v)) for v in VALUES}
    twins = {frozenset(p) for p in KEY_TEXT_TWINS}
    disagree = []
    for i, a in enumerate(VALUES):
        for j, b in enumerate(VALUES):
            coderl = json_equal(printed[a], expected[b])
            if coderl != luaunit[i][j] and frozenset((a, b)) not in twins:
                disagree.append((a, b, coderl, luaunit[i][j]))
    assert not disagree, disagree[:10]
    pairs = sum(row.count(True) for row in luaunit)
    assert pairs > len(VALUES) + 40  # equal pairs beyond each value with itself really occur
    for a, b in KEY_TEXT_TWINS:  # the one kind of pair they disagree on, as documented
        assert json_equal(printed[a], expected[b]) and not luaunit[VALUES.index(a)][VALUES.index(b)]
    assert printed["{}"] == [] and printed["{1, None, 3}"] == {"1": 1, "3": 3} and printed["None"] is None


@pytest.mark.parametrize("expression, said", [
    ("0/0", "-nan"), ("1/0", "inf"), ("-1/0", "-inf"), ("{1, 0/0}", "nan"), ("print", "a function"),
    ("coroutine.create(print)", "a thread"), ("io.stdout", "a userdata"), ("'\\xff'", "not UTF-8"),
    ("(function() local t = {} t[1] = t return t end)()", "a table that holds itself"),
    ("{[1.5] = 1}", "a float key"), ("{[true] = 1}", "a boolean key"), ("{[print] = 1}", "a function key"),
    ("{[1] = 1, ['1'] = 2}", "the keys 1 and \"1\""),
])
def test_what_no_json_value_is_is_a_runtime_error(harness, expression, said):
    value, stderr = _printed(harness, expression)
    assert value is NO_VALUE and "which" in stderr and said.lstrip("-") in stderr.replace("-nan", "nan"), stderr


def test_a_missing_entry_point_and_several_results(harness):
    value, stderr = _run("local x = 1\n" + harness.replace("{entry_point}", "nope"))
    assert value is NO_VALUE and "ReferenceError: nope is not defined as a function" in stderr
    assert _printed(harness, "1, 2")[0] == 1  # the first result, as luaunit's assertEquals(candidate(...), ...)
    assert _printed(harness, "")[0] is None  # no result: nil
    assert _printed(harness, "'\\1\\n\"\\\\\\127é'")[0] == "\x01\n\"\\\x7fé"


def test_each_argument_arrives_as_the_value_its_literal_builds(harness):
    """`same(x, LITERAL)` (subtypes and # borders included) for every value the preset can pass as JSON."""
    sendable = []
    for v in VALUES:
        try:
            sendable.append((v, lua_argument(read_lua(v))))
        except LiteralError:
            pass
    assert len(sendable) >= 70 and any(v == "{1, None, 3}" for v, _ in sendable)
    checks = "".join(f"  if k == {i} then return same(x, {v}) and select('#', ...) == 0 end\n"
                     for i, (v, _) in enumerate(sendable))
    program = SAME + "local function f(k, x, ...)\n" + checks + "end\n" + harness.replace("{entry_point}", "f")
    results = [(v, *_run(program, json.dumps([i, arg]))) for i, (v, arg) in enumerate(sendable)]
    assert all(value is True for _, value, _ in results), [r for r in results if r[1] is not True][:5]
    value, _ = _run(SAME + "local function f(...) return select('#', ...) end\n"
                    + harness.replace("{entry_point}", "f"), "[1, null, null]")
    assert value == 3  # a trailing nil argument is passed, as in candidate(1, nil, nil)
