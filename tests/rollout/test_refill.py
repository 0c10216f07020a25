"""Refill (rollout/hf.py `_refilled_rows`): with more rows than run at once, rows that end make room for waiting
ones, which start beside the running rows on one KV cache (`kv_cache.joined_cache`).  On the tiny float32 model
every row gets the tokens and log-probs it gets alone in one plain call; sampled rows record the policy's
log-prob of every token they draw; every row keeps its own budget."""

import pytest
import torch

from coderl.rollout import generate
from coderl.rollout.hf_callbacks import decode
from coderl.rollout.kv_cache import GrowingLayer, joined_cache
from coderl.tasks.types import Task
from tests.rollout.test_hf_generate import LONG, SHORT, prompt_of, spy_calls, teacher_forced, tiny  # noqa: F401

# prompts of different lengths: the joined rows are right-aligned at different widths
MID = Task("t/mid", "function", 'def neg(x):\n    """Return -x."""\n', (), entry_point="neg")
TASKS = [SHORT, LONG, MID, SHORT, MID]


def test_joined_cache_right_aligns_each_part_and_zeroes_its_left_padding():
    def cache(rows, length, seed):
        c = joined_cache.__globals__["DynamicCache"]()
        layer = GrowingLayer(length)
        g = torch.Generator().manual_seed(seed)
        layer.update(torch.randn(rows, 2, length, 4, generator=g), torch.randn(rows, 2, length, 4, generator=g))
        c.layers.append(layer)
        return c

    a, b = cache(3, 6, 0), cache(2, 4, 1)
    joined = joined_cache([(a, 2), (b, 1)], 7, 20)  # a's last 4 positions and b's last 3, right-aligned in 7
    layer = joined.layers[0]
    assert layer.keys.shape == (5, 2, 7, 4) and layer.capacity >= 20 and joined.get_seq_length() == 7
    assert torch.equal(layer.keys[:3, :, 3:], a.layers[0].keys[:, :, 2:])
    assert torch.equal(layer.values[3:, :, 4:], b.layers[0].values[:, :, 1:])
    assert not layer.keys[:3, :, :3].any() and not layer.values[3:, :, :4].any()
    k = torch.ones(5, 2, 1, 4)
    assert torch.equal(layer.update(k, k)[0][:, :, -1:], k)  # grows in place from there


@pytest.mark.parametrize("stop", [["\n"], ["e"], []])
def test_refilled_rows_keep_the_greedy_tokens_and_logprobs_of_one_plain_call(tiny, monkeypatch, stop):
    model, tok = tiny
    calls = spy_calls(monkeypatch)
    kwargs = dict(samples_per_prompt=3, max_new_tokens=20, temperature=0.0, stop=stop)
    refilled = generate(model, tok, TASKS, batch_size=4, **kwargs)
    assert max(rows for rows, _, _ in calls) <= 4 and len(calls) > 1  # 15 rows, never more than 4 at once
    calls.clear()
    plain = generate(model, tok, TASKS, batch_size=15, compact_rows=0, **kwargs)
    assert calls == [(15, calls[0][1], 0)]
    assert [s.gen_tokens for s in refilled.samples] == [s.gen_tokens for s in plain.samples]
    assert [s.truncated for s in refilled.samples] == [s.truncated for s in plain.samples]
    width = min(refilled.logprobs.shape[1], plain.logprobs.shape[1])
    torch.testing.assert_close(refilled.logprobs[:, :width] * refilled.mask[:, :width],
                               plain.logprobs[:, :width] * plain.mask[:, :width], atol=1e-5, rtol=0)


def test_refilled_sampling_records_the_policy_of_every_token_and_each_row_its_budget(tiny, monkeypatch):
    model, tok = tiny
    calls = spy_calls(monkeypatch)
    batch = generate(model, tok, TASKS, samples_per_prompt=4, max_new_tokens=16, temperature=1.0, seed=3,
                     batch_size=6, stop=["e"])
    assert max(rows for rows, _, _ in calls) <= 6 and len(calls) > 2
    again = generate(model, tok, TASKS, samples_per_prompt=4, max_new_tokens=16, temperature=1.0, seed=3,
                     batch_size=6, stop=["e"])
    assert [s.gen_tokens for s in again.samples] == [s.gen_tokens for s in batch.samples]  # deterministic
    for i, s in enumerate(batch.samples):
        k = len(s.gen_tokens)
        assert 1 <= k <= 16
        torch.testing.assert_close(batch.logprobs[i, :k], teacher_forced(model, prompt_of(batch, i), s.gen_tokens,
                                                                         1.0), atol=1e-4, rtol=0)
        if "e" in decode(tok, s.gen_tokens):
            assert "e" not in decode(tok, s.gen_tokens[:-1]) and not s.truncated
        else:
            assert s.truncated == (k == 16 and s.gen_tokens[-1] != tok.eos_token_id)


def test_no_refill_where_rows_fit_one_batch_or_tokens_have_a_floor(tiny, monkeypatch):
    """A step's rows within one batch (the RL demo's 32 of 64) decode as before; `min_new_tokens` keeps chunks."""
    from coderl.rollout import hf

    model, tok = tiny
    used = []
    real = hf._refilled_rows
    monkeypatch.setattr(hf, "_refilled_rows", lambda *a, **k: used.append(1) or real(*a, **k))
    generate(model, tok, TASKS, samples_per_prompt=2, max_new_tokens=4, batch_size=10)
    generate(model, tok, TASKS, samples_per_prompt=2, max_new_tokens=4, batch_size=3, min_new_tokens=2)
    assert used == []
    generate(model, tok, TASKS, samples_per_prompt=2, max_new_tokens=4, batch_size=3)
    assert used == [1]
