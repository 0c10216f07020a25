"""Full fine-tuning on the vLLM engine (issue 44): after each update the engine reloads the whole model in place
(`VLLMEngine.reload_weights`), and its log-probs are the trainer's, teacher-forced.  Marked `vllm`:
`make test-vllm` (after `make setup-vllm`); elsewhere deselected, or skipped in one line without the engine."""

from __future__ import annotations

import json
import os

import pytest
import torch

from tests.conftest import require_vllm_engine

pytestmark = pytest.mark.vllm

require_vllm_engine()

from coderl.models import load_model  # noqa: E402
from coderl.rollout.engine import Sampling
from coderl.rollout.generation import sample_rows  # noqa: E402
from coderl.rollout.vllm_engine import VLLMEngine  # noqa: E402

MODEL = "smollm2-135m-instruct"
STOPS = ("\n```\n",)


def _prompts(tokenizer, n=4):
    from coderl.rollout.formats import get_format, prompt_text
    from coderl.tasks import load_tasks

    fmt = get_format("chat")
    texts = [prompt_text(fmt.render(t, tokenizer), tokenizer) for t in load_tasks("easy").tasks[:n]]
    return [tokenizer(t, add_special_tokens=False)["input_ids"] for t in texts]


def _teacher_forced(model, prompt: list[int], ids: list[int]) -> torch.Tensor:
    """The model's log-probs of `ids` after `prompt` (temperature 1), float32."""
    with torch.no_grad():
        logits = model(torch.tensor([prompt + ids])).logits[0, len(prompt) - 1:-1].float()
    return torch.log_softmax(logits, -1).gather(-1, torch.tensor(ids)[:, None])[:, 0]


def test_after_each_reload_the_engine_log_probs_are_the_trainers(tmp_path):
    """Every weight moved (noise of 1/10 of each tensor's scale), saved and reloaded, three times with the same
    prompts: at every position of the engine's sampled tokens its log-prob equals the trainer's teacher-forced
    one within 1e-4 (float32), and differs from the untouched model's.  The same prompts each time: a prefix
    cache left from the previous weights would serve their keys and values."""
    from coderl.models.load import save_model

    loaded = load_model(MODEL, dtype="float32")
    base = load_model(MODEL, dtype="float32").model.eval()
    model = loaded.model.eval()
    prompts = _prompts(loaded.tokenizer)
    generator = torch.Generator().manual_seed(0)
    with VLLMEngine(loaded.path, dtype="float32", max_model_len=1024, generation_config=model.generation_config,
                    log=lambda _: None) as engine:
        assert engine.info.get("vllm")
        seconds = []
        for version in ("v1", "v2", "v3"):
            with torch.no_grad():
                for p in model.parameters():
                    p.add_(torch.randn(p.shape, generator=generator) * 0.1 * p.std())
            save_model(model, loaded.tokenizer, tmp_path / version)
            seconds.append(engine.reload_weights(tmp_path / version))
            rows = sample_rows(engine, loaded.tokenizer, prompts, [STOPS] * 4, Sampling(max_new_tokens=32, temperature=1.0, seed=3))
            for p, r in zip(prompts, rows):
                trainer = _teacher_forced(model, p, r.ids)
                assert float((r.logprobs - trainer).abs().max()) < 1e-4, version
                assert float((trainer - _teacher_forced(base, p, r.ids)).abs().max()) > 1e-2  # not the start's
    print(f"reload_weights: {seconds} s")


def test_full_fine_tuning_trains_on_the_engine(tmp_path):
    """`coderl train --finetune full --engine vllm`: every step's rows were sampled with the trainer's weights
    (the engine's mu is the trainer's pi_prox, nearly), and the engine serves the newest weights only."""
    from coderl.cli import main

    assert main(["train", "--finetune", "full", "--engine", "vllm", "--tasks", "easy@train", "--steps", "2",
                 "--prompts-per-step", "2", "--samples-per-prompt", "4", "--max-new-tokens", "48",
                 "--learning-rate", "1e-5", "--save-steps", "2", "--no-progress", "--out", str(tmp_path / "run")]) == 0
    rows = [json.loads(line) for line in (tmp_path / "run" / "metrics.jsonl").read_text().splitlines()]
    assert len(rows) == 2
    rows = [r for r in rows if "is/stale_fraction" in r]  # those that updated (a step of zero advantages: none)
    assert rows and all(r["is/stale_fraction"] == 1.0 for r in rows)
    assert all(r["is/mean_abs_log_ratio"] < 0.05 for r in rows), [r["is/mean_abs_log_ratio"] for r in rows]
    assert os.listdir(tmp_path / "run" / "engine-weights") == ["v2"]
    from safetensors.torch import load_file

    served = load_file(tmp_path / "run" / "engine-weights" / "v2" / "model.safetensors")
    trained = load_file(tmp_path / "run" / "checkpoints" / "step-2" / "model.safetensors")
    start = load_file(os.path.join(load_model(MODEL).path, "model.safetensors"))
    assert served.keys() == trained.keys()
    assert all(torch.equal(served[k], trained[k]) for k in trained)  # the engine serves the trained weights
    assert any(not torch.equal(trained[k], start[k].float()) for k in trained)  # which moved from the start
