"""The online curriculum's pure parts, against hand-computed cases."""

import random

import pytest

from coderl.train.curriculum import curriculum_prompts, frontier_fraction, task_weights, update_rate, weighted_sample


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


def test_step_draws_are_seeded_by_seed_and_step():
    rates = [None, 0.0, 0.5, 1.0]
    assert curriculum_prompts(rates, 2, 0.1, seed=0, step=3) == curriculum_prompts(rates, 2, 0.1, seed=0, step=3)
    assert len(curriculum_prompts(rates, 9, 0.1, seed=0, step=3)) == 4
    assert frontier_fraction(rates) == pytest.approx(1 / 3) and frontier_fraction([None]) == 0.0
