"""pass@k against brute force: enumerate every k-subset of n samples and count those with a pass."""

import itertools
import math

import pytest

from coderl.eval.passk import pass_at_k, summarize


def brute_force(n: int, c: int, k: int) -> float:
    samples = [True] * c + [False] * (n - c)
    subsets = list(itertools.combinations(range(n), k))
    return sum(any(samples[i] for i in s) for s in subsets) / len(subsets)


@pytest.mark.parametrize("n", range(1, 9))
def test_matches_brute_force_and_comb(n):
    for c in range(n + 1):
        for k in range(1, n + 1):
            expected = brute_force(n, c, k)
            assert pass_at_k(n, c, k) == pytest.approx(expected, abs=1e-12)
            assert pass_at_k(n, c, k) == pytest.approx(1 - math.comb(n - c, k) / math.comb(n, k), abs=1e-12)


def test_hand_computed_values():
    # n=5, c=2, k=2: 1 - C(3,2)/C(5,2) = 1 - 3/10 = 0.7
    assert pass_at_k(5, 2, 2) == pytest.approx(0.7)
    # k=1 is the plain pass rate c/n
    assert pass_at_k(10, 3, 1) == pytest.approx(0.3)
    assert pass_at_k(10, 0, 5) == 0.0
    assert pass_at_k(10, 6, 5) == 1.0  # n - c = 4 < k: every 5-subset has a pass


def test_large_n_is_stable():
    assert pass_at_k(200, 1, 100) == pytest.approx(0.5)


def test_k_above_n_raises():
    with pytest.raises(ValueError, match="undefined"):
        pass_at_k(3, 1, 5)


def test_bad_counts_raise():
    with pytest.raises(ValueError):
        pass_at_k(3, 4, 1)
    with pytest.raises(ValueError):
        pass_at_k(3, 1, 0)


def test_summary_reports_ks_up_to_min_samples_and_names_limiting_tasks():
    s = summarize({"a": (10, 5), "b": (10, 0), "c": (5, 5)})
    assert set(s.pass_at_k) == {1, 5}
    assert s.skipped_ks == [10, 100]
    assert s.tasks_with_min_samples == ["c"]
    # pass@1 = mean(0.5, 0, 1); pass@5 = mean(1 - C(5,5)/C(10,5), 0, 1) = mean(1 - 1/252, 0, 1)
    assert s.pass_at_k[1] == pytest.approx(0.5)
    assert s.pass_at_k[5] == pytest.approx((1 - 1 / 252 + 0 + 1) / 3)


def test_summary_with_equal_samples_names_no_task():
    s = summarize({"a": (1, 1), "b": (1, 0)})
    assert s.pass_at_k == {1: 0.5} and s.tasks_with_min_samples == []
