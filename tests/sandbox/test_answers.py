"""The final-answer judge (`Mode.ANSWER`): extraction order, numbers, comparison, and replies that try to
get paid without the answer (hedging, huge numbers, other scripts' digits, forged markers)."""

from __future__ import annotations

import time
from fractions import Fraction

import pytest

from coderl.sandbox import Sandbox
from coderl.sandbox.answers import MAX_DIGITS, answers_match, extract_answer, judge_answer, numbers, parse_number
from coderl.sandbox.types import CheckKind, ExecutionRequest, Mode, Status, TestCase


def request(reply: str, expected: str = "18", tolerance: float | None = None) -> ExecutionRequest:
    return ExecutionRequest(mode=Mode.ANSWER, program=reply, float_tolerance=tolerance,
                            tests=(TestCase("answer", "", CheckKind.ANSWER, expected),))


def value(reply: str) -> Fraction | None:
    found = extract_answer(reply)
    return None if found is None else found.value


# ---- extraction order --------------------------------------------------------------------------


def test_the_marker_that_comes_last_decides():
    assert extract_answer("So \\boxed{7}. Total 3 + 4 = 7.\n#### 12\nCheck: 5 apples.").rule == "####"
    assert value("So \\boxed{7}. Total 3 + 4 = 7.\n#### 12\nCheck: 5 apples.") == 12
    assert value("#### 12\nno wait, \\boxed{13}") == 13
    assert value("<reasoning>#### 17</reasoning><answer>18</answer>") == 18


def test_the_last_hash_line_counts_and_only_to_its_line_end():
    assert value("#### 3\nno, wait\n#### 4\nthat is 9 cookies") == 4


def test_markdown_headings_are_not_answer_markers():
    assert value("#### Step 2\nSo the answer is \\boxed{18}.") == 18
    assert value("#### Step 1: add\n5 + 13 = 18\n#### Final Answer\n\\boxed{18}") == 18
    assert value("#### Step 1: add\n5 + 13 = 18") == 18  # a heading, then the last number
    assert value("##### 5 steps\nthe answer is 7") == 7  # five hashes: a heading


def test_an_empty_hash_line_gives_the_next_line():
    assert value("####\n18") == 18 and value("3 + 4\n#### \n\n 7 apples") == 7


def test_boxed_is_read_when_there_is_no_hash_line_and_the_last_box_counts():
    reply = "first \\boxed{2} then \\boxed{\\frac{3}{4}} and 10 more words 11"
    assert extract_answer(reply).rule == "boxed" and value(reply) == Fraction(3, 4)


def test_an_answer_block_is_a_marker_that_must_hold_one_number():
    assert extract_answer("<reasoning>x</reasoning><answer>\n18\n</answer>").rule == "<answer>"
    assert extract_answer("<reasoning>x</reasoning>\n<answer>17 or 18</answer>") is None
    assert extract_answer("<answer>It is 18, not 17</answer>") is None
    assert value("<answer>The answer is \\boxed{18}.</answer>") == 18


def test_fbox_and_nested_braces_in_a_box():
    assert value("\\fbox{5}") == 5
    assert value("\\boxed{\\dfrac{1}{2}}") == Fraction(1, 2)
    assert value("\\boxed{-\\frac{3}{8}}") == Fraction(-3, 8)


def test_without_a_marker_the_last_number_counts():
    found = extract_answer("She has 3 bags of 4 apples, so 3 * 4 = 12 apples.")
    assert found.rule == "last number" and found.value == 12


def test_no_number_is_no_answer():
    assert extract_answer("I do not know.") is None
    assert extract_answer("") is None


# ---- numbers -------------------------------------------------------------------------------------


@pytest.mark.parametrize("text, want", [
    ("1,234", 1234), ("$1,200.50", Fraction(240100, 200)), ("-7", -7), ("\u22127", -7), ("2.50", Fraction(5, 2)),
    (".5", Fraction(1, 2)), ("3/4", Fraction(3, 4)), ("3 / 4", Fraction(3, 4)), ("\\frac{6}{8}", Fraction(3, 4)),
    ("18 dollars", 18), ("25%", 25), ("\\$18", 18), ("12kg", 12), ("18m", 18), ("18 m", 18), ("it is 18.", 18),
    # signs: dashes of other code points, words, before a dollar sign, before parentheses
    ("\u201018", -18), ("\uff0d18", -18), ("\ufe6318", -18), ("minus 18", -18), ("Negative 18", -18), ("-$18", -18),
    ("-\\$18", -18), ("-(18)", -18),
    # LaTeX thousands, a unit's power, mixed numbers
    ("1{,}200", 1200), ("1\\,200", 1200), ("18 cm^2", 18), ("18\\text{ cm}^{2}", 18), ("1 1/2", Fraction(3, 2)),
    ("1\\frac{1}{2}", Fraction(3, 2)), ("-2 1/4", Fraction(-9, 4)),
])
def test_parse_number_reads_one_number_with_units_and_signs(text, want):
    assert parse_number(text) == want


def test_a_minus_after_a_digit_is_subtraction_not_a_sign():
    assert [t for t, _ in numbers("5-3")] == ["5", "3"]
    assert [t for t, _ in numbers("x - 3")] == ["-3"]  # a free-standing minus is a sign


def test_thousands_groups_must_have_three_digits():
    assert [v for _, v in numbers("1,2345")] == [1, 2345]
    assert [v for _, v in numbers("1, 2, 3")] == [1, 2, 3]


