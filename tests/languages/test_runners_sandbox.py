"""The runners of other languages end to end through the sandbox: every bundled reference passes and every
bundled wrong program loses what it is meant to lose (Verilog, JavaScript, Lua), the judging of values
printed by a harness (JSON) and of a testbench's tagged checks (TAGGED), user runner files' errors, and
Node.js under a memory limit it could not start under with RLIMIT_AS.

Every sandbox request of a group goes in one `run_many` (module-scoped fixtures), so the whole file stays
near half a minute on two CPUs."""

from __future__ import annotations

import dataclasses
import math
import os
from collections import Counter

import pytest

from coderl.languages.runner import Runner, RunnerMissing
from coderl.languages.user import RunnerFileError, load_runner_file, parse_runner
from coderl.rewards import PRESETS, RewardConfig, score
from coderl.sandbox.outputs import json_equal, tagged_outcomes, value_outcome
from coderl.sandbox.types import VALUE_MARKER, CheckKind, Limits, Status, TestCase
from coderl.tasks.spec import load_tasks
from tests.conftest import require_binaries
from tests.rewards.helpers import sample

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
LUA_RUNNER = os.path.join(REPO, "examples", "lua", "lua.yaml")
LUA_TASKS = os.path.join(REPO, "examples", "lua", "tasks.jsonl")
JS_FUNCTIONS = os.path.join(REPO, "tests", "fixtures", "tasks", "js_functions.jsonl")  # coderl's task layout
VERILOG_TOOLS = ("iverilog", "vvp", "yosys", "verilator")


def _why(result) -> str:
    bad = [t for t in result.tests if not t.passed][:2]
    return f"{result.status.value}: {result.message} {[(t.id, t.message) for t in bad]} {result.stderr[-300:]!r}"


@pytest.fixture(scope="module")
def lua_registered():
    """The example Lua runner, registered the way a user does it (CODERL_RUNNERS); the registry is
    process-global, so a second load of the same file is a no-op."""
    require_binaries("lua5.4")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("CODERL_RUNNERS", LUA_RUNNER)
        yield {"basics": list(load_tasks("stdio-basics:language=lua")), "examples": list(load_tasks(LUA_TASKS))}


# ---- Verilog: references, wrong variants, reward components ------------------------------------------


@pytest.fixture(scope="module")
def verilog(sandbox):
    """(entries, results): one entry (task, label, code) per reference ("reference") and per wrong variant
    (its `loses`), all run in one batch."""
    require_binaries(*VERILOG_TOOLS)
    tasks = list(load_tasks("verilog"))
    entries = []
    for task in tasks:
        entries.append((task, "reference", task.reference_solution))
        entries.extend((task, w["loses"], w["code"]) for w in task.metadata["wrong"])
    results = sandbox.run_many([task.build_request(code) for task, _, code in entries])
    return entries, results


def test_the_bundled_verilog_set(verilog):
    entries, _ = verilog
    tasks = {task.task_id for task, _, _ in entries}
    assert len(tasks) == 49
    kinds = Counter(label for _, label, _ in entries if label != "reference")
    assert set(kinds) == {"compile", "functional", "synthesis", "quality"}, kinds


def test_every_verilog_reference_passes_synthesises_and_lints_clean(verilog):
    bad = []
    for (task, label, _), result in zip(*verilog):
        if label != "reference":
            continue
        ok = (result.passed and result.fraction_passed == 1.0
              and all(t.id.startswith("sim/") for t in result.tests)
              and len(result.tests) == task.metadata["checks"]
              and result.reports["synthesis"]["status"] == "passed"
              and result.reports["lint"]["status"] == "passed"
              and "%Warning" not in result.reports["lint"]["stderr"])
        if not ok:
            bad.append((task.task_id, _why(result), {k: v["status"] for k, v in result.reports.items()}))
    assert bad == []


def _loses(label: str, result) -> bool:
    if label == "compile":
        return result.status is Status.BUILD_ERROR and all(t.status is Status.NOT_RUN for t in result.tests)
    if label == "functional":
        return result.status is not Status.BUILD_ERROR and not result.passed and result.fraction_passed < 1.0
    if label == "synthesis":
        return result.passed and result.reports["synthesis"]["status"] != "passed"
    if label == "quality":
        return (result.passed and result.reports["synthesis"]["status"] == "passed"
                and "%Warning" in result.reports["lint"]["stderr"])
    raise AssertionError(label)


