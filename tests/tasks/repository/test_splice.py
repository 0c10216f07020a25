"""A mutant is written back with only its changed statements re-rendered: comments, quotes and layout elsewhere in
the function stay the repository's own (an unparsed function would give away where the bug is)."""

from pathlib import Path

import pytest

from coderl.tasks.repository.mutations import mutants
from coderl.tasks.repository.splice import splice

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "repository" / "minilib" / "minilib"

SOURCE = '''def f(xs, limit):
    """Sum of "small" items."""  # a comment the unparser would drop
    total = 0
    for x in xs:
        # keep the small ones
        if x < limit:
            total = total + x
        else:
            continue
    return total
'''


def test_only_the_changed_statement_is_rendered_again():
    changed = [m for m in mutants(SOURCE, "f.py") if m.kind == "comparison"][0]
    out = splice(SOURCE, changed.mutated, changed.function)
    assert out == SOURCE.replace("if x < limit:", "if x <= limit:") or out.count("\n") == SOURCE.count("\n")
    assert "# a comment the unparser would drop" in out and "# keep the small ones" in out
    assert '"""Sum of "small" items."""' in out
    changed_lines = [a for a, b in zip(SOURCE.splitlines(), out.splitlines()) if a != b]
    assert changed_lines == ["        if x < limit:"]


def test_a_removed_statement_is_removed_alone():
    removed = [m for m in mutants(SOURCE, "f.py") if m.kind == "removed_branch"]
    assert removed
    for m in removed:
        out = splice(SOURCE, m.mutated, m.function)
        assert "# a comment the unparser would drop" in out


@pytest.mark.parametrize("name", ["numbers.py", "text.py"])
def test_every_mutant_of_the_fixture_splices_to_the_same_program(name):
    import ast

    source = (FIXTURE / name).read_text()
    found = mutants(source, name)
    assert found
    for m in found:
        out = splice(source, m.mutated, m.function)
        assert ast.dump(ast.parse(out)) == ast.dump(ast.parse(m.mutated))
        assert len(out.splitlines()) <= len(source.splitlines()) + 2
        # every docstring of the file is kept as written
        assert out.count('"""') == source.count('"""')


def test_a_file_indented_with_tabs_keeps_its_tabs():
    import ast

    source = "class A:\n\tdef f(self, x):\n\t\t# why\n\t\tif x > 1:\n\t\t\treturn 1\n\t\treturn 2\n"
    found = mutants(source, "a.py")
    assert found
    for m in found:
        out = splice(source, m.mutated, m.function)
        assert ast.dump(ast.parse(out)) == ast.dump(ast.parse(m.mutated))
        assert "    " not in out and "# why" in out  # tabs only, as the file was written


def test_a_hidden_test_is_the_first_that_can_be_taken_out(tmp_path):
    from coderl.tasks.repository.generate import hide_one, remove_test

    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_a.py").write_text(
        "class Mixin:\n    def test_shared(self):\n        assert 1\n\n\nclass TestOne(Mixin):\n    x = 1\n\n\n"
        "class TestTwo:\n    def test_only(self):\n        assert 1\n\n\ndef test_free(n):\n    assert n\n")
    source = (tmp_path / "tests" / "test_a.py").read_text()
    assert remove_test(source, "tests/test_a.py::TestOne::test_shared") is None  # defined in a mixin
    assert remove_test(source, "tests/test_a.py::TestTwo::test_only") is None  # the class's last test
    test, file, full, reduced = hide_one(tmp_path, ["tests/test_a.py::TestOne::test_shared",
                                                    "tests/test_a.py::TestTwo::test_only",
                                                    "tests/test_a.py::test_free[1]"])
    assert test == "tests/test_a.py::test_free[1]" and "def test_free" not in reduced and full == source
    assert hide_one(tmp_path, ["tests/test_a.py::TestTwo::test_only"]) is None


def test_a_fix_a_second_copy_of_the_code_gives_away_is_found(tmp_path):
    from coderl.tasks.repository.generate import fix_needles, fix_readable

    original = "def f(x):\n    y = x + 1\n    z = y * 2\n    return z\n"
    mutated = original.replace("x + 1", "x - 1")
    gold = "--- a/m.py\n+++ b/m.py\n@@ -1,4 +1,4 @@\n def f(x):\n-    y = x - 1\n+    y = x + 1\n     z = y * 2\n     return z\n"
    needles = fix_needles(original, 1, 4, gold)
    (tmp_path / "m.py").write_text(original)
    assert fix_readable(tmp_path, {"m.py": mutated}, needles) is None  # the base holds only the mutant
    (tmp_path / "vendored_old.py").write_text("# an old copy\n" + original)
    assert fix_readable(tmp_path, {"m.py": mutated}, needles) == "vendored_old.py"
