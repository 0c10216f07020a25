"""Time limits that cost only what they must (issue 58): a task's CPU limit from its reference's measured time
(coderl/tasks/time_limits.py), recorded with the task, lowering the run's limit; the wall-clock backstop said as
such."""

from __future__ import annotations

import dataclasses
import json
import math
import os
import time

import pytest

from coderl.cli import main
from coderl.sandbox.types import ExecutionResult, Limits, Status, TestOutcome
from coderl.tasks import TaskFormatError, load_tasks
from coderl.tasks import time_limits as tl

TASKS = "tests/fixtures/tasks/humaneval_small.jsonl"
SLOW_REFERENCE = "    t = 0\n    for i in range(N):\n        t += i % 7\n    return a + b + 0 * t\n"


@pytest.mark.parametrize("cpu, factor, floor, limit", [
    (0.01, 4.0, 0.5, 0.5),  # 0.04: the floor
    (0.123, 4.0, 0.5, 0.5),  # 0.492 rounds up to 0.50: the floor still
    (0.2001, 4.0, 0.5, 0.81),  # 0.8004 rounds up to the hundredth
    (0.3, 4.0, 0.5, 1.2),  # 1.2 exactly, not 1.21 from 0.3 x 4's float error
    (1.0, 2.0, 0.1, 2.0),
    (0.0, 4.0, 0.25, 0.25),
])
def test_a_limit_is_the_factor_on_the_reference_with_a_floor(cpu, factor, floor, limit):
    assert tl.derive(cpu, factor, floor) == limit


def _result(total, per_test):
    return ExecutionResult(Status.PASSED, cpu_seconds=total,
                           tests=[TestOutcome(str(i), Status.PASSED, cpu_seconds=c) for i, c in enumerate(per_test)])


def test_the_measured_time_is_the_slowest_process():
    assert tl.reference_cpu(_result(0.6, [None, None])) == 0.6  # a function task: its one program process
    assert tl.reference_cpu(_result(0.6, [0.1, 0.3, 0.2])) == 0.3  # a process per test: the slowest
    assert tl.reference_cpu(_result(1.0, [0.1, 0.3])) == pytest.approx(0.6)  # and a build's, 1.0 - 0.4


def test_a_task_limit_lowers_the_run_limit_and_its_backstop_never_raises_it():
    task = load_tasks(TASKS).tasks[0]
    at = dataclasses.replace(task, time_limit=0.5)
    limits = at.build_request("    return a + b\n", Limits(cpu_seconds=3.0)).limits
    assert (limits.cpu_seconds, limits.wall_deadline) == (0.5, 2.5)  # 3 x 0.5 + 1
    limits = at.build_request("    return a + b\n", Limits(cpu_seconds=3.0, wall_seconds=2.0)).limits
    assert (limits.cpu_seconds, limits.wall_deadline) == (0.5, 2.0)  # the run's own backstop, lower
    above = dataclasses.replace(task, time_limit=5.0)
    assert above.build_request("    return a + b\n", Limits(cpu_seconds=3.0)).limits == Limits(cpu_seconds=3.0)


@pytest.mark.parametrize("here, scale", [
    (0.01, 1), (0.0199, 1),  # faster, or less than twice as slow: as recorded
    (0.02, 2), (0.0399, 2), (0.04, 4), (0.07, 4), (0.08, 8), (1.0, 64),  # the power of two at or below the slowdown
])
def test_a_slower_machine_scales_recorded_limits_by_a_power_of_two(here, scale):
    assert tl.machine_scale(0.01, here) == scale


def test_the_calibration_workload_is_measured_once_and_positive():
    assert tl.machine_seconds() > 0 and tl.machine_seconds() is tl.machine_seconds()


