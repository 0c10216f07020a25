"""`coderl.rollout.generation.generate` on a tiny random Llama (CPU, no network).

Log-probs are checked against a teacher-forced forward pass; stop sequences and EOS against a
"scripted" model: a forward hook adds +100 to the logit of a chosen successor of each input token,
so the model emits a known token sequence (under greedy decoding and sampling alike).
"""

import pytest
import torch

from coderl.rollout import FORMATS, RolloutBatch, generate, prompt_text
from coderl.rollout.hf_callbacks import PolicyLogprobs, StopOnText, cut_generation, decode
from coderl.rollout.hf_config import HFOptions
from coderl.tasks.types import Task
from tests.models.tiny import tiny_model

SHORT = Task("t/short", "function", 'def add(a, b):\n    """Sum."""', (), entry_point="add")
LONG = Task("t/long", "function",
            'def square(x):\n    """Return x * x.\n\n    >>> square(3)\n    9\n    """\n', (), entry_point="square")
SCRIPT = "\n    return a+b\ndef g"  # its tokens are all distinct under the tiny tokenizer


@pytest.fixture(scope="module")
def tiny():
    return tiny_model(seed=0)


def teacher_forced(model, prompt_ids, gen_ids, temperature):
    """[len(gen_ids)] log_softmax(logits / temperature) of gen_ids from one unpadded forward pass."""
    ids = torch.tensor([list(prompt_ids) + list(gen_ids)])
    with torch.no_grad():
        logits = model(ids).logits[0].float()
    steps = logits[len(prompt_ids) - 1: len(prompt_ids) - 1 + len(gen_ids)]
    return torch.log_softmax(steps / temperature, dim=-1).gather(1, torch.tensor(gen_ids)[:, None]).squeeze(1)


def prompt_of(batch: RolloutBatch, i: int) -> list[int]:
    return batch.prompt_ids[i, batch.prompt_ids.shape[1] - int(batch.prompt_lengths[i]):].tolist()


def script(model, successors: dict[int, int]):
    """Make `model` emit successors[t] after token t (a forward hook on its logits); returns the handle."""
    table = torch.full((model.config.vocab_size,), -1, dtype=torch.long)
    for token, nxt in successors.items():
        table[token] = nxt

    def hook(module, args, kwargs, output):
        logits = output.logits
        input_ids = kwargs["input_ids"] if "input_ids" in kwargs else args[0]
        nxt = table[input_ids[:, -logits.shape[1]:]]  # [B, k]: successors of the tokens with logits
        add = torch.zeros_like(logits).scatter_(2, nxt.clamp(min=0)[..., None], 100.0)
        output.logits = logits + add * (nxt >= 0)[..., None]
        return output

    return model.register_forward_hook(hook, with_kwargs=True)


def script_chain(tokenizer, after: str, text: str, end: int | None) -> tuple[dict[int, int], list[int]]:
    """Successors making the model continue the prompt `after` with `text`, then `end` (e.g. EOS)."""
    ids = tokenizer(text, add_special_tokens=False)["input_ids"]
    start = tokenizer(after, add_special_tokens=False)["input_ids"][-1]
    assert len(set(ids)) == len(ids) and start not in ids
    chain = dict(zip([start, *ids[:-1]], ids))
    if end is not None:
        chain[ids[-1]] = end
    return chain, ids


# --- the batch ------------------------------------------------------------------------------

