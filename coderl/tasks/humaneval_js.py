"""HumanEval -> JavaScript: translate a Python HumanEval `Task` into a JavaScript function task.

In the spirit of MultiPL-E: the prompt keeps the natural-language docstring (as a JSDoc comment, with
Python terms rewritten) and ends in an open `function name(params){` header that the completion
continues and closes.  Tests are not translated to JavaScript code: each test is the JSON text of
the argument list, which a trusted harness applies the entry point to (`CheckKind.JSON`); the
parent compares the decoded value with `TestCase.expected`.  So only tests that are plain data
translate: `candidate(<JSON literals>)` judged EQUALS / IS / TRUTHY / FALSY against a JSON value.
A task with any other test (ASSERT, setup code, a non-literal argument) is skipped with a one-line
reason, never translated partially: dropping tests would weaken the task silently.

Split: `coderl.tasks.split` splits by task id over the whole id list, so "HumanEval-js/N" ids of a
subset would shuffle differently.  Each JS task keeps `metadata["split_key"]` = its source id, and
`split_humaneval_js` holds a JS task out exactly when `test_ids` over ALL source ids holds out its
source: the same seed and fraction put a translated task in the same split as its Python original.
"""

from __future__ import annotations

import ast
import inspect
import json
import math
import operator
import os
import re
from collections.abc import Sequence
from typing import Any

from coderl.sandbox.types import CheckKind, TestCase
from coderl.tasks.prompt_code import parse_prompt
from coderl.tasks.split import SPLITS, test_ids
from coderl.tasks.types import Task

FLOAT_TOLERANCE = 1e-6
MAX_SAFE_INT = 2**53 - 1  # beyond it a JavaScript number loses integer precision
_TRANSLATABLE = (CheckKind.EQUALS, CheckKind.IS, CheckKind.TRUTHY, CheckKind.FALSY)
_FOLDS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Pow: operator.pow}
_TYPE_INSPECTION_RE = re.compile(r"\bisinstance\s*\(|\btype\s*\(|\.is_integer\s*\(")
JS_RESERVED = frozenset(
    "arguments await break case catch class const continue debugger default delete do else enum eval "
    "export extends false finally for function if implements import in instanceof interface let new "
    "null package private protected public return static super switch this throw true try typeof "
    "undefined var void while with yield".split()
)

# Python terms in docstrings -> JavaScript terms (whole words; a word that names a parameter stays).
_ARTICLE_RE = re.compile(r"\b([Aa]) (list|tuple|dictionary)\b")
_WORDS = {"True": "true", "False": "false", "None": "null", "Python": "JavaScript", "python": "JavaScript",
          "list": "array", "lists": "arrays", "List": "Array", "Lists": "Arrays", "tuple": "array",
          "tuples": "arrays", "Tuple": "Array", "Tuples": "Arrays", "dictionary": "object",
          "dictionaries": "objects", "Dictionary": "Object"}
_WORD_RE = re.compile(r"\b(" + "|".join(sorted(_WORDS, key=len, reverse=True)) + r")\b")
_ARTICLE_NOUN = {"list": "n array", "tuple": "n array", "dictionary": "n object"}

_SIMPLE_TYPES = {"int": "number", "float": "number", "str": "string", "bool": "boolean", "None": "null",
                 "list": "Array", "List": "Array", "tuple": "Array", "Tuple": "Array",
                 "dict": "Object", "Dict": "Object"}


class _Untranslatable(ValueError):
    """Why a task (or test, or value) does not translate to JavaScript; the message is one line."""


def json_value(value: Any) -> Any:
    """`value` as the JSON-decoded value it equals (tuples -> lists); `_Untranslatable` when it has none."""
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, int):
        if abs(value) > MAX_SAFE_INT:
            raise _Untranslatable(f"integer {value} is beyond JavaScript's safe integer range")
        return value
    if isinstance(value, float):
        if not math.isfinite(value):
            raise _Untranslatable(f"float {value!r} has no JSON form")
        return value
    if isinstance(value, (list, tuple)):
        return [json_value(v) for v in value]
    if isinstance(value, dict):
        if not all(isinstance(k, str) for k in value):
            raise _Untranslatable("dict has a non-string key")
        return {k: json_value(v) for k, v in value.items()}
    raise _Untranslatable(f"{type(value).__name__} is not a JSON type")


