"""A scripted HF engine for the multi-turn collectors' tests: call k of `sample_rows` answers every row with
replies[k] (the last reply again after), log-prob -0.5 on each token, ended by a stop sequence."""

import torch

from coderl.rollout.hf_engine import HFEngine
from coderl.rollout.types import SampledRow


def script_engine(monkeypatch, replies: list[str]) -> list:
    """Patch `HFEngine.sample_rows`; returns the prompts (token ids per row) of each call, as they come."""
    calls = []

    def sample_rows(engine, tok, prompt_ids, stops, sampling):
        calls.append([list(p) for p in prompt_ids])
        text = replies[min(len(calls) - 1, len(replies) - 1)]
        ids = tok(text, add_special_tokens=False)["input_ids"]
        return [SampledRow(list(ids), torch.full((len(ids),), -0.5), text, True, False) for _ in prompt_ids]

    monkeypatch.setattr(HFEngine, "sample_rows", sample_rows)
    return calls
