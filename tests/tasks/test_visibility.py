"""Visible/hidden test splits for multi-turn repair (`coderl.tasks.visibility`): the canonical form of
values, each check kind's `TestPair`, the literal scanner on the ways prompts show examples, each split
rule, and no hidden test leaking into the prompt or chat message of any bundled task set."""

from __future__ import annotations

import collections

import pytest

from coderl.rollout.formats import user_message
from coderl.sandbox.types import CheckKind, TestCase
from coderl.tasks import load_tasks
from coderl.tasks.types import Task
from coderl.tasks.visibility import (
    ANY,
    TestPair,
    canonical,
    leaked_tests,
    pair_appears,
    split_tests,
    test_pair,
)


def eq(source: str, expected, id: str = "0") -> TestCase:
    return TestCase(id=id, source=source, check=CheckKind.EQUALS, expected=expected)


def task(tests, prompt: str = "def f(x):\n    pass\n", task_id: str = "t/0") -> Task:
    return Task(task_id=task_id, kind="function", prompt=prompt, tests=tuple(tests), entry_point="f")


def appears(source: str, expected, text: str) -> bool:
    return pair_appears(test_pair(eq(source, expected), "f"), text)


# ---- canonical -----------------------------------------------------------------------------------------

def test_canonical_keeps_bool_apart_from_int():
    assert canonical(True) != canonical(1) and canonical(False) != canonical(0)
    assert canonical(True) == canonical(True)


def test_canonical_equates_int_and_float_and_rounds_floats():
    assert canonical(5) == canonical(5.0)
    assert canonical(0.1 + 0.2) == canonical(0.3)
    assert canonical(2.5) != canonical(2)


def test_canonical_sequences_sets_and_dicts():
    assert canonical([1, (2, 3)]) == canonical((1, [2, 3]))
    assert canonical({3, 1, 2}) == canonical(frozenset({2, 1, 3}))
    assert canonical({"b": 1, "a": [2]}) == canonical({"a": (2,), "b": 1.0})
    assert canonical({"a": 1}) != canonical([("a", 1)])


def test_canonical_strings_none_and_odd_values():
    assert canonical("x") == "x" and canonical(None) is None
    assert canonical(b"x") == ("repr", "b'x'")
    assert canonical(float("nan")) == canonical(float("nan"))
    hash(canonical([{1: [2]}, {3}]))


# ---- test_pair ----------------------------------------------------------------------------------------

def test_pair_of_an_equals_test_of_candidate():
    assert test_pair(eq("candidate(1, [2, 3])", 6), "f") == TestPair(((1, (2, 3)),), 6)


def test_pair_of_an_mbpp_test_calls_the_entry_point_by_name():
    pair = test_pair(eq("similar_elements((1, 2), (2, 3))", (2,)), "similar_elements")
    assert pair == TestPair((((1, 2), (2, 3)),), (2,))


def test_pair_appends_keywords_as_sorted_name_value_pairs():
    assert test_pair(eq("candidate(1, z=2, a='x')", 0), "f").calls == ((1, ("a", "x"), ("z", 2)),)


def test_pair_of_a_wrapped_call_has_any_expected():
    assert test_pair(eq("sorted(candidate([3, 1]))", [1, 3]), "f") == TestPair((((3, 1),),), ANY)


def test_pair_of_is_truthy_and_falsy_tests():
    assert test_pair(TestCase("0", "candidate(1)", CheckKind.IS, None), "f").expected is None
    assert test_pair(TestCase("0", "candidate(1)", CheckKind.TRUTHY), "f").expected == canonical(True)
    assert test_pair(TestCase("0", "candidate(1)", CheckKind.FALSY), "f").expected == canonical(False)


def test_pair_of_an_equals_test_with_non_literal_arguments_is_none():
    assert test_pair(eq("candidate(x)", 1), "f") is None


def test_pair_of_an_assert_compared_with_a_literal():
    pair = test_pair(TestCase("0", "assert 3 == candidate(1, 2)\n"), "f")
    assert pair == TestPair(((1, 2),), 3)


def test_pair_of_float_asserts_takes_the_literal():
    assert test_pair(TestCase("0", "assert abs(candidate(1.33) - 0.33) < 1e-6\n"), "f").expected == 0.33
    assert test_pair(TestCase("0", "assert math.isclose(candidate(2), 0.5)\n"), "f").expected == 0.5


def test_pair_of_an_assert_of_several_calls_lists_them_in_order():
    source = "assert candidate(1) + candidate(2) == tuple([3])\n"
    assert test_pair(TestCase("0", source), "f") == TestPair(((1,), (2,)), ANY)


