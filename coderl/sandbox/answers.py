"""Parent-side judging of final answers (`Mode.ANSWER`): a math reply is text, not a program, so nothing
runs.  The parent reads the reply's final answer and compares it with the expected one, which, as for
every check, never leaves the parent.

The rule is "one reply, one unambiguous answer": a reply is paid for one number, stated once or several
times with the same value, and never for a text in which a second number hides.

**A number** (`numbers`) is any of:

* a character of Unicode category N (Nd, Nl, No) that is not an ASCII digit: other scripts' digits
  (`١٨`), full-width digits (`１８`), superscripts and subscripts (`²`, `₂`), vulgar fractions (`½`),
  circled digits (`⑱`), roman numeral characters (`Ⅻ`), mathematical digits (`𝟏𝟖`).  It has no value.
* ASCII digits, read by the number grammar below.  A number whose meaning is not its digits has no value: a
  multiplier (`18k`, `2 million`), a power (`2^10`, also a unit's: `cm^2`), a root (`\\sqrt{324}`),
  hexadecimal and underscore-grouped literals (`0x12`, `1_000`), scientific notation (`1e3`), more than
  `MAX_DIGITS` digits (exact arithmetic on it would be the verifier's cost), and digits the grammar does
  not read as a number because they are glued to a word or another number (`x2`, `v1.5`, `1.2.3`).
* an English number word (`NUMBER_WORDS`), with no value: the cardinals zero ... nineteen, twenty, thirty,
  ... ninety, hundred, thousand, million, billion, trillion; the ordinals zeroth, first, second, third,
  fourth ... nineteenth, twentieth, thirtieth, ... ninetieth, hundredth, thousandth, millionth, billionth,
  trillionth; the fraction and multiple words half, quarter, dozen; and the plural of every one of these
  (ones, sixes, tens, twenties, hundreds, thirds, fourths, halves, quarters, dozens; zeros and zeroes),
  except `seconds`, the time unit (no plural of "second" names a number).  A word counts whole, in any
  case: no letter directly before or after it (a digit, `-`, `_` or punctuation does not join it to a
  word: `twenty18`, `18twenty`, `2-thirds` hold the word).  Letters are
  read after compatibility folding (full-width `ｔｗｏ`, mathematical `𝐭𝐰𝐨`, the ligature in `ﬁve`),
  with combining marks and invisible format characters (zero-width space, soft hyphen) dropped.  A
  hyphenated compound (`twenty-one`, `one-half`) is one number.  Not numbers: `a`, `once`, `twice`,
  `double`, `pair`, `couple`, `score`, `none`, roman numerals spelled with letters (`XII`), other
  languages' words, and digit ordinals' suffixes (`3rd` is the number 3).  A unit spelled like a number
  word is one: `#### 3 quarters` and `#### 18 per second` are no answer (write the number alone, as the
  prompt asks); `#### 45 seconds` is 45.

**Markers** (every one in the reply, not only the last of each kind):

* every `####` line (GSM8K's layout): its text runs from after `####` to the end of the line (`#####` is
  no marker).  A line whose text starts with a letter is a markdown heading, not a marker, when it holds no
  number (`#### Final Answer`) or is a step's label (`_LABEL`: `#### Step 2`); any other line that holds a
  number is a marker (`#### Answer: 17`, `#### Seventeen`).  An empty one reads the next non-empty line.
* every `\\boxed` and `\\fbox`: the text in the brace that follows (spaces before it allowed; braces
  balanced, escaped braces are none; an unclosed one, a truncated reply, runs to the end); with no brace
  (`\\boxed 17`) a marker that reads nothing.  A box inside a box, a `####` line or an answer block is a
  marker of its own, and the outer one holds its number too.
* every `<answer>...</answer>` block, tags in any case (the reasoning format's; an unclosed one runs to
  the end).

A marker reads an answer when it is no operand of what stands beside it (`_operand`: only the line's
start or end, blank space, punctuation, math delimiters, tags, `=`, prose commands, markdown emphasis, or
outside math mode a word past blank space; `2\\boxed{18}`, `\\boxed{18}^2`, `\\sqrt{\\boxed{18}}` are no
answer; nor a word of `QUALIFIERS` beside it, or `of` after a number word or one of them: `not \\boxed{18}`,
`\\boxed{18} or less`, `half of \\boxed{18}`), its text holds exactly one number, that number has a value, and
nothing else in it is outside
the whitelist (`_clean`, `_ALLOWED`): white space, a label ("the answer is", "x ="), words by allow-list
(`UNITS` and the task's counted nouns, `counted_words`; never `REFUSED_WORDS`: comparison, negation,
approximation, multiplication, scale words; never `SCALE_LETTERS`), `$ % ° € £` in every LaTeX spelling,
`. , : ; =`, markdown `*` and backticks, LaTeX grouping braces and text commands, `/` between letters,
brackets that do not hold the number.  A sign not attached to its digits, `\\pm`, `\\sqrt`, `18!`,
`(18)`, `18 lakh`, `> 18`, `18 clips` (no counted noun), any other character or command: no answer.

**The rule** (`extract_answer`):

1. With markers, every marker must read an answer and all must be equal as values; that value is the
   reply's answer (named by the marker that comes last), if every number after the last marker has that value
   too (`#### 18` then `so 9` is none).  Otherwise the reply has no answer.
   `#### 18`, `\\boxed{18}.`, `#### \\boxed{18}` and `#### 0.75` with `\\boxed{\\frac{3}{4}}` are answers;
   `#### 17 or 18`, `\\boxed{17}` then `#### 18`, `#### 18 (eighteen)`, `#### 18²`, `#### 1½`,
   `#### 18 cm^2`, `#### 18 (first try)` and `\\boxed{}` are not.
2. Without markers, the reply's last non-empty line (lines end at `\\n`) must read an answer as a marker
   does: `The answer is 18.` is 18; `So 3 + 15 = 18` and `It is 18, the third try.` are no answer.
3. Every answer statement (`_STATED`: "the answer is 17", "Answer: 17") that holds a number must read the
   same answer, and its sentence open with nothing but `_STATED_OPENING` ("so the final"), or the reply has
   none (`The answer is 17.\\n#### 18`, `Twice the answer is 18.`); an equation chain before its answer is
   working (`_CHAIN`: `The answer is $6 \\times 3 = \\boxed{18}$.`).  Without markers, the statements are the
   answer as markers are (`... The answer is 72.\\nHope this helps!`, Minerva's `Final Answer: The final answer is
   $18$. I hope it is correct.`), unless a placeholder marker follows the last (then rule 2).
4. A hedge (`HEDGES`) in the sentence of a marker or statement, or after the last, is no answer; nor is a `?` after
   a marker.
5. A reply over `MAX_REPLY_CHARS` has no answer, nor one whose markers nest over `MAX_NESTING` deep.

Lines, markers and numbers are found in the normalised text: the Unicode minus and dashes are `-`, LaTeX
fractions `a/b`, LaTeX thousands and spacing commands plain, `minus 18` is `-18`.

**The grammar** (ASCII digits; what it reads has a value unless listed above): an optional sign (`-`, the
Unicode minus and dashes, `minus 18`, `negative 18`, `-$18`, `-(18)`; on the same line as the digits; a `-`
after a letter, digit or closing bracket is subtraction: `5-3` holds 5 and 3), thousands separators in
groups of three (`1,234`, LaTeX `1{,}234`), decimals (`2.50`, `.5`), fractions `a/b` and LaTeX
`\\frac{a}{b}` (`\\dfrac`, `\\tfrac`), mixed numbers (`1 1/2`).  Beside it a marker may hold only the
whitelist: words, `$`, `%`, units, LaTeX spacing (`#### $1,200` is 1200, `\\boxed{\\frac{3}{4}}` is
3/4, `25%` is 25, `18 cm` is 18).

Comparison (`answers_match`): integers and fractions exactly (`0.75` matches `3/4`, `18.0` matches
`18`; `0.333` does not match `1/3`); an expected decimal within `tolerance * max(1, |expected|)`
(default `DEFAULT_TOLERANCE`, the STDOUT checks' rule, and then never more than half a unit of the expected's
last decimal place: `12345.68` does not match `12345.67`).  `parse_number` reads expected answers (trusted
task files) by the same definition: one number, with a value.

Over 400 lines: this docstring is the reader's specification (about 80 lines), and the number grammar, the
whitelist, the markers and the hedge rules are one reader whose rules refer to each other; split, each part
would need the others' definitions to be read.
"""

