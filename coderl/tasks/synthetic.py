"""Procedurally generated function tasks: chains of small primitives, in HumanEval layout.

A *primitive* is one step over a typed value (``add $k to each element``: list[int] -> list[int]).
It carries a natural-language phrase, its reference implementation as Python expression SOURCE
(``[v + $k for v in $x]``), an equivalent Python callable (used to compute the expected outputs
in-process), its input/output types, a parameter sampler and an input sampler.  A task of level L
is a chain of L primitives whose types line up; its prompt is a typed signature named after the
chain (``def add_each_then_reverse(xs: list[int]) -> list[int]:``) with a docstring giving the
steps in order and 1-2 ``>>>`` examples; its reference solution is the chain's sources composed
into a body; its tests are 5-8 ``assert candidate(INPUT) == EXPECTED`` (EQUALS tests, judged in the
parent).

Every task is checked before it is kept: the test outputs are not all equal (a constant solution
fails), at least one output differs from its input (the identity fails), no output is None
(``pass`` fails), no step of the chain is a no-op on every test input, nothing raises and nothing
grows huge.  A rejected draw is resampled (new parameters and inputs) up to ``tries`` times, then
its composition is dropped for the rest of the run; both are counted in `GenerationStats`, which the
loader records in every task's ``metadata["generator"]`` and in ``TaskSet.describe()``.

Held-out splits are made of unseen compositions.  Each primitive is in a split by a fixed list
(`HELD_OUT`, ~10% valid + ~10% test) and each ordered pair of adjacent primitives by a fixed hash
(70% train, 15% valid, 15% test).  A chain is *train* when all its primitives and adjacent pairs are
train, *valid* when they are all train or valid with at least one valid, *test* likewise with test;
chains mixing valid and test atoms are never used.  So every valid/test task contains a primitive
or a pair that no train task of any level contains, and valid and test share no composition.

Spec options (``synthetic:k=v,...``; every key is optional):

    level=1      chain length: 1, 2, 3, or a range such as 1-3 (n is shared evenly over the levels)
    n=100        tasks per split
    seed=0       generation seed (same seed, same tasks; per level, n=100 is a prefix of n=200)
    split=       train | valid | test | all (all = the three splits concatenated, 3n tasks).
                 When the spec does not fix it, `load_tasks(..., split=)` picks it: train -> train,
                 test -> test, valid -> valid, all -> all.  When it does, a `load_tasks` split other
                 than all must agree with it.  The generic seeded split (`coderl.tasks.split`) is
                 never applied to synthetic tasks; `load_tasks`'s seed does not change them either.
    tries=20     draws per composition before it is dropped

Task ids: ``synthetic/L2/add_each_then_reverse/17`` (17 = index within its split and level).
"""

from __future__ import annotations

import builtins
import functools
import hashlib
import itertools
import random
import textwrap
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from string import Template
from typing import Any

from coderl.sandbox.types import TestCase
from coderl.tasks.humaneval import classify_statement
from coderl.tasks.types import Task

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


def _too_large(v: Any) -> bool:
    if isinstance(v, bool):
        return False
    if isinstance(v, int):
        return abs(v) > 10**6
    if isinstance(v, str):
        return len(v) > 60
    if isinstance(v, list):
        return len(v) > 20 or any(_too_large(x) for x in v)
    if isinstance(v, dict):
        return len(v) > 20 or any(_too_large(x) for x in itertools.chain(v, v.values()))
    return False


# ---------------------------------------------------------------- primitives


def _no_params(rng: Rng) -> dict[str, Any]:
    return {}


def _k(lo: int, hi: int, name: str = "k") -> Callable[[Rng], dict[str, Any]]:
    return lambda rng: {name: rng.randint(lo, hi)}


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

# ---------------------------------------------------------------- held-out compositions

