"""Generated math replies for the differential test of the answer reader (`test_answers_differential`).

`replies(n, seed)` yields (kind, reply, truth, words): `truth` is the value a careful reader gives the reply,
or None where the reply states no single answer (two answers, an operator, function or scale word the
reader does not understand, a sign cut off from its digits, a marker that is an operand, a word that
is no unit ...); `words` are the counted nouns the task's metadata gives (generated rows).  Kinds starting
with `ok/` are correct answers in the formats docs/math.md lists; every other kind is adversarial, named
after the rule of docs/math.md that decides it (`DOCUMENTED` in the test).

The context and word classes are generated, not listed: `OPERANDS_BEFORE`/`OPERANDS_AFTER` (a command, an
operator, a script, a letter or digit) beside every kind of marker, touching or not, in and out of each math
mode; every word of `REFUSED` (comparison, negation, approximation, multiplication, in several languages)
before or after the number, with the question using the word; and every LaTeX spelling of the units."""

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


# What makes a marked value an operand, before it and after it: commands, operators, scripts, letters, digits.
OPERANDS_BEFORE = ["2", "x", "\\times", "\\cdot", "+", "*", "/", "^", "_", "\\sqrt", "\\log", "\\sin", "2^", "(",
                   "\\frac{1}", "\\pm", "<", "\\le", "\\approx", "\u00d7", "\u00f7", "\u00b7", "|", "\\mathrm{d}",
                   "\\overline", "e^", "10^", "\\{", "[", "\\left(", "\\neg", "!", "~", "\\%", "-"]
OPERANDS_AFTER = ["^2", "_3", "!", "x", "2", "\\cdot 2", "\\times 3", "+1", "-1", "/2", "*2", " * 2", "^{2}", ")",
                  "]", "\\}", "\\right)", "\\%", "%", "\u00d7 2", "\u00b2", "'", "\\prime", "\\mathrm{k}", "(3)",
                  "\\,\\mathrm{k}", "e3", "|", "> 2", "~2"]
MATH_MODES = [("", ""), ("$", "$"), ("\\(", "\\)"), ("\\[", "\\]"), ("$$", "$$")]
# Words that are no unit: comparison, negation, approximation, multiplication, in several languages.
REFUSED = ["more than", "less than", "at least", "at most", "over", "under", "above", "below", "fewer than", "up to",
           "not", "never", "no", "about", "approximately", "around", "roughly", "nearly", "almost", "circa", "approx",
           "times", "twice", "double", "triple", "fold", "mal", "mehr als", "weniger als", "nicht", "etwa", "ungefahr",
           "fois", "environ", "pas", "plus de", "moins de", "veces", "mas de", "menos de", "aproximadamente", "casi",
           "cerca de", "quasi", "volte", "circa", "only", "exactly", "each", "per day", "or so", "give or take"]
# Every LaTeX (and plain) spelling of units the whitelist admits: (written, as read).
UNIT_SPELLINGS = ["{n}^\\circ", "{n}^{{\\circ}}", "{n}^\\circ C", "{n}^{{\\circ}}\\text{{C}}", "{n}\\degree",
                  "{n}\\textdegree", "{n}\u00b0", "{n}\u00b0F", "{n}\\%", "{n}%", "{n}\\text{{\\%}}", "\\${n}",
                  "\\textdollar {n}", "{n} \\text{{dollars}}", "\\euro {n}", "\u20ac{n}", "\\pounds {n}",
                  "\u00a3{n}", "{n}\\text{{ cm}}", "{n}\\,\\text{{cm}}", "{n}\\ \\mathrm{{kg}}", "{n}\\,\\mathrm{{km/h}}",
                  "{n}\\textrm{{ m}}", "{n}\\mbox{{ s}}", "{n} \\text{{hours}}", "{n}\\text{{ min}}", "{n} \\mathrm{{L}}",
                  "{n} \\text{{mL}}", "{n}\\text{{ lbs}}", "{n} mph", "{n} \\text{{km}}/\\text{{h}}",
                  "\\SI{{{n}}}{{\\kilo\\metre}}", "\\qty{{{n}}}{{cm}}", "\\num{{{n}}}", "{n}\\,\\si{{\\kilo\\gram}}",
                  "\\SI{{{n}}}{{\\kilo\\metre\\per\\hour}}", "{n}\\unit{{km/h}}", "\\SI{{{n}}}{{\\percent}}",
                  "\\SI{{{n}}}{{\\degreeCelsius}}", "\\qty{{{n}}}{{\\milli\\litre}}"]
