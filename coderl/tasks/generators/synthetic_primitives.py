"""The building blocks of the synthetic generator (`coderl.tasks.generators.synthetic`): the table of primitives.

Holds the value types (`TYPES`: variable name, annotation, description), the input samplers
(`DEFAULT_SAMPLERS` and the special-purpose `sample_*`), the size guard on generated values
(`too_large`), the `Primitive` dataclass and the table itself (`PRIMITIVES`, `BY_NAME`), checked at
import: names unique, not builtins, no ``_then_``.  Chains, held-out splits, task building and
spec options live in `coderl.tasks.generators.synthetic`, which re-exports every name in `__all__`.
"""

from __future__ import annotations

import builtins
import itertools
import random
from collections.abc import Callable
from dataclasses import dataclass
from string import Template
from typing import Any

# ---------------------------------------------------------------- types and samplers

# type key -> (variable name, annotation, description)
TYPES: dict[str, tuple[str, str, str]] = {
    "int": ("n", "int", "an integer"),
    "str": ("s", "str", "a string"),
    "list[int]": ("xs", "list[int]", "a list of integers"),
    "list[str]": ("words", "list[str]", "a list of strings"),
    "dict[str,int]": ("d", "dict[str, int]", "a dict mapping strings to integers"),
    "dict[int,str]": ("m", "dict[int, str]", "a dict mapping integers to strings"),
    "bool": ("flag", "bool", "True or False"),
}

Rng = random.Random
LETTERS = "abcdeilnorstu"
KEYS = "abcdefgh"
VOCAB = ("apple", "fig", "kiwi", "lime", "pear", "plum", "date", "cherry", "melon")


def _word(rng: Rng, lo: int = 1, hi: int = 6) -> str:
    return "".join(rng.choice(LETTERS) for _ in range(rng.randint(lo, hi)))


def sample_int(rng: Rng) -> int:
    r = rng.random()
    if r < 0.4:
        return rng.randint(-9, 9)
    if r < 0.7:
        return rng.randint(10, 99)
    if r < 0.85:
        return rng.randint(100, 999)
    return -rng.randint(10, 99)


def sample_str(rng: Rng) -> str:
    return " ".join(_word(rng) for _ in range(rng.randint(1, 3)))


def sample_mixed_case(rng: Rng) -> str:
    return "".join(c.upper() if rng.random() < 0.4 else c for c in sample_str(rng))


def sample_padded(rng: Rng) -> str:
    return " " * rng.randint(0, 2) + sample_str(rng) + " " * rng.randint(0, 2)


def sample_palindrome(rng: Rng) -> str:
    if rng.random() < 0.5:
        return sample_str(rng)
    half = _word(rng, 1, 4)
    return half + (half[::-1] if rng.random() < 0.5 else half[-2::-1])


def sample_ints(rng: Rng) -> list[int]:
    size = 0 if rng.random() < 0.08 else rng.randint(1, 7)
    return [rng.randint(-5, 12) for _ in range(size)]


def sample_maybe_sorted(rng: Rng) -> list[int]:
    xs = sample_ints(rng)
    return sorted(xs) if rng.random() < 0.5 else xs


def sample_words(rng: Rng) -> list[str]:
    size = 0 if rng.random() < 0.08 else rng.randint(1, 6)
    return [rng.choice(VOCAB) for _ in range(size)]


def sample_dict(rng: Rng) -> dict[str, int]:
    keys = rng.sample(KEYS, rng.randint(1, 5))
    return {k: rng.randint(-5, 20) for k in keys}


def sample_unique_dict(rng: Rng) -> dict[str, int]:
    keys = rng.sample(KEYS, rng.randint(1, 5))
    return dict(zip(keys, rng.sample(range(-5, 21), len(keys))))


def sample_int_dict(rng: Rng) -> dict[int, str]:
    return {k: rng.choice(VOCAB) for k in rng.sample(range(30), rng.randint(1, 5))}


DEFAULT_SAMPLERS: dict[str, Callable[[Rng], Any]] = {
    "int": sample_int,
    "str": sample_str,
    "list[int]": sample_ints,
    "list[str]": sample_words,
    "dict[str,int]": sample_dict,
    "dict[int,str]": sample_int_dict,
}


