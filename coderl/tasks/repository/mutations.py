"""AST mutations of a module's functions, for the offline generator of repository tasks.

`mutants(source, path, seed=)` lists the bugs that can be planted in one Python file: for each function defined
at module level or in a class (its nested functions and lambdas count as part of it), the edits of seven kinds
below, each as the whole mutated file. Only the changed function's lines are rewritten (decorators kept): they
become `ast.unparse` of the mutated function, indented to the function's own column; every other byte of the
file is kept, and so is whatever follows the function's last token on its last line (a comment). A multi-line
string inside the function (a docstring) keeps its lines as they are, so its value does not change.

A function is skipped when `ast.unparse` cannot stand in for it: its lines with the *unmutated* function unparsed
in their place must parse to the same function (ignoring positions), and a function that shares its first or last
line with other code is skipped too. A mutant whose lines do not compile, or whose function's AST is unchanged (two
equal arguments swapped), is dropped, and so is one that writes the same file as an earlier mutant of the
function (each file appears once in the list). Both checks read the function's lines alone (under an `if` when
indented): the rest of the file is unchanged and they start and end at statement boundaries, so that is the
file compiling, at the cost of the function instead of the whole file for every mutant.

Kinds (`KINDS`) and `size`, the number of the original function's AST nodes the edit removes or replaces:

- `operator`: a binary or augmented operator (+ and -, * and /, // and %, << and >>, & and |, ** to *) or
  `and`/`or` swapped; size 1.
- `comparison`: one comparison operator swapped (< and <=, > and >=, == and !=, is and is not, in and not in);
  size 1.
- `off_by_one`: a non-negative integer constant plus or minus one (never below zero) where it bounds a
  slice, indexes, is an argument of `range`, or is compared; size 1.
- `removed_branch`: an `if` without `else` removed (an early-return guard among them), an `if` with an `else`
  replaced by its `else` body, an `elif` branch dropped, or an `else` body dropped; size: the nodes removed.
- `swapped_arguments`: two adjacent positional arguments of a call swapped; size 2.
- `wrong_return`: a returned value replaced by `None`, by another name in scope (an argument or a name the
  function assigns; one drawn by the seed), or, when it is a truth value, negated; size: the old value's nodes.
- `combined`: two of the above in the same function at places that do not overlap (pairs drawn by the seed,
  at most `COMBINED_PER_FUNCTION`); size: the sum.

`gold_patch(path, mutated, original)` is the unified diff that turns the mutated file back into the original,
with `a/PATH` and `b/PATH` headers, as `git apply` reads it.

Over 400 lines: the seven kinds share one walk of a function's nodes and one way of putting a changed function
back in its file, and each kind is a few lines of that walk; split apart they would pass the walk's tables
(parents, pre-order indices, spans) between modules.

Standard library only. `Mutation.description` is for logs: it names the edit, and is never shown to an agent.
Deterministic: the same source, path and seed give the same list.
"""

from __future__ import annotations

import ast
import copy
import difflib
import io
import random
import re
import tokenize
from collections.abc import Callable
from dataclasses import dataclass

KINDS = ("operator", "comparison", "off_by_one", "removed_branch", "swapped_arguments", "wrong_return", "combined")
COMBINED_PER_FUNCTION = 2


class MutationError(ValueError):
    """A file or a patch request that this module refuses, said in one line."""


@dataclass(frozen=True)
class Mutation:
    """One planted bug: the whole mutated file and where the change sits in the original file."""

    path: str
    function: str          # the qualname, e.g. "Class.method"
    first_line: int        # the function's first line (its first decorator's) in the original file, 1-based
    last_line: int         # its last line, inclusive
    kind: str
    size: int
    mutated: str           # the text of the whole mutated file
    description: str       # for logs only


# ---------------------------------------------------------------- the edits

_BINOP_SWAP = {ast.Add: ast.Sub, ast.Sub: ast.Add, ast.Mult: ast.Div, ast.Div: ast.Mult,
               ast.FloorDiv: ast.Mod, ast.Mod: ast.FloorDiv, ast.LShift: ast.RShift, ast.RShift: ast.LShift,
               ast.BitAnd: ast.BitOr, ast.BitOr: ast.BitAnd, ast.Pow: ast.Mult}
_BOOLOP_SWAP = {ast.And: ast.Or, ast.Or: ast.And}
_CMP_SWAP = {ast.Lt: ast.LtE, ast.LtE: ast.Lt, ast.Gt: ast.GtE, ast.GtE: ast.Gt, ast.Eq: ast.NotEq,
             ast.NotEq: ast.Eq, ast.Is: ast.IsNot, ast.IsNot: ast.Is, ast.In: ast.NotIn, ast.NotIn: ast.In}
