"""JavaScript through Node.js: the language (fences, a bracket-balance syntax check, definitions) and its
runner (`node main.js`; function tasks judged on values, stdin/stdout tasks on output).

The values harness is appended to the program (as MultiPL-E appends its tests): it reads the test's
JSON argument list on stdin, calls the entry point and prints the result as `VALUE_MARKER` + JSON on
a line of its own; the parent compares.  `undefined` is printed as null, also inside arrays and objects
(MultiPL-E's loose `assert.deepEqual` treats them alike; `JSON.stringify` would drop an object's key).  A
result holding what no JSON value is (NaN, ±Infinity, a Map, Set, Date, RegExp, typed array, boxed primitive,
function, symbol, BigInt or an array's hole) is that test's runtime error, named on stderr: `JSON.stringify`
would print NaN and Infinity as null and a Map or Set as {}, so `Math.max(...[])` passed a test expecting null
(what each is to Node's own loose `assert.deepEqual`: tests/languages/test_js_values.py).  The program can
print anything else; it never sees the expected value, and nothing it prints is a verdict.
"""

from __future__ import annotations

import json
import re

from coderl.languages.language import Language, register_language
from coderl.languages.runner import Runner, register_runner
from coderl.sandbox.types import VALUE_MARKER

_TOKEN = re.compile(r"""//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*'|`(?:\\.|[^`\\])*`|[{}()\[\]]""",
                    re.DOTALL)
_PAIRS = {")": "(", "]": "[", "}": "{"}


def balanced(source: str) -> bool:
    """Brackets balance outside comments, strings and template literals (a cheap syntax check that runs
    nothing; not a parser: regular expressions holding brackets can fool it)."""
    stack: list[str] = []
    for match in _TOKEN.finditer(source):
        tok = match.group()
        if tok in "([{":
            stack.append(tok)
        elif tok in _PAIRS:
            if not stack or stack.pop() != _PAIRS[tok]:
                return False
    return not stack and source.count("/*") <= source.count("*/")


def parses(source: str) -> bool:
    return bool(source.strip()) and balanced(source)


# Node's `SyntaxError: ...` line (it parses the whole file before running any of it)
COMPILE_ERROR = r"^[ \t]*SyntaxError"


def prose_header(text: str) -> str:
    return "/*\n" + text.replace("*/", "* /").rstrip() + "\n*/\n"


HARNESS = (
    "\n;(function () {\n"
    "  const args = JSON.parse(require('fs').readFileSync(0, 'utf8'));\n"
    "  if (typeof {entry_point} !== 'function') {\n"
    "    process.stderr.write('ReferenceError: {entry_point} is not defined as a function\\n');\n"
    "    process.exit(1);\n"
    "  }\n"
    "  const result = {entry_point}(...args);\n"
    "  const tagOf = (v) => Object.prototype.toString.call(v);\n"
    "  const DATA = new Set(['[object Object]', '[object Array]']);\n"
    "  let text;\n"
    "  try {\n"
    "    text = JSON.stringify(result === undefined ? null : result, function (key, value) {\n"
    "      const raw = this[key];\n"
    "      const kind = typeof raw;\n"
    "      if (kind === 'function' || kind === 'symbol' || kind === 'bigint') throw {holds: 'a ' + kind};\n"
    "      if (kind === 'number' && !Number.isFinite(raw)) throw {holds: String(raw)};\n"
    "      if (raw !== null && kind === 'object' && !DATA.has(tagOf(raw)))\n"
    "        throw {holds: 'a ' + tagOf(raw).slice(8, -1)};\n"
    "      if (Array.isArray(this) && !(key in this)) throw {holds: 'an array with a hole'};\n"
    "      return value === undefined ? null : value;\n"
    "    });\n"
    "  } catch (e) {\n"
    "    const why = e && e.holds ? `the result holds ${e.holds}, which no JSON value is` : String(e && e.message);\n"
    "    process.stderr.write('TypeError: ' + why + '\\n');\n"
    "    process.exit(1);\n"
    "  }\n"
    f"  process.stdout.write('\\n' + {json.dumps(VALUE_MARKER)} + text + '\\n');\n"
    "})();\n"
)

JAVASCRIPT = register_language(Language(
    name="javascript", display="JavaScript", fence_tag="javascript",
    fence_tags=frozenset({"", "javascript", "js", "node", "nodejs"}),
    parses=parses, compiles=balanced, compile_error=COMPILE_ERROR, prose_header=prose_header,
    definition=r"(?:(?:async[ \t]+)?function\*?[ \t]+NAME[ \t]*\(|(?:const|let|var)[ \t]+NAME[ \t]*=)",
    placeholder_body="}",  # closes an open `function f(x) {` prompt before the model's own definition
    completion_stops=("\nfunction ", "\n/*", "\n//", "\nconsole.log", "\n```"),  # MultiPL-E's, plus a fence
))

NODE = register_runner(Runner(
    language="javascript", source_file="main.js", run=("node", "{source}"), judge="values",
    binaries=("node",), harness=HARNESS, install="apt-get install nodejs (or https://nodejs.org)",
))
