"""pass@k per group of tests, side by side: EvalPlus's base and plus columns (issue 77).

A task whose metadata has `test_groups` (`{column: [group, ...]}`, e.g. HumanEval+'s `{"base": ["base"],
"plus": ["base", "plus"]}`: `coderl.tasks.loaders.evalplus`) names each test's group in its id, `GROUP/N`.  A
sample passes a column when every test of the column's groups passed (its outcome in the sample's `tests`), so
`base` is HumanEval's (or MBPP's) own tests and `plus` every test, EvalPlus's "base + extra".  Each column's pass@k
is the unbiased estimator over the tasks that have that column, with the same bootstrap interval as the main
figure; the samples left out of the main figure (infrastructure failures) are left out here too.  Tasks without
groups add no column and change nothing.

One run judges all of a sample's tests (EvalPlus runs base and plus apart): a program that runs out of CPU time or
ends during the plus tests has every test marked so, and fails both columns.
"""

from __future__ import annotations

from coderl.eval.passk import pass_at_k, summarize
from coderl.eval.stats import bootstrap_ci
from coderl.tasks.types import TEST_GROUPS


def group_tests(task) -> dict[str, set[str]]:
    """Column -> the ids of the task's tests it needs to pass; {} for a task without groups."""
    columns = task.metadata.get(TEST_GROUPS) or {}
    return {name: {t.id for t in task.tests if t.id.split("/", 1)[0] in groups} for name, groups in columns.items()}


def group_counts(tasks, rows: list[dict], skip=lambda row: False) -> dict[str, dict[str, tuple[int, int]]]:
    """Column -> task id -> (samples, samples passing the column), over the tasks that have the column; rows
    `skip` says are left out (infrastructure failures) count in neither."""
    needs = {t.task_id: group_tests(t) for t in tasks}
    counts: dict[str, dict[str, list[int]]] = {}
    for task_id, columns in needs.items():
        for name in columns:
            counts.setdefault(name, {})[task_id] = [0, 0]
    for row in rows:
        columns = needs.get(row["task_id"])
        if not columns or skip(row):
            continue
        passed = {t["id"] for t in row.get("tests", []) if t.get("status") == "passed"}
        for name, ids in columns.items():
            counts[name][row["task_id"]][0] += 1
            counts[name][row["task_id"]][1] += bool(ids) and ids <= passed
    return {name: {t: (n, c) for t, (n, c) in by_task.items()} for name, by_task in counts.items()}


def group_summary(tasks, rows: list[dict], clusters: dict[str, str], seed: int, *, planned: int | None = None,
                  skip=lambda row: False) -> dict[str, dict]:
    """Column -> {groups, num_tasks, pass_at_k, pass_at_k_ci95}; {} when no task has groups."""
    columns = {name: groups for t in tasks for name, groups in (t.metadata.get(TEST_GROUPS) or {}).items()}
    out = {}
    for name, counts in group_counts(tasks, rows, skip).items():
        scored = {t: nc for t, nc in counts.items() if nc[0]}
        if not scored:
            continue
        s = summarize(scored, planned=planned)
        ci = {}
        for k in s.pass_at_k:
            kept = [t for t, (n, _) in scored.items() if n >= k]
            ci[f"pass@{k}"] = list(bootstrap_ci([pass_at_k(*scored[t], k) for t in kept],
                                                clusters=[clusters.get(t, t) for t in kept], seed=seed))
        out[name] = {"groups": list(columns[name]), "num_tasks": len(scored),
                     "pass_at_k": s.to_dict()["pass_at_k"], "pass_at_k_ci95": ci}
    return out


def group_lines(by_group: dict[str, dict]) -> list[str]:
    """The columns side by side for the printed summary: one line per k."""
    ks = list(dict.fromkeys(k for g in by_group.values() for k in g["pass_at_k"]))
    lines = []
    for k in ks:
        cells = [f"{name} {g['pass_at_k'][k]:.4f} [{g['pass_at_k_ci95'][k][0]:.3f}, {g['pass_at_k_ci95'][k][1]:.3f}]"
                 for name, g in by_group.items() if k in g["pass_at_k"]]
        lines.append(f"{k} by test group: " + ", ".join(cells))
    return lines


def group_table(by_group: dict[str, dict]) -> tuple[list[str], list[list[str]]]:
    """results.md's table of the columns: a row per column, its pass@k with their intervals."""
    ks = list(dict.fromkeys(k for g in by_group.values() for k in g["pass_at_k"]))
    body = [[name, " + ".join(g["groups"]), g["num_tasks"],
             *(f"{g['pass_at_k'][k]:.3f} [{g['pass_at_k_ci95'][k][0]:.3f}, {g['pass_at_k_ci95'][k][1]:.3f}]"
               if k in g["pass_at_k"] else "-" for k in ks)] for name, g in by_group.items()]
    return ["column", "tests that must pass", "tasks", *ks], body
