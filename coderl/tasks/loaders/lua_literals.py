"""Literal values of Lua 5.4, read as data and never evaluated: what MultiPL-E's Lua translator writes for
Python's values (`coderl.tasks.loaders.multipl_e`), and a little more of the language's literal syntax.

Numbers are Lua's: a decimal integer numeral within 64 bits is an integer, past it a float.  Strings are bytes
(`'\\xff'` is one byte), taken as UTF-8 where JSON needs text.  `nil` and MultiPL-E's `None` (an unset global)
are `NIL`.  A table constructor is a `LuaTable`; the translator writes positional (`{a, b}`) or keyed
(`{[k] = v}`) tables, never both in one, and a table with both is refused.

A value becomes JSON two ways.  As an expected value (`lua_expected`) it is what examples/lua/lua.yaml's
harness prints for the same Lua value: a table whose keys are exactly 1..n (or none) is an array, one of
string and integer keys an object (integer keys as decimal text), a nil entry is no entry.  As an argument
(`lua_argument`) it is the JSON the harness turns back into the same value: an array builds `{a, b, ...}`
(null: nil), an object a table of string keys; any other table is refused.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any

from coderl.tasks.loaders.literals import LiteralError, Reader

LUA_KEYWORDS = frozenset("and break do else elseif end false for function goto if in local nil not or repeat "
                          "return then true until while".split())


class _Nil:
    """Lua's nil (`nil`, or MultiPL-E's `None`: an unset global)."""

    def __repr__(self) -> str:
        return "nil"


NIL = _Nil()


@dataclass(frozen=True)
class LuaTable:
    """A Lua table constructor: positional values (`{a, b}`) or keyed fields (`{[k] = v, name = v}`)."""

    positional: tuple = ()
    keyed: tuple = ()  # ((key, value), ...) in the order written


_LUA_ESCAPES = {"a": 7, "b": 8, "f": 12, "n": 10, "r": 13, "t": 9, "v": 11, "\\": 92, '"': 34, "'": 39, "\n": 10}
_INT64 = 2 ** 63


class LuaReader(Reader):
    semicolons = True

    def comment(self) -> bool:
        if self.text.startswith("--", self.pos):
            if re.compile(r"--\[=*\[").match(self.text, self.pos):
                raise self.error("a long comment")
            end = self.text.find("\n", self.pos)
            self.pos = len(self.text) if end < 0 else end
            return True
        return False

    def value(self) -> Any:
        self.blank()
        num = self.signed(_lua_number)
        if num is not None:
            return num
        if self.peek('"') or self.peek("'"):
            return self.string()
        if self.peek("[=") or self.peek("[["):
            raise self.error("a long string")
        if self.take("{"):
            return self.table()
        word = self.word()
        if word in ("true", "false"):
            return word == "true"
        if word in ("nil", "None"):
            return NIL
        if word:
            self.pos -= len(word)
        raise self.error(f"{'the name ' + repr(word) if word else 'something'} where a literal was expected")

    def table(self) -> LuaTable:
        positional, keyed = [], []

        def field():
            self.blank()
            if self.take("["):
                if self.peek("[") or self.peek("="):
                    raise self.error("a long string")
                key = self.value()
                self.expect("]")
                self.expect("=")
                keyed.append((key, self.value()))
                return
            m = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)\s*=(?!=)").match(self.text, self.pos)
            if m and m.group(1) not in LUA_KEYWORDS:
                self.pos = m.end()
                keyed.append((m.group(1).encode(), self.value()))
                return
            positional.append(self.value())

        self.items("}", field)
        if positional and keyed:
            raise LiteralError("a table with both positional and keyed fields")
        return LuaTable(tuple(positional), tuple(keyed))

    def string(self) -> bytes:
        quote = self.text[self.pos]
        self.pos += 1
        out = bytearray()
        while True:
            if self.pos >= len(self.text):
                raise self.error("an unclosed string")
            c = self.text[self.pos]
            self.pos += 1
            if c == quote:
                return bytes(out)
            if c in "\n\r":
                raise self.error("a line break inside a string")
            if c != "\\":
                out += c.encode("utf-8", "surrogatepass")
                continue
            e = self.text[self.pos:self.pos + 1]
            self.pos += 1
            if e in _LUA_ESCAPES:
                out.append(_LUA_ESCAPES[e])
            elif e == "x":
                digits = self.text[self.pos:self.pos + 2]
                if not re.fullmatch(r"[0-9A-Fa-f]{2}", digits):
                    raise self.error("a bad \\x escape")
                out.append(int(digits, 16))
                self.pos += 2
            elif e.isdigit():
                m = re.compile(r"[0-9]{1,3}").match(self.text, self.pos - 1)
                if int(m.group()) > 255:
                    raise self.error("a decimal escape past 255")
                out.append(int(m.group()))
                self.pos = m.end()
            elif e == "z":
                self.pos = re.compile(r"\s*").match(self.text, self.pos).end()
            elif e == "u":
                m = re.compile(r"\{([0-9A-Fa-f]{1,8})\}").match(self.text, self.pos)
                if not m or int(m.group(1), 16) >= 2 ** 31:
                    raise self.error("a bad \\u escape (Lua writes \\u{XXX})")
                out += _utf8_extended(int(m.group(1), 16))
                self.pos = m.end()
            else:
                raise self.error(f"the escape \\{e} (not Lua's)")


def _utf8_extended(code: int) -> bytes:
    """Lua's `\\u{XXX}`: UTF-8, surrogates and values up to 2^31 included (utf8.char's encoding)."""
    if code < 0x80:
        return bytes([code])
    out, limit = [], 0x3F
    while code > limit:
        out.insert(0, 0x80 | (code & 0x3F))
        code >>= 6
        limit >>= 1
    out.insert(0, ((~limit << 1) & 0xFF) | code)
    return bytes(out)


def _lua_number(text: str, integral: bool) -> int | float:
    """A Lua 5.4 numeral: an integer when integral and within 64 bits, else a float."""
    if integral:
        value = int(text)
        if value < _INT64:
            return value
    value = float(text)
    if not math.isfinite(value):
        raise LiteralError(f"the number {text} is not finite")
    return value


def _lua_text(raw: bytes) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        raise LiteralError(f"the string {raw[:30]!r} is not UTF-8, which JSON cannot carry") from None


def _lua_key(key: Any) -> int | str:
    """A table key as Lua stores it: a float with an integer value is that integer."""
    if isinstance(key, bytes):
        return _lua_text(key)
    if isinstance(key, bool) or key is NIL or isinstance(key, LuaTable):
        raise LiteralError(f"a table key {key!r} (expected a string or a number)")
    if isinstance(key, float):
        if not key.is_integer():
            raise LiteralError(f"the table key {key!r}, which no JSON object has")
        return int(key)
    return key


def _entries(table: LuaTable) -> dict:
    """{key: value} of a table, nil entries left out (Lua stores none)."""
    if table.positional:
        return {i: v for i, v in enumerate(table.positional, 1) if v is not NIL}
    entries: dict = {}
    for key, value in table.keyed:
        key = _lua_key(key)
        if value is NIL:
            entries.pop(key, None)
        else:
            entries[key] = value
    return entries


def lua_expected(value: Any) -> Any:
    """The JSON value the harness prints for the Lua value `value` (module docstring)."""
    if value is NIL:
        return None
    if isinstance(value, bytes):
        return _lua_text(value)
    if not isinstance(value, LuaTable):
        return value
    entries = _entries(value)
    if all(isinstance(k, int) for k in entries) and set(entries) == set(range(1, len(entries) + 1)):
        return [lua_expected(entries[i]) for i in range(1, len(entries) + 1)]
    out = {}
    for key, item in entries.items():
        name = str(key)
        if name in out:
            raise LiteralError(f"a table with both the key {key!r} and its text, which one JSON object cannot hold")
        out[name] = lua_expected(item)
    return out


def lua_argument(value: Any) -> Any:
    """The JSON the harness turns back into the Lua value `value`: an array builds `{a, b, ...}` (null: nil), an
    object a table of string keys.  Anything else is refused."""
    if value is NIL:
        return None
    if isinstance(value, bytes):
        return _lua_text(value)
    if not isinstance(value, LuaTable):
        return value
    if value.positional:
        return [lua_argument(v) for v in value.positional]
    entries = _entries(value)
    if not entries:
        return []
    if all(isinstance(k, str) for k in entries):
        return {k: lua_argument(v) for k, v in entries.items()}
    if set(entries) == set(range(1, len(entries) + 1)):
        return [lua_argument(entries[i]) for i in range(1, len(entries) + 1)]
    raise LiteralError("an argument table with keys other than 1..n or strings, which JSON cannot pass")



def read_lua(text: str) -> Any:
    """The one Lua literal `text` holds (white space and comments around it allowed)."""
    reader = LuaReader(text)
    value = reader.value()
    reader.blank()
    if reader.pos != len(text):
        raise reader.error("text after the value")
    return value