def test_pair_of_an_assert_without_literal_calls_is_none():
    assert test_pair(TestCase("0", "assert candidate(lst) == odd_sum\n", setup="lst = [1]\n"), "f") is None


def test_pair_of_a_class_test_records_method_steps():
    test = TestCase("0", "assert [r0] == [3]\n", setup="obj = candidate()\nobj.push(3)\nr0 = obj.pop()\n")
    assert test_pair(test, "Stack") == TestPair(((),), ANY, steps=(("push", (3,)), ("pop", ())))


def test_pair_of_json_stdout_and_tagged_tests():
    assert test_pair(TestCase("0", "[[1, 2], true]", CheckKind.JSON, 3), "f") == TestPair((canonical(([1, 2], True)),), 3)
    assert test_pair(TestCase("0", "3\n1 2 3\n", CheckKind.STDOUT, "6\n"), None) == TestPair(
        (), ANY, ("3", "1", "2", "3"), ("6",))
    assert test_pair(TestCase("0", "", CheckKind.TAGGED, {}), None) is None
    assert test_pair(TestCase("0", "", CheckKind.REPORT), None) is None


# ---- the scanner ----------------------------------------------------------------------------------------

def test_scanner_reads_a_doctest():
    text = '    >>> f(1, 2)\n    3\n    >>> f(2, 2)\n    4\n'
    assert appears("candidate(1, 2)", 3, text) and appears("candidate(2, 2)", 4, text)


def test_scanner_needs_the_expected_value_not_just_the_call():
    assert not appears("candidate(1, 2)", 5, "f(1, 2) == 3")


def test_scanner_reads_equality_and_arrow_forms():
    assert appears("candidate('ab')", "ba", 'f("ab") == "ba"')
    assert appears("candidate(1, 2)", 3, "f(1,2) ➞ 3")
    assert appears("candidate([1])", [2], "f([1]) => [2]")


def test_scanner_reads_prose_examples():
    assert appears("candidate([1, 2, 3])", 14, "For lst = [1,2,3] the output should be 14")


def test_scanner_is_not_thrown_off_by_apostrophes_in_prose():
    text = "It's the list's sum; don't worry.\nFor nums = [1, 2] it's 3, isn't it"
    assert appears("candidate([1, 2])", 3, text)


def test_scanner_reads_javascript_true_false_null():
    text = "/**\n * f([1, 2])\n * false\n * g([0]) == (null, 1)\n */"
    assert pair_appears(TestPair((((1, 2),),), canonical(False)), text)
    assert pair_appears(TestPair((((0,),),), canonical((None, 1))), text)
    assert not pair_appears(TestPair((((1, 2),),), canonical(True)), "f([1, 2])\n * 0")


def test_scanner_reads_nested_lists_as_one_value():
    assert appears("candidate([[1, 2], [3]])", [1, 2, 3], ">>> f([[1, 2], [3]])\n[1, 2, 3]")
    assert not appears("candidate([1, 2])", 3, ">>> f([[1, 2], [3]])\n3")


def test_scanner_reads_negative_numbers():
    assert appears("candidate(-3)", -9, ">>> f(-3)\n-9")
    assert not appears("candidate(3)", -9, ">>> f(-3)\n-9")


def test_scanner_finds_an_mbpp_assert_in_the_prompt():
    prompt = '"""\nWrite a function.\nassert set(f((3, 4), (5,))) == set((4,))\n"""\n'
    pair = test_pair(TestCase("0", "assert set(f((3, 4), (5,))) == set((4,))\n"), "f")
    assert pair_appears(pair, prompt)


def test_scanner_takes_a_blank_doctest_line_as_none():
    assert appears("candidate([])", None, ">>> f([])\n\n>>> f(['a'])\n'a'")


def test_scanner_reads_worked_examples_a_few_lines_down():
    text = "arr = [2, 1]\n  -> sort arr -> [1, 2]\n  -> reverse -> [2, 1]\nreturn ['Two', 'One']"
    assert appears("candidate([2, 1])", ["Two", "One"], text)


def test_stdio_pair_appears_in_an_input_output_block():
    text = "Example\nInput:\n3\n1 2 3\nOutput:\n6\n"
    assert pair_appears(test_pair(TestCase("0", "3\n1 2 3\n", CheckKind.STDOUT, "6\n"), None), text)
    assert not pair_appears(test_pair(TestCase("0", "3\n1 2 3\n", CheckKind.STDOUT, "7\n"), None), text)
    assert pair_appears(TestPair((), ANY, (), ("6",)), text)


# ---- split rules -----------------------------------------------------------------------------------------

