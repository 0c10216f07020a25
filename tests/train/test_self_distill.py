"""SDPO's self-distillation (`--self-distill`): the loss by hand, the teacher's prompt, which rows get a teacher,
the settings it refuses, and a training step whose every row fails: plain GRPO has nothing to learn from it, SDPO
updates the policy toward itself shown the feedback."""

from __future__ import annotations

import pytest
import torch

from coderl.algorithms.self_distill import self_distill_loss
from coderl.base.config import ConfigError
from coderl.rollout.types import Sample
from coderl.tasks import load_tasks
from coderl.train.sources.teacher_prompts import (
    FEEDBACK_INTRO,
    SOLUTION_INTRO,
    shown_solutions,
    teacher_prompts,
    teacher_text,
)

from .helpers import TASKS, base_config


def test_the_loss_and_its_gradient_by_hand():
    logprobs = torch.tensor([[-1.0, -2.0, -0.5]], requires_grad=True)
    teacher = torch.tensor([[-0.5, -3.0, 0.0]])
    mask = torch.tensor([[1.0, 1.0, 0.0]])
    loss, stats = self_distill_loss(logprobs, teacher, mask, torch.tensor([True]), "token_mean")
    # gaps (teacher - student): +0.5, -1.0, then padding; loss = mean(-gap * logprob) = (0.5 - 2) / 2
    assert loss.item() == pytest.approx(-0.75)
    loss.backward()
    # d/dlogprob = -gap / 2: the token the teacher likes more goes up, the one it likes less goes down, padding 0
    assert logprobs.grad[0].tolist() == pytest.approx([-0.25, 0.5, 0.0])
    assert stats["sdpo/gap"] == pytest.approx(-0.25)


def test_the_loss_is_zero_where_teacher_and_student_agree():
    logprobs = torch.tensor([[-1.0, -2.0]], requires_grad=True)
    loss, _ = self_distill_loss(logprobs, logprobs.detach().clone(), torch.ones(1, 2), torch.tensor([True]),
                                "token_mean")
    loss.backward()
    assert loss.item() == 0.0 and logprobs.grad.abs().sum().item() == 0.0


@pytest.mark.parametrize("mode", ["token_mean", "sequence_mean", "token_sum"])
def test_pieces_of_a_minibatch_add_up_to_the_whole_whatever_rows_have_a_teacher(mode):
    """The updater weights each piece's loss by its share of the policy loss's denominator: SDPO's term must be
    aggregated over the same mask, rows without a teacher adding 0, or its strength would follow the pieces."""
    from coderl.algorithms import denominator_share

    gen = torch.Generator().manual_seed(0)
    logprobs = -torch.rand(4, 5, generator=gen)
    teacher = -torch.rand(4, 5, generator=gen)
    mask = torch.tensor([[1, 1, 1, 0, 0], [1, 1, 1, 1, 1], [1, 0, 0, 0, 0], [1, 1, 0, 0, 0]], dtype=torch.float32)
    taught = torch.tensor([False, True, False, True])
    whole, _ = self_distill_loss(logprobs, teacher, mask, taught, mode)
    for size in (1, 2):
        pieces = [slice(i, i + size) for i in range(0, 4, size)]
        summed = sum(denominator_share(mask[p], mask, mode) * self_distill_loss(logprobs[p], teacher[p], mask[p],
                                                                              taught[p], mode)[0] for p in pieces)
        assert float(summed) == pytest.approx(float(whole))
    untaught, _ = self_distill_loss(logprobs, teacher, mask, torch.zeros(4, dtype=torch.bool), mode)
    assert float(untaught) == 0.0


@pytest.fixture(scope="module")
def tokenizer(tmp_path_factory):
    from transformers import AutoTokenizer

    from tests.models.tiny import tiny_llama

    return AutoTokenizer.from_pretrained(tiny_llama(tmp_path_factory.mktemp("model")))


def test_the_teacher_prompt_is_the_chat_prompt_with_the_feedback_in_the_users_turn(tokenizer):
    from coderl.rollout.formats import get_format, prompt_text

    task = load_tasks(TASKS).tasks[0]
    plain = prompt_text(get_format("chat").render(task, tokenizer), tokenizer)
    taught = teacher_text(task, tokenizer, "Your code failed these visible tests: X")
    user = get_format("chat").render(task, tokenizer)[-1]["content"]
    assert taught.count(user + FEEDBACK_INTRO + "Your code failed these visible tests: X") == 1
    assert plain.replace(user, user + FEEDBACK_INTRO + "Your code failed these visible tests: X") == taught
    opened = teacher_text(task.__class__(**{**task.__dict__, "opening": "```python\n    ret"}), tokenizer, "F")
    assert opened.endswith("```python\n    ret")  # a PrefixRL opening follows, as in the student's prompt


