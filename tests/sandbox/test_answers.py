"""The final-answer judge (`Mode.ANSWER`): one reply, one unambiguous answer.  Markers, numbers (Unicode
numerals, numbers with no value, number words), comparison, and replies that try to get paid without the
answer (hedging, a second number hidden in a marked answer, disagreeing markers, huge numbers, forged
markers).  Property tests draw the hidden number from every class of the definition."""

from __future__ import annotations

import itertools
import time
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from coderl.sandbox import Sandbox
from coderl.sandbox.answers import (
    MAX_DIGITS,
    NUMBER_WORDS,
    answers_match,
    counted_words,
    extract_answer,
    judge_answer,
    numbers,
    parse_number,
)
from coderl.sandbox.types import CheckKind, ExecutionRequest, Mode, Status, TestCase


def request(reply: str, expected: str = "18", tolerance: float | None = None, words=()) -> ExecutionRequest:
    return ExecutionRequest(mode=Mode.ANSWER, program=reply, float_tolerance=tolerance, answer_words=tuple(words),
                            tests=(TestCase("answer", "", CheckKind.ANSWER, expected),))


def value(reply: str, words=()) -> Fraction | None:
    """The reply's answer's value, for a task whose metadata names `words` as its counted nouns."""
    found = extract_answer(reply, counted_words(words))
    return None if found is None else found.value


# ---- markers: every one counts, and all must agree ------------------------------------------------


def test_markers_that_disagree_are_no_answer():
    # (the old rule let the marker that came last decide; a reply could box one answer and mark another)
    assert extract_answer("So \\boxed{7}. Total 3 + 4 = 7.\n#### 12\nCheck: 5 apples.") is None
    assert extract_answer("#### 12\nno wait, \\boxed{13}") is None
    assert extract_answer("<reasoning>#### 17</reasoning><answer>18</answer>") is None
    assert extract_answer("\\boxed{17} earlier\n#### 18") is None


def test_markers_that_agree_are_the_answer_named_by_the_last_one():
    assert value("So \\boxed{18}.\n#### 18") == 18 and extract_answer("So \\boxed{18}.\n#### 18").rule == "####"
    assert value("#### \\boxed{18}") == 18  # a box inside a #### line: both read 18
    assert value("#### 0.75\n\\boxed{\\frac{3}{4}}") == Fraction(3, 4)  # equal as values
    assert value("<reasoning>so\n#### 18\n</reasoning><answer>18</answer>") == 18
    # a #### line runs to its end: here it holds the answer block's 18 too, so it holds two numbers
    assert extract_answer("<reasoning>so #### 18</reasoning><answer>18</answer>") is None
    assert value("\\boxed{\\boxed{18}}") == 18


def test_every_hash_line_counts_and_only_to_its_line_end():
    assert extract_answer("#### 3\nno, wait\n#### 4\nthat is 9 cookies") is None  # (was 4: the last line won)
    assert value("#### 4\nthat is 4 cookies") == 4
    assert value("#### 4\nok\n#### 4") == 4


def test_a_number_after_the_last_marker_that_is_not_the_answer_takes_it_back():
    """Found by an attack (2026-11-27): only the markers' texts were read, so a reply that marked 18 and then said
    something else was paid for 18.  Now any number after the last marker must be the answer (a number word, with
    no value, counts as another)."""
    for reply in ("#### 4\nthat is 9 cookies", "#### 18\nWait, that is wrong... so she has 9.",
                  "The total is not 17, \\boxed{18}; or rather 17.", "$\\boxed{18} = 17$",
                  "She has \\boxed{18} apples, so 36 in two boxes.", "\\boxed{18}. That is eighteen.",
                  "It could be \\boxed{18} or maybe 20"):
        assert extract_answer(reply) is None, reply
    for reply, want in (("\\boxed{18}. She has 18 apples in total.", 18), ("#### 18\n\nI hope this helps!", 18),
                        ("5 + 13 = \\boxed{18}, so 18.", 18), ("#### 0.75\nthat is 3/4", Fraction(3, 4))):
        assert value(reply) == want, reply


def test_a_word_that_qualifies_the_marked_number_beside_its_marker_is_no_answer():
    """Comparison, negation, approximation, multiplication, an alternative or a hedge right beside a marker
    (`QUALIFIERS`), and `of` after a number word or one of them, say the marked number is not the answer."""
    for reply in ("The total is not \\boxed{18}", "She has more than \\boxed{18}", "twice \\boxed{18} apples",
                  "half of \\boxed{18}", "perhaps \\boxed{18}", "except \\boxed{18}", "\\boxed{18} or less",
                  "about \\boxed{18}", "\\boxed{18} times", "maybe \\boxed{18}."):
        assert extract_answer(reply) is None, reply
    for reply in ("The total is \\boxed{18}", "She earns \\boxed{18} dollars", "the sum of \\boxed{18}",
                  "So she has \\boxed{18} apples.", "Answer: \\boxed{18}"):
        assert value(reply) == 18, reply


