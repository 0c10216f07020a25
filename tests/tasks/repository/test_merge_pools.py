"""scripts/merge_repository_pools.py: two runs' pools become one (a task id kept once, trees copied once, the result
loads); bad input is one line and exit 2, writing nothing."""

import json
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[3] / "scripts" / "merge_repository_pools.py"


def _run(*args):
    return subprocess.run([sys.executable, str(SCRIPT), *map(str, args)], capture_output=True, text=True)


def test_a_pool_merged_with_itself_keeps_each_task_once_and_loads(fixture_pool, fixture_tasks, tmp_path):
    from coderl.tasks.repository.task import load_repository_tasks

    done = _run("--out", tmp_path / "merged", fixture_pool, fixture_pool)
    assert done.returncode == 0, done.stderr
    n = len(fixture_tasks)
    assert f"{n} tasks over 1 repositories ({n} duplicates, 0 giving their fix away" in done.stdout
    merged = load_repository_tasks(str(tmp_path / "merged"))
    assert [t.task_id for t in merged] == [t.task_id for t in fixture_tasks]
    stats = json.loads((tmp_path / "merged" / "stats.json").read_text())
    assert stats["total"] == n and not list((tmp_path / "merged").glob(".*.partial"))


def test_bad_input_is_one_line_and_writes_nothing(fixture_pool, tmp_path):
    missing = _run("--out", tmp_path / "a", tmp_path / "nowhere")
    assert missing.returncode == 2 and "nowhere: no tasks.jsonl" in missing.stderr
    assert len(missing.stderr.strip().splitlines()) == 1 and not (tmp_path / "a").exists()
    (tmp_path / "b").mkdir()
    exists = _run("--out", tmp_path / "b", fixture_pool)
    assert exists.returncode == 2 and "exists" in exists.stderr and not list((tmp_path / "b").iterdir())
