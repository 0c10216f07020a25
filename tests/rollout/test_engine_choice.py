"""Choosing the generation engine (`--engine hf|vllm`; docs/engines.md), without vLLM: each refusal is one
line naming the option and what to do.  The engine itself is tested in test_vllm_engine.py (marked vllm)."""

from __future__ import annotations

import importlib.util
import sys
from types import SimpleNamespace

import pytest

from coderl.base.config import ConfigError
from coderl.rollout import vllm_engine
from coderl.rollout.engine import Engine


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


def test_an_engine_gets_the_sampling_and_hf_options_for_it_are_refused():
    from coderl.rollout.engine import Engine, Sampling
    from coderl.rollout.generation import engine_of, sample_rows
    from coderl.rollout.hf_config import HFOptions
    from coderl.rollout.hf_engine import HFEngine

    seen = []

    class Recording(Engine):
        def sample_rows(self, tokenizer, prompt_ids, stops, sampling):
            seen.append(sampling)
            return ["row"]

    sampling = Sampling(max_new_tokens=5, temperature=0.5, seed=3)
    assert sample_rows(Recording(), None, [[1]], [()], sampling) == ["row"] and seen == [sampling]
    with pytest.raises(ValueError, match="Recording: HF generation options .* do not apply"):
        sample_rows(Recording(), None, [[1]], [()], sampling, hf=HFOptions(batch_size=7, compact_rows=2))
    model = object()
    engine = engine_of(model, HFOptions(compact_rows=2))
    assert isinstance(engine, HFEngine) and engine.model is model and engine.options.compact_rows == 2
    assert engine_of(engine) is engine  # asked once: an engine passes through
    for bad, field in ((dict(batch_size=0), "batch_size must be >= 1 or None"), (dict(static_rows=-1), "static_rows"),
                       (dict(compact_rows=-1), "compact_rows must be >= 0")):
        with pytest.raises(ValueError, match=field):  # `--generation-batch-size 0` ends here, in one line
            HFOptions(**bad)


def test_row_seeds_are_distinct_across_a_collections_chunks():
    seeds = {vllm_engine.row_seed(seed, row) for seed in range(40) for row in range(300)}
    assert len(seeds) == 40 * 300


class _FakeEngine(Engine):
    """Stands for `VLLMEngine` (no process): records its settings, adapters and closing."""

    started: list = []

    def __init__(self, path, *, dtype, seed, max_model_len, lora_rank, generation_config=None, log=print,
                 log_file=None, threads=None):
        self.settings = dict(path=path, dtype=dtype, max_model_len=max_model_len, lora_rank=lora_rank,
                             threads=threads, log_file=log_file)
        self.proc, self.adapter = SimpleNamespace(pid=1000 + len(self.started)), "unset"
        self.started.append(self)

    def set_adapter(self, path):
        self.adapter = path

    def reload_weights(self, folder):
        self.weights = folder
        return 0.0

    def sample_rows(self, *a, **k):  # an engine of its own (`rollout.engine.Engine`)
        return []

    def close(self):
        self.proc = None


def _model(rank=None, positions=8192):
    peft = {"default": SimpleNamespace(r=rank)} if rank else None
    return SimpleNamespace(peft_config=peft, config=SimpleNamespace(max_position_embeddings=positions),
                           generation_config=None)


