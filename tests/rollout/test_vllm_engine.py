"""The vLLM engine (issue 42; coderl/rollout/vllm_engine.py, docs/engines.md), against the bundled model:
the same tokens as HF on the untrained model, the trainer's log-probs after an adapter sync, seeds, its
life (nothing outlives a killed parent), eval and training end to end.  Marked `vllm`: `make test-vllm`
(after `make setup-vllm`); elsewhere they are deselected, or skipped in one line without the engine."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest
import torch

from coderl.base.config import ConfigError
from tests.conftest import require_vllm_engine
from tests.train.helpers import learning_metrics

pytestmark = pytest.mark.vllm

require_vllm_engine()

from coderl.models import load_model  # noqa: E402
from coderl.rollout.engine import Sampling
from coderl.rollout.generation import sample_rows  # noqa: E402
from coderl.rollout.hf_config import HFOptions
from coderl.rollout.vllm_engine import VLLMEngine  # noqa: E402

MODEL = "smollm2-135m-instruct"
STOPS = ("\n```\n",)


@pytest.fixture(scope="module")
def loaded():
    return load_model(MODEL, dtype="float32")


@pytest.fixture(scope="module")
def engine(loaded):
    with VLLMEngine(loaded.path, dtype="float32", max_model_len=1024, lora_rank=8,
                    generation_config=loaded.model.generation_config, log=lambda _: None) as e:
        FIXTURE_ENGINES.add(str(e.proc.pid))
        yield e


FIXTURE_ENGINES: set[str] = set()  # the module's own engine (`engine`), alive while its tests run


def _pids(pattern: str) -> list[str]:
    """Processes whose command line has `pattern`, but not the module's own engine."""
    found = subprocess.run(["pgrep", "-f", pattern], capture_output=True, text=True).stdout.split()
    return [p for p in found if p not in FIXTURE_ENGINES]


def _prompts(tokenizer, n=4):
    from coderl.rollout.formats import get_format, prompt_text
    from coderl.tasks import load_tasks

    fmt = get_format("chat")
    tasks = load_tasks("easy").tasks[:n]
    texts = [prompt_text(fmt.render(t, tokenizer), tokenizer) for t in tasks]
    return [tokenizer(t, add_special_tokens=False)["input_ids"] for t in texts]


def _teacher_forced(model, prompt: list[int], ids: list[int]) -> torch.Tensor:
    """The model's log-probs of `ids` after `prompt` (temperature 1), float32."""
    with torch.no_grad():
        logits = model(torch.tensor([prompt + ids])).logits[0, len(prompt) - 1:-1].float()
    return torch.log_softmax(logits, -1).gather(-1, torch.tensor(ids)[:, None])[:, 0]


def test_greedy_tokens_and_log_probs_equal_hf_on_the_untrained_model(engine, loaded):
    engine.set_adapter(None)
    prompts = _prompts(loaded.tokenizer)
    ours = sample_rows(engine, loaded.tokenizer, prompts, [STOPS] * len(prompts), Sampling(max_new_tokens=48))
    theirs = sample_rows(loaded.model, loaded.tokenizer, prompts, [STOPS] * len(prompts), Sampling(max_new_tokens=48), hf=HFOptions(batch_size=4))
    for a, b in zip(ours, theirs):
        assert a.ids == b.ids and a.text == b.text and a.ended == b.ended
        assert float((a.logprobs - b.logprobs).abs().max()) < 1e-4


def test_each_row_has_its_own_seed(engine, loaded):
    engine.set_adapter(None)
    prompts = _prompts(loaded.tokenizer)
    kw = dict(max_new_tokens=24, temperature=1.0, seed=7)
    whole = sample_rows(engine, loaded.tokenizer, prompts, [STOPS] * 4, Sampling(**kw))
    again = sample_rows(engine, loaded.tokenizer, prompts, [STOPS] * 4, Sampling(**kw))
    half = sample_rows(engine, loaded.tokenizer, prompts[:2], [STOPS] * 2, Sampling(**kw))
    assert [r.ids for r in whole] == [r.ids for r in again]  # same seed, same samples
    assert [r.ids for r in whole[:2]] == [r.ids for r in half]  # a row's sample does not depend on its batch
    other = sample_rows(engine, loaded.tokenizer, prompts, [STOPS] * 4, Sampling(**{**kw, "seed": 8}))
    assert [r.ids for r in other] != [r.ids for r in whole]


