"""MultiPL-E rows (nuprl/MultiPL-E, the `multipl-e` preset: coderl.tasks.loaders.multipl_e), transcribed.

Sources:
- the columns: MultiPL-E's dataset_builder/prepare_prompts_for_hfhub.py (github.com/nuprl/MultiPL-E), which
  writes name, language (the translator's file_ext), prompt, doctests, original, prompt_terminology, tests and
  stop_tokens for each config `{humaneval,mbpp}-{lang}`; `original` is a path on the builder's machine, not
  transcribed (coderl does not read it);
- JavaScript (humaneval-js, mbpp-js): the prompts and tests of HumanEval_0, HumanEval_12, mbpp_67 and mbpp_97
  as published in the dataset (quoted in a public GitHub copy of 100 humaneval-js/mbpp-js rows, 2026-09), which
  are what dataset_builder/humaneval_to_js.py writes: `//` comment lines, `function NAME(ARGS){`, the
  `const assert = require('node:assert')` suite with `assert.deepEqual(candidate(...),...)` lines;
- Lua (humaneval-lua): the prompts and tests of HumanEval_0, HumanEval_12 and HumanEval_111 as they appear in
  MultiPL-E's own completion files (prompt + completion + tests, public on GitHub), which are what
  dataset_builder/humaneval_to_lua.py writes: `-- ` comment lines, `local function NAME(ARGS)`, the luaunit
  suite with `lu.assertEquals(candidate(...), ...)` lines and Python's None as `None`.
The stop tokens are each translator's `stop`.  MultiPL-E has no reference solution: CORRECT and WRONG below
are completions written for these tests (the body after the prompt).
"""

JS_STOPS = ["\nfunction ", "\n/*", "\n//", "\nconsole.log"]
LUA_STOPS = ["\nlocal", "\nfunction", "\n--", "\n\n"]
JS_SUITE = "const assert = require('node:assert');\n\n\nfunction test() {\n  let candidate = %s;\n%s\n}\n\ntest();"
LUA_SUITE = "lu = require('luaunit')\n\nfunction test_humaneval()\nlocal candidate = %s\n%s\nend\n\nos.exit(lu.LuaUnit.run())"


def _row(name, language, prompt, entry, asserts):
    suite = JS_SUITE if language == "js" else LUA_SUITE
    return {"name": name, "language": language, "prompt": prompt, "doctests": "transform",
            "original": f"/datasets/originals/{name}.py", "prompt_terminology": "reworded",
            "tests": suite % (entry, "\n".join(asserts)), "stop_tokens": JS_STOPS if language == "js" else LUA_STOPS}