from __future__ import annotations

import bisect
import functools
import re
import unicodedata
from fractions import Fraction
from typing import NamedTuple

from .types import ExecutionRequest, ExecutionResult, Status, TestOutcome

MAX_DIGITS = 40  # digits of one number, beyond which it is not read
MAX_REPLY_CHARS = 50_000  # a longer reply (~12k tokens) has no answer
DEFAULT_TOLERANCE = 1e-6
MAX_NESTING = 4  # the markers' texts together are at most this many times the reply (`#### \boxed{18}` is 2)

_CARDINALS = ("zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen "
              "sixteen seventeen eighteen nineteen twenty thirty forty fifty sixty seventy eighty ninety hundred "
              "thousand million billion trillion").split()
_ORDINALS = ("zeroth first second third fourth fifth sixth seventh eighth ninth tenth eleventh twelfth thirteenth "
             "fourteenth fifteenth sixteenth seventeenth eighteenth nineteenth twentieth thirtieth fortieth "
             "fiftieth sixtieth seventieth eightieth ninetieth hundredth thousandth millionth billionth "
             "trillionth").split()
_PARTS = ("half", "quarter", "dozen")  # fraction and multiple words


def _plural(word: str) -> str:
    if word == "half":
        return "halves"
    if word.endswith("x"):
        return word + "es"  # sixes
    if word.endswith("y"):
        return word[:-1] + "ies"  # twenties
    return word + "s"


_SINGULARS = frozenset(_CARDINALS + _ORDINALS + list(_PARTS))
# "seconds" is the time unit: no plural of "second" names a number (fractions are halves, thirds, fourths)
NUMBER_WORDS = (_SINGULARS | {_plural(w) for w in _SINGULARS} | {"zeroes"}) - {"seconds"}
"""English words that are numbers (lower case): each is a number with no value."""

# Every regex here runs in linear time: no nested or adjacent unbounded repeats over the same characters
# (a test feeds each of them 100,000-character runs).
_MINUS = dict.fromkeys(map(ord, "\u2212\u2010\u2011\u2012\u2013\u2014\ufe63\uff0d"), "-")
_FRAC = re.compile(r"\\[dt]?frac\s*\{([^{}]*)\}\s*\{([^{}]*)\}")
_LATEX_THOUSANDS = re.compile(r"(?<=\d)(?:\{,\}|\\,)(?=\d{3}(?!\d))")  # 1{,}200 and 1\,200
# `~` is LaTeX's unbreakable space, except before a number, a sign, a dollar or a command (`~18`, `~\\boxed{18}`:
# "about 18"), where it stays, a character outside the whitelist
_LATEX_NOISE = re.compile(r"\\[,;:! ]|~(?![ \t]*[-\d.$\\<#])")
# Every LaTeX spelling of the unit symbols the whitelist admits, as the symbol: degrees (`^\circ`, `^{\circ}`,
# `\degree`, `\textdegree`), percent (`\%`, `\percent`), dollars (`\textdollar`, `\dollar`), euros, pounds.
_LATEX_SYMBOLS = [
    (re.compile(r"(?<![ \t])[ \t]*\^[ \t]*(?:\{[ \t]*\\circ[ \t]*\}|\\circ(?![A-Za-z]))"
                r"|\\(?:text)?degrees?(?![A-Za-z])|\\ang(?![A-Za-z])"),
     "\u00b0"),
    (re.compile(r"\\%|\\(?:text)?percent(?![A-Za-z])"), "%"),
    (re.compile(r"\\(?:textdollar|dollar|USD)(?![A-Za-z])"), "$"),
    (re.compile(r"\\(?:texteuro|euro|EUR)(?![A-Za-z])"), "\u20ac"),
    (re.compile(r"\\(?:textsterling|mathsterling|pounds|GBP)(?![A-Za-z])"), "\u00a3"),
]
# siunitx: `\SI{18}{\kilo\metre}`, `\qty{18}{cm}`, `\num{18}`, `\si{\kilo\gram}`, `\unit{km/h}`: the number, then
# the unit in letters (its prefix and unit macros as their symbols, `\per` as `/`)
_SIUNITX = re.compile(r"\\(?:SI|qty)[ \t]*\{([^{}]*)\}[ \t]*\{((?:[^{}]|\{[^{}]*\})*)\}|"
                      r"\\(?:si|unit)[ \t]*\{((?:[^{}]|\{[^{}]*\})*)\}|\\num[ \t]*\{([^{}]*)\}")
_SI_MACROS = {"kilo": "k", "centi": "c", "milli": "m", "metre": "m", "meter": "m", "gram": "g", "second": "s",
              "litre": "L", "liter": "L", "hour": "h", "minute": "min", "day": " days", "percent": "%",
              "degreeCelsius": "\u00b0C", "celsius": "\u00b0C", "degree": "\u00b0", "per": "/", "kilogram": "kg",
              "kilometre": "km", "kilometer": "km", "centimetre": "cm", "centimeter": "cm", "millimetre": "mm",
              "millimeter": "mm", "millilitre": "mL", "milliliter": "mL"}
_SI_MACRO = re.compile(r"\\(" + "|".join(sorted(_SI_MACROS, key=len, reverse=True)) + r")(?![A-Za-z])")


