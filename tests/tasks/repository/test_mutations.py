"""AST mutations of a file's functions: each kind on a hand-written function with the expected file, the rest of
the file kept byte for byte, and gold patches that `git apply` accepts and that undo the mutation."""

import ast
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

from coderl.tasks.repository.mutations import KINDS, Mutation, MutationError, gold_patch, mutants


def _by(kind: str, description: str, source: str, path: str = "pkg/m.py") -> Mutation:
    found = [m for m in mutants(source, path) if m.kind == kind and m.description.endswith(description)]
    assert len(found) == 1, [m.description for m in mutants(source, path)]
    return found[0]


def test_operator_swaps_one_operator_and_keeps_the_lines_around():
    source = "# head\ndef add(a, b):\n    return a + b\n# tail\n"
    m = _by("operator", "+ -> - (line 3)", source)
    assert m.mutated == "# head\ndef add(a, b):\n    return a - b\n# tail\n"
    assert (m.path, m.function, m.first_line, m.last_line, m.size) == ("pkg/m.py", "add", 2, 3, 1)


def test_operator_swaps_and_or():
    m = _by("operator", "and -> or (line 2)", "def both(a, b):\n    return a and b\n")
    assert m.mutated == "def both(a, b):\n    return a or b\n"


def test_comparison_swaps_one_comparison():
    source = "def smaller(x, y):\n    if x < y:\n        return x\n    return y\n"
    m = _by("comparison", "< -> <= (line 2)", source)
    assert m.mutated == "def smaller(x, y):\n    if x <= y:\n        return x\n    return y\n"
    assert m.size == 1


def test_comparison_swaps_membership():
    m = _by("comparison", "in -> not in (line 2)", "def has(x, xs):\n    return x in xs\n")
    assert m.mutated == "def has(x, xs):\n    return x not in xs\n"


def test_off_by_one_moves_a_slice_bound_both_ways_and_never_below_zero():
    source = "def rest(xs):\n    return xs[1:]\n"
    assert _by("off_by_one", "1 -> 2 (line 2)", source).mutated == "def rest(xs):\n    return xs[2:]\n"
    assert _by("off_by_one", "1 -> 0 (line 2)", source).mutated == "def rest(xs):\n    return xs[0:]\n"
    first = "def first(xs):\n    return xs[0]\n"
    assert [m.description for m in mutants(first, "m.py") if m.kind == "off_by_one"] == [
        "first: off_by_one: 0 -> 1 (line 2)"]


def test_off_by_one_in_range_but_not_in_a_plain_assignment():
    source = "def count(n):\n    k = 5\n    return list(range(1, n))\n"
    got = [m.mutated for m in mutants(source, "m.py") if m.kind == "off_by_one"]
    assert got == ["def count(n):\n    k = 5\n    return list(range(2, n))\n",
                   "def count(n):\n    k = 5\n    return list(range(0, n))\n"]


def test_removed_branch_drops_an_early_return_guard():
    source = "def first(xs):\n    if not xs:\n        raise ValueError('empty')\n    return xs[0]\n"
    m = _by("removed_branch", "guard removed (line 2)", source)
    assert m.mutated == "def first(xs):\n    return xs[0]\n"
    assert m.size == 7   # the test (UnaryOp, Not, Name) and the body (Raise, Call, Name, Constant)


def test_removed_branch_drops_an_elif_and_an_else_body():
    source = ("def sign(x):\n    if x > 0:\n        s = 1\n    elif x < 0:\n        s = -1\n"
              "    else:\n        s = 0\n    return s\n")
    elif_dropped = _by("removed_branch", "elif branch removed (line 4)", source)
    assert elif_dropped.mutated == ("def sign(x):\n    if x > 0:\n        s = 1\n    else:\n        s = 0\n"
                                    "    return s\n")
    else_dropped = _by("removed_branch", "else body removed (line 7)", source)
    assert else_dropped.mutated == ("def sign(x):\n    if x > 0:\n        s = 1\n    elif x < 0:\n"
                                    "        s = -1\n    return s\n")


def test_removed_branch_keeps_a_statement_where_the_body_would_be_empty():
    source = "def f(x):\n    for i in x:\n        if i:\n            print(i)\n"
    m = _by("removed_branch", "if statement removed (line 3)", source)
    assert m.mutated == "def f(x):\n    for i in x:\n        pass\n"


