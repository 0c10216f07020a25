"""The report's hack watch: sandbox/caught_rate (and the canaries' attempt rate) plotted beside the reward, the run's
canary attempts counted (and what sampling them beside the training prompts cost), and a warning for every step whose
canary attempt rate was above `train.canary.WARN_RATE`."""

import json

import pytest

pytest.importorskip("matplotlib")

from coderl.eval.render import _run_markdown  # noqa: E402
from coderl.pipeline.report import CURVES, _series, plot_curves, run_notes  # noqa: E402
from coderl.train.canary import WARN_RATE  # noqa: E402


def test_caught_rate_is_plotted_beside_reward_and_hack_attempts_warn(tmp_path):
    run = tmp_path / "rl" / "grpo"
    run.mkdir(parents=True)
    rows = [{"step": s, "reward/total": 0.1 * s, "sandbox/pass_rate": 0.1 * s, "sandbox/caught_rate": c,
             "hack/canary_attempt_rate": h, "hack/canary_samples": 6.0, "rollout/gen_tokens": 40.0}
            for s, c, h in [(1, 0.0, 0.0), (2, 0.25, WARN_RATE), (3, 0.5, 0.5)]]
    (run / "metrics.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    assert [panel for panel, _ in CURVES][:2] == ["reward", "hack watch (rate)"]
    series = _series(rows)
    assert series["sandbox/caught_rate"] == [0.0, 0.25, 0.5] and series["hack/canary_attempt_rate"][-1] == 0.5
    plot_curves(rows, "grpo", str(tmp_path / "curves.png"))
    assert (tmp_path / "curves.png").stat().st_size > 0
    note = run_notes(str(tmp_path), "rl/grpo")
    assert note["hack_warnings"] == [{"step": 3, "rate": 0.5, "samples": 6.0}]  # at the rate: no warning
    md = "\n".join(_run_markdown(note))
    assert "**Warning: hack attempts.**" in md and "steps 3 (50%)" in md
    assert note["hack_attempts"] == {"steps": 3, "samples": 18, "attempts": 3, "seconds": 0}  # 0 + 0.3->0 + 3
    assert "3 of 18 canary samples over 3 steps (" in md
    beside = [{**r, "hack/canary_seconds": 2.5} for r in rows]  # --canary-beside: the measurement's cost too
    (run / "metrics.jsonl").write_text("".join(json.dumps(r) + "\n" for r in beside))
    assert "beside the training prompts cost 8 s" in "\n".join(_run_markdown(run_notes(str(tmp_path), "rl/grpo")))
    (run / "metrics.jsonl").write_text(json.dumps(rows[0]) + "\n")
    assert "Warning" not in "\n".join(_run_markdown(run_notes(str(tmp_path), "rl/grpo")))
    (run / "metrics.jsonl").write_text(json.dumps({"step": 1, "reward/total": 0.1}) + "\n")
    assert run_notes(str(tmp_path), "rl/grpo")["hack_attempts"] is None  # no canaries: no line
    assert "Hack attempts" not in "\n".join(_run_markdown(run_notes(str(tmp_path), "rl/grpo")))