def _siunitx(m: re.Match) -> str:
    number, unit = (m.group(1), m.group(2)) if m.group(1) is not None else (m.group(4) or "", m.group(3) or "")
    unit = _SI_MACRO.sub(lambda u: _SI_MACROS[u.group(1)], unit)
    return f" {number} {unit} "  # blank on both sides: `\\num{1}\\num{8}` is two numbers, never 18
_SIGNED_DOLLARS = re.compile(r"-(\s?)\\?\$")  # -$18, -\$18: the sign belongs to the amount
_SIGN_WORD = re.compile(r"\b(?:minus|negative)[ \t]+(?=\d)", re.IGNORECASE)
_NEGATED_PARENS = re.compile(r"-[ \t]?\([ \t]?(\d[\d.,/]*)[ \t]?\)")  # -(18)
# A number: a plain or thousands-grouped integer with optional decimals and an optional `/denominator`, or
# `.5`.  It does not start inside a word or another number (`x2`, `v1.5`: those digits are numbers with no
# value, found as stray digits).  A `-` is its sign unless it follows a letter, digit or closing bracket
# (then it is a binary minus: `5-3` holds 5 and 3); a sign and its number are on one line.
_NUMBER = re.compile(
    r"(?P<sign>(?<![\w)\]}.])-(?u:[^\S\n])?)?(?<![\w.])"
    r"(?P<num>(?:\d{1,3}(?:,\d{3})+(?!\d)|\d+)(?:\.\d+)?(?:[ \t]?/[ \t]?\d+)?|\.\d+)(?!\.?\d|[eE][+-]?\d)",
    re.ASCII,
)
# What makes a number mean something else than its digits: a multiplier (18k, 2 million), a power, a root,
# a hexadecimal or underscore-grouped literal.  Such a number has no value (a marked answer holding it is
# no answer), rather than being read as the digits it shows.
_CHANGES_AFTER = re.compile(r"[kKMB](?![A-Za-z])|[ \t]*(?i:thousand|million|billion|trillion|hundred|dozen)\b|"
                            r"[ \t]*\^|_\d|[xX][0-9a-fA-F]")
_ROOT_BEFORE = re.compile(r"(?:\\sqrt|\^)[ \t]*\{?[ \t]*$")  # the radicand or exponent of \sqrt{324}, 2^10
_ASCII_DIGITS = re.compile(r"[0-9]+")
_LETTERS = re.compile(r"[^\W\d_]+")  # a run of letters (after folding, numerals are no letters)
# (its text ends at a sentence's end when more follows on the line: `#### 18. Hope this helps!`)
_HASH = re.compile(r"(?<!#)####(?!#)[ \t]*((?:[^\n.]|\.(?![ \t]+\S))*)")
_BOX = re.compile(r"\\(?:boxed|fbox)(?![A-Za-z])\s*(\{)?")
_BRACE = re.compile(r"\\[\\{}]|[{}]")  # an escaped brace (`\{`) is no brace; `\\` is an escaped backslash
_ANSWER_TAG = re.compile(r"<[ \t]*answer[ \t]*>(.*?)(?:<[ \t]*/[ \t]*answer[ \t]*>|\Z)", re.DOTALL | re.IGNORECASE)
# "the answer is 17", "Final answer: 17": not a marker, but a statement every answer must agree with.  Its
# text runs to the end of its sentence (a `.` before white space) or line.
_STATED = re.compile(r"(?:^[ \t*#>_-]*|\b(?:the|my|final|correct)[ \t]+)answer[ \t*]*(?:is\b|:)"
                     r"((?:[^\n.]|\.(?!\s|\Z))*)", re.IGNORECASE | re.MULTILINE)
# a `####` heading whose one number counts steps: `#### Step 2`, `#### Part 1: the costs`
_LABEL = re.compile(r"(?i:step|part|case|method|approach|option|stage|phase)[ \t]+\d+[ \t]*(?:[:.)]|[ \t]-|$)")
_LINE = re.compile(r"[^\n]+")
# what a marker holds when it only names the format: nothing, dots, punctuation, blanks to fill, a template's word
# (`\boxed{}`, `\boxed{\ldots}`, `####.`, `\boxed{\quad}`, `<answer>your answer</answer>`, `#### [number]`); never
# `?` (after an answer it takes it back) nor a letter (`\boxed{N}` may be an answer)
_PLACEHOLDER = re.compile(r"(?:\s|[.,:;!\u2026_\[\]<>()]|\\[lcv]?dots\b|\\ldotp\b|\\q?quad\b|\\_|\\[,;: ]"
                          r"|\b(?i:(?:your|the|final)\s+)?(?i:answer|number|value|result)\b)*")
# What may open the sentence of an answer statement, up to its word "answer" ("So the final answer is");
# anything else makes the statement's number an operand ("Twice the answer is 18", "3 less than the answer is").
# (discourse words that lead to a conclusion; none of them operates on what follows)
_LEADS = (r"(?:(?:so|thus|therefore|hence|finally|overall|then|and|in conclusion|in summary|i think|i believe|"
          r"(?:we|i) (?:get|find|conclude|see|have)(?: that)?|this (?:means|gives|shows)(?: that)?|"
          r"which (?:means|gives)(?: that)?)\b[ \t,]*){0,3}(?:(?:the|my|our)[ \t]+)?(?:(?:final|correct)[ \t]+)?")
_STATED_OPENING = re.compile(r"[ \t*#>_]*" + _LEADS, re.IGNORECASE)  # never `-`: `- the answer is 1`
_SENTENCE_END = re.compile(r"[.!?](?=\s)|[\n>{$]|\\[(\[]")  # a sentence, a tag, a group or math mode starts after
_ORDINAL_SUFFIX = re.compile(r"\A(?:st|nd|rd|th)(?![A-Za-z])")
# What may stand before the number as its label, not as words beside it: "the answer is", "Final answer:",
# "So the answer is", "x =" (one letter, then `=`).
_LABEL_WORDS = re.compile(r"(?i:\b" + _LEADS + r"answer[ \t*]*(?:is\b|:|=))|\b[A-Za-z][ \t]*=(?!=)")
# The whitelist: what a marker's text may hold beside its one number (`_clean`).  White space, words (letters,
# inner `'` or `-`), `$ % ° € £`, `. , : ; =`, markdown `*` and backticks, LaTeX grouping braces and text
# commands, `/` between letters (`km/h`), brackets that do not hold the number, the reasoning format's tags.
_ALLOWED = re.compile(
    r"\s+|[A-Za-z]+(?:['-][A-Za-z]+)*|[$%\u00b0\u20ac\u00a3.,:;=*`{}()\[\]]|(?<=[A-Za-z}])/(?=[A-Za-z\\])|\\\$|"
    r"\\(?:text|textrm|textbf|textit|mathrm|mathbf|mathit|mbox|boxed|fbox|displaystyle|quad|qquad)(?![A-Za-z])|"
    r"</?(?:answer|reasoning|think)>|(?<!#)####(?!#)|\x00")
