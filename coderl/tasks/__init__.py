"""Task sources: HumanEval, MBPP and stdin/stdout problems, loaded through one task-spec grammar.

`load_tasks("humaneval", split="train")` -> `TaskSet`; see `coderl.tasks.spec` for the grammar.
"""

from coderl.sandbox.types import CheckKind, TestCase
from coderl.tasks.spec import TaskSet, TaskSpec, load_tasks, parse_task_spec
from coderl.tasks.split import split_tasks
from coderl.tasks.types import Task, TaskFormatError

__all__ = [
    "CheckKind",
    "Task",
    "TaskFormatError",
    "TaskSet",
    "TaskSpec",
    "TestCase",
    "load_tasks",
    "parse_task_spec",
    "split_tasks",
]
