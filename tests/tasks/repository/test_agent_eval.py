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


@pytest.fixture(scope="module")
def long_model_dir(tmp_path_factory):
    """The tiny model with 16,384 positions (rotary: any length runs), so a budget can be set below them."""
    folder = tiny_llama(tmp_path_factory.mktemp("long"))
    config = json.loads((folder / "config.json").read_text())
    (folder / "config.json").write_text(json.dumps({**config, "max_position_embeddings": 16_384}))
    return str(folder)


@pytest.mark.parametrize("budget, holds", [(None, 16_384), (3_000, 3_000), (20_000, 16_384), (64, 64)])
def test_on_an_engine_of_its_own_the_engine_holds_the_agent_s_budget(long_model_dir, tmp_path, fixture_pool,
                                                                     fixture_tasks, monkeypatch, budget, holds):
    """`--engine vllm --agent`: the engine is started holding what an episode may grow to (--context-tokens, else
    the model's positions; its default length would refuse a long episode's prompt); a task whose first prompt it
    cannot hold with a reply is left out in one line, never sent to it."""
    from coderl.rollout import vllm_engine
    from coderl.rollout.types import SampledRow
    from tests.rollout.test_engine_choice import _FakeEngine

    first = fixture_tasks[0]
    replies = oracle_replies(first)
    prompts = []

    class Oracle(_FakeEngine):  # call k answers every row with the oracle's reply k; refuses rows past its length
        def sample_rows(self, tokenizer, prompt_ids, stops, sampling):
            assert all(len(p) + sampling.max_new_tokens <= self.settings["max_model_len"] for p in prompt_ids)
            prompts.append(prompt_ids)
            text = replies[min(len(prompts) - 1, len(replies) - 1)]
            ids = tokenizer(text, add_special_tokens=False)["input_ids"]
            return [SampledRow(ids, torch.full((len(ids),), -0.5), text, True, False) for _ in prompt_ids]

    monkeypatch.setattr(vllm_engine, "VLLMEngine", Oracle)
    monkeypatch.setattr(vllm_engine, "engine_python", lambda: "python")
    _FakeEngine.started = []
    said = []
    cfg = _config(long_model_dir, tmp_path / "run", fixture_pool, limit=1, agent_turns=len(replies),
                  context_tokens=budget, engine="vllm")
    if holds == 64:  # no first prompt fits: none is sent, and the run is one line
        with pytest.raises(ConfigError, match=r"^--agent: no task's first prompt leaves room for a reply of "
                                              r"--max-new-tokens 6 .*--context-tokens 64"):
            run_eval(cfg, log=said.append)
        assert prompts == [] and any(line.startswith("left out: 1 tasks whose prompt does not fit") for line in said)
        assert not (tmp_path / "run" / "summary.json").exists()
    else:
        assert run_eval(cfg, log=said.append)["pass_at_k"]["pass@1"] == 1.0 and len(prompts) == len(replies)
    (engine,) = _FakeEngine.started
    assert engine.settings["max_model_len"] == holds and engine.proc is None  # started holding it, then closed