def six_tests():
    return [eq(f"candidate({i})", i * 10, id=str(i)) for i in range(6)]


def test_seeded_rule_shows_half_and_hides_the_rest():
    split = split_tests(task(six_tests()), seed=0)
    assert split.rule == "seeded" and len(split.visible) == 3 and len(split.hidden) == 3


def test_seeded_rule_is_deterministic_and_depends_on_the_seed():
    t = task(six_tests())
    assert split_tests(t, seed=1) == split_tests(t, seed=1)
    assert len({tuple(x.id for x in split_tests(t, seed=s).hidden) for s in range(10)}) > 1


def test_seeded_rule_hides_one_of_two_tests():
    split = split_tests(task(six_tests()[:2]))
    assert split.rule == "seeded" and len(split.visible) == len(split.hidden) == 1


def test_split_keeps_the_task_test_order():
    split = split_tests(task(six_tests()), seed=3)
    for part in (split.visible, split.hidden):
        assert [t.id for t in part] == sorted((t.id for t in part), key=int)


def test_prompt_rule_hides_what_the_prompt_does_not_show():
    split = split_tests(task(six_tests(), prompt='def f(x):\n    """>>> f(2)\n    20\n    """\n'))
    assert split.rule == "prompt" and [t.id for t in split.visible] == ["2"]
    assert [t.id for t in split.hidden] == ["0", "1", "3", "4", "5"]


def test_all_in_prompt_rule_when_the_prompt_shows_every_test():
    split = split_tests(task(six_tests()[:2], prompt=">>> f(0)\n0\n>>> f(1)\n10\n"))
    assert split.rule == "all_in_prompt" and not split.has_hidden


def test_marked_rule_follows_the_task_marks():
    tests = [eq("candidate(1)", 1, id="0"), eq("candidate(2)", 2, id="1"),
             TestCase("2", "candidate(3)", CheckKind.EQUALS, 3, hidden=True)]
    split = split_tests(task(tests, prompt=">>> f(1)\n1\n"))
    assert split.rule == "marked" and [t.id for t in split.hidden] == ["2"]


def test_marked_test_shown_in_the_prompt_is_visible():
    tests = [eq("candidate(1)", 1), TestCase("1", "candidate(3)", CheckKind.EQUALS, 3, hidden=True)]
    split = split_tests(task(tests, prompt=">>> f(3)\n3\n"))
    assert split.rule == "marked" and not split.has_hidden


def test_too_few_rule_for_a_single_test():
    split = split_tests(task([eq("candidate(1)", 1)]))
    assert split.rule == "too_few" and not split.has_hidden


def test_unnormalisable_tests_are_always_visible():
    tests = [TestCase("0", "assert candidate(x) == 1\n", setup="x = 1\n")] + six_tests()[:2]
    split = split_tests(task(tests))
    assert "0" in [t.id for t in split.visible] and split.rule == "seeded" and len(split.hidden) == 1


def test_duplicate_pair_of_a_visible_test_is_not_hidden():
    tests = [eq("candidate(1)", 1, id="0"), eq("candidate(1)", 1, id="1")]
    split = split_tests(task(tests))
    assert split.rule == "seeded" and not split.has_hidden and len(split.visible) == 2


def test_hidden_test_with_the_call_of_a_visible_test_is_not_hidden():
    tests = [eq("candidate([3, 1])", [1, 3], id="0"),
             TestCase("1", "assert sorted(candidate([3, 1])) == [1, 3]\n")]
    assert not split_tests(task(tests)).has_hidden


def test_prompt_showing_a_test_in_prose_makes_it_visible():
    tests = [eq("candidate([1, 2, 3])", 6, id="0"), eq("candidate([4])", 4, id="1"),
             eq("candidate([])", 0, id="2")]
    prompt = 'def f(nums):\n    """Sum nums.\n    For nums = [1, 2, 3] the output should be 6.\n    """\n'
    split = split_tests(task(tests, prompt=prompt))
    assert [t.id for t in split.visible] == ["0"] and split.rule == "prompt"


def test_leaked_tests_reports_hidden_tests_shown_in_a_text():
    t = task(six_tests())
    split = split_tests(t)
    hidden = split.hidden[0]
    n = int(hidden.id)
    assert leaked_tests(t, split, [t.prompt]) == []
    assert leaked_tests(t, split, [t.prompt, f"hint: f({n}) returns {n * 10}"]) == [hidden.id]


def test_leaked_tests_reports_hidden_tests_without_a_pair():
    t = task(six_tests())
    bad = TestCase("x", "assert candidate(y)\n")
    split = split_tests(t)
    forged = type(split)(split.visible, split.hidden + (bad,), split.rule)
    assert leaked_tests(t, forged, [""]) == ["x"]


