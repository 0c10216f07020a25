"""`coderl eval --agent` on the fixture repository's tasks in the real sandbox: a scripted oracle resolves its task
(pass@1 is the resolved rate, every measure with its interval, held-out kinds apart, the episode in samples.jsonl); a
tiny random model's episodes end malformed and resolve nothing; what an agent cannot evaluate is one line."""

import json

import pytest

torch = pytest.importorskip("torch")

from coderl.base.config import ConfigError, build  # noqa: E402
from coderl.eval.agent import MEASURES  # noqa: E402
from coderl.eval.run import EvalConfig, run_eval  # noqa: E402
from coderl.rollout.repository_env import oracle_replies  # noqa: E402
from tests.models.tiny import tiny_llama  # noqa: E402
from tests.rollout.scripted import script_engine  # noqa: E402


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory):
    return str(tiny_llama(tmp_path_factory.mktemp("model")))


def _config(model_dir, out, pool, **fields):
    settings = dict(out=str(out), model=model_dir, tasks=f"repo:{pool}", agent=True, max_new_tokens=6, workers=2,
                    agent_turns=3, malformed_in_a_row=2, context_tokens=8192)
    return build(EvalConfig, {**settings, **fields})


def test_a_scripted_oracle_resolves_and_the_summary_says_so(model_dir, tmp_path, fixture_pool, fixture_tasks,
                                                           monkeypatch):
    first = fixture_tasks[0]  # --limit 1 evaluates the pool's first task
    replies = oracle_replies(first)
    script_engine(monkeypatch, replies)
    summary = run_eval(_config(model_dir, tmp_path / "run", fixture_pool, limit=1, agent_turns=len(replies)),
                       log=lambda m: None)
    block = summary["agent"]["all"]
    assert summary["pass_at_k"]["pass@1"] == 1.0 and block["resolved"] == 1.0 and block["partial"] == 0.0
    assert set(MEASURES) <= set(block) and all(f"{m}_ci95" in block for m in MEASURES)
    assert block["turns"] == len(replies) and summary["agent"]["ended"] == {"submitted": 1}
    rows = [json.loads(line) for line in (tmp_path / "run" / "samples.jsonl").read_text().splitlines()]
    assert rows[0]["passed"] and rows[0]["agent"]["verdict"]["status"] == "FULL"
    assert rows[0]["agent"]["replies"] == replies and len(rows[0]["agent"]["observations"]) == len(replies) - 1
    assert "Agent episodes (--agent)" in (tmp_path / "run" / "results.md").read_text()


def test_a_tiny_model_resolves_nothing_and_every_held_out_kind_is_reported_apart(model_dir, tmp_path, fixture_pool,
                                                                               fixture_tasks):
    from coderl.eval.agent import held_out_kind

    summary = run_eval(_config(model_dir, tmp_path / "tiny", fixture_pool, samples=2, temperature=1.0),
                       log=lambda m: None)
    agent = summary["agent"]
    assert agent["all"]["resolved"] == 0.0 and agent["all"]["episodes"] == 2 * len(fixture_tasks)
    assert agent["ended"] == {"malformed": 2 * len(fixture_tasks)} and agent["all"]["tool_error_rate"] == 1.0
    assert set(agent["by_held_out"]) == {held_out_kind(t) for t in fixture_tasks}
    assert sum(m["episodes"] for m in agent["by_held_out"].values()) == agent["all"]["episodes"]


@pytest.mark.parametrize("fields, flag", [({"turns": 2}, "--turns"), ({"resume": True}, "--resume"),
                                          ({"isolation": "rlimits"}, "--isolation")])
def test_what_an_agent_cannot_evaluate_is_one_line(model_dir, tmp_path, fixture_pool, fields, flag):
    with pytest.raises(ConfigError, match=flag):
        _config(model_dir, tmp_path / "x", fixture_pool, **fields)


def test_an_agent_on_other_tasks_is_one_line(model_dir, tmp_path):
    cfg = build(EvalConfig, dict(out=str(tmp_path / "y"), model=model_dir, tasks="synthetic", agent=True))
    with pytest.raises(ConfigError, match="--agent: --tasks synthetic holds .* repository tasks only"):
        run_eval(cfg, log=lambda m: None)
