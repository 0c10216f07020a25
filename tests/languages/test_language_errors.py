"""Bad language input is one line naming the file, line and field (never a traceback from deep inside)."""

import json
import os
import subprocess
import sys

import pytest

from coderl.tasks.spec import load_tasks
from coderl.tasks.types import TaskFormatError

ROW = {"problem_id": "q/1", "question": "Print 1.", "input_output": {"inputs": [""], "outputs": ["1"]},
       "language": "cobol"}


def test_a_row_in_a_language_without_a_runner_names_its_line_and_field(tmp_path):
    path = tmp_path / "tasks.jsonl"
    path.write_text(json.dumps(ROW) + "\n", encoding="utf-8")
    with pytest.raises(TaskFormatError) as err:
        load_tasks(str(path))
    message = str(err.value)
    assert message.startswith(f"{path}:1: field 'language': language 'cobol'") and "\n" not in message


def test_the_cli_reports_a_missing_runner_file_in_one_line(tmp_path):
    path = tmp_path / "tasks.jsonl"
    path.write_text(json.dumps({**ROW, "language": "lua"}) + "\n", encoding="utf-8")
    env = {**os.environ, "CODERL_RUNNERS": str(tmp_path / "missing.yaml")}
    out = subprocess.run([sys.executable, "-m", "coderl", "check", "--tasks", str(path), "--reference"],
                         capture_output=True, text=True, env=env, timeout=120)
    assert out.returncode == 2
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and f"runner file {tmp_path / 'missing.yaml'}: no such file" in lines[0], out.stderr


def test_a_runner_files_compile_error_that_is_no_regex_is_one_line_naming_file_and_field(tmp_path):
    from coderl.languages.user import RunnerFileError, load_runner_file

    path = tmp_path / "bad.yaml"
    path.write_text('language: badre\nsource_file: main.q\nrun: [q, "{source}"]\ncompile_error: "(unclosed"\n')
    with pytest.raises(RunnerFileError) as err:
        load_runner_file(path)
    message = str(err.value)
    assert f"runner file {path}: field 'compile_error' is not a regular expression" in message
    assert "\n" not in message


@pytest.mark.parametrize("pattern", [r"^lua5\\.4: .*:[0-9]+: .*near", r"(a+)+$", r"^(error|warning)*: .*", r".*x.*y"])
def test_a_compile_error_pattern_that_can_backtrack_is_refused_at_load(tmp_path, pattern):
    """It runs in the parent on the program's stderr: a program printing `lua5.4: :1: :1: :1: ...` made the
    bundled Lua runner's old pattern take seconds per line (issue 58)."""
    from coderl.languages.user import RunnerFileError, load_runner_file

    path = tmp_path / "slow.yaml"
    path.write_text(f'language: slowre\nsource_file: main.q\nrun: [q, "{{source}}"]\ncompile_error: "{pattern}"\n')
    with pytest.raises(RunnerFileError) as err:
        load_runner_file(path)
    message = str(err.value)
    assert f"runner file {path}: field 'compile_error' can backtrack on a program's output" in message
    assert "\n" not in message


@pytest.mark.parametrize("pattern", [r"^lua5\.4: [^:\n]*+:[0-9]++: .*near", r"^SyntaxError[^\n]*\Z",
                                     r"^\S++:\d++: error: .*", r"(?:ab){3}x*"])
def test_a_pattern_with_one_backtracking_repeat_loads(pattern):
    from coderl.languages.user import parse_runner

    language, _ = parse_runner({"language": "okre", "source_file": "main.q", "run": ["q", "{source}"],
                                "compile_error": pattern}, "ok.yaml")
    assert language.compile_error == pattern


def test_the_bundled_lua_runner_loads_and_reads_its_syntax_errors():
    import yaml

    from coderl.languages.user import parse_runner
    from coderl.sandbox.types import compile_error_line

    with open(os.path.join(os.path.dirname(__file__), "..", "..", "examples", "lua", "lua.yaml")) as f:
        data = yaml.safe_load(f)
    language, _ = parse_runner(data, "lua.yaml")
    stderr = "lua5.4: main.lua:3: syntax error near 'x'\nstack traceback:\n\t[C]: in ?\n"
    assert compile_error_line(language.compile_error, stderr) == "lua5.4: main.lua:3: syntax error near 'x'"
    runtime = "lua5.4: main.lua:3: attempt to call a nil value (global 'f')\nstack traceback:\n"
    assert compile_error_line(language.compile_error, runtime) is None


def test_the_search_reads_a_bounded_stderr():
    """The first and last 100 lines, each cut at 256 characters: a compile error printed after a flood is
    still found at the end (CPython's SyntaxError line is the last), a line in the middle is not read."""
    from coderl.sandbox.types import PYTHON_COMPILE_ERROR, compile_error_line

    flood = "x\n" * 10_000
    assert compile_error_line(PYTHON_COMPILE_ERROR, flood + "SyntaxError: invalid syntax") == "SyntaxError: invalid syntax"
    assert compile_error_line("^error: ", "x\n" * 500 + "error: here\n" + flood) is None
    assert compile_error_line("y$", "x" * 10_000 + "y") is None  # the line is cut at 256 characters
