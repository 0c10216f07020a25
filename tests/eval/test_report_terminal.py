"""The terminal rendering of a pipeline report: sparklines scaled to each series."""

from coderl.eval.render import SPARK, sparkline


def test_sparkline_scales_between_min_and_max():
    assert sparkline([0.0, 0.5, 1.0]) == SPARK[0] + SPARK[4] + SPARK[-1]
    assert sparkline([3.0, 3.0]) == SPARK[3] * 2  # flat: the middle block, no division by zero
    assert sparkline([]) == ""
    assert len(sparkline([float(i) for i in range(20)])) == 20
