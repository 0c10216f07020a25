"""Literal values of JavaScript, read as data and never evaluated: what MultiPL-E's JavaScript translator writes
for Python's values (`coderl.tasks.loaders.multipl_e`), and a little more of the language's literal syntax.

`read_js(text)` reads one value; `Reader` is the part the Lua reader (`lua_literals`) shares.  A JavaScript
number is a double: an integer literal past 2^53 is the double JavaScript rounds it to.  `undefined` is its own
value (`UNDEFINED`): the harness prints it as null (`js_expected`), and as an argument it is refused
(`js_argument`): JSON would pass null instead.  Anything else (a name, an expression, a hole in an array, a
`__proto__` key, a non-finite number) is a `LiteralError` saying what and where.
"""

from __future__ import annotations

import math
import re
from typing import Any

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_BLANK = re.compile(r"\s*")
_NUMERAL = re.compile(r"(?:[0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?")


class LiteralError(ValueError):
    """Text that is not a literal this module reads; the message says what and where (an offset)."""


class _Undefined:
    """JavaScript's `undefined`."""

    def __repr__(self) -> str:
        return "undefined"


UNDEFINED = _Undefined()


class Reader:
    semicolons = False  # Lua: fields of a table may end in ';'

    def __init__(self, text: str, pos: int = 0):
        self.text, self.pos = text, pos

    def error(self, what: str) -> LiteralError:
        return LiteralError(f"{what} at {self.text[self.pos:self.pos + 30]!r}" if self.pos < len(self.text)
                            else f"{what} at the end")

    def blank(self) -> None:
        """Skip white space (and comments: `//`, `/* */` in JavaScript, `--` in Lua, per `comment`)."""
        while True:
            self.pos = _BLANK.match(self.text, self.pos).end()
            if not self.comment():
                return

    def comment(self) -> bool:
        return False

    def peek(self, token: str) -> bool:
        self.blank()
        return self.text.startswith(token, self.pos)

    def take(self, token: str) -> bool:
        if self.peek(token):
            self.pos += len(token)
            return True
        return False

    def expect(self, token: str) -> None:
        if not self.take(token):
            raise self.error(f"expected {token!r}")

    def word(self) -> str | None:
        self.blank()
        m = _NAME.match(self.text, self.pos)
        if not m:
            return None
        self.pos = m.end()
        return m.group()

    def number(self) -> tuple[str, bool] | None:
        """A decimal numeral (its text, and whether it is integral: no point, no exponent), or None."""
        self.blank()
        m = _NUMERAL.match(self.text, self.pos)
        if not m:
            return None
        end = m.end()
        if end < len(self.text) and (self.text[end].isalnum() or self.text[end] in "_$."):
            raise self.error("a number this reader does not read (hex, a suffix)")
        self.pos = end
        text = m.group()
        return text, m.group(1) is None and m.group(2) is None and not text.startswith(".")

    def signed(self, convert) -> Any:
        """A numeral with its optional '-' (`--` is no number: a Lua comment, a JavaScript decrement), as
        `convert(text, integral)` makes it, or None when no number starts here."""
        if self.take("-"):
            num = None if self.peek("-") else self.number()
            if num is None:
                raise self.error("expected a number after '-'")
            return -convert(*num)
        num = self.number()
        return None if num is None else convert(*num)

    def items(self, close: str, item) -> list:
        """`item()` values separated by ',' (Lua: ',' or ';') up to `close`; a trailing separator is allowed."""
        out = []
        while not self.take(close):
            out.append(item())
            if not (self.take(",") or (close == "}" and self.semicolons and self.take(";"))):
                self.expect(close)
                break
        return out

_JS_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f", "v": "\v", "'": "'", '"': '"', "\\": "\\"}
_SAFE_INTEGER = 2 ** 53


