"""rollout/turn_cache.py: an episode's turn prefills only what it added, and the episodes are the ones the engine
plays without it -- token for token, greedy and sampled, through chunks, compaction and rows that end early -- with
the kept keys and values those of a full prefill."""

import pytest

torch = pytest.importorskip("torch")

from coderl.rollout.collect import Generation  # noqa: E402
from coderl.rollout.episodes import run_episodes  # noqa: E402
from coderl.rollout.hf_config import HFOptions  # noqa: E402
from coderl.rollout.hf_engine import HFEngine  # noqa: E402
from coderl.rollout.kv_cache import growing_cache  # noqa: E402
from coderl.rollout.turn_cache import TurnCache  # noqa: E402
from coderl.rollout.types import Sample, Step  # noqa: E402
from tests.models.tiny import tiny_model  # noqa: E402


class Talk:
    """An environment whose observation depends on the reply (its length, its first characters) and grows by turn;
    done after `turns` replies, or at once when the reply is empty."""

    observation_role, tools = "user", None

    def __init__(self, task: int, turns: int):
        self.task, self.turns, self.seen = task, turns, 0

    def prompt(self, tokenizer):
        messages = [{"role": "user", "content": f"task {self.task}: " + "say something " * (1 + self.task % 3)}]
        return messages, tokenizer.apply_chat_template(messages, tokenize=False, add_generation_prompt=True)

    def reset(self):
        self.seen = 0

    def step(self, text):
        self.seen += 1
        if self.seen >= self.turns or not text:
            return Step(done=True, reason="done")
        return Step(observation=f"you said {len(text)} characters, {text[:5]!r}; " + "more " * (self.seen * 3))

    def finish(self, reason):
        return Step(done=True, reason=reason)

    def stops(self):
        return ("\n\n",)

    def sample(self, tokenizer, prompt, row, stops):
        return Sample(str(self.task), self.task, prompt, row.text, row.text, tuple(row.ids), (), not row.ended, True)


@pytest.fixture(scope="module")
def tiny():
    return tiny_model(seed=3)


def _play(tiny, monkeypatch, *, reuse: bool, temperature: float, kept: list, rows: int = 7, turns: int = 4):
    model, tok = tiny
    real = HFEngine.for_episodes

    def recording(self):
        made = real(self)
        kept.append(made.turns)
        return made

    monkeypatch.setattr(HFEngine, "for_episodes", recording)
    engine = HFEngine(model, HFOptions(compact_rows=1, reuse_turns=reuse))  # compaction at every halving
    envs = [Talk(i // 2, turns) for i in range(rows)]  # pairs of rows share a first prompt
    gen = Generation(format="chat", max_new_tokens=12, temperature=temperature, seed=5, batch_size=3)
    return run_episodes(engine, tok, envs, [e.task for e in envs], gen, max_turns=turns, max_sequence_tokens=4096)


@pytest.mark.parametrize("temperature", [0.0, 1.0])
def test_episodes_with_kept_turns_are_the_episodes_without(tiny, monkeypatch, temperature):
    kept, none = [], []
    got = _play(tiny, monkeypatch, reuse=True, temperature=temperature, kept=kept)
    want = _play(tiny, monkeypatch, reuse=False, temperature=temperature, kept=none)
    assert none == [None] and isinstance(kept[0], TurnCache)
    assert [len(r.segments) for r in got.rows] == [len(r.segments) for r in want.rows]
    assert max(len(r.segments) for r in got.rows) >= 5  # several turns, observations between them
    for a, b in zip(got.rows, want.rows):
        assert a.ids == b.ids
        for (ids_a, lp_a, turn_a), (ids_b, lp_b, turn_b) in zip(a.segments, b.segments):
            assert (ids_a, turn_a) == (ids_b, turn_b)
            if lp_a is not None:
                torch.testing.assert_close(lp_a, lp_b, atol=2e-5, rtol=0)
    cache = kept[0]
    # every turn after the first ran only its reply's last token and the observation: the conversations were kept
    assert cache.reused > cache.prefilled > 0
    assert cache.rows == []  # every episode ended: nothing kept


def test_the_kept_prefill_is_a_full_prefill(tiny):
    model, tok = tiny
    prompts = [[5, 6, 7, 8, 9, 10, 11], [5, 6, 7, 20, 21], [30, 31, 32, 33, 34, 35, 36, 37, 38]]
    turns = TurnCache()
    width = max(map(len, prompts))
    first = turns.prefill(model, prompts, width, "cpu", growing_cache(model, 64))
    turns.keep(first, [0, 1, 2], torch.tensor([[0] * (width - len(p)) + p for p in prompts]),
               [width - len(p) for p in prompts])
    assert len(turns.fresh) == 3 and turns.rows == []  # this turn's: a later call of the turn may start from one
    assert turns.prefilled == sum(len(p) - 1 for p in prompts) and turns.reused == 0
    # the next turn: row 0 goes on, row 1 diverges after 3 tokens, row 2 is new
    nxt = [prompts[0] + [40, 41, 42], [5, 6, 7, 50, 51, 52], [60, 61, 62, 63]]
    turns.retain(nxt)
    assert len(turns.rows) == 1  # only the kept row sharing the longest prefix with a going episode: row 0
    width = max(map(len, nxt))
    got = turns.prefill(model, nxt, width, "cpu", growing_cache(model, 64))
    # row 0 takes the kept row away (its keys and values are in this call's cache now): row 1 runs whole
    assert turns.rows == [] and len(turns.fresh) == 0
    assert turns.reused == 6 and turns.prefilled == sum(len(p) - 1 for p in prompts) + 3 + 5 + 3
    ids = torch.tensor([[0] * (width - len(p)) + p for p in nxt])[:, :-1]
    mask = (torch.arange(width - 1)[None] >= torch.tensor([width - len(p) for p in nxt])[:, None]).long()
    positions = (mask.cumsum(-1) - 1).clamp(min=0)
    with torch.no_grad():
        full = model(input_ids=ids, attention_mask=mask, position_ids=positions, use_cache=True).past_key_values
    for layer, ref in zip(got.layers, full.layers):
        for i, p in enumerate(nxt):
            real = slice(width - len(p), width - 1)
            torch.testing.assert_close(layer.keys[i, :, real], ref.keys[i, :, real], atol=1e-5, rtol=1e-5)
            torch.testing.assert_close(layer.values[i, :, real], ref.values[i, :, real], atol=1e-5, rtol=1e-5)


def test_a_kept_row_matches_by_its_longest_common_prefix():
    turns = TurnCache()
    layer = [(torch.zeros(1, 6, 2), torch.zeros(1, 6, 2))]
    turns.rows = [(torch.tensor([1, 2, 3, 9, 9, 9]), layer)]  # a reply, then padding after its end
    assert turns.longest(torch.tensor([1, 2, 3, 4, 5]))[0] == 3
    assert turns.longest(torch.tensor([1, 2]))[0] == 2
    assert turns.longest(torch.tensor([7, 2, 3]))[0] == 0
