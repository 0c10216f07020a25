"""Issue texts written from failing tests: the shown tests named with how they fail, a hidden test never named,
nothing of how the bug was made, the same text for the same inputs."""

import re

import pytest

from coderl.tasks.repository.issue_text import Failure, Frame, IssueTextError, issue_text

SPANS = "tests/test_parse.py::TestSpans::test_named_spans"
CONVERT = "tests/test_parse.py::test_int_convert"
HIDDEN = "tests/test_parse.py::test_hidden"

FAILURES = [
    {"test_id": SPANS, "outcome": "failed",
     "message": "E       assert {'a': (2, 5)} == {'a': (1, 4)}\nE         Differing items: ...",
     "frames": ["tests/test_parse.py:40:test_named_spans"]},
    {"test_id": CONVERT, "outcome": "error", "message": "ValueError: invalid literal for int() with base 10: 'x'",
     "frames": [("tests/test_parse.py", 12, "test_int_convert"),
                {"path": "parse.py", "line": 310, "function": "convert_int"}]},
    {"test_id": HIDDEN, "outcome": "failed", "message": "AssertionError"},
]


def test_the_text_names_the_shown_tests_and_how_each_fails():
    assert issue_text("parse", FAILURES, shown_ids=[SPANS, CONVERT], seed=0) == (
        "Regression in Spans: named spans\n"
        "\n"
        "I ran the tests of parse and 2 tests fail.\n"
        "\n"
        f"- `{SPANS}` fails: the check `{{'a': (2, 5)}} == {{'a': (1, 4)}}` does not hold\n"
        f"- `{CONVERT}` errors: it raises `ValueError: invalid literal for int() with base 10: 'x'` "
        "(raised in `convert_int`, `parse.py`)\n"
        "\n"
        "The same problem may show elsewhere too.\n"
        "Expected: these tests pass, without changing the tests.\n")


def test_one_shown_test_reads_in_the_singular():
    assert issue_text("parse", FAILURES, shown_ids=[CONVERT], seed=1) == (
        "Unexpected result from Int convert\n"
        "\n"
        "Running the test suite of parse, one test fails.\n"
        "\n"
        f"- `{CONVERT}` errors: it raises `ValueError: invalid literal for int() with base 10: 'x'` "
        "(raised in `convert_int`, `parse.py`)\n"
        "\n"
        "Other cases may fail the same way.\n"
        "Please fix the library so that the tests above pass (the tests themselves are correct).\n")


def test_with_nothing_shown_the_text_says_what_fails_without_a_test_name():
    text = issue_text("parse", FAILURES, shown_ids=[], seed=0)
    assert text == ("Something is broken in parse\n"
                    "\n"
                    "Something in parse misbehaves: the check `{'a': (2, 5)} == {'a': (1, 4)}` does not hold.\n"
                    "\n"
                    "The same problem may show elsewhere too.\n"
                    "Expected: the library behaves as documented.\n")
    assert "test_" not in text


def test_a_hidden_test_is_never_named_not_even_inside_a_shown_failures_message():
    failures = [{"test_id": "t.py::test_a", "outcome": "failed",
                 "message": "RuntimeError: called from test_b_edge", "frames": ["lib.py:3:helper"]},
                {"test_id": "t.py::test_b_edge", "outcome": "failed", "message": "AssertionError: assert 1 == 2"}]
    text = issue_text("lib", failures, shown_ids=["t.py::test_a"])
    assert "test_b_edge" not in text
    assert "- `t.py::test_a` fails\n" in text     # its message named the hidden test: left out


def test_nothing_of_how_the_bug_was_made_and_no_line_numbers():
    failures = [{"test_id": "t.py::test_a", "outcome": "failed", "message": "ValueError: mutation of a frozen set",
                 "frames": ["lib/core.py:1234:freeze"]},
                {"test_id": "t.py::test_b", "outcome": "failed", "message": "AssertionError: assert 1 == 2"}]
    for seed in range(8):
        text = issue_text("lib", failures, shown_ids=["t.py::test_a"], seed=seed)
        assert not re.search(r"mutat|mutant|off_by_one|removed_branch|swapped_arguments|wrong_return", text, re.I)
        assert "1234" not in text and "test_b" not in text


def test_the_same_inputs_give_the_same_text_and_seeds_vary_the_phrasing():
    texts = {issue_text("parse", FAILURES, shown_ids=[SPANS], seed=s) for s in range(12)}
    assert issue_text("parse", FAILURES, shown_ids=[SPANS], seed=5) == issue_text(
        "parse", list(reversed(FAILURES)), shown_ids=[SPANS], seed=5)
    assert len(texts) >= 3
    assert all(f"- `{SPANS}` fails: the check" in t for t in texts)


def test_a_bare_exception_and_a_plain_assertion_message():
    failures = [Failure("t.py::test_empty", "failed", "IndexError", (Frame("pkg/seq.py", 9, "first"),)),
                Failure("t.py::test_msg", "failed", "AssertionError: lengths differ"),
                Failure("t.py::test_other", "failed", "")]
    text = issue_text("pkg", failures, shown_ids=["t.py::test_empty", "t.py::test_msg"], seed=0)
    assert "- `t.py::test_empty` fails: it raises `IndexError` (raised in `first`, `pkg/seq.py`)\n" in text
    assert "- `t.py::test_msg` fails: an assertion fails: `lengths differ`\n" in text


def test_a_long_message_is_cut_short():
    failures = [{"test_id": "t.py::test_long", "outcome": "failed", "message": "KeyError: " + "k" * 500},
                {"test_id": "t.py::test_other", "outcome": "failed"}]
    text = issue_text("pkg", failures, shown_ids=["t.py::test_long"])
    line = next(l for l in text.splitlines() if "KeyError" in l)
    assert "k" * 157 + "...`" in line and "k" * 158 not in line


def test_refusals_are_one_line():
    with pytest.raises(IssueTextError, match=r"^parse: every failing test would be shown; keep at least one"):
        issue_text("parse", FAILURES, shown_ids=[SPANS, CONVERT, HIDDEN])
    with pytest.raises(IssueTextError, match=r"^parse: shown_ids names tests that do not fail: \['t.py::x'\]$"):
        issue_text("parse", FAILURES, shown_ids=["t.py::x"])
    with pytest.raises(IssueTextError, match=r"^parse: no failing test"):
        issue_text("parse", [], shown_ids=[])
    with pytest.raises(IssueTextError, match=r"^frame 'nowhere': not path:line:function$"):
        issue_text("parse", [{"test_id": "t.py::test_a", "frames": ["nowhere"]}], shown_ids=[])
    with pytest.raises(IssueTextError, match=r"no test_id"):
        issue_text("parse", [{"outcome": "failed"}], shown_ids=[])


def test_an_issue_lists_ten_failing_tests_at_most_and_counts_the_rest():
    from coderl.tasks.repository.issue_text import LISTED_AT_MOST, issue_text

    failures = [{"test_id": f"tests/test_a.py::test_case_{i:02d}", "outcome": "failed",
                 "message": "assert 1 == 2", "frames": []} for i in range(26)]
    text = issue_text("lib", failures, shown_ids=[f["test_id"] for f in failures[:25]])  # one kept hidden
    listed = [line for line in text.splitlines() if line.startswith("- `")]
    assert len(listed) == LISTED_AT_MOST == 10
    assert "- ... and 15 more (run the tests to see them all)" in text
    assert "25 tests" in text  # the opening still counts them all
