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

`context="solution"` (`--self-distill-context solution`: SDPO's successful rollouts as the teacher's demonstration,
and for a group where every row failed the task's reference, as OPSD/SDFT condition on a demonstration) puts a
correct program before the feedback: the first row of the same group that passed, else the task's reference (the
pool's references are decontaminated against every evaluation set, as PrefixRL's prefixes are). Then every failed
row that is not excluded gets a teacher when there is a program to show, with the feedback when there is some.

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
SOLUTION_INTRO = "\n\nA correct solution to this:\n\n"


def teacher_text(task: Task, tokenizer, feedback: str = "", solution: str = "") -> str:
    """The text of a row's teacher prompt: its chat prompt with `solution` (a correct program, fenced) and then
    `feedback` after the user's message, each only when given, then the task's reply opening."""
    extra = ""
    if solution:
        extra += f"{SOLUTION_INTRO}```{task.language}\n{solution.rstrip()}\n```"
    if feedback:
        extra += FEEDBACK_INTRO + feedback
    rendered = get_format("chat").render(task, tokenizer)
    last = rendered[-1]
    messages = [*rendered[:-1], {**last, "content": last["content"] + extra}]
    return prompt_text(messages, tokenizer) + task.opening


def shown_solutions(tasks: Sequence[Task], samples, passed: Sequence[bool], groups: Sequence[int]) -> list[str]:
    """Per row, the correct program its teacher is shown under `context="solution"`: the first row of its group
    that passed (its program as it ran), else its task's reference as a program, else "" (a task without one)."""
    first_pass: dict[int, int] = {}
    for i, (ok, g) in enumerate(zip(passed, groups, strict=True)):
        if ok:
            first_pass.setdefault(g, i)
    out = []
    for task, g in zip(tasks, groups, strict=True):
        if g in first_pass:
            out.append(task.build_program(samples[first_pass[g]].completion))
        else:
            out.append(task.build_program(task.reference_solution) if task.reference_solution else "")
    return out


def teacher_prompts(sandbox, limits, tokenizer, tasks: Sequence[Task], samples, passed: Sequence[bool],
                    excluded: Sequence[bool], *, feedback_tokens: int, room: int, context: str = "feedback",
                    groups: Sequence[int] | None = None) -> list[list[int] | None]:
    """Per row (its task in `tasks`, its `Sample`; `groups`: its group id, needed by `context="solution"`), the
    token ids of its teacher prompt, or None (the module's rules).  Under isolation other than `full` a warning:
    the row's hidden-test run could leave the hidden arguments in /tmp, where its visible-test run (the feedback)
    reads them, as in repair episodes."""
    warn_unless_isolated(sandbox, "--self-distill")
    solutions = (shown_solutions(tasks, samples, passed, groups) if context == "solution"
                 else [""] * len(samples))
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

    messages = {}
    for i, future in futures.items():
        task, result = tasks[i], future.result()
        if not (result.passed or result.status is Status.SANDBOX_ERROR):
            messages[i] = feedback_message(task, splits[task.task_id], result, count_tokens=count_tokens,
                                           max_tokens=feedback_tokens)
    out: list[list[int] | None] = [None] * len(samples)
    for i, task in enumerate(tasks):
        if passed[i] or excluded[i] or not (i in messages or solutions[i]):
            continue
        ids = tokenizer(teacher_text(task, tokenizer, messages.get(i, ""), solutions[i]),
                        add_special_tokens=False)["input_ids"]
        out[i] = ids if len(ids) <= room else None
    return out