# Contexts that leave a marker no operand: blank space, punctuation, math delimiters, markdown, labels.
CLEAN_CONTEXTS = ["{m}", "{m}.", "So the total is {m}.", "$ {m} $.", "$x = {m}$", "\\[{m}\\]", "\\({m}\\),",
                  "**{m}**", "**Answer:** {m}", "\\text{{Total: }} {m}", "Thus, {m}; done", "$$ {m} $$"]


def _wrap(kind: str, inner: str) -> str:
    return {"boxed": f"\\boxed{{{inner}}}", "fbox": f"\\fbox{{{inner}}}",
            "answer": f"<answer>{inner}</answer>"}[kind]


def _operand(rng: random.Random, n: int) -> tuple[str, str, Fraction | None, tuple[str, ...]]:
    """A marker of every kind made an operand, touching or not, in or out of math mode."""
    kind = rng.choice(["boxed", "fbox", "answer", "####", "stated"])
    side = "before" if kind == "####" else rng.choice(["before", "after"])
    what = rng.choice(OPERANDS_BEFORE if side == "before" else OPERANDS_AFTER)
    gap = rng.choice(["", " "]) if what[-1:] not in "{}" else ""
    opening, closing = rng.choice(MATH_MODES)
    if kind == "####":
        return f"operand/{side}", f"Work.\n{what}{gap}#### {n}", None, ()
    if kind == "stated":
        word = rng.choice(["twice", "half of", "3 more than", "double", "not", "the square of", "2 times",
                           "3 less than", "about", "the cube of", "one more than", "-"])
        return "operand/stated", f"Work.\n{word.capitalize()} the answer is {n}.\n", None, ()
    marker = _wrap(kind, str(n))
    body = f"{what}{gap}{marker}" if side == "before" else f"{marker}{gap}{what}"
    return f"operand/{side}", f"The total.\n{opening}{body}{closing}\n", None, ()


def _worded(rng: random.Random, n: int) -> tuple[str, str, Fraction | None, tuple[str, ...]]:
    """A refused word beside the number, the question using it too; or a word of the question that is no unit."""
    word = rng.choice(REFUSED)
    wrap = rng.choice(["#### {}", "\\boxed{{{}}}", "<answer>{}</answer>", "The answer is {}."])
    question = f"Question: Ana has {word} {n} apples. How many apples?\n"
    if rng.random() < 0.25:  # a word of the question (not its metadata's counted noun) is no unit
        noun = rng.choice(["clips", "friends", "marbles", "boxes"])
        return "word/question", f"Question: How many {noun} are left?\n" + wrap.format(f"{n} {noun}"), None, ()
    inner = f"{word} {n}" if rng.random() < 0.5 else f"{n} {word}"
    return "word/refused", question + wrap.format(inner), None, ("apples", word.split()[-1])


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
    return fmt, f"{work}**Answer:** {plain} {rng.choice(['apples', 'dollars', 'cm', 'hours', 'kg'])}"


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
        # a marker that holds no number names the format, and is no second answer
        ("ok/format named", rng.choice(["I will write the final answer after ####.\n", "Put it in \\boxed{}.\n",
                                        "The answer goes in \\boxed{...} at the end.\n", "Format: <answer></answer>\n"])
         + f"So {other} - {other - n} = {n}.\n" + wrap.format(n), Fraction(n)),
        ("two answers", f"Put it in \\boxed{{}}.\n\\boxed{{{other}}} or #### {n}", None),
    ]
    return rng.choice(cases)


