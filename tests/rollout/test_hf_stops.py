"""Stopping on text without decoding every step (`hf_callbacks.StopOnText`, `RowsFinished`) against the
rule they replace, kept here as `ReferenceStopOnText` / `ReferenceRowsFinished` (the code before issue
15): decode every row's whole generated text after every step and stop it once the text holds one of
its stops.  Random and adversarial token streams (stop fragments, fences, UTF-8 characters split into
byte tokens, EOS, special tokens) with byte-level BPE tokenizers (the tiny one, with and without
clean-up of tokenization spaces, and the bundled SmolLM2's when it is in the cache) and a
SentencePiece-style one (Metaspace + byte fallback), over one generate call or several (the carry of
compaction); then `generate` itself with the reference criteria patched in, and the static cache.
"""

import random
from functools import cache

import pytest
import torch

from coderl.rollout import generation, hf, hf_callbacks, hf_config
from coderl.rollout.engine import Sampling
from coderl.rollout.formats import CHAT_STOPS, COMPLETION_STOPS, first_stop
from coderl.rollout.hf_callbacks import RowsFinished, StopOnText, decode
from coderl.rollout.hf_config import HFOptions
from coderl.tasks.types import Task
from tests.models.tiny import tiny_model, tiny_tokenizer

# --- the rule before issue 15 ---------------------------------------------------------------


class ReferenceStopOnText:
    """The old `StopOnText`: decodes each row's carry + generated tokens after every step."""

    def __init__(self, tokenizer, prompt_length, stops, carry=None, eos_ids=None):
        self.tokenizer, self.prompt_length, self.stops = tokenizer, prompt_length, stops
        self.carry = carry or [[] for _ in stops]
        self.done = [False] * len(stops)
        self.eos_ids = list(eos_ids or [])  # tracks no EOS: ReferenceRowsFinished reads it for itself

    @property
    def finished(self):
        return torch.tensor(self.done, dtype=torch.bool)

    def __call__(self, input_ids, scores, **kwargs):
        for i, row_stops in enumerate(self.stops):
            if row_stops and not self.done[i]:
                text = decode(self.tokenizer, self.carry[i] + input_ids[i, self.prompt_length:].tolist())
                self.done[i] = first_stop(text, row_stops) is not None
        return torch.tensor(self.done, dtype=torch.bool, device=input_ids.device)


class ReferenceRowsFinished:
    """The old `RowsFinished`."""

    def __init__(self, stop, leave):
        self.eos = torch.tensor(stop.eos_ids or [-1], dtype=torch.long)
        self.stop, self.leave, self.eos_seen, self.running = stop, leave, None, None

    def __call__(self, input_ids, scores, **kwargs):
        last = torch.isin(input_ids[:, -1], self.eos.to(input_ids.device))
        self.eos_seen = last if self.eos_seen is None else self.eos_seen | last
        done = self.eos_seen
        if self.stop is not None:
            done = done | torch.tensor(self.stop.done, dtype=torch.bool, device=input_ids.device)
        if 0 < int((~done).sum()) <= self.leave:
            self.running = (~done).tolist()
            return torch.ones_like(done)
        return done


# --- tokenizers -----------------------------------------------------------------------------

CORPUS = ["def add(a, b):\n    return a + b\n", "```python\nx = 1\n```\n", "Here is the code:\n```\nprint(x)\n```\n",
          "class Point:\n    pass\n", "if __name__ == '__main__':\n    main()\n", "café € 😀 naïve\n", "# comment\n"]


@cache
def tiny():
    return tiny_tokenizer()


@cache
def tiny_cleanup():
    tok = tiny_tokenizer()
    tok.clean_up_tokenization_spaces = True  # transformers skips it for BPE unless told otherwise
    tok.clean_up_tokenization_spaces_for_bpe_even_though_it_will_corrupt_output = True
    assert decode(tok, tok("a .", add_special_tokens=False)["input_ids"]) == "a."
    return tok


