"""The answer reader against an established reference reader (Math-Verify, from PyPI: the dev extra) on
generated replies (`answer_replies`): correct answers in every format docs/math.md lists, and adversarial
ones.  The reader must give every reply its true reading (a value, or none), and every disagreement with
Math-Verify must be a rule docs/math.md writes down ("Checked against Math-Verify")."""

from __future__ import annotations

import re
from collections import Counter
from fractions import Fraction
from pathlib import Path

import pytest

from coderl.sandbox.answers import MAX_REPLY_CHARS, counted_words, extract_answer
from tests.sandbox.answer_replies import replies

math_verify = pytest.importorskip("math_verify")
sympy = pytest.importorskip("sympy")

DOCS = " ".join((Path(__file__).resolve().parents[2] / "docs" / "math.md").read_text(encoding="utf-8").split())
# Each adversarial kind: the rule of docs/math.md that makes it no answer (Math-Verify reads a value).
DOCUMENTED = {
    "sign/markup": "a sign not attached to its digits", "sign/spaces": "a sign not attached to its digits",
    "sign/brace": "a sign not attached to its digits", "sign/text": "a sign not attached to its digits",
    "sign/unicode": "other minus-like characters", "sign/pm": "`\\pm`", "sign/plus": "`+18`",
    "function": "functions", "power": "scientific notation", "scale": "scale words", "delimiter": "delimiters",
    "comparison": "comparisons", "escaped brace": "an escaped brace", "two answers": "all must agree",
    "answer statement": "answer statement", "heading": "holds a number", "box without brace": "no brace",
    "answer tag case": "in any case", "long reply": "over 50,000 characters", "number word": "a number word",
    "operand/before": "is an operand", "operand/after": "is an operand", "operand/stated": "opens its sentence",
    "word/refused": "comparison, negation, approximation or multiplication", "word/question": "never a word of the question",
}
# Where Math-Verify reads a correct reply otherwise: its conventions, each written in docs/math.md.
CONVENTIONS = {
    "percent": lambda reply, ours, theirs: "%" in reply and theirs == ours / 100,
    "mixed number": lambda reply, ours, theirs: re.search(r"\d \d+/\d|\d\\frac", reply) is not None,
    "\\fbox": lambda reply, ours, theirs: "\\fbox" in reply,
    "units": lambda reply, ours, theirs: theirs == "other" and re.search(
        r"\d\s*(?:[A-Za-z\u00b0^]|\\[A-Za-z])|[\u00a3\u20ac]\s*\d|\\(?:pounds|euro|SI|qty|si|unit|num)\b", reply) is not None,
    "no LaTeX": lambda reply, ours, theirs: theirs is None,
}


def reference(reply: str) -> Fraction | str | None:
    """Math-Verify's reading as a number, None for none, "other" for a value that is not a number."""
    found = math_verify.parse(reply)
    if not found:
        return None
    x = found[0]
    try:
        x = sympy.simplify(x) if isinstance(x, sympy.Expr) else x
    except Exception:  # noqa: BLE001 (a reading sympy cannot simplify is not a number)
        return "other"
    if isinstance(x, (sympy.Integer, sympy.Rational)):
        return Fraction(int(x.p), int(x.q))
    if isinstance(x, sympy.Float):
        return Fraction(str(x)).limit_denominator(10**6)
    return "other"


def differential(count: int, seed: int) -> Counter:
    resolved: Counter = Counter()
    for kind, reply, truth, words in replies(count, seed):
        found = extract_answer(reply, counted_words(words))
        ours = None if found is None else found.value
        assert ours == truth, (kind, reply[:300], ours)
        theirs = reference(reply) if len(reply) <= MAX_REPLY_CHARS else "not read"
        if theirs == ours:
            resolved["agree"] += 1
        elif kind.startswith("ok/"):
            why = next((name for name, holds in CONVENTIONS.items() if holds(reply, ours, theirs)), None)
            assert why is not None, (kind, reply[-300:], ours, theirs)
            resolved[f"convention: {why}"] += 1
        else:
            assert ours is None and DOCUMENTED[kind] in DOCS, (kind, reply[-300:], theirs)
            resolved[f"rule: {kind}"] += 1
    return resolved


def test_the_reader_agrees_with_math_verify_or_a_written_rule():
    resolved = differential(600, seed=0)
    assert resolved["agree"] > 200 and sum(resolved.values()) == 600


@pytest.mark.slow
def test_the_reader_agrees_with_math_verify_or_a_written_rule_on_many_replies():
    resolved = differential(8000, seed=1)
    assert sum(resolved.values()) == 8000
    print(sorted(resolved.items()))


def test_every_documented_rule_and_convention_is_in_the_docs():
    assert all(phrase in DOCS for phrase in DOCUMENTED.values()), [p for p in DOCUMENTED.values() if p not in DOCS]
    assert all(f"**{name}**" in DOCS for name in CONVENTIONS)
