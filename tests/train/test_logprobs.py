"""Shared-prompt forward: each distinct prompt runs once, its KV cache is gathered to the rows sharing it.

The log-probs and the LoRA gradients must equal the plain forward's (every row = prompt + completion),
with left-padded prompts of different lengths and right-padded completions of different lengths.
"""

import pytest

torch = pytest.importorskip("torch")

from coderl.train.logprobs import build_sequences, prompt_groups, token_logprobs  # noqa: E402
from tests.models.tiny import tiny_llama  # noqa: E402
from tests.train.helpers import padded_rollout  # noqa: E402


@pytest.fixture(scope="module")
def setup(tmp_path_factory):
    return padded_rollout(tiny_llama(tmp_path_factory.mktemp("model")))


def _logprobs_and_grads(model, seqs, shared):
    model.zero_grad(set_to_none=True)
    logprobs = token_logprobs(model, seqs, 0.7, shared_prompt=shared)
    weights = torch.linspace(-1, 1, logprobs.numel()).reshape(logprobs.shape)
    (logprobs * weights).sum().backward()
    grads = {n: p.grad.clone() for n, p in model.named_parameters() if p.requires_grad}
    return logprobs.detach(), grads


def test_shared_prompt_forward_matches_the_plain_forward(setup):
    model, batch = setup
    seqs = build_sequences(batch)
    first, inverse = prompt_groups(seqs)
    assert sorted(first.tolist()) == [0, 3]  # two prompts, three rows each
    assert inverse.tolist() in ([0, 0, 0, 1, 1, 1], [1, 1, 1, 0, 0, 0])
    assert len(set(batch.prompt_lengths.tolist())) == 2  # one prompt is left-padded
    assert len(set(batch.mask.sum(1).tolist())) >= 3  # completions end at different positions
    model.eval()
    plain, plain_grads = _logprobs_and_grads(model, seqs, shared=False)
    shared, shared_grads = _logprobs_and_grads(model, seqs, shared=True)
    assert torch.allclose(shared, plain, atol=1e-5), (shared - plain).abs().max()
    assert (shared[batch.mask == 0] == 0).all()
    assert plain_grads.keys() == shared_grads.keys() and plain_grads
    for name, g in plain_grads.items():
        assert g.abs().max() > 0, name
        assert torch.allclose(shared_grads[name], g, atol=1e-6, rtol=1e-4), name


def test_distinct_prompts_take_the_plain_path(setup):
    _, batch = setup
    assert prompt_groups(build_sequences(batch, torch.tensor([0, 3]))) is None


def test_values_with_shared_prompts_match_the_plain_forward(setup):
    # The value-head loop shares prompts too (shared_prompt): same log-probs, values and gradients.
    from coderl.train.logprobs import token_logprobs_and_values
    from coderl.train.rl.value_head import ValueHead

    model, batch = setup
    seqs = build_sequences(batch)
    torch.manual_seed(1)
    head = ValueHead(model.config.hidden_size)
    torch.nn.init.normal_(head.linear.weight, std=0.1)  # zero-initialised: make the values depend on the states
    model.eval()
    outs = {}
    for shared in (False, True):
        model.zero_grad(set_to_none=True)
        head.zero_grad(set_to_none=True)
        logprobs, values, entropy = token_logprobs_and_values(model, head, seqs, 0.7, shared_prompt=shared)
        (logprobs.sum() + values.sum() + 0.1 * entropy.sum()).backward()
        grads = {n: p.grad.clone() for n, p in [*model.named_parameters(), *head.named_parameters()]
                 if p.requires_grad}
        outs[shared] = (logprobs.detach(), values.detach(), entropy.detach(), grads)
    for a, b in zip(outs[False][:3], outs[True][:3]):
        assert torch.allclose(a, b, atol=1e-5), (a - b).abs().max()
    for name, g in outs[False][3].items():
        assert torch.allclose(g, outs[True][3][name], atol=1e-4), name


def test_training_entropy_is_finite_for_masked_vocabulary():
    # -inf logits (a masked vocabulary) gave NaN: 0 * log 0.  The guarded entropy gives 0 for them.
    from types import SimpleNamespace

    from coderl.train.logprobs import _entropy

    inf = float("inf")
    logits = torch.tensor([[[0.0, -inf, 1.0], [-inf, -inf, 0.0]]], requires_grad=True)
    entropy = _entropy(logits, SimpleNamespace(mask=torch.ones(1, 2)))
    p = torch.softmax(torch.tensor([0.0, 1.0]), 0)
    assert torch.allclose(entropy, torch.tensor([[float(-(p * p.log()).sum()), 0.0]]))
    entropy.sum().backward()
    assert torch.isfinite(logits.grad).all()


