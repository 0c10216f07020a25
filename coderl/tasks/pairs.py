"""A test's normalised (arguments, expected value): `TestPair`, built by `test_pair`; `canonical` values.

Multi-turn repair must know what a hidden test would give away if a text showed it (see
`coderl.tasks.visibility`): the entry-point calls the test makes and the value it expects, each in a
normal form (`canonical`) under which 5 == 5.0, a list equals a tuple, and True stays apart from 1.
"""

from __future__ import annotations

import ast
import enum
import json
import math
import operator
from dataclasses import dataclass
from typing import Any

from coderl.sandbox.types import CheckKind, TestCase


class _Sentinel(enum.Enum):
    ANY = "ANY"

    def __repr__(self) -> str:
        return self.value


ANY = _Sentinel.ANY  # "expected value unknown": only the call can be matched


@dataclass(frozen=True)
class _Bool:
    """A canonical bool: Python's True == 1 (with equal hashes), so bools are wrapped to stay apart."""

    value: bool

    def __repr__(self) -> str:
        return repr(self.value)


@dataclass(frozen=True)
class TestPair:
    """A test's normalised (arguments, expected value)."""

    __test__ = False  # not a pytest test class
    calls: tuple[tuple, ...]  # canonical argument tuples of the entry-point calls the test makes; () for stdio
    expected: object  # canonical expected value, or ANY
    stdin: tuple[str, ...] | None = None  # stdio tests: whitespace tokens of the input
    stdout: tuple[str, ...] | None = None  # stdio tests: whitespace tokens of the expected output
    # Class tasks (`obj = candidate(); obj.push(3)`): (method, canonical args) of the method calls on
    # an object the entry point built.  The constructor alone says little (most are `candidate()`),
    # so such a pair appears only where every step's arguments appear too.
    steps: tuple[tuple[str, tuple], ...] = ()


def canonical(value: Any) -> Any:
    """A hashable normal form of a value: bool stays apart from int, 5 == 5.0 (floats rounded to 12
    significant digits), list == tuple, a set its sorted elements, a dict ("dict", sorted items)."""
    try:
        return _canonical(value)
    except (RecursionError, TypeError, ValueError, OverflowError):
        return ("repr", repr(value))


def _canonical(value: Any) -> Any:
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, bool):
        return _Bool(value)
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            return ("float", repr(value))
        rounded = float(f"{value:.12g}")  # 0.1 + 0.2 and 0.3 are one value
        return int(rounded) if rounded.is_integer() else rounded
    if isinstance(value, (list, tuple)):
        return tuple(_canonical(v) for v in value)
    if isinstance(value, (set, frozenset)):
        return tuple(sorted((_canonical(v) for v in value), key=repr))
    if isinstance(value, dict):
        return ("dict", tuple(sorted(((_canonical(k), _canonical(v)) for k, v in value.items()), key=repr)))
    hash(value)  # anything else: the repr fallback (TypeError above when it is not even hashable)
    return ("repr", repr(value))


# ---- test_pair -----------------------------------------------------------------------------------------

NOT_LITERAL = object()
_EVAL_ERRORS = (ValueError, TypeError, SyntaxError, MemoryError, RecursionError)
_SOURCE_ORDER = operator.attrgetter("lineno", "col_offset")


def literal_value(node: ast.AST) -> Any:
    try:
        return ast.literal_eval(node)
    except _EVAL_ERRORS:
        return NOT_LITERAL


def _literal_args(node: ast.Call) -> tuple | None:
    """Canonical arguments of a call whose arguments are all literals, keywords appended as sorted
    (name, value) pairs; None otherwise."""
    args = [literal_value(a) for a in node.args]
    kwargs = sorted((k.arg, literal_value(k.value)) for k in node.keywords if k.arg is not None)
    if len(kwargs) != len(node.keywords) or NOT_LITERAL in args or any(v is NOT_LITERAL for _, v in kwargs):
        return None
    return tuple(canonical(a) for a in args) + tuple((k, canonical(v)) for k, v in kwargs)


def _is_entry_call(node: ast.AST, names: frozenset[str]) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in names