@cache
def smollm2():
    from transformers import AutoTokenizer

    from coderl.models.convert import is_converted
    from coderl.models.spec import builtin_dir

    folder = builtin_dir("smollm2-135m-instruct") / "hf"
    if not is_converted(folder):
        pytest.skip("the bundled SmolLM2 is not in the cache (its tokenizer is used offline only)")
    return AutoTokenizer.from_pretrained(str(folder))


@cache
def metaspace():
    """A SentencePiece-style BPE: Metaspace pre-tokenizer, byte fallback, Llama's decoder sequence."""
    import json

    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    specials = ["<unk>", "<s>", "</s>"]
    bpe = Tokenizer(models.BPE(unk_token="<unk>"))
    bpe.pre_tokenizer = pre_tokenizers.Metaspace()
    bpe.train_from_iterator(CORPUS * 4, trainer=trainers.BpeTrainer(vocab_size=200, special_tokens=specials,
                                                                    show_progress=False))
    spec = json.loads(bpe.to_str())["model"]
    vocab = dict(spec["vocab"])
    for b in range(256):
        vocab.setdefault(f"<0x{b:02X}>", len(vocab))
    merges = [tuple(m.split(" ")) if isinstance(m, str) else tuple(m) for m in spec["merges"]]
    tok = Tokenizer(models.BPE(vocab=vocab, merges=merges, unk_token="<unk>", byte_fallback=True))
    tok.pre_tokenizer = pre_tokenizers.Metaspace()
    tok.decoder = decoders.Sequence([decoders.Replace("▁", " "), decoders.ByteFallback(), decoders.Fuse(),
                                     decoders.Strip(" ", 1, 0)])
    return PreTrainedTokenizerFast(tokenizer_object=tok, bos_token="<s>", eos_token="</s>", unk_token="<unk>",
                                   pad_token="</s>", additional_special_tokens=[])


TOKENIZERS = {"tiny": tiny, "tiny-cleanup": tiny_cleanup, "smollm2": smollm2, "metaspace": metaspace}


def test_decoding_modes():
    assert hf_callbacks._vocab(tiny()).mode == "window"
    assert hf_callbacks._vocab(metaspace()).mode == "table"
    from tokenizers import Tokenizer, decoders, models
    from transformers import PreTrainedTokenizerFast

    wp = Tokenizer(models.WordPiece({"[UNK]": 0, "a": 1, "##b": 2}, unk_token="[UNK]"))
    wp.decoder = decoders.WordPiece()
    assert hf_callbacks._vocab(PreTrainedTokenizerFast(tokenizer_object=wp, unk_token="[UNK]")).mode == "every"


# --- token streams --------------------------------------------------------------------------

FRAGMENTS = ["```", "```python\n", "```\n", "\n```\n", "\n```", "``", "`", "  ```  \n", "```py", "\n", "\n\n",
             "def ", "\ndef f", "\nclass ", "\nprint(", "print(", "\n#", "#", "\nif __name__", "if", "__name__",
             "é", "€", "😀", "café", "ab", "a", "b", "c", "e", " ", "x = 1", "(", ")", " .", " n't", "Here is:",
             "    return x\n"]
STOP_SETS = [COMPLETION_STOPS, CHAT_STOPS, ("\n```",), ("€", "ab"), ("😀",), ("é\n", "``"), (), ("\n",),
             CHAT_STOPS + ("\ndef ",), ("e",), ("a", "b", "c"), ("\n\n\n",), ("café",), (" .",)]


@cache
def _byte_chars():
    """GPT-2's byte -> printable character map (byte-level BPE vocabularies hold all 256)."""
    bs = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + list(range(ord("®"), 256))
    cs, n = bs[:], 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return dict(zip(bs, map(chr, cs)))


@cache
def _vocabulary(tok):
    return tok.get_vocab()


def byte_tokens(tok, text: str) -> list[int]:
    """`text`'s UTF-8 bytes as one token each (byte-level or byte-fallback vocabularies)."""
    vocab = _vocabulary(tok)
    chars = _byte_chars()
    out = []
    for b in text.encode():
        name = f"<0x{b:02X}>" if f"<0x{b:02X}>" in vocab else chars[b]
        out.append(vocab[name])
    return out