def test_swapped_arguments_swaps_two_adjacent_positional_arguments():
    m = _by("swapped_arguments", "arguments 1 and 2 of a call swapped (line 2)",
            "def pad(s, n):\n    return s.ljust(n, '.')\n")
    assert m.mutated == "def pad(s, n):\n    return s.ljust('.', n)\n"
    assert m.size == 2
    # equal arguments are not swapped: the function would not change
    assert not [m for m in mutants("def f(a):\n    return g(a, a)\n", "m.py") if m.kind == "swapped_arguments"]


def test_wrong_return_negates_a_truth_value_returns_none_or_another_name():
    source = "def even(n):\n    return n % 2 == 0\n"
    assert _by("wrong_return", "returned truth value negated (line 2)", source).mutated == (
        "def even(n):\n    return not n % 2 == 0\n")
    assert _by("wrong_return", "returns None (line 2)", source).mutated == "def even(n):\n    return None\n"
    assert _by("wrong_return", "returns n instead (line 2)", source).mutated == "def even(n):\n    return n\n"


def test_wrong_return_draws_the_other_name_from_the_names_in_scope():
    source = "def f(a, b):\n    c = a + b\n    return c\n"
    drawn = {m.description for s in range(20) for m in mutants(source, "m.py", seed=s)
             if m.kind == "wrong_return" and "instead" in m.description}
    assert drawn == {"f: wrong_return: returns a instead (line 3)", "f: wrong_return: returns b instead (line 3)"}


def test_combined_puts_two_edits_that_do_not_overlap_in_one_function():
    source = "def double(x):\n    y = x * 2\n    return y\n"
    got = sorted((m.mutated, m.size) for m in mutants(source, "m.py") if m.kind == "combined")
    assert got == [("def double(x):\n    y = x / 2\n    return None\n", 2),
                   ("def double(x):\n    y = x / 2\n    return x\n", 2)]


def test_combined_never_pairs_an_edit_with_one_inside_it():
    # `return n % 2 == 0`: every edit sits inside the returned value, which wrong_return replaces
    source = "def even(n):\n    return n % 2 == 0\n"
    for m in mutants(source, "m.py"):
        if m.kind == "combined":
            assert "wrong_return" not in m.description
            assert m.mutated not in {s.mutated for s in mutants(source, "m.py") if s.kind != "combined"}


def test_every_kind_is_produced_and_none_other():
    source = ("def f(xs, k):\n    if not xs:\n        return 0\n    t = 0\n    for x in xs[1:]:\n"
              "        if x > k and x % 2 == 0:\n            t += max(x, k)\n    return t\n")
    assert {m.kind for m in mutants(source, "m.py")} == set(KINDS)


_FILE = '''"""A module."""

import os  # comment kept
X = {'a': 1}   # odd   spacing


class A(object):

    @staticmethod
    def f(xs, k):  # the def line's comment belongs to the function
        """Doc.

            Indented doc line.
        """
        if not xs:
            return 0
        return len(xs) - k  # last line's comment is kept

    # between
    async def g(self, n):
        return [i for i in range(n) if i % 2]
def h(a, b):
    return f"{a!r:>{b}}" + 'x'
# end
'''


def test_the_file_outside_the_function_is_kept_byte_for_byte():
    ms = mutants(_FILE, "pkg/m.py")
    assert {m.function for m in ms} == {"A.f", "A.g", "h"}
    lines = _FILE.splitlines(keepends=True)
    for m in ms:
        before = "".join(lines[:m.first_line - 1])
        after = "".join(lines[m.last_line:])
        assert m.mutated.startswith(before) and m.mutated.endswith(after), m.description
        compile(m.mutated, "m.py", "exec")
    f = next(m for m in ms if m.function == "A.f")
    assert (f.first_line, f.last_line) == (9, 17)
    # the decorator stays, the docstring's value is the same, the last line's comment is kept
    new = ast.parse(f.mutated)
    assert ast.get_docstring(new.body[3].body[0], clean=False) == ast.get_docstring(
        ast.parse(_FILE).body[3].body[0], clean=False)
    assert "    @staticmethod\n    def f(xs, k):\n" in f.mutated
    assert f.mutated.count("# last line's comment is kept\n") == 1