@pytest.mark.parametrize("text", ["18k", "2.5M", "18 thousand", "3 million", "2 dozen", "\\sqrt{324}", "0x12",
                                  "1_000", "2^10", "1e3"])
def test_a_number_whose_meaning_is_not_its_digits_is_no_answer(text):
    # read as the digits shown, each would be a wrong value judged right (or a right one judged wrong)
    assert extract_answer(f"#### {text}") is None
    assert extract_answer(f"so the total is {text}") is None  # the last number too: never an earlier one


def test_a_digit_before_a_fraction_is_never_glued_to_its_numerator():
    assert parse_number("1\\frac{1}{2}") != Fraction(11, 2) and parse_number("2\\frac{1}{4}") == Fraction(9, 4)


def test_numbers_inside_words_and_scientific_notation_are_not_read():
    assert numbers("abc123 v1.5 x2") == []
    assert extract_answer("#### 1e3") is None  # not 1: a reader that took 1 would pay a wrong answer
    assert numbers("12e3") == []


def test_digits_of_other_scripts_are_not_numbers():
    # int() reads these; the judge must not, or a reply's text could say one thing and be read as another
    assert extract_answer("\u0661\u0668") is None
    assert extract_answer("#### \uff11\uff18") is None


def test_a_number_with_too_many_digits_is_no_number():
    assert extract_answer(f"#### {'9' * (MAX_DIGITS + 1)}") is None


@pytest.mark.parametrize("text", [
    "\\frac{" + " " * 100_000, "\\frac{1}{" + " " * 100_000, "\\frac{" + "\n" * 100_000, "####\n" * 40_000,
    "1 " * 100_000, "- " * 100_000, "minus " * 30_000, "1,111" * 40_000, "<answer>" * 30_000, "\\boxed{" * 30_000,
    "9" * 200_000, "#### " + "9" * 100_000 + "/" + "7" * 100_000, "-(" * 50_000,
])
def test_long_adversarial_replies_take_linear_time(text):
    # a judge that hangs stalls the whole training step (it runs in the trainer's process): every regex must
    # stay linear; a cubic one took 21 s on 3,000 spaces after "\\frac{".  A guard, not a timing claim.
    start = time.perf_counter()
    extract_answer(text)
    assert time.perf_counter() - start < 10


def test_a_zero_denominator_is_no_number():
    assert extract_answer("#### 3/0") is None


# ---- hedging ---------------------------------------------------------------------------------


@pytest.mark.parametrize("reply", ["#### 17 or 18", "#### 17, 18", "\\boxed{17 \\text{ or } 18}", "#### 18 19",
                                   "#### 10 - 5"])
def test_a_marked_answer_with_several_numbers_is_no_answer(reply):
    assert extract_answer(reply) is None
    assert judge_answer(request(reply, "18")).status is Status.FAILED


def test_an_empty_final_marker_is_no_answer_even_with_the_right_number_before_it():
    assert judge_answer(request("The answer is 18.\n#### ", "18")).status is Status.FAILED
    assert judge_answer(request("The answer is 18.\n\\boxed{}", "18")).status is Status.FAILED


# ---- comparison ------------------------------------------------------------------------------


def test_integers_and_fractions_compare_exactly():
    assert answers_match(Fraction(18), "18") and answers_match(Fraction("18.0"), "18")
    assert answers_match(Fraction("0.75"), "3/4")  # the same value
    assert not answers_match(Fraction("0.333"), "1/3")  # close is not equal for a fraction
    assert not answers_match(Fraction("18.000001"), "18")


def test_decimals_compare_within_the_tolerance():
    assert answers_match(Fraction("2.5000001"), "2.5")  # default 1e-6 * max(1, |2.5|)
    assert not answers_match(Fraction("2.51"), "2.5")
    assert answers_match(Fraction("2.51"), "2.5", tolerance=0.01)
    assert answers_match(Fraction(5, 2), "2.5")


def test_an_expected_answer_that_is_not_one_number_is_an_error():
    with pytest.raises(ValueError, match="not one number"):
        answers_match(Fraction(1), "one")


# ---- the verdict ---------------------------------------------------------------------------------


def test_judge_answer_result_names_the_answer_and_the_rule():
    passed = judge_answer(request("3 * 6 = 18\n#### 18"))
    assert passed.passed and passed.tests[0].passed and "by ####" in passed.stdout
    failed = judge_answer(request("#### 17"))
    assert failed.status is Status.FAILED and failed.tests[0].message == "got 17 (by ####), expected 18"
    none = judge_answer(request("no idea"))
    assert not none.passed and none.tests[0].message == "no final answer found"


def test_the_reply_is_never_executed_and_the_sandbox_judges_it_in_the_parent():
    reply = "__import__('os').system('touch /tmp/coderl-answer-pwned')\n#### 18"
    with Sandbox(workers=1) as sandbox:
        result = sandbox.run(request(reply))
    assert result.passed and result.isolation == "none (nothing runs)"
    assert result.cpu_seconds == 0.0


def test_hidden_flags_are_kept_per_test():
    req = ExecutionRequest(mode=Mode.ANSWER, program="#### 4", tests=(
        TestCase("a", "", CheckKind.ANSWER, "4", hidden=True), TestCase("b", "", CheckKind.ANSWER, "5")))
    result = judge_answer(req)
    assert [(t.hidden, t.passed) for t in result.tests] == [(True, True), (False, False)]
    assert result.status is Status.FAILED and result.fraction_passed == 0.5
