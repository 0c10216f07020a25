"""HumanEval -> JavaScript translation: counts, skip reasons, prompts, the split, and hand-written JS
solutions run with node against the translated JSON tests (right ones pass, wrong ones fail)."""

from __future__ import annotations

import ast
import dataclasses
import json
import math
import shutil
import subprocess

import pytest

from coderl.sandbox.types import CheckKind, TestCase
from coderl.tasks.humaneval import load_humaneval
from coderl.tasks.humaneval_js import (
    js_text,
    js_type,
    load_humaneval_js,
    split_humaneval_js,
    split_key,
    translate,
)
from coderl.tasks.split import split_tasks
from tests.conftest import require_binaries

TRANSLATED = 149  # of the 164 bundled HumanEval tasks


@pytest.fixture(scope="module")
def python_tasks():
    return load_humaneval()


@pytest.fixture(scope="module")
def js(python_tasks):
    return load_humaneval_js()


@pytest.fixture(scope="module")
def by_id(js):
    return {t.task_id: t for t in js[0]}


# ---- counts, reasons, task fields -------------------------------------------------------------------


def test_translated_count(js):
    tasks, skipped = js
    assert len(tasks) == TRANSLATED
    assert len(tasks) >= 140
    assert len(tasks) + len(skipped) == 164


def test_translated_tasks_keep_humaneval_order(js, python_tasks):
    order = [t.task_id for t in python_tasks]
    sources = [t.metadata["source_task"] for t in js[0]]
    assert sources == [i for i in order if i in set(sources)]


def test_skip_reasons(js):
    skipped = js[1]
    assert skipped["HumanEval/2"] == "test 1: an assert statement, not a value check of candidate(...)"
    assert skipped["HumanEval/95"] == "test 2: argument is not a JSON literal (dict has a non-string key)"
    assert skipped["HumanEval/92"] == "test 9: argument 3.0 is an integral float and the task inspects types"
    assert skipped["HumanEval/114"].startswith("test 3: argument is not a JSON literal (integer -9999999999999999")
    assert skipped["HumanEval/32"] == "docstring relies on prompt helper poly"
    assert all("\n" not in reason for reason in skipped.values())


def test_task_fields(by_id):
    task = by_id["HumanEval-js/23"]
    assert (task.kind, task.language, task.entry_point, task.source) == ("function", "javascript", "strlen",
                                                                         "HumanEval/23")
    assert task.reference_solution is None and task.test_preamble == ""
    assert task.metadata["source_task"] == "HumanEval/23"
    assert task.tests[1] == TestCase(id="1", source='["x"]', check=CheckKind.JSON, expected=1)


def test_exact_prompt_of_strlen(by_id):
    assert by_id["HumanEval-js/23"].prompt == (
        "/**\n"
        " * Return length of given string\n"
        " * >>> strlen('')\n"
        " * 0\n"
        " * >>> strlen('abc')\n"
        " * 3\n"
        " * @param {string} string\n"
        " * @returns {number}\n"
        " */\n"
        "function strlen(string){\n"
    )


def test_constant_arithmetic_arguments_are_folded(by_id):
    assert by_id["HumanEval-js/25"].tests[3].source == "[57]"  # candidate(3 * 19)
    assert by_id["HumanEval-js/90"].tests[5].source == "[[1, 1]]"  # candidate([1, 0**0])


def test_float_tolerance_only_where_a_float_is_expected(by_id):
    assert by_id["HumanEval-js/20"].float_tolerance == 1e-6
    assert by_id["HumanEval-js/23"].float_tolerance is None


def test_truthy_falsy_and_is_become_json_constants(by_id):
    assert [t.expected for t in by_id["HumanEval-js/52"].tests[:2]] == [True, False]
    assert by_id["HumanEval-js/12"].tests[0].expected is None


# ---- prompts -----------------------------------------------------------------------------------------


def test_no_prompt_mentions_python(js):
    for task in js[0]:
        assert "python" not in task.prompt.lower(), task.task_id
        assert not any(w in task.prompt.split() for w in ("True", "False", "None")), task.task_id


def test_docstring_rewrites_are_whole_words_and_keep_parameter_names():
    assert js_text("Return None if a list is empty, True if lists are, False for a tuple.") == (
        "Return null if an array is empty, true if arrays are, false for an array."
    )
    assert js_text("is_list Listed Nonesuch") == "is_list Listed Nonesuch"
    assert js_text("Given a dictionary dict", frozenset({"dict"})) == "Given an object dict"


@pytest.mark.parametrize(
    "annotation, expected",
    [
        ("int", "number"),
        ("List[float]", "Array<number>"),
        ("Tuple[int, int]", "Array"),
        ("Dict[str, int]", "Object<string, number>"),
        ("Optional[str]", "string|null"),
        ("List[Any]", "Array<any>"),
        ("list", "Array"),
        ("Any", "any"),
    ],
)
def test_js_type(annotation, expected):
    assert js_type(ast.parse(annotation, mode="eval").body) == expected