def test_batch_shapes_dtypes_groups_and_padding(tiny):
    model, tok = tiny
    batch = generate(model, tok, [SHORT, LONG], samples_per_prompt=3, max_new_tokens=6, temperature=1.0, seed=1, hf=HFOptions(batch_size=4))
    n = 6
    assert len(batch) == n and [s.group for s in batch.samples] == [0, 0, 0, 1, 1, 1]
    assert [s.task_id for s in batch.samples] == ["t/short"] * 3 + ["t/long"] * 3
    assert batch.group_ids.tolist() == [0, 0, 0, 1, 1, 1] and batch.group_ids.dtype == torch.long
    t = batch.completion_ids.shape[1]
    assert batch.completion_ids.shape == batch.mask.shape == batch.logprobs.shape == (n, t)
    assert t == max(len(s.gen_tokens) for s in batch.samples) <= 6
    assert batch.completion_ids.dtype == torch.long
    assert batch.mask.dtype == batch.logprobs.dtype == torch.float32
    for i, s in enumerate(batch.samples):
        task = [SHORT, LONG][s.group]
        ids = tok(task.prompt)["input_ids"]
        assert s.prompt == task.prompt  # completion format: the prompt verbatim
        assert int(batch.prompt_lengths[i]) == len(ids) and prompt_of(batch, i) == ids
        pad = batch.prompt_ids.shape[1] - len(ids)
        assert (batch.prompt_ids[i, :pad] == tok.pad_token_id).all()  # left padding
        k = len(s.gen_tokens)
        assert batch.mask[i].sum().item() == k and (batch.mask[i, :k] == 1).all()
        assert batch.completion_ids[i, :k].tolist() == list(s.gen_tokens)
        assert (batch.logprobs[i, k:] == 0).all() and (batch.logprobs[i, :k] < 0).all()
        assert s.raw_output == decode(tok, s.gen_tokens)
        assert list(s.code_tokens) == tok(s.completion, add_special_tokens=False)["input_ids"]
        assert s.truncated == (tok.eos_token_id not in s.gen_tokens and k == 6)


def test_validation_errors(tiny):
    model, tok = tiny
    with pytest.raises(ValueError, match="no tasks"):
        generate(model, tok, [])
    with pytest.raises(ValueError, match="expected one of"):
        generate(model, tok, [SHORT], format="xml")
    with pytest.raises(ValueError, match="top_p"):
        generate(model, tok, [SHORT], temperature=1.0, top_p=0.0)


# --- log-probs of the sampling policy -------------------------------------------------------

@pytest.mark.parametrize("temperature,top_p", [(1.0, 1.0), (0.7, 1.0), (0.7, 0.9), (1.0, 0.9), (0.0, 1.0)])
def test_logprobs_equal_teacher_forced_log_softmax(tiny, temperature, top_p):
    model, tok = tiny
    batch = generate(model, tok, [SHORT, LONG], samples_per_prompt=2, max_new_tokens=8,
                     temperature=temperature, top_p=top_p, seed=3)
    reference_t = temperature or 1.0  # greedy: defined at T = 1
    for i, s in enumerate(batch.samples):
        k = len(s.gen_tokens)
        expected = teacher_forced(model, prompt_of(batch, i), s.gen_tokens, reference_t)
        torch.testing.assert_close(batch.logprobs[i, :k], expected, atol=1e-4, rtol=0)
        if temperature == 0.0:  # greedy picks the argmax of the raw logits
            assert torch.allclose(expected, teacher_forced_max(model, prompt_of(batch, i), s.gen_tokens), atol=1e-5)


def teacher_forced_max(model, prompt_ids, gen_ids):
    ids = torch.tensor([list(prompt_ids) + list(gen_ids)])
    with torch.no_grad():
        logits = model(ids).logits[0].float()
    steps = logits[len(prompt_ids) - 1: len(prompt_ids) - 1 + len(gen_ids)]
    return torch.log_softmax(steps, dim=-1).max(dim=-1).values


def test_capture_sees_raw_logits_despite_model_generation_config(tiny, monkeypatch):
    """HF fills unset generation fields from model.generation_config (here a repetition penalty,
    top-k 1 and a low temperature); none of that may reach the capture or the sampling."""
    model, tok = tiny
    seen = []
    original = PolicyLogprobs.__call__

    def spy(self, input_ids, scores):
        seen.append(scores.clone())
        return original(self, input_ids, scores)

    monkeypatch.setattr(PolicyLogprobs, "__call__", spy)
    gc = model.generation_config
    monkeypatch.setattr(gc, "repetition_penalty", 5.0)
    monkeypatch.setattr(gc, "top_k", 1)
    monkeypatch.setattr(gc, "temperature", 0.05)
    monkeypatch.setattr(gc, "no_repeat_ngram_size", 1)
    batch = generate(model, tok, [LONG], max_new_tokens=5, temperature=0.7, top_p=0.5, min_new_tokens=5, seed=0)
    prompt = prompt_of(batch, 0)
    gen = list(batch.samples[0].gen_tokens)
    with torch.no_grad():
        logits = model(torch.tensor([prompt + gen])).logits[0].float()
    assert len(seen) == 5
    for step, scores in enumerate(seen):  # exactly the model's logits, before any processor
        torch.testing.assert_close(scores[0], logits[len(prompt) - 1 + step], atol=1e-4, rtol=0)
    torch.testing.assert_close(batch.logprobs[0], teacher_forced(model, prompt, gen, 0.7), atol=1e-4, rtol=0)