def test_one_engine_is_lent_to_every_stage_and_restarted_only_when_it_cannot_serve(monkeypatch):
    """A pipeline's stages borrow one engine (`one_engine`): a stage's close gives it back on the base weights;
    another base folder, precision, a higher rank or longer rows restart it; none is left at the end."""
    monkeypatch.setattr(vllm_engine, "VLLMEngine", _FakeEngine)
    _FakeEngine.started = []
    log = []
    with vllm_engine.one_engine(lora_rank=8, log_file="run/engine.log"):
        base = vllm_engine.engine_for(_model(), "/m", "m", dtype="bfloat16", seed=0, log=log.append)
        assert base.sample_rows() == [] and _FakeEngine.started[0].settings["lora_rank"] == 8  # the run's rank
        base.close()
        sft = vllm_engine.engine_for(_model(8), "/m", "m", dtype="bfloat16", seed=1, max_model_len=1024,
                                     log=log.append)
        sft.set_adapter("sft/adapter")
        assert _FakeEngine.started[0].adapter == "sft/adapter" and len(_FakeEngine.started) == 1
        sft.close()
        assert _FakeEngine.started[0].adapter is None  # given back on the base weights
        sft.close()  # twice: nothing more
        own = vllm_engine.engine_for(_model(8), "/m", "m", dtype="bfloat16", seed=0, threads=1)
        assert own is not _FakeEngine.started[0] and own.settings["threads"] == 1  # a worker's engine: its own
        for changed in (dict(dtype="float32"), dict(rank=16), dict(path="/other")):
            vllm_engine.engine_for(_model(changed.get("rank", 8)), changed.get("path", "/m"), "m",
                                   dtype=changed.get("dtype", "float32"), seed=0, log=log.append).close()
        assert [e.settings["lora_rank"] for e in _FakeEngine.started[2:]] == [8, 16, 16]
        assert [e.proc for e in _FakeEngine.started[2:4]] == [None, None]  # closed when replaced
        shared_starts = [e for e in _FakeEngine.started if e.settings["threads"] is None]
        assert len(shared_starts) == 4 and _FakeEngine.started[0].settings["log_file"] == "run/engine.log"
    assert _FakeEngine.started[-1].proc is None and vllm_engine._SHARED is None
    assert sum("serves this stage" in m for m in log) == 1 and sum("restarted" in m for m in log) == 3


def test_eval_on_an_engine_reads_no_weights_and_serves_the_adapter_at_its_rank(monkeypatch, tmp_path):
    """`coderl eval --engine vllm` loads only the tokenizer and configs (the engine reads the weights itself, so
    a GPU does not hold them twice); the engine is given the base folder, the adapter's rank and the adapter."""
    import torch
    import transformers
    from peft import LoraConfig, get_peft_model

    from coderl.eval.run import EvalConfig, run_eval
    from coderl.models.load import load_model, save_adapter
    from tests.models.tiny import tiny_llama

    base = tiny_llama(tmp_path)
    model = load_model(str(base)).model
    torch.manual_seed(0)
    peft = get_peft_model(model, LoraConfig(r=4, lora_alpha=8, target_modules=["q_proj", "v_proj"]))
    save_adapter(peft, tmp_path / "adapter", str(base))

    def no_weights(*a, **k):
        raise AssertionError("weights were loaded")

    monkeypatch.setattr(transformers.AutoModelForCausalLM, "from_pretrained", no_weights)
    shape = load_model(str(tmp_path / "adapter"), weights=False)
    assert shape.path == str(base) and shape.adapter_path == str(tmp_path / "adapter")
    assert shape.model.peft_config["default"].r == 4 and shape.model.config.max_position_embeddings > 0
    assert shape.tokenizer.padding_side == "left" and shape.model.generation_config is not None

    class Answering(_FakeEngine):  # every row: "return 1" and EOS
        def sample_rows(self, tokenizer, prompt_ids, stops, sampling):
            from coderl.rollout.types import SampledRow

            ids = tokenizer.encode("    return 1", add_special_tokens=False)
            return [SampledRow(ids, torch.zeros(len(ids)), "    return 1", True, False) for _ in prompt_ids]

    monkeypatch.setattr(vllm_engine, "VLLMEngine", Answering)
    monkeypatch.setattr(vllm_engine, "engine_python", lambda: sys.executable)  # a stand-in engine: no vLLM needed
    _FakeEngine.started = []
    out = tmp_path / "eval"
    summary = run_eval(EvalConfig(model=str(tmp_path / "adapter"), tasks="easy", limit=2, engine="vllm",
                                  out=str(out), max_new_tokens=8), log=lambda m: None)
    engine = _FakeEngine.started[0]
    assert engine.settings["path"] == str(base) and engine.settings["lora_rank"] == 4
    assert engine.adapter == str(tmp_path / "adapter") and engine.proc is None  # served, then closed
    import json

    rows = [json.loads(line) for line in (out / "samples.jsonl").read_text().splitlines()]
    assert summary["num_samples"] == 2 and [r["raw_output"] for r in rows] == ["    return 1"] * 2
    assert all("got 1" in r["message"] for r in rows)  # the engine's rows were run in the sandbox


