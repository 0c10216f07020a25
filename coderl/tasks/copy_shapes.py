"""Tests whose verdict depends on sharing between the test and the program (issue 99 item 3), found at load.

Values cross between the judge and the program as copies (docs/sandbox.md, "Known gaps"): a list a program returns
is the test's own copy, an argument the program keeps is the program's own copy.  In one Python process they would
be one object, so a test that changes one of them and then looks at the other can tell a program that copies from one
that shares; here it cannot, and a lazy program (one that returns its internal list, keeps its argument, returns a
shallow copy) passes.  `copy_shape` finds those tests in a task's test code so the loader refuses the task, naming
the test and the line:

* a name a program **call returned** (a function's or a method's result: maybe the program's own object, maybe
  its argument) or a name **given to a program call** (it may keep it) is changed in place by the test -- an item or
  attribute set or deleted, an augmented assignment, a mutating method (`append`, `update`, `sort`, ...) --
* and after that the test calls the program again or reads another name that took part in a program call
  (the argument, the result, the object).

A value the test changes and then only reads itself is a copy in both worlds (no refusal); so is a program object
(a handle: what the test sets on it goes to the program).  The rule over-approximates on purpose: a refused task is
said in one line, a task that would pass a lazy program is silent.
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Iterable
from typing import NamedTuple

MUTATING = frozenset({"append", "extend", "insert", "pop", "remove", "clear", "sort", "reverse", "update", "add",
                      "discard", "setdefault", "popitem", "appendleft", "extendleft", "popleft", "rotate",
                      "difference_update", "intersection_update", "symmetric_difference_update", "__setitem__",
                      "__delitem__", "__iadd__"})


def _root(node: ast.AST) -> str | None:
    """The name an expression hangs from: `a` of `a.b[c].d(...)`."""
    while isinstance(node, (ast.Attribute, ast.Subscript, ast.Call)):
        node = node.func if isinstance(node, ast.Call) else node.value
    return node.id if isinstance(node, ast.Name) else None


class _Block:
    """One test's statements, walked in source order."""

    def __init__(self, program: set[str], classes: set[str]):
        self.program, self.classes = set(program), set(classes)
        self.returned: set[str] = set()  # bound to what a program function or method returned
        self.given: set[str] = set()  # passed to a program call
        self.objects: set[str] = set()  # a program object: a class instance (what is set on it goes to the program)
        self.changed: tuple[str, int] | None = None  # (name, line) of the first in-place change of such a name

    def shared(self) -> set[str]:
        return self.returned | self.given | self.objects

    def program_call(self, node: ast.Call) -> bool:
        root = _root(node.func)
        return root is not None and (root in self.program or root in self.objects)

    def run(self, statements: list[ast.stmt]) -> tuple[str, int] | None:
        nodes = sorted((n for s in statements for n in ast.walk(s) if hasattr(n, "lineno")),
                       key=lambda n: (n.lineno, n.col_offset))
        for node in nodes:
            found = self.visit(node)
            if found:
                return found
        return None

    def visit(self, node: ast.AST) -> tuple[str, int] | None:
        if isinstance(node, ast.Call) and self.program_call(node):
            if self.changed:
                return self.said("then calls the program again"), node.lineno
            for arg in [*node.args, *(k.value for k in node.keywords)]:
                if isinstance(arg, ast.Name) and arg.id not in self.objects:
                    self.given.add(arg.id)
        if isinstance(node, (ast.Assign, ast.AnnAssign)) and isinstance(node.value, ast.Call) \
                and self.program_call(node.value):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            callee = node.value.func
            made = isinstance(callee, ast.Name) and callee.id in self.classes
            for target in targets:
                for name in (t.id for t in ast.walk(target) if isinstance(t, ast.Name)):
                    (self.objects if made else self.returned).add(name)
        changed = self.change(node)
        if changed and changed in (self.returned | self.given) - self.objects and not self.changed:
            self.changed = (changed, node.lineno)
            return None
        if self.changed and isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) \
                and node.id in self.shared() and node.id != self.changed[0]:
            return self.said(f"then reads {node.id!r}"), node.lineno
        return None

    def said(self, after: str) -> str:
        name, line = self.changed
        return f"changes {name!r} (line {line}), which a program call returned or was given, {after}"

    @staticmethod
    def change(node: ast.AST) -> str | None:
        """The name a statement or call changes in place, or None."""
        targets = []
        if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
                return node.target.id  # `xs += [1]`: a list changes in place
        elif isinstance(node, ast.Delete):
            targets = node.targets
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in MUTATING:
            return _root(node.func.value)
        for target in targets:
            if isinstance(target, (ast.Subscript, ast.Attribute)):
                return _root(target)
        return None