@pytest.mark.parametrize("scale", [1, 8])
def test_recorded_limits_go_by_content(monkeypatch, scale):
    monkeypatch.setenv(tl.SCALE_ENV, "")  # measured here (not a scale set before); what it writes is undone after
    first, second = load_tasks(TASKS).tasks[:2]
    monkeypatch.setattr(tl, "_TABLE", {"calibration_seconds": tl.machine_seconds() / scale,  # recorded `scale` x faster
                                       "references": {tl.task_key(first): 0.2, tl.task_key(second): 0.01}})  # CPU-s
    own = dataclasses.replace(second, time_limit=2.0)
    other_tests = dataclasses.replace(first, tests=first.tests[:1])
    got = tl.with_recorded([first, second, own, other_tests])
    assert [t.time_limit for t in got] == [0.8 * scale, tl.FLOOR * scale, 2.0, None]  # a limit of its own stays


def test_every_bundled_reference_passes_under_its_recorded_limit_and_every_set_has_them(sandbox):
    for spec in ("humaneval", "easy", "stdio-basics"):
        tasks = load_tasks(spec).tasks
        assert all(t.time_limit is not None for t in tasks), spec
        results = [f.result() for f in [sandbox.submit(t.build_request(t.reference_solution)) for t in tasks]]
        assert [(t.task_id, r.status) for t, r in zip(tasks, results) if not r.passed] == [], spec


def _slow_task(tmp_path, n):
    """Toy/0 with a reference that spends CPU on a loop of `n` steps."""
    row = json.loads(open(TASKS).readline())
    row["canonical_solution"] = SLOW_REFERENCE.replace("N", str(n))
    path = tmp_path / "slow.jsonl"
    path.write_text(json.dumps(row) + "\n")
    return str(path)


def _steps_for(cpu_seconds):
    """Steps of SLOW_REFERENCE's loop that take about `cpu_seconds` of this thread's CPU on this machine."""
    start = time.thread_time()
    t = 0
    for i in range(300_000):
        t += i % 7
    return int(300_000 * cpu_seconds / max(time.thread_time() - start, 1e-3))


def test_measured_and_recorded_a_slow_but_correct_reference_keeps_passing(tmp_path, capsys):
    calls = len(load_tasks(TASKS).tasks[0].tests)  # the reference's loop runs once a test
    spec = _slow_task(tmp_path, _steps_for(0.3 / calls))  # about 0.3 CPU seconds here: its limit above the floor
    out = tmp_path / "limits.jsonl"
    assert main(["check", "--tasks", spec, "--reference", "--time-limits", str(out), "--workers", "1"]) == 0
    [task] = load_tasks(str(out)).tasks
    [row] = [json.loads(line) for line in out.read_text().splitlines()]
    assert row["time_limit"] == task.time_limit >= tl.FLOOR
    assert row["time_limit_machine_seconds"] > 0  # measured here: the machine it was set on (issue 99)
    # each test its own limit too, EvalPlus's per-input one: max(1 s, 4 x the reference's CPU in that test)
    assert [t["time_limit"] for t in row["tests"]] == [t.time_limit for t in task.tests]
    assert all(t.time_limit >= tl.INPUT_FLOOR for t in task.tests)
    assert main(["check", "--tasks", str(out), "--reference", "--workers", "1"]) == 0
    assert "passed: 1/1" in capsys.readouterr().out
    # an endless program: its time bounded by its task's limit, not by --timeout; a sleeping one: by the backstop
    rows = tmp_path / "endless.jsonl"
    rows.write_text("".join(json.dumps({"task_id": "Toy/0", "completion": c}) + "\n" for c in
                            ("    while True:\n        pass\n", "    import time\n    time.sleep(600)\n")))
    results = tmp_path / "r.jsonl"
    assert main(["check", "--tasks", str(out), "--completions", str(rows), "--out", str(results), "--timeout", "10",
                 "--workers", "1"]) == 0
    endless, asleep = [json.loads(line) for line in results.read_text().splitlines()]
    # the CPU limit, or on a machine too loaded to give it that much CPU in time, the backstop it follows (said so)
    # (the server reads its CPU and kills it past the limit: under the whole second RLIMIT_CPU counts in, whose
    # SIGXCPU the first process of a PID namespace never gets, so that a 0.25 s limit cost 2 CPU-s before)
    assert endless["status"] == "timeout" and endless["cpu_seconds"] < math.ceil(task.time_limit) < 10
    backstop = f"wall-clock backstop of {3 * task.time_limit + 1:g}s, at "
    # (its first test's own limit, EvalPlus's per-input one, ends it first where that is the lower)
    own = f"CPU time limit of {task.tests[0].time_limit:g}s for this input (test {task.tests[0].id}, ended at "
    assert any(m in endless["message"] for m in (f"CPU time limit of {task.time_limit:g}s", own, backstop))
    assert asleep["status"] == "timeout" and backstop + "0.0" in asleep["message"]
    backstops = json.loads((tmp_path / "r.jsonl.summary.json").read_text())["timeouts_at_the_wall_clock_backstop"]
    assert backstops == 1 + ("backstop" in endless["message"])
    assert f"of the timeouts, {backstops} at the wall-clock backstop, not the CPU limit" in capsys.readouterr().out


