"""Prompt formats and code extraction: every extracted completion must make a program whose
entry point is the model's function (checked by running the trusted test snippets here)."""

import subprocess
import sys

import pytest

from coderl.rollout.formats import (
    COMPLETION_STOPS,
    FORMATS,
    cut_at_stop,
    extract_code,
    get_format,
    prompt_text,
)
from coderl.tasks.types import Task

# The texts the bundled model's numbers (RESULTS.md) were measured with: the language and kind records
# must render them byte for byte for Python tasks.
FUNCTION_INSTRUCTION = (
    "Complete the following Python function. "
    "Reply with the complete function in one ```python code block."
)
STDIO_INSTRUCTION = (
    "Solve the following problem with a complete Python program that reads its input from standard "
    "input and writes its answer to standard output. Reply with the program in one ```python code block."
)
REASONING_SYSTEM = (
    "You are an expert Python programmer. First think about the problem step by step inside "
    "<reasoning> and </reasoning> tags, then give your final answer inside <answer> and </answer> "
    "tags. The answer must contain the complete code in one ```python code block."
)

PROMPT = (
    "from typing import List\n\n\n"
    "def add(a: int, b: int) -> int:\n"
    '    """Return a + b.\n'
    "    >>> add(1, 2)\n"
    "    3\n"
    '    """\n'
)
TASK = Task("t/add", "function", PROMPT, (), entry_point="add")
STDIO = Task("t/echo", "stdio", "Read two integers and print their sum.", ())


def call_add(completion: str, *args):
    """Run the assembled program (trusted test code) and call its entry point."""
    namespace: dict = {}
    exec(compile(TASK.build_program(completion), "<program>", "exec"), namespace)  # noqa: S102 (trusted)
    return namespace["add"](*args)


# --- registry -------------------------------------------------------------------------------

def test_registry_names_and_lookup():
    assert set(FORMATS) == {"completion", "chat", "reasoning"}
    for name, fmt in FORMATS.items():
        assert fmt.name == name and get_format(name) is fmt
    with pytest.raises(ValueError, match="expected one of completion, chat, reasoning"):
        get_format("xml")


def test_formats_module_does_not_import_torch():
    code = "import sys, coderl.rollout, coderl.rollout.formats; print('torch' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


# --- completion format ----------------------------------------------------------------------

def test_completion_renders_the_prompt_verbatim():
    assert FORMATS["completion"].render(TASK, None) == PROMPT
    assert FORMATS["completion"].stop_sequences(TASK) == COMPLETION_STOPS


@pytest.mark.parametrize("stop", COMPLETION_STOPS)
def test_completion_cuts_at_each_stop_at_column_0(stop):
    body = "    s = a + b\n    return s"
    completion, ok = FORMATS["completion"].extract(TASK, body + stop + "tail(x)\n")
    assert completion == body and ok
    assert call_add(completion, 2, 3) == 5


def test_completion_keeps_indented_lookalikes_and_never_strips():
    body = "    # comment inside\n    def inner():\n        return a + b\n    return inner()\n"
    completion, _ = FORMATS["completion"].extract(TASK, body + "\n\ndef other():\n    pass\n")
    assert completion == body + "\n"  # "\n    # " and "\n    def " are not stops; indentation kept
    assert call_add(completion, 1, 1) == 2


def test_completion_earliest_stop_wins_and_crlf_tabs_are_normalised():
    out = "\treturn a + b\r\n\r\nprint(add(1, 2))\r\ndef f():\r\n"
    completion, _ = FORMATS["completion"].extract(TASK, out)
    assert completion == "    return a + b\n\n"  # cut before "\nprint(", whose "\n" ends "\r\n"
    assert call_add(completion, 4, 5) == 9


def test_completion_of_stdio_task_is_the_program_and_keeps_defs():
    rendered = FORMATS["completion"].render(STDIO, None)
    assert rendered.startswith('"""\nRead two integers') and rendered.endswith('"""\n')
    program = "def main():\n    print(sum(map(int, input().split())))\n\nif __name__ == '__main__':\n    main()\n"
    completion, _ = FORMATS["completion"].extract(STDIO, program + "```\n")
    assert STDIO.build_program(completion) == program[:-1]  # the stop "\n```" takes the last newline


def test_cut_at_stop():
    assert cut_at_stop("abc\ndef x", ["\ndef "]) == "abc"
    assert cut_at_stop("abc", ["\ndef "]) == "abc"
    assert cut_at_stop("a\n#b\nclass C", ["\nclass ", "\n#"]) == "a"


# --- chat format: rendering -----------------------------------------------------------------

def test_chat_message_has_instruction_and_fenced_prompt():
    (message,) = FORMATS["chat"].render(TASK, None)
    assert message["role"] == "user"
    assert message["content"] == f"{FUNCTION_INSTRUCTION}\n\n```python\n{PROMPT.rstrip()}\n```"
    (message,) = FORMATS["chat"].render(STDIO, None)
    assert message["content"].startswith(STDIO_INSTRUCTION) and "```" not in message["content"][-5:]


