"""Hand-built tasks, samples and execution results (no sandbox runs)."""

from coderl.rollout.types import Sample
from coderl.sandbox.types import ExecutionResult, Status, TestOutcome
from coderl.tasks.types import Task

PROMPT = (
    "from typing import List\n"
    "import math\n\n\n"
    "def add(a: int, b: int) -> int:\n"
    '    """Return a + b.\n'
    "    >>> add(1, 2)\n"
    "    3\n"
    '    """\n'
)
TASK = Task("t/add", "function", PROMPT, (), entry_point="add")
STDIO = Task("t/sum", "stdio", "Read two integers and print their sum.", ())

BODY = "    return a + b\n"  # completion format: continues the stub
CHAT = "\ndef add(a: int, b: int) -> int:\n    return a + b\n"  # chat formats: redefines the stub
STDIO_PROGRAM = "a, b = map(int, input().split())\nprint(a + b)\n"


def sample(completion: str = BODY, *, task: Task = TASK, tokens: int = 10, truncated: bool = False,
           format_ok: bool = True) -> Sample:
    return Sample(task_id=task.task_id, group=0, prompt=task.prompt, raw_output=completion,
                  completion=completion, gen_tokens=tuple(range(tokens)), code_tokens=tuple(range(tokens)),
                  truncated=truncated, format_ok=format_ok)


def result(*passed: bool, hidden: tuple[bool, ...] = (), status: Status | None = None,
           tamper: tuple[str, ...] = ()) -> ExecutionResult:
    """A result with one test per `passed` flag; status PASSED iff all passed unless given."""
    hidden = hidden or (False,) * len(passed)
    tests = [TestOutcome(str(i), Status.PASSED if p else Status.FAILED, h)
             for i, (p, h) in enumerate(zip(passed, hidden))]
    if status is None:
        status = Status.PASSED if all(passed) else Status.FAILED
    return ExecutionResult(status=status, tests=tests, tamper=list(tamper))
