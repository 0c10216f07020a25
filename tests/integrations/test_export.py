"""`coderl tasks export` round trips (issue 41, coderl/integrations/export.py): export -> load with `datasets` -> the adapter scores the
reference solutions as passing, and wrong code as failing."""

from __future__ import annotations

import pytest

datasets = pytest.importorskip("datasets")

from coderl.cli import main  # noqa: E402
from coderl.tasks import load_tasks  # noqa: E402

SPEC = "easy@test"


def test_verl_rows_round_trip_through_parquet_and_score_the_references(tmp_path):
    from coderl.integrations.verl import compute_score_batch

    out = tmp_path / "train.parquet"
    assert main(["tasks", "export", "--tasks", SPEC, "--format", "verl", "--out", str(out),
                 "--prompt-format", "completion"]) == 0
    rows = datasets.load_dataset("parquet", data_files=str(out), split="train")
    tasks = {t.task_id: t for t in load_tasks(SPEC).tasks}
    assert sorted(rows["reward_model"][i]["ground_truth"] for i in range(len(rows))) == sorted(tasks)
    truths = [r["reward_model"]["ground_truth"] for r in rows]
    scores = compute_score_batch(rows["data_source"], [tasks[t].reference_solution for t in truths], truths,
                                 rows["extra_info"])
    assert [s["coderl/pass"] for s in scores] == [1.0] * len(rows)
    wrong = compute_score_batch(rows["data_source"], ["    return None\n"] * len(rows), truths, rows["extra_info"])
    assert [s["coderl/pass"] for s in wrong] == [0.0] * len(rows)
    back = load_tasks(f"hf:{out}:preset=verl").tasks  # and coderl reads its own export back
    assert sorted(t.task_id for t in back) == sorted(tasks)


def test_trl_rows_round_trip_through_a_dataset_folder_and_score_the_references(tmp_path):
    from coderl.integrations.trl import CoderlRewards

    out = tmp_path / "trl"
    assert main(["tasks", "export", "--tasks", SPEC, "--format", "trl", "--out", str(out),
                 "--prompt-format", "completion"]) == 0
    rows = datasets.load_from_disk(str(out))
    assert rows.column_names == ["prompt", "task_id"]
    tasks = {t.task_id: t for t in load_tasks(SPEC).tasks}
    assert [rows[i]["prompt"] for i in range(len(rows))] == [tasks[t].prompt for t in rows["task_id"]]
    rewards = CoderlRewards(SPEC, format="completion")
    try:
        passed = rewards(rows["prompt"], [tasks[t].reference_solution for t in rows["task_id"]],
                         task_id=rows["task_id"])
    finally:
        rewards.close()
    assert passed == [1.0] * len(rows)


def test_chat_prompts_and_bad_outputs(tmp_path, capsys):
    out = tmp_path / "chat.parquet"
    assert main(["tasks", "export", "--tasks", SPEC, "--out", str(out)]) == 0
    rows = datasets.load_dataset("parquet", data_files=str(out), split="train")
    assert rows[0]["prompt"][-1]["role"] == "user" and rows[0]["extra_info"]["format"] == "chat"
    assert main(["tasks", "export", "--tasks", SPEC, "--out", str(tmp_path / "x.jsonl")]) == 2
    assert "expected a path ending in .parquet" in capsys.readouterr().err
    busy = tmp_path / "busy"
    busy.mkdir()
    (busy / "f").write_text("x")
    assert main(["tasks", "export", "--tasks", SPEC, "--format", "trl", "--out", str(busy)]) == 2
    assert "already holds" in capsys.readouterr().err and (busy / "f").exists()
    assert main(["tasks", "export", "--tasks", SPEC, "--format", "trl", "--out", str(tmp_path / "t.jsonl")]) == 2
    assert "a save_to_disk folder" in capsys.readouterr().err and not (tmp_path / "t.jsonl").exists()


