"""Comparison rules: how a STDOUT output and an EQUALS value are judged against the expected one -- coderl's own
(white-space-separated tokens, values by `==`) and each dataset's own grader's (issue 100), named in `RULES` with the
upstream file each follows (docs/data.md).  Pure functions of the two texts or values, in the parent only.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal

from .server.common import flat

_BLANK = re.compile(r"[ \t\n\r\x0b\x0c]+")  # ASCII white space only: a no-break or ideographic space is a character
_DECIMAL = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")  # what a float checker reads


def _tokens(text: str) -> list[str]:
    return [t for t in _BLANK.split(text) if t]


def outputs_match(actual: str, expected: str, float_tolerance: float | None = None) -> bool:
    """STDOUT checks, token-wise: both texts split on ASCII white space (trailing spaces, blank lines, line breaks
    vs spaces do not matter; `1<NBSP>2` is one token, as a judge's token reader sees it); tokens equal, or with
    `float_tolerance` both ASCII decimals (`-0.5`, `2.`, `1e3`; never `1_000`, `inf`, `nan`, other scripts' or
    full-width digits, which `float()` would read) within tol * max(1, |b|)."""
    got, want = _tokens(actual), _tokens(expected)
    if len(got) != len(want):
        return False
    for a, b in zip(got, want):
        if a == b:
            continue
        if float_tolerance is None or not (_DECIMAL.fullmatch(a) and _DECIMAL.fullmatch(b)):
            return False
        fa, fb = float(a), float(b)
        if not (math.isfinite(fa) and math.isfinite(fb)) or abs(fa - fb) > float_tolerance * max(1.0, abs(fb)):
            return False
    return True


# ---- Upstream comparison rules (issue 100): each preset's output (STDOUT) and value (EQUALS) checks follow its
# dataset's own grader, named in `RULES` and in docs/data.md.  "" is coderl's own: tokens exactly, values by `==`.

def _lcb_lines(text: str) -> list[str]:
    """LiveCodeBench's `get_stripped_lines`: the text stripped, split at "\n" only, each line stripped."""
    return [line.strip() for line in text.strip().split("\n")]


def _decimals(line: str):
    """LiveCodeBench's `convert_line_to_decimals`: each white-space-separated item as a `Decimal`, or None."""
    try:
        return [Decimal(item) for item in line.split()]
    except (ArithmeticError, ValueError):
        return None


def lcb_match(actual: str, expected: str) -> bool:
    """LiveCodeBench's `grade_stdio` (lcb_runner/evaluation/testing_util.py; NeMo Gym's code_gen runs the same):
    the same number of stripped lines, each equal, or its items all decimals and equal as decimals (`0.500` is
    `0.5`; `Decimal` reads what it reads: `inf` is `Infinity`, NaN equals nothing)."""
    got, want = _lcb_lines(actual), _lcb_lines(expected)
    if len(got) != len(want):
        return False
    for a, b in zip(got, want):
        if a == b:
            continue
        da, db = _decimals(a), _decimals(b)
        try:
            if da is None or db is None or da != db:
                return False
        except ArithmeticError:  # a signalling NaN (`sNaN`) raises on comparison: upstream's test errs, and fails
            return False
    return True


def _allclose(got: list[float], want: list[float]) -> bool:
    """`numpy.allclose(got, want)` for two lists of one length: |a - b| <= 1e-8 + 1e-5 * |b|, infinities equal
    only to themselves, NaN to nothing."""
    for a, b in zip(got, want):
        if a == b:
            continue
        if not (math.isfinite(a) and math.isfinite(b)) or abs(a - b) > 1e-8 + 1e-5 * abs(b):
            return False
    return True


def _floats(items) -> list[float] | None:
    try:
        return [float(item) for item in items]
    except (ValueError, TypeError, OverflowError):
        return None


def _close_lists(got, want) -> bool:
    """APPS's float fallback: both lists read as floats (`float()` of each item), of one length, `allclose`."""
    fg, fw = _floats(got), _floats(want)
    return fg is not None and fw is not None and len(fg) == len(fw) and _allclose(fg, fw)


def _rounded(sets) -> set | None:
    """`{frozenset(round(float(t), 3) for t in s) for s in sets}`, or None where an item is no float."""
    try:
        return {frozenset(round(float(t), 3) for t in s) for s in sets}
    except (ValueError, TypeError, OverflowError):
        return None


def verl_match(actual: str, expected: str) -> bool:
    """verl's `prime_code` reward (verl/utils/reward_score/prime_code/testing_util.py), APPS's verdict reworked: the
    same steps up to the float fallback, which needs as many printed lines as expected ones and is skipped when every
    pair of lines is digits only (`str.isdigit`: `03` is not `3`); no token-set fallback."""
    return apps_match(actual, expected, sets=False, ints_exact=True)


def apps_match(actual: str, expected: str, sets: bool = True, ints_exact: bool = False) -> bool:
    """APPS's standard-input verdict (hendrycks/apps eval/testing_util.py, `run_test`), whose captured output is
    the list of the printed lines (`str.splitlines`), tried in its order: the joined lines stripped equal the
    expected text stripped (`custom_compare_`, also with each line stripped); the lines equal the expected text's
    non-empty lines stripped (also once the empty printed lines are dropped); both read line by line as floats,
    `numpy.allclose`; then, with `sets`, the unsound fallbacks: the set of each line's set of tokens equal, or of
    each token rounded to 3 decimals (line order, repeats and token order do not matter)."""
    lines = actual.splitlines()
    want = expected.strip()
    if "\n".join(lines).strip() == want or "\n".join(line.strip() for line in lines).strip() == want:
        return True
    if lines == [expected]:
        return True
    expected_lines = [x.strip() for x in expected.split("\n") if x]
    if lines == expected_lines:
        return True
    lines = [line for line in lines if line]
    if lines == expected_lines:
        return True
    if ints_exact and (len(lines) != len(expected_lines)
                       or all(a.isdigit() and b.isdigit() for a, b in zip(lines, expected_lines))):
        return False if not sets else _set_fallbacks(lines, expected_lines)
    if _close_lists(lines, expected_lines):
        return True
    return sets and _set_fallbacks(lines, expected_lines)


def _set_fallbacks(lines: list[str], expected_lines: list[str]) -> bool:
    """APPS's unsound last steps: the set of the lines' token sets, then of their tokens rounded to 3 decimals."""
    want_sets = {frozenset(line.split()) for line in expected_lines}
    got_sets = [line.split() for line in lines if line.split()]
    if {frozenset(s) for s in got_sets} == want_sets:
        return True
    rounded = _rounded(got_sets)
    return rounded is not None and rounded == _rounded([line.split() for line in expected_lines])


def taco_match(actual: str, expected: str, sets: bool = True) -> bool:
    """TACO's standard-input verdict (FlagOpen/TACO metrics/testing_util.py, `compare_std_results`), which, unlike
    APPS's, gets the program's stdout as one string: stripped, equal to the expected text stripped; or the
    stdout's characters read one by one as floats, `numpy.allclose` with the expected text's non-empty lines
    stripped (a one-character answer: `5` for `5.000`); then, with `sets`, the unsound fallbacks: the set of the
    stdout's tokens, each as its set of characters, equal to the set of the expected lines' token sets, or the
    same with every item read as a float rounded to 3 decimals."""
    if actual.strip() == expected.strip():
        return True
    expected_lines = [x.strip() for x in expected.split("\n") if x]
    if _close_lists(actual, expected_lines):
        return True
    if not sets:
        return False
    tokens = set(actual.split())
    want_sets = [line.split() for line in expected_lines]
    if {frozenset(t) for t in tokens} == {frozenset(s) for s in want_sets}:
        return True
    rounded = _rounded(tokens)
    return rounded is not None and rounded == _rounded(want_sets)


def open_r1_match(actual: str, expected: str, strict: bool = False) -> bool:
    """open-r1's `code_reward` (src/open_r1/rewards.py, its evaluation script): the stdout stripped and the expected
    text, each split at "\n", compared line by line, each line stripped, over the pairs `zip` makes: it stops at the
    shorter, so missing or extra lines are never seen (unsound: a prefix of the answer passes).  `strict`: the same
    with the expected text stripped too and as many lines on both sides."""
    got, want = actual.strip().split("\n"), (expected.strip() if strict else expected).split("\n")
    if strict and len(got) != len(want):
        return False
    return all(a.strip() == b.strip() for a, b in zip(got, want))


def _rllm_stripped(got: str, want: str, sound: bool) -> bool:
    """rLLM's `stripped_string_compare`: stripped equal; else both texts one float each, `numpy.isclose` (and that is
    the answer); else the non-empty stripped lines, as many on both sides, each with as many tokens, each pair equal
    or both floats `isclose`, and (unsound, left out by `sound`) a pair that is not two floats counts as equal."""
    got, want = got.strip(), want.strip()
    if got == want:
        return True
    both = _floats([got, want])
    if both is not None:
        return _allclose(both[:1], both[1:])
    lines = [line.strip() for line in got.split("\n") if line.strip()]
    expected = [line.strip() for line in want.split("\n") if line.strip()]
    if len(lines) != len(expected):
        return False
    for line, other in zip(lines, expected):
        tokens, others = line.split(), other.split()
        if len(tokens) != len(others):
            return False
        for a, b in zip(tokens, others):
            if a == b:
                continue
            pair = _floats([a, b])
            if pair is None:
                if sound:
                    return False
                continue  # upstream's `except: pass`: "yes" for "YES" passes
            if not _allclose(pair[:1], pair[1:]):
                return False
    return True


def rllm_taco_match(actual: str, expected: str, sets: bool = True) -> bool:
    """rLLM's copy of TACO's grader (rllm/rewards/code_utils/taco.py, DeepCoder's reward for its TACO rows) on the
    stdout with its final newlines taken off (`clean_stdout`): its own `stripped_string_compare` first (numbers
    within `numpy.isclose`, and, unsound, any two tokens that are not both numbers taken as equal), then TACO's
    `compare_std_results` steps (`taco_match`).  `sets=False`: neither unsound step."""
    actual = actual.rstrip("\n")
    return _rllm_stripped(actual, expected, sound=not sets) or taco_match(actual, expected, sets=sets)


def _listed(value):
    return list(value) if isinstance(value, tuple) else value


def lcb_value_match(value, expected) -> bool:
    """LiveCodeBench's `grade_call_based`: a returned tuple as a list, then `==`."""
    return flat.equal(_listed(value), expected)


def _dumps(value):
    try:
        return json.dumps(value)
    except (TypeError, ValueError, RecursionError):
        return None


def nemo_gym_value_match(value, expected) -> bool:
    """NeMo Gym code_gen's `grade_call_based` (its lcb_integration/testing_util.py): LiveCodeBench's, or equal as
    `json.dumps` text (nested tuples as lists, NaN as NaN), or both read by `float()` and `numpy.allclose`."""
    value = _listed(value)
    if flat.equal(value, expected):
        return True
    text = _dumps(value)
    if text is not None and text == _dumps(expected):
        return True
    both = _floats([value, expected])
    return both is not None and _allclose(both[:1], both[1:])


def apps_value_match(value, expected) -> bool:
    """APPS's and TACO's call-based verdict (`run_test` / `execute_cb_code`): a returned tuple as a list; equal to
    the expected output, or to its first item when that is a non-empty list (the datasets wrap each answer in a
    list), or, when the first returned item is a tuple, the items as lists equal to that first item."""
    value = _listed(value)
    if flat.equal(value, expected):
        return True
    if not (isinstance(expected, list) and expected):
        return False
    if flat.equal(value, expected[0]):
        return True
    if isinstance(value, list) and value and isinstance(value[0], tuple):
        try:
            return flat.equal([list(x) for x in value], expected[0])
        except TypeError:  # an item that is no sequence: upstream's try fails the same way
            return False
    return False


# JavaScript's white space and line terminators (what `Number(" 12 ")` trims), and its numeric string literals
_JS_SPACE = ("\t\n\x0b\x0c\r \xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
             "\u2028\u2029\u202f\u205f\u3000\ufeff")
_JS_DECIMAL = re.compile(r"[+-]?(?:Infinity|(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?)")
_JS_RADIX = re.compile(r"0(?:[xX][0-9a-fA-F]+|[oO][0-7]+|[bB][01]+)")


def _js_number(value) -> float:
    """JavaScript's ToNumber of a JSON primitive (a string as `Number(s)` reads it; NaN where it reads none)."""
    if isinstance(value, bool):
        return 1.0 if value else 0.0
    if isinstance(value, (int, float)):
        try:
            return float(value)
        except OverflowError:  # an integer past a double's range is an infinity in JavaScript
            return math.inf if value > 0 else -math.inf
    text = value.strip(_JS_SPACE)
    if not text:
        return 0.0
    if _JS_DECIMAL.fullmatch(text):
        return float(text.replace("Infinity", "inf"))
    if _JS_RADIX.fullmatch(text):
        return float(int(text[2:], {"x": 16, "o": 8, "b": 2}[text[1].lower()]))
    return math.nan


def _js_loose_primitive(a, b) -> bool:
    """`a == b` in JavaScript for two JSON primitives (null, booleans, numbers, strings), or both NaN (Node's
    `assert.deepEqual` counts two NaN equal)."""
    if a is None or b is None:
        return a is None and b is None
    if isinstance(a, str) and isinstance(b, str):
        return a == b
    x, y = _js_number(a), _js_number(b)
    return x == y or (math.isnan(x) and math.isnan(y) and not isinstance(a, str) and not isinstance(b, str))


def js_loose_equal(value, expected) -> bool:
    """Node's legacy (loose) `assert.deepEqual`, which MultiPL-E's JavaScript tests call (lib/internal/util/
    comparisons.js, `innerDeepEqual` not strict), on JSON values: primitives by JavaScript's `==` (`1 == true`,
    `"9" == 9`, `"" == 0`; null equals only null); an array only an array of the same length, item by item; an
    object only an object with the same keys, value by value.  Without recursion."""
    stack = [(value, expected)]
    while stack:
        v, e = stack.pop()
        v_box, e_box = isinstance(v, (list, tuple, dict)), isinstance(e, (list, tuple, dict))
        if not v_box and not e_box:
            if not _js_loose_primitive(v, e):
                return False
        elif not (v_box and e_box):
            return False
        elif isinstance(v, dict) or isinstance(e, dict):
            if not (isinstance(v, dict) and isinstance(e, dict)) or set(v) != {str(k) for k in e}:
                return False
            stack.extend((v[str(k)], item) for k, item in e.items())
        else:
            if len(v) != len(e):
                return False
            stack.extend(zip(v, e))
    return True


@dataclass(frozen=True)
class Rule:
    """A comparison rule: how STDOUT output and EQUALS values are judged; `upstream`: the file it follows."""

    name: str
    output: Callable[[str, str], bool] | None  # None: coderl's token rule (with the request's float_tolerance)
    value: Callable[[object, object], bool] | None  # None: `==` (`judge.values_match`)
    upstream: str
    sound: bool = True  # False: a fallback accepts wrong answers (a comparison of token sets)
    strict: str = ""  # for an unsound rule: the same rule without its unsound fallbacks


RULES: dict[str, Rule] = {r.name: r for r in (
    Rule("tokens", None, None, "coderl's own: white-space-separated tokens equal, values by =="),
    Rule("livecodebench", lcb_match, lcb_value_match,
         "LiveCodeBench lcb_runner/evaluation/testing_util.py (grade_stdio, grade_call_based)"),
    Rule("nemo-gym", lcb_match, nemo_gym_value_match,
         "NeMo Gym resources_servers/code_gen/lcb_integration/testing_util.py (grade_stdio, grade_call_based)"),
    Rule("apps", apps_match, apps_value_match, "hendrycks/apps eval/testing_util.py (run_test)", sound=False,
         strict="apps-strict"),
    Rule("apps-strict", lambda a, e: apps_match(a, e, sets=False), apps_value_match,
         "hendrycks/apps eval/testing_util.py without its token-set fallbacks"),
    Rule("verl-prime", verl_match, apps_value_match,
         "verl verl/utils/reward_score/prime_code/testing_util.py (run_test)"),
    Rule("open-r1", open_r1_match, None, "open-r1 src/open_r1/rewards.py (code_reward's evaluation script)",
         sound=False, strict="open-r1-strict"),
    Rule("open-r1-strict", lambda a, e: open_r1_match(a, e, strict=True), None,
         "open-r1 src/open_r1/rewards.py with every line compared"),
    Rule("rllm-taco", rllm_taco_match, apps_value_match,
         "rLLM rllm/rewards/code_utils/taco.py (execute_std_code, compare_std_results)", sound=False,
         strict="rllm-taco-strict"),
    Rule("rllm-taco-strict", lambda a, e: rllm_taco_match(a, e, sets=False), apps_value_match,
         "rLLM rllm/rewards/code_utils/taco.py without its token-set fallbacks"),
    Rule("multipl-e-js", None, js_loose_equal,
         "MultiPL-E's JavaScript tests (dataset_builder/humaneval_to_js.py): Node's assert.deepEqual, loose"),
    Rule("taco", taco_match, apps_value_match,
         "FlagOpen/TACO metrics/testing_util.py (compare_std_results, execute_cb_code)", sound=False,
         strict="taco-strict"),
    Rule("taco-strict", lambda a, e: taco_match(a, e, sets=False), apps_value_match,
         "FlagOpen/TACO metrics/testing_util.py without its token-set fallbacks"),
)}


def rule(name: str | None) -> Rule:
    """The rule of that name ("" or None: coderl's own token rule); ValueError naming the known ones."""
    try:
        return RULES[name or "tokens"]
    except KeyError:
        raise ValueError(f"comparison rule {name!r}: expected one of {', '.join(RULES)}") from None