def test_every_box_and_every_answer_block_counts():
    # (the old rule read the last box and the last answer block only)
    assert extract_answer("first \\boxed{2} then \\boxed{\\frac{3}{4}} and 10 more words 11") is None
    assert value("first \\boxed{3/4} then \\fbox{\\frac{3}{4}} and more words") == Fraction(3, 4)
    assert extract_answer("<answer>17</answer> no: <answer>18</answer>") is None
    assert extract_answer("\\boxed{} \\boxed{18}") is None  # an empty box is a marker that reads nothing
    assert extract_answer("\\boxed{17 \\boxed{18}}") is None  # the outer box holds two numbers
    assert extract_answer("\\boxed {17} and \\boxed{18}") is None  # spaces before the brace: still a box


def test_markdown_headings_are_not_answer_markers():
    assert value("#### Step 2\nSo the answer is \\boxed{18}.") == 18
    assert value("#### Step 1: add\n5 + 13 = 18\n#### Final Answer\n\\boxed{18}") == 18
    assert value("#### Step 1: add\n5 + 13 = 18\nThe answer is 18.") == 18  # a heading, then the last line
    assert extract_answer("#### Step 1: add\n5 + 13 = 18") is None  # (was 18) the last line holds 3 numbers
    assert value("##### 5 steps\nthe answer is 7") == 7  # five hashes: a heading


def test_a_hash_line_starting_with_a_number_word_is_a_marker_not_a_heading():
    assert extract_answer("#### Seventeen\nThe answer is 18.") is None
    assert extract_answer("#### First step\nadd them\n#### 18") is None
    assert value("#### Step 2\nSo the answer is \\boxed{18}.") == 18


def test_an_empty_hash_line_gives_the_next_line():
    assert value("####\n18") == 18 and value("3 + 4\n#### \n\n 7 apples", ["apples"]) == 7
    assert extract_answer("####\n18 or 17") is None


def test_an_answer_block_is_a_marker_that_must_hold_one_number():
    assert extract_answer("<reasoning>x</reasoning><answer>\n18\n</answer>").rule == "<answer>"
    assert extract_answer("<reasoning>x</reasoning>\n<answer>17 or 18</answer>") is None
    assert extract_answer("<answer>It is 18, not 17</answer>") is None
    assert value("<answer>The answer is \\boxed{18}.</answer>") == 18


def test_fbox_and_nested_braces_in_a_box():
    assert value("\\fbox{5}") == 5
    assert value("\\boxed{\\dfrac{1}{2}}") == Fraction(1, 2)
    assert value("\\boxed{-\\frac{3}{8}}") == Fraction(-3, 8)


def test_without_a_marker_the_last_line_must_hold_one_number():
    found = extract_answer("She has 3 bags of 4 apples, so 3 * 4 = 12 apples.\n12.")
    assert found.rule == "last number" and found.value == 12
    # (the old rule took the last number of the reply: 12 here, 18 below)
    assert extract_answer("She has 3 bags of 4 apples, so 3 * 4 = 12 apples.") is None
    assert extract_answer("So 3 + 15 = 18") is None
    assert extract_answer("It is 18, the third try.") is None
    assert extract_answer("So 18.\nHope this helps!") is None  # the last line holds none
    # (issue 99: an answer statement is read wherever it stands, so `The answer is 18.\nHope this helps!` is 18)
    assert value("Work: 3 + 15 = 18.\n\nThe answer is 18.\n\n  \n") == 18


def test_no_number_is_no_answer():
    assert extract_answer("I do not know.") is None
    assert extract_answer("") is None


# ---- numbers -------------------------------------------------------------------------------------