def test_js_type_of_a_missing_annotation_is_any():
    assert js_type(None) == "any"


# ---- rejected inputs ---------------------------------------------------------------------------------


def _with_test(task, test):
    return dataclasses.replace(task, tests=(test,))


@pytest.mark.parametrize(
    "test, reason",
    [
        (TestCase("0", "candidate(x)", CheckKind.EQUALS, 1), "test 0: argument x is not a JSON literal"),
        (TestCase("0", "candidate({1, 2})", CheckKind.EQUALS, 1), "test 0: argument {1, 2} is not a JSON literal"),
        (TestCase("0", "len('a')", CheckKind.EQUALS, 1), "test 0: source is not a call of candidate"),
        (TestCase("0", "candidate(1)", CheckKind.EQUALS, {1}), "test 0: expected value is not JSON (set is not a JSON type)"),
        (TestCase("0", "candidate(1)", CheckKind.EQUALS, 1, setup="x = 1\n"), "test 0: has setup code"),
        (TestCase("0", "candidate(float('inf'))", CheckKind.EQUALS, 1), "test 0: argument float('inf') is not a JSON literal"),
    ],
)
def test_untranslatable_tests(python_tasks, test, reason):
    assert translate(_with_test(python_tasks[23], test)) == reason


def test_a_preamble_that_runs_code_is_rejected(python_tasks):
    task = dataclasses.replace(python_tasks[23], test_preamble="import math\n")
    assert translate(task) == "test preamble runs code the tests may depend on"


# ---- properties --------------------------------------------------------------------------------------


def _has_tuple(value):
    if isinstance(value, tuple):
        return True
    if isinstance(value, list):
        return any(_has_tuple(v) for v in value)
    if isinstance(value, dict):
        return any(_has_tuple(v) for v in value.values())
    return False


def test_every_test_is_json_of_an_argument_list(js):
    for task in js[0]:
        assert task.tests
        for test in task.tests:
            assert test.check is CheckKind.JSON
            assert isinstance(json.loads(test.source), list), (task.task_id, test.id)
            assert not _has_tuple(test.expected), (task.task_id, test.id)


@pytest.mark.parametrize("seed", [0, 1, 7])
def test_js_split_membership_equals_the_source_tasks(js, python_tasks, seed):
    tasks = js[0]
    for split in ("train", "test"):
        python_ids = {t.task_id for t in split_tasks(python_tasks, split, seed)}
        js_sources = {split_key(t) for t in split_humaneval_js(tasks, split, seed)}
        assert js_sources == {split_key(t) for t in tasks} & python_ids
    assert split_humaneval_js(tasks, "all", seed) == tasks


# ---- hand-written JavaScript solutions, run with node ------------------------------------------------

# Completions: each continues the translated prompt's open `function name(params){` and closes it.
GOOD = {
    0: "  for (let i = 0; i < numbers.length; i++)\n    for (let j = i + 1; j < numbers.length; j++)\n"
       "      if (Math.abs(numbers[i] - numbers[j]) < threshold) return true;\n  return false;\n}\n",
    1: "  const out = []; let cur = '', depth = 0;\n  for (const c of paren_string) {\n"
       "    if (c === '(') { depth++; cur += c; }\n    else if (c === ')') { depth--; cur += c;"
       " if (depth === 0) { out.push(cur); cur = ''; } }\n  }\n  return out;\n}\n",
    3: "  let b = 0;\n  for (const op of operations) { b += op; if (b < 0) return true; }\n  return false;\n}\n",
    10: "  for (let i = 0; i <= string.length; i++) {\n    const tail = string.slice(i);\n"
        "    if (tail === [...tail].reverse().join(''))\n"
        "      return string + [...string.slice(0, i)].reverse().join('');\n  }\n}\n",
    12: "  if (strings.length === 0) return null;\n"
        "  return strings.reduce((a, s) => (s.length > a.length ? s : a));\n}\n",
    13: "  while (b !== 0) [a, b] = [b, a % b];\n  return Math.abs(a);\n}\n",
    20: "  const s = [...numbers].sort((x, y) => x - y); let best = [s[0], s[1]];\n"
        "  for (let i = 1; i < s.length - 1; i++)\n"
        "    if (s[i + 1] - s[i] < best[1] - best[0]) best = [s[i], s[i + 1]];\n  return best;\n}\n",
    22: "  return values.filter(v => Number.isInteger(v));\n}\n",
    23: "  return string.length;\n}\n",
    25: "  const f = [];\n  for (let d = 2; d * d <= n; d++) while (n % d === 0) { f.push(d); n /= d; }\n"
        "  if (n > 1) f.push(n);\n  return f;\n}\n",
    45: "  return a * h / 2;\n}\n",
    52: "  return l.every(x => x < t);\n}\n",
    64: "  const v = [...s.toLowerCase()].filter(c => 'aeiou'.includes(c)).length;\n"
        "  return v + (/[yY]$/.test(s) ? 1 : 0);\n}\n",
    72: "  const sum = q.reduce((a, b) => a + b, 0);\n"
        "  return sum <= w && q.join(',') === [...q].reverse().join(',');\n}\n",
    111: "  const counts = {};\n  for (const w of test.split(' ')) if (w) counts[w] = (counts[w] || 0) + 1;\n"
         "  const most = Math.max(0, ...Object.values(counts));\n"
         "  return Object.fromEntries(Object.entries(counts).filter(([, c]) => c === most));\n}\n",
    148: "  const p = ['Mercury', 'Venus', 'Earth', 'Mars', 'Jupiter', 'Saturn', 'Uranus', 'Neptune'];\n"
         "  const i = p.indexOf(planet1), j = p.indexOf(planet2);\n"
         "  if (i < 0 || j < 0 || i === j) return [];\n"
         "  return i < j ? p.slice(i + 1, j) : p.slice(j + 1, i);\n}\n",
}

