"""The terminal rendering of a pipeline report: sparklines scaled to each series."""

from coderl.eval.render import SPARK, sparkline


def test_sparkline_scales_between_min_and_max():
    assert sparkline([0.0, 0.5, 1.0]) == SPARK[0] + SPARK[4] + SPARK[-1]
    assert sparkline([3.0, 3.0]) == SPARK[3] * 2  # flat: the middle block, no division by zero
    assert sparkline([]) == ""
    assert len(sparkline([float(i) for i in range(20)])) == 20


def test_the_curves_of_a_short_run_keep_rates_in_0_1_and_steps_whole(tmp_path, monkeypatch):
    """Two steps whose pass rates sit near 0.5: the rate panel still spans [0, 1] (autoscaling zoomed to 0.49-0.51),
    and the step axis has whole steps only."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from coderl.pipeline.report import plot_curves

    figures = []
    monkeypatch.setattr(plt, "close", figures.append)
    rows = [{"step": 1, "reward/total": 0.5, "sandbox/pass_rate": 0.49, "rollout/gen_tokens": 10},
            {"step": 2, "reward/total": 0.6, "sandbox/pass_rate": 0.51, "rollout/gen_tokens": 12}]
    plot_curves(rows, "run", str(tmp_path / "curves.png"))
    (fig,) = figures
    rates = fig.axes[1]
    assert rates.get_ylim()[0] <= 0 and rates.get_ylim()[1] >= 1
    fig.canvas.draw()
    for ax in fig.axes:
        assert all(float(t).is_integer() for t in ax.get_xticks()), ax.get_xticks()
