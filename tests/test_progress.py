"""The one progress line (`coderl.base.progress`): its format, and every long stage printing it where a log keeps it
(stderr outside a terminal): `coderl check`, `coderl decontaminate`.  The RL loops' line: tests/train/
test_policy_gradient.py; the pipeline's log: tests/test_pipeline.py."""

import re
from pathlib import Path

import pytest

from coderl.base import progress
from coderl.base.progress import ProgressLine, progress_line
from coderl.cli import main

TASKS = str(Path("tests/fixtures/tasks/humaneval_small.jsonl").resolve())
LINE = re.compile(r"^(?P<label>.+) (?P<done>\d+)/(?P<total>\d+)(?P<details> .*?)?(, about .+ left)?$")


def test_the_line_has_one_format():
    assert progress_line("step", 3, 20, "reward 0.5", 125) == "step 3/20 reward 0.5, about 2 min left"
    assert progress_line("step", 20, 20, "reward 0.5", 125) == "step 20/20 reward 0.5"  # the last has no time left
    assert progress_line("checked", 1, 4) == "checked 1/4"
    for line in ("step 3/20 reward 0.5, about 2 min left", "checked 1/4", "sft step 2/2 loss 1.0"):
        assert LINE.match(line)


def test_lines_come_every_n_seconds_and_at_the_end_of_a_long_stage(monkeypatch):
    clock = [0.0]
    monkeypatch.setattr(progress.time, "perf_counter", lambda: clock[0])
    lines = []
    line = ProgressLine("step", 4, log=lines.append, every=30)
    for done, now in ((1, 10), (2, 31), (3, 40), (4, 50)):
        clock[0] = now
        line.update(done)
    assert lines == ["step 2/4, about 31 s left", "step 4/4"]  # 31 s for 2: 15.5 s each
    short = []
    quick = ProgressLine("checked", 2, log=short.append, every=30)
    quick.update(1)
    quick.update(2)
    assert short == []  # a stage shorter than `every` says nothing


@pytest.fixture
def every_update(monkeypatch):
    monkeypatch.setattr(progress, "EVERY", 0.0)  # outside a terminal: a line per update


def test_check_shows_progress_outside_a_terminal(every_update, capsys):
    assert main(["check", "--tasks", TASKS, "--reference", "--workers", "1"]) == 0
    err = capsys.readouterr().err.splitlines()
    assert [line.split(",")[0] for line in err] == ["checked 1/3", "checked 2/3", "checked 3/3"], err


def test_decontaminate_shows_progress_outside_a_terminal(every_update, capsys, tmp_path, monkeypatch):
    monkeypatch.setenv("CODERL_CACHE", str(tmp_path))
    main(["decontaminate", "--tasks", TASKS, "--against", TASKS, "--workers", "1"])
    err = capsys.readouterr().err.splitlines()
    assert err and all(LINE.match(line) for line in err) and err[-1].startswith("decontaminate: programs run "), err
    done, total = re.match(r"decontaminate: programs run (\d+)/(\d+)", err[-1]).groups()
    assert done == total