def test_a_file_without_a_final_newline_and_with_crlf_lines():
    m = _by("operator", "+ -> - (line 2)", "def add(a, b):\r\n    return a + b\r\n# end")
    assert m.mutated == "def add(a, b):\r\n    return a - b\r\n# end"
    m = _by("operator", "+ -> - (line 2)", "def add(a, b):\n    return a + b")
    assert m.mutated == "def add(a, b):\n    return a - b"


def test_the_same_seed_gives_the_same_mutants():
    a = mutants(_FILE, "pkg/m.py", seed=3)
    assert a == mutants(_FILE, "pkg/m.py", seed=3)
    assert [m.kind for m in a if m.kind != "combined"] == [m.kind for m in mutants(_FILE, "pkg/m.py", seed=4)
                                                           if m.kind != "combined"]


def test_a_file_that_does_not_parse_is_refused_in_one_line():
    with pytest.raises(MutationError) as err:
        mutants("def f(:\n", "pkg/bad.py")
    assert "pkg/bad.py" in str(err.value) and "\n" not in str(err.value)


def test_the_description_never_reaches_the_file():
    for m in mutants(_FILE, "pkg/m.py"):
        assert "mutat" not in m.mutated.lower()


# ---------------------------------------------------------------- gold patches

def _git_apply(tmp: Path, path: str, mutated: str, patch: str) -> str:
    target = tmp / path
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(mutated.encode())
    (tmp / "gold.diff").write_bytes(patch.encode())
    for args in (["--check"], []):
        done = subprocess.run([shutil.which("git") or "/usr/bin/git", "apply", *args, "gold.diff"], cwd=tmp,
                              capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
    return target.read_bytes().decode()


@pytest.mark.parametrize("original", [_FILE, _FILE.rstrip("\n"), "def add(a, b):\r\n    return a + b\r\n"])
def test_gold_patches_apply_with_git_and_give_back_the_original(original):
    ms = mutants(original, "pkg/m.py")
    assert ms
    with tempfile.TemporaryDirectory(prefix="coderl-gold-") as tmp:
        for m in ms:
            patch = gold_patch("pkg/m.py", m.mutated, original)
            assert patch.startswith("--- a/pkg/m.py\n+++ b/pkg/m.py\n@@ ")
            assert _git_apply(Path(tmp), "pkg/m.py", m.mutated, patch) == original


def test_gold_patch_text_for_a_one_line_change():
    original = "def add(a, b):\n    return a + b\n"
    m = _by("operator", "+ -> - (line 2)", original)
    assert gold_patch("m.py", m.mutated, original) == (
        "--- a/m.py\n+++ b/m.py\n@@ -1,2 +1,2 @@\n def add(a, b):\n-    return a - b\n+    return a + b\n")


def test_gold_patch_refuses_no_change_and_paths_outside():
    with pytest.raises(MutationError, match="equals the original"):
        gold_patch("m.py", "x = 1\n", "x = 1\n")
    for bad in ("/etc/m.py", "../m.py", "a/../../m.py", ""):
        with pytest.raises(MutationError, match="not a relative path"):
            gold_patch(bad, "x = 1\n", "x = 2\n")


def test_functions_in_nested_classes_and_under_a_module_level_if_are_named_by_qualname():
    source = ("import sys\n\nif sys.version_info >= (3,):\n    def f(x):\n        return x + 1\n\n\n"
              "class A:\n    class B:\n        def m(self, x):\n            def inner(y):\n"
              "                return y * 2\n            return inner(x)\n")
    ms = mutants(source, "m.py")
    assert sorted({(m.function, m.first_line, m.last_line) for m in ms}) == [("A.B.m", 10, 13), ("f", 4, 5)]
    inner = next(m for m in ms if m.description == "A.B.m: operator: * -> / (line 12)")
    # ast.unparse writes a blank line before a nested def: the function's lines take unparse's layout
    assert inner.mutated == source.replace("y * 2", "y / 2").replace("x):\n            def", "x):\n\n            def")


def test_no_two_mutants_write_the_same_file():
    for source in (_FILE, "def f(xs, k):\n    if not xs:\n        return not k\n    return xs[k] > 0\n"):
        texts = [m.mutated for m in mutants(source, "m.py")]
        assert len(texts) == len(set(texts))