JS_ROWS = [
    _row("HumanEval_0_has_close_elements", "js",
         "//Check if in given array of numbers, are any two numbers closer to each other than\n// given threshold.\n"
         "// >>> has_close_elements([1.0, 2.0, 3.0], 0.5)\n// false\n"
         "// >>> has_close_elements([1.0, 2.8, 3.0, 4.0, 5.0, 2.0], 0.3)\n// true\n"
         "function has_close_elements(numbers, threshold){\n", "has_close_elements",
         ["  assert.deepEqual(candidate([1.0, 2.0, 3.9, 4.0, 5.0, 2.2], 0.3),true);",
          "  assert.deepEqual(candidate([1.0, 2.0, 3.9, 4.0, 5.0, 2.2], 0.05),false);",
          "  assert.deepEqual(candidate([1.0, 2.0, 5.9, 4.0, 5.0], 0.95),true);",
          "  assert.deepEqual(candidate([1.0, 2.0, 5.9, 4.0, 5.0], 0.8),false);",
          "  assert.deepEqual(candidate([1.0, 2.0, 3.0, 4.0, 5.0, 2.0], 0.1),true);",
          "  assert.deepEqual(candidate([1.1, 2.2, 3.1, 4.1, 5.1], 1.0),true);",
          "  assert.deepEqual(candidate([1.1, 2.2, 3.1, 4.1, 5.1], 0.5),false);"]),
    _row("HumanEval_12_longest", "js",
         "//Out of array of strings, return the longest one. Return the first one in case of multiple\n// strings of "
         "the same length. Return undefined in case the input array is empty.\n// >>> longest([])\n// undefined\n"
         "// >>> longest([\"a\", \"b\", \"c\"])\n// \"a\"\n// >>> longest([\"a\", \"bb\", \"ccc\"])\n// \"ccc\"\n"
         "function longest(strings){\n", "longest",
         ["  assert.deepEqual(candidate([]),undefined);",
          "  assert.deepEqual(candidate([\"x\", \"y\", \"z\"]),\"x\");",
          "  assert.deepEqual(candidate([\"x\", \"yyy\", \"zzzz\", \"www\", \"kkkk\", \"abc\"]),\"zzzz\");"]),
    _row("mbpp_67_bell_number", "js",
         "//Write a function to find the number of ways to partition a set of Bell numbers.\nfunction bell_number(n){\n",
         "bell_number",
         ["  assert.deepEqual(candidate(2),2);", "  assert.deepEqual(candidate(10),115975);",
          "  assert.deepEqual(candidate(56),6775685320645824322581483068371419745979053216268760300);"]),
    _row("mbpp_97_frequency_lists", "js",
         "//Write a function to find frequency of each element in a flattened array of arrays, returned in an object."
         "\nfunction frequency_lists(list1){\n", "frequency_lists",
         ["  assert.deepEqual(candidate([[1, 2, 3, 2], [4, 5, 6, 2], [7, 8, 9, 5]]),{1: 1, 2: 3, 3: 1, 4: 1, 5: 2, 6: 1, "
          "7: 1, 8: 1, 9: 1});",
          "  assert.deepEqual(candidate([[1, 2, 3, 4], [5, 6, 7, 8], [9, 10, 11, 12]]),{1: 1, 2: 1, 3: 1, 4: 1, 5: 1, "
          "6: 1, 7: 1, 8: 1, 9: 1, 10: 1, 11: 1, 12: 1});",
          "  assert.deepEqual(candidate([[20, 30, 40, 17], [18, 16, 14, 13], [10, 20, 30, 40]]),{20: 2, 30: 2, 40: 2, "
          "17: 1, 18: 1, 16: 1, 14: 1, 13: 1, 10: 1});"]),
]
LUA_ROWS = [
    _row("HumanEval_0_has_close_elements", "lua",
         "-- Check if in given table of numbers, are any two numbers closer to each other than\n-- given threshold.\n"
         "-- >>> has_close_elements({1.0, 2.0, 3.0}, 0.5)\n-- false\n"
         "-- >>> has_close_elements({1.0, 2.8, 3.0, 4.0, 5.0, 2.0}, 0.3)\n-- true\n"
         "local function has_close_elements(numbers, threshold)\n", "has_close_elements",
         ["    lu.assertEquals(candidate({1.0, 2.0, 3.9, 4.0, 5.0, 2.2}, 0.3), true)",
          "    lu.assertEquals(candidate({1.0, 2.0, 3.9, 4.0, 5.0, 2.2}, 0.05), false)",
          "    lu.assertEquals(candidate({1.0, 2.0, 5.9, 4.0, 5.0}, 0.95), true)",
          "    lu.assertEquals(candidate({1.0, 2.0, 5.9, 4.0, 5.0}, 0.8), false)",
          "    lu.assertEquals(candidate({1.0, 2.0, 3.0, 4.0, 5.0, 2.0}, 0.1), true)",
          "    lu.assertEquals(candidate({1.1, 2.2, 3.1, 4.1, 5.1}, 1.0), true)",
          "    lu.assertEquals(candidate({1.1, 2.2, 3.1, 4.1, 5.1}, 0.5), false)"]),
    _row("HumanEval_12_longest", "lua",
         "-- Out of table of strings, return the longest one. Return the first one in case of multiple\n-- strings of "
         "the same length. Return nil in case the input table is empty.\n-- >>> longest({})\n-- None\n"
         "-- >>> longest({'a', 'b', 'c'})\n-- 'a'\n-- >>> longest({'a', 'bb', 'ccc'})\n-- 'ccc'\n"
         "local function longest(strings)\n", "longest",
         ["    lu.assertEquals(candidate({}), None)", "    lu.assertEquals(candidate({'x', 'y', 'z'}), 'x')",
          "    lu.assertEquals(candidate({'x', 'yyy', 'zzzz', 'www', 'kkkk', 'abc'}), 'zzzz')"]),
    _row("HumanEval_111_histogram", "lua",
         "-- Given a string representing a space separated lowercase letters, return a table\n-- of the letter with the "
         "most repetition and containing the corresponding count.\n-- If several letters have the same occurrence, "
         "return all of them.\n-- Example:\n-- >>> histogram('a b c')\n-- {['a'] = 1, ['b'] = 1, ['c'] = 1}\n"
         "-- >>> histogram('a b b a')\n-- {['a'] = 2, ['b'] = 2}\n-- >>> histogram('a b c a b')\n"
         "-- {['a'] = 2, ['b'] = 2}\n-- >>> histogram('b b b b a')\n-- {['b'] = 4}\n-- >>> histogram('')\n-- {}\n"
         "local function histogram(test)\n", "histogram",
         ["    lu.assertEquals(candidate('a b b a'), {['a'] = 2, ['b'] = 2})",
          "    lu.assertEquals(candidate('a b c a b'), {['a'] = 2, ['b'] = 2})",
          "    lu.assertEquals(candidate('a b c d g'), {['a'] = 1, ['b'] = 1, ['c'] = 1, ['d'] = 1, ['g'] = 1})",
          "    lu.assertEquals(candidate('r t g'), {['r'] = 1, ['t'] = 1, ['g'] = 1})",
          "    lu.assertEquals(candidate('b b b b a'), {['b'] = 4})",
          "    lu.assertEquals(candidate('r t g'), {['r'] = 1, ['t'] = 1, ['g'] = 1})",
          "    lu.assertEquals(candidate(''), {})", "    lu.assertEquals(candidate('a'), {['a'] = 1})"]),
]

