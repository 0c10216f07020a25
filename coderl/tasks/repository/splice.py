"""A mutant written back into its file as narrowly as the AST allows: only the statements the mutation changed are
re-rendered, every other line of the function keeps its original text (comments, quotes, blank lines, layout).

`mutations.mutants` renders the whole changed function with `ast.unparse`; left so, a base would show which function
was changed by its style alone (quotes, lost comments) -- a hint no real bug gives.  `splice` finds the smallest
statements that differ (statement lists aligned by their ASTs; into a compound statement whose own fields are equal),
and replaces only their lines with the mutant's rendering, re-indented.
"""

from __future__ import annotations

import ast
import difflib

BODIES = ("body", "orelse", "finalbody", "handlers")


def _dump(node: ast.AST) -> str:
    return ast.dump(node, include_attributes=False)


def _function(tree: ast.Module, qualname: str) -> ast.AST | None:
    body, node = tree.body, None
    for part in qualname.split("."):
        node = next((n for n in body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
                     and n.name == part), None)
        if node is None:
            return None
        body = node.body
    return node


def _own_fields_equal(a: ast.AST, b: ast.AST) -> bool:
    """Same statement type, and equal in everything but their nested statement lists."""
    if type(a) is not type(b):
        return False
    for name, value in ast.iter_fields(a):
        if name in BODIES:
            continue
        other = getattr(b, name)
        if isinstance(value, list):
            if len(value) != len(other) or any(_dump(x) != _dump(y) if isinstance(x, ast.AST) else x != y
                                               for x, y in zip(value, other)):
                return False
        elif isinstance(value, ast.AST):
            if _dump(value) != _dump(other):
                return False
        elif value != other:
            return False
    return True


def _start(node: ast.AST) -> int:
    return min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", []))])


def _edits(old: list, new: list, ctx: dict, edits: list, anchor: int, deep: bool) -> None:
    """Edits (first line, last line, replacement lines) turning the statements `old` into `new`; `anchor`: the line
    after which an insertion goes when `old` is empty; `deep`: into compound statements whose own fields are equal;
    `ctx`: the original's and the mutant's lines, and the file's indentation unit."""
    matcher = difflib.SequenceMatcher(a=[_dump(n) for n in old], b=[_dump(n) for n in new], autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        if tag == "replace" and i2 - i1 == j2 - j1:
            for a, b in zip(old[i1:i2], new[j1:j2]):
                if deep and _own_fields_equal(a, b) and not isinstance(a, ast.ExceptHandler) and all(
                        bool(getattr(a, f, None)) == bool(getattr(b, f, None)) for f in BODIES):
                    for field in BODIES:
                        sub_old, sub_new = getattr(a, field, None), getattr(b, field, None)
                        if sub_old:
                            _edits(sub_old, sub_new, ctx, edits, sub_old[-1].end_lineno, deep)
                else:
                    edits.append((_start(a), a.end_lineno, _render(b, ctx, _leading(a, ctx["old"]))))
            continue
        first = _start(old[i1]) if i1 < i2 else anchor + 1
        last = old[i2 - 1].end_lineno if i1 < i2 else anchor
        like = old[i1] if i1 < i2 else (old[i1 - 1] if i1 else None)
        base = _leading(like, ctx["old"]) if like is not None else None
        replacement = []
        for b in new[j1:j2]:
            replacement += _render(b, ctx, base)
        edits.append((first, last, replacement))


def _render(node: ast.AST, ctx: dict, base: str | None) -> list[str]:
    """The mutant's statement as lines, at the indentation of the original statement it stands in for, each deeper
    level in the file's own unit (a tab where the file indents with tabs: the unparser's four spaces would not mix)."""
    text = "".join(ctx["new"][_start(node) - 1: node.end_lineno])
    own = len(text) - len(text.lstrip(" \t"))
    base = " " * own if base is None else base
    unit = ctx["unit"]
    out = []
    for line in text.splitlines(keepends=True):
        if not line.strip():
            out.append(line)
            continue
        rest = line[own:]
        extra = len(rest) - len(rest.lstrip(" "))
        out.append(base + unit * (extra // 4) + " " * (extra % 4) + rest.lstrip(" "))
    return out


def _leading(node: ast.AST, lines: list[str]) -> str:
    """The whitespace before a statement of the original file (its `lines`)."""
    line = lines[_start(node) - 1]
    return line[: len(line) - len(line.lstrip(" \t"))]




def splice(original: str, mutated: str, qualname: str) -> str:
    """The original file with only the statements of `qualname` that the mutant changed replaced by the mutant's;
    ValueError where the two cannot be aligned (the caller then keeps the mutant as it is, or drops it)."""
    tree_old, tree_new = ast.parse(original), ast.parse(mutated)
    fn_old, fn_new = _function(tree_old, qualname), _function(tree_new, qualname)
    if fn_old is None or fn_new is None or not _own_fields_equal(fn_old, fn_new):
        raise ValueError(f"{qualname}: the function's signature or decorators differ")
    ctx = {"old": original.splitlines(keepends=True), "new": mutated.splitlines(keepends=True)}
    body, outer = _leading(fn_old.body[0], ctx["old"]), _leading(fn_old, ctx["old"])
    ctx["unit"] = body[len(outer):] if body.startswith(outer) and len(body) > len(outer) else "    "
    for deep in (True, False):  # the narrowest edit first; else whole statements of the function's own body
        lines_old = original.splitlines(keepends=True)
        edits: list = []
        _edits(fn_old.body, fn_new.body, ctx, edits, fn_old.body[-1].end_lineno, deep)
        for first, last, replacement in sorted(edits, reverse=True):
            lines_old[first - 1: last] = replacement
        result = "".join(lines_old)
        try:
            if _dump(ast.parse(result)) == _dump(tree_new):
                return result
        except SyntaxError:
            pass
    raise ValueError(f"{qualname}: the spliced file is not the mutant")
