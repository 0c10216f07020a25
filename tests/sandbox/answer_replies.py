"""Generated math replies for the differential test of the answer reader (`test_answers_differential`).

`replies(n, seed)` yields (kind, reply, truth): `truth` is the value a careful reader gives the reply, or
None where the reply states no single answer (two answers, an operator, function or scale word the
reader does not understand, a sign cut off from its digits ...).  Kinds starting with `ok/` are correct
answers in the formats docs/math.md lists; every other kind is adversarial, named after the rule of
docs/math.md that decides it (`DOCUMENTED` in the test)."""

from __future__ import annotations

import random
from fractions import Fraction

WORK = ["Natalia sold 48/2 = 24 clips in May.\nShe sold 48 + 24 = 72 clips.\n",
        "First, 3 * 6 = 18.\nThen 18 - 4 = 14 apples remain.\n", "We add the two amounts.\n\n", "",
        "Step 1: 1/4 of 12 is 3.\nStep 2: 3 + 5 = 8.\n", "#### Step 1: add\n5 + 13 = 18\n"]


MINUSES = ["\u2796", "\u02d7", "\u207b", "\u2043", "\u2015"]  # minus-like characters the reader does not map
SCALES = [" million", " k", "k", " K", " M", " bn", " lakh", " crore", " Mio", " Mrd", " milliard", " thousand",
          " grand", "M"]


def _value(rng: random.Random) -> tuple[str, str, Fraction]:
    """(plain text, LaTeX text, value) of an ordinary answer."""
    n = rng.choice([rng.randint(0, 99), rng.randint(100, 10**6)])
    small = rng.randint(1, 40)
    form = rng.choice(["int", "commas", "decimal", "fraction", "negative", "money", "percent", "mixed"])
    if form == "int":
        return str(n), str(n), Fraction(n)
    if form == "commas":
        return f"{n:,}", f"{n:,}".replace(",", "{,}"), Fraction(n)
    if form == "decimal":
        return f"{n}.25", f"{n}.25", n + Fraction(1, 4)
    if form == "fraction":
        return f"{small}/{small + 1}", f"\\frac{{{small}}}{{{small + 1}}}", Fraction(small, small + 1)
    if form == "negative":
        return f"-{n}", rng.choice([f"-{n}", f"\u2212{n}", f"-\\,{n}"]), Fraction(-n)
    if form == "money":
        return f"${n:,}.50", f"\\${n:,}.50", n + Fraction(1, 2)
    if form == "percent":
        return f"{small}%", f"{small}\\%", Fraction(small)
    return f"{n} 1/2", f"{n}\\frac{{1}}{{2}}", n + Fraction(1, 2)


def _ok(rng: random.Random, plain: str, latex: str) -> tuple[str, str]:
    """A correct reply in one of the listed formats."""
    work = rng.choice(WORK)
    fmt = rng.choice(["####", "boxed", "fbox", "answer-tag", "last line", "both", "bold"])
    if fmt == "####":
        return fmt, f"{work}#### {plain}"
    if fmt == "boxed":
        return fmt, f"{work}So the total is $\\boxed{{{latex}}}$."
    if fmt == "fbox":
        return fmt, f"{work}\\fbox{{{latex}}}"
    if fmt == "answer-tag":
        return fmt, f"<reasoning>{work}</reasoning>\n<answer>\n{plain}\n</answer>"
    if fmt == "last line":
        return fmt, f"{work}The answer is {plain}."
    if fmt == "both":
        return fmt, f"{work}The answer is {plain}.\n\\boxed{{{latex}}}\n#### {plain}"
    return fmt, f"{work}**Answer:** {plain} {rng.choice(['apples', 'dollars', 'cm', 'in total'])}"