@pytest.mark.parametrize("component", ["compile", "functional", "synthesis", "quality"])
def test_every_wrong_verilog_variant_loses_its_component(verilog, component):
    seen, bad = 0, []
    for (task, label, _), result in zip(*verilog):
        if label != component:
            continue
        seen += 1
        if not _loses(label, result):
            bad.append((task.task_id, _why(result), {k: v["status"] for k, v in result.reports.items()}))
    assert seen > 0
    assert bad == []


def _reward_rows(verilog, pick):
    """(task, label, result, sample) of the references and the variants `pick` keeps."""
    entries, results = verilog
    return [(task, label, result, sample(code, task=task)) for (task, label, code), result in zip(entries, results)
            if label == "reference" or pick(label)]


def _components_below_reference(rows, config) -> list:
    batch = score(config, [r for _, _, r, _ in rows], [s for _, _, _, s in rows], [t for t, _, _, _ in rows])
    reference = {task.task_id: i for i, (task, label, _, _) in enumerate(rows) if label == "reference"}
    bad = []
    for name, values in batch.components.items():  # a reference earns every component in full
        bad += [(name, rows[i][0].task_id, values[i]) for i in reference.values() if values[i] != 1.0]
    for i, (task, label, _, _) in enumerate(rows):
        if label == "reference":
            continue
        j = reference[task.task_id]
        if not batch.components[label][i] < batch.components[label][j]:
            bad.append((task.task_id, label, batch.components[label][i], batch.components[label][j]))
        if not batch.total[i] < batch.total[j]:
            bad.append((task.task_id, label, "total", batch.total[i], batch.total[j]))
    return bad


def test_the_reward_component_a_built_variant_loses_is_below_its_references(verilog):
    # The seed-003 preset (compile, functional, synthesis, quality) over every design that built.
    rows = _reward_rows(verilog, lambda label: label != "compile")
    assert {label for _, label, _, _ in rows} == {"reference", "functional", "synthesis", "quality"}
    assert _components_below_reference(rows, PRESETS["compile_functional_synthesis_quality"]()) == []


def test_a_variant_that_does_not_compile_loses_the_compile_reward(verilog):
    rows = _reward_rows(verilog, lambda label: label == "compile")
    # quality is left out here: a design that did not build has no lint report (the next test scores it)
    config = RewardConfig(weights={"compile": 0.4, "functional": 0.5, "synthesis": 0.3})
    assert _components_below_reference(rows, config) == []
    batch = score(config, [r for _, _, r, _ in rows], [s for _, _, _, s in rows], [t for t, _, _, _ in rows])
    assert all(batch.components[name][i] == 0.0 for name in batch.components
               for i, (_, label, _, _) in enumerate(rows) if label == "compile")


def test_the_verilog_preset_scores_a_design_that_does_not_build(verilog):
    # A batch of a training step holds designs that do not compile; the preset must score them (quality
    # 0.0, as its docstring says), not raise.
    rows = _reward_rows(verilog, lambda label: label == "compile")
    batch = score(PRESETS["compile_functional_synthesis_quality"](), [r for _, _, r, _ in rows], [s for _, _, _, s in rows],
                  [t for t, _, _, _ in rows])
    assert all(batch.components["quality"][i] == 0.0 for i, (_, label, _, _) in enumerate(rows) if label == "compile")


# ---- stdin/stdout basics in JavaScript, Lua and Python; JavaScript functions; the Lua examples ----------


@pytest.fixture(scope="module")
def basics(sandbox, lua_registered):
    require_binaries("node")
    js = list(load_tasks("stdio-basics:language=javascript"))
    lua = lua_registered["basics"]
    py = list(load_tasks("stdio-basics"))
    entries = ([("javascript", True, t, t.reference_solution) for t in js]
               + [("javascript", False, t, t.metadata["wrong"]) for t in js]
               + [("lua", True, t, t.reference_solution) for t in lua]
               + [("lua", False, t, t.metadata["wrong"]) for t in lua]
               + [("python", True, t, t.reference_solution) for t in py])
    results = sandbox.run_many([t.build_request(code) for _, _, t, code in entries])
    return entries, results


@pytest.mark.parametrize("language", ["javascript", "lua", "python"])
def test_every_stdio_basics_reference_passes(basics, language):
    rows = [(t.task_id, r) for (lang, good, t, _), r in zip(*basics) if lang == language and good]
    assert len(rows) == 16
    assert [(tid, _why(r)) for tid, r in rows if not r.passed] == []