def contains_float(value: Any) -> bool:
    """Does a JSON value hold a float anywhere (it then needs a float tolerance)?"""
    if isinstance(value, float):
        return True
    if isinstance(value, list):
        return any(contains_float(v) for v in value)
    if isinstance(value, dict):
        return any(contains_float(v) for v in value.values())
    return False


def _integral_float(value: Any) -> float | None:
    """The first float with an integer value (3.0) in a JSON value: JavaScript cannot tell it from 3."""
    if isinstance(value, float) and value.is_integer():
        return value
    items = value if isinstance(value, list) else value.values() if isinstance(value, dict) else ()
    return next((f for f in map(_integral_float, items) if f is not None), None)


def call_arguments(source: str) -> list[Any]:
    """The JSON argument list of `candidate(<literals>)`; `_Untranslatable` when the source is not that."""
    try:
        node = ast.parse(source.strip(), mode="eval").body
    except SyntaxError:
        raise _Untranslatable("source is not a Python expression") from None
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "candidate"):
        raise _Untranslatable("source is not a call of candidate")
    if node.keywords or any(isinstance(a, ast.Starred) for a in node.args):
        raise _Untranslatable("call has keyword or starred arguments")
    args = []
    for arg in node.args:
        try:
            args.append(json_value(literal(arg)))
        except _Untranslatable as e:
            raise _Untranslatable(f"argument is not a JSON literal ({e})") from None
        except (ValueError, TypeError, ArithmeticError, RecursionError):
            raise _Untranslatable(f"argument {ast.unparse(arg)[:40]} is not a JSON literal") from None
    return args


def literal(node: ast.expr) -> Any:
    """The value of a literal (as `ast.literal_eval`), also folding + - * ** of number and string
    constants (HumanEval writes `candidate(3 * 19)`); ValueError for anything else."""
    if isinstance(node, ast.Constant) and not isinstance(node.value, (bytes, complex)):
        return node.value
    if isinstance(node, (ast.List, ast.Tuple)):
        return [literal(e) for e in node.elts]
    if isinstance(node, ast.Dict) and None not in node.keys:
        return {literal(k): literal(v) for k, v in zip(node.keys, node.values)}  # type: ignore[arg-type]
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        value = literal(node.operand)
        if _number(value):
            return -value if isinstance(node.op, ast.USub) else value
    if isinstance(node, ast.BinOp) and type(node.op) in _FOLDS:
        left, right = literal(node.left), literal(node.right)
        if _number(left) and _number(right) and not (isinstance(node.op, ast.Pow) and abs(right) > 64):
            return _FOLDS[type(node.op)](left, right)
        if isinstance(node.op, ast.Add) and isinstance(left, str) and isinstance(right, str):
            return left + right
        times = right if isinstance(left, str) else left
        if isinstance(node.op, ast.Mult) and {type(left), type(right)} == {str, int} and 0 <= times <= 10_000:
            return left * right
    raise ValueError("not a literal")


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def expected_value(test: TestCase) -> Any:
    """The JSON value a translated test expects: EQUALS/IS their value, TRUTHY true, FALSY false."""
    if test.check is CheckKind.TRUTHY:
        return True
    if test.check is CheckKind.FALSY:
        return False
    try:
        return json_value(test.expected)
    except _Untranslatable as e:
        raise _Untranslatable(f"expected value is not JSON ({e})") from None


def _inert_preamble(preamble: str) -> bool:
    """Is the test preamble only literal assignments and strings (HumanEval's `METADATA = {...}`)?"""
    try:
        body = ast.parse(preamble).body
    except SyntaxError:
        return False
    for stmt in body:
        if isinstance(stmt, ast.Pass) or (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant)):
            continue
        if not (isinstance(stmt, ast.Assign) and all(isinstance(t, ast.Name) for t in stmt.targets)):
            return False
        try:
            ast.literal_eval(stmt.value)
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            return False
    return True


def _inspects_types(task: Task) -> bool:
    """Does the task's code look at value types (then 3.0 and 3 may differ, as in HumanEval/92)?"""
    return bool(_TYPE_INSPECTION_RE.search((task.reference_solution or "") + task.prompt))