# Completions written for these tests: each correct one passes every test, each wrong one fails at least one
CORRECT = {
    "js/HumanEval_0_has_close_elements":
        "  for (let i = 0; i < numbers.length; i++)\n    for (let j = 0; j < numbers.length; j++)\n"
        "      if (i !== j && Math.abs(numbers[i] - numbers[j]) < threshold) return true;\n  return false;\n}\n",
    "js/HumanEval_12_longest":
        "  let best;\n  for (const s of strings) if (best === undefined || s.length > best.length) best = s;\n"
        "  return best;\n}\n",
    "js/mbpp_67_bell_number":  # exact in BigInt, then the double nearest it (what the literal 67756...300 is)
        "  let row = [1n];\n  for (let i = 1; i <= n; i++) {\n    const next = [row[row.length - 1]];\n"
        "    for (const x of row) next.push(next[next.length - 1] + x);\n    row = next;\n  }\n"
        "  return Number(row[0]);\n}\n",
    "js/mbpp_97_frequency_lists":
        "  const counts = {};\n  for (const xs of list1) for (const x of xs) counts[x] = (counts[x] || 0) + 1;\n"
        "  return counts;\n}\n",
    "lua/HumanEval_0_has_close_elements":
        "  for i = 1, #numbers do\n    for j = 1, #numbers do\n"
        "      if i ~= j and math.abs(numbers[i] - numbers[j]) < threshold then return true end\n    end\n  end\n"
        "  return false\nend\n",
    "lua/HumanEval_12_longest":
        "  local best\n  for _, s in ipairs(strings) do\n    if best == nil or #s > #best then best = s end\n  end\n"
        "  return best\nend\n",
    "lua/HumanEval_111_histogram":
        "  local counts, top = {}, 0\n  for letter in test:gmatch('%S+') do\n"
        "    counts[letter] = (counts[letter] or 0) + 1\n    top = math.max(top, counts[letter])\n  end\n"
        "  local out = {}\n  for letter, n in pairs(counts) do\n    if n == top then out[letter] = n end\n  end\n"
        "  return out\nend\n",
}
WRONG = {
    "js/HumanEval_0_has_close_elements": "  return numbers.length > 1;\n}\n",  # ignores the threshold
    "js/HumanEval_12_longest": "  return strings.length ? strings[0] : null;\n}\n",  # the first, not the longest
    "js/mbpp_67_bell_number": "  return n * n;\n}\n",
    "js/mbpp_97_frequency_lists": "  return {};\n}\n",
    "lua/HumanEval_0_has_close_elements": "  return #numbers > 1\nend\n",
    "lua/HumanEval_12_longest": "  return strings[1] or ''\nend\n",  # '' where the answer is nil
    "lua/HumanEval_111_histogram":  # every count, not only the most repeated (and [] for '' passes)
        "  local counts = {}\n  for letter in test:gmatch('%S+') do counts[letter] = (counts[letter] or 0) + 1 end\n"
        "  return counts\nend\n",
}