_SYMBOL = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//", ast.Mod: "%",
           ast.LShift: "<<", ast.RShift: ">>", ast.BitAnd: "&", ast.BitOr: "|", ast.Pow: "**", ast.And: "and",
           ast.Or: "or", ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=", ast.Eq: "==", ast.NotEq: "!=",
           ast.Is: "is", ast.IsNot: "is not", ast.In: "in", ast.NotIn: "not in"}


@dataclass(frozen=True)
class _Edit:
    """One edit of a function, by the pre-order index of the node it changes (`site`) in the original function.

    `span` is the range of pre-order indices the edit touches (the node's subtree), used to keep the two
    edits of a `combined` mutant apart. `apply` receives the copy's nodes in pre-order and changes the copy.
    """

    kind: str
    site: int
    span: tuple[int, int]
    size: int
    line: int
    description: str
    apply: Callable[[list[ast.AST]], None]


def _preorder(node: ast.AST) -> list[ast.AST]:
    """The nodes of a tree in source (pre-)order, without recursion."""
    out: list[ast.AST] = []
    stack = [node]
    while stack:
        n = stack.pop()
        out.append(n)
        stack.extend(reversed(list(ast.iter_child_nodes(n))))
    return out


def _count(node: ast.AST) -> int:
    """The nodes of a subtree, leaving out the load/store markers of names (`ast.expr_context`)."""
    return sum(not isinstance(n, ast.expr_context) for n in _preorder(node))


def _set_field(parent_index: int, field: str, pos: int | None, make: Callable[[ast.AST], ast.AST]):
    """An `apply` that replaces the child `field`[`pos`] of the node at `parent_index` with `make(old)`."""
    def apply(nodes: list[ast.AST]) -> None:
        parent = nodes[parent_index]
        if pos is None:
            setattr(parent, field, make(getattr(parent, field)))
        else:
            getattr(parent, field)[pos] = make(getattr(parent, field)[pos])
    return apply


def _is_truth_value(expr: ast.expr) -> bool:
    if isinstance(expr, ast.Constant):
        return isinstance(expr.value, bool)
    if isinstance(expr, (ast.Compare, ast.BoolOp)):
        return True
    if isinstance(expr, ast.UnaryOp):
        return isinstance(expr.op, ast.Not)
    return (isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name)
            and expr.func.id in ("isinstance", "issubclass", "callable", "hasattr", "any", "all", "bool"))


def _negated(expr: ast.expr) -> ast.expr:
    if isinstance(expr, ast.Constant) and isinstance(expr.value, bool):
        return ast.Constant(value=not expr.value)
    if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, ast.Not):
        return expr.operand
    return ast.UnaryOp(op=ast.Not(), operand=expr)