def translate_tests(task: Task) -> tuple[TestCase, ...]:
    """The JSON tests of a task; `_Untranslatable` ("test ID: why") at the first that does not translate."""
    out = []
    for test in task.tests:
        try:
            if test.check is CheckKind.ASSERT:
                raise _Untranslatable("an assert statement, not a value check of candidate(...)")
            if test.check not in _TRANSLATABLE:
                raise _Untranslatable(f"a {test.check.value} check, not a value check of candidate(...)")
            if test.setup.strip():
                raise _Untranslatable("has setup code")
            args = call_arguments(test.source)
            expected = expected_value(test)
            whole = _integral_float(args)
            if whole is not None and _inspects_types(task):
                raise _Untranslatable(f"argument {whole!r} is an integral float and the task inspects types")
        except _Untranslatable as e:
            raise _Untranslatable(f"test {test.id}: {e}") from None
        out.append(TestCase(id=test.id, source=json.dumps(args), check=CheckKind.JSON, expected=expected,
                            hidden=test.hidden))
    return tuple(out)


def _entry_function(task: Task) -> tuple[ast.FunctionDef, list[str]]:
    """The entry point's `def` in the prompt and the names of the prompt's other functions."""
    parsed = parse_prompt(task.prompt)
    if parsed is None:
        raise _Untranslatable("prompt is not valid Python")
    defs = [n for n in parsed[0].body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
    entry = [d for d in defs if d.name == task.entry_point]
    if len(entry) != 1 or not isinstance(entry[0], ast.FunctionDef):
        raise _Untranslatable(f"prompt does not define {task.entry_point} once as a plain function")
    return entry[0], [d.name for d in defs if d.name != task.entry_point]


def docstring(fn: ast.FunctionDef) -> str | None:
    """The function's docstring, cleaned; also one that follows leading imports (HumanEval/115)."""
    for stmt in fn.body:
        if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant) and isinstance(stmt.value.value, str):
            return inspect.cleandoc(stmt.value.value)
        if not isinstance(stmt, (ast.Import, ast.ImportFrom)):
            return None
    return None


def parameters(fn: ast.FunctionDef) -> list[ast.arg]:
    """The function's parameters; `_Untranslatable` for a signature JavaScript would call differently."""
    a = fn.args
    if a.vararg or a.kwarg or a.kwonlyargs or a.defaults:
        raise _Untranslatable(f"{fn.name} has default, variadic or keyword-only parameters")
    params = a.posonlyargs + a.args
    for p in [fn.name] + [p.arg for p in params]:
        if p in JS_RESERVED or not re.fullmatch(r"[A-Za-z_$][A-Za-z0-9_$]*", p):
            raise _Untranslatable(f"name {p!r} is not a usable JavaScript identifier")
    return params


def js_type(annotation: ast.expr | None) -> str:
    """A JSDoc type for a Python annotation (`List[int]` -> `Array<number>`); `any` when unknown."""
    if annotation is None:
        return "any"
    if isinstance(annotation, ast.Constant):
        if annotation.value is None:
            return "null"
        if isinstance(annotation.value, str):
            try:
                return js_type(ast.parse(annotation.value, mode="eval").body)
            except SyntaxError:
                return "any"
        return "any"
    if isinstance(annotation, ast.BinOp) and isinstance(annotation.op, ast.BitOr):
        return f"{js_type(annotation.left)}|{js_type(annotation.right)}"
    name = _type_name(annotation)
    if name is not None:
        return _SIMPLE_TYPES.get(name, "any")
    if not isinstance(annotation, ast.Subscript):
        return "any"
    base = _type_name(annotation.value)
    inner = annotation.slice
    items = list(inner.elts) if isinstance(inner, ast.Tuple) else [inner]
    if base in ("List", "list", "Sequence", "Iterable") and len(items) == 1:
        return f"Array<{js_type(items[0])}>"
    if base in ("Dict", "dict", "Mapping") and len(items) == 2:
        return f"Object<{js_type(items[0])}, {js_type(items[1])}>"
    if base == "Optional" and len(items) == 1:
        return f"{js_type(items[0])}|null"
    if base == "Union":
        return "|".join(js_type(i) for i in items)
    return _SIMPLE_TYPES.get(base or "", "any")


