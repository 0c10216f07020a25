"""Math word problems with verifiable answers: `Task(kind="math", language="math")`.

A math task's one test holds its final answer; the reply is judged on the one final answer it states
(`coderl.sandbox.answers`: every `####` line, `\\boxed{}` and `<answer>` block must hold exactly one number
and all must agree, else the last non-empty line must hold exactly one; exact for integers and fractions,
a tolerance for decimals).  Nothing runs: the request is `Mode.ANSWER`.

    math_task(...)       one task from a question, its answer and a worked solution
    load_gsm8k(PATH)     GSM8K's JSONL layout: {"question": ..., "answer": "<worked solution>\\n#### 72"}
                         (the optional `id`/`task_id` names a row; GSM8K's `<<48/2=24>>` calculator
                         notes are dropped from the worked solution)

The generated set is `coderl.tasks.generators.math_gen` (task spec `math`).  The reference solution (what `coderl
check --reference` checks, and SFT's target) is the worked solution ending in `#### <answer>`.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any

from coderl.sandbox.types import CheckKind, ExecutionRequest, Limits, Mode, TestCase
from coderl.tasks.kinds import TaskKind, register_kind
from coderl.tasks.rows import Rows, TaskIds, jsonl_rows, require
from coderl.tasks.types import Task, TaskFormatError

REASONING_SYSTEM = (
    "You are a careful mathematician. First think about the problem step by step inside <reasoning> and "
    "</reasoning> tags, then give your final answer inside <answer> and </answer> tags. The answer must be a "
    "single number."
)
_CALCULATOR_NOTE = re.compile(r"<<[^<>]*>>")


def answer_words(task: Task) -> tuple[str, ...]:
    """The words a final answer may carry besides units: the counted noun the task's metadata gives (generated
    rows: `counted`); none for a file's rows, whose question's words are never taken as such."""
    counted = task.metadata.get("counted") or ()
    return tuple(w for w in counted if isinstance(w, str))


def _answer_request(task: Task, completion: str, limits: Limits, tests: tuple) -> ExecutionRequest:
    return ExecutionRequest(mode=Mode.ANSWER, program=completion, tests=tests, limits=limits,
                            float_tolerance=task.float_tolerance, compile_error=None, answer_words=answer_words(task))


MATH = register_kind(TaskKind(
    name="math", prompt_is_code=False, answer_is_code=False,
    instruction="Solve the following math problem step by step. Then write the final answer, a number alone, "
                "on the last line as '#### <number>'.",
    reasoning_system=REASONING_SYSTEM,
    build_program=lambda task, completion: completion,
    build_request=_answer_request,
))


def canonical_answer(text: str, where: str = "answer") -> str:
    """The expected answer as one plain number (`1,000` -> `1000`, `$18` -> `18`, `\\frac{3}{4}` -> `3/4`);
    a one-line `TaskFormatError` naming `where` when `text` is not exactly one number."""
    from coderl.sandbox.answers import numbers

    found = numbers(text)
    if len(found) != 1 or found[0][1] is None:
        raise TaskFormatError(f"{where}: expected one number as the final answer, got {text.strip()[:80]!r}")
    return re.sub(r"[\s,]", "", found[0][0])


def math_task(task_id: str, question: str, answer: str, worked: str, *, source: str = "",
              metadata: dict[str, Any] | None = None, float_tolerance: float | None = None) -> Task:
    """A math task: `answer` is the final answer (one number, checked); `worked` the solution's steps
    without the final `####` line."""
    expected = canonical_answer(answer, source or task_id)
    reference = (worked.rstrip() + "\n" if worked.strip() else "") + f"#### {expected}"
    return Task(task_id=task_id, kind="math", language="math", prompt=question.strip(),
                tests=(TestCase(id="answer", source="", check=CheckKind.ANSWER, expected=expected),),
                reference_solution=reference, source=source, float_tolerance=float_tolerance,
                metadata={"format": "math", "answer": expected, "worked": worked.rstrip(), **(metadata or {})})


def split_worked_answer(text: str, where: str) -> tuple[str, str]:
    """(worked solution, final answer text) of a GSM8K `answer` field."""
    if "####" not in text:
        raise TaskFormatError(f"{where}: field 'answer' has no '#### <number>' line (GSM8K layout: the worked "
                              "solution, then '#### ' and the final answer)")
    worked, final = text.rsplit("####", 1)
    return _CALCULATOR_NOTE.sub("", worked).rstrip(), final.strip()


def load_gsm8k(path: str) -> list[Task]:
    """Tasks from a GSM8K-layout JSONL(.gz) file; every problem is a one-line `TaskFormatError`."""
    return gsm8k_tasks(jsonl_rows(path))


def gsm8k_tasks(rows: Rows) -> list[Task]:
    """The tasks of GSM8K-layout rows (a file's or a dataset's); a row without an id is `STEM/K`, K its
    position among the rows (0-based; a skipped row keeps its number)."""
    ids = TaskIds(rows)
    stem = rows.stem

    def one(lineno: int, row: dict) -> Task:
        where = rows.where(lineno)
        question = require(row, "question", str, where)
        worked, final = split_worked_answer(require(row, "answer", str, where), where)
        if not question.strip():
            raise TaskFormatError(f"{where}: field 'question' is empty")
        given = row.get("task_id", row.get("id"))
        if given is not None and (isinstance(given, bool) or not isinstance(given, (str, int))):
            raise TaskFormatError(f"{where}: field 'task_id' is {type(given).__name__} (expected a string or an "
                                  "integer)")
        task_id = str(given) if given is not None else f"{stem}/{order[lineno]}"
        ids.check(task_id, lineno, "task id")
        task = math_task(task_id, question, canonical_answer(final, f"{where}: field 'answer' after '####'"),
                         worked, source=where, metadata={"format": "gsm8k"})
        ids.take(task_id, lineno)  # only once the row is good: a skipped row takes no id
        return task

    order: dict[int, int] = {}  # a row's position among the rows (skipped or not): the ids of unnamed rows

    def numbered():
        for lineno, row in rows:
            order[lineno] = len(order)
            yield lineno, row

    return dataclasses.replace(rows, rows=numbered()).collect(one)