@pytest.mark.parametrize("language", ["javascript", "lua"])
def test_every_stdio_basics_wrong_program_fails(basics, language):
    rows = [(t.task_id, code, r) for (lang, good, t, code), r in zip(*basics) if lang == language and not good]
    assert len(rows) == 16 and all(isinstance(code, str) and code.strip() for _, code, _ in rows)
    assert [tid for tid, _, r in rows if r.passed or r.status is Status.SANDBOX_ERROR] == []


# Completions of JavaScript function tasks (`JS_FUNCTIONS`: HumanEval problems in JavaScript, each an open
# `function name(params){` header that the completion continues and closes), judged by the values harness.
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
# Plausible mistakes: each must fail at least one test.
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


@pytest.fixture(scope="module")
def humaneval_js(sandbox):
    require_binaries("node")
    by_id = {t.task_id: t for t in load_tasks(JS_FUNCTIONS)}
    entries = [(n, True, body) for n, body in sorted(GOOD.items())] + [(n, False, body) for n, body in sorted(WRONG.items())]
    results = sandbox.run_many([by_id[f"HumanEval-js/{n}"].build_request(body) for n, _, body in entries])
    return entries, results


def test_humaneval_js_good_bodies_pass_in_the_sandbox(humaneval_js):
    rows = [(n, r) for (n, good, _), r in zip(*humaneval_js) if good]
    assert rows
    assert [(n, _why(r)) for n, r in rows if not r.passed] == []


def test_humaneval_js_wrong_bodies_fail_in_the_sandbox(humaneval_js):
    rows = [(n, r) for (n, good, _), r in zip(*humaneval_js) if not good]
    assert rows
    assert [(n, r.status.value) for n, r in rows if r.passed or r.status is Status.SANDBOX_ERROR] == []


def test_the_lua_example_tasks_pass_with_their_references(sandbox, lua_registered):
    tasks = lua_registered["examples"]
    assert len(tasks) == 6 and all(t.language == "lua" and t.reference_solution for t in tasks)
    results = sandbox.run_many([t.build_request(t.reference_solution) for t in tasks])
    assert [(t.task_id, _why(r)) for t, r in zip(tasks, results) if not r.passed] == []


# ---- JSON judging: json_equal and value_outcome -----------------------------------------------------------


@pytest.mark.parametrize("value, expected, tol, equal", [
    (3, 3, None, True),
    (3.0, 3, None, True),  # JSON has one number type
    (3, 3.0, None, True),
    (3, 4, None, False),
    (True, True, None, True),
    (True, 1, None, False),  # a boolean is never a number
    (1, True, None, False),
    (0, False, None, False),
    (False, 0.0, 0.5, False),  # not even within a tolerance
    (None, None, None, True),
    (None, 0, None, False),
    ("3", 3, None, False),
    ("a", "a", None, True),
    ([1, 2], (1, 2), None, True),  # an expected tuple is a JSON array
    ([1, 2], [1, 2], None, True),
    ([2, 1], (1, 2), None, False),
    ([1, 2], (1, 2, 3), None, False),
    ((1, 2), [1, 2], None, False),  # a decoded value is never a tuple
    ([[1, 2.0]], [(1, 2)], None, True),
    ({"a": 1}, {"a": 1}, None, True),
    ({"1": "x"}, {1: "x"}, None, True),  # expected keys compare as JSON's string keys
    ({"a": 1}, {"a": 1, "b": 2}, None, False),
    ({"a": 1, "b": 2}, {"a": 1}, None, False),
    ({"a": 2}, {"a": 1}, None, False),
    ([1], {"0": 1}, None, False),
    (0.1 + 0.2, 0.3, None, False),  # no tolerance: exact
    (0.1 + 0.2, 0.3, 1e-9, True),
    (1000.0005, 1000.0, 1e-6, True),  # the tolerance is relative past 1: 1e-6 * 1000
    (1.01, 1.0, 1e-6, False),
    (1e-7, 0.0, 1e-6, True),  # absolute below 1
    ([1.0000001, {"k": 2.0000001}], [1, {"k": 2}], 1e-6, True),
    (math.nan, math.nan, 1e-6, False),
    (math.inf, math.inf, None, True),
    (math.inf, 1e308, 1e-6, False),
])
def test_json_equal(value, expected, tol, equal):
    assert json_equal(value, expected, tol) is equal


def _run(stdout: str, cpu: float = 0.01) -> dict:
    return {"stdout": stdout, "stderr": "", "stdout_total": len(stdout.encode()), "cpu_seconds": cpu,
            "exit_code": 0, "signal": None, "killed": None}