def _type_name(node: ast.expr) -> str | None:
    """`int` for `int` and for `typing.int`-style attributes; None for anything else."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return None


def js_text(text: str, keep: frozenset[str] = frozenset()) -> str:
    """Docstring text with Python terms rewritten conservatively (whole words; names in `keep` stay)."""
    text = _ARTICLE_RE.sub(
        lambda m: m.group(0) if m.group(2) in keep else m.group(1) + _ARTICLE_NOUN[m.group(2)], text
    )
    return _WORD_RE.sub(lambda m: m.group(0) if m.group(0) in keep else _WORDS[m.group(0)], text)


def js_prompt(name: str, doc: str, params: Sequence[ast.arg], returns: ast.expr | None) -> str:
    """A JSDoc comment (docstring lines, @param, @returns) and the open header `function name(...){`."""
    keep = frozenset(p.arg for p in params)
    lines = [line.rstrip() for line in js_text(doc, keep).replace("*/", "* /").strip("\n").splitlines()]
    lines += [f"@param {{{js_type(p.annotation)}}} {p.arg}" for p in params]
    lines.append(f"@returns {{{js_type(returns)}}}")
    body = "".join(f" * {line}\n" if line else " *\n" for line in lines)
    return f"/**\n{body} */\nfunction {name}({', '.join(p.arg for p in params)}){{\n"


def js_task_id(task_id: str) -> str:
    """`HumanEval/12` -> `HumanEval-js/12`."""
    return "HumanEval-js/" + task_id.rpartition("/")[2]


def _translate(task: Task) -> Task:
    if task.kind != "function" or task.language != "python" or not task.entry_point:
        raise _Untranslatable("not a Python function task")
    if task.test_preamble.strip() and not _inert_preamble(task.test_preamble):
        raise _Untranslatable("test preamble runs code the tests may depend on")
    if not task.tests:
        raise _Untranslatable("task has no tests")
    fn, others = _entry_function(task)
    doc = docstring(fn)
    if not doc:
        raise _Untranslatable("prompt has no docstring")
    used = [o for o in others if re.search(rf"\b{re.escape(o)}\b", doc)]
    if used:
        raise _Untranslatable(f"docstring relies on prompt helper {used[0]}")
    params = parameters(fn)
    tests = translate_tests(task)
    floats = any(contains_float(t.expected) for t in tests)
    return Task(
        task_id=js_task_id(task.task_id),
        kind="function",
        prompt=js_prompt(fn.name, doc, params, fn.returns),
        tests=tests,
        entry_point=task.entry_point,
        reference_solution=None,
        float_tolerance=FLOAT_TOLERANCE if floats else None,
        source=task.task_id,
        metadata={"format": "humaneval-js", "source_task": task.task_id, "split_key": task.task_id},
        language="javascript",
    )


def translate(task: Task) -> Task | str:
    """The JavaScript task translated from a Python HumanEval task, or a one-line reason it cannot be."""
    try:
        return _translate(task)
    except _Untranslatable as e:
        return str(e)


def load_humaneval_js(path: str | os.PathLike[str] | None = None) -> tuple[list[Task], dict[str, str]]:
    """(translated tasks in HumanEval order, {source task id: why skipped}); `None` = bundled HumanEval."""
    from coderl.tasks.humaneval import load_humaneval

    tasks: list[Task] = []
    skipped: dict[str, str] = {}
    for task in load_humaneval(path):
        result = translate(task)
        if isinstance(result, str):
            skipped[task.task_id] = result
        else:
            tasks.append(result)
    return tasks, skipped


def split_key(task: Task) -> str:
    """The id whose split membership a task follows: its source task's for a translated task."""
    return task.metadata.get("split_key", task.task_id)


def split_humaneval_js(
    tasks: Sequence[Task],
    split: str = "all",
    seed: int = 0,
    test_fraction: float = 0.2,
    source_ids: Sequence[str] | None = None,
) -> list[Task]:
    """The translated tasks of `split`: each lands where `split_tasks` puts its source task among ALL
    `source_ids` (default: the bundled HumanEval's ids), not where a split of the subset would."""
    if split not in SPLITS:
        raise ValueError(f"unknown split {split!r} (expected one of: {', '.join(SPLITS)})")
    if split == "all":
        return list(tasks)
    if source_ids is None:
        from coderl.tasks.humaneval import load_humaneval

        source_ids = [t.task_id for t in load_humaneval()]
    held_out = test_ids(source_ids, seed, test_fraction)
    want_test = split == "test"
    return [t for t in tasks if (split_key(t) in held_out) == want_test]