def stream(tok, rng: random.Random, n: int) -> list[int]:
    ids: list[int] = []
    while len(ids) < n:
        r = rng.random()
        if r < 0.5:
            ids += tok(rng.choice(FRAGMENTS), add_special_tokens=False)["input_ids"]
        elif r < 0.65:
            text = rng.choice(["é", "€", "😀", "ïx", "\n"])
            split = byte_tokens(tok, text)
            ids += split[: rng.randint(1, len(split))] if rng.random() < 0.3 else split  # sometimes cut short
        elif r < 0.97:
            ids.append(rng.randrange(3, len(tok)))
        else:
            ids.append(rng.randrange(0, 3))  # special tokens, EOS among them
    return ids[:n]


def reference_stop_step(tok, before: list[int], ids: list[int], stops, eos: set[int]) -> int | None:
    """1-based step whose token first makes the row's text hold a stop, or None (up to its EOS)."""
    if not stops:
        return None
    for k in range(1, len(ids) + 1):
        if first_stop(decode(tok, before + ids[:k]), stops) is not None:
            return k
        if ids[k - 1] in eos:
            return None
    return None


def drive(tok, streams, stops, prompt, splits, eos, *, leave=0):
    """Feed `streams` one token a step as `generate` would, in rounds ending after the steps in `splits`
    (the rows still running go on with their tokens as carry, like `_generate_rows`); per row the step
    at which StopOnText stopped it (or None), and the number of rows decoded."""
    n, pad = len(streams[0]), tok.pad_token_id
    stopped: list[int | None] = [None] * len(streams)
    ended = [False] * len(streams)
    active = list(range(len(streams)))
    bounds = [0, *splits, n]
    carry = {i: [] for i in active}
    seq = torch.tensor([prompt] * len(streams))
    decoded = 0
    for lo, hi in zip(bounds, bounds[1:]):
        rows = seq  # the active rows
        width = rows.shape[1]
        crit = StopOnText(tok, width, [stops[i] for i in active], [carry[i] for i in active], eos_ids=sorted(eos))
        finish = RowsFinished(crit, leave) if leave else None
        for step in range(lo, hi):
            tokens = [pad if stopped[i] is not None or ended[i] else streams[i][step] for i in active]
            rows = torch.cat([rows, torch.tensor(tokens)[:, None]], dim=1)
            done = crit(rows, None).tolist()
            if finish is not None:
                finish(rows, None)
            for j, i in enumerate(active):
                if done[j] and stopped[i] is None and not ended[i]:
                    stopped[i] = step + 1
                ended[i] = ended[i] or tokens[j] in eos
        decoded += crit.decoded
        for j, i in enumerate(active):
            carry[i] = carry[i] + rows[j, width:].tolist()
        keep = [j for j, i in enumerate(active) if stopped[i] is None and not ended[i]]
        seq, active = rows[keep], [active[j] for j in keep]
        if not active:
            break
    return stopped, decoded


@pytest.mark.parametrize("name", list(TOKENIZERS))
@pytest.mark.parametrize("splits", [(), (5,), (3, 17)])
def test_stops_on_the_same_step_as_decoding_every_step(name, splits):
    tok = TOKENIZERS[name]()
    eos = {tok.eos_token_id}
    for seed in range(3):
        rng = random.Random(f"{name}{splits}{seed}")
        streams = [stream(tok, rng, 40) for _ in range(24)]
        stops = [rng.choice(STOP_SETS) for _ in streams]
        prompt = tok("Reply in one block:\n```python\ndef f", add_special_tokens=False)["input_ids"]
        got, _ = drive(tok, streams, stops, prompt, list(splits), eos)
        want = [reference_stop_step(tok, [], s, st, eos) for s, st in zip(streams, stops)]
        assert got == want, (name, seed)
        assert any(w is not None for w in want) and any(w is None for w in want)


