"""Parent-side judging of final answers (`Mode.ANSWER`): a math reply is text, not a program, so nothing
runs.  The parent reads the reply's final answer and compares it with the expected one, which, as for
every check, never leaves the parent.

Extraction (`extract_answer`), in this order; the first rule whose marker the reply has decides:
  1. `####`: the text after the reply's last `####` up to the end of that line (GSM8K's layout);
  2. `\\boxed{...}` (or `\\fbox{...}`): the reply's last one, braces balanced;
  3. otherwise the last number anywhere in the reply.
A marked answer (rules 1 and 2) must hold exactly one number: `#### 17 or 18` is no answer, so
hedging never pays.  Words, `$`, `%` and LaTeX spacing around the number are ignored (`#### $1,200`
is 1200).  Every rule yields at most one number per reply, so a reply gets one guess.

Numbers (`parse_number`): ASCII digits only (`int()` would also read other scripts' digits), an
optional sign (`-` or U+2212), thousands separators in groups of three (`1,234`), decimals (`2.50`,
`.5`), fractions `a/b` and LaTeX `\\frac{a}{b}` (`\\dfrac`, `\\tfrac`).  A number of more than
`MAX_DIGITS` digits is no number: exact arithmetic on it would be the verifier's cost, not the
reply's.  Scientific notation is not read (`1e3` is no number).

Comparison (`answers_match`): integers and fractions exactly (`0.75` matches `3/4`, `18.0` matches
`18`; `0.333` does not match `1/3`); an expected decimal within `tolerance * max(1, |expected|)`
(default `DEFAULT_TOLERANCE`), the STDOUT checks' rule.
"""

from __future__ import annotations

import re
from fractions import Fraction
from typing import NamedTuple

from .types import ExecutionRequest, ExecutionResult, Status, TestOutcome

MAX_DIGITS = 40  # digits of one number, beyond which it is not read
MAX_REPLY_CHARS = 200_000  # a longer reply is judged on its last this-many characters
DEFAULT_TOLERANCE = 1e-6

_FRAC = re.compile(r"\\[dt]?frac\s*\{\s*([^{}]*?)\s*\}\s*\{\s*([^{}]*?)\s*\}")
_LATEX_NOISE = re.compile(r"\\[,;:! ]|\\(?:left|right)\b|~|\\\$|\\%")
# A number: a plain or thousands-grouped integer with optional decimals and an optional `/denominator`, or
# `.5`.  It does not start inside a word or another number (`x2`, `v1.5`).  A `-` is its sign unless it
# follows a letter, digit or closing bracket (then it is a binary minus: `5-3` holds 5 and 3).
_NUMBER = re.compile(
    r"(?P<sign>(?<![\w)\]}.])-\s?)?(?<![\w.])"
    r"(?P<num>(?:\d{1,3}(?:,\d{3})+(?!\d)|\d+)(?:\.\d+)?(?:\s*/\s*\d+)?|\.\d+)(?!\.?\d|[eE][+-]?\d)",
    re.ASCII,
)


class Answer(NamedTuple):
    """A reply's final answer: the number's text as written, its value, and the rule that found it."""

    text: str
    value: Fraction
    rule: str  # "####", "boxed" or "last number"


def _normalise(text: str) -> str:
    text = text.replace("\u2212", "-").replace("\u2013", "-")
    text = _FRAC.sub(lambda m: f"{m.group(1)}/{m.group(2)}", text)
    return _LATEX_NOISE.sub(" ", text)


def _value(token: str, negative: bool) -> Fraction | None:
    token = re.sub(r"[\s,]", "", token)
    if sum(c.isdigit() for c in token) > MAX_DIGITS:
        return None
    num, _, den = token.partition("/")
    try:
        value = Fraction(num) / Fraction(den) if den else Fraction(num)
    except (ValueError, ZeroDivisionError):
        return None
    return -value if negative else value


def numbers(text: str) -> list[tuple[str, Fraction | None]]:
    """Every number in `text` (after normalisation), in order: (as written, value or None if unreadable)."""
    out = []
    for m in _NUMBER.finditer(_normalise(text)):
        token, negative = m.group("num"), bool(m.group("sign"))
        out.append((("-" if negative else "") + token.strip(), _value(token, negative)))
    return out


def parse_number(text: str) -> Fraction | None:
    """The value of a text that holds exactly one number (and perhaps words, `$`, `%`); else None."""
    found = numbers(text)
    return found[0][1] if len(found) == 1 else None


def _last_boxed(text: str) -> str | None:
    start = max(text.rfind("\\boxed{"), text.rfind("\\fbox{"))
    if start < 0:
        return None
    i = text.index("{", start) + 1
    depth = 1
    for j in range(i, len(text)):
        depth += {"{": 1, "}": -1}.get(text[j], 0)
        if depth == 0:
            return text[i:j]
    return text[i:]  # an unclosed box (a truncated reply): what it holds so far


def extract_answer(reply: str) -> Answer | None:
    """The reply's final answer by the module's rules, or None (no answer, or an ambiguous marked one)."""
    reply = reply[-MAX_REPLY_CHARS:]
    if "####" in reply:
        marked, rule = reply.rsplit("####", 1)[1].split("\n", 1)[0], "####"
    elif (boxed := _last_boxed(reply)) is not None:
        marked, rule = boxed, "boxed"
    else:
        found = [(t, v) for t, v in numbers(reply) if v is not None]
        return Answer(found[-1][0], found[-1][1], "last number") if found else None
    found = numbers(marked)
    if len(found) != 1 or found[0][1] is None:
        return None
    return Answer(found[0][0], found[0][1], rule)


def is_decimal(expected: str) -> bool:
    """An expected answer written with a decimal point: compared within a tolerance, not exactly."""
    return "." in expected and "/" not in expected


def answers_match(got: Fraction, expected: str, tolerance: float | None = None) -> bool:
    """`got` equals the expected answer's value: exactly, or within the tolerance for a decimal."""
    want = parse_number(expected)
    if want is None:
        raise ValueError(f"expected answer {expected!r} is not one number")
    if not is_decimal(expected):
        return got == want
    tol = DEFAULT_TOLERANCE if tolerance is None else tolerance
    return abs(float(got) - float(want)) <= tol * max(1.0, abs(float(want)))


def judge_answer(request: ExecutionRequest) -> ExecutionResult:
    """The verdict of a `Mode.ANSWER` request: `program` is the reply; each test's `expected` is the answer
    (as text) it must match.  Runs in the parent; nothing of the reply is executed."""
    answer = extract_answer(request.program)
    outcomes = []
    for test in request.tests:
        if answer is None:
            outcomes.append(TestOutcome(test.id, Status.FAILED, test.hidden, "no final answer found"))
            continue
        ok = answers_match(answer.value, str(test.expected), request.float_tolerance)
        message = "" if ok else f"got {answer.text} (by {answer.rule}), expected {test.expected}"
        outcomes.append(TestOutcome(test.id, Status.PASSED if ok else Status.FAILED, test.hidden, message))
    passed = bool(outcomes) and all(o.passed for o in outcomes)
    failed = next((o for o in outcomes if not o.passed), None)
    return ExecutionResult(status=Status.PASSED if passed else Status.FAILED, tests=outcomes,
                           stdout=f"answer: {answer.text} (by {answer.rule})" if answer else "",
                           message="" if passed else (failed.message if failed else "no tests"),
                           isolation="none (nothing runs)")
