"""Mutants of a reference solution: small, plausible bugs that a task's tests must catch.

A mutant changes one place of the reference's body.  The operators, by the bug class they model:

    constant     an integer literal k -> k + 1 and k - 1; a one-character string -> another one
    off_by_one   < <-> <=, > <-> >=; the stop of range(...) e -> e - 1 and e + 1
    branch       `if c` -> `if not c` (statements and comprehension filters); `a if c else b` ->
                 `b if c else a`; == <-> !=; in <-> not in;
                 `and` <-> `or`; `not x` -> `x`; min <-> max; any <-> all
    edge_case    an `if` without `else` that returns, raises, breaks or continues is deleted (the
                 guard for an edge case); one operand of an `and`/`or` is dropped
    arithmetic   + <-> -, * -> +, // <-> %, unary minus dropped
    call         sorted(x)/reversed(x)/abs(x)/set(x)/list(x) -> x; x.strip()/lower()/upper() -> x

Tests "reject" a mutant when the mutant's program fails at least one test (or fails to run).  A
mutant may be equivalent to the reference (no test can tell them apart), which is why the bar is a
number of rejected mutants, not all of them.  The docstring of the reference (if any) is never
mutated.  `mutants(task)` works for any HumanEval-layout task with a reference solution whose
entry point is a module-level function or class.
"""

from __future__ import annotations

import ast
import copy
import textwrap
from collections.abc import Iterator
from dataclasses import dataclass

from coderl.tasks.types import Task

_SWAP_COMPARE = {ast.Lt: ast.LtE, ast.LtE: ast.Lt, ast.Gt: ast.GtE, ast.GtE: ast.Gt}
_FLIP_COMPARE = {ast.Eq: ast.NotEq, ast.NotEq: ast.Eq, ast.In: ast.NotIn, ast.NotIn: ast.In,
                 ast.Is: ast.IsNot, ast.IsNot: ast.Is}
_ARITH = {ast.Add: (ast.Sub,), ast.Sub: (ast.Add,), ast.Mult: (ast.Add,), ast.FloorDiv: (ast.Mod,),
          ast.Mod: (ast.FloorDiv,)}
_SWAP_CALL = {"min": "max", "max": "min", "any": "all", "all": "any"}
_UNWRAP_CALL = {"sorted", "reversed", "abs", "set", "list"}
_UNWRAP_METHOD = {"strip", "lower", "upper", "lstrip", "rstrip"}


@dataclass(frozen=True)
class Mutant:
    index: int  # the edit's number among the reference's edits (stable for a given reference)
    operator: str  # constant | off_by_one | branch | edge_case | arithmetic | call
    line: int  # line of the change within the reference solution (1-based)
    description: str
    completion: str  # the mutated reference solution


def _exits(stmts: list[ast.stmt]) -> bool:
    return any(isinstance(n, (ast.Return, ast.Raise, ast.Break, ast.Continue)) for s in stmts for n in ast.walk(s))


def _edits(node: ast.AST) -> Iterator[tuple[str, str, object]]:
    """(operator, description, replacement) for one node; the replacement is a new node, or the
    string "delete" for a statement to remove."""
    if isinstance(node, ast.Constant) and type(node.value) is int:
        for delta in (1, -1):
            yield "constant", f"{node.value} -> {node.value + delta}", ast.Constant(node.value + delta)
    elif isinstance(node, ast.Constant) and isinstance(node.value, str) and len(node.value) == 1:
        other = "a" if node.value != "a" else "b"
        yield "constant", f"{node.value!r} -> {other!r}", ast.Constant(other)
    elif isinstance(node, ast.Compare):
        for i, op in enumerate(node.ops):
            for table, operator in ((_SWAP_COMPARE, "off_by_one"), (_FLIP_COMPARE, "branch")):
                if type(op) in table:
                    new = copy.deepcopy(node)
                    new.ops[i] = table[type(op)]()
                    yield operator, f"{type(op).__name__} -> {table[type(op)].__name__}", new
    elif isinstance(node, ast.If):
        if not (isinstance(node.test, ast.UnaryOp) and isinstance(node.test.op, ast.Not)):  # else: `not` dropped
            new = copy.deepcopy(node)
            new.test = ast.UnaryOp(ast.Not(), new.test)
            yield "branch", "condition negated", new
        if not node.orelse and _exits(node.body):
            yield "edge_case", "guard deleted", "delete"
    elif isinstance(node, ast.comprehension) and node.ifs:
        for i in range(len(node.ifs)):
            new = copy.deepcopy(node)
            new.ifs[i] = ast.UnaryOp(ast.Not(), new.ifs[i])
            yield "branch", f"comprehension filter {i + 1} negated", new
    elif isinstance(node, ast.IfExp):
        yield "branch", "branches swapped", ast.IfExp(node.test, node.orelse, node.body)
    elif isinstance(node, ast.BoolOp):
        other = ast.Or() if isinstance(node.op, ast.And) else ast.And()
        yield "branch", f"{type(node.op).__name__} -> {type(other).__name__}", ast.BoolOp(other, node.values)
        for i in range(len(node.values)):
            rest = node.values[:i] + node.values[i + 1 :]
            yield "edge_case", f"operand {i + 1} of {type(node.op).__name__} dropped", (
                rest[0] if len(rest) == 1 else ast.BoolOp(node.op, rest))
    elif isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.Not, ast.USub)):
        yield ("branch" if isinstance(node.op, ast.Not) else "arithmetic"), "unary operator dropped", node.operand
    elif isinstance(node, (ast.BinOp, ast.AugAssign)) and type(node.op) in _ARITH:
        for op in _ARITH[type(node.op)]:
            new = copy.deepcopy(node)
            new.op = op()
            yield "arithmetic", f"{type(node.op).__name__} -> {op.__name__}", new
    elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
        name = node.func.id
        if name in _SWAP_CALL:
            swapped = ast.Call(ast.Name(_SWAP_CALL[name], ast.Load()), node.args, node.keywords)
            yield "branch", f"{name} -> {swapped.func.id}", swapped
        if name in _UNWRAP_CALL and len(node.args) == 1 and not node.keywords:
            yield "call", f"{name}(x) -> x", node.args[0]
        if name == "range" and node.args:
            for delta, sym in ((-1, ast.Sub), (1, ast.Add)):
                new = copy.deepcopy(node)
                stop = 1 if len(node.args) > 1 else 0
                new.args[stop] = ast.BinOp(new.args[stop], sym(), ast.Constant(1))
                yield "off_by_one", f"range stop {'-' if delta < 0 else '+'} 1", new
    elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and not node.args \
            and node.func.attr in _UNWRAP_METHOD:
        yield "call", f".{node.func.attr}() dropped", node.func.value