def test_closing_fence_rule_on_streams():
    """A bare ``` after prose opens a block and never stops; a fence still waiting for its tag is not one."""
    tok = tiny()
    eos = {tok.eos_token_id}
    texts = {
        "Here is the code:\n```\nx = 1\n```\nmore": "Here is the code:\n```\nx = 1\n```\n",
        "```python\nx = 1\n```\n": "```python\nx = 1\n```\n",
        "prose ```\nno block\n```\n": None,  # the first fence line opens, the second closes
        "```py\n```py\nx\n```\n": "```py\n```py\nx\n```\n",
        "```\n": None,
        "```python\nx\n  ```  \ntail": "```python\nx\n  ```  \n",
        "```python\nx\n```": None,  # the closing line is not complete yet
    }
    for text, until in texts.items():
        for ids in (tok(text, add_special_tokens=False)["input_ids"], byte_tokens(tok, text)):
            got, _ = drive(tok, [ids], [CHAT_STOPS], [5], [], eos)
            want = reference_stop_step(tok, [], ids, CHAT_STOPS, eos)
            assert got == [want], text
            assert (want is None) == (until is None)
            if until is not None:
                assert decode(tok, ids[:want]).startswith(until[:-1])
                assert CHAT_STOPS[0].find_in(decode(tok, ids[:want])) == until.rstrip("\n").rfind("\n")


def test_rows_finished_ends_the_call_on_the_same_step():
    """RowsFinished with the new StopOnText reads nothing of its own and leaves on the step the old pair did."""
    tok = tiny()
    eos = [tok.eos_token_id]
    for seed in range(4):
        rng = random.Random(seed)
        streams = [stream(tok, rng, 30) for _ in range(16)]
        stops = [rng.choice(STOP_SETS) for _ in streams]
        width = 3
        results = []
        for stop_cls, rows_cls in ((StopOnText, RowsFinished), (ReferenceStopOnText, ReferenceRowsFinished)):
            stop = stop_cls(tok, width, stops, eos_ids=eos)
            finish = rows_cls(stop, 8)
            seq = torch.full((16, width), 7)
            finished = torch.zeros(16, dtype=torch.bool)
            for step in range(30):
                col = torch.tensor([s[step] for s in streams])
                seq = torch.cat([seq, torch.where(finished, tok.pad_token_id, col)[:, None]], dim=1)
                done = stop(seq, None) | finish(seq, None)
                if bool(done.all()):
                    break
                finished |= done | torch.isin(col, torch.tensor(eos))
            results.append((step, finish.running))
        assert results[0] == results[1]


# --- no decoding, no reads beyond one per step -----------------------------------------------

def test_no_decoding_without_a_candidate_token_and_bounded_windows(monkeypatch):
    tok = tiny()
    line = tok("x = 1", add_special_tokens=False)["input_ids"]
    newline = tok("\n", add_special_tokens=False)["input_ids"]
    crit = StopOnText(tok, 2, [CHAT_STOPS], eos_ids=[tok.eos_token_id])
    seq = torch.tensor([[5, 6]])
    for t in line * 20:  # no newline: nothing could complete "\n```\n"
        seq = torch.cat([seq, torch.tensor([[t]])], dim=1)
        assert crit(seq, None).tolist() == [False]
    assert crit.decoded == 0
    lengths = []
    real = hf_callbacks.decode
    monkeypatch.setattr(hf_callbacks, "decode", lambda t, ids: lengths.append(len(ids)) or real(t, ids))
    for t in (newline + line) * 30:  # 30 lines: each newline decodes only the tokens since the last one
        seq = torch.cat([seq, torch.tensor([[t]])], dim=1)
        assert crit(seq, None).tolist() == [False]
    assert crit.decoded == 30 and lengths[0] == len(line) * 20 + 1 and max(lengths[1:]) == len(line) + 1


def test_one_host_read_per_step(monkeypatch):
    """Per step: one read ([2, B] booleans) for StopOnText and RowsFinished together, none other."""
    tok = tiny()
    eos = [tok.eos_token_id]
    stop = StopOnText(tok, 2, [CHAT_STOPS] * 4, eos_ids=eos)
    finish = RowsFinished(stop, 1)
    reads = []
    for name in ("tolist", "item", "cpu", "numpy", "__bool__", "__int__", "__index__"):
        real = getattr(torch.Tensor, name)
        monkeypatch.setattr(torch.Tensor, name, lambda self, *a, _n=name, _r=real, **k: reads.append(_n) or _r(self, *a, **k))
    seq = torch.full((4, 2), 9)
    token = tok("x", add_special_tokens=False)["input_ids"][0]
    for _ in range(10):
        seq = torch.cat([seq, torch.full((4, 1), token)], dim=1)
        stop(seq, None)
        finish(seq, None)
    assert reads == ["tolist"] * 10