_SYMBOLS = "\u00b0\u20ac\u00a3"  # non-ASCII symbols the whitelist allows: degree, euro, pound
# Words that change a number's value, or say it is not the answer: signs, operators, functions, roots,
# comparisons, negation, and scale words (other locales' and abbreviations; English ones are number words)
VALUE_WORDS = frozenset("""
minus negative neg plus times over divided multiplied squared cubed sqrt root roots power powers factorial
log ln lg exp sin cos tan cot sec csc arcsin arccos arctan sinh cosh tanh mod modulo abs floor ceil ceiling pi
infinity inf than least most under below deficit debt loss owe owes owed owing not never except
bn mn mln mil mill mio mrd lakh lakhs lac lacs crore crores cr milliard milliards billiard billiards millones
millon tausend mille grand thou
""".split())
# Words of comparison, negation, approximation and multiplication, in the languages a model writes: refused
# beside a number even where a task's metadata names them as its counted noun (they are no noun).
REFUSED_WORDS = VALUE_WORDS | frozenset("""
more less fewer greater smaller larger bigger higher lower above over exceeding exceeds up upto within between
least most max maximum minimum limit only just exactly nearly almost about around approximately approx
approximate roughly circa ca some estimated estimate est odd plus or and nor no none nothing zero neither
twice thrice double doubled triple tripled quadruple fold times multiple multiplied each per every
mehr weniger als nicht kein keine nie ungefahr etwa circa mal doppelt plus pas non jamais environ fois moins
mas menos nunca aproximadamente veces casi cerca quasi piu meno volte nein ne net bolshe menshe okolo raz give take
""".split())
# The units a final answer may carry, in every spelling the reader sees once LaTeX is read (`\text{ cm}` is
# `cm`, `^\circ` is `°`): money, length, mass, time, volume, speed, temperature, counting units.  Compared in
# lower case, except `UNIT_LETTERS` (single letters whose other case is a scale: `m` is metres, `M` millions).
UNITS = frozenset("""
dollar dollars usd cent cents euro euros eur pound pounds gbp yen rupee rupees
mm cm dm km meter meters metre metres millimeter millimeters millimetre millimetres centimeter centimeters
centimetre centimetres kilometer kilometers kilometre kilometres inch inches ft foot feet yd yard yards mi mile
miles
mg kg gram grams kilogram kilograms milligram milligrams lb lbs ounce ounces oz ton tons tonne tonnes
sec secs seconds min minute minutes mins hr hrs hour hours day days week weeks month months year years yr yrs
ml liter liters litre litres milliliter milliliters millilitre millilitres gallon gallons gal quart quarts pint
pints cup cups
mph kmh kph
degree degrees celsius fahrenheit
percent percentage
unit units
""".split())
UNIT_LETTERS = frozenset("mgshlLCF")  # metres, grams, seconds, hours, litres (l, L), degrees Celsius, Fahrenheit
SCALE_LETTERS = frozenset("kKMBGTei")  # case-sensitive single letters: thousand, million, ..., e, i
_INVISIBLE = frozenset(("Mn", "Me", "Cf"))  # combining marks and format characters (zero-width space, ...)


class Answer(NamedTuple):
    """A reply's final answer: the number's text as written, its value, and the rule that found it."""

    text: str
    value: Fraction
    rule: str  # "####", "boxed", "<answer>", "the answer is" (statements, no marker) or "last number" (the last line)


class _Item(NamedTuple):
    start: int  # in the normalised text
    end: int
    text: str
    value: Fraction | None


def _normalise(text: str) -> str:
    text = text.translate(_MINUS)
    text = _SIUNITX.sub(_siunitx, text)
    for pattern, symbol in _LATEX_SYMBOLS:
        text = pattern.sub(symbol, text)
    text = _FRAC.sub(lambda m: f" {m.group(1).strip()}/{m.group(2).strip()} ", text)
    text = _LATEX_THOUSANDS.sub(",", text)
    text = _SIGNED_DOLLARS.sub(r"-\1", text)
    text = _SIGN_WORD.sub("-", text)
    text = _NEGATED_PARENS.sub(r"-\1", text)
    return _LATEX_NOISE.sub(" ", text)


def _value(token: str, negative: bool) -> Fraction | None:
    """A number token's exact value (spaces and thousands commas dropped, `a/b` a fraction), negated when `negative`;
    None for no number or more than MAX_DIGITS digits, so a malformed or huge literal is no answer, never an error."""
    token = re.sub(r"[\s,]", "", token)
    if sum(c.isdigit() for c in token) > MAX_DIGITS:
        return None
    num, _, den = token.partition("/")
    try:
        value = Fraction(num) / Fraction(den) if den else Fraction(num)
    except (ValueError, ZeroDivisionError):
        return None
    return -value if negative else value


def _grammar(text: str) -> list[_Item]:
    """The ASCII-digit numbers the grammar reads; a whole number followed by a proper fraction (`1 1/2`,
    `1\\frac{1}{2}`) is one mixed number."""
    found: list[_Item] = []
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
                found[-1] = _Item(start, m.end(), f"{prev_text} {token.strip()}", mixed)
                continue
        found.append(_Item(m.start(), m.end(), written, value))
    return found


def _strays(text: str, tokens: list[_Item], numerals: list[str]) -> list[_Item]:
    """Runs of Unicode category-N characters outside the grammar's numbers: numbers with no value (other
    scripts' digits, `²`, `½`, `Ⅻ`, and ASCII digits the grammar does not read: `x2`, `1e3`, `1_000`)."""
    pattern = re.compile("[0-9" + "".join(map(re.escape, numerals)) + "]+") if numerals else _ASCII_DIGITS
    parts, last = [], 0
    for item in tokens:
        parts += [text[last:item.start], " " * (item.end - item.start)]
        last = item.end
    masked = "".join(parts) + text[last:]
    return [_Item(m.start(), m.end(), m.group(), None) for m in pattern.finditer(masked)]


def _fold(c: str) -> str:
    """A non-ASCII character as the word reader sees it: a numeral separates words, a combining mark or an
    invisible format character is dropped, a compatibility form of ASCII letters is those letters
    (`ｔ` -> `t`, `𝐭` -> `t`, `ﬁ` -> `fi`); anything else is itself."""
    category = unicodedata.category(c)
    if category[0] == "N":
        return " "
    if category in _INVISIBLE:
        return ""
    folded = "".join(x for x in unicodedata.normalize("NFKC", c).casefold()
                     if unicodedata.category(x) not in _INVISIBLE)
    return folded if folded.isascii() and folded.isalpha() else c


