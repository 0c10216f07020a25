"""scripts/interval_budget.py against hand-computed values."""

import importlib.util
import math
from pathlib import Path

import pytest

_spec = importlib.util.spec_from_file_location(
    "interval_budget", Path(__file__).resolve().parents[1] / "scripts" / "interval_budget.py")
_module = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_module)
budget = _module.budget


def test_within_and_between_task_variance_by_hand():
    # 4 tasks x 4 samples: pass rates before 0, 0.5, 0.5, 1 and after 0.5, 0.5, 1, 1
    before = {"a": [4, 0, 0], "b": [4, 2, 0], "c": [4, 2, 0], "d": [4, 4, 0]}
    after = {"a": [4, 2, 0], "b": [4, 2, 0], "c": [4, 4, 0], "d": [4, 4, 0]}
    out = budget(before, after, [4, 16])
    assert out["delta"] == pytest.approx(0.25) and out["samples"] == 4
    # differences 0.5, 0, 0.5, 0: variance (4 x 0.0625) / 3 = 1/12
    # within: per task p(1-p)/3 per side: a 0 + 1/12, b 1/12 + 1/12, c 1/12 + 0, d 0 + 0 -> 4/12 / 4 = 1/12
    assert out["within_share"] == pytest.approx(1.0)
    se4 = math.sqrt((0 + (1 / 12) * 4 / 4) / 4)
    se16 = math.sqrt((0 + (1 / 12) * 4 / 16) / 4)
    assert out["projection"][4] == pytest.approx((1.96 * se4, 2.80 * se4))
    assert out["projection"][16] == pytest.approx((1.96 * se16, 2.80 * se16))


def test_different_tasks_are_refused():
    from coderl.base.config import ConfigError

    with pytest.raises(ConfigError, match="do not hold the same tasks"):
        budget({"a": [2, 1, 0]}, {"b": [2, 1, 0]}, [8])


def test_bad_input_is_one_line_and_exit_2(tmp_path):
    import subprocess
    import sys

    script = Path(__file__).resolve().parents[1] / "scripts" / "interval_budget.py"
    for before in (tmp_path / "missing", tmp_path):  # no samples.jsonl / a run of other tasks
        (tmp_path / "samples.jsonl").write_text('{"task_id": "a", "passed": true, "gen_tokens": 3}\n')
        other = tmp_path / "other"
        other.mkdir(exist_ok=True)
        (other / "samples.jsonl").write_text('{"task_id": "b", "passed": true, "gen_tokens": 3}\n')
        proc = subprocess.run([sys.executable, str(script), str(before), str(other)], capture_output=True, text=True,
                              cwd=script.parents[1])
        assert proc.returncode == 2 and proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr, proc.stderr
