"""Does a text show a test's (arguments, expected value)?  `pair_appears`, conservative: when in doubt, yes.

The text, and the inside of each literal bracket group in it (a table of cases), is read as a stream of
literal tokens (numbers, one-line strings, True/False/None and
JavaScript's true/false/null, bracket groups that are literals; a call's arguments as separate tokens);
a function test's pair appears where its arguments are consecutive tokens followed closely by its
expected value; a stdio test's where its input's words are followed by its output's.
"""

from __future__ import annotations

import functools
import re
from typing import Any

from coderl.tasks.pairs import ANY, NOT_LITERAL, TestPair, canonical, literal_value

# ---- the literal scanner -------------------------------------------------------------------------------

_NUMBER_RE = re.compile(r"0[xX][0-9a-fA-F]+|(?:\d[\d_]*(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?")
_IDENT_RE = re.compile(r"[^\W\d]\w*")
_STRING_RE = {q: re.compile(q + r"(?:[^" + q + r"\\\n]|\\.)*" + q) for q in "'\""}  # one line, escapes
_WORDS = {"True": True, "False": False, "None": None, "true": True, "false": False, "null": None}
_JS_WORD_RE = re.compile(r"\b(?:true|false|null)\b")
# Comment and doctest prefixes of continuation lines (` * `, `# `, `... `), dropped before a bracket
# group that spans lines is read as a literal.
_CONTINUATION_RE = re.compile(r"\n[ \t]*(?:\*(?!/)|#|//|\.\.\.)")
_CLOSE = {"(": ")", "[": "]", "{": "}"}
_MAX_GROUP = 20_000
EXPECTED_WINDOW_TOKENS = 2  # the expected value is one of the next 2 tokens after the arguments
EXPECTED_WINDOW_CHARS = 300  # ... starting within 300 characters
EXPECTED_WINDOW_LINES = 3  # ... or any token before the end of the 3rd line below
STDOUT_WINDOW_TOKENS = 50  # stdio: the output run starts within 50 tokens after the input run


def _string_at(text: str, i: int) -> int | None:
    """End (exclusive) of the one-line string opening at `i`; None for an apostrophe (a quote after
    a letter: "don't"), a triple quote (a docstring delimiter) or an unclosed quote."""
    if (text[i] == "'" and i > 0 and text[i - 1].isalpha()) or text.startswith(text[i] * 3, i):
        return None
    m = _STRING_RE[text[i]].match(text, i)
    return m.end() if m else None


def _brackets(text: str) -> dict[int, int]:
    """Opening bracket index -> its closing bracket's, skipping strings; unmatched brackets are left out."""
    pairs: dict[int, int] = {}
    stack: list[int] = []
    i = 0
    while i < len(text):
        c = text[i]
        if c in "'\"":
            i = _string_at(text, i) or i + (3 if text.startswith(c * 3, i) else 1)
            continue
        if c in _CLOSE:
            stack.append(i)
        elif c in ")]}":
            while stack and _CLOSE[text[stack[-1]]] != c:
                stack.pop()
            if stack:
                pairs[stack.pop()] = i
        i += 1
    return pairs


def _group_value(src: str) -> Any:
    """The literal a bracket group or string spells, in Python or with JavaScript's (and JSON's)
    true/false/null (`(null, 1)`); else NOT_LITERAL."""
    if len(src) > _MAX_GROUP:
        return NOT_LITERAL
    joined = _CONTINUATION_RE.sub("\n", src)
    for text in dict.fromkeys((src, joined, _JS_WORD_RE.sub(lambda m: str(_WORDS[m.group()]), joined))):
        if (value := literal_value(text.strip())) is not NOT_LITERAL:
            return value
    return NOT_LITERAL


def _number(text: str, i: int, m: re.Match) -> tuple[int, int, tuple]:
    s = m.group().replace("_", "")
    value = int(s, 16) if s[:2] in ("0x", "0X") else float(s) if any(ch in s for ch in ".eE") else int(s)
    before = text[i - 2] if i > 1 else " "
    if i == 0 or text[i - 1] != "-" or before.isalnum() or before == "_":
        return i, m.end(), (canonical(value),)  # no sign, or `x-1`: a binary minus
    if before.isspace() or before in ")]}'\"":  # `x - 1`, `f(x) -1`: maybe binary, so both match
        return i - 1, m.end(), (canonical(-value), canonical(value))
    return i - 1, m.end(), (canonical(-value),)  # `(-1`, `, -1`, `= -1`


