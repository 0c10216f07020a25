"""Parent-side judging of final answers (`Mode.ANSWER`): a math reply is text, not a program, so nothing
runs.  The parent reads the reply's final answer and compares it with the expected one, which, as for
every check, never leaves the parent.

Extraction (`extract_answer`): the reply's markers are its last `####` line (GSM8K's layout: the text after
`####` to the end of the line; a line that starts with a word is a markdown heading, `#### Step 2`, and an
empty one gives the next non-empty line), its last `\\boxed{...}` / `\\fbox{...}` (braces balanced) and its
last `<answer>...</answer>` block (the reasoning format's).  The marker that comes last in the reply
decides; without any, the last number in the reply is the answer.  A marked answer must hold exactly one
number: `#### 17 or 18` is no answer, so hedging never pays.  Words, `$`, `%`, units and LaTeX spacing
around the number are ignored (`#### $1,200` is 1200, `18 cm^2` is 18).  Every rule yields at most one
number per reply, so a reply gets one guess.

Numbers (`numbers`, `parse_number`): ASCII digits only (`int()` would also read other scripts' digits), an
optional sign (`-`, the Unicode minus and dashes, `minus 18`, `-$18`, `-(18)`), thousands separators in
groups of three (`1,234`, LaTeX `1{,}234`), decimals (`2.50`, `.5`), fractions `a/b` and LaTeX
`\\frac{a}{b}` (`\\dfrac`, `\\tfrac`), mixed numbers (`1 1/2`).  A number whose meaning is not its digits has
no value, so a marked answer holding it is no answer: a multiplier (`18k`, `2 million`), a power
(`2^10`), a root (`\\sqrt{324}`), hexadecimal or underscore-grouped literals (`0x12`, `1_000`), and
scientific notation (`1e3`).  A number of more than `MAX_DIGITS` digits is no number either: exact
arithmetic on it would be the verifier's cost, not the reply's.

Comparison (`answers_match`): integers and fractions exactly (`0.75` matches `3/4`, `18.0` matches
`18`; `0.333` does not match `1/3`); an expected decimal within `tolerance * max(1, |expected|)`
(default `DEFAULT_TOLERANCE`), the STDOUT checks' rule.
"""

from __future__ import annotations

import functools
import re
from fractions import Fraction
from typing import NamedTuple

from .types import ExecutionRequest, ExecutionResult, Status, TestOutcome

MAX_DIGITS = 40  # digits of one number, beyond which it is not read
MAX_REPLY_CHARS = 50_000  # a longer reply is judged on its last this-many characters (~12k tokens)
DEFAULT_TOLERANCE = 1e-6

# Every regex here runs in linear time: no nested or adjacent unbounded repeats over the same characters
# (a test feeds each of them 100,000-character runs).
_MINUS = dict.fromkeys(map(ord, "\u2212\u2010\u2011\u2012\u2013\u2014\ufe63\uff0d"), "-")
_FRAC = re.compile(r"\\[dt]?frac\s*\{([^{}]*)\}\s*\{([^{}]*)\}")
_LATEX_THOUSANDS = re.compile(r"(?<=\d)(?:\{,\}|\\,)(?=\d{3}(?!\d))")  # 1{,}200 and 1\,200
_LATEX_NOISE = re.compile(r"\\[,;:! ]|\\(?:left|right)\b|~|\\%")
_UNIT_POWER = re.compile(r"(?<=[A-Za-z}])\^\{?\d\}?")  # cm^2, \text{cm}^{3}: a unit's power is no second number
_SIGNED_DOLLARS = re.compile(r"-(\s?)\\?\$")  # -$18, -\$18: the sign belongs to the amount
_SIGN_WORD = re.compile(r"\b(?:minus|negative)[ \t]+(?=\d)", re.IGNORECASE)
_NEGATED_PARENS = re.compile(r"-[ \t]?\([ \t]?(\d[\d.,/]*)[ \t]?\)")  # -(18)
# A number: a plain or thousands-grouped integer with optional decimals and an optional `/denominator`, or
# `.5`.  It does not start inside a word or another number (`x2`, `v1.5`).  A `-` is its sign unless it
# follows a letter, digit or closing bracket (then it is a binary minus: `5-3` holds 5 and 3).
_NUMBER = re.compile(
    r"(?P<sign>(?<![\w)\]}.])-\s?)?(?<![\w.])"
    r"(?P<num>(?:\d{1,3}(?:,\d{3})+(?!\d)|\d+)(?:\.\d+)?(?:[ \t]?/[ \t]?\d+)?|\.\d+)(?!\.?\d|[eE][+-]?\d)",
    re.ASCII,
)
# What makes a number mean something else than its digits: a multiplier (18k, 2 million), a power, a root,
# a hexadecimal or underscore-grouped literal.  Such a number has no value (a marked answer holding it is
# no answer), rather than being read as the digits it shows.
_CHANGES_AFTER = re.compile(r"[kKMB](?![A-Za-z])|[ \t]*(?i:thousand|million|billion|trillion|hundred|dozen)\b|"
                            r"[ \t]*\^|_\d|[xX][0-9a-fA-F]")