def _sample(task, completion):
    return Sample(task.task_id, 0, "", completion, completion, (1,), (1,), False, True)


def test_which_rows_get_a_teacher(sandbox, tokenizer):
    add = load_tasks(TASKS).tasks[0]  # Toy/0: add, tests split into visible and hidden
    rows = [(add, "    return a + b\n", True, False),    # passed: no teacher
            (add, "    return a - b\n", False, False),   # failed: a teacher, from its visible tests
            (add, "    return a * b\n", False, True)]    # an infrastructure failure or a canary: none
    got = teacher_prompts(sandbox, None, tokenizer, [r[0] for r in rows], [_sample(r[0], r[1]) for r in rows],
                          [r[2] for r in rows], [r[3] for r in rows], feedback_tokens=200, room=4096)
    assert got[0] is None and got[2] is None
    text = tokenizer.decode(got[1])
    assert FEEDBACK_INTRO.strip() in text and "failed these visible tests" in text and ", expected " in text
    visible_only = teacher_prompts(sandbox, None, tokenizer, [add], [_sample(add, "    return a + b\n")], [False],
                                   [False], feedback_tokens=200, room=4096)
    assert visible_only == [None]  # failed hidden tests only (here: said so): its visible tests pass, nothing to show
    short = teacher_prompts(sandbox, None, tokenizer, [add], [_sample(add, "    return a - b\n")], [False], [False],
                            feedback_tokens=200, room=10)
    assert short == [None]  # longer than the room left for it


def test_the_solution_shown_is_a_passing_peer_else_the_reference(tokenizer):
    """By hand: group 0 has a row that passed (the second): its failed rows are shown that row's program; group 1
    failed everywhere: its rows are shown the task's reference; a task without a reference shows nothing."""
    add = load_tasks(TASKS).tasks[0]
    bare = add.__class__(**{**add.__dict__, "reference_solution": None})
    rows = [(add, "    return a - b\n", False, 0), (add, "    return b + a\n", True, 0), (add, "    return 0\n", False, 0),
            (add, "    return 1\n", False, 1), (bare, "    return 2\n", False, 2)]
    got = shown_solutions([r[0] for r in rows], [_sample(r[0], r[1]) for r in rows], [r[2] for r in rows],
                          [r[3] for r in rows])
    peer = add.build_program("    return b + a\n")
    assert got == [peer, peer, peer, add.build_program(add.reference_solution), ""]
    text = teacher_text(add, tokenizer, "F", peer)
    user = get_user(add, tokenizer)
    assert text.count(user + SOLUTION_INTRO + f"```python\n{peer.rstrip()}\n```" + FEEDBACK_INTRO + "F") == 1


def get_user(task, tokenizer):
    from coderl.rollout.formats import get_format

    return get_format("chat").render(task, tokenizer)[-1]["content"]


def test_with_the_solution_context_failed_rows_get_a_teacher_without_feedback_too(sandbox, tokenizer):
    """`context="solution"`: a failed row whose visible tests pass (nothing to say) still gets a teacher, shown the
    reference; the passed and the excluded rows still get none; under "feedback" that row gets none."""
    add = load_tasks(TASKS).tasks[0]
    rows = [(add, "    return a + b\n", False, False),   # failed hidden tests only: no feedback
            (add, "    return a - b\n", False, False),   # failed visible tests: reference and feedback
            (add, "    return a * b\n", False, True)]    # excluded: none
    args = (sandbox, None, tokenizer, [r[0] for r in rows], [_sample(r[0], r[1]) for r in rows],
            [r[2] for r in rows], [r[3] for r in rows])
    plain = teacher_prompts(*args, feedback_tokens=200, room=4096)
    shown = teacher_prompts(*args, feedback_tokens=200, room=4096, context="solution", groups=[0, 0, 0])
    assert plain[0] is None and plain[1] is not None and plain[2] is None and shown[2] is None
    first, second = tokenizer.decode(shown[0]), tokenizer.decode(shown[1])
    assert SOLUTION_INTRO.strip() in first and FEEDBACK_INTRO.strip() not in first
    assert SOLUTION_INTRO.strip() in second and "failed these visible tests" in second
    assert add.reference_solution.strip() in second


@pytest.mark.parametrize("overrides, flag", [
    ({"self_distill_context": "solution"}, "--self-distill-context"),
    ({"self_distill": -0.5}, "--self-distill"),
    ({"self_distill": 0.5, "format": "completion"}, "--format"),
    ({"self_distill": 0.5, "algo": "ppo"}, "--algo"),
    ({"self_distill": 0.5, "engine": "vllm"}, "--engine"),
    ({"self_distill": 0.5, "turns": 2}, "--turns"),
    ({"self_distill": 0.5, "dynamic_sampling": 1}, "--dynamic-sampling"),
    ({"self_distill": 0.5, "async_max_age": 1}, "--async-max-age"),
])
def test_settings_without_a_teacher_pass_are_refused(tmp_path, overrides, flag):
    from coderl.base.config import build
    from coderl.train.config import TrainConfig

    with pytest.raises(ConfigError, match=flag):
        build(TrainConfig, {"out": str(tmp_path / "run"), **overrides})


