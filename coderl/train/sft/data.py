"""SFT examples: (prompt ids, solution ids + end token) with the prompt masked out of the labels.

An example is tokenised in two pieces, never as one string:

    input_ids = prompt_ids(task)                                   # exactly what generation feeds the model
              + tokenizer(solution, add_special_tokens=False)      # the target the model should produce
              + [end]                                              # so the model learns to stop
    labels    = [-100] * len(prompt_ids) + the rest of input_ids

Tokenising `prompt + solution` as one string mislabels the boundary: byte-level BPE merges the
prompt's final "\\n" with the body's leading indentation ("\\n" + "    return" -> "\\n   " + " return"),
so the first "solution" token would contain prompt text and the ids would differ from what the model
sees at generation time, where the prompt is tokenised alone.  `prompt_ids` mirrors
`coderl.rollout.generation.generate` (a raw prompt gets the tokenizer's special tokens, a chat-templated one
none, the template wrote them) and a test holds the two equal.

The solution text per format (`solution_text`) is what a good reply looks like under that format's
extraction in `coderl.rollout.formats`:

* completion: `task.reference_solution` verbatim (a HumanEval body keeps its indentation).
* chat: one fenced block with the whole program, "```python\\n" + prompt + reference body + "```"
  (i.e. `task.build_program(reference_solution)`: imports, the signature, then the body; a stdio
  task's program is the reference itself) with the entry function's docstring cut out
  (`without_docstring`): the prompt already shows it, and a target that repeats it teaches replies
  longer than they need to be (measured: answers grew ~12% after SFT while it was kept).
  `get_format("chat").extract` turns it back into a completion whose program runs the reference code.
* math tasks (answers that are not code): the worked solution ending in "#### answer" (completion: after a
  space, continuing "Answer:"); reasoning: the worked steps inside <reasoning>, the answer alone inside
  <answer>.  These tasks do carry worked reasoning.
* reasoning: "<reasoning>\\n" + REASONING_PLACEHOLDER + "\\n</reasoning>\\n<answer>\\n" + the chat
  reply + "\\n</answer>".  The tasks carry no worked reasoning, so SFT teaches only the layout; a
  fixed one-line placeholder is honest about that (RL is what fills the reasoning in).

Every kept example is checked to survive its format's extraction (`target_round_trips`: extract,
re-assemble, parse); the ones that do not are listed and warned about (a bare `def f(x):` prompt with
no body, under chat/reasoning), not silently trained on.

The end token (`end_token`): completion -> the tokenizer's EOS.  chat/reasoning -> the chat template's
end-of-turn token (ChatML: `<|im_end|>`), found by rendering an assistant message with the template
and taking the first token after its content, provided generation stops on it (it is among the ids
`coderl.rollout.hf` stops on: the generation config's EOS ids and the tokenizer's EOS).  If the
template's end-of-turn is not a stop id, the tokenizer's EOS is used instead, so that what the model
learns to emit is what ends generation.

Data: an agent's trajectories (a JSONL file of chat `messages`: `conversations.py`, the replies trained, the
observations masked), or a task spec whose tasks carry reference solutions (`humaneval`, `mbpp:PATH`, `synthetic:...`,
...; tasks without one are skipped and counted) or a JSONL file of {"prompt", "completion"} pairs
(detected by those two fields in the first row; each row becomes a function task whose reference is
the completion; every row is checked, errors are one line `file:LINE: field 'NAME' ...`).
"""

from __future__ import annotations

import ast
import os
import re
from dataclasses import dataclass, field
from typing import Any

from coderl.base.config import ConfigError
from coderl.languages import get_language
from coderl.rollout.formats import get_format, prompt_text
from coderl.tasks import Task, TaskFormatError, load_tasks
from coderl.tasks.kinds import get_kind
from coderl.tasks.rows import first_row, iter_jsonl, require
from coderl.train.sft.conversations import Conversation, is_conversation_file, load_conversations, tokenize_conversation

IGNORE_INDEX = -100  # label of a position that does not contribute to the loss (torch's cross_entropy default)
REASONING_PLACEHOLDER = "The reference implementation follows."
PAIR_FIELDS = ("prompt", "completion")
_DEF = re.compile(r"^[ \t]*(?:async[ \t]+)?def[ \t]+([A-Za-z_]\w*)[ \t]*\(", re.MULTILINE)


# ---------------------------------------------------------------------------------------------
# data sources


def is_pairs_file(data: str) -> bool:
    """True iff `data` is an existing JSONL file whose first row has both "prompt" and "completion"."""
    if not os.path.isfile(data):
        return False
    _, row = first_row(data)
    return set(PAIR_FIELDS) <= row.keys()