def test_attention_follows_attention_mask_and_the_loss_follows_mask(setup):
    """A row whose completion holds tokens the policy did not choose (feedback: attended, loss mask 0):
    those tokens get log-prob 0, and the tokens after them are scored with the feedback in their context,
    i.e. exactly as in a forward where every token is the policy's."""
    import dataclasses

    model, batch = setup
    model.eval()
    rows = torch.tensor([0, 3])  # different prompts; completions 7 tokens long, no padding
    full = dataclasses.replace(batch, samples=[batch.samples[i] for i in rows], prompt_ids=batch.prompt_ids[rows],
                               prompt_lengths=batch.prompt_lengths[rows], completion_ids=batch.completion_ids[rows],
                               mask=batch.mask[rows].clone(), logprobs=batch.logprobs[rows],
                               group_ids=batch.group_ids[rows], attention_mask=None)
    assert (full.mask == 1).all()
    feedback = full.mask.clone()
    feedback[0, 2:4] = 0  # row 0: tokens 2 and 3 are feedback
    mixed = dataclasses.replace(full, mask=feedback, attention_mask=full.mask.clone())
    dropped = dataclasses.replace(full, mask=feedback, attention_mask=None)  # = mask: feedback not attended
    seqs = build_sequences(mixed)
    assert seqs.attention_mask[0].sum() == int(full.prompt_lengths[0]) + 7  # feedback in the sequence
    assert torch.equal(seqs.mask, feedback)  # ... and out of the loss
    with torch.no_grad():
        plain = token_logprobs(model, build_sequences(full), shared_prompt=False)
        got = token_logprobs(model, seqs, shared_prompt=False)
        blind = token_logprobs(model, build_sequences(dropped), shared_prompt=False)
    assert (got[0, 2:4] == 0).all()
    keep = feedback > 0
    assert torch.allclose(got[keep], plain[keep], atol=1e-5), (got - plain).abs().max()
    # Without the feedback in the attention mask, the later tokens' context differs: so it is the
    # attention mask, not the loss mask, that build_sequences attends with.
    assert not torch.allclose(blind[0, 4:], plain[0, 4:], atol=1e-4)


@pytest.mark.parametrize("shared", [False, True])
def test_columns_after_the_last_loss_token_are_not_run_and_change_nothing(setup, shared):
    """Completions padded far past every row's last loss token (as an RL batch is, to its longest completion):
    the pass runs only up to that token (`_trimmed`), and the log-probs, values, entropy and gradients equal the
    pass over the whole width (`_stats` on the untrimmed sequences), widened back with zeros."""
    from coderl.train import logprobs as lp
    from coderl.train.rl.value_head import ValueHead

    model, batch = setup
    seqs = build_sequences(batch)
    extra = 9
    n = seqs.input_ids.shape[0]
    zeros = torch.zeros(n, extra, dtype=torch.long)
    wide = lp.Sequences(torch.cat([seqs.input_ids, zeros + 1], 1), torch.cat([seqs.attention_mask, zeros], 1),
                        torch.cat([seqs.position_ids, zeros], 1), torch.cat([seqs.completion_ids, zeros + 1], 1),
                        torch.cat([seqs.mask, zeros.float()], 1))
    width = wide.completion_ids.shape[1]
    last = int((wide.mask != 0).any(0).nonzero()[-1])
    assert lp._trimmed(wide).completion_ids.shape[1] == last + 1 <= width - extra
    torch.manual_seed(1)
    head = ValueHead(model.config.hidden_size)
    torch.nn.init.normal_(head.linear.weight, std=0.1)
    model.eval()
    outs = []
    for run in (lambda: lp.token_logprobs_and_values(model, head, wide, 0.7, shared_prompt=shared),
                lambda: lp._stats(model, head, wide, 0.7, entropy_grad=True, shared_prompt=shared, chunk_bytes=None,
                                  with_entropy=True)):
        model.zero_grad(set_to_none=True)
        head.zero_grad(set_to_none=True)
        logprobs, values, entropy = run()
        assert logprobs.shape == values.shape == entropy.shape == (n, width)
        weights = torch.linspace(-1, 1, logprobs.numel()).reshape(logprobs.shape)
        ((logprobs * weights).sum() + values.sum() + 0.1 * entropy.sum()).backward()
        grads = {name: p.grad.clone() for name, p in [*model.named_parameters(), *head.named_parameters()]
                 if p.requires_grad}
        outs.append((logprobs.detach(), values.detach(), entropy.detach(), grads))
    (trim_lp, *trim_rest, trim_grads), (full_lp, *full_rest, full_grads) = outs
    assert (trim_lp[:, last + 1:] == 0).all() and (full_lp[:, last + 1:] == 0).all()
    for a, b in zip([trim_lp, *trim_rest], [full_lp, *full_rest]):
        torch.testing.assert_close(a, b, atol=1e-5, rtol=1e-5)
    assert trim_grads.keys() == full_grads.keys() and trim_grads
    for name, g in full_grads.items():
        torch.testing.assert_close(trim_grads[name], g, atol=1e-6, rtol=1e-4, msg=name)