def copy_shape(blocks: Iterable[tuple[str, list[ast.stmt]]], program: Iterable[str],
               classes: Iterable[str] = ()) -> str | None:
    """Why one of the tests (`(name, statements)` each) can tell a copy from a shared object (the first found), or
    None.  `program`: the names the judge takes from the program (the entry point, `candidate`); `classes`: those of
    them that are classes (what they build is a program object)."""
    for name, statements in blocks:
        found = _Block(set(program), set(classes)).run(statements)
        if found:
            why, line = found
            return (f"test {name} {why} (line {line}): values cross between the tests and the program as copies, so "
                    "this test cannot tell a program that shares from one that copies (docs/sandbox.md, \"Known "
                    "gaps\")")
    return None


class _Test(NamedTuple):  # what `function_task_blocks` reads of a test
    id: str
    setup: str | None
    source: str | None


def task_copy_shape(task) -> str | None:
    """`copy_shape` of a Python function or test-file task (None for any other).  Remembered by the task's content
    (its kind, code and tests): a set is checked at every load, and a pipeline's planning loads each set again and
    again (30 loads of 11 sets in a dry run of configs/cpu-recipe.yaml)."""
    if task.language != "python" or task.kind not in ("test_file", "function"):
        return None
    return _copy_shape_of(task.kind, task.test_preamble, tuple((t.id, t.setup, t.source) for t in task.tests),
                          task.prompt, task.reference_solution, task.entry_point)


@functools.lru_cache(maxsize=1 << 16)
def _copy_shape_of(kind: str, preamble: str, tests: tuple, prompt: str, reference: str | None,
                   entry_point: str | None) -> str | None:
    if kind == "test_file":
        from coderl.tasks.pytest_files import TestFileError, convert

        try:
            names = convert(preamble).names
        except TestFileError:
            return None  # refused on its own grounds elsewhere
        return copy_shape(test_file_blocks(preamble), names)
    if not entry_point:
        return None
    blocks = function_task_blocks([_Test(*t) for t in tests], preamble)
    from coderl.tasks.prompt_code import program_names

    names, is_class = program_names(prompt, reference, entry_point)
    entry = entry_point.partition(".")[0]
    return copy_shape(blocks, {*names, entry, "candidate"}, {entry, "candidate"} if is_class else ())


def refuse_copy_shapes(tasks: list, skipped: list[str] | None) -> list:
    """`tasks` without those whose tests check sharing (`task_copy_shape`): each said on `skipped` where bad rows are
    skipped (`--skip-bad-rows`), else the first one stops the load (TaskFormatError, one line)."""
    from coderl.tasks.types import TaskFormatError

    kept = []
    for task in tasks:
        why = task_copy_shape(task)
        if why is None:
            kept.append(task)
        elif skipped is None:
            raise TaskFormatError(f"{task.source or task.task_id}: {why}")
        else:
            skipped.append(f"{task.source or task.task_id}: {why}")
    return kept


def function_task_blocks(tests, preamble: str = "") -> list[tuple[str, list[ast.stmt]]]:
    """A function task's tests as blocks: each test's setup and source (the preamble's module-level statements first,
    which every test shares)."""
    def parse(text: str) -> list[ast.stmt]:
        try:
            return ast.parse(text).body
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return []
    shared = [s for s in parse(preamble) if not isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef,
                                                                ast.ClassDef))]
    return [(t.id, shared + parse(t.setup or "") + parse(t.source or "")) for t in tests]


def test_file_blocks(text: str) -> list[tuple[str, list[ast.stmt]]]:
    """A test file's test functions and `Test*` methods as blocks (the fixtures they ask for are not followed)."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return []
    out = []
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name.startswith("test"):
            out.append((node.name, node.body))
        elif isinstance(node, ast.ClassDef) and node.name.startswith("Test"):
            out += [(f"{node.name}::{m.name}", m.body) for m in node.body
                    if isinstance(m, ast.FunctionDef) and m.name.startswith("test")]
    return out