def _words(text: str, others: list[str]) -> list[_Item]:
    """English number words (`NUMBER_WORDS`), whole and in any case; a hyphenated compound is one."""
    changed = {c: f for c, f in ((c, _fold(c)) for c in others) if f != c}
    folded, origin = text, None
    if changed:
        parts = [changed.get(c, c) for c in text]
        folded = "".join(parts)
        if any(len(f) != 1 for f in changed.values()):
            origin = [i for i, part in enumerate(parts) for _ in part]
    found: list[_Item] = []
    joined_at = -1  # where, in `folded`, the last word ended
    for m in _LETTERS.finditer(folded):
        if m.group().lower() not in NUMBER_WORDS:
            continue
        start, end = m.span()
        if origin is not None:
            start, end = origin[start], origin[end - 1] + 1
        if found and joined_at + 1 == m.start() and folded[joined_at] == "-":  # twenty-one
            found[-1] = _Item(found[-1].start, end, text[found[-1].start:end], None)
        else:
            found.append(_Item(start, end, text[start:end], None))
        joined_at = m.end()
    return found


def _items(text: str) -> list[_Item]:
    """Every number of a normalised text, in order."""
    tokens = _grammar(text)
    others = [c for c in set(text) if not c.isascii()]
    numerals = sorted(c for c in others if unicodedata.category(c)[0] == "N")
    return sorted(tokens + _strays(text, tokens, numerals) + _words(text, others), key=lambda item: item.start)


def numbers(text: str) -> list[tuple[str, Fraction | None]]:
    """Every number in `text` by the module's definition, in order: (as written, after normalisation; its
    value, or None for a number with no value: a non-ASCII numeral, a number word, `18k`, `2^10`, ...)."""
    return [(item.text, item.value) for item in _items(_normalise(text))]


def parse_number(text: str) -> Fraction | None:
    """The value of a text that holds exactly one number, with a value, and nothing but what the whitelist
    allows (words, `$`, `%`, ...)."""
    text = _normalise(text)
    items = _items(text)
    found = _one_number(items, [item.start for item in items], text, 0, len(text))
    return None if found is None else found.value


def _markers(text: str, starts: list[int]) -> list[tuple[int, int, int, str, int]]:
    """Every marker of a normalised reply, in order: (where it starts, where its text starts and ends, rule,
    where it ends: after its closing brace or tag, at its line's end).  `starts`: where the text's numbers start."""
    marks: list[tuple[int, int, int, str, int]] = []
    lines: list[tuple[int, int]] | None = None
    for m in _HASH.finditer(text):
        line = m.group(1).strip()
        held = bisect.bisect_left(starts, m.end(1)) - bisect.bisect_left(starts, m.start(1))
        if line[:1].isalpha() and (not held or held == 1 and _LABEL.match(line)):
            continue  # a markdown heading with no number (`#### Final Answer`) or a step's (`#### Step 2`)
        if line:
            marks.append((m.start(), m.start(1), m.end(1), "####", m.end(1)))
            continue
        if lines is None:  # the non-empty lines, once
            lines = [lm.span() for lm in _LINE.finditer(text) if not lm.group().isspace()]
        k = bisect.bisect_right(lines, (m.end(1), len(text) + 1))
        start, end = lines[k] if k < len(lines) else (m.end(1), m.end(1))
        marks.append((m.start(), start, end, "####", end))
    boxes = list(_BOX.finditer(text))
    if boxes:
        closing: dict[int, int] = {}
        stack: list[int] = []
        for m in _BRACE.finditer(text):
            if m.group() == "{":
                stack.append(m.start())
            elif m.group() == "}" and stack:
                closing[stack.pop()] = m.start()
        # an unclosed box (a truncated reply) holds what follows it; `\boxed 18`, with no brace, holds nothing
        for m in boxes:
            end = closing.get(m.end() - 1, len(text)) if m.group(1) else m.end()
            marks.append((m.start(), m.end(), end, "boxed", min(end + 1, len(text)) if m.group(1) else end))
    marks += [(m.start(), m.start(1), m.end(1), "<answer>", m.end()) for m in _ANSWER_TAG.finditer(text)]
    return sorted(marks)


def counted_words(nouns) -> frozenset[str]:
    """The words a task's metadata lets an answer carry besides units (the noun a generated problem counts:
    `apples`), in lower case, with their singular or plural; never a refused word or a number word."""
    out: set[str] = set()
    for noun in nouns or ():
        if not isinstance(noun, str) or not re.fullmatch(r"[A-Za-z]+(?:-[A-Za-z]+)*", noun):
            continue
        noun = noun.lower()
        for form in (noun, noun + "s", noun + "es", noun[:-1] if noun.endswith("s") else noun,
                     noun[:-2] if noun.endswith("es") else noun, noun[:-3] + "y" if noun.endswith("ies") else noun):
            out.add(form)
    return frozenset(w for w in out if w and w not in REFUSED_WORDS and w not in NUMBER_WORDS)


def _word_ok(word: str, words: frozenset[str]) -> bool:
    """A word beside a number: a unit, or a counted noun of the task's (`words`); never a refused word."""
    if word in SCALE_LETTERS:
        return False
    if word in UNIT_LETTERS:
        return True
    parts = [w.lower() for w in re.split(r"['-]", word)]
    return not any(w in REFUSED_WORDS for w in parts) and all(w in UNITS or w in words for w in parts)


def _clean(text: str, start: int, end: int, number: _Item, words: frozenset[str]) -> bool:
    """`text[start:end]` holds nothing but `number`, a label before it (`_LABEL_WORDS`) and what the whitelist
    allows (`_ALLOWED`; its words units or the task's counted nouns, `_word_ok`; the number inside no bracket)."""
    chars = []
    for c in text[start:number.start] + "\x00" + text[number.end:end]:
        if c.isascii() or c.isspace() or c in _SYMBOLS:
            chars.append(c)
            continue
        folded = _fold(c)  # a compatibility form of letters (full-width, mathematical); anything else fails
        if not (folded.isascii() and folded.isalpha()):
            return False
        chars.append(folded)
    folded = "".join(chars)
    cut = folded.index("\x00")
    after = _ORDINAL_SUFFIX.sub("  ", folded[cut + 1:], count=1)  # `3rd` is the number 3
    folded = _LABEL_WORDS.sub(lambda m: " " * len(m.group()), folded[:cut]) + "\x00" + after
    pos = 0
    while pos < len(folded):
        m = _ALLOWED.match(folded, pos)
        if m is None:
            return False
        word = m.group()
        if word[0].isalpha() and not _word_ok(word, words):
            return False
        pos = m.end()
    before = folded[:cut]
    return before.count("(") + before.count("[") <= before.count(")") + before.count("]")


def _one_number(items: list[_Item], starts: list[int], text: str, start: int, end: int,
                words: frozenset[str] = frozenset()) -> _Item | None:
    """The one number, with a value, between `start` and `end`, with nothing beside it but what the
    whitelist allows; None if there are none, several, it has no value, or anything else is there."""
    i, j = bisect.bisect_left(starts, start), bisect.bisect_left(starts, end)
    if j - i != 1 or items[i].value is None or items[i].end > end or not _clean(text, start, end, items[i], words):
        return None
    return items[i]


