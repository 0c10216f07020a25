"""Prompt formats on math tasks: the reply's text is the completion (no code block is looked for), each
format's stops and layout check, and SFT targets that the judge passes after extraction."""

from __future__ import annotations

import pytest

from coderl.rollout.formats import CHAT_STOPS, get_format, prompt_text
from coderl.sandbox.answers import judge_answer
from coderl.tasks.math_tasks import REASONING_SYSTEM, math_task
from coderl.train.sft.data import solution_text, target_round_trips
from tests.models.tiny import tiny_tokenizer

TASK = math_task("m/1", "Sam has 3 bags of 6 apples. How many apples does Sam have?", "18",
                 "Sam has 3 * 6 = 18 apples.")


def passes(fmt: str, output: str) -> bool:
    completion = get_format(fmt).extract(TASK, output).completion
    return judge_answer(TASK.build_request(completion)).passed


def test_chat_renders_the_math_instruction_and_keeps_the_whole_reply():
    messages = get_format("chat").render(TASK, tiny_tokenizer())
    assert messages[0]["content"].startswith("Solve the following math problem step by step.")
    assert TASK.prompt in messages[0]["content"] and "```" not in messages[0]["content"]
    reply = "Here is a check:\n```python\nprint(3 * 6)\n```\nSo 3 * 6 = 18.\n#### 18"
    assert get_format("chat").extract(TASK, reply).completion == reply
    assert passes("chat", reply)


def test_chat_has_no_closing_fence_stop_for_math():
    # a worked answer may show a code block before its answer; the code tasks' stop would cut it there
    assert get_format("chat").stop_sequences(TASK) == ()
    from coderl.tasks.loaders.easy import load_easy

    assert get_format("chat").stop_sequences(load_easy()[0]) == CHAT_STOPS


@pytest.mark.parametrize("reply, marked", [("3 * 6 = 18\n#### 18", True), ("So \\boxed{18}.", True),
                                           ("The answer is 18.", False), ("no idea", False)])
def test_chat_format_ok_means_a_marked_final_answer(reply, marked):
    assert get_format("chat").extract(TASK, reply).format_ok is marked


def test_reasoning_uses_the_kinds_system_prompt_and_reads_the_answer_block():
    messages = get_format("reasoning").render(TASK, tiny_tokenizer())
    assert messages[0] == {"role": "system", "content": REASONING_SYSTEM}
    good = "<reasoning>3 bags of 6 is 18, not 17.</reasoning>\n<answer>18</answer>"
    extraction = get_format("reasoning").extract(TASK, good)
    assert extraction.format_ok and extraction.completion == "<answer>18</answer>" and passes("reasoning", good)
    # the answer block decides, not the last number of the reply
    assert not passes("reasoning", "<reasoning>maybe 18</reasoning><answer>17</answer> (18?)")
    # the answer block holds one number, as the system prompt asks: a hedge is no answer
    assert not passes("reasoning", "<reasoning>3 * 6</reasoning><answer>17 or 18</answer>")
    loose = get_format("reasoning").extract(TASK, "I think it is 18")
    assert not loose.format_ok and loose.completion == "I think it is 18"


def test_completion_renders_question_answer_and_stops_at_the_next_question():
    rendered = get_format("completion").render(TASK, None)
    assert rendered == f"Question: {TASK.prompt}\nAnswer:"
    stops = get_format("completion").stop_sequences(TASK)
    assert stops == ("\nQuestion:",)
    output = " 3 * 6 = 18.\n#### 18\nQuestion: Ann has 4 pens. How many? #### 4"
    assert get_format("completion").extract(TASK, output).completion == " 3 * 6 = 18.\n#### 18"
    assert passes("completion", output)


@pytest.mark.parametrize("fmt", ["completion", "chat", "reasoning"])
def test_sft_targets_are_worked_solutions_that_pass_after_extraction(fmt):
    target = solution_text(TASK, fmt)
    assert "3 * 6 = 18" in target and target_round_trips(TASK, fmt)
    assert passes(fmt, target)
    if fmt == "reasoning":
        assert target.endswith("<answer>\n18\n</answer>") and get_format(fmt).extract(TASK, target).format_ok


def test_the_chat_prompt_renders_through_the_template():
    tok = tiny_tokenizer()
    text = prompt_text(get_format("chat").render(TASK, tok), tok)
    assert text.startswith("<|im_start|>user\nSolve the following math problem") and text.endswith("assistant\n")
