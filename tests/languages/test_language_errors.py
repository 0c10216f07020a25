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