def _clean_context(rng: random.Random, n: int) -> tuple[str, str, Fraction | None, tuple[str, ...]]:
    """A correct answer in a context that leaves its marker no operand, or in a LaTeX spelling of a unit."""
    if rng.random() < 0.5:
        context = rng.choice(CLEAN_CONTEXTS)
        in_math = any(d in context for d in ("$", "\\[", "\\("))  # an answer block is prose, never inside math
        marker = _wrap(rng.choice(["boxed", "fbox"] if in_math else ["boxed", "fbox", "answer"]), str(n))
        return "ok/context", "Work.\n" + context.format(m=marker), Fraction(n), ()
    spelled = rng.choice(UNIT_SPELLINGS).format(n=n)
    wrap = rng.choice(["#### {}", "\\boxed{{{}}}", "<answer>{}</answer>", "The answer is {}."])
    return "ok/unit spelling", "Work.\n" + wrap.format(spelled), Fraction(n), ()


# ---- the answer sentences of the widely used graders' formats (issue 99) ------------------------------------------
# GSM8K's `#### N` (lm-eval `gsm8k` strict-match), the chain-of-thought "The answer is N." (lm-eval `gsm8k-cot`
# strict-match), Minerva's "Final Answer: The final answer is X. I hope it is correct." (lm-eval `minerva_math`),
# MATH's last `\boxed{X}` (Hendrycks' `last_boxed_only_string`); each with the working in the answer's own sentence
# and text after the answer.  `GRADERS` in the test reads each as its grader does, so every `ok/grader` reply is one
# its grader accepts; every `hedge/` reply is one of them with a hedge put in, which no reply may be paid for.
SENTENCES = ["Natalia sold 48/2 = 24 clips in May.", "She sold 48 + 24 = 72 clips altogether.",
             "First, 3 * 6 = 18.", "Then 18 - 4 = 14 apples remain.", "We add the two amounts.",
             "Each box holds 12 eggs, so 5 boxes hold 60 eggs.", "The rate is 45 km/h for 2 hours."]
CHAINS = ["{a} + {b}", "{a} \\times {b}", "{a} \\cdot {b} - {a}", "({a} + {b}) \\div 2", "\\frac{{{a}}}{{{b}}} + {b}", "{a}"]
AFTER = ["", "\n\nI hope this helps!", " Let me know if anything is unclear.", "\n\nThat is the total.",
         " She has that many apples in total."]
# Hedges: where each goes in the answer sentence (before the number, after it, after the sentence, right after a box)
HEDGE_BEFORE = ["probably", "maybe", "perhaps", "approximately", "roughly", "possibly", "about", "around", "likely"]
HEDGE_AFTER = [", give or take", " or so", ", maybe", ", probably", " or maybe more", ", I guess", ", roughly"]
HEDGE_SENTENCE = ["I am not sure.", "I'm not 100% sure about this.", "But I might be wrong.", "Maybe.",
                  "This is only an estimated value.", "I'm not certain it is correct.", "Perhaps I made an error.",
                  "I am not confident in this."]
HEDGE_BOX = ["?", " ?", "\\text{ or so}", "\\text{ or more}", "\\text{, roughly}", " fold", "\\text{ approx.}"]


def _grader_value(rng: random.Random) -> tuple[str, str, Fraction]:
    """(as lm-eval's `-?[0-9.,]+` reads it, LaTeX, value): integers, thousands, decimals, negatives."""
    n = rng.choice([rng.randint(0, 99), rng.randint(100, 10**7)])
    form = rng.choice(["int", "commas", "decimal", "negative"])
    if form == "commas":
        return f"{n:,}", f"{n:,}".replace(",", "{,}"), Fraction(n)
    if form == "decimal":
        cents = rng.randint(1, 99)
        return f"{n}.{cents:02d}", f"{n}.{cents:02d}", n + Fraction(cents, 100)
    if form == "negative":
        return f"-{n}", f"-{n}", Fraction(-n)
    return str(n), str(n), Fraction(n)