def too_large(v: Any) -> bool:
    if isinstance(v, bool):
        return False
    if isinstance(v, int):
        return abs(v) > 10**6
    if isinstance(v, str):
        return len(v) > 60
    if isinstance(v, list):
        return len(v) > 20 or any(too_large(x) for x in v)
    if isinstance(v, dict):
        return len(v) > 20 or any(too_large(x) for x in itertools.chain(v, v.values()))
    return False


# ---------------------------------------------------------------- primitives


def _no_params(rng: Rng) -> dict[str, Any]:
    return {}


def _k(lo: int, hi: int) -> Callable[[Rng], dict[str, Any]]:
    return lambda rng: {"k": rng.randint(lo, hi)}


def _choice(name: str, options: Any) -> Callable[[Rng], dict[str, Any]]:
    return lambda rng: {name: rng.choice(options)}


def _clamp_params(rng: Rng) -> dict[str, Any]:
    lo = rng.randint(-5, 5)
    return {"lo": lo, "hi": lo + rng.randint(5, 30)}


def _replace_params(rng: Rng) -> dict[str, Any]:
    a = rng.choice("aeilnorst")
    return {"a": a, "b": rng.choice([c for c in "aeioxyz-*" if c != a])}


def _get_params(rng: Rng) -> dict[str, Any]:
    return {"key": rng.choice(KEYS), "default": rng.randint(-1, 1)}


SEPS = (", ", "-", "|", ";", " ")


@dataclass(frozen=True)
class Primitive:
    """One typed step.  `expr` is Python source with `$x` for the input and `$name` for each
    parameter; `fn(x, **params)` computes the same value.  `first_only`: only as a chain's first
    step (its input needs what the sampler guarantees, e.g. unique dict values)."""

    name: str
    ty_in: str
    ty_out: str
    phrase: str
    expr: str
    fn: Callable[..., Any]
    params: Callable[[Rng], dict[str, Any]] = _no_params
    sample: Callable[[Rng], Any] | None = None
    first_only: bool = False

    def source(self, var: str, params: dict[str, Any]) -> str:
        return Template(self.expr).substitute(x=var, **{k: repr(v) for k, v in params.items()})

    def describe(self, params: dict[str, Any]) -> str:
        return Template(self.phrase).substitute(**{k: repr(v) for k, v in params.items()})

    def sampler(self) -> Callable[[Rng], Any]:
        return self.sample or DEFAULT_SAMPLERS[self.ty_in]


def _p(name, ty_in, ty_out, phrase, expr, fn, params=_no_params, sample=None, first_only=False):
    return Primitive(name, ty_in, ty_out, phrase, expr, fn, params, sample, first_only)


_VOWELS = "aeiou"
I, S, LI, LS, DSI, DIS, B = "int", "str", "list[int]", "list[str]", "dict[str,int]", "dict[int,str]", "bool"