SPLITS = ("train", "valid", "test")
HELD_OUT: dict[str, tuple[str, ...]] = {  # fixed primitive splits (~10% each); the rest is train
    "valid": ("subtract", "is_multiple", "remove_vowels", "count_vowels", "keep_odd", "last",
              "total_chars", "max_value"),
    "test": ("digit_sum", "capitalize_words", "is_palindrome", "running_sum", "unique", "longest_word",
             "values_sum", "square_each"),
}
_PRIM_SPLIT = {name: split for split, names in HELD_OUT.items() for name in names}
if not set(_PRIM_SPLIT) <= set(BY_NAME):
    raise ImportError(f"HELD_OUT names unknown primitives: {sorted(set(_PRIM_SPLIT) - set(BY_NAME))}")


def primitive_split(name: str) -> str:
    return _PRIM_SPLIT.get(name, "train")


def pair_split(a: str, b: str) -> str:
    """Split of the ordered pair a -> b by a fixed hash: 70% train, 15% valid, 15% test."""
    bucket = int.from_bytes(hashlib.sha256(f"{a}>{b}".encode()).digest()[:8], "big") % 100
    return "train" if bucket < 70 else "valid" if bucket < 85 else "test"


def composition_split(names: tuple[str, ...]) -> str | None:
    """train / valid / test for a chain of primitive names, None if it mixes valid and test atoms."""
    atoms = {primitive_split(n) for n in names} | {pair_split(a, b) for a, b in itertools.pairwise(names)}
    if atoms == {"train"}:
        return "train"
    if "valid" in atoms and "test" in atoms:
        return None
    return "valid" if "valid" in atoms else "test"


def _chains(level: int) -> list[tuple[str, ...]]:
    chains: list[tuple[str, ...]] = [(p.name,) for p in PRIMITIVES]
    for _ in range(level - 1):
        chains = [
            c + (p.name,)
            for c in chains
            for p in PRIMITIVES
            if not p.first_only and p.name != c[-1] and p.ty_in == BY_NAME[c[-1]].ty_out
        ]
    return chains


@functools.cache
def _pool(level: int, split: str) -> tuple[tuple[str, ...], ...]:
    return tuple(sorted(c for c in _chains(level) if composition_split(c) == split))


def compositions(level: int, split: str) -> list[tuple[str, ...]]:
    """All chains of `level` primitives in `split`, sorted (a fresh list; computed once)."""
    return list(_pool(level, split))


# ---------------------------------------------------------------- one task


def composition_name(names: tuple[str, ...]) -> str:
    return "_then_".join(names)


def run_chain(chain: list[Primitive], params: list[dict[str, Any]], x: Any) -> list[Any]:
    """The value after each step (the generator's own pure functions; no exec)."""
    trace = []
    for p, prm in zip(chain, params):
        x = p.fn(x, **prm)
        trace.append(x)
    return trace


def reference_body(chain: list[Primitive], params: list[dict[str, Any]]) -> str:
    """The composed sources as a function body (4-space indent), ending in `return`."""
    var = TYPES[chain[0].ty_in][0]
    lines = []
    for i, (p, prm) in enumerate(zip(chain, params)):
        expr = p.source(var, prm)
        if i == len(chain) - 1:
            lines.append(f"    return {expr}\n")
        else:
            var_out = TYPES[p.ty_out][0]
            lines.append(f"    {var_out} = {expr}\n")
            var = var_out
    return "".join(lines)


def build_prompt(name: str, chain: list[Primitive], params: list[dict[str, Any]], examples) -> str:
    arg, ann_in, desc_in = TYPES[chain[0].ty_in]
    _, ann_out, desc_out = TYPES[chain[-1].ty_out]
    steps = [p.describe(prm) for p, prm in zip(chain, params)]
    if len(steps) == 1:
        head = f"Given {arg} ({desc_in}), {steps[0]} and return the result ({desc_out})."
        lines = textwrap.wrap(head, 88)
    else:
        head = f"Given {arg} ({desc_in}), do these steps in order and return the result ({desc_out}):"
        lines = textwrap.wrap(head, 88)
        lines += [f"{i}. {step}" for i, step in enumerate(steps, 1)]
    lines.append("")
    for x, y in examples:
        lines += [f">>> {name}({x!r})", repr(y)]
    doc = "".join(f"    {line}\n" if line else "\n" for line in lines)
    return f'def {name}({arg}: {ann_in}) -> {ann_out}:\n    """{doc.lstrip()}    """\n'


