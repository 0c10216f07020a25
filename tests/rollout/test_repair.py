"""The multi-turn repair collector (`coderl.rollout.repair`) with scripted answers (the episode's logic:
when it goes on, what the feedback says, which tests run where, how the row is laid out) and with a tiny
random model (the row's tokens are exactly what generation saw: recomputed log-probs match)."""

import pytest

torch = pytest.importorskip("torch")

from coderl.rollout.collect import Generation, RepairConfig  # noqa: E402
from coderl.rollout.episodes import turn_glue  # noqa: E402
from coderl.rollout.repair import collect_repair  # noqa: E402
from coderl.sandbox.config import SandboxConfig  # noqa: E402
from coderl.sandbox.types import CheckKind, TestCase  # noqa: E402
from coderl.tasks.types import Task  # noqa: E402
from tests.models.tiny import tiny_model  # noqa: E402
from tests.rollout.scripted import script_engine  # noqa: E402

PROMPT = 'def add(a, b):\n    """Add.\n    >>> add(1, 2)\n    3\n    """\n'
WRONG = "```python\ndef add(a, b):\n    return a - b\n```\n"
RIGHT = "```python\ndef add(a, b):\n    return a + b\n```\n"
HALF = "```python\ndef add(a, b):\n    return 3 if (a, b) == (1, 2) else 0\n```\n"  # passes the visible test only


def _task(tests=((1, 2, 3), (20, 22, 42), (-7, 7, 0), (100, 1, 101)), task_id="t/add"):
    return Task(task_id=task_id, kind="function", prompt=PROMPT, entry_point="add",
                tests=tuple(TestCase(id=str(i), source=f"candidate({a}, {b})", check=CheckKind.EQUALS, expected=c)
                            for i, (a, b, c) in enumerate(tests)))


@pytest.fixture(scope="module")
def tiny():
    return tiny_model(seed=0)


class Recording:
    def __init__(self, sandbox):
        self.sandbox, self.requests = sandbox, []

    def submit(self, request):
        self.requests.append(request)
        return self.sandbox.submit(request)


@pytest.fixture(scope="module")
def sandbox():
    with SandboxConfig(workers=2).open() as box:
        yield box


def _collect(tiny, sandbox, tasks, turns=3, **kwargs):
    model, tok = tiny
    gen = Generation(format="chat", samples_per_prompt=kwargs.pop("samples", 1), max_new_tokens=8)
    # The tiny model has 128 positions; scripted answers never reach it, so give the episodes room.
    return collect_repair(model, tok, tasks, sandbox, gen, None, RepairConfig(turns=turns, **kwargs),
                          max_sequence_tokens=4096)


def test_a_visible_failure_gets_feedback_and_a_second_answer(tiny, sandbox, monkeypatch):
    calls = script_engine(monkeypatch, [WRONG, RIGHT])
    got = _collect(tiny, sandbox, [_task()])
    (episode,) = got.episodes
    assert len(episode.turns) == 2 and len(calls) == 2
    first, second = episode.turns
    assert first.visible is not None and not first.visible.passed and not first.hidden.passed
    assert ">>> add(1, 2)" in first.feedback and "got -1, expected 3" in first.feedback
    assert second.visible.passed and second.hidden.passed and got.results[0].passed
    assert second.feedback == "" and second.added_tokens == 0


def test_the_episode_ends_when_the_visible_tests_pass_even_if_hidden_ones_fail(tiny, sandbox, monkeypatch):
    script_engine(monkeypatch, [HALF, RIGHT])
    got = _collect(tiny, sandbox, [_task()])
    (episode,) = got.episodes
    assert len(episode.turns) == 1  # nothing about the hidden failures reaches the model
    assert episode.turns[0].visible.passed and not episode.turns[0].hidden.passed


def test_at_most_turns_answers_and_no_feedback_after_the_last(tiny, sandbox, monkeypatch):
    script_engine(monkeypatch, [WRONG])
    got = _collect(tiny, sandbox, [_task()], turns=3)
    (episode,) = got.episodes
    assert len(episode.turns) == 3
    assert [bool(t.feedback) for t in episode.turns] == [True, True, False]
    assert [episode.passed_after(t) for t in (1, 2, 3, 4)] == [False] * 4


def test_visible_and_hidden_tests_run_in_separate_requests(tiny, sandbox, monkeypatch):
    script_engine(monkeypatch, [WRONG, RIGHT])
    recording = Recording(sandbox)
    model, tok = tiny
    collect_repair(model, tok, [_task()], recording, Generation(format="chat", max_new_tokens=8), None,
                   RepairConfig(turns=2), max_sequence_tokens=4096)
    ids = [sorted(t.id for t in r.tests) for r in recording.requests]
    assert ids == [["0"], ["1", "2", "3"]] * 2  # per turn: visible (the prompt's example), then hidden


def test_feedback_never_shows_a_hidden_test(tiny, sandbox, monkeypatch):
    script_engine(monkeypatch, [WRONG])
    got = _collect(tiny, sandbox, [_task()], turns=3)
    text = got.episodes[0].turns[-1].sample.prompt  # the whole conversation before the last answer
    for hidden in ("20, 22", "42", "-7, 7", "100, 1", "101"):
        assert hidden not in text