# --- generate with the reference criteria patched in ------------------------------------------

SHORT = Task("t/short", "function", 'def add(a, b):\n    """Sum."""', (), entry_point="add")
LONG = Task("t/long", "function", 'def square(x):\n    """Return x * x.\n\n    >>> square(3)\n    9\n    """\n', (),
            entry_point="square")


def _outputs(batch):
    return (batch.completion_ids.tolist(), batch.logprobs.tolist(), batch.mask.tolist(),
            [(s.raw_output, s.completion, s.truncated) for s in batch.samples])


# make test-slow runs the chat format too (its prompts are longer: 20 s of the default suite for the same rule)
@pytest.mark.parametrize("fmt", ["completion", pytest.param("chat", marks=pytest.mark.slow)])
def test_generate_is_identical_to_the_reference_rule(monkeypatch, fmt):
    model, tok = tiny_model(seed=0)
    runs = []
    for patch in (False, True):
        if patch:
            monkeypatch.setattr(hf, "StopOnText", ReferenceStopOnText)
            monkeypatch.setattr(hf, "RowsFinished", ReferenceRowsFinished)
        got = []
        for temperature in (0.0, 1.0):
            for stop in (None, ["e", "\n"], ["```", "(", "ab"], ["é", " ."]):
                got.append(_outputs(generation.generate(model, tok, [SHORT, LONG], format=fmt, samples_per_prompt=6, max_new_tokens=20, temperature=temperature, seed=4, stop=stop, hf=HFOptions(batch_size=12))))
        runs.append(got)
    assert runs[0] == runs[1]


# --- static cache ---------------------------------------------------------------------------

def test_static_cache_choice(monkeypatch):
    cpu, cuda = torch.device("cpu"), torch.device("cuda")
    monkeypatch.delenv("CODERL_STATIC_CACHE", raising=False)
    assert not hf_config.use_static_cache(cpu) and hf_config.use_static_cache(cuda)
    assert hf_config.use_static_cache(cpu, True) and not hf_config.use_static_cache(cuda, False)
    monkeypatch.setenv("CODERL_STATIC_CACHE", "off")
    assert not hf_config.use_static_cache(cuda)
    monkeypatch.setenv("CODERL_STATIC_CACHE", "on")
    assert hf_config.use_static_cache(cpu)
    monkeypatch.setenv("CODERL_STATIC_CACHE", "sometimes")
    with pytest.raises(ValueError, match="CODERL_STATIC_CACHE"):
        hf_config.use_static_cache(cpu)


