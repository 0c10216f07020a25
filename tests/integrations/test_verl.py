"""coderl's verl reward function.  In this environment: the rows it writes and its scores.  In verl's own
environment (verl pins transformers < 5.11, so it gets a venv of its own, `.venv-verl`, built by
`make test-slow`): loaded by verl's `get_custom_reward_fn` and called by its reward managers (slow)."""

import os
import subprocess

import pytest

from coderl.integrations.verl import compute_score, compute_score_batch, verl_rows
from coderl.tasks import load_tasks
from tests.train.helpers import TASKS

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
VERL_PYTHON = os.environ.get("CODERL_VERL_PYTHON", os.path.join(ROOT, ".venv-verl", "bin", "python"))


def test_rows_carry_the_task_id_and_spec():
    rows = verl_rows(TASKS, format="chat", weights={"pass": 1.0})
    tasks = load_tasks(TASKS).tasks
    assert [r["reward_model"]["ground_truth"] for r in rows] == [t.task_id for t in tasks]
    assert rows[0]["prompt"][0]["role"] == "user" and rows[0]["extra_info"]["tasks"] == os.path.abspath(TASKS)
    assert rows[0]["extra_info"]["format"] == "chat" and rows[0]["data_source"] == "coderl"


def test_scores_are_coderls_rewards():
    task = load_tasks(TASKS).tasks[0]
    extra = {"tasks": TASKS, "format": "completion", "weights": {"pass": 1.0, "fraction": 0.5}}
    good = compute_score("coderl", task.reference_solution, task.task_id, dict(extra))
    assert good == {"score": 1.5, "coderl/pass": 1.0, "coderl/fraction": 1.0}
    bad = compute_score_batch(["coderl"] * 2, ["    return None\n", "syntax error("], [task.task_id] * 2,
                              [dict(extra)] * 2)
    assert [b["coderl/pass"] for b in bad] == [0.0, 0.0]


def test_rows_without_coderl_fields_are_clear_errors():
    with pytest.raises(KeyError, match="extra_info has no 'tasks'"):
        compute_score("coderl", "x", "Toy/0", {})
    with pytest.raises(KeyError, match="ground_truth 'Nope' is not a task of"):
        compute_score("coderl", "x", "Nope", {"tasks": TASKS})


@pytest.mark.slow
def test_through_verls_own_reward_managers():
    if not os.path.exists(VERL_PYTHON):
        pytest.skip(f"verl's environment {VERL_PYTHON} is missing: `make test-slow` builds it")
    done = subprocess.run([VERL_PYTHON, os.path.join(ROOT, "tests", "integrations", "verl_check.py")], cwd=ROOT,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "verl_check: ok" in done.stdout