def _adversarial(rng: random.Random, value: Fraction) -> tuple[str, str, Fraction | None]:
    """A reply built to be read wrong: (kind, reply, truth)."""
    n = abs(value.numerator) if value.denominator == 1 else rng.randint(2, 99)
    other = n + rng.randint(1, 9)
    wrap = rng.choice(["#### {}", "\\boxed{{{}}}", "<answer>{}</answer>", "The answer is {}."])
    cases: list[tuple[str, str, Fraction | None]] = [
        # a sign cut off from its digits by markup, spacing, words or an unusual character
        ("sign/markup", wrap.format(f"**-**{n}"), None), ("sign/spaces", wrap.format(f"-   {n}"), None),
        ("sign/brace", wrap.format(f"-{{{n}}}"), None), ("sign/text", wrap.format(f"\\text{{-}}{n}"), None),
        ("sign/unicode", wrap.format(rng.choice(MINUSES) + str(n)), None),
        ("sign/pm", wrap.format(rng.choice([f"\\pm {n}", f"\u00b1{n}", f"\\mp{n}"])), None),
        ("sign/plus", wrap.format(f"+{n}"), None),
        # context that changes the value
        ("function", wrap.format(rng.choice([f"\\sqrt{{{n}}}", f"\\sqrt {n}", f"\u221a{n}", f"\\log {n}",
                                             f"\\sin({n})", f"{n}!", f"|{n}|", f"\\lfloor {n}.5 \\rfloor",
                                             f"\\ln {n}", f"e^{{{n}}}", f"{n}^2", f"\\overline{{{n}}}"])), None),
        ("power", wrap.format(rng.choice([f"{n} \\times 10^3", f"{n}e3", f"{n}E2", f"10^{n}", f"{n}^{{2}}"])), None),
        ("scale", wrap.format(str(n) + rng.choice(SCALES)), None),
        ("delimiter", wrap.format(rng.choice([f"({n})", f"[{n}]", f"\\{{{n}\\}}", f"\\left({n}\\right)",
                                              f"({n}, {other})", f"\\frac{{{n}}}{{x}}", f"{n}/x"])), None),
        ("comparison", wrap.format(rng.choice([f"x > {n}", f"\\geq {n}", f"\u2264{n}", f"\\neq {n}",
                                               f"more than {n}", f"at least {n}", f"not {n}"])), None),
        # brace matching honours escapes: the box holds both numbers
        ("escaped brace", f"\\boxed{{{other} \\}} {n}}}", None),
        ("escaped brace", f"\\boxed{{\\{{{other}\\}} {n}}}", None),
        # two answers in one reply
        ("two answers", f"\\boxed{{{other}}}\n#### {n}", None),
        ("two answers", f"#### {other} or {n}", None),
        ("answer statement", f"The answer is {other}.\n#### {n}", None),
        ("answer statement", f"Final answer: {other}\n\nActually, the answer is {n}.", None),
        ("heading", f"#### Answer: {other}\n\\boxed{{{n}}}", None),
        ("heading", f"#### x = {other}\n#### {n}", None),
        ("box without brace", f"\\boxed {other} so \\boxed{{{n}}}", None),
        ("answer tag case", f"<ANSWER>{other}</ANSWER>\n<answer>{n}</answer>", None),
        ("long reply", f"#### {other}\n" + "x" * 50_001 + f"\n#### {n}", None),
        ("number word", f"#### {n} and a half", None),
        # what stays an answer
        ("ok/units", wrap.format(f"{n} {rng.choice(['apples', 'cm', 'km/h', 'dollars', 'kg'])}"), Fraction(n)),
        ("ok/dollar", wrap.format(f"\\${n}"), Fraction(n)),
        ("ok/step heading", f"#### Step 1\nadd them\n#### {n}", Fraction(n)),
        ("ok/nested", f"#### \\boxed{{{n}}}", Fraction(n)),
    ]
    return rng.choice(cases)


def replies(count: int, seed: int = 0):
    """`count` generated replies: (kind, reply, truth); about half ordinary, half adversarial."""
    rng = random.Random(seed)
    for _ in range(count):
        plain, latex, value = _value(rng)
        if rng.random() < 0.5:
            fmt, reply = _ok(rng, plain, latex)
            yield f"ok/{fmt}", reply, value
        else:
            yield _adversarial(rng, value)

