"""The one task-spec grammar, `load_tasks`, `TaskSet` and `split_tasks`."""

import os
from pathlib import Path

import pytest

from coderl.tasks import TaskFormatError, load_tasks, parse_task_spec, split_tasks
from coderl.tasks.spec import TaskSpec

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "tasks"


def fx(name: str) -> str:
    return str(FIXTURES / name)


@pytest.mark.parametrize(
    "spec, expected",
    [
        ("humaneval", TaskSpec("humaneval")),
        ("humaneval:data/x.jsonl", TaskSpec("humaneval", "data/x.jsonl")),
        ("mbpp:/a/b.jsonl.gz", TaskSpec("mbpp", "/a/b.jsonl.gz")),
        ("stdio:rel/with:colon.jsonl", TaskSpec("stdio", "rel/with:colon.jsonl")),
        ("synthetic:n=10,seed=3", TaskSpec("synthetic", None, {"n": "10", "seed": "3"})),
        ("synthetic", TaskSpec("synthetic")),
        ("  humaneval  ", TaskSpec("humaneval")),
    ],
)
def test_parse(spec, expected):
    assert parse_task_spec(spec) == expected


def test_existing_path_is_auto_even_with_a_colon(tmp_path):
    p = tmp_path / "mbpp:odd.jsonl"
    p.write_text("{}\n")
    assert parse_task_spec(str(p)) == TaskSpec("auto", str(p))
    assert parse_task_spec(fx("apps_small.jsonl")) == TaskSpec("auto", fx("apps_small.jsonl"))


@pytest.mark.parametrize(
    "spec, message",
    [
        ("", "empty task spec"),
        ("mbpp", "task spec 'mbpp' needs a file: mbpp:PATH"),
        ("humaneval:", "missing the file after 'humaneval:'"),
        (
            "hub:openai/humaneval",
            "unknown source 'hub' and no such file (known sources: humaneval, mbpp, stdio, synthetic",
        ),
        ("hf:", "missing the dataset after 'hf:'"),
        ("no/such/file.jsonl", "task spec 'no/such/file.jsonl': no such file"),
        ("synthetic:n", "option 'n' is not key=value"),
    ],
)
def test_parse_errors_are_one_line(spec, message):
    with pytest.raises(TaskFormatError) as e:
        parse_task_spec(spec)
    assert message in str(e.value) and "\n" not in str(e.value)


def test_synthetic_spec_loads_through_the_same_grammar():
    ts = load_tasks("synthetic:level=1,n=5,seed=3,split=train")
    assert len(ts.tasks) == 5
    assert all(t.task_id.startswith("synthetic/L1/") for t in ts.tasks)
    with pytest.raises(TaskFormatError, match="unknown option 'size'"):
        load_tasks("synthetic:size=5")


def test_missing_file_with_prefix():
    with pytest.raises(TaskFormatError, match=r"task spec 'stdio:nope\.jsonl': no such file 'nope\.jsonl'"):
        load_tasks("stdio:nope.jsonl")


@pytest.mark.parametrize(
    "name, fmt, n",
    [
        ("humaneval_small.jsonl", "humaneval", 3),
        ("mbpp_small.jsonl", "mbpp", 2),
        ("apps_small.jsonl", "stdio", 2),
        ("nemotron_small.jsonl", "stdio", 2),
    ],
)
def test_auto_detection_and_prefix_agree(name, fmt, n):
    auto = load_tasks(fx(name))
    explicit = load_tasks(f"{fmt}:{fx(name)}")
    assert [t.task_id for t in auto.tasks] == [t.task_id for t in explicit.tasks]
    assert len(auto) == n
    assert auto.describe() == {"spec": fx(name), "split": "all", "seed": 0, "num_tasks": n}
    assert all(t.metadata["format"] == fmt for t in auto.tasks)


def test_auto_detection_failure_lists_fields_and_formats():
    with pytest.raises(TaskFormatError) as e:
        load_tasks(fx("unknown_format.jsonl"))
    msg = str(e.value)
    assert msg.startswith(
        f"{fx('unknown_format.jsonl')}:1: cannot tell the task format from fields answer, question_text"
    )
    assert "humaneval" in msg and "mbpp" in msg and "stdio" in msg and "\n" not in msg


def test_taskset_by_id_and_split():
    s = load_tasks(fx("humaneval_small.jsonl"), split="train", seed=0)
    assert s.split == "train" and s.seed == 0
    assert set(s.by_id) == {t.task_id for t in s.tasks}
    test = load_tasks(fx("humaneval_small.jsonl"), split="test", seed=0)
    assert len(test) == 1 and len(s) == 2  # round(3 * 0.2) = 1
    assert not set(s.by_id) & set(test.by_id)


def test_split_tasks_errors_and_fractions():
    tasks = load_tasks(fx("humaneval_small.jsonl")).tasks
    with pytest.raises(ValueError, match=r"unknown split 'dev' \(expected one of: all, train, test\)"):
        split_tasks(tasks, "dev")
    with pytest.raises(ValueError, match="test_fraction"):
        split_tasks(tasks, "test", test_fraction=1.5)
    assert split_tasks(tasks, "test", test_fraction=0.0) == []
    assert split_tasks(tasks, "train", test_fraction=1.0) == []
    assert split_tasks(tasks, "all") == tasks
    with pytest.raises(ValueError, match="appears more than once"):
        split_tasks(tasks + tasks[:1], "test")


def test_split_is_independent_of_input_order():
    tasks = load_tasks("humaneval").tasks
    a = {t.task_id for t in split_tasks(tasks, "test", seed=7)}
    b = {t.task_id for t in split_tasks(list(reversed(tasks)), "test", seed=7)}
    assert a == b


def test_import_is_light():
    import subprocess
    import sys

    code = "import sys, coderl.tasks; print(sorted(m for m in ('torch', 'numpy') if m in sys.modules))"
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=dict(os.environ)
    )
    assert out.stdout.strip() == "[]"
