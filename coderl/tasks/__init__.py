"""Task sources: HumanEval, MBPP, stdin/stdout problems, the bundled easy set and generated
(synthetic) tasks, loaded through one task-spec grammar.

`load_tasks("humaneval", split="train")` -> `TaskSet`; see `coderl.tasks.spec` for the grammar,
`coderl.tasks.generators.synthetic` for `synthetic:k=v,...` and `coderl.tasks.loaders.easy` for `easy`.
"""

from coderl.sandbox.types import CheckKind, TestCase
from coderl.tasks import hdl, kinds, math_tasks, test_files  # noqa: F401 -- the modules that register task kinds
from coderl.tasks.loaders.easy import easy_path, load_easy
from coderl.tasks.repository import task as repository_task  # noqa: F401 -- registers the repository kind
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
    "easy_path",
    "load_easy",
    "load_tasks",
    "parse_task_spec",
    "split_tasks",
]
