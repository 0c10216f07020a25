"""The agent recipe's config (configs/agent-cpu.yaml) passes the pipeline's dry run once its inputs exist, as
scripts/agent_recipe.sh makes them: a pool linked at runs/agent/pool and the oracle's trajectories of its train split
(here the fixture repository's pool and one trajectory)."""

import json
import os
from pathlib import Path

from coderl.cli import main
from coderl.rollout.repository_env import oracle_replies, play

ROOT = Path(__file__).resolve().parents[3]


def test_the_agent_recipe_config_passes_its_dry_run(fixture_pool, fixture_tasks, repo_sandbox, tmp_path, monkeypatch,
                                                    capsys):
    work = tmp_path / "work"
    (work / "runs" / "agent").mkdir(parents=True)
    os.symlink(fixture_pool, work / "runs" / "agent" / "pool")
    row = play(repo_sandbox, fixture_tasks[0], oracle_replies(fixture_tasks[0]))
    assert row["verdict"]["status"] == "FULL"
    (work / "runs" / "agent" / "oracle-train.jsonl").write_text(json.dumps(row) + "\n")
    monkeypatch.chdir(work)
    assert main(["pipeline", "--config", str(ROOT / "configs" / "agent-cpu.yaml"), "--dry-run",
                 "--out", str(tmp_path / "out")]) == 0
    assert "dry run: every field validated" in capsys.readouterr().out