def test_value_outcome_reads_the_last_marker_line():
    test = TestCase("0", "[1]", CheckKind.JSON, [1, 2])
    assert value_outcome(test, _run(f"noise\n{VALUE_MARKER}[9]\n{VALUE_MARKER}[1, 2.0]\n"), None).passed
    late = value_outcome(test, _run(f"{VALUE_MARKER}[1, 2]\n{VALUE_MARKER}[9]\n"), None)
    assert late.status is Status.FAILED and "got [9]" in late.message
    assert "no value" in value_outcome(test, _run("[1, 2]\n"), None).message
    assert "not JSON" in value_outcome(test, _run(f"{VALUE_MARKER}[1,\n"), None).message
    cut = _run(f"{VALUE_MARKER}[1, 2]\n")
    cut["stdout_total"] += 1  # the capture was cut short: the value seen may not be the last
    assert value_outcome(test, cut, None).status is Status.FAILED


# ---- TAGGED judging: tagged_outcomes ------------------------------------------------------------------------

NONCE = "abc123"
SIM = TestCase("sim", "", CheckKind.TAGGED, {"nonce": NONCE, "checks": [["y", "0"], ["y", "1"], ["q", "10"]]})


def _tagged(stdout: str, failure=None):
    return tagged_outcomes(SIM, _run(stdout), failure)


def test_tagged_checks_that_match_pass_one_outcome_each():
    out = _tagged(f"{NONCE} y 0\n{NONCE} y 1\n{NONCE} q 10\n")
    assert [(o.id, o.status) for o in out] == [("sim/0", Status.PASSED), ("sim/1", Status.PASSED),
                                                ("sim/2", Status.PASSED)]


def test_a_missing_tagged_check_fails():
    out = _tagged(f"{NONCE} y 0\n{NONCE} y 1\n")
    assert [o.status for o in out] == [Status.PASSED, Status.PASSED, Status.FAILED]
    assert "missing" in out[2].message


def test_each_extra_tagged_check_adds_a_failed_outcome():
    out = _tagged(f"{NONCE} y 0\n{NONCE} y 1\n{NONCE} q 10\n{NONCE} q 10\n{NONCE} z 1\n")
    assert [o.id for o in out] == ["sim/0", "sim/1", "sim/2", "sim/3", "sim/4"]
    assert [o.status for o in out] == [Status.PASSED] * 3 + [Status.FAILED] * 2
    assert all("extra check" in o.message for o in out[3:])


def test_a_wrong_value_or_label_fails_that_check_only():
    out = _tagged(f"{NONCE} y 0\n{NONCE} y 0\n{NONCE} r 10\n")
    assert [o.status for o in out] == [Status.PASSED, Status.FAILED, Status.FAILED]
    assert "got '0'" in out[1].message and "expected '1'" in out[1].message
    assert "labelled 'r'" in out[2].message


def test_lines_without_the_nonce_are_ignored():
    fake = "none y 0\nnone y 1\nnone q 10\nabc12 y 0\nabc1234 y 0\nxabc123 y 0\n abc123 y 0\nABC123 y 0\n"
    out = _tagged(fake)
    assert [o.status for o in out] == [Status.FAILED] * 3 and all("missing" in o.message for o in out)
    # interleaved with the real ones they change nothing
    out = _tagged(f"none y 1\n{NONCE} y 0\nnone y 0\n{NONCE} y 1\nabc12 q 11\n{NONCE} q 10\n")
    assert all(o.passed for o in out) and len(out) == 3


def test_a_failed_run_fails_every_check_with_its_status():
    good = f"{NONCE} y 0\n{NONCE} y 1\n{NONCE} q 10\n"
    out = _tagged(good, (Status.TIMEOUT, "CPU time limit of 1s"))
    assert [(o.id, o.status, o.message) for o in out] == [
        (f"sim/{k}", Status.TIMEOUT, "CPU time limit of 1s") for k in range(3)]
    out = _tagged(good, (Status.RUNTIME_ERROR, "exit code 1"))
    assert [o.status for o in out] == [Status.RUNTIME_ERROR] * 3
    cut = _run(good)
    cut["stdout_total"] += 10
    assert [o.status for o in tagged_outcomes(SIM, cut, None)] == [Status.FAILED] * 3


# ---- user runner files ----------------------------------------------------------------------------------------

GOOD_RUNNER = {"language": "coderltestlang", "source_file": "main.x", "run": ["cat", "{source}"]}


