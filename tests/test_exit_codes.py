"""docs/training.md, "Exit codes": one code per kind of failure, each command held to it here by provoking it.

2 (bad input) is provoked for every command and every kind of bad input in tests/test_bad_input.py, 130/143 in
tests/test_interrupts.py, 4 and 5 in tests/train/test_stalls.py and tests/train/test_engine_weights_proof.py; here:
the table itself, 2 once per command, and 3 (infrastructure: the sandbox server killed before its hello, as the
kernel's out-of-memory killer leaves it) for every command that runs programs.  In-process through
`coderl.cli.main`.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from coderl.cli import main

TASKS = Path("tests/fixtures/tasks/humaneval_small.jsonl").resolve()
DOC = Path(__file__).resolve().parent.parent / "docs" / "training.md"


def run(argv: list[str], capsys) -> tuple[int, list[str]]:
    try:
        code = main(argv)
    except SystemExit as exc:  # argparse
        code = exc.code
    return code, capsys.readouterr().err.strip().splitlines()


def test_the_docs_table_has_one_row_per_code():
    text = DOC.read_text()
    table = text[text.index("## Exit codes"):]
    table = table[:table.index("\n\n", table.index("| code"))]
    codes = re.findall(r"^\| (\d+(?: / \d+)?) \|", table, re.M)
    assert codes == ["0", "1", "2", "3", "4", "5", "130 / 143"], codes


@pytest.fixture
def place(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    shutil.copy(TASKS, "tasks.jsonl")
    return tmp_path


BAD_INPUT = [  # one each: the file or the model that is not there
    ["check", "--tasks", "nope.jsonl", "--reference"],
    ["eval", "--model", "nope", "--tasks", "tasks.jsonl", "--out", "e"],
    ["train", "--model", "nope", "--tasks", "tasks.jsonl", "--out", "t"],
    ["sft", "--model", "nope", "--data", "tasks.jsonl", "--out", "s"],
    ["decontaminate", "--tasks", "nope.jsonl", "--against", "tasks.jsonl"],
    ["compare", "nope"],
    ["tasks", "export", "--tasks", "nope.jsonl", "--out", "x.parquet"],
    ["pipeline", "--config", "nope.yaml"],
]


@pytest.mark.parametrize("argv", BAD_INPUT, ids=[" ".join(a[:2]) for a in BAD_INPUT])
def test_bad_input_is_2_in_one_line(place, capsys, argv):
    code, err = run(argv, capsys)
    assert code == 2 and len(err) == 1 and "nope" in err[0], err


@pytest.fixture
def killed_server(tmp_path, monkeypatch):
    """Every sandbox server started is killed (SIGKILL) before its hello, as the OOM killer leaves it."""
    import coderl.sandbox.client as client

    killed = tmp_path.parent / f"{tmp_path.name}-killed.py"
    killed.write_text("import os, signal\nos.kill(os.getpid(), signal.SIGKILL)\n")
    monkeypatch.setattr(client, "SERVER_PATH", str(killed))


KILLED = ("the sandbox server was killed by SIGKILL before it started (no hello): the kernel's out-of-memory killer")


@pytest.mark.parametrize("argv", [
    ["check", "--tasks", "tasks.jsonl", "--reference", "--isolation", "rlimits"],
    ["decontaminate", "--tasks", "tasks.jsonl", "--against", "tasks.jsonl", "--isolation", "rlimits"],
], ids=["check", "decontaminate"])
def test_a_sandbox_killed_before_its_hello_is_3_in_one_line(place, killed_server, capsys, argv):
    code, err = run(argv, capsys)
    assert code == 3 and len(err) == 1 and KILLED in err[0], err


def test_a_pipeline_with_a_sandbox_killed_before_its_hello_is_3_in_one_line(place, killed_server, capsys, monkeypatch):
    """Its behaviour leak check runs programs before any stage: the first place the sandbox is needed."""
    monkeypatch.setenv("CODERL_CACHE", str(place / "cache"))  # no verdict remembered: the check runs
    Path("model").mkdir()
    Path("model", "config.json").write_text("{}")
    Path("p.yaml").write_text("out: pout\nmodel: model\nformat: completion\ndevice: cpu\n"
                              "eval:\n  tasks: tasks.jsonl\n  split: test\n  isolation: rlimits\nsft: null\n"
                              "rl:\n  - name: grpo\n    algo: grpo\n    tasks: tasks.jsonl\n    split: train\n"
                              "    eval_tasks: null\n    steps: 1\n")
    code, err = run(["pipeline", "--config", "p.yaml"], capsys)  # its plan first, then the one error line
    assert code == 3 and err[-1].startswith("coderl pipeline: error: ") and KILLED in err[-1], err
    assert not [line for line in err if "Traceback" in line] and not Path("pout").exists()


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory):
    pytest.importorskip("torch")
    from tests.models.tiny import tiny_llama

    return str(tiny_llama(tmp_path_factory.mktemp("model")))


def test_eval_with_a_sandbox_killed_before_its_hello_is_3_in_one_line(place, killed_server, capsys, tiny_model):
    code, err = run(["eval", "--model", tiny_model, "--tasks", "tasks.jsonl", "--limit", "1", "--max-new-tokens",
                     "4", "--device", "cpu", "--isolation", "rlimits", "--out", "e"], capsys)
    assert code == 3 and len(err) == 1 and KILLED in err[0], err


def test_train_with_a_sandbox_killed_before_its_hello_is_3_naming_the_checkpoint(place, killed_server, capsys,
                                                                                tiny_model):
    code, err = run(["train", "--model", tiny_model, "--tasks", "tasks.jsonl", "--steps", "1", "--prompts-per-step",
                     "1", "--samples-per-prompt", "2", "--max-new-tokens", "4", "--device", "cpu", "--isolation",
                     "rlimits", "--out", "t", "--no-progress"], capsys)
    assert code == 3 and KILLED in err[-1] and err[-1].endswith("newest intact checkpoint: none yet"), err
    assert err[-1].startswith("coderl train: error: infrastructure failure: ")
    assert not [line for line in err if "Traceback" in line]
    assert not Path("t").exists()  # the run made nothing worth keeping: no folder left


def test_launch_help_shows_the_options_docs_scaling_uses(capsys):
    """issue 102: accelerate's short help left out --config_file, --machine_rank and --main_process_ip."""
    assert main(["launch", "--help"]) == 0
    out = capsys.readouterr().out
    used = set(re.findall(r"--[a-z_]+", " ".join(re.findall(r"coderl launch (.*?) (?:train|sft) ",
                                                             (DOC.parent / "scaling.md").read_text().replace("\\\n", " ")))))
    assert used >= {"--config_file", "--num_processes", "--num_machines", "--machine_rank", "--main_process_ip"}
    for flag in used:
        assert f"\n  {flag}" in out, flag
