"""The programs the upstream graders judged for the differential of issue 100 (item 5): stdin/stdout problems and
call-based ones, each with programs that are right, wrong, right but formatted otherwise (near misses: spacing,
line layout, number formatting, order) and type-loose (a tuple for a list, a string for a number).

`scripts/upstream_verdicts.py` runs each upstream grader on them inside coderl's sandbox and records its verdicts in
tests/fixtures/upstream/grader_verdicts.jsonl; tests/sandbox/test_upstream_verdicts.py judges them with coderl.
Each case: `id`, `kind` ("stdio" or "call"), the tests (`inputs`/`outputs`; for "call", `args` lists and `expected`
values, with `fn_name`), and `program`.
"""

from __future__ import annotations

# ---- stdin/stdout: "read a and b, print a / 2 and the pair b a" and friends ----------------------------------------

SUM = {"inputs": ["1 2\n", "10 20\n"], "outputs": ["3\n", "30\n"]}
HALF = {"inputs": ["1\n", "3\n"], "outputs": ["0.5\n", "1.5\n"]}
PAIRS = {"inputs": ["2\n1 2\n3 4\n"], "outputs": ["1 2\n3 4\n"]}
YES = {"inputs": ["4\n"], "outputs": ["YES\n"]}
EMPTY_LINE = {"inputs": ["2\n"], "outputs": ["1\n\n2\n"]}

READ2 = "a, b = map(int, input().split())\n"
READ_PAIRS = "n = int(input())\nrows = [input().split() for _ in range(n)]\n"

STDIO: list[tuple[str, dict, str]] = [
    ("sum/right", SUM, READ2 + "print(a + b)\n"),
    ("sum/wrong", SUM, READ2 + "print(a - b)\n"),
    ("sum/trailing-space", SUM, READ2 + "print(str(a + b) + '   ')\n"),
    ("sum/blank-lines-around", SUM, READ2 + "print()\nprint(a + b)\nprint()\n"),
    ("sum/leading-zero", SUM, READ2 + "print('0' + str(a + b))\n"),
    ("sum/as-float", SUM, READ2 + "print(float(a + b))\n"),
    ("sum/exponent", SUM, READ2 + "print('%e' % (a + b))\n"),
    ("sum/extra-line", SUM, READ2 + "print(a + b)\nprint(0)\n"),
    ("sum/no-output", SUM, READ2),
    ("sum/crash-after-output", SUM, READ2 + "print(a + b)\nraise SystemExit(1)\n"),
    ("sum/exception-after-output", SUM, READ2 + "print(a + b)\nraise ValueError('late')\n"),
    ("half/right", HALF, "n = int(input())\nprint(n / 2)\n"),
    ("half/padded", HALF, "n = int(input())\nprint('%.6f' % (n / 2))\n"),
    ("half/close", HALF, "n = int(input())\nprint(n / 2 + 1e-9)\n"),
    ("half/rounded-3", HALF, "n = int(input())\nprint(round(n / 2 + 0.0004, 4))\n"),
    ("half/nan", HALF, "input()\nprint(float('nan'))\n"),
    ("half/inf", HALF, "input()\nprint(float('inf'))\n"),
    ("pairs/right", PAIRS, READ_PAIRS + "for r in rows:\n    print(*r)\n"),
    ("pairs/one-line", PAIRS, READ_PAIRS + "print(*[x for r in rows for x in r])\n"),
    ("pairs/swapped-in-line", PAIRS, READ_PAIRS + "for r in rows:\n    print(*reversed(r))\n"),
    ("pairs/swapped-lines", PAIRS, READ_PAIRS + "for r in reversed(rows):\n    print(*r)\n"),
    ("pairs/doubled-line", PAIRS, READ_PAIRS + "for r in rows + rows[-1:]:\n    print(*r)\n"),
    ("pairs/tabs", PAIRS, READ_PAIRS + "for r in rows:\n    print('\\t'.join(r))\n"),
    ("pairs/double-space", PAIRS, READ_PAIRS + "for r in rows:\n    print('  '.join(r))\n"),
    ("pairs/first-line-only", PAIRS, READ_PAIRS + "print(*rows[0])\n"),
    ("yes/right", YES, "input()\nprint('YES')\n"),
    ("yes/lower", YES, "input()\nprint('yes')\n"),
    ("empty-line/right", EMPTY_LINE, "input()\nprint(1)\nprint()\nprint(2)\n"),
    ("empty-line/dropped", EMPTY_LINE, "input()\nprint(1)\nprint(2)\n"),
]

