"""A JavaScript function task's result is judged as Node's own loose `assert.deepEqual` (MultiPL-E's) judges it
against the test's JSON value.  Differential: each expression below is returned by a program in the sandbox and
compared with what plain `JSON.stringify` makes of it (what the harness printed before); coderl's verdict must be
Node's `assert.deepEqual(value, thatJSON)`.  Before (at 86a70e8) NaN, ±Infinity, a Map, Set, Date, RegExp, typed
array, boxed primitive, an array's hole, a function in an object and `{a: undefined}` all passed against their
collapsed JSON (`Math.max(...[])` is -Infinity, printed as null: it passed a test expecting null)."""

from __future__ import annotations

import json
import subprocess

import pytest

from coderl.tasks.spec import load_tasks
from tests.conftest import require_binaries

EXPRESSIONS = [
    # data JSON carries: equal to its JSON in Node's eyes
    "1", "-0", "1.5", "'a'", "[1, [2, 'x']]", "({a: 1, b: [true, null]})", "null", "undefined", "[undefined, 1]",
    "({a: undefined, b: 1}).a", "new (class P { constructor() { this.x = 1; } })()",
    "Object.assign(Object.create(null), {k: 2})", "({a: null, b: {c: [1, 2.5, -3]}})",
    # what no JSON value is
    "NaN", "Infinity", "-Infinity", "Math.max(...[])", "[1, NaN]", "({a: Infinity})", "new Map([[1, 2]])", "new Map()",
    "new Set([1])", "new Set()", "new Date(0)", "/a/", "new Int32Array([1, 2])", "() => 1", "Symbol('s')", "10n",
    "({a: undefined})", "({a: undefined, b: 1})", "[() => 1]", "({f() {}})", "[1,,3]", "new String('ab')",
    "new Number(3)", "new Boolean(false)", "new Error('x')", "[new Map()]", "({a: [new Set([1])]})",
]

NODE_REFERENCE = r"""
const assert = require('assert');
const out = [];
for (const e of JSON.parse(process.argv[1])) {
  const v = eval(e);
  let text;
  try { text = JSON.stringify(v === undefined ? null : v); } catch (err) { text = undefined; }
  const expected = text === undefined ? null : JSON.parse(text);
  let equal = text !== undefined;
  if (equal) { try { assert.deepEqual(v, expected); } catch (err) { equal = false; } }
  out.push([expected, equal]);
}
process.stdout.write(JSON.stringify(out));
"""


@pytest.fixture(scope="module")
def reference():
    require_binaries("node")
    run = subprocess.run(["node", "-e", NODE_REFERENCE, json.dumps(EXPRESSIONS)], capture_output=True, text=True,
                         timeout=60, check=True)
    return json.loads(run.stdout)


def test_a_result_is_judged_as_nodes_loose_deep_equal_judges_it(sandbox, reference, tmp_path):
    rows = [{"task_id": f"js-values/{i}", "kind": "function", "language": "javascript",
             "prompt": "function f() {\n", "entry_point": "f", "reference_solution": f"  return ({e});\n}}\n",
             "tests": [{"id": "0", "source": "[]", "check": "json", "expected": expected}]}
            for i, (e, (expected, _)) in enumerate(zip(EXPRESSIONS, reference))]
    path = tmp_path / "values.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    tasks = list(load_tasks(str(path)))
    results = sandbox.run_many([t.build_request(t.reference_solution) for t in tasks])
    node = {e: equal for e, (_, equal) in zip(EXPRESSIONS, reference)}
    assert sum(node.values()) >= 12 and sum(not v for v in node.values()) >= 25  # both kinds really occur
    got = {e: r.passed for e, r in zip(EXPRESSIONS, results)}
    assert got == node, {e: (got[e], node[e]) for e in EXPRESSIONS if got[e] != node[e]}
    for e, r in zip(EXPRESSIONS, results):
        if not node[e] and e not in ("({a: undefined})", "({a: undefined, b: 1})"):  # these print {"a":null}
            assert "no JSON value is" in r.message or "circular" in r.message, (e, r.message)