def test_a_reference_that_fails_gives_no_limit_and_one_line(tmp_path, capsys):
    row = json.loads(open(TASKS).readline())
    row["canonical_solution"] = "    return a - b\n"
    spec = tmp_path / "wrong.jsonl"
    spec.write_text(json.dumps(row) + "\n")
    out = tmp_path / "limits.jsonl"
    assert main(["check", "--tasks", str(spec), "--reference", "--time-limits", str(out), "--workers", "1"]) == 2
    err = capsys.readouterr().err.strip()
    assert "task 'Toy/0': its reference did not pass (failed: " in err and "\n" not in err
    assert not out.exists()


def test_time_limits_needs_a_reference_check_and_a_jsonl_path(capsys):
    assert main(["check", "--tasks", TASKS, "--completions", TASKS, "--time-limits", "x.jsonl"]) == 2
    assert main(["check", "--tasks", TASKS, "--reference", "--time-limits", "x.txt"]) == 2
    err = capsys.readouterr().err
    assert err.count("--time-limits") == 2 and "expected a .jsonl or .jsonl.gz path, with --reference" in err


@pytest.mark.parametrize("spec, sleeper", [(TASKS, "    import time\n    time.sleep(60)\n"),
                                            ("stdio-basics", "import time\ntime.sleep(60)\n")])
def test_the_wall_clock_backstop_is_said_as_such(sandbox, spec, sleeper):
    task = dataclasses.replace(load_tasks(spec).tasks[0], time_limit=0.5)
    r = sandbox.run(task.build_request(sleeper, Limits(cpu_seconds=3.0), max_tests=1))
    assert r.status is Status.TIMEOUT and r.wall_seconds < 10
    assert "wall-clock backstop of 2.5s, at 0." in r.message
    assert "of its 0.5 CPU seconds: the program waited (a sleep, a blocked read) or the machine was too loaded" \
        in r.message


def test_a_failed_measurement_is_refused_in_code_too():
    task = load_tasks(TASKS).tasks[0]
    bad = ExecutionResult(Status.TIMEOUT, message="CPU time limit of 3s")
    with pytest.raises(TaskFormatError, match=r"its reference did not pass \(timeout: CPU time limit of 3s\)"):
        tl.measured([task], [bad])


# Issue 73, item 3: a limit measured on the program's process bounds that process, never the judge's work.
BURN = "import time\nt = time.process_time()\nwhile time.process_time() - t < 1.8:\n    pass\n"


def test_the_tests_own_work_is_not_charged_to_the_programs_limit(sandbox):
    # a test whose own work (1.8 CPU-s in the judge, while the program waits on it) outlasts the program's wall
    # backstop of 3 x 0.25 + 1 s: it ran under the program's lowered limits, and its reference failed, the
    # program blamed ("wall-clock backstop ... the program waited")
    task = dataclasses.replace(load_tasks(TASKS).tasks[0], time_limit=0.25)
    burn = dataclasses.replace(task.tests[0], setup=BURN)
    task = dataclasses.replace(task, tests=(burn, *task.tests[1:]))
    request = task.build_request(task.reference_solution, Limits(cpu_seconds=3.0))
    assert (request.limits.cpu_seconds, request.limits.judge_cpu_seconds) == (0.25, 3.0)
    result = sandbox.run(request)
    assert result.passed, (result.status, result.message)
    # the program's own limit still holds
    slow = sandbox.run(task.build_request("    t = 0\n    for i in range(10**8):\n        t += 1\n    return a + b\n",
                                          Limits(cpu_seconds=3.0)))
    assert slow.status is Status.TIMEOUT and "the tests' own work" not in slow.message