def test_the_engines_openmp_threads_are_as_many_as_its_cores_and_pinned(monkeypatch):
    """The engine's OpenMP threads follow its binding (one pinned thread per bound core), or vLLM's own policy
    when asked; a malformed CPU list is one line."""
    monkeypatch.delenv("VLLM_CPU_OMP_THREADS_BIND", raising=False)
    monkeypatch.setattr(vllm_engine, "_usable_cores", lambda: [2, 3, 5])
    assert vllm_engine.core_env(None) == {"VLLM_CPU_OMP_THREADS_BIND": "2,3,5", "OMP_NUM_THREADS": "3",
                                          "GOMP_CPU_AFFINITY": "2 3 5"}
    assert vllm_engine.core_env(1)["GOMP_CPU_AFFINITY"] == "2" and vllm_engine.core_env(9)["OMP_NUM_THREADS"] == "3"
    monkeypatch.setenv("VLLM_CPU_OMP_THREADS_BIND", "0-1,4")
    assert vllm_engine.core_env(1) == {"VLLM_CPU_OMP_THREADS_BIND": "0,1,4", "OMP_NUM_THREADS": "3",
                                       "GOMP_CPU_AFFINITY": "0 1 4"}  # the user's list wins
    monkeypatch.setenv("VLLM_CPU_OMP_THREADS_BIND", "nobind")
    assert vllm_engine.core_env(None) == {"VLLM_CPU_OMP_THREADS_BIND": "nobind"}
    monkeypatch.setenv("VLLM_CPU_OMP_THREADS_BIND", "0-x")
    with pytest.raises(ConfigError, match=r"^VLLM_CPU_OMP_THREADS_BIND='0-x': expected a CPU list"):
        vllm_engine.core_env(None)


def test_a_stage_that_reloaded_weights_gives_the_engine_back_on_the_base_folder(monkeypatch):
    monkeypatch.setattr(vllm_engine, "VLLMEngine", _FakeEngine)
    _FakeEngine.started = []
    with vllm_engine.one_engine(lora_rank=8):
        rl = vllm_engine.engine_for(_model(8), "/m", "m", dtype="bfloat16", seed=0, lora=False)
        rl.reload_weights("run/engine-weights/v1")
        assert _FakeEngine.started[0].weights == "run/engine-weights/v1"
        rl.close()
        assert _FakeEngine.started[0].weights == "/m" and _FakeEngine.started[0].adapter is None
        evaluation = vllm_engine.engine_for(_model(8), "/m", "m", dtype="bfloat16", seed=0)
        evaluation.close()  # it reloaded nothing: nothing reloaded for it
        assert len(_FakeEngine.started) == 1 and _FakeEngine.started[0].weights == "/m"


def test_the_engine_is_sent_merged_weights_on_cpu_and_adapters_on_a_gpu():
    """auto merges on CPU (vLLM's CPU LoRA path is slow), serves adapters on a GPU; full fine-tuning always
    reloads the model; the removed `engine_sync` setting is one line naming what replaced it."""
    from coderl.base.config import build
    from coderl.train.config import TrainConfig
    from coderl.train.sources.engine_weights import sync_mode

    def policy(device, full=False):
        parameter = SimpleNamespace(device=SimpleNamespace(type=device))
        return SimpleNamespace(full=full, model=SimpleNamespace(parameters=lambda: iter([parameter])))

    assert sync_mode(policy("cpu")) == "merged" and sync_mode(policy("cuda")) == "adapter"
    assert sync_mode(policy("cpu", full=True)) == "full" and sync_mode(policy("cuda", full=True)) == "full"
    with pytest.raises(ConfigError, match=r"^TrainConfig: 'engine_sync' was removed: --engine vllm is sent the LoRA"):
        build(TrainConfig, {"out": "run", "engine": "vllm", "engine_sync": "merged"})
    assert build(TrainConfig, {"out": "run", "engine_sync": "auto"}) == build(TrainConfig, {"out": "run"})
