"""Choosing the generation engine (`--engine hf|vllm`; docs/engines.md), without vLLM: each refusal is one
line naming the option and what to do.  The engine itself is tested in test_vllm_engine.py (marked vllm)."""

from __future__ import annotations

import importlib.util
from types import SimpleNamespace

import pytest

from coderl.base.config import ConfigError
from coderl.rollout import vllm_engine


def test_no_vllm_anywhere_is_one_line_saying_what_to_run(monkeypatch, tmp_path):
    monkeypatch.delenv(vllm_engine.ENV_PYTHON, raising=False)
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None)
    monkeypatch.setattr(vllm_engine, "REPO", tmp_path)  # no .venv-vllm there
    with pytest.raises(ConfigError, match=r"^--engine vllm: no vLLM here .*run `make setup-vllm`.*CODERL_VLLM_PYTHON"):
        vllm_engine.engine_python()
    monkeypatch.setenv(vllm_engine.ENV_PYTHON, "/opt/elsewhere/python")
    assert vllm_engine.engine_python() == "/opt/elsewhere/python"


def test_a_model_without_a_local_folder_is_refused_before_anything_starts():
    with pytest.raises(ConfigError, match=r"^--engine vllm: model 'org/name' has no local folder"):
        vllm_engine.engine_for(SimpleNamespace(), None, "org/name", dtype="float32", seed=0)


def test_qlora_with_vllm_is_refused_in_eval_and_train(tmp_path, capsys):
    from coderl.cli import main

    for command in (["eval", "--qlora"], ["train", "--qlora"]):
        assert main([*command, "--engine", "vllm", "--out", str(tmp_path / command[0])]) == 2
        err = capsys.readouterr().err.strip()
        assert "--engine" in err and "hf with --qlora" in err and len(err.splitlines()) == 1, err


def test_engine_keywords_reach_the_engine_and_the_hf_ones_do_not():
    from coderl.rollout.hf import sample_rows

    seen = {}

    class Engine:
        def sample_rows(self, tokenizer, prompt_ids, stops, **kw):
            seen.update(kw)
            return ["row"]

    assert sample_rows(Engine(), None, [[1]], [()], max_new_tokens=5, temperature=0.5, seed=3, batch_size=7,
                       compact_rows=2) == ["row"]
    assert seen == {"max_new_tokens": 5, "temperature": 0.5, "top_p": 1.0, "seed": 3, "min_new_tokens": None}


def test_row_seeds_are_distinct_across_a_collections_chunks():
    seeds = {vllm_engine.row_seed(seed, row) for seed in range(40) for row in range(300)}
    assert len(seeds) == 40 * 300