class _Result:
    def __init__(self, status):
        self.status, self.message = status, ""

    @property
    def passed(self):
        return self.status is Status.PASSED


def test_a_limit_is_written_only_once_its_reference_passed_under_it():
    tasks = load_tasks(TASKS).tasks[:3]
    # CPU-s each really needs: under the floor, over it, over --timeout
    needs = {tasks[0].task_id: tl.FLOOR / 2, tasks[1].task_id: 1.5 * tl.FLOOR, tasks[2].task_id: 5.0}
    seen = []

    def run(batch):
        seen.append(sorted(t.task_id for t in batch))
        return [_Result(Status.PASSED if t.time_limit >= needs[t.task_id] else Status.TIMEOUT) for t in batch]

    cpu = {t.task_id: 0.01 for t in tasks}  # measured as nothing (a fixed cost the measurement missed)
    limits = tl.settle(tasks, cpu, run, timeout=3.0)
    assert limits == {tasks[0].task_id: tl.FLOOR, tasks[1].task_id: 2 * tl.FLOOR, tasks[2].task_id: None}
    # every reference run under its limit, and again with the others while one was raised (doubled each round)
    assert seen[:2] == [sorted(needs)] * 2 and len(seen) > 2
    for task_id, limit in limits.items():  # none written that its reference did not pass
        assert limit is None or limit >= needs[task_id]


def test_a_reference_that_fails_otherwise_under_its_limit_is_one_line():
    tasks = load_tasks(TASKS).tasks[:1]
    with pytest.raises(TaskFormatError, match=f"passed once but not under its limit of {tl.FLOOR:g}s"):
        tl.settle(tasks, {tasks[0].task_id: 0.0}, lambda batch: [_Result(Status.FAILED) for _ in batch], 3.0)


def test_a_runs_processes_share_one_measurement_and_a_bad_scale_is_one_line(monkeypatch):
    monkeypatch.setenv(tl.SCALE_ENV, "")
    monkeypatch.setenv(tl.MACHINE_ENV, "")
    measured = tl.machine_scale(tl.machine_seconds() / 3)  # this machine "3 x slower": 2
    assert measured == 2 and float(os.environ[tl.MACHINE_ENV]) == tl.machine_seconds()  # what its processes use
    # the scale is the recording machine's, not the run's: a limit set here is scaled by 1 after one set elsewhere
    # (before, the first scale measured was kept for every later limit: a row measured here got 2x its limit)
    assert tl.machine_scale(tl.machine_seconds()) == 1
    monkeypatch.setenv(tl.MACHINE_ENV, "0.4")  # a machine seconds shared by the process that started this one
    assert tl.machine_scale(0.1) == 4 and tl.machine_scale(0.3) == 1
    monkeypatch.setenv(tl.SCALE_ENV, "8")
    assert tl.machine_scale(1e-9) == 8  # given: no measurement
    monkeypatch.setenv(tl.SCALE_ENV, "0.5")
    with pytest.raises(TaskFormatError, match="CODERL_TIME_LIMIT_SCALE='0.5': expected a whole number >= 1"):
        tl.machine_scale(0.01)


def test_an_exported_task_carries_the_recorded_limit_not_this_machines_scaled_one(monkeypatch):
    first, second = load_tasks(TASKS).tasks[:2]
    monkeypatch.setattr(tl, "_TABLE", {"calibration_seconds": 0.01, "references": {tl.task_key(first): 0.2}})
    monkeypatch.setenv(tl.SCALE_ENV, "4")
    [scaled] = tl.with_recorded([first])
    assert scaled.time_limit == 3.2  # 4 x 0.8 here
    assert tl.portable(scaled).time_limit == 0.8  # the recorded one, for the machine that loads the file
    own = dataclasses.replace(first, time_limit=1.5)
    assert tl.portable(own).time_limit == 1.5 and tl.portable(second) is second