def _working(rng: random.Random, sep: str) -> str:
    return sep.join(rng.sample(SENTENCES, rng.randint(0, 3)))


def grader_reply(rng: random.Random) -> tuple[str, str, Fraction | None, tuple[str, ...]]:
    """A reply in the answer sentence of one of the graders' formats, correct or hedged: (kind, reply, truth, words).
    Kinds `ok/grader:<format>` (truth the value) and `hedge/<format>` (truth None)."""
    plain, latex, value = _grader_value(rng)
    a, b = rng.randint(2, 99), rng.randint(2, 99)
    chain = rng.choice(CHAINS).format(a=a, b=b)
    fmt = rng.choice(["gsm8k", "gsm8k-cot", "minerva", "math", "math-chain", "after-box"])
    hedge = rng.random() < 0.35
    work, after = _working(rng, rng.choice([" ", "\n"])), rng.choice(AFTER)
    before = after_number = sentence = ""
    if hedge:
        where = rng.choice(["before", "after", "sentence"] + (["box"] if fmt in ("math", "math-chain", "after-box")
                                                             else []))
        if where == "before":
            before = rng.choice(HEDGE_BEFORE) + " "
        elif where == "after":
            after_number = rng.choice(HEDGE_AFTER)
        elif where == "sentence":
            sentence = " " + rng.choice(HEDGE_SENTENCE)
        else:
            after_number = rng.choice(HEDGE_BOX)
    if fmt == "gsm8k":
        end = "." if (sentence + after).startswith(" ") else rng.choice(["", "."])  # `#### 18. I hope it helps.`
        reply = f"{work}\n#### {before}{plain}{after_number}{end}{sentence}{after}"
    elif fmt == "gsm8k-cot":
        reply = f"{work} The answer is {before}{plain}{after_number}.{sentence}{after}"
    elif fmt == "minerva":
        reply = (f"{work}\nFinal Answer: The final answer is {before}${latex}${after_number}. I hope it is correct."
                 f"{sentence}{after}")
    elif fmt == "math":
        lead = rng.choice(["So the answer is ", "Therefore, the final answer is ", "Thus we get ", "", "The total is "])
        reply = f"{work} {lead}{before}$\\boxed{{{latex}}}${after_number}.{sentence}{after}"
    elif fmt == "math-chain":  # the working in the answer's own sentence, before the box
        lead = rng.choice(["So the answer is ", "Therefore, the answer is ", "The total is ", "Hence ", ""])
        reply = f"{work} {lead}{before}${chain} = \\boxed{{{latex}}}${after_number}.{sentence}{after}"
    else:  # text right after the box
        tail = rng.choice([". I hope it is correct.", " is the final answer.", " apples in total.", "\\text{ apples}.",
                           ", which is the answer.", ". That is the number of apples."])
        reply = f"{work}\n{before}\\boxed{{{latex}}}{after_number}{tail}{sentence}{after}"
    return (f"hedge/{fmt}", reply, None, ("apples",)) if hedge else (f"ok/grader:{fmt}", reply, value, ("apples",))


def replies(count: int, seed: int = 0):
    """`count` generated replies: (kind, reply, truth, words); about half ordinary, half adversarial (of which
    half the context and word classes)."""
    rng = random.Random(seed)
    for _ in range(count):
        plain, latex, value = _value(rng)
        n = abs(value.numerator) if value.denominator == 1 else rng.randint(2, 99)
        roll = rng.random()
        if roll < 0.4:
            fmt, reply = _ok(rng, plain, latex)
            yield f"ok/{fmt}", reply, value, ("apples",)
        elif roll < 0.5:
            yield _clean_context(rng, n)
        elif roll < 0.65:
            yield _operand(rng, n)
        elif roll < 0.75:
            yield _worded(rng, n)
        elif roll < 0.85:
            yield grader_reply(rng)
        else:
            yield (*_adversarial(rng, value), ("apples",))