def test_model_generation_config_that_cannot_be_neutralised_is_refused(tiny, monkeypatch):
    model, tok = tiny
    monkeypatch.setattr(model.generation_config, "suppress_tokens", [5])
    with pytest.raises(ValueError, match="suppress_tokens"):
        generate(model, tok, [SHORT], max_new_tokens=2)


def test_dropout_is_off_during_generation_and_mode_is_restored(tiny):
    model, tok = tiny
    for layer in model.model.layers:
        layer.self_attn.attention_dropout = 0.5
    try:
        model.train()
        batch = generate(model, tok, [LONG], samples_per_prompt=2, max_new_tokens=6, temperature=1.0)
        assert model.training
        model.eval()
        for i, s in enumerate(batch.samples):
            expected = teacher_forced(model, prompt_of(batch, i), s.gen_tokens, 1.0)
            torch.testing.assert_close(batch.logprobs[i, :len(s.gen_tokens)], expected, atol=1e-4, rtol=0)
    finally:
        for layer in model.model.layers:
            layer.self_attn.attention_dropout = 0.0
        model.eval()


# --- seeds and padding ----------------------------------------------------------------------

def test_same_seed_same_outputs_and_caller_rng_untouched(tiny):
    model, tok = tiny
    kwargs = {"samples_per_prompt": 3, "max_new_tokens": 8, "temperature": 1.0}
    torch.manual_seed(123)
    expected_draw = torch.rand(3)
    torch.manual_seed(123)
    a = generate(model, tok, [SHORT, LONG], seed=7, **kwargs)
    assert torch.equal(torch.rand(3), expected_draw)  # generate forks the RNG
    b = generate(model, tok, [SHORT, LONG], seed=7, **kwargs)
    c = generate(model, tok, [SHORT, LONG], seed=8, **kwargs)
    assert torch.equal(a.completion_ids, b.completion_ids) and torch.equal(a.logprobs, b.logprobs)
    assert [s.raw_output for s in a.samples] == [s.raw_output for s in b.samples]
    assert not torch.equal(a.completion_ids, c.completion_ids)


def test_left_padding_gives_the_same_greedy_tokens(tiny):
    model, tok = tiny
    alone = generate(model, tok, [SHORT], max_new_tokens=10)
    batched = generate(model, tok, [LONG, SHORT], max_new_tokens=10)
    assert batched.prompt_lengths[1] < batched.prompt_lengths[0]  # SHORT is left-padded in the batch
    assert batched.samples[1].gen_tokens == alone.samples[0].gen_tokens
    k = len(alone.samples[0].gen_tokens)
    torch.testing.assert_close(batched.logprobs[1, :k], alone.logprobs[0, :k], atol=1e-5, rtol=0)


# --- stops, EOS, truncation -----------------------------------------------------------------

def test_stop_sequence_cuts_text_and_ids_at_the_completing_token(tiny):
    model, tok = tiny
    chain, ids = script_chain(tok, SHORT.prompt, SCRIPT, end=tok.eos_token_id)
    handle = script(model, chain)
    try:
        default = generate(model, tok, [SHORT, LONG], max_new_tokens=20, temperature=1.0)
        no_stop = generate(model, tok, [SHORT], max_new_tokens=20, stop=[])
        custom = generate(model, tok, [SHORT], max_new_tokens=20, stop=["+b"])
    finally:
        handle.remove()
    s = default.samples[0]
    # "\ndef " is complete once the token " " after "def" is decoded: that token is the last kept.
    assert list(s.gen_tokens) == ids[:ids.index(tok(" ", add_special_tokens=False)["input_ids"][0]) + 1]
    assert s.raw_output == "\n    return a+b\ndef " and s.completion == "\n    return a+b"
    assert not s.truncated
    k = len(s.gen_tokens)
    assert default.mask[0].sum().item() == k and default.completion_ids[0, :k].tolist() == list(s.gen_tokens)
    assert (default.completion_ids[0, k:] == tok.pad_token_id).all()
    # The other row of the batch is unaffected by row 0's stop and stays consistent.
    other = default.samples[1]
    assert default.mask[1].sum().item() == len(other.gen_tokens)
    # Without stop sequences generation runs to the scripted EOS; the format still cuts its text.
    n = no_stop.samples[0]
    assert list(n.gen_tokens) == ids + [tok.eos_token_id] and not n.truncated
    assert n.raw_output == SCRIPT and n.completion == "\n    return a+b"
    c = custom.samples[0]
    assert c.raw_output == "\n    return a+b" and c.completion == "\n    return a"
    assert list(c.gen_tokens) == ids[:ids.index(tok("b", add_special_tokens=False)["input_ids"][0]) + 1]