def _names_in_scope(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> list[str]:
    """The function's arguments and the plain names it assigns, in first-seen order (nested scopes excluded)."""
    a = fn.args
    names = [x.arg for x in (*a.posonlyargs, *a.args, *a.kwonlyargs)]
    names += [x.arg for x in (a.vararg, a.kwarg) if x is not None]
    stack = list(reversed(fn.body))
    while stack:
        n = stack.pop()
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
            names.append(n.id)
        stack.extend(reversed(list(ast.iter_child_nodes(n))))
    return list(dict.fromkeys(n for n in names if n not in ("self", "cls")))


def _edits(fn: ast.FunctionDef | ast.AsyncFunctionDef, rng: random.Random) -> list[_Edit]:
    """Every single edit of `fn`, in source order of their sites (kinds in `KINDS` order at one site)."""
    nodes = _preorder(fn)
    index = {id(n): i for i, n in enumerate(nodes)}
    sizes = [1] * len(nodes)   # subtree sizes, summed from the last node back (children follow their parent)
    for i in range(len(nodes) - 1, -1, -1):
        for child in ast.iter_child_nodes(nodes[i]):
            sizes[i] += sizes[index[id(child)]]
    span = {id(n): (i, i + sizes[i]) for i, n in enumerate(nodes)}
    parent: dict[int, tuple[ast.AST, str, int | None]] = {}
    for p in nodes:
        for field, value in ast.iter_fields(p):
            if isinstance(value, list):
                for k, child in enumerate(value):
                    if isinstance(child, ast.AST):
                        parent[id(child)] = (p, field, k)
            elif isinstance(value, ast.AST):
                parent[id(value)] = (p, field, None)
    in_scope = _names_in_scope(fn)

    out: list[_Edit] = []

    def add(kind, node, size, description, apply, line=None):
        out.append(_Edit(kind, index[id(node)], span[id(node)], size, line or getattr(node, "lineno", fn.lineno),
                         description, apply))

    for i, node in enumerate(nodes[1:], start=1):
        # operator
        if isinstance(node, (ast.BinOp, ast.AugAssign)) and type(node.op) in _BINOP_SWAP:
            new = _BINOP_SWAP[type(node.op)]
            def apply(ns, i=i, new=new):
                ns[i].op = new()
            add("operator", node, 1, f"{_SYMBOL[type(node.op)]} -> {_SYMBOL[new]}", apply)
        if isinstance(node, ast.BoolOp):
            new = _BOOLOP_SWAP[type(node.op)]
            def apply(ns, i=i, new=new):
                ns[i].op = new()
            add("operator", node, 1, f"{_SYMBOL[type(node.op)]} -> {_SYMBOL[new]}", apply)
        # comparison
        if isinstance(node, ast.Compare):
            for k, op in enumerate(node.ops):
                new = _CMP_SWAP[type(op)]
                def apply(ns, i=i, k=k, new=new):
                    ns[i].ops[k] = new()
                add("comparison", node, 1, f"{_SYMBOL[type(op)]} -> {_SYMBOL[new]}", apply)
        # off_by_one
        if (isinstance(node, ast.Constant) and type(node.value) is int and node.value >= 0
                and _bounds_something(node, parent)):
            p, field, pos = parent[id(node)]
            for delta in (1, -1):
                value = node.value + delta
                if value < 0:
                    continue
                add("off_by_one", node, 1, f"{node.value} -> {value}",
                    _set_field(index[id(p)], field, pos, lambda old, value=value: ast.Constant(value=value)))
        # removed_branch
        if isinstance(node, ast.If) and id(node) in parent:
            _branch_edits(node, parent, index, add)
        # swapped_arguments
        if isinstance(node, ast.Call) and len(node.args) >= 2:
            for k in range(len(node.args) - 1):
                a, b = node.args[k], node.args[k + 1]
                if isinstance(a, ast.Starred) or isinstance(b, ast.Starred) or ast.dump(a) == ast.dump(b):
                    continue
                def apply(ns, i=i, k=k):
                    args = ns[i].args
                    args[k], args[k + 1] = args[k + 1], args[k]
                add("swapped_arguments", node, 2, f"arguments {k + 1} and {k + 2} of a call swapped", apply)
        # wrong_return
        if isinstance(node, ast.Return) and node.value is not None:
            value = node.value
            size = _count(value)
            def replace(make, i=i):
                def apply(ns):
                    ns[i].value = make(ns[i].value)
                return apply
            if _is_truth_value(value):
                add("wrong_return", node, size, "returned truth value negated", replace(_negated))
            if not (isinstance(value, ast.Constant) and value.value is None):
                add("wrong_return", node, size, "returns None", replace(lambda old: ast.Constant(value=None)))
            others = [n for n in in_scope if not (isinstance(value, ast.Name) and value.id == n)]
            if others:
                name = rng.choice(others)
                add("wrong_return", node, size, f"returns {name} instead",
                    replace(lambda old, name=name: ast.Name(id=name, ctx=ast.Load())))
    return out


def _bounds_something(node: ast.Constant, parent: dict) -> bool:
    """Whether an integer constant bounds a slice, indexes, is an argument of `range`, or is compared
    (directly or under a unary minus)."""
    p, field, _ = parent.get(id(node), (None, None, None))
    if isinstance(p, ast.UnaryOp) and isinstance(p.op, ast.USub):
        p, field, _ = parent.get(id(p), (None, None, None))
    if isinstance(p, ast.Slice) or isinstance(p, ast.Compare):
        return True
    if isinstance(p, ast.Subscript) and field == "slice":
        return True
    return (isinstance(p, ast.Call) and field == "args" and isinstance(p.func, ast.Name)
            and p.func.id == "range")


def _branch_edits(node: ast.If, parent: dict, index: dict, add) -> None:
    p, field, pos = parent[id(node)]
    if pos is None:
        return
    pi = index[id(p)]
    is_elif = isinstance(p, ast.If) and field == "orelse" and len(p.orelse) == 1
    removed_test = _count(node.test)
    body_size = sum(_count(s) for s in node.body) + removed_test

    def replace_stmt(make):
        def apply(ns):
            siblings = getattr(ns[pi], field)
            new = make(siblings[pos])
            siblings[pos:pos + 1] = new if (new or len(siblings) > 1) else [ast.Pass()]
        return apply

    if is_elif:
        # `elif` branch dropped: what followed it (a later elif or the else) takes its place
        add("removed_branch", node, body_size, "elif branch removed",
            replace_stmt(lambda old: list(old.orelse)))
    elif not node.orelse:
        guard = any(isinstance(s, (ast.Return, ast.Raise)) for s in node.body)
        add("removed_branch", node, body_size, "guard removed" if guard else "if statement removed",
            replace_stmt(lambda old: []))
    else:
        add("removed_branch", node, body_size, "if branch removed (the else body kept)",
            replace_stmt(lambda old: list(old.orelse)))
    if (node.orelse and not (len(node.orelse) == 1 and isinstance(node.orelse[0], ast.If))
            and not all(isinstance(s, ast.Pass) for s in node.orelse)):
        size = sum(_count(s) for s in node.orelse)
        def apply(ns, i=index[id(node)]):
            ns[i].orelse = []
        add("removed_branch", node, size, "else body removed", apply, line=node.orelse[0].lineno)


# ---------------------------------------------------------------- the file around a function

_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")


def _lines(text: str) -> list[str]:
    """The lines of a text as Python's tokenizer counts them, with their endings."""
    return _LINE.findall(text)


def _functions(tree: ast.Module) -> list[tuple[str, ast.FunctionDef | ast.AsyncFunctionDef]]:
    """(qualname, node) of each function at module level or in a class, in source order."""
    out = []
    stack: list[tuple[str, ast.AST]] = [("", tree)]
    while stack:
        prefix, n = stack.pop()
        found = []
        for child in ast.iter_child_nodes(n):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                out.append((prefix + child.name, child))
            elif isinstance(child, ast.ClassDef):
                found.append((prefix + child.name + ".", child))
            elif isinstance(child, (ast.If, ast.Try, ast.With)):   # definitions under `if`/`try` at top level
                found.append((prefix, child))
        stack.extend(reversed(found))
    return sorted(out, key=lambda item: item[1].lineno)


_STRING_TOKENS = {tokenize.STRING, getattr(tokenize, "FSTRING_MIDDLE", tokenize.STRING)}


def _indent_code(code: str, indent: str) -> str:
    """`code` (from `ast.unparse`, at column 0) indented by `indent`, except the lines that continue a
    multi-line string token, whose text is part of the string's value."""
    inside: set[int] = set()
    for tok in tokenize.generate_tokens(io.StringIO(code).readline):
        if tok.type in _STRING_TOKENS and tok.end[0] > tok.start[0]:
            inside.update(range(tok.start[0] + 1, tok.end[0] + 1))
    return "".join(line if (n in inside or not line.strip()) else indent + line
                   for n, line in enumerate(code.splitlines(keepends=True), start=1))


class _Slot:
    """Where a function's text sits in its file, and how to put other text for it there."""

    def __init__(self, lines: list[str], fn: ast.FunctionDef | ast.AsyncFunctionDef):
        self.first = fn.decorator_list[0].lineno if fn.decorator_list else fn.lineno
        self.last = fn.end_lineno
        def_line = lines[fn.lineno - 1].encode()
        self.indent = def_line[:fn.col_offset].decode()
        end = lines[self.last - 1]
        body = end.rstrip("\r\n")
        self.tail = body.encode()[fn.end_col_offset:].decode() + end[len(body):]
        first = lines[self.first - 1]
        self.ok = (not self.indent.strip() and first.startswith(self.indent)
                   and (fn.decorator_list == [] or first[len(self.indent):].startswith("@"))
                   and (not self.tail.strip() or self.tail.lstrip().startswith("#")))
        self.newline = "\n" if not end.endswith("\r") and not end.endswith("\r\n") else end[len(body):]

    def code(self, fn: ast.AST) -> str:
        """The lines that stand for the function `fn` in the file: its unparsed text, indented, with the
        original last line's tail."""
        code = _indent_code(ast.unparse(fn), self.indent)
        if self.newline != "\n":
            code = code.replace("\n", self.newline)
        return code.rstrip("\r\n") + self.tail

    def put(self, lines: list[str], code: str) -> str:
        """The file with `code` in place of the function's lines."""
        return "".join(lines[:self.first - 1]) + code + "".join(lines[self.last:])

    def parse(self, code: str, path: str) -> ast.AST | None:
        """The function that `code` defines, compiled where it stands (None when it does not compile).

        Checked on the function's lines alone, under an `if` when they are indented: the rest of the file is
        unchanged and the lines start and end at statement boundaries, so this is the file compiling, at the
        cost of the function rather than of the whole file."""
        text = f"if 1:{self.newline}{code}" if self.indent else code
        try:
            tree = ast.parse(text, filename=path)
            compile(tree, path, "exec", dont_inherit=True)
        except (SyntaxError, ValueError):
            return None
        node = tree.body[0].body[0] if self.indent else tree.body[0]
        return node if len(tree.body) == 1 else None


def _same(a: ast.AST, b: ast.AST) -> bool:
    return ast.dump(a, include_attributes=False) == ast.dump(b, include_attributes=False)


# ---------------------------------------------------------------- the API

def mutants(source: str, path: str, *, seed: int = 0) -> list[Mutation]:
    """Every mutant of the file `source` (named `path`), function by function in source order.

    Raises `MutationError` when `source` is not Python that parses."""
    try:
        tree = ast.parse(source, filename=path)
    except (SyntaxError, ValueError) as exc:
        raise MutationError(f"{path}: not Python that parses ({exc.__class__.__name__}: {exc})") from None
    lines = _lines(source)
    out: list[Mutation] = []
    for qualname, fn in _functions(tree):
        slot = _Slot(lines, fn)
        if not slot.ok:
            continue
        unchanged = slot.parse(slot.code(fn), path)
        if unchanged is None or not _same(unchanged, fn):   # ast.unparse cannot stand in for this function
            continue
        rng = random.Random(f"{seed}:{path}:{qualname}")
        singles: list[tuple[_Edit, Mutation]] = []

        def make(edits: list[_Edit], kind: str) -> Mutation | None:
            changed = copy.deepcopy(fn)
            nodes = _preorder(changed)
            for e in sorted(edits, key=lambda e: -e.site):   # later sites first: positions before stay put
                e.apply(nodes)
            ast.fix_missing_locations(changed)
            if _same(changed, fn):
                return None
            code = slot.code(changed)
            if slot.parse(code, path) is None:
                return None
            text = slot.put(lines, code)
            description = "; ".join(f"{e.kind}: {e.description} (line {e.line})" for e in edits)
            return Mutation(path, qualname, slot.first, slot.last, kind, sum(e.size for e in edits), text,
                            f"{qualname}: {description}")

        texts: set[str] = set()
        for edit in _edits(fn, rng):
            m = make([edit], edit.kind)
            if m is not None and m.mutated not in texts:   # two edits that write the same file: the first
                texts.add(m.mutated)
                singles.append((edit, m))
        out.extend(m for _, m in singles)
        pairs = [(a, b) for k, (a, _) in enumerate(singles) for (b, _) in singles[k + 1:]
                 if a.span[1] <= b.span[0] or b.span[1] <= a.span[0]]
        for a, b in rng.sample(pairs, min(COMBINED_PER_FUNCTION, len(pairs))):
            m = make(sorted((a, b), key=lambda e: e.site), "combined")
            if m is not None and m.mutated not in texts:   # not one edit undoing or hiding the other
                texts.add(m.mutated)
                out.append(m)
    return out


def gold_patch(path: str, mutated: str, original: str) -> str:
    """The unified diff that turns `mutated` (the file at `path` as the agent gets it) into `original`, with
    `a/PATH` and `b/PATH` headers and three lines of context, as `git apply` reads it."""
    if mutated == original:
        raise MutationError(f"{path}: no patch, the mutated file equals the original")
    if not path or path.startswith("/") or "\\" in path or ".." in path.split("/"):
        raise MutationError(f"{path!r}: not a relative path inside the repository")
    old, new = _git_lines(mutated), _git_lines(original)
    out = []
    for line in difflib.unified_diff(old, new, fromfile=f"a/{path}", tofile=f"b/{path}", n=3):
        if line.startswith(("---", "+++")):
            out.append(line.rstrip("\n") + "\n")
        elif line.endswith("\n"):
            out.append(line)
        else:
            out.append(line + "\n\\ No newline at end of file\n")
    return "".join(out)


def _git_lines(text: str) -> list[str]:
    """Lines as git counts them: cut after each '\\n' only (a '\\r' stays part of its line)."""
    return re.findall(r"[^\n]*\n|[^\n]+\Z", text)