def test_an_export_is_whole_refused_over_its_input_or_an_existing_file_and_leaves_nothing_on_failure(
        tmp_path, capsys, monkeypatch):
    """One policy (base/outputs.py): an --out that is the --tasks file is refused before it is read; an existing
    --out only with --overwrite (folders too); a failed export leaves the old file and nothing else."""
    from coderl.integrations import export

    src = tmp_path / "t.jsonl"
    assert main(["tasks", "export", "--tasks", SPEC, "--format", "jsonl", "--out", str(src)]) == 0
    before = src.read_text()
    assert main(["tasks", "export", "--tasks", str(src), "--format", "jsonl", "--out", str(src), "--overwrite"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "is --tasks" in err and src.read_text() == before
    assert main(["tasks", "export", "--tasks", SPEC, "--format", "jsonl", "--out", str(src)]) == 2
    assert "already holds" in capsys.readouterr().err
    for fmt, out in (("trl", tmp_path / "folder"), ("parquet", tmp_path / "t.parquet")):
        assert main(["tasks", "export", "--tasks", SPEC, "--format", fmt, "--out", str(out)]) == 0
        assert main(["tasks", "export", "--tasks", SPEC, "--format", fmt, "--out", str(out), "--overwrite"]) == 0

    def broken(task, **kw):
        raise KeyboardInterrupt

    monkeypatch.setattr(export, "task_row", broken)
    listing = sorted(p.name for p in tmp_path.iterdir())
    for out in (src, tmp_path / "new" / "deeper" / "t.jsonl"):
        assert main(["tasks", "export", "--tasks", SPEC, "--format", "jsonl", "--out", str(out), "--overwrite"]) == 130
    assert sorted(p.name for p in tmp_path.iterdir()) == listing and src.read_text() == before


def test_coderls_own_layout_round_trips_through_jsonl_and_parquet(tmp_path, sandbox):
    """A generated set leaves as a file of its own: `datasets` reads it, coderl loads it back as the same tasks
    (no generator needed), their references pass, and verl rows exported from the file score them."""
    from coderl.integrations.verl import compute_score_batch

    spec = "synthetic:level=2,n=12"
    tasks = load_tasks(spec).tasks
    for fmt, name, reader in (("jsonl", "s.jsonl.gz", "json"), ("parquet", "s.parquet", "parquet")):
        out = str(tmp_path / name)
        assert main(["tasks", "export", "--tasks", spec, "--format", fmt, "--out", out]) == 0
        rows = datasets.load_dataset(reader, data_files=out, split="train")
        assert rows["task_id"] == [t.task_id for t in tasks] and {"kind", "tests", "metadata"} <= set(rows.column_names)
        for loaded in (load_tasks(out if fmt == "jsonl" else f"hf:{out}").tasks, load_tasks(f"hf:{out}").tasks):
            assert [(t.task_id, t.prompt, t.tests, t.metadata) for t in loaded] == \
                [(t.task_id, t.prompt, t.tests, t.metadata) for t in tasks]
        results = [sandbox.submit(t.build_request(t.reference_solution)).result() for t in loaded]
        assert all(r.passed for r in results)
    verl = tmp_path / "v.parquet"
    assert main(["tasks", "export", "--tasks", str(tmp_path / "s.jsonl.gz"), "--out", str(verl)]) == 0
    rows = datasets.load_dataset("parquet", data_files=str(verl), split="train")
    truths = [r["reward_model"]["ground_truth"] for r in rows]
    by_id = {t.task_id: t for t in tasks}
    scores = compute_score_batch(rows["data_source"], [f"```python\n{by_id[t].reference_solution}```" for t in truths],
                                 truths, rows["extra_info"])
    assert [s["coderl/pass"] for s in scores] == [1.0] * len(rows)


def test_skip_bad_rows_exports_the_good_rows_as_a_file_of_their_own(tmp_path, capsys):
    import json

    src = tmp_path / "messy.jsonl"
    good = {"task_id": 1, "text": "Square n.", "code": "def sq(n):\n    return n * n", "test_list": ["assert sq(2) == 4"]}
    src.write_text("\n".join(json.dumps(r) for r in (good, {"task_id": 2, "text": "x", "test_list": []},
                                                      dict(good, task_id=3))) + "\n")
    out = tmp_path / "clean.jsonl"
    assert main(["tasks", "export", "--tasks", f"mbpp:{src}", "--format", "jsonl", "--out", str(out),
                 "--skip-bad-rows"]) == 0
    assert [t.task_id for t in load_tasks(str(out)).tasks] == ["mbpp/1", "mbpp/3"]
    assert "field 'test_list' is empty" in (tmp_path / "clean.jsonl.skipped_rows.txt").read_text()
    assert main(["tasks", "export", "--tasks", f"mbpp:{src}", "--out", str(tmp_path / "v.parquet"),
                 "--skip-bad-rows"]) == 2
    assert "--skip-bad-rows with --format verl: its rows name the task spec" in capsys.readouterr().err
