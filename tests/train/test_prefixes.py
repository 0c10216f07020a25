"""PrefixRL (`train/sources/prefixes.py`): the prefix of a reference, the reply opened with it, the stop that ends
such a reply, what is extracted and run, which prompts get one, and a training step that uses them."""

import json
import random
from collections import Counter

import pytest

from coderl.base.config import ConfigError
from coderl.rollout.formats import CHAT_STOPS, ClosingFence, first_stop, get_format, reply_opening
from coderl.tasks import load_tasks
from coderl.tasks.types import Task
from coderl.train.sources.curriculum import Curriculum
from coderl.train.sources.prefixes import prefixed, prefixed_round, solution_prefix, word_prefix

TWO_STEPS = Task(task_id="T/0", kind="function", entry_point="lower_then_repeat", tests=(),
                 prompt='def lower_then_repeat(s: str) -> str:\n    """Lower case, then 3 times."""\n',
                 reference_solution="    s = s.lower()\n    return s * 3\n")


@pytest.mark.parametrize("solution, fraction, expected", [
    ("    s = s.lower()\n    return s * 3\n", 0.5, "    s = s.lower()\n"),       # 1 of 2
    ("    s = s.lower()\n    return s * 3\n", 0.99, "    s = s.lower()\n"),      # never all: 1 of 2
    ("a\n\nb\nc\n", 0.5, "a\n"),                                                 # floor(1.5) = 1 of 3
    ("a\n\nb\nc\n", 0.9, "a\n\nb\n"),                                            # floor(2.7) = 2, blank line kept
    ("a\nb\nc\nd\n", 0.1, "a\n"),                                                # at least one
    ("a\nb", 0.5, "a\n"),                                                        # no final newline
])
def test_solution_prefix_by_hand(solution, fraction, expected):
    assert solution_prefix(solution, fraction) == expected


@pytest.mark.parametrize("solution", ["    return n + 1\n", "\n    return n + 1\n\n", ""])
def test_a_solution_of_one_line_has_no_prefix_to_give(solution):
    assert solution_prefix(solution, 0.5) is None


def test_reply_openings_by_format():
    prefix = "    s = s.lower()\n"  # the opening ends with the line's code, not its newline
    assert reply_opening("completion", TWO_STEPS, prefix) == "    s = s.lower()"
    assert reply_opening("chat", TWO_STEPS, prefix) == "```python\n" + TWO_STEPS.prompt + "    s = s.lower()"
    stdio = Task(task_id="S/0", kind="stdio", prompt="Print the sum of two numbers.", tests=())
    assert reply_opening("chat", stdio, "a, b = map(int, input().split())\n\n") == \
        "```python\na, b = map(int, input().split())"
    with pytest.raises(ValueError, match="reasoning"):
        reply_opening("reasoning", TWO_STEPS, prefix)
    import coderl.tasks.math_tasks  # noqa: F401  (registers the math kind)

    math = Task(task_id="M/0", kind="math", prompt="1 + 1?", tests=())
    with pytest.raises(ValueError, match="not code"):
        reply_opening("chat", math, "2")


def test_the_closing_fence_of_an_opened_block_stops_the_reply():
    opened = ClosingFence("\n```\n", opened=True)
    reply = "\n    return s * 3\n```\nThis function lowers s."  # after an opening that ends inside a line
    assert first_stop(reply, (opened,)) == reply.index("\n```")
    assert first_stop(reply, CHAT_STOPS) is None  # unopened, the same ``` line would open a block
    assert first_stop("\n```\nDone.", (opened,)) == 0  # the block closed at once
    assert first_stop("```\nDone.", (opened,)) is None  # ``` after the opening's code on its line: not a fence
    assert first_stop("\n    x = [\n        1]\n", (opened,)) is None  # no fence yet
    import pickle

    again = pickle.loads(pickle.dumps(opened))
    assert again == opened and again.opened  # sent to another process as it is


def test_the_row_text_search_starts_inside_an_opened_block():
    from coderl.rollout.hf_callbacks import _RowText

    opened = (ClosingFence("\n```\n", opened=True),)
    assert _RowText(opened).check("\n    return s * 3\n```\n", 1, False)
    assert not _RowText(CHAT_STOPS).check("\n    return s * 3\n```\n", 1, False)
    assert not _RowText(opened).check("```\n", 1, False)  # on the opening's last line: not a fence