def test_after_each_adapter_sync_the_engine_log_probs_are_the_trainers(engine, loaded, tmp_path):
    """LoRA adapters with weights far from zero, served one after the other as a run's syncs serve them: after
    each sync, at every position of its sampled tokens, the engine's log-prob equals the trainer's teacher-forced
    one within 1e-4 (float32).  The later syncs are the ones that matter: an adapter served under an id used
    before would be vLLM's cached one, so three syncs."""
    from peft import get_peft_model, get_peft_model_state_dict

    from coderl.models.load import save_adapter
    from coderl.models.lora import LoraConfig
    from coderl.rollout.weights_digest import fingerprint

    torch.manual_seed(0)
    model = get_peft_model(load_model(MODEL, dtype="float32").model, LoraConfig(lora_r=8, lora_alpha=16).peft())
    model.eval()
    prompts = _prompts(loaded.tokenizer)
    base, digests = None, []
    for version in ("v1", "v2", "v3"):
        with torch.no_grad():
            for name, p in model.named_parameters():
                if "lora_B" in name:
                    p.normal_(0, 0.02)
        save_adapter(model, tmp_path / version, MODEL)
        engine.set_adapter(tmp_path / version)
        digests.append(engine.loaded_digest())  # the sync's proof: the engine's digest of what it loaded
        assert digests[-1] == fingerprint(get_peft_model_state_dict(model, adapter_name="default",
                                                                    save_embedding_layers=False))
        rows = sample_rows(engine, loaded.tokenizer, prompts, [STOPS] * 4, Sampling(max_new_tokens=32, temperature=1.0, seed=3))
        if base is None:
            base = [_teacher_forced(loaded.model, p, r.ids) for p, r in zip(prompts, rows)]
        for p, r, b in zip(prompts, rows, base):
            trainer = _teacher_forced(model, p, r.ids)
            assert float((r.logprobs - trainer).abs().max()) < 1e-4, version
            if version == "v1":
                assert float((trainer - b).abs().max()) > 1e-3  # the adapter matters: this is not the base's
    assert len(set(digests)) == 3  # every sync changed what the engine holds
    engine.set_adapter(None)


def test_after_each_merged_sync_the_engine_log_probs_are_the_trainers(loaded, tmp_path):
    """Merged weights (what the engine is sent on CPU): an engine without LoRA is sent the adapter merged into the base
    weights and reloads them in place, three times on the same prompts; at every position of its samples its
    log-prob equals the trainer's (the peft model's) teacher-forced one within 1e-4 (float32)."""
    from peft import get_peft_model

    from coderl.models.lora import LoraConfig
    from coderl.models.merge import merged_state_dict, save_merged
    from coderl.rollout.weights_digest import fingerprint

    torch.manual_seed(0)
    model = get_peft_model(load_model(MODEL, dtype="float32").model, LoraConfig(lora_r=8, lora_alpha=16).peft())
    model.eval()
    prompts = _prompts(loaded.tokenizer)
    with VLLMEngine(loaded.path, dtype="float32", max_model_len=1024, generation_config=loaded.model.generation_config,
                    log=lambda _: None) as engine:
        for version in ("v1", "v2", "v3"):
            with torch.no_grad():
                for name, p in model.named_parameters():
                    if "lora_B" in name:
                        p.normal_(0, 0.02)
            engine.reload_weights(save_merged(model, tmp_path / version))
            assert engine.loaded_digest() == fingerprint(merged_state_dict(model))  # the sync's proof
            rows = sample_rows(engine, loaded.tokenizer, prompts, [STOPS] * 4, Sampling(max_new_tokens=32, temperature=1.0, seed=3))
            for p, r in zip(prompts, rows):
                trainer = _teacher_forced(model, p, r.ids)
                assert float((r.logprobs - trainer).abs().max()) < 1e-4, version
                assert float((trainer - _teacher_forced(loaded.model, p, r.ids)).abs().max()) > 1e-3  # not the base


def test_nothing_outlives_a_killed_parent(loaded, tmp_path):
    script = tmp_path / "parent.py"
    script.write_text(f"""
import time
from coderl.rollout.vllm_engine import VLLMEngine
e = VLLMEngine({loaded.path!r}, dtype="float32", max_model_len=512, generation_config=None, log=lambda _: None)
print(e.proc.pid, flush=True)
time.sleep(600)
""")
    parent = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, text=True)
    pid = int(parent.stdout.readline())
    os.kill(parent.pid, signal.SIGKILL)
    parent.wait()
    for _ in range(40):
        if not os.path.exists(f"/proc/{pid}") or open(f"/proc/{pid}/stat").read().split()[2] == "Z":
            break
        time.sleep(0.25)
    else:
        pytest.fail(f"the engine (pid {pid}) outlived its killed parent")


