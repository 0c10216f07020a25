"""SDPO's teacher prompts (`--self-distill W`; docs/training.md; the teacher's pass: `train/rl/self_teacher.py`; the
loss: `coderl.algorithms.self_distill`).

Every failed row of a step (not an infrastructure failure, not a canary) is run once more in the sandbox on its
task's visible tests only (`coderl.tasks.visibility.split_tests`, as repair turns split them: a hidden test's
arguments never reach a message), and the result becomes a feedback message (`coderl.rollout.feedback`, capped at
--feedback-tokens).  The row's teacher prompt is its chat prompt with that message appended to the user's turn
(then the task's reply opening, if any); the teacher is the policy itself at the step's start, scoring the row's
own completion tokens under that prompt without a graph.  A row gets no teacher when it passed, is excluded (an
infrastructure failure, a canary, a completion the overlong filter leaves out of the loss), its task has no visible
tests, it passes its visible tests (it failed hidden ones only: nothing to show, as a repair episode ends there), its
visible-test run failed in the sandbox, or its teacher prompt is longer than `room` tokens.

    prompts = teacher_prompts(sandbox, limits, tokenizer, row_tasks, samples, passed, excluded, feedback_tokens=256,
                              room=1024 - 128)                                 # per row: ids or None
"""

from __future__ import annotations

from collections.abc import Sequence

from coderl.rollout.feedback import feedback_message, warn_unless_isolated
from coderl.rollout.formats import get_format, prompt_text
from coderl.sandbox.types import Status
from coderl.tasks.types import Task
from coderl.tasks.visibility import split_tests

FEEDBACK_INTRO = "\n\nAn earlier answer to this got the following feedback.\n\n"


def teacher_text(task: Task, tokenizer, feedback: str) -> str:
    """The text of a row's teacher prompt: its chat prompt with `feedback` after the user's message, then the task's
    reply opening."""
    rendered = get_format("chat").render(task, tokenizer)
    last = rendered[-1]
    messages = [*rendered[:-1], {**last, "content": last["content"] + FEEDBACK_INTRO + feedback}]
    return prompt_text(messages, tokenizer) + task.opening


def teacher_prompts(sandbox, limits, tokenizer, tasks: Sequence[Task], samples, passed: Sequence[bool],
                    excluded: Sequence[bool], *, feedback_tokens: int, room: int) -> list[list[int] | None]:
    """Per row (its task in `tasks`, its `Sample`), the token ids of its teacher prompt, or None (the module's
    rules).  Under isolation other than `full` a warning: the row's hidden-test run could leave the hidden arguments
    in /tmp, where its visible-test run (the feedback) reads them, as in repair episodes."""
    warn_unless_isolated(sandbox, "--self-distill")
    splits: dict[str, tuple] = {}
    futures = {}
    for i, (task, sample) in enumerate(zip(tasks, samples, strict=True)):
        if passed[i] or excluded[i]:
            continue
        if task.task_id not in splits:
            splits[task.task_id] = split_tests(task).visible
        visible = splits[task.task_id]
        if visible:
            futures[i] = sandbox.submit(task.with_tests(visible).build_request(sample.completion, limits))

    def count_tokens(text: str) -> int:
        return len(tokenizer(text, add_special_tokens=False)["input_ids"])

    out: list[list[int] | None] = [None] * len(samples)
    for i, future in futures.items():
        task, result = tasks[i], future.result()
        if result.passed or result.status is Status.SANDBOX_ERROR:
            continue
        message = feedback_message(task, splits[task.task_id], result, count_tokens=count_tokens,
                                   max_tokens=feedback_tokens)
        ids = tokenizer(teacher_text(task, tokenizer, message), add_special_tokens=False)["input_ids"]
        out[i] = ids if len(ids) <= room else None
    return out
