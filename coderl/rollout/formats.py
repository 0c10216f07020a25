"""Prompt formats: how a task becomes the model's prompt, and how its output becomes a completion.

A format renders a task (`render(task, tokenizer)` -> text, or chat messages that `prompt_text`
turns into text with the tokenizer's chat template) and extracts the completion from the model's
output (`extract(task, output)` -> `Extraction(completion, format_ok)`), such that
`task.build_program(completion)` is the program the sandbox runs.  `stop_sequences(task)` are the
default stop strings generation uses with it.  Registered by name in `FORMATS`:

* `completion`: the model continues `task.prompt` verbatim (base-model HumanEval convention); the
  output is cut at the first stop sequence at column 0 (`\\ndef `, `\\nclass `, ...).
* `chat`: one user message (instruction + the prompt in a ```python fence), rendered with the chat
  template; the code is taken from the fenced block and re-assembled with the task's prompt.  The
  reply stops where its first code block closes (`ClosingFence`): the instruction asks for one
  block, and what follows it is prose the sandbox never sees (~40% of the tokens of the bundled
  model's 390 baseline replies).
* `reasoning`: a system prompt asks for `<reasoning>...</reasoning><answer>...</answer>`; the code
  is taken from the last `<answer>` block, then extracted and re-assembled as in `chat`.

Kinds whose answer is not code (`TaskKind.answer_is_code` False: math) keep the reply's text: `chat`
takes the whole reply (no closing-fence stop; `format_ok` when the final answer is marked with `####`,
`\\boxed{}` or `<answer>`), `reasoning` the reply from its last `<answer>` on (which the judge reads as a
marked answer: one number) under the kind's own system prompt, and
`completion` the continuation of "Question: ...\\nAnswer:" up to the next "\\nQuestion:" (the
language's prose header and stops).  The judge reads the final answer from that text.

Everything here is indentation-safe: a body is never `.strip()`ed or `.lstrip()`ed; line endings
become `\\n`, and tabs in indentation become 4 spaces (a tab-indented body after the prompt's
space-indented docstring is a `TabError`).  This module does not import torch.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, NamedTuple

from coderl.languages import PYTHON, Language, get_language
from coderl.tasks.kinds import get_kind
from coderl.tasks.types import Task

Messages = list[dict[str, str]]
Rendered = str | Messages

# The completion format's stops are the language's (Python: HumanEval's, each at column 0, plus a
# closing fence); COMPLETION_STOPS stays the Python ones' name.
COMPLETION_STOPS = PYTHON.completion_stops


class ClosingFence(str):
    """The stop `\n```\n` where it closes an open code block: fence lines (``` at the start of a
    complete line) alternate between opening (with or without a language tag) and closing, so a bare
    ``` after prose ("Here is the code:\n```\n...") opens a block and never stops the reply.  Only
    complete lines count: "```" still waiting for its "python" is not a fence yet."""

    def find_in(self, text: str) -> int:
        at, _, _ = self.scan(text)
        return -1 if at is None else at

    @staticmethod
    def scan(text: str, inside: bool = False) -> tuple[int | None, bool, int]:
        """(where the closing fence's newline is, or None; whether a block is open after the last complete
        line; where the text after it starts) for `text` read from a line start with `inside` open or not.
        Generation resumes here with the state of the lines it has read (`hf_callbacks.StopOnText`); the
        index is -1 when a resumed text starts with the closing fence line."""
        start = 0
        while (end := text.find("\n", start)) >= 0:
            line = text[start:end].strip()
            if line.startswith("```"):
                if inside and line == "```":
                    return start - 1, inside, start  # the newline before the closing fence
                inside = True  # an opening fence (a tagged fence inside a block changes nothing)
            start = end + 1
        return None, inside, start


# Chat replies end with their first code block (or the end-of-turn token).
CHAT_STOPS = (ClosingFence("\n```\n"),)

REASONING_SYSTEM = (
    "You are an expert {language} programmer. First think about the problem step by step inside "
    "<reasoning> and </reasoning> tags, then give your final answer inside <answer> and </answer> "
    "tags. The answer must contain the complete code in one ```{tag} code block."
)

_REASONING_LAYOUT = re.compile(r"\s*<reasoning>.*?</reasoning>\s*<answer>.*?</answer>\s*", re.DOTALL)
_ANSWER = re.compile(r"<answer>(.*?)(?:</answer>|\Z)", re.DOTALL)
# A line that opens like an English sentence ("Here is", "This function"), a markdown bold
# heading, or a numbered list item; only called prose if it also does not compile as Python.
_PROSE_START = re.compile(r"([A-Z][a-z']*[,:;.!?]?[ \t]+[A-Za-z]|\*\*|\d+\.[ \t]+[A-Za-z])")


class Extraction(NamedTuple):
    """What `extract` returns."""

    completion: str  # `task.build_program(completion)` is the program
    format_ok: bool  # the output followed the format's layout (a fenced block; the reasoning tags)


@dataclass(frozen=True)
class Format:
    """A prompt format: render a task, extract a completion, default stop sequences."""

    name: str
    render: Callable[[Task, Any], Rendered]  # (task, tokenizer) -> prompt text or chat messages
    extract: Callable[[Task, str], Extraction]  # (task, decoded model output) -> completion
    stop_sequences: Callable[[Task], tuple[str, ...]]  # default stop strings for this task


# ---------------------------------------------------------------------------------------------
# text helpers


def first_stop(text: str, stops: tuple[str, ...] | list[str]) -> int | None:
    """Index where the earliest occurrence of any stop sequence starts, or None."""
    found = [i for i in (s.find_in(text) if isinstance(s, ClosingFence) else text.find(s) for s in stops if s)
             if i >= 0]
    return min(found) if found else None


def cut_at_stop(text: str, stops: tuple[str, ...] | list[str]) -> str:
    """`text` up to (not including) its first stop sequence."""
    i = first_stop(text, stops)
    return text if i is None else text[:i]


def _indent_unit(prompt: str) -> str:
    """Indentation of the prompt's last non-blank line (the docstring's close) or 4 spaces."""
    for line in reversed(prompt.splitlines()):
        if line.strip():
            indent = line[: len(line) - len(line.lstrip(" \t"))]
            return indent or "    "
    return "    "


def _normalize(code: str, *, tabs: bool = True, first_is_line_start: bool = True) -> str:
    """`\\r\\n`/`\\r` -> `\\n`; with `tabs`, tabs in each line's indentation -> 4-column stops."""
    code = code.replace("\r\n", "\n").replace("\r", "\n")
    if not tabs or "\t" not in code:
        return code
    lines = code.split("\n")
    for i, line in enumerate(lines):
        if i == 0 and not first_is_line_start:
            continue
        body = line.lstrip(" \t")
        lines[i] = line[: len(line) - len(body)].expandtabs(4) + body
    return "\n".join(lines)


