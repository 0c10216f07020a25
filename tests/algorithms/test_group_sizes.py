"""Group sizes from pass rates (`coderl.algorithms.group_sizes`), against hand-computed values."""

import random

import pytest

from coderl.algorithms.group_sizes import allocate_group_sizes, effective_rate, informative


def test_informative_probability_by_hand():
    assert informative(2, 0.5) == pytest.approx(0.5)  # 1 - 1/4 - 1/4
    assert informative(4, 0.5) == pytest.approx(0.875)  # 1 - 2/16
    assert informative(3, 0.1) == pytest.approx(1 - 0.001 - 0.729)
    assert informative(8, 1.0) == 0.0 and informative(8, 0.0) == 0.0 and informative(1, 0.5) == 0.0


def test_a_solved_task_gets_nothing_and_a_frontier_task_the_budget():
    # p = 0.5, per sample: 0->2 0.25, 2->4 0.1875, 4->6 0.046875, 6->8 0.01171875; p = 1 gains nothing
    assert allocate_group_sizes([1.0, 0.5], 8) == [0, 8]


def test_equal_tasks_share_and_ties_go_first():
    # t0 0->2 (0.25, tie: the earlier), t1 0->2 (0.25), t0 2->4 (0.1875), t1 2->4 (0.1875)
    assert allocate_group_sizes([0.5, 0.5], 8) == [4, 4]
    assert allocate_group_sizes([0.5, 0.5], 6) == [4, 2]


def test_a_rare_success_gets_the_larger_group():
    # per-sample gains, p = 0.05: 0->2 .0475, 2->4 .04525, 4->6 .0397, 6->8 .03584, 8->10 .03234;
    # p = 0.5: .25, .1875, .046875, .0117.  Greedy over 16 samples: t0 2, t0 4, t1 2, t0 6, t1 4, t1 6, t1 8, t1 10
    assert allocate_group_sizes([0.5, 0.05], 16, max_group=16) == [6, 10]


def test_a_measured_zero_is_explored_last():
    assert effective_rate(0.0, unseen_rate=0.5, hopeless_rate=0.02) == 0.02
    # v(2, 0.02) = 0.0392 (0.0196 a sample) loses to the p = 0.5 task's 0.25 and 0.1875
    assert allocate_group_sizes([0.0, 0.5], 4) == [0, 4]
    # once the p = 0.5 task's next block is worth less (6->8: .0117 a sample) the hopeless one gets its turn
    # (v(2) .0392, v(4) .0776, v(6) .1142, v(8) .1492: .0196, .0192, .0183, .0175 a sample): both end at 8
    assert allocate_group_sizes([0.0, 0.5], 20, max_group=8) == [8, 8]
    assert allocate_group_sizes([0.0], 6, hopeless_rate=0.0) == [0]  # no hope at all: nothing to learn


def test_limits_unseen_tasks_and_unusable_budget():
    assert allocate_group_sizes([None], 4) == [4]  # planned at unseen_rate 0.5
    assert allocate_group_sizes([1.0, 1.0], 8) == [0, 0]  # all solved: the budget stays unspent
    assert allocate_group_sizes([0.5], 100, max_group=8) == [8]
    assert allocate_group_sizes([0.5], 1) == [0]  # not even one minimal group fits
    assert allocate_group_sizes([0.5], 7, min_group=4, block=4, max_group=8) == [4]
    with pytest.raises(ValueError, match="min_group >= 2"):
        allocate_group_sizes([0.5], 8, min_group=1)


def test_never_over_budget_and_sizes_are_on_the_grid():
    rng = random.Random(0)
    for _ in range(200):
        rates = [rng.choice([None, 0.0, 1.0, rng.random()]) for _ in range(rng.randint(1, 12))]
        budget, min_group, block = rng.randint(0, 120), rng.choice([2, 4]), rng.choice([1, 2, 4])
        max_group = min_group + block * rng.randint(0, 8)
        sizes = allocate_group_sizes(rates, budget, min_group=min_group, block=block, max_group=max_group)
        assert sum(sizes) <= budget
        assert all(n == 0 or (min_group <= n <= max_group and (n - min_group) % block == 0) for n in sizes)
        assert all(n == 0 for n, r in zip(sizes, rates) if r is not None and r >= 1.0)


def test_collect_chunks_hold_the_rows_that_fit_the_batch():
    from coderl.rollout.collect import chunk_starts

    # equal counts n: batch_size // n tasks a chunk, as before adaptive sizes existed
    assert chunk_starts([8] * 10, 32) == [0, 4, 8]
    assert chunk_starts([3] * 5, 16) == [0]
    assert chunk_starts([8, 8], 4) == [0, 1]  # a group larger than the batch is a chunk of its own
    # 10 + 6 = 16 fit; 2 more would not; 2 + 12 fit; 4 alone; 20 alone (> 16)
    assert chunk_starts([10, 6, 2, 12, 4, 20], 16) == [0, 2, 4, 5]
    assert chunk_starts([], 16) == []
    # cutting at a chunk start leaves the later chunks where they were (ranks shard at chunk starts)
    counts = [10, 6, 2, 12, 4, 20, 2, 2]
    assert [2 + s for s in chunk_starts(counts[2:], 16)] == chunk_starts(counts, 16)[1:]
