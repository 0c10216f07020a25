import random
from collections import Counter

import pytest

from coderl.eval.stats import _percentile, bootstrap_ci, cluster_totals, paired_bootstrap_ci, resample_means


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


# ---- clusters (compositions): whole clusters are resampled


def test_one_task_a_cluster_is_the_task_bootstrap_draw_for_draw():
    values = [random.Random(3).random() for _ in range(37)]
    assert bootstrap_ci(values, clusters=[f"c{i}" for i in range(37)], seed=5) == bootstrap_ci(values, seed=5)


def test_clusters_of_equal_size_and_value_are_the_bootstrap_of_their_means():
    # three compositions of two tasks each: (0, 0), (1, 1), (1, 1).  A resample draws 3 clusters, and its
    # mean over their 6 tasks is (2*a + 2*b + 2*c) / 6 = (a + b + c) / 3: the same draws over [0, 1, 1]
    # give the same doubles (IEEE division is exact-rounded, 4/6 == 2/3).
    values, clusters = [0, 0, 1, 1, 1, 1], ["a", "a", "b", "b", "c", "c"]
    assert cluster_totals(values, clusters) == [(0, 2), (2, 2), (2, 2)]
    assert bootstrap_ci(values, clusters=clusters, seed=7) == bootstrap_ci([0, 1, 1], seed=7)
    # and not the task bootstrap, which draws 6 tasks: its resample means are multiples of 1/6
    means = resample_means(cluster_totals(values, clusters), 3000, random.Random(0))
    assert set(means) == {0.0, 1 / 3, 2 / 3, 1.0}
    # enumerated: each draw is "a" with probability 1/3, so P(mean = j/3) = C(3, j) (2/3)^j (1/3)^(3-j):
    # 1/27, 6/27, 12/27, 8/27
    freq = Counter(means)
    for mean, p in ((0.0, 1 / 27), (1 / 3, 6 / 27), (2 / 3, 12 / 27), (1.0, 8 / 27)):
        assert freq[mean] / len(means) == pytest.approx(p, abs=0.025)


def test_paired_cluster_interval_hand_computed():
    # Four tasks; the first three share composition "a" and all gained a pass, "b" did not move:
    # differences 1, 1, 1 | 0.  Cluster totals a = (3, 3 tasks), b = (0, 1 task).  A resample draws two
    # clusters: aa -> 6/6 = 1 (p 1/4), ab or ba -> 3/4 (p 1/2), bb -> 0/2 = 0 (p 1/4).  The mean over tasks
    # is 3/4.  With a quarter of the resamples at 0 and a quarter at 1, the 2.5% and 97.5% percentiles are
    # exactly 0 and 1.
    before, after, clusters = [0, 0, 0, 1], [1, 1, 1, 1], ["a", "a", "a", "b"]
    means = resample_means(cluster_totals([1, 1, 1, 0], clusters), 4000, random.Random(0))
    assert set(means) == {0.0, 0.75, 1.0}
    freq = Counter(means)
    assert (freq[0.0] / 4000, freq[0.75] / 4000, freq[1.0] / 4000) == pytest.approx((0.25, 0.5, 0.25), abs=0.03)
    assert paired_bootstrap_ci(before, after, clusters=clusters, resamples=4000) == (0.75, 0.0, 1.0)
    # resampling tasks instead sees four independent gains: all-zero draws are 1/256, so its lower end is above 0
    mean, lo, hi = paired_bootstrap_ci(before, after, resamples=4000)
    assert mean == 0.75 and lo == 0.25 and hi == 1.0


def test_clusters_must_match_the_values():
    with pytest.raises(ValueError, match="one cluster per value"):
        bootstrap_ci([1, 0], clusters=["a"])