@functools.lru_cache(maxsize=512)
def _tokens(text: str) -> tuple[tuple[int, int, tuple], ...]:
    """The text's literal tokens: (start, end, the canonical values it may stand for)."""
    pairs = _brackets(text)
    out: list[tuple[int, int, tuple]] = []
    i = 0
    while i < len(text):
        c = text[i]
        if c in "'\"":
            if (end := _string_at(text, i)) is None:
                i += 3 if text.startswith(c * 3, i) else 1
                continue
            value = _group_value(text[i:end])
            out.append((i, end, (canonical(text[i + 1:end - 1] if value is NOT_LITERAL else value),)))
            i = end
        elif m := _IDENT_RE.match(text, i):
            if m.group() in _WORDS:
                out.append((i, m.end(), (canonical(_WORDS[m.group()]),)))
            # A `(` right after a name opens a call: its arguments are scanned as separate tokens.
            i = m.end() + 1 if text.startswith("(", m.end()) else m.end()
        elif m := _NUMBER_RE.match(text, i):
            out.append(_number(text, i, m))
            i = m.end()
        elif c in _CLOSE and i in pairs and (value := _group_value(text[i:pairs[i] + 1])) is not NOT_LITERAL:
            # `("Venus")` is a string, but a sloppy example may mean the 1-tuple: both match.
            values = (value,) if c != "(" or isinstance(value, tuple) else (value, (value,))
            out.append((i, pairs[i] + 1, tuple(canonical(v) for v in values)))
            i = pairs[i] + 1
        else:
            i += 1  # punctuation, or a group that is not one literal: scan inside
    return tuple(out)


def _arg_matches(arg: Any, values: tuple) -> bool:
    # A keyword argument is stored as (name, value); the text may show it as `name=value`.
    return arg in values or (isinstance(arg, tuple) and len(arg) == 2 and isinstance(arg[0], str)
                             and arg[1] in values)


def _shows_expected(expected: Any, text: str, tokens: tuple, last: int) -> bool:
    """Is `expected` one of the 2 tokens after the arguments (ending with token `last`), any token up to
    the 3rd line below (worked examples: `arr = [2, 1] -> sort -> [1, 2] ... return ["Two", "One"]`) or,
    a string, in the rest of the line (a broken quote: `== ""aaaaaaa"`)?  All within 300 characters."""
    end = tokens[last][1]
    after = tokens[last + 1:last + 1 + EXPECTED_WINDOW_TOKENS]
    if any(start - end <= EXPECTED_WINDOW_CHARS and expected in values for start, _, values in after):
        return True
    line_end = stop = text.find("\n", end)
    for _ in range(EXPECTED_WINDOW_LINES):
        stop = -1 if stop < 0 else text.find("\n", stop + 1)
    stop = min(end + EXPECTED_WINDOW_CHARS, len(text) if stop < 0 else stop)
    for start, _, values in tokens[last + 1:]:
        if start >= stop:
            break
        if expected in values:
            return True
    return isinstance(expected, str) and expected in text[end:len(text) if line_end < 0 else line_end]


def _call_appears(args: tuple, expected: Any, text: str, tokens: tuple) -> bool:
    if expected is None:
        expected = ANY  # None is often shown as nothing at all (a doctest prints no line for it)
    if not args:
        return expected is ANY or any(expected in values for _, _, values in tokens)
    for i in range(len(tokens)):
        if all(i + j < len(tokens) and _arg_matches(a, tokens[i + j][2]) for j, a in enumerate(args)):
            last = i + len(args) - 1
        elif len(args) > 1 and args in tokens[i][2]:
            last = i  # the arguments shown as one tuple: `(1, 2) -> 3`
        else:
            continue
        if expected is ANY or _shows_expected(expected, text, tokens, last):
            return True
    return False


def _stdio_appears(pair: TestPair, text: str) -> bool:
    stdin, stdout = list(pair.stdin or ()), list(pair.stdout or ())
    raw = text.split()
    # Also with quotes, backticks and surrounding punctuation stripped: `Input: "3"`, `(0`.
    stripped = [t for t in (w.strip("`'\"()[]{},;:.") for w in raw) if t]
    for tokens in (raw, stripped):
        starts = [i + len(stdin) for i in range(len(tokens)) if tokens[i:i + len(stdin)] == stdin] if stdin else [0]
        for after in starts:
            window = range(after, len(tokens) if not stdin else min(len(tokens), after + STDOUT_WINDOW_TOKENS))
            if not stdout or any(tokens[j:j + len(stdout)] == stdout for j in window):
                return True
    return False


def pair_appears(pair: TestPair, text: str) -> bool:
    """Does `text` show this pair?  Conservative: when in doubt, yes.  The literal-token scan does not
    need the entry point's name."""
    if pair.stdin is not None:
        return _stdio_appears(pair, text)
    views = _views(text)
    return any(_call_appears(args, pair.expected, v, _tokens(v)) for v in views for args in pair.calls) and \
        all(any(_call_appears(args, ANY, v, _tokens(v)) for v in views) for _, args in pair.steps)


def _views(text: str, depth: int = 4) -> list[str]:
    """The text, and the inside of every literal bracket group in it, recursively: a data table such as
    `for a, b, c in [(7, 8, 15), ...]` or `{(7, 8): 15}` is one token in the text, but its rows show pairs."""
    out = [text]
    if depth:
        for start, end, _ in _tokens(text):
            if text[start] in _CLOSE:
                out += _views(text[start + 1:end - 1], depth - 1)
    return out