_ROOT_BEFORE = re.compile(r"(?:\\sqrt|\^)[ \t]*\{?[ \t]*$")  # the radicand or exponent of \sqrt{324}, 2^10
_HASH = re.compile(r"(?<!#)####(?!#)[ \t]*([^\n]*)")
_ANSWER_TAG = re.compile(r"<answer>(.*?)(?:</answer>|\Z)", re.DOTALL)


class Answer(NamedTuple):
    """A reply's final answer: the number's text as written, its value, and the rule that found it."""

    text: str
    value: Fraction
    rule: str  # "####", "boxed", "<answer>" or "last number"


def _normalise(text: str) -> str:
    text = text.translate(_MINUS)
    text = _FRAC.sub(lambda m: f" {m.group(1).strip()}/{m.group(2).strip()} ", text)
    text = _LATEX_THOUSANDS.sub(",", text)
    text = _SIGNED_DOLLARS.sub(r"-\1", text)
    text = _SIGN_WORD.sub("-", text)
    text = _NEGATED_PARENS.sub(r"-\1", text)
    text = _UNIT_POWER.sub("", text)
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
    """Every number in `text` (after normalisation), in order: (as written, value or None if unreadable).
    A whole number followed by a proper fraction (`1 1/2`, `1\\frac{1}{2}`) is one mixed number."""
    text = _normalise(text)
    found: list[tuple[int, int, str, Fraction | None]] = []
    for m in _NUMBER.finditer(text):
        token, negative = m.group("num"), bool(m.group("sign"))
        value = _value(token, negative)
        if _CHANGES_AFTER.match(text, m.end()) or _ROOT_BEFORE.search(text[max(0, m.start() - 12):m.start()]):
            value = None
        written = ("-" if negative else "") + token.strip()
        if found and value is not None and "/" in token and 0 < abs(value) < 1 and not negative:
            start, end, prev_text, prev = found[-1]
            gap = text[end:m.start()]
            if prev is not None and prev.denominator == 1 and re.fullmatch(r"[^\S\n]{1,3}", gap) \
                    and not any(c in prev_text for c in ".,/"):
                mixed = prev + value if prev >= 0 else prev - value
                found[-1] = (start, m.end(), f"{prev_text} {token.strip()}", mixed)
                continue
        found.append((m.start(), m.end(), written, value))
    return [(t, v) for _, _, t, v in found]


def parse_number(text: str) -> Fraction | None:
    """The value of a text that holds exactly one number (and perhaps words, `$`, `%`); else None."""
    found = numbers(text)
    return found[0][1] if len(found) == 1 else None


def _last_boxed(text: str) -> tuple[int, str] | None:
    start = max(text.rfind("\\boxed{"), text.rfind("\\fbox{"))
    if start < 0:
        return None
    i = text.index("{", start) + 1
    depth = 1
    for j in range(i, len(text)):
        depth += {"{": 1, "}": -1}.get(text[j], 0)
        if depth == 0:
            return start, text[i:j]
    return start, text[i:]  # an unclosed box (a truncated reply): what it holds so far


def _last_hash(text: str) -> tuple[int, str] | None:
    """The last `####` answer line: (where, its text).  A line whose text starts with a letter is a
    markdown heading (`#### Step 2`), not an answer; an empty one gives the next non-empty line."""
    last = None
    for m in _HASH.finditer(text):
        if not m.group(1).strip()[:1].isalpha():
            last = m
    if last is None:
        return None
    line = last.group(1).strip()
    if not line:
        line = next((rest.strip() for rest in text[last.end():].split("\n") if rest.strip()), "")
    return last.start(), line


def _last_answer_tag(text: str) -> tuple[int, str] | None:
    start = text.rfind("<answer>")
    if start < 0:
        return None
    m = _ANSWER_TAG.match(text, start)
    return (start, m.group(1)) if m else None


@functools.lru_cache(maxsize=4096)
def extract_answer(reply: str) -> Answer | None:
    """The reply's final answer by the module's rules, or None (no answer, or an ambiguous marked one).
    Cached: one reply is read by the judge, the `syntax` reward and the chat format's `format_ok`."""
    reply = reply[-MAX_REPLY_CHARS:]
    marks = [(found[0], found[1], rule) for found, rule in
             ((_last_hash(reply), "####"), (_last_boxed(reply), "boxed"), (_last_answer_tag(reply), "<answer>"))
             if found is not None]
    if not marks:
        found = numbers(reply)
        if not found or found[-1][1] is None:
            return None
        return Answer(found[-1][0], found[-1][1], "last number")
    _, marked, rule = max(marks)
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
