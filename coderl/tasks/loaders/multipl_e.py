"""MultiPL-E's rows (nuprl/MultiPL-E on the Hugging Face Hub: `humaneval-js`, `mbpp-lua`, ...) as function tasks
in coderl's own layout (the `multipl-e` preset of `coderl.tasks.loaders.hf_layouts`; issue 77).

A row (MultiPL-E's `dataset_builder/prepare_prompts_for_hfhub.py`): `name`, `language` (the translator's file
extension: `js`, `lua`), `prompt` (a doc comment and an open function: the completion continues it), `doctests`,
`original`, `prompt_terminology`, `tests`, `stop_tokens`.  `tests` is code that MultiPL-E runs and judges by its
exit status; coderl never runs it.  Its translators (`humaneval_to_js.py`, `humaneval_to_lua.py`, through
`generic_translator.translate_tests`) write one assert per Python `assert candidate(ARGS) == EXPECTED`:

    const assert = require('node:assert');        lu = require('luaunit')
    function test() {                              function test_humaneval()
      let candidate = NAME;                        local candidate = NAME
      assert.deepEqual(candidate(ARGS),EXPECTED);      lu.assertEquals(candidate(ARGS), EXPECTED)
    }                                              end
    test();                                        os.exit(lu.LuaUnit.run())

Each assert is read here as data: ARGS and EXPECTED are parsed as literals of the language (never evaluated)
and become coderl's JSON test (the argument list's JSON text, the expected JSON value), which the language's
values harness judges (JavaScript: `coderl.languages.javascript`; Lua: examples/lua/lua.yaml).  A row with any
statement that is not such a literal call (a variable, an expression, another assert) is refused in one line
naming the row and the statement; so is a value JSON cannot carry the way the test meant it (JavaScript's
`undefined` as an argument, a Lua string that is not UTF-8, a Lua table with keys of several kinds as an
argument).  MultiPL-E has no reference solution: its rows get no measured time limit (only `--timeout`).

The literals, as each translator writes Python's values:

    Python      JavaScript                          Lua
    True/False  true/false                          true/false
    None        undefined                           None (an unset global: nil)
    int, float  repr: 3, -2, 1.5, 1e-05             repr (a decimal integer past 64 bits is a float)
    str         "..." (the text unescaped)          repr: '...' or "..." with Python's escapes
    list/tuple  [a, b]                              {a, b}
    dict        {k: v}                              {[k] = v}

A Lua table becomes JSON as the harness prints one: keys exactly 1..n (or none) -> an array, string and
integer keys -> an object (integer keys as decimal text), a nil entry is no entry.
"""

from __future__ import annotations

import json
import re
from typing import Any

from coderl.tasks.loaders.literals import JsReader, LiteralError, js_argument, js_expected
from coderl.tasks.loaders.lua_literals import LUA_KEYWORDS, LuaReader, lua_argument, lua_expected
from coderl.tasks.loaders.task_rows import encode
from coderl.tasks.rows import require
from coderl.tasks.types import TaskFormatError

LANGUAGES = {"js": "javascript", "javascript": "javascript", "lua": "lua"}
_JS_SUITE = re.compile(r"\s*const\s+assert\s*=\s*require\(\s*(['\"])(?:node:)?assert\1\s*\)\s*;?\s*"
                       r"function\s+test\s*\(\s*\)\s*\{\s*let\s+candidate\s*=\s*([A-Za-z_$][\w$]*)\s*;?(.*)"
                       r"\}\s*test\s*\(\s*\)\s*;?\s*", re.DOTALL)
_LUA_SUITE = re.compile(r"\s*lu\s*=\s*require\(\s*(['\"])luaunit\1\s*\)\s*;?\s*function\s+test_humaneval\s*\(\s*\)"
                        r"\s*local\s+candidate\s*=\s*([A-Za-z_][A-Za-z0-9_]*)\s*;?(.*)\bend\s*"
                        r"os\.exit\(\s*lu\.LuaUnit\.run\(\s*\)\s*\)\s*;?\s*", re.DOTALL)
_ASSERTS = {"javascript": "assert.deepEqual(", "lua": "lu.assertEquals("}


def parse_suite(tests: str, language: str) -> tuple[str, list[tuple[list, Any]]]:
    """(the entry point, [(arguments, expected), ...]) of a MultiPL-E test suite in `language`, as JSON values;
    LiteralError naming the statement (from 1) for anything else."""
    pattern = _JS_SUITE if language == "javascript" else _LUA_SUITE
    m = pattern.fullmatch(tests)
    if not m:
        raise LiteralError("not MultiPL-E's test suite (expected its header, `candidate = NAME`, the asserts and its "
                           "closing lines)")
    entry, body = m.group(2), m.group(3)
    reader = (JsReader if language == "javascript" else LuaReader)(body)
    to_arg, to_expected = (js_argument, js_expected) if language == "javascript" else (lua_argument, lua_expected)
    cases = []
    while True:
        reader.blank()
        if reader.pos >= len(body):
            break
        n = len(cases) + 1
        try:
            for token in (_ASSERTS[language], "candidate", "("):
                reader.expect(token)
            args = [to_arg(a) for a in reader.items(")", reader.value)]
            reader.expect(",")
            expected = to_expected(reader.value())
            reader.take(",")  # a trailing comma (a message argument would be refused below)
            reader.expect(")")
            reader.take(";")
        except LiteralError as e:
            raise LiteralError(f"statement {n} is not a literal call {_ASSERTS[language]}candidate(ARGS), VALUE): "
                               f"{e}") from None
        cases.append((args, expected))
    if not cases:
        raise LiteralError("no assert")
    return entry, cases


def _defines(prompt: str, entry: str, language: str) -> bool:
    head = r"^\s*function\s+" if language == "javascript" else r"^\s*(?:local\s+)?function\s+"
    return re.search(head + re.escape(entry) + r"\s*\(", prompt, re.MULTILINE) is not None


def multipl_e_row(row: dict[str, Any], where: str) -> dict[str, Any]:
    """A MultiPL-E row as a function task in coderl's own layout (module docstring)."""
    name = require(row, "name", str, where)
    tag = require(row, "language", str, where)
    if tag not in LANGUAGES:
        raise TaskFormatError(f"{where}: field 'language' is {tag!r} (coderl reads MultiPL-E's js and lua rows: "
                              "expected js or lua)")
    language = LANGUAGES[tag]
    prompt = require(row, "prompt", str, where)
    tests = require(row, "tests", str, where)
    try:
        entry, cases = parse_suite(tests, language)
    except LiteralError as e:
        raise TaskFormatError(f"{where}: field 'tests': {e}") from None
    except RecursionError:
        raise TaskFormatError(f"{where}: field 'tests': a literal nested too deeply") from None
    if language == "lua" and entry in LUA_KEYWORDS:
        raise TaskFormatError(f"{where}: field 'tests': the entry point {entry!r} is a Lua keyword")
    if not _defines(prompt, entry, language):
        raise TaskFormatError(f"{where}: field 'prompt' does not define function {entry!r}, which the tests call")
    return {"task_id": f"{tag}/{name}", "kind": "function", "language": language, "prompt": prompt,
            "entry_point": entry,
            "tests": [{"id": str(i), "source": json.dumps(args), "check": "json", "expected": encode(expected)}
                      for i, (args, expected) in enumerate(cases)],
            "metadata": {"format": "multipl-e", "name": name,
                         **({"compare": "multipl-e-js"} if language == "javascript" else {})}}