# ---- a marker in its context: fail closed when it is an operand --------------------------------------------
# Math delimiters and the reasoning format's tags end the expression a marker is part of; markdown emphasis
# (`**` that opens or closes a span) is transparent; the commands that only set text or space are words.
_OPENING = re.compile(r"(?:\$\$?|\\[(\[]|\\begin\{[A-Za-z*]+\}|<[ \t]*/?[ \t]*(?:answer|reasoning|think)[ \t]*>)\Z",
                      re.IGNORECASE)
_CLOSING = re.compile(r"\$\$?|\\[)\]]|\\end\{[A-Za-z*]+\}|<[ \t]*/?[ \t]*(?:answer|reasoning|think)[ \t]*>",
                      re.IGNORECASE)
# `\\text{...}` and its kin set prose, `\\quad` space, `\\displaystyle` a style: beside a marker they leave it
# no operand; the `\\math..` fonts set symbols (`\\mathrm{d}\\boxed{x}`), operands as every other command is.
_PROSE = (r"\\(?:text|textrm|textbf|textit|textnormal|textsf|texttt|mbox)[ \t]*\{[^{}\n]*\}|"
          r"\\(?:quad|qquad|hfill|displaystyle|textstyle)(?![A-Za-z])")
_PROSE_END, _PROSE_AT = re.compile(f"(?:{_PROSE})\\Z"), re.compile(_PROSE)
_BOUNDARY_END = re.compile(r"(?:\\\\|&)\Z")  # a LaTeX line break or an alignment point: an expression ends
_HASH_END = re.compile(r"(?<!#)####\Z")
_SENTENCE_MARKS = ".,;:?"  # punctuation: a `!` beside a marker is a factorial
# Words that, right beside a marker, say the marked number is not the answer as it stands: comparison, negation,
# approximation, multiplication, an alternative or a hedge (`not \\boxed{18}`, `more than \\boxed{18}`, `twice
# \\boxed{18}`, `\\boxed{18} or less`, `perhaps \\boxed{18}`); `of` after a number word or one of them too
# (`half of \\boxed{18}`).  Narrower than REFUSED_WORDS: `only`, `exactly`, `and`, `each` beside a marker change
# nothing of its value.
_EQUATION_QUALIFIERS = VALUE_WORDS | frozenset("""
more less fewer greater smaller larger bigger higher lower above over exceeding exceeds within between nearly
almost about around approximately approx approximate roughly circa estimated twice thrice double triple
quadruple times or nor either neither no perhaps maybe possibly probably likely
""".split())  # (before an equation, `around $78 = \\boxed{9}$`: not the other refused words, `max = \\boxed{18}`)
QUALIFIERS = _EQUATION_QUALIFIERS | (REFUSED_WORDS - frozenset("only exactly just and each every per up net give take "
                                                               "est".split()))
# (every refused word but those that change nothing of a marked value beside its marker, `\\boxed{18} each`, or
# are ordinary verbs and adjectives, `this gives \\boxed{18}`, `the net total is \\boxed{18}`: a review of issue 99
# found `\\boxed{18} fold` and `nicht \\boxed{18}` read as 18)
# Words and phrases that hedge a stated answer (`maybe`, `I am not sure`, `give or take`): in the sentence of a marker
# or an answer statement, or anywhere after the last one, the reply states no answer (`\\boxed{18}, probably.`,
# `The answer is 18. I am not sure.`); and so does a `?` right after a marker (`\\boxed{18}?`).
HEDGES = re.compile(
    r"\b(?:maybe|perhaps|possibly|probably|presumably|likely|unlikely|approximately|approx|roughly|circa|"
    r"estimated|guess(?:ing)?|unsure|uncertain|or[ \t]+so|give[ \t]+or[ \t]+take|"
    r"(?:may|might|could)[ \t]+(?:be|have[ \t]+been)[ \t]+(?:wrong|off|mistaken|incorrect))\b"
    r"|(?:\bnot|n't)[ \t]+(?:(?:be|quite|entirely|completely|totally|fully|100%)[ \t]+){0,2}"
    r"(?:sure|certain|confident)\b",
    re.IGNORECASE)
_QUESTION_AFTER = re.compile(r"(?:\s|\*|\$|\\[)\]]|<[ \t]*/[ \t]*answer[ \t]*>)*\?")
_HEDGE_SENTENCE = re.compile(r"[.!?](?=\s)|\n")  # where a sentence ends, for the hedge check
_MATH_TOGGLES = re.compile(r"(?<!\\)\$\$?|\\[()\[\]]")


def _math_spans(text: str) -> list[tuple[int, int]]:
    """Where the text is in math mode, as far as its delimiters say: `$...$`, `$$...$$`, `\\(...\\)`, `\\[...\\]`."""
    spans, opened, closer = [], None, ""
    for m in _MATH_TOGGLES.finditer(text):
        token = m.group()
        if opened is None:
            if token == "$" and re.match(r"[\s\d.,-]", text[m.end():m.end() + 1]):
                continue  # `$18`, `$ 18`: a dollar sign, not math mode
            if token in ("$", "$$", "\\(", "\\["):
                opened, closer = m.end(), {"$": "$", "$$": "$$", "\\(": "\\)", "\\[": "\\]"}[token]
        elif token == closer:
            spans.append((opened, m.start()))
            opened = None
    if opened is not None:
        spans.append((opened, len(text)))
    return spans


def _in_math(spans: list[tuple[int, int]], pos: int) -> bool:
    k = bisect.bisect_right(spans, (pos, len(spans) + 1 << 62)) - 1
    return k >= 0 and spans[k][0] <= pos <= spans[k][1]


def _left_ok(text: str, pos: int, math: bool) -> bool:
    """What stands before a marker that starts at `pos` leaves it no operand: the line's start, blank space, then
    punctuation, a math delimiter or tag that opens, `=` (`x = \\boxed{18}`), a `####` marker, a text command
    (`\\text{...}`) or, outside math mode, a word; never a digit, an operator, a script, any other command or
    bracket, a letter touching it, or a word in math mode (a product)."""
    line_start = text.rfind("\n", 0, pos) + 1
    i, touching = pos, True
    while True:
        while i > line_start and text[i - 1] in " \t":
            i, touching = i - 1, False
        if i == line_start:
            return True
        c = text[i - 1]
        if c == "*":  # markdown emphasis that opens (blank before) or closes (a non-blank before) a span
            j = i
            while j > line_start and text[j - 1] == "*":
                j -= 1
            before = text[j - 1] if j > line_start else " "
            if not math and not touching and (before.isalpha() or before in ".,:;!?)"):  # `**Answer:** \\boxed{18}`
                i = j
                continue
            return False
        head = text[max(line_start, i - 60):i]
        prose = _PROSE_END.search(head)
        if prose is not None:  # prose beside the marker is read as prose: its word nearest the marker counts
            verdict = _prose_ok(prose.group(), before=True)
            if verdict is None:  # `\\text{}`, `\\quad`: nothing to read, look past it
                i, touching = i - len(prose.group()), False
                continue
            return verdict
        opening = _OPENING.search(head)
        if opening is not None and opening.group()[0] in "$\\" and not opening.group().startswith("\\begin"):
            i, touching, math = i - len(opening.group()), False, False  # `about $\\boxed{18}$`: look past the math
            continue
        if c == "=":  # `x = \\boxed{18}`: the marker is the equation's value; what qualifies the equation, it qualifies
            return _equation_ok(text, line_start, i - 1)
        if c in _SENTENCE_MARKS or opening is not None or _HASH_END.search(head) or _BOUNDARY_END.search(head):
            return True
        if c.isalpha() and not touching and not math:
            j = _word_start(text, line_start, i)
            if i - j < 2 or (j > line_start and text[j - 1] == "\\"):
                return False  # a command or a variable
            word = text[j:i].lower()
            if word == "of":  # `half of \\boxed{18}`: what stands before `of` decides
                k = j
                while k > line_start and text[k - 1] in " \t":
                    k -= 1
                before = text[_word_start(text, line_start, k):k].lower()
                return before not in QUALIFIERS and before not in NUMBER_WORDS
            return word not in QUALIFIERS  # a word, unless it qualifies the number
        return False