def test_chat_rendering_uses_the_chat_template():
    from tests.models.tiny import tiny_tokenizer

    tok = tiny_tokenizer()
    messages = FORMATS["chat"].render(TASK, tok)
    text = prompt_text(messages, tok)
    assert text == tok.apply_chat_template(messages, tokenize=False, add_generation_prompt=True)
    assert text.startswith("<|im_start|>user\n" + FUNCTION_INSTRUCTION)
    assert text.endswith("```<|im_end|>\n<|im_start|>assistant\n")
    system, user = FORMATS["reasoning"].render(TASK, tok)
    assert system == {"role": "system", "content": REASONING_SYSTEM} and user["role"] == "user"
    assert prompt_text("raw prompt", tok) == "raw prompt"
    with pytest.raises(ValueError, match="chat template"):
        FORMATS["chat"].render(TASK, tiny_tokenizer(chat_template=False))


# --- chat format: extraction ----------------------------------------------------------------

CHAT_CASES = {
    "fenced full function": (
        "Here you go:\n```python\ndef add(a: int, b: int) -> int:\n    return a + b\n```\nThis adds them.",
        "\ndef add(a: int, b: int) -> int:\n    return a + b\n", True),
    "py tag": ("```py\ndef add(a, b): return a + b\n```", "\ndef add(a, b): return a + b\n", True),
    "bare fence": ("```\ndef add(a, b):\n    return a + b\n```", "\ndef add(a, b):\n    return a + b\n", True),
    "unfenced code": ("def add(a, b):\n    return a + b\n", "\ndef add(a, b):\n    return a + b\n", False),
    "unfenced between prose": (
        "Sure! Here is the code:\n\ndef add(a, b):\n    return a + b\n\nThis function returns the sum.\n",
        "\ndef add(a, b):\n    return a + b\n", False),
    "indented body": ("```python\n    return a + b\n```", "    return a + b\n", True),
    "unindented body": ("```python\ns = a + b\nif s:\n    return s\nreturn 0\n```",
                        "    s = a + b\n    if s:\n        return s\n    return 0\n", True),
    "several blocks, entry point in the second": (
        ("Usage:\n```python\nprint(add(1, 2))\n```\nCode:\n```python\nimport math\n\ndef add(a, b):\n"
         "    return int(math.fsum([a, b]))\n```"),
        "\nimport math\n\ndef add(a, b):\n    return int(math.fsum([a, b]))\n", True),
    "several blocks, none defines it: the first": (
        "```python\nreturn a + b\n```\n```python\nreturn a - b\n```", "    return a + b\n", True),
    "non-python block skipped": ("```bash\npython x.py\n```\n```python\nreturn a + b\n```",
                                 "    return a + b\n", True),
    "helper before the entry point": (
        "```python\ndef helper(x):\n    return x\n\n\ndef add(a, b):\n    return helper(a) + b\n```",
        "\ndef helper(x):\n    return x\n\n\ndef add(a, b):\n    return helper(a) + b\n", True),
    "missing closing fence (truncated)": ("```python\ndef add(a, b):\n    return a + b\n",
                                          "\ndef add(a, b):\n    return a + b\n", False),
    "CRLF line endings": ("```python\r\ndef add(a, b):\r\n    s = a + b\r\n    return s\r\n```\r\n",
                          "\ndef add(a, b):\n    s = a + b\n    return s\n", True),
    "tab-indented function": ("```python\ndef add(a, b):\n\tif a:\n\t\treturn a + b\n\treturn b\n```",
                              "\ndef add(a, b):\n    if a:\n        return a + b\n    return b\n", True),
    "tab-indented body": ("```\n\ts = a + b\n\treturn s\n```", "    s = a + b\n    return s\n", True),
    "2-space body re-based onto the prompt's indent": (
        "```python\n  if a:\n    return a + b\n  return b\n```",
        "    if a:\n      return a + b\n    return b\n", True),
    "fence indented under a list item": (
        "1. The code:\n   ```python\n   def add(a, b):\n       return a + b\n   ```\n",
        "\ndef add(a, b):\n    return a + b\n", True),
    "async-free nested def is a body": (
        "```python\ndef inner():\n    return a + b\nreturn inner()\n```",
        "    def inner():\n        return a + b\n    return inner()\n", True),
}


@pytest.mark.parametrize("case", CHAT_CASES)
def test_chat_extraction(case):
    output, expected, fenced = CHAT_CASES[case]
    completion, ok = FORMATS["chat"].extract(TASK, output)
    assert completion == expected
    assert ok is fenced
    assert call_add(completion, 2, 3) == 5


def test_chat_full_function_overrides_the_stub_and_keeps_prompt_imports():
    completion, _ = FORMATS["chat"].extract(TASK, "```python\ndef add(a, b) -> int:\n    return List and a + b\n```")
    assert call_add(completion, 1, 2) == 3  # `List` comes from the prompt's import