def test_a_task_without_hidden_tests_is_left_out_and_named(tiny, sandbox, monkeypatch):
    script_engine(monkeypatch, [WRONG])
    got = _collect(tiny, sandbox, [_task(tests=((1, 2, 3),), task_id="t/one"), _task()])
    assert got.no_hidden == ["t/one"]
    assert [e.task_id for e in got.episodes] == ["t/add"] and got.episodes[0].group == 1


def test_the_row_holds_every_turn_with_feedback_attended_but_not_trained(tiny, sandbox, monkeypatch):
    calls = script_engine(monkeypatch, [WRONG, RIGHT])
    got = _collect(tiny, sandbox, [_task()], turns=3)
    model, tok = tiny
    batch = got.batch
    wrong = tok(WRONG, add_special_tokens=False)["input_ids"]
    right = tok(RIGHT, add_special_tokens=False)["input_ids"]
    prompt = calls[0][0]
    glue = calls[1][0][len(prompt) + len(wrong):]  # what the second call continued after the first answer
    row = batch.completion_ids[0].tolist()
    assert row[:len(wrong)] == wrong and row[len(wrong) + len(glue):] == right
    assert batch.prompt_ids[0, -len(prompt):].tolist() == prompt and batch.prompt_lengths.tolist() == [len(prompt)]
    policy = [1.0] * len(wrong) + [0.0] * len(glue) + [1.0] * len(right)
    assert batch.mask[0].tolist() == policy and batch.attention_mask[0].tolist() == [1.0] * len(row)
    assert batch.turns[0].tolist() == [0] * len(wrong) + [-1] * len(glue) + [1] * len(right)
    assert got.episodes[0].turns[0].added_tokens == len(glue)
    text = tok.decode(glue)
    assert "<|im_end|>" in text and "user" in text and "Your code failed these visible tests:" in text
    assert text.rstrip().endswith("assistant")


def test_the_glue_does_not_repeat_an_end_of_turn_token_the_answer_ended_with(tiny):
    _, tok = tiny
    messages = [{"role": "user", "content": "hi"}]
    plain = turn_glue(tok, messages, {"role": "user", "content": "feedback"}, None)
    after_eos = turn_glue(tok, messages, {"role": "user", "content": "feedback"}, "<|im_end|>")
    assert plain.startswith("<|im_end|>") and plain == "<|im_end|>" + after_eos
    assert after_eos.endswith("<|im_start|>assistant\n") and "feedback" in after_eos


def test_an_episode_that_would_not_fit_ends_early_and_says_so(tiny, sandbox, monkeypatch):
    calls = script_engine(monkeypatch, [WRONG])
    model, tok = tiny
    got = collect_repair(model, tok, [_task()], sandbox, Generation(format="chat", max_new_tokens=8), None,
                         RepairConfig(turns=3), max_sequence_tokens=len(_prompt_len(tok)) + 40)
    assert len(calls) == 1 and got.episodes[0].out_of_room and len(got.episodes[0].turns) == 1


def _prompt_len(tok):
    from coderl.rollout.formats import get_format, prompt_text

    return tok(prompt_text(get_format("chat").render(_task(), tok), tok), add_special_tokens=False)["input_ids"]


def test_a_plain_text_format_is_refused(tiny, sandbox):
    model, tok = tiny
    with pytest.raises(ValueError, match="chat format"):
        collect_repair(model, tok, [_task()], sandbox, Generation(format="completion", max_new_tokens=4), None,
                       RepairConfig(turns=2))


def test_recomputed_logprobs_of_a_sampled_episode_match_the_sampling_ones(tiny, sandbox):
    """A real (tiny random) model: its answers fail, so rows hold several turns and feedback; the training
    forward pass over the row must see exactly what generation saw (ratio 1 on every policy token)."""
    from coderl.train.logprobs import build_sequences, token_logprobs

    model, tok = tiny
    task = Task(task_id="t/id", kind="function", prompt="def f(x):\n", entry_point="f",
                tests=tuple(TestCase(id=str(i), source=f"candidate({i})", check=CheckKind.EQUALS, expected=i)
                            for i in range(2)))
    gen = Generation(format="chat", samples_per_prompt=2, max_new_tokens=6, temperature=1.0, seed=3)
    got = collect_repair(model, tok, [task], sandbox, gen, None, RepairConfig(turns=2, feedback_tokens=12),
                         max_sequence_tokens=512)  # RoPE: positions past the config's 128 work
    batch = got.batch
    assert any(len(e.turns) == 2 for e in got.episodes), "the tiny model's answers should fail and be revised"
    assert bool((batch.attention_mask > batch.mask).any())  # feedback tokens are in the rows
    with torch.no_grad():
        recomputed = token_logprobs(model, build_sequences(batch), 1.0)
    assert torch.allclose(recomputed * batch.mask, batch.logprobs, atol=1e-4)


@pytest.mark.parametrize("isolation, warned", [("uid", True), ("rlimits", True), ("full", False)])
def test_below_full_isolation_repair_says_feedback_may_see_hidden_arguments(isolation, warned):
    """Below `full`, programs share /tmp: an answer's hidden-test run could leave the hidden arguments where its
    visible-test run, whose output is the feedback, reads them; repair says so once, as a RuntimeWarning."""
    import types
    import warnings

    from coderl.rollout.feedback import warn_unless_isolated

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        warn_unless_isolated(types.SimpleNamespace(isolation=isolation), "multi-turn repair")
    said = [str(w.message) for w in caught if issubclass(w.category, RuntimeWarning)]
    assert bool(said) == warned and all(m.startswith("multi-turn repair under sandbox isolation") for m in said)