# Plausible mistakes: each must fail at least one translated test.
WRONG = {
    0: "  for (let i = 0; i + 1 < numbers.length; i++)\n"
       "    if (Math.abs(numbers[i] - numbers[i + 1]) < threshold) return true;\n  return false;\n}\n",
    12: "  if (strings.length === 0) return undefined;\n"
        "  return strings.reduce((a, s) => (s.length >= a.length ? s : a));\n}\n",
    23: "  return string.length + (string.length > 5 ? 1 : 0);\n}\n",
    45: "  return Math.floor(a * h / 2);\n}\n",
    111: "  const counts = {};\n  for (const w of test.split(' ')) if (w) counts[w] = (counts[w] || 0) + 1;\n"
         "  return counts;\n}\n",
}


def _node():
    require_binaries("node")  # skips with one line, or fails under CI=true
    return shutil.which("node")


def _run_js(task, completion, tmp_path) -> list:
    """The JSON results (None for a non-JSON line) of running every translated test of `task` with node."""
    runner = (
        task.prompt + completion
        + f"\nconst __cases = [{', '.join(t.source for t in task.tests)}];\n"
        + "for (const __args of __cases) {\n  let __out;\n"
        + f"  try {{ __out = JSON.stringify({task.entry_point}(...__args)); }} catch (e) {{ __out = 'ERROR'; }}\n"
        + "  console.log(__out === undefined ? 'undefined' : __out);\n}\n"
    )
    path = tmp_path / "run.js"
    path.write_text(runner)
    proc = subprocess.run([_node(), str(path)], capture_output=True, text=True, timeout=30)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert len(lines) == len(task.tests)
    return [_decode(line) for line in lines]


def _decode(line: str):
    try:
        return json.loads(line)
    except json.JSONDecodeError:
        return ("not JSON", line)


def _matches(got, want, tol) -> bool:
    """JSON equality, type-aware (true is not 1), floats within `tol` when the task sets one."""
    if isinstance(want, bool) or want is None or isinstance(want, str):
        return type(got) is type(want) and got == want
    if isinstance(want, (int, float)):
        if isinstance(got, bool) or not isinstance(got, (int, float)):
            return False
        return got == want or (tol is not None and math.isclose(got, want, rel_tol=tol, abs_tol=tol))
    if isinstance(want, list):
        return isinstance(got, list) and len(got) == len(want) and all(_matches(g, w, tol) for g, w in zip(got, want))
    if isinstance(want, dict):
        return isinstance(got, dict) and got.keys() == want.keys() and all(_matches(got[k], want[k], tol) for k in want)
    return False


def _failures(task, completion, tmp_path) -> list[str]:
    results = _run_js(task, completion, tmp_path)
    return [
        f"test {t.id}: got {got!r}, expected {t.expected!r}"
        for t, got in zip(task.tests, results)
        if not _matches(got, t.expected, task.float_tolerance)
    ]


@pytest.mark.parametrize("number", sorted(GOOD))
def test_correct_javascript_solutions_pass(by_id, tmp_path, number):
    task = by_id[f"HumanEval-js/{number}"]
    assert _failures(task, GOOD[number], tmp_path) == []


@pytest.mark.parametrize("number", sorted(WRONG))
def test_wrong_javascript_solutions_fail(by_id, tmp_path, number):
    task = by_id[f"HumanEval-js/{number}"]
    assert _failures(task, WRONG[number], tmp_path) != []


def test_the_matcher_is_type_aware_and_tolerant_only_with_a_tolerance():
    assert _matches(7.5000001, 7.5, 1e-6) and not _matches(7.5000001, 7.5, None)
    assert not _matches(1, True, None) and not _matches(0, None, None)
    assert _matches(2, 2.0, None) and _matches({"a": [1]}, {"a": [1]}, None)