class _Apply(ast.NodeTransformer):
    """Apply edit number `target` (in `ast.walk`-free, depth-first visiting order) and stop."""

    def __init__(self, target: int, protected: set[int]):
        self.target, self.count, self.protected, self.done = target, 0, protected, None

    def generic_visit(self, node):
        if self.done is not None or id(node) in self.protected:
            return node
        for operator, description, replacement in _edits(node):
            if self.count == self.target:
                line = next((n.lineno for n in ast.walk(node) if hasattr(n, "lineno")), 0)  # comprehension: none
                self.done = (operator, line, description)
                if replacement == "delete":
                    return ast.Pass()
                return ast.copy_location(replacement, node)  # type: ignore[arg-type]
            self.count += 1
        return super().generic_visit(node)


def _target(task: Task) -> tuple[ast.Module, ast.FunctionDef | ast.ClassDef, int]:
    program = task.prompt + (task.reference_solution or "")
    module = ast.parse(program)
    for node in module.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)) and node.name == task.entry_point:
            return module, node, task.prompt.count("\n")
    raise ValueError(f"{task.task_id}: no module-level def/class {task.entry_point!r} in prompt + reference")


def _body_text(node: ast.FunctionDef | ast.ClassDef) -> str:
    body = node.body[1:] if ast.get_docstring(node, clean=False) is not None else node.body
    text = "\n".join(ast.unparse(stmt) for stmt in body)
    return textwrap.indent(text, "    ") + "\n"


def mutants(task: Task) -> list[Mutant]:
    """Every distinct mutant of the task's reference, in source order.

    HumanEval layout (the entry point is defined in the prompt): the completion is the mutated body.
    MBPP layout (the prompt is prose, the reference defines the function): the whole mutated reference."""
    if not task.reference_solution or task.entry_point is None:
        raise ValueError(f"{task.task_id}: no reference solution to mutate")
    _, original_node, prompt_lines = _target(task)
    whole = original_node.lineno > prompt_lines  # the def is in the reference, not the prompt

    def render(module: ast.Module, node) -> str:
        if not whole:
            return _body_text(node)
        return ast.unparse(ast.Module(body=[n for n in module.body if n.lineno > prompt_lines], type_ignores=[])) + "\n"

    seen = {render(*_target(task)[:2])}
    out: list[Mutant] = []
    k = 0
    while True:
        module, node, prompt_lines = _target(task)
        doc = node.body[0] if isinstance(node.body[0], ast.Expr) else None
        protected = {id(n) for n in ast.walk(doc)} if doc is not None else set()
        applier = _Apply(k, protected)
        node.body = [applier.visit(stmt) for stmt in node.body]
        if applier.done is None:
            return out
        k += 1
        operator, line, description = applier.done
        ast.fix_missing_locations(module)
        try:
            text = render(module, node)
            compile(task.prompt + text, "<mutant>", "exec")
        except (SyntaxError, ValueError):
            continue
        if text not in seen:
            seen.add(text)
            out.append(Mutant(k - 1, operator, max(line - prompt_lines, 1), description, text))
