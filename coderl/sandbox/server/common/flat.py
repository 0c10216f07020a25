"""Values of any depth up to `MAX_DEPTH`, read in the parent without recursion.  Standard library only.

The parent (the trainer, `coderl check`) reads program data in two places: a function task's value
records, written by the judge process, and the JSON values a command's harness prints (read by
`outputs.loads`, which counts its depth before `json.loads` reads it, and compared by `outputs.json_equal`, a
loop like these).  CPython's `json.loads`, `==` and
`repr` recurse, and at the default limit of 1,000 frames they fail near 1,000 levels of nesting, so a
value the sandbox lets through (up to `MAX_DEPTH` levels) could raise RecursionError in the trainer.
Here every reader is a loop over an explicit stack:

    flatten / unflatten   the judge's value records (`checks.record_value`, `judge.decode_value`)
    equal                 Python's `==` on plain data (list, tuple, dict; sets and scalars natively)
    short_repr            `repr`, cut at a length

Flat form: one JSON list of tokens in prefix order, so a record is two JSON levels deep whatever the value.

    int (|n| < 2**53), true, false, null     the value itself
    "s", text                                a str
    "L" / "T" / "S" / "F", n                 a list / tuple / set / frozenset of the next n values
    "D", n                                   a dict of the next n (key, value) pairs
    "I", hex                                 an int
    "f", hex                                 a float (exact; NaN and infinities too)
    "b", hex                                 bytes
    "c", hex, hex                            a complex number
    "d", text                                a Decimal
    "q"                                      a Fraction of the next two values (ints)
    "o", name                                an object of the program's, equal only to itself (`Opaque`)
"""

import collections
import decimal
import fractions
import itertools

MAX_DEPTH = 1000  # levels of nesting of one value (`wire.MAX_DEPTH`: what the channel lets through)
MAX_ITEMS = 1_000_000  # tokens in one flattened value
_BIG = 2**53
_END = object()
_CONTAINERS = {list: "L", tuple: "T", set: "S", frozenset: "F"}
_BUILD = {"L": list, "T": tuple, "S": set, "F": frozenset}
_KEYS_ITEMS = (type({}.keys()), type({}.items()))


class Opaque:
    """A value test's output that is no plain data (an object of the program's, a datetime, an array):
    equal to nothing but itself, as `==` on a handle is identity."""

    __slots__ = ("type_name",)

    def __init__(self, type_name):
        self.type_name = type_name

    def __repr__(self):
        return f"<{self.type_name} object>"


# ---- the judge's side ------------------------------------------------------------------------------------
def _children(value):
    """(tag, count, items) of a container as the flat form sends it, or None for a leaf.  Builtin
    subclasses are read through the base type's own methods (a namedtuple is its tuple, a Counter its dict)."""
    t = type(value)
    if t in _CONTAINERS:
        return _CONTAINERS[t], len(value), value
    if isinstance(value, (list, tuple)):
        base = list if isinstance(value, list) else tuple
        items = list(base.__iter__(value))
        return _CONTAINERS[base], len(items), items
    if isinstance(value, dict):
        pairs = list(dict.items(value))
        return "D", len(pairs), itertools.chain.from_iterable(pairs)
    if t is collections.UserList and type(value.data) is list:  # compares as its list, as in Python
        return "L", len(value.data), list(value.data)
    if t is collections.UserDict and type(value.data) is dict:
        pairs = list(value.data.items())
        return "D", len(pairs), itertools.chain.from_iterable(pairs)
    if isinstance(value, collections.ChainMap):  # compares as the mapping it shows
        pairs = list(dict(value).items())
        return "D", len(pairs), itertools.chain.from_iterable(pairs)
    if t in _KEYS_ITEMS:  # keys and items views compare as sets
        try:
            items = set(value)
        except TypeError:  # unhashable items: equal to nothing
            return None
        return "S", len(items), items
    return None


def _leaf(value, out, describe):
    """Append a scalar's flat form (the table above) to `out`: exact text (floats and big ints in hex), so equal
    values flatten alike; any other object as `o` and `describe`'s name for it, cut to 100 characters."""
    t = type(value)
    if value is None or t is bool:
        out.append(value)
    elif t is int:
        out.extend((value,) if -_BIG < value < _BIG else ("I", hex(value)))
    elif t is str:
        out.extend(("s", value))
    elif t is collections.UserString and type(value.data) is str:  # compares as its text, as in Python
        out.extend(("s", value.data))
    elif t is float:
        out.extend(("f", value.hex()))
    elif t is bytes or t is bytearray:
        out.extend(("b", bytes(value).hex()))
    elif t is complex:
        out.extend(("c", value.real.hex(), value.imag.hex()))
    elif t is decimal.Decimal:
        out.extend(("d", str(value)))
    elif t is fractions.Fraction:
        out.append("q")
        _leaf(value.numerator, out, describe)
        _leaf(value.denominator, out, describe)
    else:
        out.extend(("o", str(describe(value))[:100]))


def flatten(value, describe=lambda v: type(v).__name__, max_items=MAX_ITEMS):
    """`value` in the flat form, without recursion.  `describe(v)` names an object that is no plain data
    (it becomes "o", name).  ValueError past MAX_DEPTH levels or `max_items` tokens."""
    out = []
    stack = [(iter((value,)), 0)]  # (the values still to write at this level, their depth)
    count = 0
    while stack:
        items, depth = stack[-1]
        item = next(items, _END)
        if item is _END:
            stack.pop()
            continue
        count += 1
        if count > max_items:
            raise ValueError("value too large")
        if depth > MAX_DEPTH:
            raise ValueError("value nested too deeply")
        found = _children(item)
        if found is None:
            _leaf(item, out, describe)
            continue
        tag, n, children = found
        out.extend((tag, n))
        stack.append((iter(children), depth + 1))
    return out