class JsReader(Reader):
    def comment(self) -> bool:
        if self.text.startswith("//", self.pos):
            end = self.text.find("\n", self.pos)
            self.pos = len(self.text) if end < 0 else end
            return True
        if self.text.startswith("/*", self.pos):
            end = self.text.find("*/", self.pos + 2)
            if end < 0:
                raise self.error("an unclosed comment")
            self.pos = end + 2
            return True
        return False

    def value(self) -> Any:
        self.blank()
        num = self.signed(_js_number)
        if num is not None:
            return num
        if self.peek('"') or self.peek("'"):
            return self.string()
        if self.take("["):
            if self.peek(","):
                raise self.error("an array with a hole")
            return self.items("]", self.value)
        if self.take("{"):
            return dict(self.items("}", self.field))
        word = self.word()
        if word in ("true", "false"):
            return word == "true"
        if word == "null":
            return None
        if word == "undefined":
            return UNDEFINED
        if word:
            self.pos -= len(word)
        raise self.error(f"{'the name ' + repr(word) if word else 'something'} where a literal was expected")

    def field(self) -> tuple[str, Any]:
        """`key: value`, the key a string, a name or a non-negative integer (as JavaScript names it)."""
        self.blank()
        if self.peek('"') or self.peek("'"):
            key = self.string()
        else:
            num = self.number()
            if num is not None:
                if not num[1]:
                    raise self.error("a number that is not an integer as an object key")
                key = str(int(num[0]))
            else:
                key = self.word()
                if key is None:
                    raise self.error("expected an object key")
        if key == "__proto__":
            raise self.error("the key __proto__ (it sets the object's prototype)")
        self.expect(":")
        return key, self.value()

    def string(self) -> str:
        quote = self.text[self.pos]
        self.pos += 1
        units: list[int] = []  # UTF-16 code units, as JavaScript holds a string
        while True:
            if self.pos >= len(self.text):
                raise self.error("an unclosed string")
            c = self.text[self.pos]
            self.pos += 1
            if c == quote:
                return b"".join(u.to_bytes(2, "little") for u in units).decode("utf-16-le", "surrogatepass")
            if c in "\n\r":
                raise self.error("a line break inside a string")
            if c != "\\":
                units.extend(_utf16(ord(c)))
                continue
            e = self.text[self.pos:self.pos + 1]
            self.pos += 1
            if e in _JS_ESCAPES:
                units.append(ord(_JS_ESCAPES[e]))
            elif e == "0" and not self.text[self.pos:self.pos + 1].isdigit():
                units.append(0)
            elif e == "x":
                units.append(self.hex(2))
            elif e == "u" and self.text.startswith("{", self.pos):
                end = self.text.find("}", self.pos)
                digits = self.text[self.pos + 1:end] if end > 0 else ""
                if not re.fullmatch(r"[0-9A-Fa-f]{1,6}", digits) or int(digits, 16) > 0x10FFFF:
                    raise self.error("a bad \\u{...} escape")
                units.extend(_utf16(int(digits, 16)))
                self.pos = end + 1
            elif e == "u":
                units.append(self.hex(4))
            elif e == "\n":  # a line continuation
                continue
            elif e.isdigit() or e == "" or e == "\r":
                raise self.error("an octal escape or a bad escape")
            else:  # \a is "a" in JavaScript
                units.extend(_utf16(ord(e)))

    def hex(self, n: int) -> int:
        digits = self.text[self.pos:self.pos + n]
        if not re.fullmatch(f"[0-9A-Fa-f]{{{n}}}", digits):
            raise self.error("a bad hexadecimal escape")
        self.pos += n
        return int(digits, 16)


def _utf16(code: int) -> list[int]:
    if code < 0x10000:
        return [code]
    code -= 0x10000
    return [0xD800 + (code >> 10), 0xDC00 + (code & 0x3FF)]


def _js_number(text: str, integral: bool) -> int | float:
    """A JavaScript number (a double) as Python holds it: an int where the double is that integer exactly."""
    if integral and int(text) <= _SAFE_INTEGER:
        return int(text)
    value = float(text)
    if not math.isfinite(value):
        raise LiteralError(f"the number {text} is not finite")
    return value


def js_expected(value: Any) -> Any:
    """An expected value as the harness prints the program's: `undefined` as null."""
    if value is UNDEFINED:
        return None
    if isinstance(value, list):
        return [js_expected(v) for v in value]
    if isinstance(value, dict):
        return {k: js_expected(v) for k, v in value.items()}
    return value


def js_argument(value: Any) -> Any:
    """An argument as JSON passes it; `undefined` would arrive as null, so it is refused."""
    if value is UNDEFINED:
        raise LiteralError("an argument holds undefined, which JSON would pass as null")
    if isinstance(value, list):
        return [js_argument(v) for v in value]
    if isinstance(value, dict):
        return {k: js_argument(v) for k, v in value.items()}
    return value



def read_js(text: str) -> Any:
    """The one JavaScript literal `text` holds (white space and comments around it allowed)."""
    reader = JsReader(text)
    value = reader.value()
    reader.blank()
    if reader.pos != len(text):
        raise reader.error("text after the value")
    return value