def test_a_missing_binary_is_one_line_naming_it():
    _, runner = parse_runner({**GOOD_RUNNER, "binaries": ["coderl-no-such-binary-42"], "install": "apt-get install x"},
                             "runner file /x.yaml")
    with pytest.raises(RunnerMissing) as info:
        runner.require()
    message = str(info.value)
    assert "\n" not in message and "coderl-no-such-binary-42" in message
    with pytest.raises(RunnerMissing):  # building a request checks too, before anything runs
        runner.request("x", (TestCase("0", "", CheckKind.STDOUT, ""),), Limits())
    # without `binaries`, the run command's program is the binary checked
    _, runner = parse_runner({**GOOD_RUNNER, "run": ["coderl-no-such-interpreter-42", "{source}"]}, "f")
    with pytest.raises(RunnerMissing, match="coderl-no-such-interpreter-42"):
        runner.require()


def test_a_good_runner_file_parses():
    language, runner = parse_runner(GOOD_RUNNER, "f")
    assert isinstance(runner, Runner) and runner.binaries == ("cat",) and runner.address_space is False
    assert language.name == "coderltestlang" and runner.argv(runner.run) == ("cat", "main.x")


@pytest.mark.parametrize("change, field", [
    ({"colour": "blue"}, "colour"),
    ({"judge": "foo"}, "judge"),
    ({"judge": "values"}, "harness"),
    ({"judge": "values", "harness": "main()"}, "harness"),
    ({"harness": "f({entry_point})"}, "harness"),  # a harness with judge stdout is never used
    ({"compile_error": "([unclosed"}, "compile_error"),
    ({"run": None}, "run"),
    ({"run": 5}, "run"),
    ({"language": None}, "language"),
    ({"language": "Not A Name"}, "language"),
    ({"source_file": ""}, "source_file"),
    ({"cpu_seconds": -1}, "cpu_seconds"),
    ({"address_space": "yes"}, "address_space"),
])
def test_a_bad_runner_field_is_one_line_naming_the_file_and_field(tmp_path, change, field):
    data = {k: v for k, v in {**GOOD_RUNNER, **change}.items() if v is not None}
    with pytest.raises(RunnerFileError) as info:
        parse_runner(data, "runner file /somewhere/r.yaml")
    message = str(info.value)
    assert "\n" not in message and "/somewhere/r.yaml" in message and field in message, message
    # the same through a real file: its path is named
    import yaml

    path = tmp_path / "bad.yaml"
    path.write_text(yaml.safe_dump(data))
    with pytest.raises(RunnerFileError) as info:
        load_runner_file(path)
    message = str(info.value)
    assert "\n" not in message and str(path) in message and field in message, message


def test_a_runner_file_that_is_missing_or_not_a_mapping_is_one_line(tmp_path):
    with pytest.raises(RunnerFileError, match="no such file") as info:
        load_runner_file(tmp_path / "absent.yaml")
    assert "\n" not in str(info.value)
    path = tmp_path / "list.yaml"
    path.write_text("- a\n- b\n")
    with pytest.raises(RunnerFileError) as info:
        load_runner_file(path)
    assert "\n" not in str(info.value) and str(path) in str(info.value)


# ---- Node.js under a memory limit ----------------------------------------------------------------------------

MEMORY = Limits(memory_bytes=512 * 2**20)


def test_node_runs_under_a_512_mib_memory_limit(sandbox):
    require_binaries("node")
    task = next(t for t in load_tasks("stdio-basics:language=javascript"))
    request = task.build_request(task.reference_solution, limits=MEMORY)
    assert request.limits.address_space is False and request.limits.memory_bytes == 512 * 2**20
    result = sandbox.run(request)
    assert result.passed, _why(result)


def test_node_allocating_without_bound_ends_at_the_memory_limit(sandbox):
    require_binaries("node")
    # the memory limit must end it, not the task's measured CPU limit (docs/tasks.md, "Time limits")
    task = dataclasses.replace(next(t for t in load_tasks("stdio-basics:language=javascript")), time_limit=None)
    hog = "const keep = [];\nwhile (true) keep.push(new Array(1e6).fill(1.5));\n"
    result = sandbox.run(task.build_request(hog, limits=Limits(memory_bytes=512 * 2**20, cpu_seconds=10)))
    assert result.status in (Status.MEMORY_EXCEEDED, Status.RUNTIME_ERROR), _why(result)
    assert result.max_rss_bytes < 1024 * 2**20  # stopped near 512 MiB, not at the machine's memory