def test_a_prefixed_task_stops_extracts_and_runs_its_program(sandbox):
    """A level-2 pool task prefixed with its reference's first step: the chat reply that writes the rest and closes
    the block is cut at its fence, extracted with the opening, and passes the task's tests in the sandbox; the
    reply that writes a wrong second step fails them."""
    task = next(t for t in load_tasks("pool:level=2,n=40").tasks if solution_prefix(t.reference_solution, 0.5))
    given = prefixed(task, "chat", 0.5)
    lines = task.reference_solution.split("\n")
    head = solution_prefix(task.reference_solution, 0.5)
    assert given.opening.endswith(head.rstrip("\n")) and given.opening.startswith("```python\n" + task.prompt)
    fmt = get_format("chat")
    stops = fmt.stop_sequences(given)
    assert stops[0].opened and not fmt.stop_sequences(task)[0].opened
    rest = task.reference_solution[len(head) - 1:]  # from the newline that ends the prefix's last line
    reply = rest + "```\nThis solves it.\n"
    cut = reply[:first_stop(reply, stops)] + "\n```\n"  # the row as `cut_generation` keeps it: through the fence
    extraction = fmt.extract(given, given.opening + cut)
    assert extraction.format_ok and len(lines) > 2
    assert sandbox.run(given.build_request(extraction.completion)).passed
    wrong = fmt.extract(given, given.opening + "\n    return None\n```\n").completion
    assert not sandbox.run(given.build_request(wrong)).passed


def test_completion_format_extracts_the_opening_and_the_continuation():
    given = prefixed(TWO_STEPS, "completion", 0.5)
    assert given.opening == "    s = s.lower()"
    completion = get_format("completion").extract(given, given.opening + "\n    return s * 3\n").completion
    assert given.build_program(completion) == TWO_STEPS.prompt + TWO_STEPS.reference_solution


def test_which_prompts_of_a_round_are_prefixed():
    one_line = Task(task_id="T/1", kind="function", prompt="def f(n):\n", tests=(), entry_point="f",
                    reference_solution="    return n\n")
    tasks = [TWO_STEPS, TWO_STEPS, TWO_STEPS, TWO_STEPS, one_line]
    out = prefixed_round(tasks, [None, 0.0, 0.05, 0.5, 0.0], below=0.1, fraction=0.5, format="chat")
    assert [bool(t.opening) for t in out] == [False, True, True, False, False]  # unknown rate, hard, hard, not, no prefix
    assert out[0] is TWO_STEPS and out[4] is one_line and out[1].task_id == TWO_STEPS.task_id


def test_a_prefixed_outcome_moves_the_task_rate_not_its_composition():
    pool = load_tasks("pool:level=2,n=4").tasks
    c = Curriculum(pool)
    c.record(0, 1.0, groups=False)
    assert c.rates[0] == 1.0 and c.group_rates == {}
    c.record(1, 0.5)
    assert c.rates[1] == 0.5 and set(c.group_rates.values()) == {0.5}


@pytest.mark.parametrize("fraction, expected", [
    # the words of "    s = s.lower()\n    return s * 3\n": s, =, s.lower(), return, s, *, 3 (n = 7)
    (0.5, {"    s", "    s =", "    s = s.lower()"}),                                # floor(3.5) = 3
    (0.2, {"    s"}),                                                                # at least one
    (0.99, {"    s", "    s =", "    s = s.lower()", "    s = s.lower()\n    return",
            "    s = s.lower()\n    return s", "    s = s.lower()\n    return s *"}),  # never all: 6 of 7
])
def test_word_prefixes_by_hand(fraction, expected):
    draw = random.Random(0)
    got = Counter(word_prefix(TWO_STEPS.reference_solution, fraction, draw) for _ in range(600))
    assert set(got) == expected
    assert min(got.values()) > 600 / len(expected) / 2  # uniform over the word ends: none far below its share
    assert word_prefix("    return x\n", 0.5, draw) == "    return"
    assert word_prefix("    pass\n", 0.5, draw) is None


def test_word_cuts_are_drawn_per_prompt_and_step_and_repeat_with_the_key():
    tasks = [TWO_STEPS] * 6
    first = [t.opening for t in prefixed_round(tasks, [0.0] * 6, below=0.1, fraction=0.99, format="completion",
                                               cut="words", key="0/3/0")]
    again = [t.opening for t in prefixed_round(tasks, [0.0] * 6, below=0.1, fraction=0.99, format="completion",
                                               cut="words", key="0/3/0")]
    later = [t.opening for t in prefixed_round(tasks, [0.0] * 6, below=0.1, fraction=0.99, format="completion",
                                               cut="words", key="0/4/0")]
    assert first == again  # a resumed run draws the same cuts
    assert len(set(first)) > 1 and first != later  # many lengths: by position in the round and by step
    assert all(TWO_STEPS.reference_solution.startswith(o) for o in first)


