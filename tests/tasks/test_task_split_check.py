"""`split_check`: HumanEval's check(candidate) -> preamble + one classified test per assert."""

import ast
import textwrap

import pytest

from coderl.sandbox.types import CheckKind
from coderl.tasks.loaders.humaneval import classify_statement, split_check


def split(src: str):
    return split_check(textwrap.dedent(src))


def test_preamble_keeps_module_code_in_order_and_removes_check():
    pre, tests = split(
        """
        import math
        METADATA = {'a': 1}

        def check(candidate):
            assert candidate(1) == 2

        def helper(x):
            return x
        """
    )
    assert pre.index("import math") < pre.index("METADATA") < pre.index("def helper")
    assert "check" not in pre
    ast.parse(pre)
    assert [t.source for t in tests] == ["candidate(1)"]


def test_each_classification():
    _, tests = split(
        """
        def check(candidate):
            assert candidate(1, 2) == [1, 2], "msg"
            assert candidate(3) is None
            assert candidate(4) is False
            assert candidate(5)
            assert not candidate(6)
            assert candidate(7) != 3
        """
    )
    kinds = [(t.check, t.source, t.expected) for t in tests]
    assert kinds == [
        (CheckKind.EQUALS, "candidate(1, 2)", [1, 2]),
        (CheckKind.IS, "candidate(3)", None),
        (CheckKind.IS, "candidate(4)", False),
        (CheckKind.TRUTHY, "candidate(5)", None),
        (CheckKind.FALSY, "candidate(6)", None),
        (CheckKind.ASSERT, "assert candidate(7) != 3\n", None),
    ]
    assert [t.id for t in tests] == ["0", "1", "2", "3", "4", "5"]
    assert not any(t.hidden for t in tests)


def test_reversed_negative_and_container_literals():
    _, tests = split(
        """
        def check(candidate):
            assert -3 == candidate(1)
            assert candidate(2) == -2.5
            assert candidate(3) == (1, {'a': {None, True}}, b'x')
        """
    )
    assert [(t.check, t.source, t.expected) for t in tests] == [
        (CheckKind.EQUALS, "candidate(1)", -3),
        (CheckKind.EQUALS, "candidate(2)", -2.5),
        (CheckKind.EQUALS, "candidate(3)", (1, {"a": {None, True}}, b"x")),
    ]


def test_non_literal_rhs_and_other_callees_are_assert():
    _, tests = split(
        """
        def check(candidate):
            assert candidate(1) == foo(1)
            assert candidate(2) == (1 + 2, 3)
            assert other(3) == 3
            assert candidate.attr(4) == 4
            assert tuple(candidate(5)) == (5,)
            assert 1 == candidate(1) == 1
        """
    )
    assert all(t.check is CheckKind.ASSERT for t in tests)
    assert tests[0].source == "assert candidate(1) == foo(1)\n"
    assert tests[0].expected is None


def test_setup_is_attached_in_order_to_the_next_test_and_constant_asserts_dropped():
    pre, tests = split_check(
        textwrap.dedent(
            """
            def check(candidate):
                # a comment
                assert True, "This prints if this assert fails 1 (good for debugging!)"
                a = 1
                assert candidate(a) == 1
                b = [a]
                b.append(2)
                assert True
                c = 3
                assert candidate(b, c) == 'x'
                assert candidate(0) == 0
            """
        )
    )
    assert pre == ""
    assert [t.setup for t in tests] == ["a = 1\n", "b = [a]\nb.append(2)\nc = 3\n", ""]
    assert [t.expected for t in tests] == [1, "x", 0]
    assert [t.id for t in tests] == ["0", "1", "2"]


def test_trailing_statements_become_a_final_assert_test():
    _, tests = split(
        """
        def check(candidate):
            assert candidate(1) == 1
            candidate(None)
            pass
        """
    )
    assert len(tests) == 2
    assert tests[1].check is CheckKind.ASSERT
    assert tests[1].source == "candidate(None)\npass\n"