def _reject_reason(
    chain: list[Primitive], inputs: list[Any], traces: list[list[Any]], n_tests: int
) -> str | None:
    outs = [t[-1] for t in traces]
    if any(o is None for o in outs):
        return "none_output"
    if any(_too_large(v) for t in traces for v in t):
        return "too_large"
    tests_in, tests_out = inputs[:n_tests], outs[:n_tests]
    if all(o == tests_out[0] for o in tests_out):
        return "constant"
    if all(type(o) is type(x) and o == x for x, o in zip(tests_in, tests_out)):
        return "identity"
    for i, p in enumerate(chain):
        if p.ty_in == p.ty_out:
            before = [x if i == 0 else t[i - 1] for x, t in zip(tests_in, traces)]
            if all(b == t[i] for b, t in zip(before, traces[:n_tests])):
                return "noop_step"
    return None


@dataclass
class GenerationStats:
    """What the generator did; `to_dict()` goes into task metadata and `TaskSet.describe()`."""

    requested: int = 0
    generated: int = 0
    compositions: dict[str, int] = field(default_factory=dict)  # "L2/test" -> available chains
    rejected_draws: Counter = field(default_factory=Counter)  # reason -> draws resampled
    dropped: list[str] = field(default_factory=list)  # "L2/test/name" of dropped compositions

    def to_dict(self) -> dict[str, Any]:
        return {
            "requested": self.requested,
            "generated": self.generated,
            "compositions": dict(self.compositions),
            "rejected_draws": dict(sorted(self.rejected_draws.items())),
            "dropped_compositions": len(self.dropped),
            "dropped": list(self.dropped),
        }


def _draw(rng: Rng, chain: list[Primitive], stats: GenerationStats):
    """One attempt: (params, test pairs, example pairs) or None (counted in stats)."""
    params = [p.params(rng) for p in chain]
    samplers = [chain[0].sampler()] + [p.sampler() for p in chain[1:] if p.ty_in == chain[0].ty_in]
    n_tests, n_examples = rng.randint(5, 8), rng.randint(1, 2)
    inputs, seen = [], set()
    for _ in range(20 * (n_tests + n_examples)):
        x = rng.choice(samplers)(rng)
        if repr(x) not in seen:
            seen.add(repr(x))
            inputs.append(x)
            if len(inputs) == n_tests + n_examples:
                break
    else:
        stats.rejected_draws["few_inputs"] += 1
        return None
    try:
        traces = [run_chain(chain, params, x) for x in inputs]
    except Exception:  # noqa: BLE001 - a primitive rejected this input; resample
        stats.rejected_draws["error"] += 1
        return None
    reason = _reject_reason(chain, inputs, traces, n_tests)
    if reason:
        stats.rejected_draws[reason] += 1
        return None
    pairs = [(x, t[-1]) for x, t in zip(inputs, traces)]
    return params, pairs[:n_tests], pairs[n_tests:]


def make_task(
    task_id: str, names: tuple[str, ...], params: list[dict[str, Any]], tests, examples, meta: dict[str, Any]
) -> Task:
    chain = [BY_NAME[n] for n in names]
    name = composition_name(names)
    cases = []
    for i, (x, y) in enumerate(tests):
        kind, source, expected = classify_statement(f"assert candidate({x!r}) == {y!r}", "candidate")
        cases.append(TestCase(id=str(i), source=source, check=kind, expected=expected))
    return Task(
        task_id=task_id,
        kind="function",
        prompt=build_prompt(name, chain, params, examples),
        tests=tuple(cases),
        entry_point=name,
        reference_solution=reference_body(chain, params),
        source="synthetic",
        metadata={"format": "synthetic", "composition": list(names), "params": params, **meta},
    )


# ---------------------------------------------------------------- options and generation


@dataclass(frozen=True)
class SyntheticConfig:
    levels: tuple[int, ...] = (1,)
    n: int = 100
    seed: int = 0
    split: str | None = None  # None: chosen by load_tasks
    tries: int = 20