def _is_prose(line: str) -> bool:
    """An unindented line that reads like English and is not Python (not even a block header)."""
    if not line or line[0].isspace() or not _PROSE_START.match(line):
        return False
    return not (PYTHON.parses(line) or PYTHON.parses(line + "\n    pass"))


def _unfenced_code(text: str) -> str:
    """Code from a reply without a fence: all of it if it parses, else the lines after any leading
    prose up to the next line of prose."""
    if PYTHON.parses(text):
        return text
    lines = text.split("\n")
    start = 0
    while start < len(lines) and (not lines[start].strip() or _is_prose(lines[start])):
        start += 1
    end = start
    while end < len(lines) and not _is_prose(lines[end]):
        end += 1
    return "\n".join(lines[start:end])


def _fenced_blocks(text: str) -> list[tuple[str, str, bool]]:
    """(language tag, code, closed) of every ``` block; an unclosed block runs to the end (a
    truncated reply).  A fence indented (e.g. under a list item) has that indentation removed from
    its lines."""
    blocks = []
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        stripped = lines[i].lstrip(" ")
        if not stripped.startswith("```"):
            i += 1
            continue
        indent = lines[i][: len(lines[i]) - len(stripped)]
        tag = stripped[3:].strip().lower()
        body, i, closed = [], i + 1, False
        while i < len(lines):
            if lines[i].strip() == "```":
                closed, i = True, i + 1
                break
            line = lines[i]
            body.append(line[len(indent):] if indent and line.startswith(indent) else line)
            i += 1
        blocks.append((tag, "\n".join(body), closed))
    return blocks