def test_a_killed_asynchronous_run_leaves_nothing(tmp_path):
    """SIGKILL of `coderl train --engine vllm --async-max-age 1` mid-run: its worker, the engine the worker
    hosts and the sandbox all go (the trainer -> worker -> engine chain)."""
    run = subprocess.Popen([sys.executable, "-m", "coderl", "train", "--engine", "vllm", "--async-max-age", "1",
                            "--tasks", "easy@train", "--steps", "50", "--prompts-per-step", "2", "--samples-per-prompt",
                            "4", "--max-new-tokens", "48", "--no-progress", "--out", str(tmp_path / "run")],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    metrics = tmp_path / "run" / "metrics.jsonl"
    for _ in range(600):  # until a step is done: the engine is up and sampling
        if metrics.exists() and metrics.read_text().strip():
            break
        time.sleep(0.5)
    else:
        run.kill()
        pytest.fail("no step finished in 300 s")
    engines, workers = _pids("coderl.rollout.vllm_server"), _pids("coderl.train.sources.async_worker")
    assert engines and workers, "no engine or worker was running"
    os.kill(run.pid, signal.SIGKILL)
    run.wait()
    for _ in range(60):
        alive = [p for p in engines + workers
                 if os.path.exists(f"/proc/{p}") and open(f"/proc/{p}/stat").read().rsplit(")", 1)[1].split()[0] != "Z"]
        if not alive:
            break
        time.sleep(0.5)
    else:
        pytest.fail(f"left running after SIGKILL: {alive}")


def test_a_failure_to_start_is_one_line(tmp_path):
    (tmp_path / "config.json").write_text(json.dumps({"model_type": "nothing-like-it"}))
    with pytest.raises(ConfigError, match=r"^--engine vllm: the engine could not start: ") as err:
        VLLMEngine(str(tmp_path), generation_config=None, log=lambda _: None)
    assert "\n" not in str(err.value)


def test_eval_and_train_end_to_end(tmp_path, monkeypatch):
    from coderl.cli import main

    assert main(["eval", "--engine", "vllm", "--tasks", "easy", "--limit", "4", "--max-new-tokens", "64",
                 "--out", str(tmp_path / "eval")]) == 0
    summary = json.loads((tmp_path / "eval" / "summary.json").read_text())
    assert summary["config"]["engine"] == "vllm" and summary["num_samples"] == 4
    assert main(["train", "--engine", "vllm", "--tasks", "easy@train", "--steps", "2", "--prompts-per-step", "2",
                 "--samples-per-prompt", "4", "--max-new-tokens", "48", "--save-steps", "2", "--no-progress",
                 "--out", str(tmp_path / "train")]) == 0
    rows = [json.loads(line) for line in (tmp_path / "train" / "metrics.jsonl").read_text().splitlines()]
    assert len(rows) == 2
    steps = [r for r in rows if "is/mean_abs_log_ratio" in r]  # those that updated (a step of zero advantages: none)
    assert steps and all(r["is/stale_fraction"] == 1.0 for r in steps)
    assert all(r["is/mean_abs_log_ratio"] < 0.05 for r in steps)  # the engine's mu is the trainer's pi_prox, nearly
    assert os.listdir(tmp_path / "train" / "engine-weights") == ["v2"]  # on CPU: the adapter merged (sync_mode)
    assert not (tmp_path / "train" / "engine-adapters").exists()
    monkeypatch.setattr("coderl.train.sources.engine_weights.sync_mode", lambda policy: "adapter")  # a GPU's LoRARequests
    assert main(["train", "--engine", "vllm", "--tasks", "easy@train",
                 "--steps", "2", "--prompts-per-step", "2", "--samples-per-prompt", "4", "--max-new-tokens", "48",
                 "--save-steps", "2", "--no-progress", "--out", str(tmp_path / "adapter")]) == 0
    rows = [json.loads(line) for line in (tmp_path / "adapter" / "metrics.jsonl").read_text().splitlines()]
    assert all(r["is/mean_abs_log_ratio"] < 0.05 for r in rows if "is/mean_abs_log_ratio" in r)
    assert os.listdir(tmp_path / "adapter" / "engine-adapters") == ["v2"]


TRAIN = ["train", "--engine", "vllm", "--tasks", "easy@train", "--steps", "3", "--prompts-per-step", "2",
         "--samples-per-prompt", "4", "--max-new-tokens", "48", "--temperature", "1.0", "--save-steps", "2",
         "--no-progress"]


@pytest.mark.timeout(900)
def test_a_resumed_run_samples_what_the_uninterrupted_run_sampled(tmp_path):
    """SIGKILL after the step-2 checkpoint, then --resume: step 3 is sampled by a fresh engine from the same
    adapter with the same per-row seeds, so its rows, rewards and engine log-probs are the uninterrupted run's
    (the metrics equal), and so are the final weights."""
    from safetensors.torch import load_file

    from coderl.cli import main

    def metrics(run):
        return [json.loads(line) for line in (run / "metrics.jsonl").read_text().splitlines()]

    def lora_tensors(run, step):
        return load_file(str(run / "checkpoints" / f"step-{step}" / "adapter_model.safetensors"))

    assert main([*TRAIN, "--out", str(tmp_path / "ref")]) == 0
    proc = subprocess.Popen([sys.executable, "-m", "coderl", *TRAIN, "--out", str(tmp_path / "cut")],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    state = tmp_path / "cut" / "checkpoints" / "step-2" / "trainer_state.pt"
    deadline = time.time() + 600
    while not state.exists() and proc.poll() is None and time.time() < deadline:
        time.sleep(0.05)
    assert state.exists()
    proc.kill()
    proc.wait()
    assert not (tmp_path / "cut" / "checkpoints" / "step-3").exists()
    _wait_gone("coderl.rollout.vllm_server")  # the killed trainer's engine died with it
    assert main([*TRAIN, "--resume", "--out", str(tmp_path / "cut")]) == 0
    ref, cut = metrics(tmp_path / "ref"), metrics(tmp_path / "cut")
    assert [r["step"] for r in cut] == [1, 2, 3]
    for a, b in zip(ref, cut):
        assert learning_metrics(a) == pytest.approx(learning_metrics(b), abs=1e-6), a["step"]
    final_ref, final_cut = lora_tensors(tmp_path / "ref", 3), lora_tensors(tmp_path / "cut", 3)
    for k in final_ref:
        assert torch.allclose(final_ref[k], final_cut[k], atol=1e-6), k


def _wait_gone(pattern: str, seconds: float = 30.0) -> None:
    deadline = time.time() + seconds
    while _pids(pattern) and time.time() < deadline:
        time.sleep(0.2)
    assert not _pids(pattern)


def test_asynchronous_training_with_the_engine_in_the_worker(tmp_path):
    """--async-max-age 1: the generation worker hosts the engine and serves it each version's adapter; every
    row is corrected (fresh ones too: the engine is not the trainer), ages stay within the bound."""
    from coderl.cli import main

    assert main(["train", "--engine", "vllm", "--async-max-age", "1", "--tasks", "easy@train", "--steps", "3",
                 "--prompts-per-step", "2", "--samples-per-prompt", "4", "--max-new-tokens", "48", "--save-steps", "3",
                 "--no-progress", "--out", str(tmp_path / "train")]) == 0
    rows = [json.loads(line) for line in (tmp_path / "train" / "metrics.jsonl").read_text().splitlines()]
    steps = [r for r in rows if "async/age_max" in r]
    assert len(steps) == 3 and all(r["async/age_max"] <= 1 for r in steps)
    updated = [r for r in steps if "is/stale_fraction" in r]  # a step of zero advantages updates nothing
    assert updated and all(r["is/stale_fraction"] == r["async/age_mean"] and r["is/mean_abs_log_ratio"] < 0.05
                           for r in updated)  # ages 0 or 1: the stale fraction is the mean age
    assert not _pids("coderl.rollout.vllm_server")


@pytest.mark.timeout(900)
def test_a_pipeline_on_the_engine(tmp_path):
    """Base eval -> SFT -> GRPO -> eval, every generation on one engine, started once for the run, each
    checkpoint served as an adapter (the RL stage starts from the SFT adapter: two adapters in the trainer, the
    trained one served); no engine is left running after it."""
    import yaml

    from coderl.cli import main

    config = {"out": str(tmp_path / "run"), "model": MODEL, "format": "chat", "dtype": "bfloat16",
              "eval": {"tasks": "easy", "limit": 4, "max_new_tokens": 64, "engine": "vllm"},
              "sft": {"data": "corpus@train", "epochs": 0.01, "batch_size": 1, "gradient_accumulation": 4,
                      "progress": False},
              "rl": [{"name": "grpo", "algo": "grpo", "engine": "vllm", "tasks": "synthetic:level=1,n=32@train",
                      "steps": 1, "prompts_per_step": 2, "samples_per_prompt": 4, "max_new_tokens": 48,
                      "progress": False}]}
    (tmp_path / "p.yaml").write_text(yaml.safe_dump(config))
    assert main(["pipeline", "--config", str(tmp_path / "p.yaml")]) == 0
    for stage in ("base-eval", "eval/sft", "eval/grpo"):
        assert json.loads((tmp_path / "run" / stage / "summary.json").read_text())["config"]["engine"] == "vllm"
    log = (tmp_path / "run" / "pipeline.log").read_text()
    assert log.count(") ready in ") == 1  # one engine for the run: started once ...
    assert log.count("the run's engine (pid") == 3  # ... and lent to the GRPO stage and the two later evals
    assert (tmp_path / "run" / "engine.log").exists()
    assert not _pids("coderl.rollout.vllm_server")
