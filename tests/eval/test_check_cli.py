"""`coderl check`: the contract later tools rely on (order, fields, pass@k, exit codes, one-line errors)."""

import json

import pytest

from coderl.cli import main

TASKS = "tests/fixtures/tasks/humaneval_small.jsonl"


def write_jsonl(path, rows):
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return str(path)


def test_check_writes_one_result_per_line_in_order(tmp_path, capsys):
    rows = [
        {"task_id": "Toy/1", "completion": "    return n % 2 == 0\n", "extra": "kept"},
        {"task_id": "Toy/0", "completion": "    return a - b\n"},
        {"task_id": "Toy/0", "completion": "    return a + b\n"},
        {"task_id": "Toy/0", "completion": "    while True:\n        pass\n"},
    ]
    out = tmp_path / "results.jsonl"
    code = main(["check", "--tasks", TASKS, "--completions", write_jsonl(tmp_path / "s.jsonl", rows),
                 "--out", str(out), "--timeout", "1", "--workers", "2"])
    assert code == 0
    results = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["task_id"] for r in results] == ["Toy/1", "Toy/0", "Toy/0", "Toy/0"]
    assert [r["passed"] for r in results] == [True, False, True, False]
    assert [r["status"] for r in results] == ["passed", "failed", "passed", "timeout"]
    assert results[0]["extra"] == "kept"
    for r in results:
        assert {"task_id", "completion", "passed", "status", "tests", "cpu_seconds", "wall_seconds",
                "tamper"} <= set(r)
    assert [t["status"] for t in results[1]["tests"]] == ["failed", "failed", "failed"]
    summary = json.loads((tmp_path / "results.jsonl.summary.json").read_text())
    # Toy/0: n=3, c=1; Toy/1: n=1, c=1 -> pass@1 = (1/3 + 1) / 2; k=3 > min n=1 is not reported
    assert summary["pass_at_k"] == {"pass@1": pytest.approx((1 / 3 + 1) / 2)}
    assert summary["tasks_with_min_samples"] == ["Toy/1"]
    assert summary["tasks"] == {"spec": TASKS, "split": "all", "seed": 0, "num_tasks": 3}
    assert summary["tasks_checked"] == 2 and summary["tasks_without_completions"] == 1 and "num_tasks" not in summary
    printed = capsys.readouterr().out
    assert "pass@1: 0.6667" in printed and "executions/s" in printed
    assert "2 tasks, 4 samples); 1 of the set's 3 tasks had no completion" in printed


def test_check_exits_zero_when_nothing_passes(tmp_path):
    rows = [{"task_id": "Toy/2", "completion": "    return 0\n"}]
    assert main(["check", "--tasks", TASKS, "--completions", write_jsonl(tmp_path / "s.jsonl", rows)]) == 0


def test_reference_solutions_pass(capsys):
    assert main(["check", "--tasks", TASKS, "--reference"]) == 0
    assert "passed: 3/3" in capsys.readouterr().out


@pytest.mark.parametrize(
    "lines, message",
    [
        (['{"task_id": "Toy/0", "completion": "x"}', "{not json"], r"s\.jsonl:2: invalid JSON"),
        (['{"task_id": "Toy/0"}'], r"s\.jsonl:1: field 'completion' missing or not a string"),
        (['{"task_id": "Toy/9", "completion": ""}'], r"s\.jsonl:1: task_id 'Toy/9' is not in tasks"),
        ([""], r"s\.jsonl: no completions found"),
    ],
)
def test_bad_completions_fail_with_one_line(tmp_path, capsys, lines, message):
    path = tmp_path / "s.jsonl"
    path.write_text("\n".join(lines) + "\n")
    assert main(["check", "--tasks", TASKS, "--completions", str(path)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1
    import re

    assert re.search(message, err), err


def test_bad_flags_fail_with_one_line(capsys):
    assert main(["check", "--tasks", TASKS, "--reference", "--timeout", "-1"]) == 2
    assert "--timeout=-1.0: expected a positive number of seconds" in capsys.readouterr().err


def test_unknown_task_spec(capsys):
    assert main(["check", "--tasks", "nope:thing", "--reference"]) == 2
    assert "nope:thing" in capsys.readouterr().err


def test_check_never_imports_torch():
    import subprocess
    import sys

    code = ("import sys; from coderl.cli import main; "
            "main(['check', '--tasks', 'tests/fixtures/tasks/humaneval_small.jsonl', '--reference']); "
            "assert 'torch' not in sys.modules and 'numpy' not in sys.modules, 'heavy import'")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr


ROWS = [{"task_id": "Toy/0", "completion": "    return a + b\n"}, {"task_id": "Toy/1", "completion": "    return 1\n"}]


@pytest.mark.parametrize("alias", ["same", "link"])
def test_an_output_that_is_the_input_is_refused_before_anything_is_opened(tmp_path, capsys, alias):
    completions = write_jsonl(tmp_path / "s.jsonl", ROWS)
    out = completions
    if alias == "link":  # the same file under another name
        out = str(tmp_path / "other.jsonl")
        __import__("os").link(completions, out)
    before = open(completions).read()
    assert main(["check", "--tasks", TASKS, "--completions", completions, "--out", out, "--overwrite"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"--out {out}: is --completions {completions}" in err, err
    assert open(completions).read() == before and sorted(p.name for p in tmp_path.iterdir()) == \
        sorted({"s.jsonl", "other.jsonl"} if alias == "link" else {"s.jsonl"})


def test_a_finished_output_is_replaced_only_with_overwrite(tmp_path, capsys):
    completions, out = write_jsonl(tmp_path / "s.jsonl", ROWS), tmp_path / "r.jsonl"
    assert main(["check", "--tasks", TASKS, "--completions", completions, "--out", str(out)]) == 0
    out.write_text("mine\n")
    assert main(["check", "--tasks", TASKS, "--completions", completions, "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"--out {out}: already holds {out}, {out}.summary.json; pass --overwrite" in err
    assert out.read_text() == "mine\n"
    assert main(["check", "--tasks", TASKS, "--completions", completions, "--out", str(out), "--overwrite"]) == 0
    assert [json.loads(line)["passed"] for line in out.read_text().splitlines()] == [True, False]


def test_an_interrupted_check_leaves_the_previous_outputs_and_nothing_else(tmp_path, monkeypatch):
    """Ctrl-C between two result lines: exit 130; no partial file under the final name, no `.partial`, the previous
    run's results and summary as they were; a fresh --out folder it made is gone."""
    import json as real_json

    from coderl.eval import check

    completions = write_jsonl(tmp_path / "s.jsonl", ROWS)
    old = tmp_path / "old" / "r.jsonl"
    assert main(["check", "--tasks", TASKS, "--completions", completions, "--out", str(old)]) == 0
    before = {p.name: p.read_text() for p in old.parent.iterdir()}
    calls = []

    class Interrupting:
        @staticmethod
        def dumps(obj):
            calls.append(obj)
            if len(calls) == 2:
                raise KeyboardInterrupt
            return real_json.dumps(obj)

    monkeypatch.setattr(check, "json", Interrupting)
    assert main(["check", "--tasks", TASKS, "--completions", completions, "--out", str(old), "--overwrite"]) == 130
    assert {p.name: p.read_text() for p in old.parent.iterdir()} == before
    calls.clear()
    fresh = tmp_path / "new" / "deeper" / "r.jsonl"
    assert main(["check", "--tasks", TASKS, "--completions", completions, "--out", str(fresh)]) == 130
    assert sorted(p.name for p in tmp_path.iterdir()) == ["old", "s.jsonl"]