# ---- the parent's side -----------------------------------------------------------------------------------
def _scalar(tag, tokens, pos):
    """The leaf value of `tag` whose arguments start at `pos`; (value, next position)."""
    if tag == "s":
        text = tokens[pos]
        if type(text) is not str:
            raise ValueError("bad str")
        return text, pos + 1
    if tag == "I":
        return int(_text(tokens[pos]), 16), pos + 1
    if tag == "f":
        return float.fromhex(_text(tokens[pos])), pos + 1
    if tag == "b":
        return bytes.fromhex(_text(tokens[pos])), pos + 1
    if tag == "c":
        return complex(float.fromhex(_text(tokens[pos])), float.fromhex(_text(tokens[pos + 1]))), pos + 2
    if tag == "d":
        text = _text(tokens[pos])
        if len(text) > 10_000:
            raise ValueError("bad Decimal")
        return decimal.Decimal(text), pos + 1
    if tag == "o":
        return Opaque(_text(tokens[pos])[:100]), pos + 1
    raise ValueError(f"unknown tag {str(tag)[:20]!r}")


def _text(token):
    if type(token) is not str:
        raise ValueError("expected a string token")
    return token


def _build(tag, items):
    if tag == "D":
        return dict(zip(items[::2], items[1::2]))
    if tag == "q":
        num, den = items
        if type(num) is not int or type(den) is not int:
            raise ValueError("bad Fraction")
        return fractions.Fraction(num, den)
    return _BUILD[tag](items)


def unflatten(tokens):
    """The value of a flat form, without recursion; ValueError on anything `flatten` cannot have made
    (a count past the tokens, nesting past MAX_DEPTH, an unhashable set item or dict key, trailing tokens)."""
    if type(tokens) is not list:
        raise ValueError("expected a list of tokens")
    stack = []  # [tag, items still wanted, items so far]
    pos, end = 0, len(tokens)
    try:
        while True:
            if pos >= end:
                raise ValueError("the value ends early")
            token = tokens[pos]
            pos += 1
            t = type(token)
            if token is None or t is bool or t is int:
                value = token
            elif t is not str:
                raise ValueError("bad token")
            elif token in _BUILD or token == "D" or token == "q":
                n = 2 if token == "q" else tokens[pos] if pos < end else None
                pos += token != "q"
                if type(n) is not int or n < 0 or n > end:
                    raise ValueError("bad count")
                wanted = 2 * n if token == "D" else n
                if wanted:
                    if len(stack) >= MAX_DEPTH:
                        raise ValueError("value nested too deeply")
                    stack.append([token, wanted, []])
                    continue
                value = _build(token, [])
            else:
                value, pos = _scalar(token, tokens, pos)
            while stack:  # hand the value to its container; a container that is complete is a value in turn
                frame = stack[-1]
                frame[2].append(value)
                frame[1] -= 1
                if frame[1]:
                    break
                stack.pop()
                value = _build(frame[0], frame[2])
            else:
                if pos != end:
                    raise ValueError("tokens after the value")
                return value
    except (TypeError, IndexError, ArithmeticError) as exc:  # unhashable items, a cut token list, bad numbers
        raise ValueError(f"bad value ({type(exc).__name__})") from None


def equal(a, b):
    """Python's `a == b` for plain data, without recursion: lists, tuples and dicts item by item (lists
    and tuples never equal each other), sets, frozensets and scalars by their own `==`."""
    stack = [(a, b)]
    while stack:
        x, y = stack.pop()
        if x is y:
            continue
        tx, ty = type(x), type(y)
        if tx in (list, tuple) or ty in (list, tuple):
            if tx is not ty or len(x) != len(y):
                return False
            stack.extend(zip(x, y))
        elif tx is dict or ty is dict:
            if tx is not ty or len(x) != len(y):
                return False
            for key, value in x.items():
                other = y.get(key, _END)
                if other is _END:
                    return False
                stack.append((value, other))
        elif not x == y:
            return False
    return True


class _Piece(str):
    """Literal text in `short_repr`'s work stack (a str value is a value to print)."""


def _leaf_repr(value):
    try:
        return repr(value)
    except ValueError:  # an int past Python's 4,300-digit str limit
        if type(value) is int:
            return f"<int too large to print ({value.bit_length()} bits)>"
        return f"<unprintable {type(value).__name__}>"


def short_repr(value, limit=120):
    """`repr(value)` of plain data, at most `limit` characters, without recursion; never raises."""
    out, size = [], 0
    stack = [value]
    while stack and size <= limit:
        item = stack.pop()
        t = type(item)
        if t is _Piece:
            text = item
        elif t in (list, tuple, dict) or (t in (set, frozenset) and item):
            if t is dict:
                parts = [(k, _Piece(": "), v) for k, v in item.items()]
                opening, closing = "{", "}"
            else:
                parts = [(v,) for v in item]
                opening, closing = {list: ("[", "]"), tuple: ("(", ",)" if len(item) == 1 else ")"),
                                    set: ("{", "}"), frozenset: ("frozenset({", "})")}[t]
            stack.append(_Piece(closing))
            for i in range(len(parts) - 1, -1, -1):
                stack.extend(reversed(parts[i]))
                if i:
                    stack.append(_Piece(", "))
            text = opening
        else:
            text = _leaf_repr(item)
        out.append(text)
        size += len(text)
    return "".join(out)[:limit]