# ---- issue 99: a limit set explicitly on a row, and the machine it was set on -------------------------------------


def _rows(tmp_path, name, **fields):
    """The fixture's first task as a row of coderl's layout, with `fields`."""
    from coderl.tasks.loaders.task_rows import task_row

    row = {**task_row(load_tasks(TASKS).tasks[0]), **fields}
    path = tmp_path / f"{name}.jsonl"
    path.write_text(json.dumps(row) + "\n")
    return str(path)


def test_a_rows_own_limit_with_its_machine_is_scaled_as_recorded_limits_are(tmp_path, monkeypatch):
    # (before, a row's limit applied as set: a reference measured on a fast machine timed out on a slow one)
    monkeypatch.setenv(tl.SCALE_ENV, "4")  # this machine 4 x slower than the one that set the limit
    [task] = load_tasks(_rows(tmp_path, "own", time_limit=0.2, time_limit_machine_seconds=0.01)).tasks
    assert task.time_limit == 0.8  # 4 x 0.2, and no floor: an explicit limit is its author's
    [same] = load_tasks(_rows(tmp_path, "fast", time_limit=0.2, time_limit_machine_seconds=0.01)).tasks
    monkeypatch.setenv(tl.SCALE_ENV, "1")
    [here] = load_tasks(_rows(tmp_path, "here", time_limit=0.2, time_limit_machine_seconds=0.01)).tasks
    assert same.time_limit == 0.8 and here.time_limit == 0.2
    with pytest.raises(TaskFormatError, match="field 'time_limit_machine_seconds' is 0 "):
        load_tasks(_rows(tmp_path, "bad", time_limit=0.2, time_limit_machine_seconds=0))