def extract_code(text: str, entry_point: str | None = None, language: Language = PYTHON) -> tuple[str, bool]:
    """(code, fenced) from a chat reply: the ```python / ```py / ``` block (of several, the first
    that defines `entry_point`, else the first Python one, else the first); without a fence, the
    whole reply if it parses, else the code between the prose.  `fenced` is True iff a closed
    block was found."""
    text = _normalize(text, tabs=False)
    blocks = _fenced_blocks(text)
    if not blocks:
        return _unfenced_code(text), False
    python = [b for b in blocks if b[0] in language.fence_tags] or blocks
    chosen = next((b for b in python if entry_point and language.defines(b[1], entry_point, False)), python[0])
    return chosen[1], chosen[2]


def _rebase(code: str, old: str, new: str) -> str:
    """Replace the leading `old` indentation by `new` on every non-blank line that starts with it."""
    return "\n".join(
        new + line[len(old):] if line.strip() and line.startswith(old) else line for line in code.split("\n")
    )


def assemble(task: Task, code: str) -> str:
    """The completion that makes `task.build_program(completion)` run the model's code.

    Function tasks: if the code defines `def <entry_point>(` (at column 0 once common indentation is
    removed), the completion is `"\\n" + code`: the prompt's stub (its docstring is a valid body)
    is then redefined by the model's function, with the code's imports and helpers kept.  Otherwise
    the code is a body; it is re-indented so its first line sits at the prompt's body indentation
    (4 spaces unless the prompt says otherwise), relative indentation kept.
    stdio tasks: the code is the whole program.
    """
    language = get_language(task.language)
    unit = _indent_unit(task.prompt) if get_kind(task.kind).prompt_is_code else "    "
    code = _normalize(code, tabs="\t" not in unit).rstrip()
    if not code.strip():
        return ""
    lines = [line for line in code.split("\n") if line.strip()]
    common = min(len(line) - len(line.lstrip(" \t")) for line in lines)
    if not get_kind(task.kind).prompt_is_code:
        return _rebase(code, lines[0][:common], "") + "\n"
    dedented = _rebase(code, lines[0][:common], "")
    if task.entry_point and language.defines(dedented, task.entry_point, True):
        # A prompt that ends in a bare header (`def f(x):` with no docstring) needs a body before the
        # redefinition, or the program cannot compile.
        stub = "" if language.parses(task.prompt) else unit + language.placeholder_body + "\n"
        return stub + "\n" + dedented + "\n"
    first = lines[0][: len(lines[0]) - len(lines[0].lstrip(" \t"))]
    sep = "" if task.prompt.endswith("\n") or not task.prompt else "\n"
    return sep + _rebase(code, first, unit) + "\n"


# ---------------------------------------------------------------------------------------------
# formats


def _completion_render(task: Task, tokenizer: Any) -> str:
    if get_kind(task.kind).prompt_is_code:
        return task.prompt
    # A stdio task's prompt is a prose statement, not code to continue: the language's leading comment
    # (a module docstring in Python).
    return get_language(task.language).prose_header(task.prompt)


def _completion_stops(task: Task) -> tuple[str, ...]:
    # A stdio program legitimately defines functions and has `if __name__` / top-level prints.
    kind = get_kind(task.kind)
    if kind.prompt_is_code or not kind.answer_is_code:
        return get_language(task.language).completion_stops
    return ("\n```",)


def _completion_extract(task: Task, output: str) -> Extraction:
    continues_line = bool(task.prompt) and not task.prompt.endswith("\n") and get_kind(task.kind).prompt_is_code
    text = _normalize(cut_at_stop(output, _completion_stops(task)), first_is_line_start=not continues_line,
                      tabs="\t" not in _indent_unit(task.prompt))
    return Extraction(text, True)


def instruction(task: Task) -> str:
    """The chat instruction of the task's kind, naming the task's language and its fence tag."""
    language = get_language(task.language)
    return get_kind(task.kind).instruction.format(language=language.display, tag=language.fence_tag)