# ---- every bundled set: no leaks, and how many tasks have hidden tests --------------------------------

SETS = [
    ("easy", "all"), ("humaneval", "all"),
    ("synthetic:level=1", "train"), ("synthetic:level=1", "test"),
    ("synthetic:level=2", "train"), ("synthetic:level=2", "test"),
    ("synthetic:level=3", "train"), ("synthetic:level=3", "test"),
    ("corpus", "all"), ("mbpp:tests/fixtures/tasks/mbpp_small.jsonl", "all"),
    ("stdio-basics", "all"),
]
# Tasks with at least one hidden test at seed 0, measured once (a few tasks of slack).
HIDDEN_AT_LEAST = {
    "easy": 74, "humaneval": 154, "synthetic:level=1": 98, "synthetic:level=2": 98, "synthetic:level=3": 98,
    "corpus": 600, "mbpp:tests/fixtures/tasks/mbpp_small.jsonl": 2, "stdio-basics": 16,
}


@pytest.fixture(scope="module")
def splits():
    """{(spec, split): [(task, TestSplit), ...]}, computed once for the module."""
    return {(spec, part): [(t, split_tests(t, seed=0)) for t in load_tasks(spec, split=part).tasks]
            for spec, part in SETS}


def failed_feedback(t, split) -> str:
    """The feedback after an answer failing every visible test, as the judge words a wrong value."""
    from coderl.rollout.feedback import feedback_message
    from coderl.sandbox.types import ExecutionResult, Status, TestOutcome

    outcomes = [TestOutcome(v.id, Status.FAILED, message=f"got None, expected {v.expected!r}") for v in split.visible]
    return feedback_message(t, split.visible, ExecutionResult(Status.FAILED, tests=outcomes))


@pytest.mark.parametrize("spec,part", SETS)
def test_no_hidden_test_leaks_into_prompt_chat_message_or_feedback(splits, spec, part):
    leaks = {t.task_id: ids for t, split in splits[(spec, part)]
             if (ids := leaked_tests(t, split, [t.prompt, user_message(t), failed_feedback(t, split)]))}
    assert leaks == {}


@pytest.mark.parametrize("spec,part", SETS)
def test_most_tasks_of_each_set_have_hidden_tests(splits, spec, part):
    pairs = splits[(spec, part)]
    rules = collections.Counter(split.rule for _, split in pairs)
    with_hidden = sum(split.has_hidden for _, split in pairs)
    hidden = sum(len(split.hidden) for _, split in pairs)
    visible = sum(len(split.visible) for _, split in pairs)
    print(f"\n{spec}@{part}: {len(pairs)} tasks, {with_hidden} with hidden tests "
          f"({visible} visible / {hidden} hidden tests), by rule: {dict(sorted(rules.items()))}")
    assert with_hidden >= HIDDEN_AT_LEAST[spec]
    assert all(split.visible for _, split in pairs)  # feedback always has at least one test


@pytest.mark.parametrize("table", ["for a, b, c in [(7, 8, 15), (1, 2, 3)]:", "cases = [[7, 8], 15]",
                                   "expected = {(7, 8): 15}"])
def test_scanner_reads_pairs_inside_a_table_of_cases(table):
    assert appears("candidate(7, 8)", 15, table)


def test_feedback_withholds_the_tests_only_from_a_program_the_judge_caught():
    """A courtesy note (honest code can earn one: a library adding an import finder) keeps the test
    feedback; a judge-observed note replaces it with one line, as a program that never ran."""
    from coderl.rollout.feedback import feedback_message
    from coderl.sandbox.types import ExecutionResult, Status, TestOutcome
    from coderl.tasks import load_tasks
    from coderl.tasks.visibility import split_tests

    task = next(t for t in load_tasks("easy").tasks if split_tests(t, 0).visible)
    visible = split_tests(task, 0).visible
    outcomes = [TestOutcome(v.id, Status.FAILED, message="got 1, expected 2") for v in visible]
    courtesy = feedback_message(task, visible, ExecutionResult(Status.FAILED, tests=outcomes,
                                                               tamper=["patched_import_system"]))
    caught = feedback_message(task, visible, ExecutionResult(Status.FAILED, tests=outcomes, tamper=["exit_called"],
                                                             message="test 1: SystemExit"))
    assert "got 1, expected 2" in courtesy and "did not run" not in courtesy
    assert "Your code did not run: test 1: SystemExit" in caught and "expected 2" not in caught
