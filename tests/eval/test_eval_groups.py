"""pass@k per test group, side by side (coderl.eval.groups; issue 77): EvalPlus's base and plus columns in
`coderl eval`'s summary, its printed summary and results.md, and in the pipeline report's table; tasks without
groups change nothing."""

from __future__ import annotations

import json

import pytest

from coderl.base.config import build
from coderl.eval.groups import group_counts, group_summary
from coderl.eval.run import EvalConfig, _write_run, format_summary
from coderl.sandbox.types import CheckKind, TestCase
from coderl.tasks.types import Task

GROUPS = {"base": ["base"], "plus": ["base", "plus"]}
HE = "hf:tests/fixtures/tasks/evalplus/humanevalplus_small.jsonl:preset=humanevalplus"


def _task(task_id, groups=GROUPS):
    tests = tuple(TestCase(i, "candidate()", CheckKind.EQUALS, 1) for i in ("base/0", "base/1", "plus/0"))
    return Task(task_id, "function", "", tests, entry_point="f", metadata={"test_groups": groups} if groups else {})


def _row(task_id, passed_ids, status="failed"):
    ids = ("base/0", "base/1", "plus/0")
    return {"task_id": task_id, "status": status,
            "tests": [{"id": i, "status": "passed" if i in passed_ids else "failed"} for i in ids]}


def test_group_counts_by_hand():
    tasks = [_task("a"), _task("b"), _task("c", groups=None)]
    rows = [_row("a", {"base/0", "base/1", "plus/0"}, "passed"), _row("a", {"base/0", "base/1"}),
            _row("b", {"base/0", "plus/0"}), _row("b", {"base/0", "base/1"}),
            _row("b", set(), "sandbox_error"), _row("c", {"base/0", "base/1", "plus/0"}, "passed")]
    counts = group_counts(tasks, rows, skip=lambda r: r["status"] == "sandbox_error")
    assert counts == {"base": {"a": (2, 2), "b": (2, 1)}, "plus": {"a": (2, 1), "b": (2, 0)}}  # c has no groups
    summary = group_summary(tasks, rows, {}, 0, skip=lambda r: r["status"] == "sandbox_error")
    assert summary["base"]["pass_at_k"] == {"pass@1": pytest.approx((1 + 0.5) / 2)}
    assert summary["plus"]["pass_at_k"] == {"pass@1": pytest.approx((0.5 + 0) / 2)}
    assert summary["base"]["num_tasks"] == 2 and summary["plus"]["groups"] == ["base", "plus"]
    assert group_summary([_task("c", groups=None)], rows, {}, 0) == {}


def _samples(sandbox, pairs):
    from coderl.eval.chunks import sample_rows
    from coderl.rollout.types import Sample

    samples, results = [], []
    for task, program in pairs:
        samples.append(Sample(task_id=task.task_id, group=0, prompt="", raw_output=program, completion=program,
                              gen_tokens=(1, 2), code_tokens=(1,), truncated=False, format_ok=True))
        results.append(sandbox.submit(task.build_request(program)).result())
    return sample_rows(samples, results)


def test_eval_reports_base_and_plus_side_by_side(tmp_path, sandbox):
    from coderl.tasks import load_tasks
    from tests.tasks.test_evalplus import HE0_WRONG

    taskset = load_tasks(HE)
    he0, he4 = taskset.tasks[:2]
    rows = _samples(sandbox, [(he0, he0.reference_solution), (he0, HE0_WRONG), (he4, he4.reference_solution),
                              (he4, he4.reference_solution)])
    cfg = build(EvalConfig, dict(out=str(tmp_path), model="m", tasks=HE, samples=2, temperature=1.0))
    summary = _write_run(cfg, taskset, [he0, he4], rows, "full", {"load": 0, "generation": 1, "total": 1}, 8, None)
    assert summary["pass_at_k"]["pass@1"] == pytest.approx(0.75)  # every test: the wrong one fails HumanEval/0
    by_group = summary["by_group"]
    assert by_group["base"]["pass_at_k"] == {"pass@1": 1.0}  # it passes HumanEval's own tests
    assert by_group["plus"]["pass_at_k"]["pass@1"] == pytest.approx(0.75)  # plus = base and plus: the main figure
    assert json.loads((tmp_path / "summary.json").read_text())["by_group"] == by_group
    text = format_summary(summary)
    assert "pass@1 by test group: base 1.0000 [1.000, 1.000], plus 0.7500" in text
    md = (tmp_path / "results.md").read_text()
    assert "| column | tests that must pass | tasks | pass@1 |" in md
    assert "| base | base | 2 | 1.000 [1.000, 1.000] |" in md and "| plus | base + plus | 2 | 0.750 " in md


def test_tasks_without_groups_add_nothing(tmp_path):
    from coderl.tasks import load_tasks

    spec = "tests/fixtures/tasks/humaneval_small.jsonl"
    taskset = load_tasks(spec)
    rows = [{"task_id": t.task_id, "sample": 0, "status": "passed", "passed": True, "tamper": [], "gen_tokens": 3,
             "fraction_passed": 1.0, "truncated": False, "tests": [{"id": c.id, "status": "passed"} for c in t.tests]}
            for t in taskset.tasks]
    cfg = build(EvalConfig, dict(out=str(tmp_path), model="m", tasks=spec))
    summary = _write_run(cfg, taskset, taskset.tasks, rows, "full", {"load": 0, "generation": 1, "total": 1}, 8, None)
    assert "by_group" not in summary and "by test group" not in format_summary(summary)
    assert "By test group" not in (tmp_path / "results.md").read_text()


def test_the_pipeline_report_shows_a_column_per_group():
    from coderl.eval.render import _table

    row = {"checkpoint": "c", "method": "base", "pass@1": 0.5, "ci95": [0.4, 0.6], "clusters": 2, "tasks": 2,
           "pass_at_k": {"pass@1": 0.5}, "passed": 1, "avg_gen_tokens": 3.0, "source": "s"}
    header, body = _table([row])
    assert "base pass@1" not in header  # no groups: the table as before
    header, body = _table([{**row, "by_group": {"base": 0.75, "plus": 0.5}}, row])
    at = header.index("base pass@1")
    assert header[at + 1] == "plus pass@1" and body[0][at: at + 2] == ["0.750", "0.500"]
    assert body[1][at: at + 2] == ["-", "-"]
