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
    test_file  the reply is a module judged by a pytest-style test file, read at load and run in the judge by
               coderl's own runner (`coderl.tasks.test_files`, Mode.PYTHON_TESTS)
    test_file  the completion is a module (`solution`) judged by a pytest-style test file, each test run by
               coderl's own runner in the judge process (`coderl.tasks.test_files`, Mode.PYTHON_TESTS)

Tasks in another language than Python run through their language's runner (`coderl.languages.runner`):
function tasks judged on the values a trusted harness prints, stdio tasks on stdout (Mode.COMMAND).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from coderl.base.registry import register_once
from coderl.languages import get_runner
from coderl.sandbox.types import ExecutionRequest, Limits, Mode
from coderl.tasks.prompt_code import program_names, trusted_code


@dataclass(frozen=True)
class TaskKind:
    name: str
    prompt_is_code: bool  # the completion continues the prompt (a stub to complete), else the prompt is prose
    instruction: str  # the chat instruction; {language} and {tag} are the task language's name and fence tag
    # (a Task, the completion) -> the exact program text that runs (`Task` imports this module, not back)
    build_program: Callable[..., str]
    build_request: Callable[..., ExecutionRequest]  # (task, completion, limits, tests) -> its request
    # False: the reply is prose judged on its final answer (math), not code: the formats take the whole reply
    # (or the reasoning format's <answer>) as the completion instead of a code block
    answer_is_code: bool = True
    reasoning_system: str | None = None  # the `reasoning` format's system prompt (None: the code one)


KINDS: dict[str, TaskKind] = {}


def register_kind(kind: TaskKind) -> TaskKind:
    return register_once(KINDS, kind.name, kind, "task kind")


def get_kind(name: str, task_id: str = "") -> TaskKind:
    """A registered kind (`coderl.tasks` imports every module that registers one: this one, `hdl`, `math_tasks`)."""
    try:
        return KINDS[name]
    except KeyError:
        where = f"task {task_id}: " if task_id else ""
        raise ValueError(f"{where}unknown kind {name!r} (expected one of {', '.join(KINDS)})") from None


def _runner_request(task, completion: str, limits: Limits, tests: tuple) -> ExecutionRequest:
    """A task in another language than Python: its runner's COMMAND request (`coderl.languages.runner`)."""
    return get_runner(task.language).request(task.build_program(completion), tests, limits,
                                             entry_point=task.entry_point, float_tolerance=task.float_tolerance)


def _function_request(task, completion: str, limits: Limits, tests: tuple) -> ExecutionRequest:
    if task.language != "python":
        return _runner_request(task, completion, limits, tests)
    names, entry_is_class = program_names(task.prompt, task.reference_solution, task.entry_point)
    return ExecutionRequest(mode=Mode.PYTHON_TESTS, program=task.build_program(completion),
                            entry_point=task.entry_point, trusted_code=trusted_code(task.prompt, task.entry_point),
                            program_names=names, entry_is_class=entry_is_class,
                            test_preamble=task.test_preamble, tests=tests, limits=limits)


def _stdio_request(task, completion: str, limits: Limits, tests: tuple) -> ExecutionRequest:
    if task.language != "python":
        return _runner_request(task, completion, limits, tests)
    return ExecutionRequest(mode=Mode.PYTHON_SCRIPT, program=task.build_program(completion), tests=tests,
                            limits=limits, float_tolerance=task.float_tolerance)


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