# ---- call-based: (args per test, expected per test) ---------------------------------------------------------------

PAIR = {"fn_name": "pair", "args": [[1, 2], [3, 4]], "expected": [[1, 2], [3, 4]]}
COUNT = {"fn_name": "count", "args": [[[5, 3, 10, 8, 2], 5]], "expected": [3]}
MEAN = {"fn_name": "mean", "args": [[[1, 2]]], "expected": [1.5]}
NESTED = {"fn_name": "split", "args": [[[1, 2, 3, 4]]], "expected": [[[1, 2], [3, 4]]]}

CALLS: list[tuple[str, dict, str]] = [
    ("pair/right", PAIR, "def pair(a, b):\n    return [a, b]\n"),
    ("pair/tuple", PAIR, "def pair(a, b):\n    return (a, b)\n"),
    ("pair/wrong", PAIR, "def pair(a, b):\n    return [b, a]\n"),
    ("count/right", COUNT, "def count(h, t):\n    return sum(x >= t for x in h)\n"),
    ("count/as-text", COUNT, "def count(h, t):\n    return str(sum(x >= t for x in h))\n"),
    ("count/as-float", COUNT, "def count(h, t):\n    return float(sum(x >= t for x in h))\n"),
    ("count/bool-list", COUNT, "def count(h, t):\n    return [sum(x >= t for x in h)]\n"),
    ("count/off-by-one", COUNT, "def count(h, t):\n    return sum(x > t for x in h)\n"),
    ("mean/right", MEAN, "def mean(xs):\n    return sum(xs) / len(xs)\n"),
    ("mean/close", MEAN, "def mean(xs):\n    return sum(xs) / len(xs) + 1e-9\n"),
    ("mean/far", MEAN, "def mean(xs):\n    return sum(xs) / len(xs) + 1e-3\n"),
    ("split/right", NESTED, "def split(xs):\n    return [xs[:2], xs[2:]]\n"),
    ("split/tuples", NESTED, "def split(xs):\n    return [tuple(xs[:2]), tuple(xs[2:])]\n"),
]


# ---- MultiPL-E JavaScript: a function's return value against MultiPL-E's assert.deepEqual suite -------------------

JS_SUITE = "const assert = require('node:assert');\n\n\nfunction test() {\n  let candidate = f;\n%s\n}\n\ntest();"
JS: list[tuple[str, str, str]] = [  # (name, what f returns, the expected literal), f called as candidate(1)
    ("bool-for-number", "true", "1"),
    ("text-for-number", "'9'", "9"),
    ("number", "9", "9"),
    ("mixed-array", "[1, '2']", "[1, 2]"),
    ("null-for-zero", "null", "0"),
    ("empty-for-zero", "''", "0"),
    ("object-values", "{a: true}", "{a: 1}"),
    ("other-text", "'abc'", "'abd'"),
    ("undefined-for-null", "undefined", "null"),
    ("float-sum", "0.1 + 0.2", "0.3"),
    ("hex-text", "'0x1A'", "26"),
    ("spaced-text", "' 12 '", "12"),
    ("bools-for-bits", "[true, false]", "[1, 0]"),
    ("true-text", "'true'", "true"),
    ("short-array", "[1]", "[1, 2]"),
    ("nested", "[[1, '2'], {b: [false]}]", "[[1, 2], {b: [0]}]"),
]


def cases() -> list[dict]:
    """Every case, as plain data (the fixture's own copy of it)."""
    out = [{"id": f"js/{name}", "kind": "js", "prompt": "function f(x){\n", "program": f"  return {value};\n}}\n",
            "tests": JS_SUITE % f"  assert.deepEqual(candidate(1),{expected});"} for name, value, expected in JS]
    out += [{"id": f"stdio/{name}", "kind": "stdio", "inputs": t["inputs"], "outputs": t["outputs"], "program": p}
           for name, t, p in STDIO]
    out += [{"id": f"call/{name}", "kind": "call", "fn_name": t["fn_name"], "args": t["args"],
             "expected": t["expected"], "program": p} for name, t, p in CALLS]
    return out