@pytest.mark.parametrize("overrides, field", [
    ({"prefix_below": 0.1, "prefix_cut": "tokens"}, "--prefix-cut"),
    ({"prefix_below": 0.1, "engine": "vllm"}, "--engine"),
    ({"prefix_below": 0.1, "format": "reasoning"}, "--format"),
    ({"prefix_below": 0.1, "turns": 2}, "--turns"),
    ({"prefix_below": 0.0}, "--prefix-below"),
    ({"prefix_below": 0.1, "prefix_fraction": 1.0}, "--prefix-fraction"),
])
def test_settings_that_cannot_open_a_reply_are_refused(tmp_path, overrides, field):
    from coderl.base.config import build
    from coderl.train.config import TrainConfig

    with pytest.raises(ConfigError, match=field):
        build(TrainConfig, {"out": str(tmp_path / "run"), **overrides})


def test_a_training_step_trains_on_what_follows_the_prefix(tmp_path):
    """Tiny random model, completion format: the task measured hopeless is prefixed, the one always solved is not;
    the rows' prompts end with the opening, the completions extracted start with it, and the step reports it."""
    pytest.importorskip("torch")
    from coderl.train.rl.policy_gradient import train
    from tests.models.tiny import tiny_llama
    from tests.train.helpers import base_config, varied_reward

    rows = [{"task_id": "Two/0", "prompt": "def twice_plus(n):\n", "canonical_solution":
             "    m = n * 2\n    return m + 1\n", "test": "def check(candidate):\n    assert candidate(1) == 3\n",
             "entry_point": "twice_plus"},
            {"task_id": "Two/1", "prompt": "def half_minus(n):\n", "canonical_solution":
             "    m = n // 2\n    return m - 1\n", "test": "def check(candidate):\n    assert candidate(4) == 1\n",
             "entry_point": "half_minus"}]
    tasks = tmp_path / "two.jsonl"
    tasks.write_text("".join(json.dumps(r) + "\n" for r in rows))
    measured = tmp_path / "rates" / "samples.jsonl"
    measured.parent.mkdir()
    measured.write_text("".join(json.dumps({"task_id": t, "passed": ok}) + "\n"
                                for t, ok in (("Two/0", False), ("Two/1", True)) for _ in range(4)))
    seen = []

    def reward(results, samples, group_tasks):
        seen.append([(t.task_id, t.opening, s.prompt, s.completion) for t, s in zip(group_tasks, samples)])
        return varied_reward(results, samples, group_tasks)

    cfg = base_config(tiny_llama(tmp_path / "model"), tmp_path / "run", tasks=str(tasks), steps=1,
                      pass_rates=str(measured.parent), prefix_below=0.1)
    metrics = train(cfg, log=lambda line: None, reward_override=reward)
    assert Counter(t for t, *_ in seen[0]) == Counter({"Two/0": 3, "Two/1": 3})
    for task_id, opening, prompt, completion in seen[0]:
        assert bool(opening) == (task_id == "Two/0")
        assert prompt.endswith(opening) and completion.startswith(opening)
    assert opening_of(seen, "Two/0") == "    m = n * 2"
    assert metrics["prefix/prompts"] == 1.0 and "prefix/pass_rate" in metrics


def opening_of(seen, task_id):
    return next(opening for t, opening, *_ in seen[0] if t == task_id)


def test_level_pass_rates_count_plain_rows_of_leveled_tasks_only():
    """By hand: level 1 plain rows pass 1 of 2; level 2's plain rows 1 of 3 (its prefixed row and its
    infrastructure failure left out); a task without a level adds no key."""
    from coderl.train.sources.rounds import level_pass_rates

    def task(level, opening=""):
        return Task(task_id=f"L{level}", kind="function", prompt="def f(n):\n", tests=(), entry_point="f",
                    metadata={} if level is None else {"level": level}, opening=opening)

    rows = [task(1), task(1), task(2), task(2), task(2), task(2, "    m = n"), task(2), task(None)]
    passed = [True, False, True, False, False, True, True, True]
    failed = [False, False, False, False, False, False, True, False]
    assert level_pass_rates(rows, passed, failed) == {"sandbox/pass_rate/level_1": 0.5,
                                                      "sandbox/pass_rate/level_2": 1 / 3}
    assert level_pass_rates([task(None)], [True], [False]) == {}