def load_pairs(path: str) -> list[Task]:
    """Every row of a {"prompt", "completion"} JSONL as a function task (reference = completion).

    An optional "task_id" (string or integer) names the row, else `file:LINE`.  The entry point is
    the last `def NAME(` in the prompt (so the chat extraction can re-assemble a whole function).
    """
    tasks = []
    for lineno, row in iter_jsonl(path):
        where = f"{path}:{lineno}"
        prompt = require(row, "prompt", str, where)
        if not prompt:
            raise TaskFormatError(f"{where}: field 'prompt' is empty")
        completion = require(row, "completion", str, where)
        if not completion.strip():
            raise TaskFormatError(f"{where}: field 'completion' is empty")
        task_id = str(require(row, "task_id", (str, int), where)) if "task_id" in row else where
        names = _DEF.findall(prompt)
        tasks.append(Task(task_id=task_id, kind="function", prompt=prompt, tests=(),
                          entry_point=names[-1] if names else None, reference_solution=completion,
                          source=where, metadata={"format": "pairs"}))
    if not tasks:
        raise TaskFormatError(f"{path}: no rows (the file is empty)")
    return tasks


def load_sft_tasks(data: str, split: str, seed: int) -> tuple[list, dict]:
    """(tasks, description) of `--data`.  `split`/`seed` choose the tasks of a task spec; a pairs file is
    used whole (it has no held-out part to protect)."""
    if is_pairs_file(data):
        tasks = load_pairs(data)
        return tasks, {"spec": data, "kind": "pairs", "num_tasks": len(tasks)}
    if is_conversation_file(data):  # an agent's trajectories: trained on its replies only (`conversations.py`)
        conversations = load_conversations(data)
        return conversations, {"spec": data, "kind": "conversations", "num_tasks": len(conversations)}
    try:
        taskset = load_tasks(data, split=split, seed=seed)
    except ValueError as exc:
        if isinstance(exc, TaskFormatError):
            raise
        raise ConfigError(f"--data {data}: {exc}") from None
    return taskset.tasks, {**taskset.describe(), "kind": "tasks"}


# ---------------------------------------------------------------------------------------------
# text and tokens


def without_docstring(program: str, name: str | None) -> str:
    """`program` with the docstring of its top-level function `name` cut out, every other line kept
    verbatim.  Unchanged when there is no such function, no docstring, the docstring shares a line
    with other code, or it is the whole body."""
    if not name:
        return program
    try:
        tree = ast.parse(program)
    except SyntaxError:
        return program
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == name:
            first = node.body[0]
            if not (isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant)
                    and isinstance(first.value.value, str)) or len(node.body) == 1:
                return program
            lines = program.splitlines(keepends=True)
            start, end = first.lineno - 1, first.end_lineno        # 0-based [start, end)
            # ast column offsets count UTF-8 bytes, not characters
            if (lines[start].encode()[:first.col_offset].strip()
                    or lines[end - 1].encode()[first.end_col_offset:].strip()):
                return program
            return "".join(lines[:start] + lines[end:])
    return program


def solution_text(task: Task, format: str) -> str:
    """The target text of `task` under `format` (see the module docstring); never stripped."""
    reference = task.reference_solution
    if reference is None:
        raise ValueError(f"task {task.task_id} has no reference solution")
    if not get_kind(task.kind).answer_is_code:
        # A math target: the worked solution ending in `#### answer` (completion: after a space, continuing
        # "Answer:"); reasoning: the worked steps as the reasoning, the answer alone in <answer>.
        worked, _, answer = reference.rpartition("####")
        texts = {"completion": " " + reference, "chat": reference,
                 "reasoning": f"<reasoning>\n{worked.strip() or REASONING_PLACEHOLDER}\n</reasoning>\n<answer>\n"
                              f"{answer.strip()}\n</answer>"}
    elif format == "completion":
        return reference
    else:
        program = task.build_program(reference)
        if task.language == "python":  # the prompt shows the docstring already
            program = without_docstring(program, task.entry_point)
        reply = (f"```{get_language(task.language).fence_tag}\n" + program + ("" if program.endswith("\n") else "\n")
                 + "```")
        texts = {"chat": reply,
                 "reasoning": f"<reasoning>\n{REASONING_PLACEHOLDER}\n</reasoning>\n<answer>\n{reply}\n</answer>"}
    if format not in texts:
        get_format(format)  # raises the one-line error for an unknown name
        raise ValueError(f"format {format!r}: no SFT solution text defined")
    return texts[format]


def prompt_ids(task: Task, format: str, tokenizer: Any) -> list[int]:
    """The prompt's token ids exactly as `coderl.rollout.generation.generate` builds them: a raw prompt gets
    the tokenizer's special tokens (e.g. BOS), a chat-templated one none (the template wrote them)."""
    rendered = get_format(format).render(task, tokenizer)
    text = prompt_text(rendered, tokenizer)
    return tokenizer(text, add_special_tokens=isinstance(rendered, str))["input_ids"]


_PROBE = "coderl-sft-probe"


