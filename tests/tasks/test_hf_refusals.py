"""A refused `hf:` parquet input (a bad row, a layout not told) ends the command with its one line and exit 2,
every time (issue 75).

The cause of the exit-134 aborts ("terminate called without an active exception") that followed the line in
most runs: `datasets` streams a parquet file through a Python file object and decodes the next row group on
arrow's thread pool; a read left in its middle left that decode running, and when it ended after the interpreter
had begun to exit, releasing the file object could not take the GIL.  The loader now reads parquet files itself
in the calling thread (`coderl.tasks.loaders.hf.ParquetFiles`): nothing of a refused read is held afterwards.
"""

from __future__ import annotations

import gc
import io
import os
import subprocess
import sys

import pytest

pq = pytest.importorskip("pyarrow.parquet")
pa = pytest.importorskip("pyarrow")

from coderl.tasks.spec import load_tasks  # noqa: E402
from coderl.tasks.types import TaskFormatError  # noqa: E402


@pytest.fixture(scope="module")
def refused(tmp_path_factory):
    """{refusal: (hf: spec, what its line says)}: parquet files of many row groups (each decoded as a whole),
    refused on their first rows, as a folder of a hub dataset's files too."""
    d = tmp_path_factory.mktemp("hf")
    n, text = 20000, "x" * 2000  # rows large enough that a row group takes a while to decode
    tests = ["def check(c):\n    pass\n"] * n
    tests[5] = ""
    pq.write_table(pa.table({"task_id": [f"t{i}" for i in range(n)], "prompt": [f"def f():\n    '{text}'\n"] * n,
                             "test": tests, "entry_point": ["f"] * n}), d / "bad.parquet", row_group_size=2000)
    (d / "hub" / "data").mkdir(parents=True)
    os.link(d / "bad.parquet", d / "hub" / "data" / "train-00000-of-00001.parquet")
    pq.write_table(pa.table({"question": [text] * n, "n": list(range(n))}), d / "unknown.parquet",
                   row_group_size=2000)
    return {"bad row": (f"hf:{d / 'bad.parquet'}", "row 5: field 'test' defines no check(candidate) function"),
            "bad row in a folder": (f"hf:{d / 'hub'}", "hub row 5: field 'test'"),
            "no preset": (f"hf:{d / 'unknown.parquet'}", "cannot tell the layout from columns n, question")}


def _files_open_on(path: str) -> list[str]:
    """The Python file objects still alive on `path` (what a decode left running would release on its thread)."""
    gc.collect()
    return [type(o).__name__ for o in gc.get_objects()
            if type(o) in (io.BufferedReader, io.FileIO) and os.path.abspath(str(o.name)) == path]


@pytest.mark.parametrize("refusal", ["bad row", "bad row in a folder", "no preset"])
def test_a_refused_read_leaves_nothing_of_the_file_held(refused, refusal):
    """The cause is gone: once the refusal is raised nothing holds the dataset's file (before: the file object
    `datasets` opened, held by the arrow decode still running on its pool after the read was left)."""
    spec, said = refused[refusal]
    path = spec[3:] if spec.endswith(".parquet") else os.path.join(spec[3:], "data", "train-00000-of-00001.parquet")
    before = sys.getswitchinterval()
    sys.setswitchinterval(60)  # this thread keeps the GIL: a decode in flight cannot let go of the file meanwhile
    try:
        with pytest.raises(TaskFormatError) as refusal_error:
            load_tasks(spec)
        assert _files_open_on(os.path.abspath(path)) == []
    finally:
        sys.setswitchinterval(before)
    assert said in str(refusal_error.value)


COMMANDS = {"check": ["check", "--reference", "--tasks"],
            "tasks export": ["tasks", "export", "--format", "jsonl", "--out", "{tmp}/x.jsonl", "--tasks"],
            "eval": ["eval", "--model", "{tmp}/model", "--out", "{tmp}/run", "--tasks"]}


def _refuse(command: str, spec: str, tmp) -> subprocess.Popen:
    (tmp / "model").mkdir(exist_ok=True)
    (tmp / "model" / "config.json").write_text("{}")  # a folder that names a model: eval reaches its tasks
    argv = [a.format(tmp=tmp) for a in COMMANDS[command]]
    return subprocess.Popen([sys.executable, "-m", "coderl", *argv, spec], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env={**os.environ, "PYTHONPATH": os.getcwd()})


def _each_exits_2(runs):
    for command, spec, said, proc in runs:
        _, err = proc.communicate(timeout=300)
        lines = err.strip().splitlines()
        assert proc.returncode == 2 and len(lines) == 1 and said in lines[0] and lines[0].startswith(
            f"coderl {command}: error: "), (command, spec, proc.returncode, err[-2000:])


@pytest.mark.parametrize("refusal", ["bad row", "no preset"])
def test_each_refusal_exits_2_three_times(refused, refusal, tmp_path):
    """Each refusal 3 times, once through each command that reads tasks (the three at once)."""
    spec, said = refused[refusal]
    runs = [(command, spec, said, _refuse(command, spec, tmp_path / command.replace(" ", "-")))
            for command in COMMANDS if (tmp_path / command.replace(" ", "-")).mkdir() is None]
    _each_exits_2(runs)


@pytest.mark.slow
@pytest.mark.parametrize("command", list(COMMANDS))
@pytest.mark.parametrize("refusal", ["bad row", "bad row in a folder", "no preset"])
def test_each_refusal_exits_2_twenty_times(refused, refusal, command, tmp_path):
    spec, said = refused[refusal]
    for batch in range(10):  # two at a time
        runs = []
        for i in range(2):
            d = tmp_path / f"{batch}-{i}"
            d.mkdir()
            runs.append((command, spec, said, _refuse(command, spec, d)))
        _each_exits_2(runs)