def test_chat_prompt_without_trailing_newline_gets_one():
    task = Task("t/x", "function", 'def add(a, b):\n    """Sum."""', (), entry_point="add")
    completion, _ = FORMATS["chat"].extract(task, "```python\nreturn a + b\n```")
    assert completion == "\n    return a + b\n"
    namespace: dict = {}
    exec(task.build_program(completion), namespace)  # noqa: S102 (trusted test code)
    assert namespace["add"](1, 2) == 3


def test_chat_empty_reply_gives_empty_completion():
    assert FORMATS["chat"].extract(TASK, "") == ("", False)
    assert FORMATS["chat"].extract(TASK, "```python\n\n```") == ("", True)


def test_chat_stdio_completion_is_the_whole_program():
    program = "import sys\n\ndef main():\n    print(sum(map(int, sys.stdin.read().split())))\n\nmain()\n"
    out = "Solution:\n```python\n" + program + "```\nDone."
    completion, ok = FORMATS["chat"].extract(STDIO, out)
    assert ok and STDIO.build_program(completion) == program
    completion, _ = FORMATS["chat"].extract(STDIO, "```python\r\n\tx = 1\r\n\tprint(x)\r\n```")
    assert completion == "x = 1\nprint(x)\n"


def test_extract_code_prefers_entry_point_block_over_python_order():
    code, fenced = extract_code("```python\nx = 1\n```\n```python\ndef add(a, b): pass\n```", "add")
    assert code == "def add(a, b): pass" and fenced


# --- reasoning format -----------------------------------------------------------------------

def test_reasoning_takes_the_last_answer_and_checks_the_layout():
    out = ("<reasoning>First try:\n<answer>no</answer> is wrong.</reasoning>\n"
           "<answer>\n```python\ndef add(a, b):\n    return a + b\n```\n</answer>")
    completion, ok = FORMATS["reasoning"].extract(TASK, out)
    assert completion == "\ndef add(a, b):\n    return a + b\n"
    assert ok
    assert call_add(completion, 2, 2) == 4


@pytest.mark.parametrize("output", [
    "```python\ndef add(a, b):\n    return a + b\n```",                                   # no tags
    "<answer>\n```python\ndef add(a, b):\n    return a + b\n```\n</answer>",                # no reasoning
    "<reasoning>x</reasoning>\n<answer>\n```python\ndef add(a, b):\n    return a + b\n",   # truncated
    "<reasoning>x</reasoning><answer>```python\ndef add(a, b):\n    return a + b\n```</answer>\nmore",
])
def test_reasoning_off_format_outputs_still_extract_but_are_flagged(output):
    completion, ok = FORMATS["reasoning"].extract(TASK, output)
    assert not ok
    assert call_add(completion, 2, 3) == 5


def test_reasoning_unfenced_answer_body():
    out = "<reasoning>add them</reasoning>\n<answer>\n    return a + b\n</answer>"
    completion, ok = FORMATS["reasoning"].extract(TASK, out)
    assert ok and call_add(completion, 1, 4) == 5


# --- chat stop: the reply ends with its code block ----------------------------------------------

def test_chat_stops_at_the_closing_fence_and_keeps_the_block():
    from coderl.rollout.formats import CHAT_STOPS, cut_at_stop, first_stop

    fmt = FORMATS["chat"]
    assert fmt.stop_sequences(TASK) == CHAT_STOPS
    reply = "```python\ndef add(a, b):\n    return a + b\n```\n\nThis function adds two numbers."
    # The opening fence (with its language tag) never matches; the closing one does.
    stop_at = first_stop(reply, CHAT_STOPS)
    assert reply[:stop_at].endswith("return a + b")
    generated = reply[:stop_at + len(CHAT_STOPS[0])]  # what generation keeps: up to the stop's end
    extraction = fmt.extract(TASK, generated)
    assert extraction.format_ok
    assert "return a + b" in extraction.completion
    assert cut_at_stop(generated, CHAT_STOPS) + "\n```\n" == generated


@pytest.mark.parametrize("reply, kept", [
    # a bare opening fence after prose opens the block; its closing fence stops the reply
    ("Here is the code:\n```\ndef add(a, b):\n    return a + b\n```\nDone.", "    return a + b"),
    ("```py\nx = 1\n```\n\n```python\ny = 2\n```\n", "x = 1"),
    ("```python\ndef f():\n    pass\n```", None),  # the closing line is not complete yet: no stop
    ("```", None),  # "```" may still become "```python"
    ("no code at all\n", None),
])
def test_chat_stop_fires_only_on_a_fence_that_closes_a_block(reply, kept):
    from coderl.rollout.formats import CHAT_STOPS, first_stop

    at = first_stop(reply, CHAT_STOPS)
    if kept is None:
        assert at is None
    else:
        assert reply[:at].endswith(kept) and reply[at:].startswith("\n```\n")
