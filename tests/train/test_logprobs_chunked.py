"""Chunked log-probs (`chunk_bytes`): the output projection, log-softmax and entropy over the loss-mask tokens
in checkpointed chunks give the values and the LoRA gradients of the full-logits path, with shared and
distinct prompts, with the entropy in the loss, in no-grad passes and with the value head; a model whose
logits are not the projection of its last hidden state keeps the full path."""

import warnings

import pytest

torch = pytest.importorskip("torch")

from coderl.train import logprobs as lp  # noqa: E402
from coderl.train.logprobs import build_sequences, token_logprobs, token_logprobs_and_values  # noqa: E402
from tests.models.tiny import tiny_llama  # noqa: E402
from tests.train.helpers import padded_rollout  # noqa: E402

FULL = 1 << 40  # never chunked


@pytest.fixture(scope="module")
def setup(tmp_path_factory):
    model, batch = padded_rollout(tiny_llama(tmp_path_factory.mktemp("model")))
    model.eval()
    return model, batch


def chunk_of(model, tokens: int) -> int:
    """chunk_bytes that hold `tokens` tokens' float32 logits."""
    return tokens * 4 * model.get_output_embeddings().weight.shape[0]


def run(model, seqs, chunk_bytes, **kw):
    model.zero_grad(set_to_none=True)
    out = token_logprobs(model, seqs, 0.7, chunk_bytes=chunk_bytes, **kw)
    logprobs, entropy = out if kw.get("with_entropy") else (out, None)
    weights = torch.linspace(-1, 1, logprobs.numel()).reshape(logprobs.shape)
    loss = (logprobs * weights).sum() + (0.3 * entropy.sum() if entropy is not None else 0.0)
    loss.backward()
    grads = {n: p.grad.clone() for n, p in model.named_parameters() if p.requires_grad}
    return logprobs.detach(), (entropy.detach() if entropy is not None else None), grads