def test_eos_ends_a_sample_and_min_new_tokens_delays_it(tiny):
    model, tok = tiny
    eos = tok.eos_token_id
    handle = script(model, {t: eos for t in range(model.config.vocab_size)})  # EOS after anything
    try:
        first = generate(model, tok, [SHORT, LONG], max_new_tokens=8, temperature=1.0)
        delayed = generate(model, tok, [SHORT, LONG], max_new_tokens=8, temperature=0.7, top_p=0.9,
                           min_new_tokens=3)
        for i, s in enumerate(delayed.samples):  # log-probs still of the raw policy (EOS not masked)
            expected = teacher_forced(model, prompt_of(delayed, i), s.gen_tokens, 0.7)
            torch.testing.assert_close(delayed.logprobs[i, :len(s.gen_tokens)], expected, atol=1e-4, rtol=0)
    finally:
        handle.remove()
    for s in first.samples:
        assert s.gen_tokens == (eos,) and s.raw_output == "" and s.completion == "" and not s.truncated
    assert first.completion_ids.shape[1] == 1 and first.mask.sum().item() == 2
    for s in delayed.samples:
        assert len(s.gen_tokens) == 4 and s.gen_tokens[-1] == eos and eos not in s.gen_tokens[:3]
        assert not s.truncated


def test_truncated_iff_max_new_tokens_reached_without_eos_or_stop(tiny):
    model, tok = tiny
    batch = generate(model, tok, [SHORT, LONG], samples_per_prompt=2, max_new_tokens=5, temperature=1.0,
                     stop=[], seed=2)
    for s in batch.samples:
        ended = tok.eos_token_id in s.gen_tokens
        assert s.truncated == (not ended)
        assert len(s.gen_tokens) == (s.gen_tokens.index(tok.eos_token_id) + 1 if ended else 5)


def test_cut_generation_on_synthetic_ids(tiny):
    _, tok = tiny
    eos, pad = tok.eos_token_id, tok.pad_token_id
    ids = tok("\n    return x\ndef g", add_special_tokens=False)["input_ids"]
    completes = next(k for k in range(1, len(ids) + 1) if "\ndef " in decode(tok, ids[:k]))
    assert cut_generation(ids + [pad, pad], tok, ["\ndef "], {eos}) == (completes, True)
    assert cut_generation(ids, tok, ["\nclass "], {eos}) == (len(ids), False)  # no stop, no EOS
    assert cut_generation(ids[:2] + [eos] + ids[2:], tok, ["\ndef "], {eos}) == (3, True)  # EOS first
    assert cut_generation(ids + [eos], tok, [], {eos}) == (len(ids) + 1, True)  # EOS kept
    assert cut_generation([eos, pad], tok, ["\ndef "], {eos}) == (1, True)
    # A stop must lie in the generated text: a prompt ending in "\n" followed by "def " is no stop.
    head = tok("def f", add_special_tokens=False)["input_ids"]
    assert cut_generation(head, tok, ["\ndef "], {eos}) == (len(head), False)


def test_stop_on_text_is_per_row_and_ignores_the_prompt(tiny):
    _, tok = tiny
    prompt = tok("x = 1\n", add_special_tokens=False)["input_ids"]
    gen = tok("def f", add_special_tokens=False)["input_ids"]  # prompt + gen contains "\ndef "
    stop_gen = tok("y\ndef f", add_special_tokens=False)["input_ids"]
    width = len(prompt)
    rows = [prompt + gen + [tok.pad_token_id] * (len(stop_gen) - len(gen)), prompt + stop_gen, prompt + stop_gen]
    criterion = StopOnText(tok, width, [("\ndef ",), ("\ndef ",), ()])
    assert criterion(torch.tensor(rows), None).tolist() == [False, True, False]


