"""Task kinds as data: how a task of each kind becomes a program and a sandbox request, and how prompts
present it.  A new kind is one `TaskKind` registered here (or in a module of its own) plus its tests.

    function   HumanEval layout: the program is `prompt + completion`; the judge process runs the
               tests with `candidate` bound to the entry point (Mode.PYTHON_TESTS)
    stdio      the completion is the whole program, run as `__main__` once per test with the test's
               input on stdin; stdout is compared token-wise (Mode.PYTHON_SCRIPT)
    hdl        a hardware module (Verilog): compiled with a testbench, simulated, synthesised and
               linted (`coderl.tasks.hdl`)
    math       a word problem whose reply is judged on its final answer; nothing runs
               (`coderl.tasks.math_tasks`, Mode.ANSWER)

Tasks in another language than Python run through their language's runner (`coderl.languages.runner`):
function tasks judged on the values a trusted harness prints, stdio tasks on stdout (Mode.COMMAND).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from coderl.sandbox.types import ExecutionRequest, Limits, Mode

if TYPE_CHECKING:
    from coderl.tasks.types import Task


@dataclass(frozen=True)
class TaskKind:
    name: str
    prompt_is_code: bool  # the completion continues the prompt (a stub to complete), else the prompt is prose
    instruction: str  # the chat instruction; {language} and {tag} are the task language's name and fence tag
    build_program: Callable[[Task, str], str]  # the exact program text that runs
    build_request: Callable[[Task, str, Limits, tuple], ExecutionRequest]  # (task, completion, limits, tests)
    # False: the reply is prose judged on its final answer (math), not code: the formats take the whole reply
    # (or the reasoning format's <answer>) as the completion instead of a code block
    answer_is_code: bool = True
    reasoning_system: str | None = None  # the `reasoning` format's system prompt (None: the code one)


KINDS: dict[str, TaskKind] = {}


def register_kind(kind: TaskKind) -> TaskKind:
    if kind.name in KINDS:
        raise ValueError(f"task kind {kind.name!r} is registered twice")
    KINDS[kind.name] = kind
    return kind


# kinds registered by a module of their own, imported when first needed
_MODULES = {"hdl": "coderl.tasks.hdl", "math": "coderl.tasks.math_tasks"}


def get_kind(name: str, task_id: str = "") -> TaskKind:
    if name not in KINDS and name in _MODULES:
        import importlib

        importlib.import_module(_MODULES[name])
    try:
        return KINDS[name]
    except KeyError:
        where = f"task {task_id}: " if task_id else ""
        raise ValueError(f"{where}unknown kind {name!r} (expected one of {', '.join(KINDS)})") from None


def _runner_request(task: Task, completion: str, limits: Limits, tests: tuple) -> ExecutionRequest:
    """A task in another language than Python: its runner's COMMAND request (`coderl.languages.runner`)."""
    from coderl.languages.runner import get_runner

    return get_runner(task.language).request(task.build_program(completion), tests, limits,
                                             entry_point=task.entry_point, float_tolerance=task.float_tolerance)


def _function_request(task: Task, completion: str, limits: Limits, tests: tuple) -> ExecutionRequest:
    from coderl.tasks.types import program_names, trusted_code

    if task.language != "python":
        return _runner_request(task, completion, limits, tests)
    names, entry_is_class = program_names(task.prompt, task.reference_solution, task.entry_point)
    return ExecutionRequest(mode=Mode.PYTHON_TESTS, program=task.build_program(completion),
                            entry_point=task.entry_point, trusted_code=trusted_code(task.prompt, task.entry_point),
                            program_names=names, entry_is_class=entry_is_class,
                            test_preamble=task.test_preamble, tests=tests, limits=limits, language=task.language)


def _stdio_request(task: Task, completion: str, limits: Limits, tests: tuple) -> ExecutionRequest:
    if task.language != "python":
        return _runner_request(task, completion, limits, tests)
    return ExecutionRequest(mode=Mode.PYTHON_SCRIPT, program=task.build_program(completion), tests=tests,
                            limits=limits, float_tolerance=task.float_tolerance, language=task.language)


FUNCTION = register_kind(TaskKind(
    name="function", prompt_is_code=True,
    instruction="Complete the following {language} function. Reply with the complete function in one ```{tag} "
                "code block.",
    build_program=lambda task, completion: task.prompt + completion,
    build_request=_function_request,
))
STDIO = register_kind(TaskKind(
    name="stdio", prompt_is_code=False,
    instruction="Solve the following problem with a complete {language} program that reads its input from "
                "standard input and writes its answer to standard output. Reply with the program in one "
                "```{tag} code block.",
    build_program=lambda task, completion: completion,
    build_request=_stdio_request,
))