def _entry_calls(tree: ast.AST, names: frozenset[str]) -> list[tuple]:
    """Literal-argument calls of the entry point, in source order."""
    found = sorted((n for n in ast.walk(tree) if _is_entry_call(n, names)), key=_SOURCE_ORDER)
    return [args for args in map(_literal_args, found) if args is not None]


def _steps(tree: ast.Module, names: frozenset[str]) -> tuple[tuple[str, tuple], ...]:
    objects = {t.id for n in ast.walk(tree) if isinstance(n, ast.Assign) and _is_entry_call(n.value, names)
               for t in n.targets if isinstance(t, ast.Name)}
    found = sorted((n for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
                    and isinstance(n.func.value, ast.Name) and n.func.value.id in objects), key=_SOURCE_ORDER)
    # A step with non-literal arguments cannot be looked for; leaving it out only makes the pair
    # appear more often (the conservative side).
    return tuple((n.func.attr, args) for n in found if (args := _literal_args(n)) is not None)


def _compared_literal(test: ast.expr, names: frozenset[str]) -> Any:
    """The literal an assert compares an entry-point call with, else ANY.  Only a bare call counts
    (`CALL == LIT`, `abs(CALL - LIT) < tol`, `isclose(CALL, LIT)`): a wrapped call (`sorted(CALL) ==
    LIT`) shows its answer in another form, and ANY is the conservative reading."""
    sides: tuple[ast.expr, ...] = ()
    if isinstance(test, ast.Compare) and len(test.ops) == 1:
        left, op = test.left, test.ops[0]
        if isinstance(op, ast.Eq):
            sides = (left, test.comparators[0])
        elif isinstance(op, (ast.Lt, ast.LtE)) and isinstance(left, ast.Call) and isinstance(left.func, ast.Name) \
                and left.func.id == "abs" and len(left.args) == 1 and isinstance(left.args[0], ast.BinOp) \
                and isinstance(left.args[0].op, ast.Sub):
            sides = (left.args[0].left, left.args[0].right)
    elif isinstance(test, ast.Call) and len(test.args) >= 2 and "isclose" in (
            getattr(test.func, "id", None), getattr(test.func, "attr", None)):
        sides = (test.args[0], test.args[1])
    for call, other in (sides, sides[::-1]) if sides else ():
        if _is_entry_call(call, names) and _literal_args(call) is not None \
                and (value := literal_value(other)) is not NOT_LITERAL:
            return canonical(value)
    return ANY


def test_pair(test: TestCase, entry_point: str | None) -> TestPair | None:
    """The test's normalised pair; None when it cannot be normalised (such a test is never hidden)."""
    names = frozenset(n for n in ("candidate", entry_point) if n)
    try:
        if test.check in (CheckKind.EQUALS, CheckKind.IS, CheckKind.TRUTHY, CheckKind.FALSY):
            node = ast.parse(test.source.strip(), mode="eval").body
            args = _literal_args(node) if _is_entry_call(node, names) else None
            if args is None:  # `sorted(candidate(x))`: the calls inside, expected unknown
                calls = _entry_calls(node, names)
                return TestPair(tuple(calls), ANY) if calls else None
            expected = {CheckKind.TRUTHY: True, CheckKind.FALSY: False}.get(test.check, test.expected)
            return TestPair((args,), canonical(expected))
        if test.check is CheckKind.ASSERT:
            tree = ast.parse((test.setup.rstrip() + "\n" if test.setup.strip() else "") + test.source)
            calls = _entry_calls(tree, names)
            body = ast.parse(test.source).body
            last = body[-1] if body else None
            expected = _compared_literal(last.test, names) if isinstance(last, ast.Assert) else ANY
            return TestPair(tuple(calls), expected, steps=_steps(tree, names)) if calls else None
        if test.check is CheckKind.JSON:
            args = json.loads(test.source)
            return TestPair((canonical(tuple(args)),), canonical(test.expected)) if isinstance(args, list) else None
        if test.check is CheckKind.STDOUT:
            return TestPair((), ANY, tuple(test.source.split()), tuple(str(test.expected).split()))
    except _EVAL_ERRORS:
        return None
    return None  # TAGGED / REPORT (hardware testbenches): nothing to normalise


test_pair.__test__ = False  # type: ignore[attr-defined]  # pytest must not collect it where imported
