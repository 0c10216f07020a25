import pytest

from coderl.eval.stats import _percentile, bootstrap_ci, paired_bootstrap_ci


def test_percentile_interpolates_like_numpy():
    # numpy.percentile([1, 2, 3, 4], 25) = 1 + 0.75 * (2 - 1) = 1.75
    assert _percentile([1, 2, 3, 4], 0.25) == pytest.approx(1.75)
    assert _percentile([5], 0.9) == 5


def test_constant_values_have_a_point_interval():
    assert bootstrap_ci([1.0] * 10) == (1.0, 1.0)


def test_interval_contains_the_mean_and_is_seeded():
    values = [0.0] * 20 + [1.0] * 10
    lo, hi = bootstrap_ci(values, seed=1)
    assert lo < 1 / 3 < hi
    assert (lo, hi) == bootstrap_ci(values, seed=1)
    # Binomial standard error sqrt(p(1-p)/n) = sqrt(2/9/30) ~= 0.086: the 95% interval is ~ +-0.17
    assert 0.25 < hi - lo < 0.45


def test_paired_difference():
    before = [0, 0, 1, 1, 0, 0, 1, 0]
    after = [1, 0, 1, 1, 1, 0, 1, 1]
    mean, lo, hi = paired_bootstrap_ci(before, after)
    assert mean == pytest.approx(3 / 8)
    assert lo <= mean <= hi
    with pytest.raises(ValueError, match="same tasks"):
        paired_bootstrap_ci([1], [1, 2])
