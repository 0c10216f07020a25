"""`coderl eval` with infrastructure failures (`sandbox_error`, after the sandbox's own re-runs): left out of
every rate and reported apart; a task left with fewer samples than k is incomplete for pass@k, never scored."""

import pytest

from coderl.base.config import build
from coderl.eval.passk import summarize
from coderl.eval.run import EvalConfig, _write_run, format_summary

TASKS = "tests/fixtures/tasks/humaneval_small.jsonl"


def test_incomplete_tasks_are_listed_per_k_and_not_scored_by_hand():
    # planned 5 samples; "b" lost 2 to infrastructure failures, "c" lost all 5
    s = summarize({"a": (5, 5), "b": (3, 0), "c": (0, 0)}, planned=5)
    assert s.pass_at_k[1] == pytest.approx((1 + 0) / 2)  # a and b have at least 1 sample
    assert s.pass_at_k[5] == 1.0  # only a has 5
    assert s.incomplete == {1: ["c"], 5: ["b", "c"]} and s.skipped_ks == [10, 100]
    assert summarize({"c": (0, 0)}, planned=1).pass_at_k == {}  # nothing complete: nothing reported


def test_an_infrastructure_failure_is_reported_apart_never_as_a_wrong_answer(tmp_path):
    from coderl.eval.chunks import sample_rows
    from coderl.rollout.types import Sample
    from coderl.sandbox.types import ExecutionResult, Status
    from coderl.tasks import load_tasks

    taskset = load_tasks(TASKS)
    tasks = taskset.tasks[:2]
    cfg = build(EvalConfig, dict(out=str(tmp_path), model="m", tasks=TASKS, samples=1, temperature=0.0))
    rows = []
    for task, status in ((tasks[0], Status.SANDBOX_ERROR), (tasks[1], Status.PASSED)):
        sample = Sample(task_id=task.task_id, group=0, prompt="", raw_output="x", completion="x",
                        gen_tokens=(1, 2), code_tokens=(1,), truncated=False, format_ok=True)
        rows.append((sample, ExecutionResult(status=status, message="cgroup" if status.value != "passed" else "")))
    summary = _write_run(cfg, taskset, tasks, sample_rows(*zip(*rows)), "full", {"load": 0, "generation": 1,
                                                                                  "total": 1}, 8, None)
    # the failure is no wrong answer (pass@1 would be 0.5): its task is incomplete, the other scored alone
    assert summary["pass_at_k"] == {"pass@1": 1.0} and summary["incomplete"] == {"pass@1": [tasks[0].task_id]}
    assert summary["infra_failures"]["samples"] == 1 and summary["infra_failures"]["by_task"] == {tasks[0].task_id: 1}
    assert summary["samples_passed"] == 1 and summary["statuses"] == {"sandbox_error": 1, "passed": 1}
    text = format_summary(summary)
    assert "infrastructure failures: 1 sample(s) of 1 task(s)" in text and "incomplete for pass@1" in text
    assert "infrastructure failures" in (tmp_path / "results.md").read_text()


def test_check_reports_an_infrastructure_failure_apart(tmp_path, capsys, monkeypatch):
    import json
    from concurrent.futures import Future

    from coderl.cli import main
    from coderl.sandbox.batches import Batches
    from coderl.sandbox.client import Sandbox
    from coderl.sandbox.types import ExecutionResult, Status

    real = Sandbox.submit_once

    def submit_once(self, request):  # the wrong answer's run never starts: its slot could not be made
        if "a - b" in request.program:
            future = Future()
            future.set_result(ExecutionResult(status=Status.SANDBOX_ERROR, message="injected: no slot"))
            return future
        return real(self, request)

    monkeypatch.setattr(Sandbox, "submit_once", submit_once)
    monkeypatch.setattr(Batches, "infra_retries", 0)
    rows = [{"task_id": "Toy/0", "completion": "    return a + b\n"},
            {"task_id": "Toy/0", "completion": "    return a - b\n"}]
    (tmp_path / "s.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    out = tmp_path / "results.jsonl"
    assert main(["check", "--tasks", TASKS, "--completions", str(tmp_path / "s.jsonl"), "--out", str(out),
                 "--workers", "1"]) == 0
    summary = json.loads((tmp_path / "results.jsonl.summary.json").read_text())
    assert summary["pass_at_k"] == {"pass@1": 1.0}  # 1/1, not 1/2: the failure is no wrong answer
    assert summary["infra_failures"]["by_task"] == {"Toy/0": 1}
    assert "infrastructure failures: 1 sample(s) of 1 task(s)" in capsys.readouterr().out
