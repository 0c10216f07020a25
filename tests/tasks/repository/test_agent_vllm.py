"""Agent episodes on the vLLM engine (`--agent --engine vllm`, issue 98 item 4), with the bundled model on the fixture
repository's tasks in the real sandbox: greedy episodes are HF's reply for reply on the untrained model (float32),
and a GRPO step over episodes trains from the engine's rows with the engine's log-probs corrected as every engine
row is (docs/engines.md).  Marked `vllm`: `make test-vllm` (after `make setup-vllm`); elsewhere deselected, or
skipped in one line without the engine."""

from __future__ import annotations

import json

import pytest

from tests.conftest import require_vllm_engine

pytestmark = pytest.mark.vllm

require_vllm_engine()

MODEL = "smollm2-135m-instruct"


@pytest.mark.timeout(900)
def test_greedy_agent_episodes_on_the_engine_are_hf_s(tmp_path, fixture_pool):
    from coderl.base.config import build
    from coderl.eval.run import EvalConfig, run_eval

    episodes = {}
    for engine in ("hf", "vllm"):
        out = tmp_path / engine
        run_eval(build(EvalConfig, dict(out=str(out), model=MODEL, tasks=f"repo:{fixture_pool}", agent=True,
                                        engine=engine, dtype="float32", limit=3, samples=1, temperature=0.0,
                                        max_new_tokens=48, agent_turns=3, workers=2)), log=lambda m: None)
        rows = [json.loads(line) for line in (out / "samples.jsonl").read_text().splitlines()]
        episodes[engine] = [(r["task_id"], r["agent"]["replies"], r["agent"]["observations"], r["agent"]["reason"])
                            for r in rows]
    assert len(episodes["hf"]) == 3 and all(replies for _, replies, _, _ in episodes["hf"])
    assert episodes["vllm"] == episodes["hf"]


@pytest.mark.timeout(900)
def test_a_grpo_step_over_agent_episodes_samples_on_the_engine(tmp_path, fixture_pool):
    from coderl.train import run_training
    from tests.train.helpers import base_config

    def varied(results, samples, tasks):  # the base model resolves nothing: a reward that varies in each group
        return [float(i % 2) for i in range(len(samples))]

    cfg = base_config(MODEL, tmp_path / "run", tasks=f"repo:{fixture_pool}", format="chat", agent=True, engine="vllm",
                      agent_turns=2, malformed_in_a_row=2, steps=1, prompts_per_step=1, samples_per_prompt=2,
                      max_new_tokens=32, temperature=1.0, learning_rate=1e-4, max_total_sequence_length=4096,
                      limit_episodes="train")
    m = run_training(cfg, log=lambda m: None, reward_override=varied)
    assert m["agent/turns"] >= 1.0 and m["agent/observation_tokens"] >= 0
    assert m["is/stale_fraction"] == 1.0  # every engine row is corrected (docs/engines.md)
    assert m["is/mean_abs_log_ratio"] < 0.05  # the engine's mu is the trainer's pi_prox, nearly
