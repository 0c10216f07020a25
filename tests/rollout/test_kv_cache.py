"""rollout/kv_cache.py: a KV cache written in place holds exactly what transformers' concatenating cache holds,
through growth past its room, compaction's reorder, crop and a replaced tensor; generation with it gives the
same tokens and log-probs."""

import pytest
import torch
from transformers.cache_utils import DynamicLayer

from coderl.rollout import generate
from coderl.rollout.hf_config import HFOptions
from coderl.rollout.kv_cache import GrowingLayer, growing_cache
from tests.rollout.test_hf_generate import LONG, SHORT, tiny  # noqa: F401  (the module-scoped tiny model)


def _states(b, t, seed):
    g = torch.Generator().manual_seed(seed)
    return torch.randn(b, 2, t, 4, generator=g), torch.randn(b, 2, t, 4, generator=g)


def test_growing_layer_holds_what_the_dynamic_layer_holds():
    grow, ref = GrowingLayer(capacity=5), DynamicLayer()
    steps = [(3, 0), (1, 1), (1, 2), (4, 3), (1, 4)]  # 10 positions: past the room of 5, then of 10
    for t, seed in steps:
        k, v = _states(3, t, seed)
        got, want = grow.update(k, v), ref.update(k, v)
        assert torch.equal(got[0], want[0]) and torch.equal(got[1], want[1])
    assert grow.get_seq_length() == ref.get_seq_length() == 10 and grow.capacity >= 10
    rows = torch.tensor([2, 0])
    grow.reorder_cache(rows)  # compaction: the running rows
    ref.reorder_cache(rows)
    k, v = _states(2, 1, 9)
    assert torch.equal(grow.update(k, v)[0], ref.update(k, v)[0])
    grow.crop(-3)
    ref.crop(-3)
    k, v = _states(2, 2, 10)
    assert torch.equal(grow.update(k, v)[1], ref.update(k, v)[1])
    grow.keys, grow.values = ref.keys.clone(), ref.values.clone()  # replaced from outside: followed
    k, v = _states(2, 1, 11)
    assert torch.equal(grow.update(k, v)[0], ref.update(k, v)[0]) and grow.get_seq_length() == 11


def test_growing_cache_only_for_full_attention(tiny):  # noqa: F811
    model, _ = tiny
    assert growing_cache(model, 8) is not None

    class Sliding:
        def get_text_config(self, decoder=True):
            return type("C", (), {"layer_types": ["full_attention", "sliding_attention"]})()

    assert growing_cache(type("M", (), {"config": Sliding()})(), 8) is None


@pytest.mark.parametrize("temperature", [0.0, 0.9])
def test_generation_with_the_growing_cache_changes_nothing(tiny, temperature, monkeypatch):  # noqa: F811
    from coderl.rollout import hf

    model, tok = tiny
    kwargs = dict(samples_per_prompt=3, max_new_tokens=12, temperature=temperature, seed=3,
                  hf=HFOptions(batch_size=6, compact_rows=2))
    made = []
    real = hf.growing_cache
    monkeypatch.setattr(hf, "growing_cache", lambda *a: made.append(real(*a)) or made[-1])
    grown = generate(model, tok, [SHORT, LONG], **kwargs)
    assert made and all(c is not None for c in made)
    monkeypatch.setattr(hf, "growing_cache", lambda *a: None)  # transformers' own DynamicCache
    plain = generate(model, tok, [SHORT, LONG], **kwargs)
    assert grown.completion_ids.tolist() == plain.completion_ids.tolist()
    torch.testing.assert_close(grown.logprobs, plain.logprobs, atol=1e-5, rtol=0)