def test_a_step_whose_every_row_fails_learns_only_with_self_distillation(tmp_path):
    """Tiny random model, chat: every answer fails, every group's advantage is 0.  Plain GRPO skips the update;
    with --self-distill every failed row gets a teacher and the adapter moves."""
    from coderl.train.rl.policy_gradient import train
    from coderl.train.tracking import read_metrics
    from tests.models.tiny import tiny_llama

    model = tiny_llama(tmp_path / "model")
    runs = {}
    for name, weight in (("plain", 0.0), ("sdpo", 0.5)):
        cfg = base_config(model, tmp_path / name, format="chat", algo="grpo", steps=1, self_distill=weight,
                          max_new_tokens=8)
        train(cfg, log=lambda line: None)
        runs[name] = [r for r in read_metrics(str(tmp_path / name)) if "time/step" in r][-1]
    assert runs["plain"].get("train/empty_step") == 1.0 and "sdpo/rows" not in runs["plain"]
    sdpo = runs["sdpo"]
    assert "train/empty_step" not in sdpo and sdpo["sdpo/rows"] >= 1
    assert sdpo["advantage/updated_rows"] == 0.0  # the policy gradient had nothing: what moved is SDPO's
    assert "sdpo/gap" in sdpo and sdpo["train/grad_norm"] > 0
    assert "time/teacher" in sdpo


class _OneProcess:
    """What `teacher_logprobs` asks of an updater, for one process without a memory budget."""

    class memory:
        chunk_bytes = None

    @staticmethod
    def map_rows(count, fn, *, width=0):
        return fn(None)


def test_the_teacher_scores_each_rows_own_completion_tokens(tmp_path):
    """A teacher prompt equal to the row's own prompt gives back the sampling log-probs (the completion tokens are
    aligned after any prompt width); a longer prompt gives others; a row without a teacher gets zeros and False."""
    from coderl.models import load_model
    from coderl.rollout.generation import generate
    from coderl.train.rl.self_teacher import teacher_logprobs
    from tests.models.tiny import tiny_llama

    loaded = load_model(str(tiny_llama(tmp_path / "model")))
    model, tok = loaded.model, loaded.tokenizer
    model.eval()
    tasks = load_tasks(TASKS).tasks[:2]
    batch = generate(model, tok, tasks, format="chat", samples_per_prompt=2, temperature=1.0, max_new_tokens=6,
                     seed=0)
    own = [batch.prompt_ids[i, batch.prompt_ids.shape[1] - int(n):].tolist()
           for i, n in enumerate(batch.prompt_lengths)]
    same, has = teacher_logprobs(model, batch, own, 1.0, _OneProcess, tok.pad_token_id)
    assert has.all()
    assert torch.allclose(same * batch.mask, batch.logprobs * batch.mask, atol=1e-4)
    longer = [p + tok("feedback feedback", add_special_tokens=False)["input_ids"] if i % 2 else None
              for i, p in enumerate(own)]
    other, has = teacher_logprobs(model, batch, longer, 1.0, _OneProcess, tok.pad_token_id)
    assert has.tolist() == [False, True, False, True]
    assert other[0].abs().sum() == 0 and other[2].abs().sum() == 0
    assert not torch.allclose(other[1] * batch.mask[1], batch.logprobs[1] * batch.mask[1], atol=1e-4)
    assert teacher_logprobs(model, batch, [None] * len(batch), 1.0, _OneProcess, tok.pad_token_id) is None


@pytest.mark.parametrize("isolation, warned", [("uid", True), ("full", False)])
def test_below_full_isolation_the_teacher_and_repair_say_feedback_may_see_hidden_arguments(tokenizer, isolation,
                                                                                           warned):
    import warnings

    from coderl.rollout.feedback import warn_unless_isolated

    class Sb:
        pass

    sb = Sb()
    sb.isolation = isolation
    for who in ("--self-distill", "multi-turn repair"):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            warn_unless_isolated(sb, who)
        said = [str(w.message) for w in caught if issubclass(w.category, RuntimeWarning)]
        assert bool(said) == warned
        assert all(m.startswith(f"{who} under sandbox isolation 'uid': programs share /tmp") for m in said)
    with warnings.catch_warnings(record=True) as caught:  # teacher_prompts itself warns (no row to run here)
        warnings.simplefilter("always")
        assert teacher_prompts(sb, None, tokenizer, [], [], [], [], feedback_tokens=8, room=8) == []
    assert any("--self-distill under sandbox isolation" in str(w.message) for w in caught) == warned
