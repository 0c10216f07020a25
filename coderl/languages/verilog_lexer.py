"""A lexer for model-written Verilog: the tokens of IEEE 1364-2005 §3 plus the SystemVerilog tokens
Icarus Verilog reads with -g2012, and the canonical text re-emitted from them.

The build-time rules (`coderl.languages.verilog.rejected`) run on these tokens, and the design the
toolchain compiles is re-emitted from them (`verilog.emit`), never the completion as written: whatever
the rules saw is what iverilog, yosys and verilator read.  Pure Python, one pass, linear time (every loop and pattern
consumes input; comments end at `str.find`).

    white space (§3.2)   space, tab, newline, form feed, and carriage return (CRLF files); dropped.
                         Any other control character (NUL, vertical tab, backspace, ...) and any
                         non-ASCII character outside a comment or string is refused.
    comments (§3.3)      `//` to the end of the line, `/* ... */` (no nesting; `/*` inside `//` and
                         `//` inside `/* */` mean nothing); dropped.  An unterminated `/*` is refused.
    operators (§3.4)     longest match over the operators of 1364-2005 and the SystemVerilog ones
                         iverilog lexes (`::`, `'{`, `++`, `+=`, `<<<=`, `==?`, `->`, `<->`, ...), as
                         its lexer does (`+=>` is `+` then `=>`); `'` alone (a cast) and `$` alone.
    numbers (§3.5)       decimal `[0-9][0-9_]*`; reals (§3.5.2) `1.5`, `1e3`, `2.5E-3`; SystemVerilog
                         time literals `10ns`, `1.5us`; based literals (§3.5.1) `'[sS]?[bodh]` then
                         the value, with blanks allowed between the base and the value (`'h dead_beef`
                         is one number: its digits are hex digits, x, z and ?, not an identifier); the
                         size before the apostrophe is its own decimal token (white space may separate
                         them); SystemVerilog unbased literals `'0 '1 'x 'z`.
    strings (§3.6)       `"..."` on one line, escapes `\\n \\t \\\\ \\" \\ddd` (§3.6.3; any other `\\c` is
                         c, as iverilog reads it).  A newline, a carriage return or any control
                         character but tab inside a string, or no closing quote, is refused.
    identifiers (§3.7)   `[a-zA-Z_][a-zA-Z0-9_$]*`; keywords (§3.7.2) are those iverilog -g2012
                         reserves; system task and function names (§3.7.3) `$[a-zA-Z0-9_$]+`.
    escaped (§3.7.1)     a backslash, then printable ASCII up to white space; the name excludes the
                         backslash and the white space.  A lone backslash, or one followed by anything
                         but printable ASCII up to white space, is refused; so is a name holding a
                         backtick, a quote, `//`, `/*`, `*/`, `(*` or `*)`, which iverilog's
                         preprocessor (it does not know escaped identifiers) reads as a macro, a
                         string, a comment or an attribute.
    directives (§3.7.4)  a backtick immediately followed by an identifier (`` `timescale ``); a backtick
                         followed by anything else (white space, ``` `` ```, `` `" ``) is refused.
    attributes (§3.8)    `(*` and `*)` are operator tokens, their contents tokens like any others;
                         `(*)` (blanks allowed inside, as iverilog allows) is the event control
                         `@(*)`'s one token.

iverilog's lexer also has two states whose tokens span what would otherwise be several: after the
keyword `edge` until `]`, the edge descriptors `01 0x 0z 10 1x 1z x0 x1 z0 z1`; between `table` and
`endtable` (UDPs), edge entries such as `(01)` and `(?0)`, and single digits.  They are lexed the same
way here so that the re-emitted text reads the same.

The reserved words and multi-character operators are `verilog_words`; the text the toolchain
compiles, re-emitted from these tokens, is `coderl.languages.verilog.emit`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from coderl.languages.verilog_words import ANY_KEYWORDS, KEYWORDS, OPERATORS

KIND_IDENTIFIER = "identifier"
KIND_ESCAPED = "escaped"
KIND_KEYWORD = "keyword"
KIND_SYSTEM = "system"
KIND_DIRECTIVE = "directive"
KIND_NUMBER = "number"
KIND_STRING = "string"
KIND_OPERATOR = "operator"
NAME_KINDS = frozenset({KIND_IDENTIFIER, KIND_ESCAPED, KIND_KEYWORD, KIND_SYSTEM, KIND_DIRECTIVE})

_SINGLE = frozenset("}{;:[],()#=.@&!?<>%|^~+*/-")
_BLANKS = " \t\r\f"  # white space other than newline (§3.2; CR for CRLF files)
_WHITE = _BLANKS + "\n"
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_$]*")
_PLAIN_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_$]*\Z")
_SYSTEM = re.compile(r"\$[A-Za-z0-9_$]+")
_DIGITS = re.compile(r"[0-9][0-9_]*")
_PRINTABLE_RUN = re.compile(r"[!-~]+")
_BASED_VALUE = {"d": re.compile(r"[0-9][0-9_]*|[xzXZ?]_*"), "b": re.compile(r"[01xzXZ?][01xzXZ?_]*"),
                "o": re.compile(r"[0-7xzXZ?][0-7xzXZ?_]*"), "h": re.compile(r"[0-9a-fA-FxzXZ?][0-9a-fA-FxzXZ?_]*")}
_STAR_PAREN = re.compile(r"\([ \t\r\f]*\*[ \t\r\f]*\)")  # `(*)`, which iverilog reads as `*` (`@(*)`)
_EDGE_DESCRIPTORS = frozenset("01 0x 0z 10 1x 1z x0 x1 z0 z1".split())
_TABLE_ENTRY = re.compile(r"\((?:\?[01xX?]|0[1xX?]|b[01xX]|1[0xX?]|[xX][01?])\)")
_ESCAPED_UNSAFE = ("`", '"', "//", "/*", "*/", "(*", "*)")


class LexError(ValueError):
    """Text the lexer refuses; str() is one line naming the source line."""

    def __init__(self, line: int, what: str):
        super().__init__(f"line {line}: {what}")
        self.line = line


@dataclass(frozen=True)
class Token:
    kind: str  # one of the KIND_* constants
    text: str  # canonical text, as `verilog.emit` writes it
    name: str  # identifiers, keywords, system names ("$display"), directives ("timescale"): the name;
    #            escaped identifiers: the name without backslash and white space; strings: their
    #            bytes (latin-1); numbers and operators: the text
    line: int  # 1-based line of its first character
    start: int  # [start, end) in the source
    end: int


def _describe(ch: str) -> str:
    return f"character {ch!r} (U+{ord(ch):04X})"


def _string_text(data: bytes) -> str:
    """A string literal in canonical form: printable ASCII; quote, backslash, newline and tab as their
    escapes, a backtick and `*` (which iverilog's preprocessor might read as a macro or the end of an
    attribute) and every other byte as a three-digit octal escape."""
    out = ['"']
    for b in data:
        ch = chr(b)
        if ch == '"' or ch == "\\":
            out.append("\\" + ch)
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\t":
            out.append("\\t")
        elif 0x20 <= b < 0x7F and ch not in "`*":
            out.append(ch)
        else:
            out.append(f"\\{b:03o}")
    out.append('"')
    return "".join(out)


class _Lexer:
    def __init__(self, source: str):
        self.s = source
        self.n = len(source)
        self.line = 1
        self.tokens: list[Token] = []
        self.edges = False  # after `edge`, until `]`
        self.table = False  # between `table` and `endtable`

    def add(self, kind: str, text: str, name: str, start: int, end: int) -> None:
        self.tokens.append(Token(kind, text, name, self.line, start, end))

    def run(self) -> list[Token]:
        s, n = self.s, self.n
        i = 0
        while i < n:
            c = s[i]
            if c == "\n":
                self.line += 1
                i += 1
            elif c in _BLANKS:
                i += 1
            elif c == "/" and s.startswith("//", i):
                j = s.find("\n", i)
                i = n if j < 0 else j
            elif c == "/" and s.startswith("/*", i):
                j = s.find("*/", i + 2)
                if j < 0:
                    raise LexError(self.line, "unterminated /* comment (IEEE 1364-2005 §3.3)")
                self.line += s.count("\n", i, j)
                i = j + 2
            elif c.isascii() and (c.isalpha() or c == "_"):
                i = self.word(i)
            elif "0" <= c <= "9":
                i = self.number(i)
            elif c == "\\":
                i = self.escaped(i)
            elif c == "$":
                m = _SYSTEM.match(s, i)
                if m:
                    self.add(KIND_SYSTEM, m.group(), m.group(), i, m.end())
                    i = m.end()
                else:
                    self.add(KIND_OPERATOR, "$", "$", i, i + 1)
                    i += 1
            elif c == "`":
                m = _IDENT.match(s, i + 1)
                if not m:
                    nxt = s[i + 1:i + 2]
                    raise LexError(self.line, "a backtick must start a compiler directive (IEEE 1364-2005 §3.7.4), "
                                              f"not be followed by {'the end of the text' if not nxt else repr(nxt)}")
                self.add(KIND_DIRECTIVE, "`" + m.group(), m.group(), i, m.end())
                i = m.end()
            elif c == '"':
                i = self.string(i)
            elif c == "'":
                i = self.apostrophe(i)
            elif c in _SINGLE:
                i = self.operator(i)
            elif not c.isascii():
                raise LexError(self.line, f"{_describe(c)} outside a comment or string: Verilog source is ASCII "
                                          "(IEEE 1364-2005 §3)")
            else:
                raise LexError(self.line, f"{_describe(c)} is outside Verilog's lexical grammar "
                                          "(white space is space, tab, newline and form feed: IEEE 1364-2005 §3.2)")
        return self.tokens

    def word(self, i: int) -> int:
        s = self.s
        end = _IDENT.match(s, i).end()
        if self.edges and s[i:i + 2] in _EDGE_DESCRIPTORS and end - i <= 2:
            self.add(KIND_NUMBER, s[i:i + 2], s[i:i + 2], i, i + 2)
            return i + 2
        word = s[i:end]
        kind = KIND_KEYWORD if word in KEYWORDS else KIND_IDENTIFIER
        if kind is KIND_KEYWORD:
            if word == "edge":
                self.edges = True
            elif word == "table":
                self.table = True
            elif word == "endtable":
                self.table = False
        self.add(kind, word, word, i, end)
        return end

    def number(self, i: int) -> int:
        """Decimal, real and time literals (§3.5; SystemVerilog time literals), the longest match as
        iverilog's lexer takes it; in a UDP table digits are tokens of one character."""
        s, n = self.s, self.n
        j = _DIGITS.match(s, i).end()
        ends = [j if not self.table else i + 1]

        def time_unit(k: int) -> None:
            if k < n and s[k] in "munpf" and s.startswith("s", k + 1):
                ends.append(k + 2)
            elif s.startswith("s", k):
                ends.append(k + 1)

        def exponent(k: int) -> None:
            if k < n and s[k] in "eE":
                e = k + 1
                if e < n and s[e] in "+-":
                    e += 1
                if e < n and "0" <= s[e] <= "9":
                    ends.append(_DIGITS.match(s, e).end())

        time_unit(j)
        exponent(j)
        if s.startswith(".", j) and j + 1 < n and "0" <= s[j + 1] <= "9":
            f = _DIGITS.match(s, j + 1).end()
            ends.append(f)
            exponent(f)
            time_unit(f)
        end = max(ends)
        if self.edges and s[i:i + 2] in _EDGE_DESCRIPTORS and end - i <= 2:  # a tie goes to the descriptor
            end = i + 2
        self.add(KIND_NUMBER, s[i:end], s[i:end], i, end)
        return end

    def apostrophe(self, i: int) -> int:
        """A based literal (§3.5.1, blanks allowed between the base and its value), an unbased one
        (`'0`), `'{`, or the apostrophe of a cast."""
        s, n = self.s, self.n
        k = i + 1
        signed = s[k] if k < n and s[k] in "sS" else ""
        k += len(signed)
        if k < n and s[k] in "bBoOdDhH":
            v = k + 1
            while v < n and s[v] in " \t":
                v += 1
            m = _BASED_VALUE[s[k].lower()].match(s, v)
            if m:
                text = "'" + signed + s[k] + m.group()
                self.add(KIND_NUMBER, text, text, i, m.end())
                return m.end()
        if i + 1 < n and s[i + 1] in "01xzXZ":
            self.add(KIND_NUMBER, s[i:i + 2], s[i:i + 2], i, i + 2)
            return i + 2
        if s.startswith("'{", i):
            self.add(KIND_OPERATOR, "'{", "'{", i, i + 2)
            return i + 2
        self.add(KIND_OPERATOR, "'", "'", i, i + 1)
        return i + 1

    def operator(self, i: int) -> int:
        s = self.s
        if self.table and s[i] == "(":
            m = _TABLE_ENTRY.match(s, i)
            if m:
                self.add(KIND_OPERATOR, m.group(), m.group(), i, m.end())
                return m.end()
        if s[i] == "(":
            m = _STAR_PAREN.match(s, i)
            if m:
                self.add(KIND_OPERATOR, "(*)", "(*)", i, m.end())
                return m.end()
        if s.startswith(("+=>", "-=>"), i):  # iverilog: `+` then `=>` (a polarity edge path)
            self.add(KIND_OPERATOR, s[i], s[i], i, i + 1)
            return i + 1
        op = next((o for o in OPERATORS if s.startswith(o, i)), s[i])
        if op == "]":
            self.edges = False
        self.add(KIND_OPERATOR, op, op, i, i + len(op))
        return i + len(op)

    def escaped(self, i: int) -> int:
        s, n = self.s, self.n
        m = _PRINTABLE_RUN.match(s, i + 1)
        if not m:
            nxt = s[i + 1:i + 2]
            raise LexError(self.line, "a lone backslash: an escaped identifier is a backslash followed by printable "
                                      "ASCII up to white space (IEEE 1364-2005 §3.7.1), not by "
                                      f"{'the end of the text' if not nxt else _describe(nxt)}")
        end = m.end()
        if end < n and s[end] not in _WHITE:
            raise LexError(self.line, f"escaped identifier \\{m.group()[:40]} runs into {_describe(s[end])}: "
                                      "it must end "
                                      "with white space (IEEE 1364-2005 §3.7.1)")
        name = m.group()
        bad = next((u for u in _ESCAPED_UNSAFE if u in name), None)
        if bad is not None:
            raise LexError(self.line, f"escaped identifier \\{name[:40]} holds {bad!r}, which the preprocessor reads "
                                      "as a macro, string, comment or attribute")
        # Written plain where that reads the same: not a keyword, not iverilog's PATHPULSE$ names, and
        # not inside the edge/table states (where `x0` or `b` would become an edge or table symbol).
        plain = (_PLAIN_NAME.match(name) is not None and name not in ANY_KEYWORDS
                 and not name.startswith("PATHPULSE$") and not self.edges and not self.table)
        self.add(KIND_ESCAPED, name if plain else "\\" + name + " ", name, i, end)
        return end

    def string(self, i: int) -> int:
        """A string literal (§3.6): one line; escapes as iverilog reads them (§3.6.3: \\n \\t \\\\ \\" \\ddd;
        any other \\c is c)."""
        s, n = self.s, self.n
        data = bytearray()
        j = i + 1
        while True:
            if j >= n:
                raise LexError(self.line, "unterminated string: no closing quote (IEEE 1364-2005 §3.6)")
            c = s[j]
            if c == '"':
                break
            if c == "\n" or c == "\r":
                raise LexError(self.line, "unterminated string: a string ends on its line (IEEE 1364-2005 §3.6)")
            if c == "\\":
                if j + 1 >= n:
                    raise LexError(self.line, "unterminated string: no closing quote (IEEE 1364-2005 §3.6)")
                d = s[j + 1]
                if d == "n":
                    data.append(10)
                    j += 2
                elif d == "t":
                    data.append(9)
                    j += 2
                elif "0" <= d <= "7":
                    k, value = j + 1, 0
                    while k < n and k < j + 4 and "0" <= s[k] <= "7":
                        value = value * 8 + ord(s[k]) - 48
                        k += 1
                    data.append(value & 0xFF)
                    j = k
                elif d == "\n" or d == "\r":
                    raise LexError(self.line, "a backslash before the end of the line inside a string: a string "
                                              "ends on its line (IEEE 1364-2005 §3.6)")
                else:
                    j += 1  # `\c` is c: the character itself, read below
                    c = d
                    data.extend(self._string_char(c))
                    j += 1
                continue
            data.extend(self._string_char(c))
            j += 1
        self.add(KIND_STRING, _string_text(bytes(data)), bytes(data).decode("latin-1"), i, j + 1)
        return j + 1

    def _string_char(self, c: str) -> bytes:
        if c == "\t" or " " <= c <= "~":
            return c.encode("ascii")
        if not c.isascii():
            try:
                return c.encode("utf-8")
            except UnicodeEncodeError:
                raise LexError(self.line, f"{_describe(c)} in a string is not a character") from None
        raise LexError(self.line, f"control {_describe(c)} in a string: write it as an escape (IEEE 1364-2005 §3.6.3)")


def tokenize(source: str) -> list[Token]:
    """The tokens of `source` (white space and comments dropped); LexError for what Verilog's lexical
    grammar does not hold."""
    return _Lexer(source).run()
