"""Math replies (`Mode.ANSWER`, judged in the parent): a marked answer that is an operand of what stands beside
it, and words beside the number that are no unit (issue 73).  Each hostile reply states a value other than the
expected one, in a shape the reader before read as the expected one; each legitimate reply states it with a
unit in one of its LaTeX spellings, or with the counted noun a generated task's metadata gives.
`before=` is the status at 827ca0c (the commit before these rules)."""

from __future__ import annotations

from . import Case

_ROW = {"question": "Ana has 3 bags of 6 apples. How many apples does she have?", "answer": "3 * 6 = 18\n#### 18"}


def _math(name: str, tag: str, completion: str, expect: str, before: str) -> Case:
    return Case(name=name, tag=tag, completion=completion, expect=expect, fmt="gsm8k", before=before,
                row={**_ROW, "id": f"corpus/{name}"})


CASES: list[Case] = [
    # the marked 18 is an operand: the reply's value is 324, 36, 6, ...
    _math("boxed_then_squared", "M.answer_operand", "3 * 6 = 18, squared:\n$\\boxed{18}^2$", "fail", "passed"),
    _math("digit_before_box", "M.answer_operand", "So the count is $2\\boxed{18}$.", "fail", "passed"),
    _math("root_of_box", "M.answer_operand", "The side is $\\sqrt{\\boxed{18}}$.", "fail", "passed"),
    _math("twice_the_answer", "M.answer_operand", "Work.\nTwice the answer is 18.", "fail", "passed"),
    _math("answer_block_times", "M.answer_operand", "<reasoning>3 * 6</reasoning>\n2*<answer>18</answer>", "fail",
          "passed"),
    # words that say the number is not the answer
    _math("about_eighteen", "M.answer_words", "Roughly.\n#### about 18", "fail", "passed"),
    _math("eighteen_more", "M.answer_words", "She gets more.\n\\boxed{18 more}", "fail", "passed"),
    _math("not_quite", "M.answer_words", "<answer>nearly 18 apples</answer>", "fail", "passed"),
    # units in their LaTeX spellings, and the counted noun of a generated task
    _math("degree_spelling", "C.answer_units", "The answer is $18^{\\circ}$.", "pass", "failed"),
    _math("textdollar_spelling", "C.answer_units", "\\boxed{\\textdollar 18}", "pass", "failed"),
    _math("text_unit", "C.answer_units", "#### 18\\,\\text{cm}", "pass", "passed"),
    Case(name="generated_counted_noun", tag="C.answer_units", completion="Work.\n#### 28 stickers", expect="pass",
         task_id="math/train/0001", before="passed"),
]