def test_compile_only_where_the_work_repays_it(monkeypatch):
    cpu, cuda = torch.device("cpu"), torch.device("cuda")
    monkeypatch.delenv("CODERL_STATIC_CACHE", raising=False)
    monkeypatch.delenv("CODERL_COMPILE_MIN_TOKENS", raising=False)
    assert hf_config.compile_min_tokens() == hf_config.COMPILE_MIN_TOKENS == 50_000  # measured (docstring)
    assert hf_config.use_static_cache(cuda)  # no work stated: compiled
    # eval --tasks easy: 76 rows x 256 tokens = 19,456 < 50,000: uncompiled (38 s eager vs 51 s compiled cold)
    assert not hf_config.use_static_cache(cuda, work_tokens=76 * 256, planned_tokens=76 * 256)
    # a 1,000-sample evaluation in chunks of 200 rows x 128: each call 25,600, the whole 128,000: compiled
    assert not hf_config.use_static_cache(cuda, work_tokens=200 * 128)
    assert hf_config.use_static_cache(cuda, work_tokens=200 * 128, planned_tokens=1000 * 128)
    # the demo's RL stage: 4 prompts x 8 samples x 128 tokens = 4,096 a step, x 20 steps = 81,920: compiled;
    # x 10 steps = 40,960: not
    assert hf_config.use_static_cache(cuda, work_tokens=4 * 8 * 128, planned_tokens=20 * 4 * 8 * 128)
    assert not hf_config.use_static_cache(cuda, work_tokens=4 * 8 * 128, planned_tokens=10 * 4 * 8 * 128)
    assert hf_config.use_static_cache(cuda, work_tokens=50_000) and hf_config.use_static_cache(cuda, None, None, 50_000)
    assert not hf_config.use_static_cache(cuda, work_tokens=49_999, planned_tokens=1)  # the larger of the two counts
    assert not hf_config.use_static_cache(cpu, work_tokens=10**6, planned_tokens=10**9)  # never on CPU
    monkeypatch.setenv("CODERL_COMPILE_MIN_TOKENS", "0")
    assert hf_config.use_static_cache(cuda, work_tokens=1)  # 0: every generation on CUDA compiles
    monkeypatch.setenv("CODERL_COMPILE_MIN_TOKENS", "20000")
    assert not hf_config.use_static_cache(cuda, work_tokens=76 * 256 - 1)
    assert hf_config.use_static_cache(cuda, work_tokens=1000 * 128) and hf_config.use_static_cache(cuda)
    assert hf_config.use_static_cache(cuda, True, work_tokens=1)  # what a caller asks for wins
    monkeypatch.setenv("CODERL_STATIC_CACHE", "on")
    assert hf_config.use_static_cache(cuda, work_tokens=1)
    monkeypatch.setenv("CODERL_STATIC_CACHE", "auto")
    for bad in ("-1", "many"):
        monkeypatch.setenv("CODERL_COMPILE_MIN_TOKENS", bad)
        with pytest.raises(ValueError, match="CODERL_COMPILE_MIN_TOKENS"):
            hf_config.use_static_cache(cuda, work_tokens=1)


def test_sample_rows_asks_with_the_calls_work(monkeypatch):
    model, tok = tiny_model(seed=0)
    seen = []
    monkeypatch.setattr(hf, "use_static_cache",
                        lambda device, static, work=None, planned=None: seen.append((work, planned)) or False)
    hf.sample_rows(model, tok, [[1, 5, 6], [1, 7]], [(), ()], Sampling(max_new_tokens=3), HFOptions())
    hf.sample_rows(model, tok, [[1, 5, 6], [1, 7]], [(), ()], Sampling(max_new_tokens=3), HFOptions(planned_tokens=600))
    assert seen == [(2 * 3, None), (2 * 3, 600)]


def test_fill_batch_size():
    model, _ = tiny_model(seed=0)
    assert hf_config.fill_batch_size(model, 76, max_tokens=512) == 16  # CPU: the default stays
    assert hf_config.fill_batch_size(model, 5, max_tokens=512) == 5
    tok = tiny_tokenizer()
    assert len(generation.generate(model, tok, [SHORT, LONG], samples_per_prompt=9, max_new_tokens=2, hf=HFOptions(batch_size=None))) == 18
    assert hf_config._fit_rows(76, cap=256, budget=10**12, per_row=10**6) == 76  # one call for all rows
    assert hf_config._fit_rows(300, cap=256, budget=10**12, per_row=10**6) == 150  # two equal calls
    assert hf_config._fit_rows(100, cap=256, budget=30 * 10**6, per_row=10**6) == 25  # what fits: 30 -> 4 x 25
    assert hf_config._fit_rows(100, cap=256, budget=10, per_row=10**6) == 1


def _spy_calls(monkeypatch):
    calls, real = [], hf._generate_chunk

    def spy(*args, **kwargs):
        calls.append((args[2].shape[0], kwargs["config"].cache_implementation))
        return real(*args, **kwargs)

    monkeypatch.setattr(hf, "_generate_chunk", spy)
    return calls