@pytest.mark.parametrize("shared", [True, False])
@pytest.mark.parametrize("tokens", [1, 5])
def test_chunked_log_probs_and_gradients_equal_the_full_path(setup, shared, tokens, monkeypatch):
    model, batch = setup
    seqs = build_sequences(batch)
    assert lp._chunked(model, seqs, chunk_of(model, tokens)) and not lp._chunked(model, seqs, FULL)
    want_lp, want_ent, want_grads = run(model, seqs, FULL, with_entropy=True, shared_prompt=shared)
    calls, real = [], lp._chunk_stats
    monkeypatch.setattr(lp, "_chunk_stats", lambda *a: calls.append(1) or real(*a))
    got_lp, got_ent, got_grads = run(model, seqs, chunk_of(model, tokens), with_entropy=True, shared_prompt=shared)
    assert len(calls) >= 2 * -(-int((batch.mask != 0).sum()) // tokens)  # chunked, recomputed in backward
    torch.testing.assert_close(got_lp, want_lp, atol=1e-5, rtol=1e-5)
    torch.testing.assert_close(got_ent, want_ent, atol=1e-5, rtol=1e-5)
    assert (got_lp[batch.mask == 0] == 0).all() and (got_ent[batch.mask == 0] == 0).all()
    assert want_grads.keys() == got_grads.keys() and want_grads
    for name, g in want_grads.items():
        assert g.abs().max() > 0, name
        torch.testing.assert_close(got_grads[name], g, atol=1e-6, rtol=1e-4, msg=lambda m, n=name: f"{n}: {m}")


def test_the_chunks_hold_at_most_chunk_bytes_of_logits(setup, monkeypatch):
    model, batch = setup
    seqs = build_sequences(batch)
    sizes = []
    real = lp._chunk_stats

    def counting(head, temperature, with_entropy, entropy_grad, hidden, targets):
        sizes.append(hidden.shape[0])
        return real(head, temperature, with_entropy, entropy_grad, hidden, targets)

    monkeypatch.setattr(lp, "_chunk_stats", counting)
    with torch.no_grad():
        token_logprobs(model, seqs, 0.7, chunk_bytes=chunk_of(model, 4) + 3)  # not a whole token more
    masked = int((batch.mask != 0).sum())
    assert sum(sizes) == masked and max(sizes) == 4 and len(sizes) == -(-masked // 4)
    sizes.clear()
    run(model, seqs, chunk_of(model, 4))  # with a graph, each chunk is recomputed in backward
    assert sum(sizes) == 2 * masked


def test_a_no_grad_pass_is_the_same_chunked(setup):
    model, batch = setup
    seqs = build_sequences(batch)
    with torch.no_grad():
        want = token_logprobs(model, seqs, 1.0, chunk_bytes=FULL)
        got = token_logprobs(model, seqs, 1.0, chunk_bytes=chunk_of(model, 3))
    assert not got.requires_grad
    torch.testing.assert_close(got, want, atol=1e-5, rtol=1e-5)


def test_values_and_log_probs_chunked_equal_the_full_path(setup):
    from coderl.train.rl.value_head import ValueHead

    model, batch = setup
    seqs = build_sequences(batch)
    torch.manual_seed(1)
    head = ValueHead(model.config.hidden_size)
    results = []
    for chunk_bytes in (FULL, chunk_of(model, 2)):
        model.zero_grad(set_to_none=True)
        head.zero_grad(set_to_none=True)
        logprobs, values, entropy = token_logprobs_and_values(model, head, seqs, 0.7, chunk_bytes=chunk_bytes,
                                                              entropy_grad=False)
        assert not entropy.requires_grad
        (logprobs.sum() + (values ** 2).sum()).backward()
        grads = {n: p.grad.clone() for n, p in list(model.named_parameters()) + list(head.named_parameters())
                 if p.requires_grad}
        results.append((logprobs.detach(), values.detach(), entropy, grads))
    (lp0, v0, e0, g0), (lp1, v1, e1, g1) = results
    for got, want in ((lp1, lp0), (v1, v0), (e1, e0)):
        torch.testing.assert_close(got, want, atol=1e-5, rtol=1e-5)
    for name, g in g0.items():
        torch.testing.assert_close(g1[name], g, atol=1e-6, rtol=1e-4, msg=lambda m, n=name: f"{n}: {m}")


def test_a_model_whose_logits_are_not_its_projection_keeps_the_full_path(setup, monkeypatch):
    """A soft-capped or scaled head (Gemma 2, Cohere): the check on the one position the forward returns
    sees the difference, warns once, and the full logits are used."""
    model, batch = setup
    seqs = build_sequences(batch)
    handle = model.get_base_model().register_forward_hook(
        lambda module, args, out: out.__setitem__("logits", 30 * torch.tanh(out.logits / 30) * 2) or out)
    monkeypatch.setattr(lp, "_WARNED", set())
    try:
        with torch.no_grad():
            want = token_logprobs(model, seqs, 1.0, chunk_bytes=FULL)
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                got = token_logprobs(model, seqs, 1.0, chunk_bytes=chunk_of(model, 2))
                token_logprobs(model, seqs, 1.0, chunk_bytes=chunk_of(model, 2))
    finally:
        handle.remove()
        flagged = getattr(model, lp._NOT_PROJECTION, False)
        model.__dict__.pop(lp._NOT_PROJECTION, None)
    torch.testing.assert_close(got, want, atol=0, rtol=0)
    assert len([w for w in caught if "output projection" in str(w.message)]) == 1
    assert flagged  # checked once: later calls take the full path without a second forward


def test_backward_keeps_no_vocabulary_sized_tensor_when_chunked(setup):
    """What autograd saves for backward: the full path keeps [n, T, V] logits (several times over, with the
    entropy); the chunked path keeps each chunk's hidden states and recomputes the rest."""
    model, batch = setup
    seqs = build_sequences(batch)
    weight = model.get_output_embeddings().weight
    vocab = weight.shape[0]

    def saving(sizes):
        def pack(t):  # views of the projection's own weight (broadcast for a batched matmul) are no memory
            if t.untyped_storage().data_ptr() != weight.untyped_storage().data_ptr():
                sizes.append(t.shape)
            return t
        return pack

    def largest_saved(chunk_bytes):
        sizes = []
        with torch.autograd.graph.saved_tensors_hooks(saving(sizes), lambda t: t):
            token_logprobs(model, seqs, 0.7, with_entropy=True, chunk_bytes=chunk_bytes)
        return [s for s in sizes if len(s) and s[-1] == vocab and s.numel() > vocab]

    assert largest_saved(FULL)  # [n, T + 1, V] and [n, T, V] tensors
    assert not largest_saved(chunk_of(model, 1))  # one token's logits at a time, recomputed in backward


def test_a_piece_without_loss_tokens_is_still_on_the_graph(setup):
    """Rows whose mask is all zero (nothing to project): zeros that a backward can still run through, as
    the full path's `logprobs * 0`."""
    model, batch = setup
    seqs = build_sequences(batch, torch.tensor([0, 1]))
    seqs.mask = torch.zeros_like(seqs.mask)
    model.zero_grad(set_to_none=True)
    logprobs, entropy = token_logprobs(model, seqs, 1.0, with_entropy=True, chunk_bytes=chunk_of(model, 1))
    assert logprobs.requires_grad and entropy.requires_grad and not logprobs.any()
    (logprobs.sum() + entropy.sum()).backward()