# --- chat formats ---------------------------------------------------------------------------

def test_chat_prompt_is_the_template_text_without_extra_special_tokens(tiny):
    model, tok = tiny
    for name in ("chat", "reasoning"):
        batch = generate(model, tok, [SHORT], format=name, max_new_tokens=4)
        text = prompt_text(FORMATS[name].render(SHORT, tok), tok)
        assert batch.samples[0].prompt == text and text.endswith("<|im_start|>assistant\n")
        assert prompt_of(batch, 0) == tok(text, add_special_tokens=False)["input_ids"]
        assert batch.samples[0].completion == FORMATS[name].extract(SHORT, batch.samples[0].raw_output)[0]


@pytest.mark.parametrize("temperature", [0.0, 1.0])
def test_shared_prompt_prefill_changes_nothing(tiny, temperature, monkeypatch):
    """Rows repeating a prompt share one prefill of it: same tokens, same log-probs as separate prefills."""
    from coderl.rollout import hf
    from coderl.rollout.hf_config import HFOptions

    model, tok = tiny
    caches = []
    real = hf._shared_prefill
    monkeypatch.setattr(hf, "_shared_prefill", lambda *a, **k: caches.append(real(*a, **k)) or caches[-1])
    kwargs = dict(samples_per_prompt=3, max_new_tokens=8, temperature=temperature, seed=5)
    shared = generate(model, tok, [SHORT, LONG], **kwargs, hf=HFOptions(batch_size=6, share_prompts=True))
    assert len(caches) == 1 and caches[0] is not None  # one chunk, two distinct prompts for six rows
    separate = generate(model, tok, [SHORT, LONG], **kwargs, hf=HFOptions(batch_size=6, share_prompts=False))
    assert shared.completion_ids.tolist() == separate.completion_ids.tolist()
    assert [s.completion for s in shared.samples] == [s.completion for s in separate.samples]
    torch.testing.assert_close(shared.logprobs, separate.logprobs, atol=1e-5, rtol=0)
    torch.testing.assert_close(shared.mask, separate.mask)


# --- finished rows leave the batch (compaction) ---------------------------------------------

def spy_calls(monkeypatch):
    """Record (rows, steps, rows still running) of every `model.generate` call `generate` makes."""
    from coderl.rollout import hf

    calls, real = [], hf._generate_chunk

    def spy(*args, **kwargs):
        out = real(*args, **kwargs)
        calls.append((args[2].shape[0], out[0].shape[1], sum(out[2])))
        return out

    monkeypatch.setattr(hf, "_generate_chunk", spy)
    return calls


def test_compaction_keeps_greedy_tokens_and_logprobs(tiny, monkeypatch):
    """The LONG rows stop at once ("\\n"), so the call ends with the six SHORT rows running; they go on
    alone on their rows of the KV cache: the same tokens and log-probs as one 12-row call."""
    model, tok = tiny
    calls = spy_calls(monkeypatch)
    kwargs = dict(samples_per_prompt=6, max_new_tokens=24, temperature=0.0, stop=["\n"])
    compacted = generate(model, tok, [SHORT, LONG], **kwargs, hf=HFOptions(batch_size=12, compact_rows=8))
    assert calls == [(12, 1, 6), (6, 23, 0)]
    calls.clear()
    plain = generate(model, tok, [SHORT, LONG], **kwargs, hf=HFOptions(batch_size=12, compact_rows=0))
    assert calls == [(12, 24, 0)]
    assert compacted.completion_ids.tolist() == plain.completion_ids.tolist()
    assert [len(s.gen_tokens) for s in compacted.samples] == [24] * 6 + [1] * 6
    torch.testing.assert_close(compacted.logprobs, plain.logprobs, atol=1e-5, rtol=0)
    torch.testing.assert_close(compacted.mask, plain.mask)


