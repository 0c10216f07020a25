"""Task kinds and languages are data: formats, rewards and the judge read the records, so a new language
or kind is one registration, not edits across packages."""

import dataclasses

import pytest

from coderl.languages import LANGUAGES, PYTHON, Language, Runner, get_language
from coderl.rollout.formats import get_format, user_message
from coderl.sandbox.judge import _judge_processes
from coderl.sandbox.types import ExecutionRequest, Limits, Mode, Status, compile_error_line
from coderl.tasks.kinds import KINDS, get_kind
from coderl.tasks.types import Task

STUB = "def add(a, b):\n    \"\"\"Return a + b.\"\"\"\n"


@pytest.fixture
def toy_language(monkeypatch):
    """A second language whose records differ from Python's in every field the other packages read."""
    toy = dataclasses.replace(
        PYTHON, name="toy", display="Toy", fence_tag="toy", fence_tags=frozenset({"toy"}),
        compiles=lambda program: "BAD" not in program,
        compile_error="^toyc:",
        prose_header=lambda text: "# " + text.strip() + "\n", completion_stops=("\nend",),
        implements=lambda program, entry_point: "IMPL" in program)
    monkeypatch.setitem(LANGUAGES, "toy", toy)
    return toy


def test_python_is_the_default_language_and_unknown_names_are_one_line():
    assert Task("t/0", "function", STUB, ()).language == "python"
    with pytest.raises(ValueError, match="language 'cobol': expected one of"):
        get_language("cobol")
    with pytest.raises(ValueError, match="task t/1: unknown kind 'quiz' .expected one of function, stdio"):
        Task("t/1", "quiz", "", ()).build_request("x")
    assert set(KINDS) >= {"function", "stdio"} and get_kind("function").prompt_is_code


def test_formats_read_the_language_record(toy_language):
    task = Task("t/0", "function", STUB, (), entry_point="add", language="toy")
    message = user_message(task)
    assert message.startswith("Complete the following Toy function.") and "```toy\n" in message
    reply = "Sure.\n```python\ndef add(a, b):\n    return 0\n```\n```toy\ndef add(a, b):\n    return a + b\n```\n"
    extraction = get_format("chat").extract(task, reply)
    assert "return a + b" in extraction.completion  # the block with the task language's tag wins
    stdio = Task("t/1", "stdio", "Print the sum.", (), language="toy")
    assert get_format("completion").render(stdio, None) == "# Print the sum.\n"


def test_the_syntax_reward_reads_the_language_record(toy_language):
    from coderl.rewards.components import compiles

    assert compiles("x = 1 # BAD", "python") and not compiles("x = 1 # BAD", "toy")


def test_the_judge_reads_compile_errors_with_the_pattern_the_request_carries(toy_language):
    run = {"exit_code": 1, "signal": None, "stderr": "warning: x\ntoyc: line 3: unexpected token\n", "stdout": "",
           "stdout_total": 0, "cpu_seconds": 0.01, "wall_seconds": 0.02, "max_rss_bytes": 1, "killed": None,
           "stderr_total": 10, "oom": False}
    for language, status in (("toy", Status.SYNTAX_ERROR), ("python", Status.RUNTIME_ERROR)):
        request = ExecutionRequest(Mode.PYTHON_SCRIPT, program="x", compile_error=get_language(language).compile_error)
        result = _judge_processes(request, [dict(run)], "rlimits")
        assert result.tests[0].status is status, (language, result.tests[0])
        if language == "toy":  # the matching line, not the first one
            assert result.tests[0].message == "toyc: line 3: unexpected token", result.tests[0].message


def test_a_runner_hands_its_languages_compile_error_pattern_to_the_request(toy_language):
    runner = Runner(language="toy", source_file="main.toy", run=("toy", "{source}"))
    assert runner.request("x", (), Limits()).compile_error == "^toyc:"
    assert ExecutionRequest(Mode.PYTHON_SCRIPT).compile_error == PYTHON.compile_error  # the sandbox's default


@pytest.mark.parametrize("stderr, line", [
    ("Traceback\nSyntaxError: bad", "SyntaxError: bad"),
    ("  File \"main.py\", line 1\n    x = (\n        ^\nSyntaxError: '(' was never closed\n\n",
     "SyntaxError: '(' was never closed"),
    # a SyntaxError handled and followed by another exception is a runtime error: only the last line counts
    ("SyntaxError: inner\n\nDuring handling of the above exception, another exception occurred:\nValueError: v", None),
    ("ValueError: SyntaxError inside a message", None),
])
def test_pythons_compile_error_is_a_syntax_error_on_the_tracebacks_last_line(stderr, line):
    assert compile_error_line(PYTHON.compile_error, stderr) == line


@pytest.mark.timeout(60)
@pytest.mark.parametrize("language", ["python", "javascript", "verilog"])
def test_a_program_cannot_stall_the_judge_with_stderr_built_against_the_pattern(language):
    """The judge reads a failed run's stderr in the trainer's process: stderr shaped to make a pattern
    backtrack (a long run of blanks after "SyntaxError", of digits after ':', of indentation before a
    keyword) is read in linear time (a quadratic pattern took minutes here), with the verdict the language's
    rule gives: Python's SyntaxError must be the last line, Node's may be any line."""
    n = 300_000
    hostile = ["SyntaxError" + " " * n + "\nx", ":" + "1" * n + "x", " " * n + "x", ("SyntaxError \n" * n) + "x"]
    expected = ["SyntaxError", None, None, "SyntaxError"] if language == "javascript" else [None] * 4
    assert [compile_error_line(get_language(language).compile_error, s) for s in hostile] == expected


def test_completion_stops_and_the_implementation_gate_read_the_language_record(toy_language):
    from coderl.rewards.components import defines_entry_point

    task = Task("t/0", "function", STUB, (), entry_point="add", language="toy")
    assert get_format("completion").stop_sequences(task) == ("\nend",)
    assert get_format("completion").stop_sequences(dataclasses.replace(task, language="python")) == \
        PYTHON.completion_stops
    # Python's gate would accept this body; the toy language's own check decides.
    assert not defines_entry_point(task, "    return a + b\n")
    assert defines_entry_point(task, "    return a + b  # IMPL\n")
    assert defines_entry_point(dataclasses.replace(task, language="python"), "    return a + b\n")


def test_a_language_is_a_record():
    assert isinstance(PYTHON, Language) and isinstance(PYTHON.compile_error, str)
    assert PYTHON.compiles("def f():\n    return 1\n") and not PYTHON.compiles("return 1\n")
