"""The online curriculum's pure parts, against hand-computed cases."""

import random
from types import SimpleNamespace

import pytest

from coderl.train.sources.curriculum import Curriculum, frontier_fraction, task_weights, update_rate, weighted_sample


def test_weights_prefer_unseen_and_frontier_tasks():
    assert task_weights([None, 0.0, 0.5, 1.0, 1e-12, 0.999], 0.1) == [1.0, 0.1, 1.0, 0.1, 0.1, 1.0]


def test_running_rate_is_an_ema_with_momentum_half():
    assert update_rate(None, 0.25) == 0.25       # first sight: the observed fraction
    assert update_rate(0.25, 0.75) == 0.5        # 0.5 * 0.25 + 0.5 * 0.75
    assert update_rate(1.0, 0.0) == 0.5


def test_weighted_sample_is_distinct_seeded_and_follows_the_weights():
    picks = weighted_sample([1.0] * 5, 3, random.Random(0))
    assert len(set(picks)) == 3 and picks == weighted_sample([1.0] * 5, 3, random.Random(0))
    assert weighted_sample([0.0, 1.0, 0.0], 2, random.Random(1))[0] == 1  # zero weight only when nothing else is left
    # task 0 has weight 1, tasks 1..9 weight 0.1: drawing 1 of 10, task 0 should win about 1 / (1 + 0.9) = 53%
    wins = sum(weighted_sample([1.0] + [0.1] * 9, 1, random.Random(s)) == [0] for s in range(4000))
    assert wins / 4000 == pytest.approx(1 / 1.9, abs=0.03)


def test_draws_are_seeded_and_capped_at_the_task_count():
    rates = [None, 0.0, 0.5, 1.0]
    c = Curriculum([SimpleNamespace(metadata={}, source="file")] * 4, rates)  # tasks of no group
    assert c.draw(2, 0.1, random.Random("0:curriculum:3")) == c.draw(2, 0.1, random.Random("0:curriculum:3"))
    assert sorted(c.draw(9, 0.1, random.Random(0))) == [0, 1, 2, 3]
    assert frontier_fraction(rates) == pytest.approx(1 / 3) and frontier_fraction([None]) == 0.0


def test_level_pass_rates_by_hand():
    """Level 1's rows pass 1 of 2; level 2's 2 of 4 (its infrastructure failure left out); a task without a level
    adds no key."""
    from coderl.tasks.types import Task
    from coderl.train.sources.rounds import level_pass_rates

    def task(level):
        return Task(task_id=f"L{level}", kind="function", prompt="def f(n):\n", tests=(), entry_point="f",
                    metadata={} if level is None else {"level": level})

    rows = [task(1), task(1), task(2), task(2), task(2), task(2), task(2), task(None)]
    passed = [True, False, True, False, False, True, True, True]
    failed = [False, False, False, False, False, False, True, False]
    assert level_pass_rates(rows, passed, failed) == {"sandbox/pass_rate/level_1": 0.5,
                                                      "sandbox/pass_rate/level_2": 0.5}
    assert level_pass_rates([task(None)], [True], [False]) == {}
