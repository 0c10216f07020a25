"""What a pytest node id names in a test file, read from the file's source: which tests a file defines, and which of
them go when one test is taken out of it (the generator's hidden test).

A node id is `path::[Class::...]name[parameters]`; the parameters may hold `::` themselves (`f[sum(a)::int]`), so the id
is split on `::` only before its first `[`. A method (or a nested class) counts as defined by a class when its body or a
base class defined in the same file (at module level or in an enclosing class) defines it, as Python's attribute lookup
and so pytest's collection find it (a subclass collects its bases' nested Test classes too); where a base comes from
elsewhere (`unittest.TestCase`, an import) and the name is not found in the file, the file alone cannot tell (None).
Checked against pytest's own collection on generated files (tests/tasks/repository/test_node_ids.py).
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Iterable

_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)


def node_parts(node_id: str) -> tuple[str, tuple[str, ...], str]:
    """(file, enclosing classes outermost first, function name without its parameters) of a node id."""
    head = node_id.partition("[")[0]
    path, *names = head.split("::")
    if not names:
        return path, (), ""
    return path, tuple(names[:-1]), names[-1]


@functools.lru_cache(maxsize=16)
def _module(source: str) -> ast.Module:
    return ast.parse(source)


_UNKNOWN = object()  # a name a base from elsewhere may bring


def _scope(body: list, outer: dict) -> dict[str, ast.ClassDef]:
    """The classes a base named in `body` can be: the module's and those of the class bodies around it."""
    return {**outer, **{n.name: n for n in body if isinstance(n, ast.ClassDef)}}


def _lookup(cls: ast.ClassDef, name: str, scope: dict, module: dict, seen: frozenset = frozenset()):
    """What attribute `name` of class `cls` is, as Python's lookup finds it through the bases this file defines:
    (the function or class node, the scope its own bases resolve in), None (it has none), or `_UNKNOWN`."""
    for node in cls.body:
        if isinstance(node, (*_FUNCTIONS, ast.ClassDef)) and node.name == name:
            return node, _scope(cls.body, scope)
    unknown = False
    for base in cls.bases:
        if isinstance(base, ast.Name) and base.id == "object":
            continue
        if isinstance(base, ast.Name) and base.id in scope and base.id not in seen:
            found = _lookup(scope[base.id], name, module, module, seen | {cls.name})
            if found is not None and found is not _UNKNOWN:
                return found
            unknown = unknown or found is _UNKNOWN
        else:
            unknown = True
    return _UNKNOWN if unknown else None


def defines_test(source: str, node_id: str) -> bool | None:
    """Whether the test file `source` defines the test `node_id` names: True, False, or None where the file alone
    cannot tell (module docstring)."""
    _, classes, name = node_parts(node_id)
    if not name:
        return None
    module = _module(source)
    if not classes:
        return any(isinstance(n, _FUNCTIONS) and n.name == name for n in module.body)
    top = _scope(module.body, {})
    cls, scope = top.get(classes[0]), top
    if cls is None:
        return False
    for part in (*classes[1:], name):
        found = _lookup(cls, part, scope, top)
        if found is None or found is _UNKNOWN:
            return None if found is _UNKNOWN else False
        node, scope = found
        if part == name:
            return isinstance(node, _FUNCTIONS)
        if not isinstance(node, ast.ClassDef):
            return False
        cls = node
    return False


def taken_out(full: str, reduced: str, node_ids: Iterable[str]) -> list[str]:
    """The ids of `node_ids` that `full` defines and `reduced` -- the file with a test taken out -- no longer does:
    the test itself, every parametrisation of it, and every subclass's test that inherited it.  Where the reduced
    file cannot tell (a class that also has a base from elsewhere), the test counts as gone: what the file defined
    it no longer defines, and a base from elsewhere (`unittest.TestCase`) brings no test of that name."""
    return [t for t in node_ids if defines_test(full, t) is True and defines_test(reduced, t) is not True]


def unhidden_gone(repo) -> list[str]:
    """The graded tests of a task (`grade.Repository`) that its base lacks -- a test file the test patch restores,
    without them in the overlay -- and that it does not list as hidden: tests its issue may name and its agent cannot
    run (a pool generated before inherited copies were hidden)."""
    hidden = set(repo.hidden)
    out = []
    for path, full in repo.test_patch.items():
        reduced = repo.overlay.get(path)
        if full is None or reduced is None or not path.endswith(".py"):
            continue
        ids = [t for t in (*repo.fail_to_pass, *repo.pass_to_pass) if node_parts(t)[0] == path and t not in hidden]
        out += taken_out(full, reduced, ids)
    return out