def user_message(task: Task) -> str:
    """The instruction and the task, as the one user message of the chat formats."""
    if get_kind(task.kind).prompt_is_code:
        return f"{instruction(task)}\n\n```{get_language(task.language).fence_tag}\n{task.prompt.rstrip()}\n```"
    return f"{instruction(task)}\n\n{task.prompt.rstrip()}"


def _require_template(tokenizer: Any, name: str) -> None:
    if tokenizer is not None and not getattr(tokenizer, "chat_template", None):
        raise ValueError(f"format '{name}' needs a tokenizer with a chat template (this one has none); "
                         "use format='completion'")


def _chat_render(task: Task, tokenizer: Any) -> Messages:
    _require_template(tokenizer, "chat")
    return [{"role": "user", "content": user_message(task)}]


def _marked_answer(text: str, words: tuple[str, ...] = ()) -> bool:
    """A final answer marked as one (`#### 18`, `\\boxed{18}`), not only the reply's last number or an answer
    statement (`The answer is 18.`); `words`: the task's counted nouns (`math_tasks.answer_words`)."""
    from coderl.sandbox.answers import counted_words, extract_answer

    found = extract_answer(text, counted_words(words))
    return found is not None and found.rule not in ("last number", "the answer is")


def _chat_extract(task: Task, output: str) -> Extraction:
    if not get_kind(task.kind).answer_is_code:
        from coderl.tasks.math_tasks import answer_words

        text = _normalize(output, tabs=False)
        return Extraction(text, _marked_answer(text, answer_words(task)))
    code, fenced = extract_code(output, task.entry_point, get_language(task.language))
    return Extraction(assemble(task, code), fenced)


def _reasoning_render(task: Task, tokenizer: Any) -> Messages:
    _require_template(tokenizer, "reasoning")
    language = get_language(task.language)
    system = get_kind(task.kind).reasoning_system or REASONING_SYSTEM
    system = system.format(language=language.display, tag=language.fence_tag)
    return [{"role": "system", "content": system}, {"role": "user", "content": user_message(task)}]


def _reasoning_extract(task: Task, output: str) -> Extraction:
    answers = _ANSWER.findall(output)
    # Without an <answer>, the code may still be in the reply (after the reasoning, if any).
    answer = answers[-1] if answers else output.rsplit("</reasoning>", 1)[-1]
    layout_ok = _REASONING_LAYOUT.fullmatch(output) is not None
    if not get_kind(task.kind).answer_is_code:
        # From the last <answer> on, tag included: the judge reads the block as a marked answer (one number)
        at = output.rfind("<answer>")
        return Extraction(_normalize(output[at:] if at >= 0 else answer, tabs=False), layout_ok)
    code, _ = extract_code(answer, task.entry_point, get_language(task.language))
    return Extraction(assemble(task, code), layout_ok)


def _no_stops(task: Task) -> tuple[str, ...]:
    return ()  # reasoning replies end with the template's end-of-turn token (EOS)


def _chat_stops(task: Task) -> tuple[str, ...]:
    if not get_kind(task.kind).answer_is_code:
        return ()  # a worked answer may show code blocks; it ends with the end-of-turn token (EOS)
    return CHAT_STOPS  # or the end-of-turn token (EOS), whichever comes first


FORMATS: dict[str, Format] = {
    f.name: f
    for f in (
        Format("completion", _completion_render, _completion_extract, _completion_stops),
        Format("chat", _chat_render, _chat_extract, _chat_stops),
        Format("reasoning", _reasoning_render, _reasoning_extract, _no_stops),
    )
}


def get_format(name: str) -> Format:
    try:
        return FORMATS[name]
    except KeyError:
        raise ValueError(f"format {name!r}: expected one of {', '.join(FORMATS)}") from None


def prompt_text(rendered: Rendered, tokenizer: Any) -> str:
    """The exact text fed to the model: a string as is, chat messages through the chat template
    with the assistant's generation prompt appended."""
    if isinstance(rendered, str):
        return rendered
    return tokenizer.apply_chat_template(rendered, tokenize=False, add_generation_prompt=True)