@pytest.mark.parametrize("text, want", [
    ("1,234", 1234), ("$1,200.50", Fraction(240100, 200)), ("-7", -7), ("\u22127", -7), ("2.50", Fraction(5, 2)),
    (".5", Fraction(1, 2)), ("3/4", Fraction(3, 4)), ("3 / 4", Fraction(3, 4)), ("\\frac{6}{8}", Fraction(3, 4)),
    ("18 dollars", 18), ("25%", 25), ("\\$18", 18), ("12kg", 12), ("18m", 18), ("18 m", 18), ("18 min.", 18),
    # signs: dashes of other code points, words, before a dollar sign, before parentheses
    ("\u201018", -18), ("\uff0d18", -18), ("\ufe6318", -18), ("minus 18", -18), ("Negative 18", -18), ("-$18", -18),
    ("-\\$18", -18), ("-(18)", -18), ("-\u00a018", -18), ("3rd", 3), ("18 cm", 18), ("18\\text{ cm}", 18),
    # LaTeX thousands, mixed numbers
    ("1{,}200", 1200), ("1\\,200", 1200), ("1 1/2", Fraction(3, 2)),
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


def test_a_unit_power_is_a_second_number():
    # (the old rule dropped a unit's power: `18 cm^2` was 18)
    for text in ["18 cm^2", "18\\text{ cm}^{2}", "18 m\u00b2"]:
        assert parse_number(text) is None and extract_answer(f"#### {text}") is None


def test_digits_inside_words_and_scientific_notation_are_numbers_with_no_value():
    # (the old rule skipped them: `#### v2 18` was 18)
    assert numbers("abc123 v1.5 x2") == [("123", None), ("1", None), ("5", None), ("2", None)]
    assert extract_answer("#### 1e3") is None  # not 1: a reader that took 1 would pay a wrong answer
    assert all(v is None for _, v in numbers("12e3"))
    assert extract_answer("#### v2 18") is None and extract_answer("\\boxed{18 1.2.3}") is None


def test_digits_of_other_scripts_are_numbers_with_no_value():
    # int() reads these; the judge must not, or a reply's text could say one thing and be read as another
    assert extract_answer("\u0661\u0668") is None
    assert extract_answer("#### \uff11\uff18") is None
    assert numbers("\u0661\u0668 \u00bd") == [("\u0661\u0668", None), ("\u00bd", None)]


@pytest.mark.parametrize("reply", [
    "#### 18\u00b2", "#### 1\u00bd", "#### 18 \u2469", "#### 18 \u216b", "\\boxed{18 \U0001d7cf}", "<answer>18 \u0661</answer>",
    "#### 18\u2082", "#### \u00b918", "The answer is 18\u00b9.",
])
def test_a_unicode_numeral_beside_the_number_is_no_answer(reply):
    # (the old rule read only ASCII digits, so each of these was 18 or 1)
    assert extract_answer(reply) is None


@pytest.mark.parametrize("reply", [
    "#### 18 (eighteen)", "#### 18 or twenty", "\\boxed{18, the third}", "<answer>18 (first try)</answer>",
    "#### 18 Twenty-One", "#### 18 ONE", "#### 2 thirds", "#### 3 hundreds", "#### 18 and a half", "#### 18 per second",
    "#### 18 \uff54\uff57\uff4f", "#### 18 \U0001d42d\U0001d430\U0001d428", "#### 18 \ufb01ve", "#### 18 t\u200bwo",
    "#### 18 two\u0301", "#### 18twenty", "#### twenty18", "The answer is 18, not nineteen.", "It is the second: 18",
])
def test_a_number_word_beside_the_number_is_no_answer(reply):
    # (the old rule ignored words, so each of these was read as its digits)
    assert extract_answer(reply) is None


@pytest.mark.parametrize("word", sorted(NUMBER_WORDS))
def test_every_number_word_is_a_number(word):
    assert numbers(f"18; {word}") == [("18", Fraction(18)), (word, None)]
    assert extract_answer(f"#### 18 {word.upper()}") is None and extract_answer(f"\\boxed{{{word.title()} 18}}") is None


def test_number_words_are_whole_words_and_compounds_are_one_number():
    assert numbers("someone, often, anyone, none, tone, seconded, quartered") == []
    assert numbers("twenty-one") == [("twenty-one", None)] and numbers("one-half") == [("one-half", None)]
    assert value("#### 18 apples", ["apple"]) == 18 and numbers("once, twice") == []  # not number words
    assert value("The answer is 18, a dozen-free pair.") is None  # `dozen` stands whole before `-`


def test_a_number_with_too_many_digits_is_no_number():
    assert extract_answer(f"#### {'9' * (MAX_DIGITS + 1)}") is None


@pytest.mark.parametrize("text", [
    "\\frac{" + " " * 100_000, "\\frac{1}{" + " " * 100_000, "\\frac{" + "\n" * 100_000, "####\n" * 40_000,
    "1 " * 100_000, "- " * 100_000, "minus " * 30_000, "1,111" * 40_000, "<answer>" * 30_000, "\\boxed{" * 30_000,
    "9" * 200_000, "#### " + "9" * 100_000 + "/" + "7" * 100_000, "-(" * 50_000,
    # the numerals, words and markers of the one-answer rule
    "\u00b2" * 100_000, "\u00bd1" * 50_000, "one-" * 30_000, "twenty " * 20_000, "a " * 100_000, "a1" * 50_000,
    "\uff4f\uff4e\uff45" * 30_000, "o\u0301" * 50_000, "\ufb01" * 100_000, "t\u200b" * 50_000, "-\u00a0" * 50_000,
    "".join(map(chr, range(0x100, 0x100 + 60_000))), "\\boxed{" * 20_000 + "18" + "}" * 20_000,
    "\\boxed{18}" * 10_000, "\\boxed{}" * 20_000, "\\boxed {" * 20_000, "{" * 100_000, "}" * 100_000,
    "#### 18\n" * 10_000, "####\n\n" * 30_000, "#### twenty\n" * 10_000, "<answer>18</answer>" * 10_000,
    "x" * 100_000 + "\n18",
    # under the 50,000 characters that are read: nested boxes (each one's text is checked), answer statements
    "\\boxed{" * 6_000 + "18" + "}" * 6_000, "the answer is " * 3_500 + "18", "Answer: 18 " * 4_000, "#### " + "(" * 49_000,
    # the context of markers, labels, siunitx (issue 73)
    "*" * 24_000 + "\\boxed{18}" + "*" * 24_000, "**\\boxed{18}** " * 2_500, "so " * 16_000 + "the answer is 18",
    "\\SI{" * 10_000, "\\SI{1}{" * 6_000, "$" * 49_000 + "\\boxed{18}", "~" * 49_000 + "18", "x = " * 12_000 + "18",
    "\\text{a}" * 6_000 + "\\boxed{18}", "Twice " * 8_000 + "the answer is 18.", "\\boxed{18}^" * 4_000,
    # issue 99: statements as answers, equation chains, prose and math delimiters looked past, hedges
    "The answer is " + "1 = " * 12_000 + "18.", "1+" * 24_000 + "= \\boxed{18}", "The answer is 18. " * 2_700,
    "$\\boxed{18}$ " * 3_500, "\\text{}" * 6_000 + "\\boxed{18}", "\\boxed{18}" + "\\text{}" * 6_000,
    "\\boxed{18}. not" + " " * 49_000 + "x", "#### 1." + " " * 49_000 + "x", "= " * 24_000 + "\\boxed{18}",
    "\\boxed{18}=" * 4_000, "The answer is \\boxed{18}. " * 1_700, "or " * 16_000 + "\\boxed{18}",
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
                                   "#### 10 - 5", "<answer>It is 18, not 17</answer>"])
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


def test_the_default_tolerance_is_never_coarser_than_the_expected_decimals_last_place():
    """1e-6 relative was 0.012 on 12345.67: a wrong cent matched (an attack, 2026-11-27).  Half a unit of the last
    place bounds it; a task's own tolerance is taken as given."""
    assert not answers_match(Fraction("12345.68"), "12345.67")
    assert not answers_match(Fraction("123456.9"), "123456.78")
    assert answers_match(Fraction("12345.67"), "12345.67") and answers_match(Fraction("12345.670001"), "12345.67")
    assert answers_match(Fraction(1, 3), "0.333333")  # 3.3e-7 from it: within half of 1e-6
    assert not answers_match(Fraction("0.33333"), "0.333333")
    assert answers_match(Fraction("12345.68"), "12345.67", tolerance=1e-3)  # the task's own: as given


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


# ---- properties: one reply, one unambiguous answer ---------------------------------------------------

FAST = settings(max_examples=200, deadline=None)
KINDS = ("####", "boxed", "fbox", "<answer>")


def mark(kind: str, inside: str) -> str:
    """`inside` as the text of a marker of that kind (a #### line ends at its line end)."""
    return {"####": f"#### {inside}\n", "boxed": f"\\boxed{{{inside}}}", "fbox": f"\\fbox{{{inside}}}",
            "<answer>": f"<answer>{inside}</answer>"}[kind]


@st.composite
def real_numbers(draw) -> tuple[str, Fraction]:
    """One ordinary number with a value, as a reply writes it: (text, value)."""
    n = draw(st.integers(0, 10**7))
    small = draw(st.integers(1, 99))
    form = draw(st.sampled_from(["int", "commas", "dollars", "percent", "decimal", "fraction", "latex", "mixed",
                                 "negative", "minus word", "negative dollars"]))
    if form == "int":
        return str(n), Fraction(n)
    if form == "commas":
        return f"{n:,}", Fraction(n)
    if form == "dollars":
        return f"${n:,}.50", n + Fraction(1, 2)
    if form == "percent":
        return f"{small}%", Fraction(small)
    if form == "decimal":
        return f"{n}.25", n + Fraction(1, 4)
    if form == "fraction":
        return f"{small}/{small + 1}", Fraction(small, small + 1)
    if form == "latex":
        return f"\\frac{{{small}}}{{{small + 1}}}", Fraction(small, small + 1)
    if form == "mixed":
        return f"{n} 1/2", n + Fraction(1, 2)
    if form == "negative":
        return f"-{n}", Fraction(-n)
    if form == "minus word":
        return f"minus {n}", Fraction(-n)
    return f"-${n}", Fraction(-n)


ORDINALS = ["first", "second", "third", "fourth", "fifth", "eighth", "twelfth", "thirteenth", "twentieth",
            "ninetieth", "hundredth", "thousandth", "millionth", "billionth", "thirds", "halves"]
NO_VALUE = ["18k", "2.5M", "2 million", "3 thousand", "2 dozen", "2^10", "\\sqrt{324}", "0x12", "1_000", "1e3",
            "12e3", "9" * (MAX_DIGITS + 1), "x2", "v1.5", "1.2.3", "cm^2", "\\text{cm}^{2}"]
unicode_numerals = st.characters(categories=["Nd", "Nl", "No"], exclude_characters="0123456789")
number_words = st.one_of(st.sampled_from(sorted(NUMBER_WORDS)), st.sampled_from(ORDINALS),
                         st.builds("{}-{}".format, st.sampled_from(["twenty", "thirty", "ninety"]),
                                   st.sampled_from(["one", "five", "ninth"])))
cased_words = st.tuples(number_words, st.sampled_from([str.lower, str.upper, str.title])).map(lambda p: p[1](p[0]))
# every class of the definition: a Unicode numeral, a number with no value, a number word (ordinals too)
hidden_numbers = st.one_of(st.text(unicode_numerals, min_size=1, max_size=3), st.sampled_from(NO_VALUE),
                           cased_words, st.sampled_from(ORDINALS))
separators = st.sampled_from(["", " ", ", ", " or ", " (", "; not ", " = ", "/"])
words = st.lists(st.sampled_from(["apples", "The", "answer", "is", "total", "so", "she", "pays", "cups", "left"]),
                 max_size=4).map(" ".join)
# what a marker may hold before its number (a label) and after it (units): the allow-list
labels = st.sampled_from(["", "The answer is", "So the answer is", "Answer:", "**Answer:**", "x =", "Final answer:"])
units = st.sampled_from(["", "cm", "dollars", "km/h", "kg", "cups", "hours", "\\text{ cm}", "\\mathrm{kg}", "%"])


def glue(a: str, sep: str, b: str) -> str:
    """`a`, `sep`, `b`; a space for no separator between two letters (a word glued to a word is no whole word)."""
    return a + (" " if not sep and a[-1:].isalpha() and b[:1].isalpha() else sep) + b


@st.composite
def hiding_markers(draw) -> str:
    """A marked answer with one real number and a hidden one before, after or around it."""
    real, _ = draw(real_numbers())
    hidden = draw(hidden_numbers)
    place = draw(st.sampled_from(["before", "after", "around"]))
    sep = draw(separators)
    inside = {"before": glue(hidden, sep, real), "after": glue(real, sep, hidden),
              "around": glue(glue(hidden, sep, real), sep, draw(hidden_numbers))}[place]
    lead = draw(st.sampled_from(["", "3 + 15 = 18.\n", "We add the two amounts.\n\n"]))
    return lead + mark(draw(st.sampled_from(KINDS)), inside)


@FAST
@given(hiding_markers())
def test_a_marked_answer_hiding_another_number_is_no_answer(reply):
    assert extract_answer(reply) is None


@FAST
@given(st.sampled_from(KINDS), st.sampled_from(KINDS), real_numbers(), real_numbers(), words)
def test_two_markers_with_different_values_are_no_answer(kind_a, kind_b, a, b, between):
    if a[1] == b[1]:
        b = (f"{b[0]} 1/2" if b[1].denominator == 1 and b[1] >= 0 else "7/13", None)
    reply = mark(kind_a, a[0]) + f"\n{between}\n" + mark(kind_b, b[0])
    assert extract_answer(reply) is None


@FAST
@given(st.lists(st.sampled_from(KINDS), min_size=1, max_size=4), real_numbers(), words)
def test_markers_with_equal_values_are_the_answer(kinds, number, between):
    text, want = number
    reply = f" {between}\n".join(mark(kind, text) for kind in kinds)  # words touching a marker make it an operand
    assert value(reply) == want
    # the same value written another way agrees too
    assert value(reply + f"\n\\boxed{{{want.numerator}/{want.denominator}}}") == want


@FAST
@given(real_numbers(), st.one_of(real_numbers().map(lambda p: p[0]), hidden_numbers), words,
       st.sampled_from([", ", " or ", " = ", "; then ", " + "]), st.booleans())
def test_without_a_marker_a_last_line_with_two_numbers_is_no_answer(real, other, lead, sep, other_first):
    line = f"{other}{sep}{real[0]}" if other_first else f"{real[0]}{sep}{other}"
    assert extract_answer(f"She had 5 apples and ate 2.\n{lead} {line}.") is None


@FAST
@given(real_numbers(), labels, units, st.sampled_from(["none", "####", "boxed", "<answer>"]))
def test_ordinary_replies_read_the_right_value(number, before, after, how):
    text, want = number
    work = "Natalia sold 48/2 = 24 clips in May.\nShe sold 48 + 24 = 72 clips.\n"
    if how == "none":
        reply = f"{work}{before} {text} {after}."
    else:
        reply = work + mark("####" if how == "####" else how, f"{text}" if how == "####" else f"{before} {text}")
    assert value(reply) == want


# ---- hand-written replies: GSM8K-style work that must keep its answer ---------------------------------


@pytest.mark.parametrize("reply, want", [
    ("Natalia sold 48/2 = <<48/2=24>>24 clips in May.\nNatalia sold 48+24 = <<48+24=72>>72 clips altogether in "
     "April and May.\n#### 72", 72),
    ("Weng earns 12/60 = $0.2 per minute.\nWorking 50 minutes, she earned 0.2 x 50 = $10.\n#### 10", 10),
    ("Betty has only 100 / 2 = $50.\nHer grandparents gave her 15 * 2 = $30.\nShe needs 100 - 50 - 30 - 15 = $5 "
     "more.\n#### $5", 5),
    ("The first step: 3 * 6 = 18.\nThe second: 18 - 4 = 14.\n#### 14", 14),  # number words outside the marker
    ("Step 1: 1/4 of 12 is 3.\nSo the answer is \\boxed{3}.", 3),
    ("<reasoning>3 bags of 6 is 18, not 17.</reasoning>\n<answer>\n18\n</answer>", 18),
    ("She pays $1,200.50 in total.\n\n**Answer:** $1,200.50", Fraction(240100, 200)),
    ("The temperature fell 5 degrees from 2.\nThe answer is -3.", -3),
    ("It went down by 7 degrees.\n#### minus 7", -7),
    ("1 1/2 cups per batch, 2 batches.\nTotal: 3 cups\n#### 3", 3),
    ("The discount is 25%.\nSo the final answer is 25%.", 25),
    ("So the answer is $\\boxed{\\dfrac{5}{12}}$.", Fraction(5, 12)),
    ("x = 18\n\n#### 18\n", 18),
    ("#### Step 1\n5 + 13 = 18\n#### Step 2\nCheck it.\n#### 18", 18),
    ("They have 1,234 marbles.\n#### 1,234", 1234),
    ("The answer is 18 apples.", 18),
])
def test_ordinary_gsm8k_style_replies_keep_their_answer(reply, want):
    assert value(reply, ["apples"]) == want
    assert judge_answer(request(reply, str(want.numerator if isinstance(want, Fraction) and want.denominator == 1
                                           else want), words=["apples"])).passed


def test_seconds_is_a_unit_and_second_an_ordinal():
    assert extract_answer("#### 45 seconds").value == 45
    assert extract_answer("#### 18 per second") is None


# ---- the whitelist: a marker holds one number and nothing the reader does not understand ------------------


@pytest.mark.parametrize("inside", [
    "**-**18", "-   18", "-{18}", "\\text{-}18", "\u279618", "\u02d718", "\u207b18", "+18",  # signs cut off or unknown
    "\\pm 18", "\u00b118", "\\mp 18",
    "\\sqrt{18}", "\u221a18", "\\log 18", "\\sin(18)", "18!", "|18|", "\\lfloor 18.5 \\rfloor", "\\overline{18}",
    "18 k", "18 K", "18 M", "18 bn", "18 lakh", "18 crore", "18 Mio", "18 Mrd", "18 milliard", "18 grand", "18i",
    "(18)", "[18]", "\\{18\\}", "\\left(18\\right)", "\\frac{18}{x}", "18/x", "\\cfrac{18}{1}",
    "> 18", "\\geq 18", "\u226418", "\\neq 18", "more than 18", "at least 18", "not 18", "18 \u4e07", "18 \u263a",
])
def test_a_marker_with_anything_outside_the_whitelist_is_no_answer(inside):
    # (each was read as 18 before: the reader dropped what it did not know)
    for reply in (f"#### {inside}", f"\\boxed{{{inside}}}", f"<answer>{inside}</answer>", f"So it is {inside}"):
        assert extract_answer(reply) is None, reply


@pytest.mark.parametrize("inside, want", [
    ("18 apples", 18), ("18 km/h", 18), ("x = 18", 18), ("**18**", 18), ("\\$18", 18), ("\u20ac18", 18),
    ("18\u00b0", 18), ("\\text{18 cm}", 18), ("18 (apples)", 18), ("-18", -18), ("\u221218", -18), ("- $18", -18),
    ("\\mathbf{-18}", -18), ("`18`", 18), ("{18}", 18), ("\\textbf{18}", 18),
])
def test_a_marker_with_only_whitelisted_text_reads_its_number(inside, want):
    for reply in (f"#### {inside}", f"\\boxed{{{inside}}}", f"<answer>{inside}</answer>"):
        assert value(reply, ["apple"]) == want, reply


def test_brace_matching_honours_escapes():
    # (an escaped brace closed the box: `\boxed{17 \} 18}` read 17)
    assert extract_answer("\\boxed{17 \\} 18}") is None
    assert extract_answer("\\boxed{\\{17\\} 18}") is None
    assert value("\\boxed{\\text{\\{}18}") is None and value("\\boxed{{18}}") == 18


# ---- hedges: every stated answer counts -------------------------------------------------------------


@pytest.mark.parametrize("reply", [
    "#### Answer: 17\n\\boxed{18}", "#### x = 17\n#### 18", "#### Total 17 apples\n#### 18",  # headings with a number
    "\\boxed 17 so \\boxed{18}", "\\boxed{18} \\fbox 1",  # a box with no brace
    "<ANSWER>17</ANSWER>\n<answer>18</answer>", "< answer >17</answer> <answer>18</answer>",  # tags in any case
    "The answer is 17.\n#### 18", "Final answer: 17\n\nActually, the answer is 18.",  # answer statements
    "**Answer:** 17\n\\boxed{18}", "My answer is 17 or 18.\n#### 18",
    "#### 17\n" + "x" * 50_000 + "\n#### 18",  # a part no reader reads
])
def test_a_reply_with_two_stated_answers_is_no_answer(reply):
    # (each was 18)
    assert extract_answer(reply) is None


def test_stated_answers_that_agree_and_step_headings_keep_the_answer():
    assert value("So the answer is 18.\n#### 18") == 18 and value("The answer is $18.00.\n\\boxed{18}") == 18
    assert value("#### Step 1: add\n5 + 13 = 18\n#### Part 2. check\n#### 18") == 18
    assert value("#### Final Answer\n\\boxed{18}") == 18 and value("The answer is the total.\n#### 18") == 18
    assert value("\\boxed {18}") == 18 and value("<Answer>18</Answer>") == 18


# ---- a marker in its context (issue 73): an operand of anything but blank space, punctuation or delimiters --
from tests.sandbox.answer_replies import (  # noqa: E402
    CLEAN_CONTEXTS,
    MATH_MODES,
    OPERANDS_AFTER,
    OPERANDS_BEFORE,
    REFUSED,
    UNIT_SPELLINGS,
)

_MARKERS = {"boxed": "\\boxed{{{}}}", "fbox": "\\fbox{{{}}}", "answer": "<answer>{}</answer>"}


def test_a_marker_that_is_an_operand_is_no_answer():
    """Generated: every operand shape, each side, touching or not, in and out of every math mode, around every
    marker kind.  Before: each read 18 (a marker was read only inside itself)."""
    read = []
    for kind, form in _MARKERS.items():
        marker = form.format(18)
        for (opening, closing), gap in itertools.product(MATH_MODES, ["", " "]):
            for what in OPERANDS_BEFORE:
                read += [r for r in [f"So {opening}{what}{gap}{marker}{closing}\n"] if value(r) is not None]
            for what in OPERANDS_AFTER:
                read += [r for r in [f"So {opening}{marker}{gap}{what}{closing}\n"] if value(r) is not None]
    for what, gap in itertools.product(OPERANDS_BEFORE + ["x", "so"], ["", " "]):
        read += [r for r in [f"Work.\n{what}{gap}#### 18"] if value(r) is not None]
    assert read == []


@pytest.mark.parametrize("opening", ["Twice", "Half of", "3 more than", "Not", "The square of", "About", "2 times",
                                     "One less than", "Double", "It is not true that"])
def test_a_statement_whose_sentence_makes_its_number_an_operand_is_no_answer(opening):
    assert value(f"Work.\n{opening} the answer is 18.") is None
    assert value(f"Work.\n{opening} the answer is 18.\n#### 18") is None


@pytest.mark.parametrize("opening", ["", "So", "Thus,", "I think", "We get that", "So, in conclusion,",
                                     "This means that", "Therefore"])
def test_a_statement_opened_by_discourse_words_reads_its_number(opening):
    assert value(f"Work.\n{opening} the final answer is 18.") == 18
    assert value(f"Work.\n{opening} the answer is 18.\n#### 18") == 18


def test_a_marker_in_a_context_that_leaves_it_no_operand_reads_its_number():
    for kind, form in _MARKERS.items():
        for context in CLEAN_CONTEXTS:
            if kind == "answer" and any(d in context for d in ("$", "\\[", "\\(")):
                continue
            reply = "Work.\n" + context.format(m=form.format(18))
            assert value(reply) == 18, reply
    assert value("So the answer is \\boxed{18}.") == 18 and value("<answer>\\boxed{18}</answer>") == 18
    assert value("Thus, the final answer is 18.") == 18 and value("\\boxed{\\boxed{18}}") == 18


# ---- words by allow-list: units and the task's counted noun, never a refused word --------------------------
@pytest.mark.parametrize("word", REFUSED)
def test_a_refused_word_is_no_answer_even_when_the_question_uses_it_or_the_metadata_names_it(word):
    question = f"Question: Ana has {word} 18 apples. How many?\n"
    for inner in (f"{word} 18", f"18 {word}"):
        for form in ("#### {}", "\\boxed{{{}}}", "<answer>{}</answer>", "The answer is {}."):
            assert value(question + form.format(inner), ["apples", *word.split()]) is None, (word, inner, form)


def test_a_word_of_the_question_is_no_answer_unless_the_metadata_counts_it():
    reply = "Question: How many clips are left?\n#### 18 clips"
    assert value(reply) is None and value(reply, ["clips"]) == 18 and value(reply, ["clip"]) == 18
    assert value("#### 18 clip", ["clips"]) == 18 and value("#### 18 boxes", ["box"]) == 18
    assert value("#### 18 more", ["more"]) is None  # metadata naming a refused word adds nothing
    assert judge_answer(request("#### 18 clips", words=("clips",))).passed
    assert not judge_answer(request("#### 18 clips")).passed


@pytest.mark.parametrize("spelled", UNIT_SPELLINGS)
def test_every_latex_spelling_of_an_admitted_unit_reads_the_number(spelled):
    text = spelled.format(n=18)
    for form in ("#### {}", "\\boxed{{{}}}", "<answer>{}</answer>", "The answer is {}."):
        assert value("Work.\n" + form.format(text)) == 18, form.format(text)


def test_the_generated_set_gives_its_counted_noun_and_the_judge_uses_it():
    from coderl.tasks.generators.math_gen import MathConfig, generate_math

    tasks = generate_math(MathConfig(n=40, seed=3), "train")
    counted = [t for t in tasks if t.metadata["counted"] and t.metadata["counted"][0] not in ("dollars",)]
    assert counted
    task = counted[0]
    noun = task.metadata["counted"][0]
    reply = f"Work.\n#### {task.metadata['answer']} {noun}"
    assert task.build_request(reply).answer_words == (noun,) and value(reply) is None
    assert judge_answer(task.build_request(reply)).passed


@pytest.mark.parametrize("reply, value", [
    ("I will write the final answer after ####.\nStep: 3+4=7\n#### 7", 7),
    ("Answer format: \\boxed{}. So 3+4 = 7.\nThe answer is \\boxed{7}.", 7),
    ("We put it in \\boxed{...}: \\boxed{7}", 7),
    ("Format: <answer></answer>\nSo 9 - 2 = 7.\n<answer>7</answer>", 7),
    ("The answer goes in \\boxed{...} at the end.\nSo 6 - 1 = 5.\nThe answer is 5.", 5),  # no marker left: the last line
    ("Put it in \\boxed{}.\n\\boxed{6} or #### 7", None),  # the markers that hold numbers still disagree
    ("\\boxed{}", None), ("The answer is 18.\n#### ", None),  # nothing else to read: the last line holds no number
    ("\\boxed 17 so \\boxed{18}", None),  # a box with no brace is no format named
    ("\\boxed{18}\n\\boxed{}", 18), ("#### 18\n####", 18), ("\\boxed{\\ldots} then \\boxed{18}", 18),
    # a marker that holds text, a letter or a symbol is read, and takes the answer back (found by a review)
    ("\\boxed{18}\n\nWait, actually no such number exists: \\boxed{\\text{none}}", None),
    ("#### 18\n\nHmm, on reflection the answer is \\boxed{n}.", None),
    ("The answer is \\boxed{18}. Or perhaps \\boxed{\\infty}.", None),
    ("<answer>18</answer>\n<answer>infinitely many</answer>", None),
    ("\\boxed{18}\n\\boxed{\\emptyset}", None), ("\\boxed{18}\n\\boxed{C}", None), ("\\boxed{\\text{none}}", None),
    # a template's blanks and words name the format too; `?` after an answer takes it back (a second review)
    ("\\boxed{answer} ... \\boxed{18}", 18), ("<answer>your answer</answer>\nSo 18.\n<answer>18</answer>", 18),
    ("\\boxed{\\quad} then \\boxed{18}", 18), ("#### [number]\nwork\n#### 18", 18), ("\\boxed{___} then \\boxed{18}", 18),
    ("\\boxed{18}\n\\boxed{?}", None), ("#### 18\n#### ?", None), ("\\boxed{N}\n\\boxed{18}", None),
])
def test_a_marker_that_holds_only_a_placeholder_names_the_format_and_is_not_read(reply, value):
    """Found by an attack (2026-11-27): a reply naming its marker format before answering got no answer, where
    GSM8K's and MATH's own readers and Math-Verify read the final answer."""
    found = extract_answer(reply)
    assert (None if found is None else found.value) == (None if value is None else Fraction(value)), found


# ---- issue 99: the answer sentences of the common graders' formats; hedges ---------------------------------------


def test_an_answer_statement_is_the_answer_of_a_reply_without_markers():
    """lm-eval's gsm8k-cot strict match ("The answer is N.") and Minerva's "Final Answer: The final answer is X. I hope
    it is correct." read these; before, each failed with "no final answer" (the last line held the working, or words
    that are no unit)."""
    for reply, want in (("She sold 72 clips. The answer is 72.", 72), ("The answer is 72.\nHope this helps!", 72),
                        ("Work.\nFinal Answer: The final answer is $18$. I hope it is correct.", 18),
                        ("**Final Answer:** The final answer is $\\frac{3}{4}$. I hope it is correct.", Fraction(3, 4)),
                        ("So she has 3 + 15 = 18 apples. The answer is 18.", 18), ("The answer is 3 + 15 = 18.", 18)):
        assert value(reply) == want, reply
    for reply in ("The answer is 18.\nWait, 20.", "The answer is 17, 3 = 18.", "Twice the answer is 18.",
                  "The answer is 18.\n#### ", "- the answer is 18."):
        assert extract_answer(reply) is None, reply


def test_working_in_the_answer_sentence_before_its_box():
    # (was None: the statement held the working's numbers)
    for reply in ("Therefore, the answer is $6 \\times 3 = \\boxed{18}$.", "The answer is $3 + 15 = \\boxed{18}$ apples.",
                  "The answer is \\boxed{18} apples in total.", "#### 18. Let me know if anything is unclear."):
        assert value(reply) == 18, reply
    for reply in ("The answer is 17 and x = \\boxed{18}.", "The answer is 17, \\boxed{18}.",
                  "around $78 = \\boxed{18}$.", "The answer is approximately $6 \\times 3 = \\boxed{18}$."):
        assert extract_answer(reply) is None, reply


def test_text_right_after_a_box_is_read():
    """Before, each read 18: a prose command or a math delimiter beside a box was read as if what it held, or what
    followed it, were absent; a refused word that is no qualifier (`fold`, `nicht`) was allowed beside it."""
    for reply in ("\\boxed{18}\\text{ or more}", "\\text{at least }\\boxed{18}", "$\\boxed{18}$ or more",
                  "about $\\boxed{18}$", "\\boxed{18} fold", "nicht \\boxed{18}", "\\boxed{18}?", "$\\boxed{18}$?",
                  "\\boxed{18}\\text{, roughly}"):
        assert extract_answer(reply) is None, reply
    for reply in ("\\boxed{18}\\text{ apples}", "\\text{Total: }\\boxed{18}", "$\\boxed{18}$ apples.",
                  "\\boxed{18} is the final answer.", "\\boxed{18}. I hope it is correct.", "This gives \\boxed{18}."):
        assert value(reply, ["apples"]) == 18, reply


def test_a_hedge_in_the_answer_sentence_or_after_it_is_no_answer():
    # (each read 18 before)
    for reply in ("\\boxed{18}, or maybe more.", "\\boxed{18}. I am not sure.", "#### 18\nI'm not 100% sure though.",
                  "The answer is $\\boxed{18}$, give or take.", "Perhaps it is \\boxed{18}.",
                  "Final Answer: The final answer is $18$. I hope it is correct. But I might be wrong."):
        assert extract_answer(reply) is None, reply
    assert value("Perhaps we add them.\n3 + 15 = 18\n#### 18") == 18  # a hedge in the working, not the answer