def test_trailing_no_ops_are_dropped():
    _, tests = split('def check(candidate):\n    assert candidate(1) == 1\n    "done"\n    pass\n')
    assert len(tests) == 1


def test_multiline_assert_and_compound_setup_keep_source_text():
    _, tests = split(
        """
        def check(candidate):
            if True:
                x = 1
            else:
                x = 2
            assert candidate(
                x,
                2,
            ) == 3, (
                "message"
            )
            assert candidate(x) != [
        1]
        """
    )
    assert tests[0].check is CheckKind.EQUALS
    assert tests[0].source == "candidate(\n        x,\n        2,\n    )"
    assert tests[0].expected == 3
    assert tests[0].setup.startswith("if True:\n    x = 1\nelse:\n")
    ast.parse(tests[0].setup)
    assert tests[1].check is CheckKind.ASSERT
    assert tests[1].source == "assert candidate(x) != [\n1]\n"  # dedent impossible: the exact segment


def test_semicolon_statements_are_split():
    _, tests = split(
        "def check(candidate):\n    a = 1; assert candidate(a) == 1; b = 2; assert candidate(b)\n"
    )
    assert [(t.setup, t.check) for t in tests] == [
        ("a = 1\n", CheckKind.EQUALS),
        ("b = 2\n", CheckKind.TRUTHY),
    ]


@pytest.mark.parametrize(
    "body",
    [
        "    for i in range(3):\n        assert candidate(i) == i\n",
        "    if candidate(1):\n        assert candidate(2) == 2\n",
        "    def inner():\n        assert candidate(1)\n    inner()\n    assert candidate(2) == 2\n",
        "    with open('x') as f:\n        assert f\n",
        "    assert candidate(1) == 1\n    return\n",
    ],
)
def test_non_flat_check_falls_back_to_one_test(body):
    src = "METADATA = {}\n\n\ndef check(candidate):\n" + body
    pre, tests = split_check(src)
    assert pre == "METADATA = {}\n"
    assert len(tests) == 1
    (t,) = tests
    assert (t.id, t.check, t.setup) == ("check", CheckKind.ASSERT, "")
    assert t.source == "def check(candidate):\n" + body + "check(candidate)\n"
    ast.parse(t.source)


@pytest.mark.parametrize(
    "signature",
    ["check(candidate, extra)", "check(f)", "check(candidate=None)", "check(*candidate)", "check()"],
)
def test_unusual_signature_falls_back(signature):
    src = f"def {signature}:\n    assert candidate(1) == 1\n"
    _, tests = split_check(src)
    assert [t.id for t in tests] == ["check"]
    assert tests[0].source == src + "check(candidate)\n"


def test_check_with_only_constant_asserts_falls_back():
    _, tests = split_check("def check(candidate):\n    assert True\n")
    assert [t.id for t in tests] == ["check"]


def test_check_not_a_single_plain_def_uses_the_whole_test_source():
    src = "import functools\n\n@functools.lru_cache\ndef check(candidate):\n    assert candidate(1) == 1\n"
    pre, tests = split_check(src)
    assert pre == ""
    assert tests[0].source == src + "\ncheck(candidate)\n"
    src2 = "check = lambda candidate: None\n"
    assert split_check(src2)[1][0].source.startswith(src2)


def test_missing_check_or_bad_syntax_is_an_error():
    with pytest.raises(ValueError, match="defines no check"):
        split_check("def test(candidate):\n    assert candidate(1)\n")
    with pytest.raises(ValueError, match="not valid Python"):
        split_check("def check(candidate):\n    assert candidate(1) ==\n")


def test_callee_name_is_a_parameter():
    kind, source, expected = classify_statement("assert remove_Occ('hello', 'l') == 'heo'", "remove_Occ")
    assert (kind, source, expected) == (CheckKind.EQUALS, "remove_Occ('hello', 'l')", "heo")
    kind, source, _ = classify_statement("assert candidate(1) == 1", "remove_Occ")
    assert kind is CheckKind.ASSERT and source == "assert candidate(1) == 1\n"