_EQUATION_TAIL = re.compile(r"(?:\\(?:times|cdot|div|left|right|[()\[\]])|\$\$?|"
                            r"[\s\d.,+\-*/\u00d7\u00f7\u00b7()\[\]^{}=])\Z")


def _equation_ok(text: str, line_start: int, i: int) -> bool:
    """What stands before an equation whose `=` is at `i` and whose value is a marker (`$6 \\times 3 = \\boxed{18}$`)
    leaves the marker no operand: anything but a word that qualifies the number (`around $78 = \\boxed{9}$`, found by
    the differential of issue 99: the hedge before the equation was read as absent)."""
    while i > line_start:
        m = _EQUATION_TAIL.search(text, max(line_start, i - 8), i)
        if m is None:
            break
        i = m.start()
    j = _word_start(text, line_start, i)
    word = text[j:i].lower()
    if word == "of":
        k = j
        while k > line_start and text[k - 1] in " \t":
            k -= 1
        word = text[_word_start(text, line_start, k):k].lower()
        return word not in _EQUATION_QUALIFIERS and word not in NUMBER_WORDS
    return word not in _EQUATION_QUALIFIERS


def _prose_ok(command: str, before: bool) -> bool | None:
    """A prose command beside a marker (`\\text{ or more}` after it, `\\text{at least }` before it) leaves the
    marker no operand unless the word of its text nearest the marker qualifies the number, as a word beside the
    marker would (`_left_ok`); None when it sets no text (`\\quad`, `\\text{ }`): what stands past it decides.
    (A review of issue 99 found `\\boxed{18}\\text{ or more}` read as 18: a prose command was read as if absent.)"""
    brace = command.find("{")
    inner = command[brace + 1:-1] if brace >= 0 else ""
    words = re.findall(r"[^\W\d_]+|[^\w\s]", inner)
    if not words:
        return None
    if before:
        word = words[-1].lower()
        if word == "of" and len(words) > 1:  # `\\text{half of }\\boxed{18}`
            return words[-2].lower() not in QUALIFIERS and words[-2].lower() not in NUMBER_WORDS
        return word not in QUALIFIERS
    return words[0].lower() not in QUALIFIERS


def _word_start(text: str, line_start: int, end: int) -> int:
    """Where the run of letters that ends at `end` starts (not before `line_start`)."""
    while end > line_start and text[end - 1].isalpha():
        end -= 1
    return end


def _right_ok(text: str, pos: int, math: bool) -> bool:
    """What stands after a marker that ends at `pos` leaves it no operand (as `_left_ok`, mirrored: a math
    delimiter or tag that closes, punctuation but `!`, the line's end)."""
    line_end = text.find("\n", pos)
    line_end = len(text) if line_end < 0 else line_end
    i, touching = pos, True
    while True:
        while i < line_end and text[i] in " \t":
            i, touching = i + 1, False
        if i == line_end:
            return True
        c = text[i]
        if c == "*":
            j = i
            while j < line_end and text[j] == "*":
                j += 1
            after = text[j] if j < line_end else " "
            if not math and not touching and (after.isalpha() or after == "("):  # `\\boxed{18} **Note**`
                i = j
                continue
            return False
        prose = _PROSE_AT.match(text, i)
        if prose is not None:
            verdict = _prose_ok(prose.group(), before=False)
            if verdict is None:
                i, touching = prose.end(), False
                continue
            return verdict
        closing = _CLOSING.match(text, i)
        if closing is not None and closing.group()[0] in "$\\" and not closing.group().startswith("\\end"):
            i, touching, math = closing.end(), False, False  # `$\\boxed{18}$ or more`: look past the math
            continue
        if c in _SENTENCE_MARKS or c in "=&" or text.startswith("\\\\", i) or closing is not None:
            return True
        if c.isalpha() and not touching and not math:
            j = i
            while j < line_end and text[j].isalpha():
                j += 1
            # a word, unless it qualifies the number (`\\boxed{18} or less`); a single letter is a variable
            # (`\\boxed{18} x 2`)
            return j - i > 1 and text[i:j].lower() not in QUALIFIERS
        return False


def _operand(text: str, start: int, end: int, spans: list[tuple[int, int]]) -> bool:
    """Whether the marker `text[start:end]` is an operand of what stands beside it (`_left_ok`, `_right_ok`)."""
    hashes = text.startswith("####", start)  # a `####` line: only blank space, markdown or a tag before it
    k = 0
    while start - k > 0 and text[start - k - 1] == "*" and text[end + k:end + k + 1] == "*":
        k += 1  # markdown emphasis around the marker (`**\\boxed{18}**`), the same run on both sides
    start, end = start - k, end + k
    return not (_left_ok(text, start, hashes or _in_math(spans, start)) and _right_ok(text, end, _in_math(spans, end)))