OPTION_KEYS = ("level", "n", "seed", "split", "tries")
MAX_LEVEL = 3


def _int_option(key: str, value: str, lo: int) -> int:
    try:
        number = int(value)
    except ValueError:
        number = lo - 1
    if number < lo:
        raise ValueError(f"option {key}={value!r}: expected an integer >= {lo}")
    return number


def parse_options(options: dict[str, str]) -> SyntheticConfig:
    """Validate spec options; raises a one-line `ValueError` naming the key (and value)."""
    unknown = [k for k in options if k not in OPTION_KEYS]
    if unknown:
        raise ValueError(f"unknown option {unknown[0]!r} (known: {', '.join(OPTION_KEYS)})")
    kw: dict[str, Any] = {}
    if "level" in options:
        value = options["level"]
        lo, dash, hi = value.partition("-")
        try:
            a, b = int(lo), int(hi if dash else lo)
        except ValueError:
            a = b = 0
        if not 1 <= a <= b <= MAX_LEVEL:
            raise ValueError(f"option level={value!r}: expected 1, 2, 3 or a range like 1-3")
        kw["levels"] = tuple(range(a, b + 1))
    if "n" in options:
        kw["n"] = _int_option("n", options["n"], 1)
    if "seed" in options:
        kw["seed"] = _int_option("seed", options["seed"], 0)
    if "tries" in options:
        kw["tries"] = _int_option("tries", options["tries"], 1)
    if "split" in options:
        if options["split"] not in SPLITS + ("all",):
            raise ValueError(f"option split={options['split']!r}: expected train, valid, test or all")
        kw["split"] = options["split"]
    return SyntheticConfig(**kw)


def _generate_one(level: int, split: str, n: int, cfg: SyntheticConfig, stats: GenerationStats) -> list[Task]:
    pool = compositions(level, split)
    stats.compositions[f"L{level}/{split}"] = len(pool)
    rng = random.Random(f"coderl-synthetic/{cfg.seed}/{split}/L{level}")
    rng.shuffle(pool)
    tasks: list[Task] = []
    pos = 0
    while len(tasks) < n:
        if not pool:
            raise ValueError(f"every level-{level} {split} composition was dropped; no task can be made")
        names = pool[pos % len(pool)]
        chain = [BY_NAME[x] for x in names]
        for _ in range(cfg.tries):
            drawn = _draw(rng, chain, stats)
            if drawn:
                break
        if not drawn:
            stats.dropped.append(f"L{level}/{split}/{composition_name(names)}")
            pool.pop(pos % len(pool))
            continue
        params, tests, examples = drawn
        meta = {"level": level, "split": split, "seed": cfg.seed}
        task_id = f"synthetic/L{level}/{composition_name(names)}/{len(tasks)}"
        tasks.append(make_task(task_id, names, params, tests, examples, meta))
        pos += 1
    return tasks


def generate(cfg: SyntheticConfig, split: str) -> tuple[list[Task], GenerationStats]:
    """Tasks of `split` (train / valid / test / all) for `cfg`; deterministic from `cfg.seed`."""
    stats = GenerationStats()
    tasks: list[Task] = []
    for sp in SPLITS if split == "all" else (split,):
        share, extra = divmod(cfg.n, len(cfg.levels))
        for i, level in enumerate(cfg.levels):
            count = share + (i < extra)
            stats.requested += count
            if count:
                tasks.extend(_generate_one(level, sp, count, cfg, stats))
    stats.generated = len(tasks)
    summary = stats.to_dict()
    for t in tasks:
        t.metadata["generator"] = summary  # one shared dict
    return tasks, stats


def resolve_split(spec_split: str | None, load_split: str) -> str:
    """The split to generate, from the spec's `split=` and `load_tasks`'s split (module docstring)."""
    if spec_split is None:
        return load_split
    if load_split not in ("all", spec_split):
        raise ValueError(
            f"option split={spec_split!r} conflicts with split {load_split!r} (drop one of them)"
        )
    return spec_split