def test_a_rows_own_limit_without_its_machine_is_said_to_be_unscaled_once_a_source(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv(tl.SCALE_ENV, "4")
    path = _rows(tmp_path, "bare", time_limit=0.2)
    with open(path, "a") as f:  # a second row without the field: said once for the source
        f.write(json.dumps({**json.loads(open(path).readline()), "task_id": "Toy/second"}) + "\n")
    tasks = load_tasks(path).tasks
    assert [t.time_limit for t in tasks] == [0.2, 0.2]  # as set: not scaled, not floored
    err = capsys.readouterr().err
    assert err.count("warning:") == 1 and "not scaled by this machine's speed" in err and "without the 0.5s floor" in err


def test_an_export_writes_a_rows_own_limit_as_set_with_its_machine(tmp_path, monkeypatch):
    from coderl.tasks.loaders.task_rows import task_row

    monkeypatch.setenv(tl.SCALE_ENV, "4")
    [task] = load_tasks(_rows(tmp_path, "own", time_limit=0.2, time_limit_machine_seconds=0.01)).tasks
    row = task_row(tl.portable(task))
    assert (row["time_limit"], row["time_limit_machine_seconds"]) == (0.2, 0.01)
    assert "time_limit_set_on" not in row["metadata"]
    [again] = load_tasks(_rows(tmp_path, "again", **{k: row[k] for k in ("time_limit", "time_limit_machine_seconds")})).tasks
    assert again.time_limit == task.time_limit == 0.8  # scaled once where it is loaded, never twice
    # a recorded set's limit goes out with the recording machine's seconds (before: unscaled wherever it was loaded)
    first = load_tasks(TASKS).tasks[0]
    monkeypatch.setattr(tl, "_TABLE", {"calibration_seconds": 0.01, "references": {tl.task_key(first): 0.2}})
    [scaled] = tl.with_recorded([first])
    row = task_row(tl.portable(scaled))
    assert (row["time_limit"], row["time_limit_machine_seconds"]) == (0.8, 0.01)


def test_a_tests_own_limit_is_evalplus_s_per_input_limit_and_settles_with_its_task():
    assert tl.per_input_limit(0.01) == tl.INPUT_FLOOR == 1.0  # EvalPlus's DEFAULT_MIN_TIME_LIMIT
    assert tl.per_input_limit(0.3001) == 1.21  # 4 x (DEFAULT_GT_TIME_LIMIT_FACTOR), up to the hundredth
    task = load_tasks(TASKS).tasks[0]
    result = ExecutionResult(Status.PASSED, tests=[
        TestOutcome(t.id, Status.PASSED, call_cpu_seconds=0.5 * i) for i, t in enumerate(task.tests)])
    limited = tl.with_input_limits(task, result)
    assert [t.time_limit for t in limited.tests] == [max(1.0, 2.0 * i) for i in range(len(task.tests))]
    assert tl.task_key(limited) == tl.task_key(task)  # the recorded table's key does not move
    seen = []

    def run(batch):  # the reference needs twice its first limits, on its last test
        seen.append([t.time_limit for t in batch[0].tests])
        ok = batch[0].tests[-1].time_limit >= 2 * limited.tests[-1].time_limit
        return [_Result(Status.PASSED if ok else Status.TIMEOUT)]

    scales = {}
    limits = tl.settle([limited], {task.task_id: 0.01}, run, timeout=3.0, input_scales=scales)
    assert limits == {task.task_id: 2 * tl.FLOOR} and scales == {task.task_id: 2.0}
    assert seen[1] == [2 * t.time_limit for t in limited.tests]
    # a task left at the run's own limit keeps none on its tests either
    scales = {}
    assert tl.settle([limited], {task.task_id: 5.0}, run, timeout=3.0, input_scales=scales) == {task.task_id: None}
    assert scales == {task.task_id: 0.0}
    assert all(t.time_limit is None for t in tl.scaled_inputs(limited, 0.0).tests)


def test_a_rows_test_limit_reads_back_and_a_bad_one_is_one_line(tmp_path):
    from coderl.tasks.loaders.task_rows import task_row

    task = load_tasks(TASKS).tasks[0]
    task = dataclasses.replace(task, tests=(dataclasses.replace(task.tests[0], time_limit=1.5), *task.tests[1:]))
    row = task_row(task)
    assert row["tests"][0]["time_limit"] == 1.5 and "time_limit" not in row["tests"][1]
    path = tmp_path / "rows.jsonl"
    path.write_text(json.dumps(row) + "\n")
    assert [t.time_limit for t in load_tasks(str(path)).tasks[0].tests][:2] == [1.5, None]
    row["tests"][0]["time_limit"] = "fast"
    path.write_text(json.dumps(row) + "\n")
    with pytest.raises(TaskFormatError, match=r"tests\[0\]\.time_limit' is 'fast'"):
        load_tasks(str(path))


def test_a_rows_per_input_limits_are_scaled_with_its_limit_and_exported_as_set(tmp_path, monkeypatch):
    """EvalPlus's per-input limits measured on one machine (`coderl check --time-limits`) scale on a slower one as the
    task's own limit does (before: applied as measured, so a correct program timed out on an input there)."""
    from coderl.tasks.loaders.task_rows import task_row

    first = load_tasks(TASKS).tasks[0]
    tests = [{**t, "time_limit": 0.3} for t in task_row(first)["tests"]]
    monkeypatch.setenv(tl.SCALE_ENV, "4")
    [task] = load_tasks(_rows(tmp_path, "inputs", time_limit=0.5, time_limit_machine_seconds=0.01, tests=tests)).tasks
    assert task.time_limit == 2.0 and {t.time_limit for t in task.tests} == {1.2}
    row = task_row(tl.portable(task))
    assert row["time_limit"] == 0.5 and {t["time_limit"] for t in row["tests"]} == {0.3}  # as set, for the next machine
    monkeypatch.setenv(tl.SCALE_ENV, "1")
    [here] = load_tasks(_rows(tmp_path, "here", time_limit=0.5, time_limit_machine_seconds=0.01, tests=tests)).tasks
    assert {t.time_limit for t in here.tests} == {0.3}