@functools.lru_cache(maxsize=4096)
def extract_answer(reply: str, words: frozenset[str] = frozenset()) -> Answer | None:
    """The reply's final answer by the module's rules, or None (no answer, an ambiguous or a hidden one).
    `words`: the task's counted nouns an answer may carry besides units (`counted_words`).
    Cached: one reply is read by the judge, the `syntax` reward and the chat format's `format_ok`."""
    if len(reply) > MAX_REPLY_CHARS:
        return None  # a longer reply could state an answer in a part no reader reads
    text = _normalise(reply)
    items = _items(text)
    starts = [item.start for item in items]
    marks = _markers(text, starts)
    # A marker that holds only a placeholder (`\boxed{}`, `\boxed{...}`, "after ####." in the prose) names the format:
    # it is no answer, and the reply is read without it.  One that holds text, a letter or a symbol is read (and is
    # no answer: `\boxed{18}` then `\boxed{\text{none}}` is none), and so is a `\boxed` with no brace.
    placeholders = [mark[0] for mark in marks if _PLACEHOLDER.fullmatch(text, mark[1], mark[2])
                    and not (mark[3] == "boxed" and mark[4] == mark[2])]
    marks = [mark for mark in marks if mark[0] not in placeholders]
    stated = [m for m in _STATED.finditer(text)  # answer statements that hold a number
              if bisect.bisect_left(starts, m.end(1)) > bisect.bisect_left(starts, m.start(1))]
    # With no marker, the answer statements are the reply's answer; unless an empty marker follows the last of them
    # (`The answer is 18.\n#### `: a reply cut off before its marked answer), where the last line is read.
    if not marks and (not stated or max(placeholders, default=-1) > stated[-1].start()):
        body = text.rstrip()
        found = _one_number(items, starts, text, body.rfind("\n") + 1, len(body), words) if body else None
        answer = None if found is None else Answer(found.text, found.value, "last number")
        for m in stated if answer is not None else ():  # `Final answer: 17 ... \n18`: two answers
            said = _stated(text, items, starts, m, [], words)
            if said is None or said.value != answer.value:
                return None
        spans_read: list[tuple[int, int]] = []
    elif sum(end - start for _, start, end, _, _ in marks) > MAX_NESTING * len(text):
        return None  # markers inside markers inside markers ...: reading them all would not be linear
    else:
        spans = _math_spans(text)
        whole = {_stripped(text, start, end) for _, start, end, _, _ in marks}  # a marker that is all of another's text
        read = []
        for begin, start, end, rule, finish in marks:
            if (begin, finish) not in whole and _operand(text, begin, finish, spans):
                return None  # `\boxed{18}^2`, `2\boxed{18}`, `\sqrt{\boxed{18}}`: the marked value is an operand
            if _QUESTION_AFTER.match(text, finish):
                return None  # `\boxed{18}?`: a question, not an answer
            found = _one_number(items, starts, text, start, end, words)
            if found is None:
                return None
            read.append((found, rule))
        # Every answer statement ("the answer is 17", "Final Answer: The final answer is $18$") reads the same answer
        # (`The answer is 17.\n#### 18` is none); without a marker, the statements are the reply's answer (GSM8K's
        # chain-of-thought format: "... The answer is 18."; Minerva's: "... I hope it is correct.").
        begins = [mark[0] for mark in marks]
        for m in stated:
            found = _stated(text, items, starts, m, begins, words)
            if found is None:
                return None
            if found is not True:
                read.append((found, "the answer is"))
        if not read or len({found.value for found, _ in read}) != 1:
            return None
        found, rule = read[-1]
        if marks:  # named by the marker that comes last
            found, rule = next((f, r) for f, r in reversed(read) if r != "the answer is")
        spans_read = [(mark[0], mark[4]) for mark in marks] + [(m.start(), m.end()) for m in stated]
        last = max(finish for _, finish in spans_read)
        if any(item.value != found.value for item in items[bisect.bisect_left(starts, last):]):
            return None  # `#### 18` then `Wait, ... so 9`, `\\boxed{18} = 17`: a number after the last marker that
            #              is not the answer (or has no value: `eighteen`) takes it back or hides a second one
        answer = Answer(found.text, found.value, rule)
    if answer is not None and spans_read and _hedged(text, spans_read):
        return None  # `\boxed{18}, probably.`, `The answer is 18. I am not sure.`
    return answer


# an equation chain before the answer in its statement's sentence: numbers, operators, math delimiters, `=` (a `.` or
# `,` only inside a number: `The answer is 17, 3 = 18` holds no chain)
_CHAIN = re.compile(r"(?:[\s$\d+\-*/\u00d7\u00f7\u00b7()\[\]^{}=]|(?<=\d)[.,](?=\d)|"
                    r"\\(?:times|cdot|div|left|right|[()\[\]$]))*")


def _stated(text: str, items: list[_Item], starts: list[int], m: re.Match, begins: list[int],
            words: frozenset[str]) -> _Item | bool | None:
    """What an answer statement `m` (that holds a number) reads: its one number; True when it states its answer by a
    marker it holds (`the answer is $6 \\times 3 = \\boxed{18}$`: the marker is read as one); None when it reads none:
    its sentence opens with anything but leads (`Twice the answer is 18`), or it holds anything but its number and
    the whitelist.  Working before the answer is an equation chain ending in `=` (`The answer is 3 + 15 = 18.`)."""
    start, end = m.span(1)
    word = m.start() + m.group().lower().index("answer")
    opening = max((e.end() for e in _SENTENCE_END.finditer(text, max(0, word - 200), word)), default=0)
    if not _STATED_OPENING.fullmatch(text, opening, word):
        return None  # "Twice the answer is 18": the stated number is an operand of what opens its sentence
    k = bisect.bisect_left(begins, start)
    if k < len(begins) and begins[k] < end:  # it holds a marker: only working may come before it
        held = bisect.bisect_left(starts, begins[k]) > bisect.bisect_left(starts, start)
        chain = _CHAIN.match(text, start, begins[k]).end() == begins[k] and text[start:begins[k]].rstrip()[-1:] == "="
        return True if not held or chain else None
    eq = text.rfind("=", start, _CHAIN.match(text, start, end).end())  # the chain's last `=`, if any
    return _one_number(items, starts, text, start if eq < 0 else eq + 1, end, words)


def _hedged(text: str, spans: list[tuple[int, int]]) -> bool:
    """A hedge (`HEDGES`) in the sentence of a marker or answer statement (`spans`), or after the last one."""
    ends = [e.end() for e in _HEDGE_SENTENCE.finditer(text)]
    regions = []
    for begin, finish in spans:
        k = bisect.bisect_right(ends, begin) - 1
        j = bisect.bisect_left(ends, finish)
        regions.append((ends[k] if k >= 0 else 0, ends[j] if j < len(ends) else len(text)))
    regions.append((max(finish for _, finish in spans), len(text)))
    regions.sort()
    merged: list[list[int]] = []
    for a, b in regions:
        if merged and a <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], b)
        else:
            merged.append([a, b])
    return any(HEDGES.search(text, a, b) for a, b in merged)


def _stripped(text: str, start: int, end: int) -> tuple[int, int]:
    """`(start, end)` without the blank space at either end."""
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end


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
    bound = (DEFAULT_TOLERANCE if tolerance is None else tolerance) * max(1.0, abs(float(want)))
    places = len(re.match(r"[0-9]*", expected.split(".", 1)[1]).group())
    if tolerance is None and places:  # the default never as coarse as the expected's last decimal place (an attack,
        # 2026-11-27: 1e-6 of 12345.67 is 0.012, so 12345.68 matched): half a unit of it at most
        bound = min(bound, 0.5 * 10.0 ** -places)
    return abs(float(got) - float(want)) <= bound


def judge_answer(request: ExecutionRequest) -> ExecutionResult:
    """The verdict of a `Mode.ANSWER` request: `program` is the reply; each test's `expected` is the answer
    (as text) it must match.  Runs in the parent; nothing of the reply is executed."""
    answer = extract_answer(request.program, counted_words(request.answer_words))
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