def test_static_cache_gives_the_same_greedy_tokens_in_one_call_per_chunk(monkeypatch):
    model, tok = tiny_model(seed=0)
    calls = _spy_calls(monkeypatch)
    kwargs = dict(samples_per_prompt=6, max_new_tokens=24, temperature=0.0, stop=["\n"])
    static = generation.generate(model, tok, [SHORT, LONG], **kwargs, hf=HFOptions(batch_size=12, static_cache=True))
    assert calls == [(12, "static")]  # no compaction, no shared prefill
    calls.clear()
    dynamic = generation.generate(model, tok, [SHORT, LONG], **kwargs, hf=HFOptions(batch_size=12, static_cache=False))
    assert calls[0] == (12, None) and len(calls) == 2  # compacted
    assert static.completion_ids.tolist() == dynamic.completion_ids.tolist()
    torch.testing.assert_close(static.logprobs, dynamic.logprobs, atol=1e-5, rtol=0)
    assert [s.raw_output for s in static.samples] == [s.raw_output for s in dynamic.samples]


def test_static_batch_rows_keeps_to_a_few_padded_shapes():
    assert hf_config.static_batch_rows(76, 64) == 64  # 2 calls of 64 (the second padded), not 64 + 12
    assert hf_config.static_batch_rows(76, 256) == 128  # one call, padded to a power of two
    assert hf_config.static_batch_rows(32, 256) == 32 and hf_config.static_batch_rows(17, 32) == 32
    assert hf_config.static_batch_rows(12, 16) == 16 and hf_config.static_batch_rows(1, 16) == 1
    assert hf_config.static_batch_rows(48, 48) == 48  # 64 would exceed the rows that fit: 48 itself
    assert hf_config.static_batch_rows(100, 48) == 34  # 3 calls of 34 (64 > 48)
    assert hf_config.static_batch_rows(300, 150) == 150


def test_static_cache_pads_short_calls_and_returns_only_the_real_rows(monkeypatch):
    model, tok = tiny_model(seed=0)
    calls = _spy_calls(monkeypatch)
    kwargs = dict(samples_per_prompt=3, max_new_tokens=12, temperature=0.0, stop=["\n"])
    static = generation.generate(model, tok, [SHORT, LONG], **kwargs, hf=HFOptions(batch_size=4, static_cache=True))
    assert calls == [(4, "static"), (4, "static")]  # 6 rows: 4 + 2 padded to 4, one compiled shape
    dynamic = generation.generate(model, tok, [SHORT, LONG], **kwargs, hf=HFOptions(batch_size=4, static_cache=False))
    assert len(static.samples) == 6 and static.completion_ids.tolist() == dynamic.completion_ids.tolist()
    torch.testing.assert_close(static.logprobs, dynamic.logprobs, atol=1e-5, rtol=0)


def test_a_failing_compilation_falls_back_to_uncompiled_decoding(monkeypatch):
    class FakeCompileError(RuntimeError):
        pass

    FakeCompileError.__module__ = "torch._dynamo.exc"
    model, tok = tiny_model(seed=0)
    monkeypatch.setattr(hf, "_COMPILE_FAILED", [])
    real, seen = model.generate, []

    def generate(*args, generation_config=None, **kwargs):
        seen.append(generation_config.disable_compile)
        if not generation_config.disable_compile:
            raise FakeCompileError("inductor could not compile\nmore")
        return real(*args, generation_config=generation_config, **kwargs)

    monkeypatch.setattr(model, "generate", generate)
    with pytest.warns(RuntimeWarning, match="FakeCompileError: inductor could not compile"):
        got = generation.generate(model, tok, [SHORT, LONG], max_new_tokens=8, hf=HFOptions(batch_size=1, static_cache=True))
    assert [bool(x) for x in seen] == [False, True, True]  # the second chunk does not try again
    monkeypatch.setattr(model, "generate", real)
    want = generation.generate(model, tok, [SHORT, LONG], max_new_tokens=8, hf=HFOptions(batch_size=1, static_cache=True))
    assert _outputs(got) == _outputs(want)

    def broken(*args, **kwargs):
        raise ValueError("not a compiler error")

    monkeypatch.setattr(model, "generate", broken)
    with pytest.raises(ValueError, match="not a compiler error"):
        generation.generate(model, tok, [SHORT], max_new_tokens=4, hf=HFOptions(static_cache=True))