@pytest.mark.parametrize("stop, rounds", [("e", [(12, 18, 6), (6, 6, 0)]), ("t", [(12, 15, 6), (6, 9, 0)])])
def test_compacted_sampling_logprobs_are_the_policy_of_every_token(tiny, monkeypatch, stop, rounds):
    """Sampled rows that continue in a smaller call still record log_softmax(logits / T) of each
    token drawn (checked against one unpadded forward pass), and each row ends where its stop is."""
    model, tok = tiny
    calls = spy_calls(monkeypatch)
    batch = generate(model, tok, [SHORT, LONG], samples_per_prompt=6, max_new_tokens=24, temperature=1.0, seed=1, stop=[stop], hf=HFOptions(batch_size=12))
    assert calls == rounds
    for i, s in enumerate(batch.samples):
        k = len(s.gen_tokens)
        expected = teacher_forced(model, prompt_of(batch, i), s.gen_tokens, 1.0)
        torch.testing.assert_close(batch.logprobs[i, :k], expected, atol=1e-4, rtol=0)
        if stop in decode(tok, s.gen_tokens):  # a row ends at the token that completes its stop
            assert stop not in decode(tok, s.gen_tokens[:-1]) and not s.truncated
        else:  # otherwise at EOS or the 24-token budget
            assert s.truncated == (len(s.gen_tokens) == 24 and s.gen_tokens[-1] != tok.eos_token_id)


def test_stop_on_text_sees_tokens_of_earlier_rounds(tiny):
    """A stop split between the tokens a row drew before the call ended and the ones after is found."""
    _, tok = tiny
    before = tok("y\nde", add_special_tokens=False)["input_ids"]
    after = tok("f g", add_special_tokens=False)["input_ids"]
    prompt = tok("x = 1", add_special_tokens=False)["input_ids"]
    rows = torch.tensor([prompt + before + after])
    width = len(prompt) + len(before)
    assert StopOnText(tok, width, [("\ndef ",)], [before])(rows, None).tolist() == [True]
    assert StopOnText(tok, width, [("\ndef ",)])(rows, None).tolist() == [False]


def test_draw_is_softmax_of_the_scores_and_never_a_masked_token():
    """DrawToken's inverse-CDF draw (rollout/hf_callbacks.py) against the exact distribution: a chi-square over
    200,000 rows, tokens masked to -inf (top-p, the EOS ban) never drawn, whether the distribution comes from the
    scores or from the captured policy with the banned tokens taken out, and the rare u that rounds up to the
    total giving the last token of positive probability, not one past the vocabulary."""
    import unittest.mock as mock

    from coderl.rollout.hf_callbacks import DrawToken, PolicyLogprobs, draw

    torch.manual_seed(0)
    raw = torch.tensor([[1.0, float("-inf"), 0.0, 2.5, float("-inf"), -1.0]])
    probs = torch.softmax(raw, -1)[0]
    live = probs > 0

    def chi2(ids):
        counts = torch.bincount(ids, minlength=6).double()
        assert counts[~live].sum() == 0
        expected = probs[live].double() * len(ids)
        return float(((counts[live] - expected) ** 2 / expected).sum())

    n = 200_000
    assert chi2(draw(probs.expand(n, -1))) < 20.5  # 3 degrees of freedom: p < 1e-4 unless the draw is wrong
    via_scores = DrawToken()(torch.zeros(n, 1, dtype=torch.long), raw.expand(n, -1).clone())
    assert chi2(via_scores.argmax(-1)) < 20.5
    # the captured policy at T 2 over unbanned logits, with an earlier processor's ban (-inf) in the scores
    capture = PolicyLogprobs(2.0, 0)
    logits = raw.masked_fill(torch.isinf(raw), 0.7).expand(n, -1).clone()
    capture(torch.zeros(n, 0, dtype=torch.long), logits)
    banned = logits.clone().masked_fill_(torch.isinf(raw).expand(n, -1), float("-inf"))
    probs = torch.softmax(raw / 2.0, -1)[0]
    picked = DrawToken(capture)(torch.zeros(n, 1, dtype=torch.long), banned)
    assert chi2(picked.argmax(-1)) < 20.5 and torch.isposinf(picked).sum() == n
    with mock.patch("torch.rand", lambda *a, **k: torch.ones(*a[0]) * (1 + 1e-6)):  # u past the total
        assert draw(torch.tensor([[0.2, 0.0, 0.3, 0.5, 0.0, 0.0]])).tolist() == [3]