PRIMITIVES: tuple[Primitive, ...] = (
    # int -> int
    _p("add", I, I, "add $k to it", "$x + $k", lambda x, k: x + k, _k(2, 9)),
    _p("subtract", I, I, "subtract $k from it", "$x - $k", lambda x, k: x - k, _k(2, 9)),
    _p("multiply", I, I, "multiply it by $k", "$x * $k", lambda x, k: x * k, _k(2, 5)),
    _p("negate", I, I, "negate it (change its sign)", "-$x", lambda x: -x),
    _p("absolute", I, I, "take its absolute value", "abs($x)", abs),
    _p("square", I, I, "square it", "$x * $x", lambda x: x * x),
    _p("clamp", I, I, "clamp it to the range $lo to $hi (inclusive)", "max($lo, min($hi, $x))",
       lambda x, lo, hi: max(lo, min(hi, x)), _clamp_params),
    _p("digit_sum", I, I, "replace it by the sum of its decimal digits (ignore the sign)",
       "sum(int(c) for c in str(abs($x)))", lambda x: sum(int(c) for c in str(abs(x)))),
    _p("max_with", I, I, "take the larger of it and $k", "max($x, $k)", lambda x, k: max(x, k), _k(0, 20)),
    _p("min_with", I, I, "take the smaller of it and $k", "min($x, $k)", lambda x, k: min(x, k), _k(0, 20)),
    _p("mod", I, I, "take its remainder modulo $k (Python's % operator)", "$x % $k",
       lambda x, k: x % k, _k(2, 9)),
    _p("floor_div", I, I, "divide it by $k, rounding down (Python's // operator)", "$x // $k",
       lambda x, k: x // k, _k(2, 5)),
    # int -> bool / str / list[int]
    _p("is_even", I, B, "check whether it is even", "$x % 2 == 0", lambda x: x % 2 == 0),
    _p("greater_than", I, B, "check whether it is greater than $k", "$x > $k", lambda x, k: x > k, _k(0, 20)),
    _p("is_multiple", I, B, "check whether it is divisible by $k", "$x % $k == 0",
       lambda x, k: x % k == 0, _k(2, 5)),
    _p("to_str", I, S, "convert it to its decimal string (like str())", "str($x)", str),
    _p("digits", I, LI, "split it into the list of its decimal digits (ignore the sign)",
       "[int(c) for c in str(abs($x))]", lambda x: [int(c) for c in str(abs(x))]),
    # str -> str
    _p("upper", S, S, "convert it to upper case", "$x.upper()", str.upper),
    _p("lower", S, S, "convert it to lower case", "$x.lower()", str.lower, sample=sample_mixed_case),
    _p("reverse_str", S, S, "reverse it (its characters in reverse order)", "$x[::-1]", lambda x: x[::-1]),
    _p("replace", S, S, "replace every $a with $b", "$x.replace($a, $b)",
       lambda x, a, b: x.replace(a, b), _replace_params),
    _p("strip", S, S, "remove its leading and trailing spaces", "$x.strip()", str.strip,
       sample=sample_padded),
    _p("first_char", S, S, "keep only its first character (the empty string if it is empty)", "$x[:1]",
       lambda x: x[:1]),
    _p("remove_vowels", S, S, "remove every vowel (a, e, i, o, u, in either case)",
       "''.join(c for c in $x if c.lower() not in 'aeiou')",
       lambda x: "".join(c for c in x if c.lower() not in _VOWELS)),
    _p("repeat", S, S, "repeat it $k times", "$x * $k", lambda x, k: x * k, _k(2, 3)),
    _p("remove_spaces", S, S, "remove all spaces", "$x.replace(' ', '')", lambda x: x.replace(" ", "")),
    _p("capitalize_words", S, S,
       "capitalize each space-separated word (first letter upper case, the rest lower case)",
       "' '.join(w.capitalize() for w in $x.split(' '))",
       lambda x: " ".join(w.capitalize() for w in x.split(" ")), sample=sample_mixed_case),
    # str -> int / bool / list / dict
    _p("str_length", S, I, "take its length (number of characters)", "len($x)", len),
    _p("count_char", S, I, "count how many times $ch occurs in it", "$x.count($ch)",
       lambda x, ch: x.count(ch), _choice("ch", "aeilnorst")),
    _p("count_vowels", S, I, "count its vowels (a, e, i, o, u, in either case)",
       "sum(1 for c in $x if c.lower() in 'aeiou')", lambda x: sum(1 for c in x if c.lower() in _VOWELS)),
    _p("count_words", S, I, "count its whitespace-separated words", "len($x.split())",
       lambda x: len(x.split())),
    _p("is_palindrome", S, B, "check whether it reads the same forwards and backwards", "$x == $x[::-1]",
       lambda x: x == x[::-1], sample=sample_palindrome),
    _p("starts_with", S, B, "check whether it starts with $ch", "$x.startswith($ch)",
       lambda x, ch: x.startswith(ch), _choice("ch", "abcdeilnorst")),
    _p("split_words", S, LS, "split it into words on whitespace", "$x.split()", str.split),
    _p("char_codes", S, LI, "convert it to the list of its character codes (ord of each character)",
       "[ord(c) for c in $x]", lambda x: [ord(c) for c in x]),
    _p("char_counts", S, DSI,
       "count its characters: a dict mapping each character to its number of occurrences, "
       "in order of first appearance",
       "{c: $x.count(c) for c in $x}", lambda x: {c: x.count(c) for c in x}),
    # list[int] -> int
    _p("sum_list", LI, I, "take the sum of its elements", "sum($x)", sum),
    _p("max_element", LI, I, "take its largest element (0 if it is empty)", "max($x, default=0)",
       lambda x: max(x, default=0)),
    _p("min_element", LI, I, "take its smallest element (0 if it is empty)", "min($x, default=0)",
       lambda x: min(x, default=0)),
    _p("length", LI, I, "take its length (number of elements)", "len($x)", len),
    _p("first", LI, I, "take its first element (0 if it is empty)", "$x[0] if $x else 0",
       lambda x: x[0] if x else 0),
    _p("last", LI, I, "take its last element (0 if it is empty)", "$x[-1] if $x else 0",
       lambda x: x[-1] if x else 0),
    _p("count_value", LI, I, "count how many elements equal $k", "$x.count($k)",
       lambda x, k: x.count(k), _k(0, 5)),
    # list[int] -> list[int]
    _p("sort", LI, LI, "sort it in ascending order", "sorted($x)", sorted),
    _p("reverse", LI, LI, "reverse the order of its elements", "$x[::-1]", lambda x: x[::-1]),
    _p("keep_even", LI, LI, "keep only the even elements", "[v for v in $x if v % 2 == 0]",
       lambda x: [v for v in x if v % 2 == 0]),
    _p("keep_odd", LI, LI, "keep only the odd elements", "[v for v in $x if v % 2 == 1]",
       lambda x: [v for v in x if v % 2 == 1]),
    _p("keep_positive", LI, LI, "keep only the elements greater than 0", "[v for v in $x if v > 0]",
       lambda x: [v for v in x if v > 0]),
    _p("add_each", LI, LI, "add $k to each element", "[v + $k for v in $x]",
       lambda x, k: [v + k for v in x], _k(1, 9)),
    _p("multiply_each", LI, LI, "multiply each element by $k", "[v * $k for v in $x]",
       lambda x, k: [v * k for v in x], _k(2, 5)),
    _p("square_each", LI, LI, "square each element", "[v * v for v in $x]", lambda x: [v * v for v in x]),
    _p("unique", LI, LI, "remove repeated values, keeping the first occurrence of each",
       "list(dict.fromkeys($x))", lambda x: list(dict.fromkeys(x))),
    _p("take", LI, LI, "keep only its first $k elements", "$x[:$k]", lambda x, k: x[:k], _k(2, 4)),
    _p("running_sum", LI, LI,
       "replace each element by the sum of all elements up to and including it (running sum)",
       "[sum($x[:i + 1]) for i in range(len($x))]", lambda x: [sum(x[: i + 1]) for i in range(len(x))]),
    # list[int] -> bool / str
    _p("is_sorted", LI, B, "check whether it is sorted in ascending (non-decreasing) order",
       "$x == sorted($x)", lambda x: x == sorted(x), sample=sample_maybe_sorted),
    _p("contains", LI, B, "check whether it contains $k", "$k in $x", lambda x, k: k in x, _k(0, 5)),
    _p("join_ints", LI, S, "join its elements into one string with $sep between them",
       "$sep.join(str(v) for v in $x)", lambda x, sep: sep.join(str(v) for v in x), _choice("sep", SEPS)),
    # list[str] -> ...
    _p("join_words", LS, S, "join the strings into one string with $sep between them", "$sep.join($x)",
       lambda x, sep: sep.join(x), _choice("sep", SEPS)),
    _p("longest_word", LS, S, "take its longest string (the first one if tied, '' if it is empty)",
       "max($x, key=len, default='')", lambda x: max(x, key=len, default="")),
    _p("num_words", LS, I, "take its length (number of strings)", "len($x)", len),
    _p("total_chars", LS, I, "take the total number of characters over all its strings",
       "sum(len(w) for w in $x)", lambda x: sum(len(w) for w in x)),
    _p("sort_words", LS, LS, "sort the strings alphabetically", "sorted($x)", sorted),
    _p("reverse_words", LS, LS, "reverse the order of the strings", "$x[::-1]", lambda x: x[::-1]),
    _p("upper_each", LS, LS, "convert each string to upper case", "[w.upper() for w in $x]",
       lambda x: [w.upper() for w in x]),
    _p("unique_words", LS, LS, "remove repeated strings, keeping the first occurrence of each",
       "list(dict.fromkeys($x))", lambda x: list(dict.fromkeys(x))),
    _p("keep_long", LS, LS, "keep only the strings longer than $k characters",
       "[w for w in $x if len(w) > $k]", lambda x, k: [w for w in x if len(w) > k], _k(3, 4)),
    _p("word_lengths", LS, LI, "replace each string by its length", "[len(w) for w in $x]",
       lambda x: [len(w) for w in x]),
    _p("count_items", LS, DSI,
       "count its strings: a dict mapping each string to its number of occurrences, "
       "in order of first appearance",
       "{w: $x.count(w) for w in $x}", lambda x: {w: x.count(w) for w in x}),
    # dict[str, int] -> ...
    _p("sorted_keys", DSI, LS, "take the list of its keys in sorted order", "sorted($x)", sorted),
    _p("values_sum", DSI, I, "take the sum of its values", "sum($x.values())", lambda x: sum(x.values())),
    _p("max_value", DSI, I, "take its largest value (0 if it is empty)", "max($x.values(), default=0)",
       lambda x: max(x.values(), default=0)),
    _p("dict_size", DSI, I, "take its number of entries", "len($x)", len),
    _p("get_default", DSI, I, "look up the key $key in it ($default if the key is missing)",
       "$x.get($key, $default)", lambda x, key, default: x.get(key, default), _get_params),
    _p("filter_values", DSI, DSI, "keep only the entries whose value is greater than $k",
       "{key: val for key, val in $x.items() if val > $k}",
       lambda x, k: {key: val for key, val in x.items() if val > k}, _k(0, 10)),
    _p("add_to_values", DSI, DSI, "add $k to every value", "{key: val + $k for key, val in $x.items()}",
       lambda x, k: {key: val + k for key, val in x.items()}, _k(1, 9)),
    _p("values_by_key", DSI, LI, "take the list of its values ordered by their keys",
       "[$x[key] for key in sorted($x)]", lambda x: [x[key] for key in sorted(x)]),
    _p("invert", DSI, DIS, "invert it: map each value to its key (the values are all different)",
       "{val: key for key, val in $x.items()}", lambda x: {val: key for key, val in x.items()},
       sample=sample_unique_dict, first_only=True),
    # dict[int, str] -> ...
    _p("sorted_int_keys", DIS, LI, "take the list of its keys in sorted order", "sorted($x)", sorted),
    _p("values_in_key_order", DIS, LS, "take the list of its values ordered by their keys",
       "[$x[key] for key in sorted($x)]", lambda x: [x[key] for key in sorted(x)]),
)

BY_NAME: dict[str, Primitive] = {p.name: p for p in PRIMITIVES}
_CLASHES = [p.name for p in PRIMITIVES if "_then_" in p.name or hasattr(builtins, p.name)]
if len(BY_NAME) != len(PRIMITIVES) or _CLASHES:  # a level-1 task named `sum` would recurse
    raise ImportError(f"synthetic primitives: names must be unique, not builtins, no '_then_': {_CLASHES}")


__all__ = ["BY_NAME", "DEFAULT_SAMPLERS", "KEYS", "LETTERS", "PRIMITIVES", "SEPS", "TYPES", "VOCAB", "Primitive", "Rng",
           "sample_dict", "sample_int", "sample_int_dict", "sample_ints", "sample_maybe_sorted", "sample_mixed_case",
           "sample_padded", "sample_palindrome", "sample_str", "sample_unique_dict", "sample_words", "too_large"]