def end_token(tokenizer: Any, format: str, stop_ids: list[int]) -> tuple[int, str]:
    """(id, why) of the token appended after every solution (see the module docstring)."""
    eos = tokenizer.eos_token_id
    if format != "completion":
        messages = [{"role": "user", "content": "x"}, {"role": "assistant", "content": _PROBE}]
        try:
            rendered = tokenizer.apply_chat_template(messages, tokenize=False)
        except Exception:  # a template that refuses this conversation: fall back to EOS below
            rendered = ""
        if _PROBE in rendered:
            after = rendered.rsplit(_PROBE, 1)[1]
            ids = tokenizer(after, add_special_tokens=False)["input_ids"] if after else []
            if ids and ids[0] in stop_ids:
                return ids[0], f"{tokenizer.convert_ids_to_tokens(ids[0])} (the chat template's end of turn)"
    if eos is None:
        raise ConfigError("the tokenizer has no EOS token: SFT cannot teach the model to stop")
    return eos, f"{tokenizer.convert_ids_to_tokens(eos)} (the tokenizer's EOS)"


@dataclass(frozen=True)
class Example:
    """One tokenised training example; positions < prompt_length are masked out of the loss."""

    task_id: str
    input_ids: tuple[int, ...]  # prompt ids + solution ids + end id
    prompt_length: int
    label_ids: tuple[int, ...] | None = None  # a conversation's labels, set per token (`conversations.py`)

    @property
    def labels(self) -> list[int]:
        if self.label_ids is not None:
            return list(self.label_ids)
        return [IGNORE_INDEX] * self.prompt_length + list(self.input_ids[self.prompt_length:])


def tokenize_example(task: Task, format: str, tokenizer: Any, end_id: int) -> Example:
    prompt = prompt_ids(task, format, tokenizer)
    if not prompt:
        raise ConfigError(f"task {task.task_id}: the prompt is empty (nothing to condition on)")
    solution = tokenizer(solution_text(task, format), add_special_tokens=False)["input_ids"]
    return Example(task.task_id, tuple(prompt) + tuple(solution) + (end_id,), len(prompt))


@dataclass
class Examples:
    """The examples kept, and the task ids skipped with the reason."""

    examples: list[Example]
    too_long: list[str] = field(default_factory=list)  # prompt + solution + end > max_length
    no_reference: list[str] = field(default_factory=list)  # tasks without a reference solution
    # kept, but the format's extraction does not turn the target back into a program that parses
    # (e.g. chat with a prompt that is a bare `def f(x):` header: see `target_round_trips`)
    unextractable: list[str] = field(default_factory=list)


def target_round_trips(task: Task, format: str) -> bool:
    """Whether `get_format(format).extract` turns the target back into a completion whose program parses.

    False for a chat/reasoning target of a prompt without a body (a bare `def f(x):` header): the
    extraction re-assembles a whole-function reply as prompt + "\n" + function, and a header with no
    body followed by another `def` is a SyntaxError.  The target stays what a good reply looks like;
    the caller reports these tasks so the mismatch is seen rather than trained on silently.
    """
    completion = get_format(format).extract(task, solution_text(task, format)).completion
    return get_language(task.language).parses(task.build_program(completion))


def build_examples(tasks: list[Task], format: str, tokenizer: Any, end_id: int, max_length: int) -> Examples:
    """Tokenise every task; longer-than-`max_length` examples are skipped and listed, never truncated."""
    out = Examples([])
    for task in tasks:
        if task.reference_solution is None or not task.reference_solution.strip():
            out.no_reference.append(task.task_id)
            continue
        example = tokenize_example(task, format, tokenizer, end_id)
        if len(example.input_ids) > max_length:
            out.too_long.append(task.task_id)
            continue
        out.examples.append(example)
        if not target_round_trips(task, format):
            out.unextractable.append(task.task_id)
    return out


def build_conversation_examples(conversations: list[Conversation], tokenizer: Any, end_id: int,
                                max_length: int) -> Examples:
    """`data.Examples` of conversations: longer-than-`max_length` ones skipped and listed, never truncated."""
    out = Examples([])
    for conversation in conversations:
        ids, labels = tokenize_conversation(conversation, tokenizer, end_id)
        if len(ids) > max_length:
            out.too_long.append(conversation.task_id)
            continue
        out.examples.append(Example(conversation.task_id, tuple(ids), 0, tuple(labels)))
    return out


def collate(examples: list[Example], pad_id: int):
    """Right-padded ([B, T] input_ids, [B, T] attention_mask, [B, T] labels); labels -100 on padding."""
    import torch
    from torch.nn.utils.rnn import pad_sequence

    ids = [torch.tensor(e.input_ids, dtype=torch.long) for e in examples]
    labels = [torch.tensor(e.labels, dtype=torch.long) for e in examples]
    return (pad_sequence(ids, batch_first=True, padding_value=pad_id),
            pad_sequence([torch.ones_like(t) for t in ids], batch_first=True),
            pad_sequence(labels, batch_first=True, padding_value=IGNORE_INDEX))
