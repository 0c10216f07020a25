"""Parent-side judging: turn the fork server's raw report of a request into an `ExecutionResult`.

No sandbox process ever sees expected values.  For parent-judged tests the judge process returns the
expression's value as plain data in a flat form (`checks.record_value`, `coderl.sandbox.server.common.flat`);
`decode_value` rebuilds it strictly and without recursion, and the comparison runs here, also without
recursion: no value the sandbox lets through (up to `flat.MAX_DEPTH` levels deep) breaks the parent.
A pass needs the judge's records, from the pipe only the judge holds, ending in its `end` record: the
program's exit status never means pass.

Output comparison (STDOUT checks), values printed by a harness (JSON), tagged testbench checks
(TAGGED) and analyses (REPORT): `coderl.sandbox.outputs`.

A function task's test with a `time_limit` is a TIMEOUT when the program tree's CPU within it (the server's stamps
on the judge's `mark` and outcome records) is over it; the run's CPU limit stays the backstop.

Over 400 lines: every mode's report becomes a verdict here (function tasks' records, per-process runs, record
tests, builds), and they share the one rule of what a limit, a signal or a broken judge makes of a test.
"""

from __future__ import annotations

import json
import signal as _signal
from dataclasses import replace
from typing import Any

from . import outputs, rules
from .records import record_outcomes
from .server.common import flat
from .types import (
    MODE_CHECKS,
    PARENT_JUDGED,
    CheckKind,
    ExecutionRequest,
    ExecutionResult,
    Status,
    TestOutcome,
    compile_error_line,
)


class BadRecord(ValueError):
    pass


def decode_value(tokens: Any) -> Any:
    """Inverse of `checks.record_value` (the flat form of `coderl.sandbox.server.common.flat`), without recursion: a
    value nested up to `flat.MAX_DEPTH` levels never breaks the parent.  BadRecord on anything the judge
    cannot have produced."""
    try:
        return flat.unflatten(tokens)
    except ValueError as exc:
        raise BadRecord(str(exc)) from None


def values_match(check: CheckKind, value: Any, expected: Any, compare: str = "") -> bool:
    """Whether a value the program returned passes a value check (equals, truthy, falsy, is) against the expected
    value; an EQUALS check under the request's comparison rule (`rules.RULES`: `==` by default)."""
    if check is CheckKind.EQUALS:
        judge = rules.rule(compare).value
        return flat.equal(value, expected) if judge is None else judge(value, expected)
    if check is CheckKind.TRUTHY:
        return bool(value) is True
    if check is CheckKind.FALSY:
        return bool(value) is False
    if check is CheckKind.IS:
        return value is expected
    raise ValueError(f"{check} is not judged on values")


def wall_backstop(cpu_seconds: float, limits) -> str:
    """A timeout's message when the wall-clock backstop, not the CPU limit, ended the program: the CPU it had used,
    so that a loaded machine's timeout is not read as one the program caused."""
    return (f"wall-clock backstop of {limits.wall_deadline:g}s, at {cpu_seconds:.2f} of its {limits.cpu_seconds:g} "
            "CPU seconds: the program waited (a sleep, a blocked read) or the machine was too loaded to run it")


def _process_failure(run: dict, limits) -> tuple[Status, str] | None:
    """Status of a process that did not end normally, or None."""
    if run["killed"] == "output":
        return Status.OUTPUT_EXCEEDED, f"output exceeded {limits.output_kill_bytes} bytes"
    if run["killed"] == "input":  # the server ended it in a test over that test's own limit (`time_limit`)
        over = run.get("input_killed") or {}
        return Status.TIMEOUT, (f"CPU time limit of {over.get('time_limit', 0):g}s for this input (test "
                                f"{over.get('id')}, ended at {over.get('cpu_seconds', 0):.2f}s)")
    if run["killed"] == "memory":
        return Status.MEMORY_EXCEEDED, f"memory limit of {limits.memory_bytes / 2**20:g} MiB (the slot's cgroup)"
    sig = run["signal"]
    if run["killed"] == "wall":  # not the CPU limit the program ran into: said as such
        return Status.TIMEOUT, wall_backstop(run["cpu_seconds"], limits)
    if run["cpu_seconds"] > limits.cpu_seconds or sig in (_signal.SIGXCPU,):
        return Status.TIMEOUT, f"CPU time limit of {limits.cpu_seconds:g}s"
    if sig is not None:
        if sig == _signal.SIGKILL and run["cpu_seconds"] >= limits.cpu_seconds:
            return Status.TIMEOUT, f"CPU time limit of {limits.cpu_seconds:g}s"
        name = _signal.Signals(sig).name if sig in _signal.Signals.__members__.values() else str(sig)
        return Status.RUNTIME_ERROR, f"killed by signal {name}"
    return None


def _memory_hint(stderr: str) -> bool:
    tail = stderr.strip().splitlines()[-1:] if stderr.strip() else []
    return bool(tail) and tail[0].startswith("MemoryError")


def _base_result(runs: list[dict], isolation: str) -> ExecutionResult:
    """A result from the runs' facts (CPU summed; the longest wall time and peak RSS; the last run's exit; the first
    run's excerpts), its status not yet decided."""
    return ExecutionResult(
        status=Status.FAILED,
        cpu_seconds=sum(r["cpu_seconds"] for r in runs),
        wall_seconds=max((r["wall_seconds"] for r in runs), default=0.0),
        max_rss_bytes=max((r["max_rss_bytes"] for r in runs), default=0),
        exit_code=runs[-1]["exit_code"] if runs else None,
        signal=runs[-1]["signal"] if runs else None,
        stdout=runs[0]["stdout"] if runs else "",
        stderr=runs[0]["stderr"] if runs else "",
        stdout_truncated=any(r["stdout_total"] > len(r["stdout"].encode()) for r in runs[:1]),
        stderr_truncated=any(r["stderr_total"] > len(r["stderr"].encode()) for r in runs[:1]),
        isolation=isolation,
    )


def judge(request: ExecutionRequest, runs: list[dict], isolation: str = "",
          build: dict | None = None) -> ExecutionResult:
    """The verdict of a request from the server's reports of its runs (and of its build, if any)."""
    broken = next((r["sandbox_error"] for r in [*runs, *([build] if build else [])] if "sandbox_error" in r), None)
    if broken is not None:  # the sandbox failed to set up this job before any of its processes was forked
        return ExecutionResult(status=Status.SANDBOX_ERROR, message=broken, isolation=isolation)
    provoked = next((r["after_start_error"] for r in [*runs, *([build] if build else [])]
                     if "after_start_error" in r), None)
    if provoked is not None:  # the sandbox failed once the program could run: it may have provoked it
        return ExecutionResult(status=Status.RUNTIME_ERROR, isolation=isolation,
                               message=f"the sandbox failed after this program started: {provoked}"[:300])
    if build is not None and not runs:  # the build step failed: no test ran
        return _judge_build(request, build, isolation)
    if request.mode.value == "python_tests":
        return _judge_tests(request, runs[0], isolation)
    if any(t.check is CheckKind.RECORD for t in request.tests):
        return _judge_records(request, runs[0], isolation)
    return _judge_processes(request, runs, isolation)


def _judge_build(request: ExecutionRequest, build: dict, isolation: str) -> ExecutionResult:
    """`build_error`, with the compiler's first error line (the language's compile-error reading of
    its stderr, else stderr's first line, else stdout's), a timeout or crash of the build, or why its
    outputs could not be kept; every test `not_run`."""
    result = _base_result([build], isolation)
    failure = _process_failure(build, request.limits)
    lines = [ln.strip() for ln in (build["stderr"] + "\n" + build["stdout"]).splitlines() if ln.strip()]
    if build.get("build_error"):
        why = build["build_error"]
    elif failure is not None:
        why = f"{failure[0].value}: {failure[1]}"
    else:
        why = (compile_error_line(request.compile_error, build["stderr"]) or (lines[0] if lines else "")
               or f"exit code {build['exit_code']}")
    result.status = Status.BUILD_ERROR
    result.message = f"build failed: {why}"[:300]
    result.tests = [TestOutcome(t.id, Status.NOT_RUN, t.hidden, "the build failed") for t in request.tests
                    if t.check is not CheckKind.REPORT]
    return result


def _records(stream: str, max_records: int) -> tuple[list[dict], str | None]:
    """The judge's records, up to the first bad one; (records, what was wrong or None).  Only the last
    line may be cut short (the judge killed mid-write); more records than the tests need is wrong."""
    lines = stream.splitlines()
    records: list[dict] = []
    for i, line in enumerate(lines):
        if i >= max_records:
            return records, f"over {max_records} records"
        try:
            rec = json.loads(line)
        except (ValueError, RecursionError):
            if i == len(lines) - 1:
                break  # a record cut short when the judge was killed
            return records, f"record {i + 1} is not JSON"
        if not isinstance(rec, dict):
            return records, f"record {i + 1} is not an object"
        records.append(rec)
    return records, None


def _judge_tests(request: ExecutionRequest, run: dict, isolation: str) -> ExecutionResult:
    """A function task: the judge process's records, plus what happened to the program process."""
    result = _base_result([run], isolation)
    limits = request.limits
    records, malformed = _records(run.get("result", ""), 3 * len(request.tests) + 16)
    stamps = run.get("record_cpu") or []
    for i, rec in enumerate(records):  # the server's stamp: the program tree's CPU when it read the record
        rec["_cpu"] = stamps[i] if i < len(stamps) else None
    started = {str(r["id"]): r["_cpu"] for r in records if r.get("event") == "mark" and "id" in r}
    ended = next((r for r in records if r.get("event") == "end"), None)
    by_id: dict[str, dict] = {}
    first: dict[str, dict] = {}
    for rec in records:
        event = rec.get("event")
        if event in ("value", "test", "gone") and "id" in rec:
            by_id.setdefault(str(rec["id"]), rec)
        first.setdefault(event, rec)
    for t in (ended or {}).get("tamper") or []:
        if isinstance(t, str) and t not in result.tamper:
            result.tamper.append(t)

    failure = _process_failure(run, limits)
    # The CPU limit holds for the program's whole tree in every case, the judge finished or not
    over_cpu = run["killed"] in (None, "cpu") and run["cpu_seconds"] > limits.cpu_seconds
    if run.get("killed_after_judge") and not run["killed"] and "gone" not in first and not over_cpu:
        failure = None  # the server ended the program once the verdict was complete
    reasons = [r.get("reason") for r in records if r.get("event") == "gone"]
    broken = next((r for r in reasons if r not in (None, "peer_closed")), None)
    if broken is not None and (failure is None or failure[0] is Status.RUNTIME_ERROR):
        failure = (Status.RUNTIME_ERROR, f"the program broke the judge's protocol ({broken})")
    if malformed and failure is None:
        failure = (Status.RUNTIME_ERROR, f"the judge's result stream is malformed ({malformed})")
    if "gone" in first and failure is None:
        code = run["exit_code"]
        failure = (Status.RUNTIME_ERROR, f"the program ended while the tests ran (exit code {code})")
        if _memory_hint(run["stderr"]):
            failure = (Status.MEMORY_EXCEEDED, "MemoryError")
        elif code == 0 and "early_exit" not in result.tamper:
            result.tamper.append("early_exit")
    if ended is None:
        judge = run.get("judge") or {}
        if failure is None and run["killed"] is None:
            own = limits.judge_cpu_seconds or limits.cpu_seconds
            if judge.get("signal") is not None and judge.get("cpu_seconds", 0) >= own:
                failure = (Status.TIMEOUT, f"the tests' own work ran past their CPU limit of {own:g}s, not the "
                           "program")
            elif judge.get("signal") == _signal.SIGKILL or _memory_hint(judge.get("stderr", "")):
                failure = (Status.MEMORY_EXCEEDED, "the tests ran out of memory on the program's output")
            else:
                # the program may have ended its judge (through the channel, or by a signal at `rlimits`): its verdict
                failure = (Status.RUNTIME_ERROR, f"the judge ended without a verdict (exit code "
                           f"{judge.get('exit_code')}, signal {judge.get('signal')}): {judge.get('stderr', '')[-200:]}")
        elif failure is None:
            failure = _process_failure(run, limits) or (Status.TIMEOUT, wall_backstop(run["cpu_seconds"], limits))

    syntax, program_error, task_error = first.get("syntax_error"), first.get("program_error"), first.get("task_error")
    if syntax is not None:
        result.status, result.message = Status.SYNTAX_ERROR, str(syntax.get("message", ""))
    for test in request.tests:
        rec = by_id.get(test.id)
        if syntax is not None:
            outcome = TestOutcome(test.id, Status.SYNTAX_ERROR, test.hidden, result.message)
        elif over_cpu:
            outcome = TestOutcome(test.id, failure[0], test.hidden, failure[1])
        elif rec is not None and rec.get("event") != "gone":
            outcome = _per_input_limit(test, _judge_record(test, rec, result, request.compare),
                                       started.get(test.id), rec.get("_cpu"))
        elif program_error is not None:
            outcome = TestOutcome(test.id, _status(program_error.get("status")), test.hidden,
                                  str(program_error.get("message", "")))
        elif task_error is not None:
            outcome = TestOutcome(test.id, Status.RUNTIME_ERROR, test.hidden, str(task_error.get("message", "")))
        elif failure is not None:
            outcome = TestOutcome(test.id, failure[0], test.hidden, failure[1])
        else:
            outcome = TestOutcome(test.id, Status.RUNTIME_ERROR, test.hidden, "no result recorded for this test")
        if (run.get("input_killed") or {}).get("id") == test.id and outcome.status is Status.TIMEOUT:
            outcome = replace(outcome, call_cpu_seconds=run["input_killed"].get("cpu_seconds"))
        result.tests.append(outcome)

    if syntax is not None:
        return result
    if run["killed"] == "output":
        result.status, result.message = _process_failure(run, limits) or (Status.OUTPUT_EXCEEDED, "")
    elif failure is not None and (over_cpu or ended is None or any(
            t.id not in by_id or by_id[t.id].get("event") == "gone" for t in request.tests)):
        result.status, result.message = failure
    elif program_error is not None:
        result.status = _status(program_error.get("status"))
        result.message = str(program_error.get("message", ""))
    elif task_error is not None:
        result.status, result.message = Status.RUNTIME_ERROR, str(task_error.get("message", ""))
    else:
        _status_from_tests(result)
    return result


def _per_input_limit(test, outcome: TestOutcome, start: float | None, end: float | None) -> TestOutcome:
    """The test's own CPU (the program tree's between its `mark` and its outcome, as the server read them) onto its
    outcome; over the test's `time_limit` it is a TIMEOUT, whatever its value was.  The server reads a stamp when it
    next wakes, so a test is charged at most what it used (the lag before its start stamp is never charged)."""
    if start is None or end is None:
        return outcome
    used = round(max(0.0, float(end) - float(start)), 4)
    if test.time_limit is not None and used > test.time_limit:
        return replace(outcome, status=Status.TIMEOUT, call_cpu_seconds=used,
                       message=f"CPU time limit of {test.time_limit:g}s for this input (used {used:.2f}s)")
    return replace(outcome, call_cpu_seconds=used)


def _status(name: Any) -> Status:
    """A status named in the judge's records; never `sandbox_error` (records come from a process the program
    shares a channel with, so what they say is never an infrastructure failure)."""
    try:
        status = Status(name)
    except ValueError:
        return Status.RUNTIME_ERROR
    return Status.RUNTIME_ERROR if status is Status.SANDBOX_ERROR else status


def _status_from_tests(result: ExecutionResult) -> TestOutcome | None:
    """PASSED when every test passed, else the first failing test's status and message; returns it."""
    bad = next((t for t in result.tests if not t.passed), None)
    if bad is None:
        result.status = Status.PASSED
    else:
        result.status = bad.status
        result.message = f"test {bad.id}: {bad.message}"[:300]
    return bad


def _judge_record(test, rec: dict, result: ExecutionResult, compare: str = "") -> TestOutcome:
    """One test's outcome from its judge record: a value the parent compares, or the judge's own verdict on a
    statement test."""
    if test.check not in MODE_CHECKS["python_tests"]:  # a malformed task: not judged here, so never a pass
        return TestOutcome(test.id, Status.FAILED, test.hidden, f"a {test.check.value} check is not judged in a "
                           "function task")
    if rec.get("event") == "test":
        st = _status(rec.get("status"))
        if st is Status.PASSED and test.check in PARENT_JUDGED:
            # A value test can only pass through the parent's comparison.
            result.tamper.append("forged_pass")
            st = Status.FAILED
        return TestOutcome(test.id, st, test.hidden, str(rec.get("message", ""))[:300])
    if test.check not in PARENT_JUDGED:
        result.tamper.append("unexpected_value_record")
        return TestOutcome(test.id, Status.FAILED, test.hidden, "unexpected record")
    try:
        value = decode_value(rec.get("value"))
    except BadRecord as exc:
        result.tamper.append("bad_record")
        return TestOutcome(test.id, Status.FAILED, test.hidden, str(exc))
    try:
        ok = values_match(test.check, value, test.expected, compare)
    except Exception as exc:  # e.g. comparing unorderable plain values can still raise; never crash the batch
        return TestOutcome(test.id, Status.FAILED, test.hidden, f"comparison failed: {exc}")
    if ok:
        return TestOutcome(test.id, Status.PASSED, test.hidden)
    got = flat.short_repr(value)
    want = flat.short_repr(test.expected) if test.check in (CheckKind.EQUALS, CheckKind.IS) else test.check.value
    return TestOutcome(test.id, Status.FAILED, test.hidden, f"got {got}, expected {want}")


def _run_failure(request: ExecutionRequest, run: dict) -> tuple[Status, str] | None:
    """Why a per-process run did not end well: a limit, a signal, or a non-zero exit (a compile error
    of the request's language, memory, or a runtime error); None when it exited 0."""
    failure = _process_failure(run, request.limits)
    if failure is None and run["exit_code"] != 0:
        stderr = run["stderr"].strip().splitlines()
        compile_error = compile_error_line(request.compile_error, run["stderr"])
        if _memory_hint(run["stderr"]) or "out of memory" in run["stderr"].lower():
            failure = (Status.MEMORY_EXCEEDED, "MemoryError" if _memory_hint(run["stderr"]) else "out of memory")
        elif compile_error:
            failure = (Status.SYNTAX_ERROR, compile_error[:300])
        else:
            failure = (Status.RUNTIME_ERROR,
                       f"exit code {run['exit_code']}: {stderr[-1][:200] if stderr else ''}".strip())
    return failure


def _judge_records(request: ExecutionRequest, run: dict, isolation: str) -> ExecutionResult:
    """A request of RECORD tests, all in one run (`records.record_outcomes`); a run a limit ended has that status."""
    result = _base_result([run], isolation)
    failure = _process_failure(run, request.limits)
    record_outcomes(request, run, result, failure)
    _status_from_tests(result)
    if failure is not None and not result.passed:
        result.status, result.message = failure
    return result


def _judge_processes(request: ExecutionRequest, runs: list[dict], isolation: str) -> ExecutionResult:
    """The verdict of a per-process request (scripts, commands): each test's run judged on its output, then the
    request's status."""
    result = _base_result(runs, isolation)
    tests = request.tests
    origin: list[int] = []  # the run of each outcome
    for i, run in enumerate(runs):
        failure = _run_failure(request, run)
        test = tests[i] if tests else None
        tid, hidden = (test.id, test.hidden) if test else ("0", False)
        check = test.check if test is not None else None
        if check is CheckKind.REPORT:
            result.reports[tid] = outputs.report(run, failure)
            continue
        if check is CheckKind.TAGGED:
            expanded = outputs.tagged_outcomes(test, run, failure)
            result.tests.extend(expanded)
            origin.extend([i] * len(expanded))
            continue
        if failure is not None:
            outcome = TestOutcome(tid, failure[0], hidden, failure[1], run["cpu_seconds"])
        elif check is CheckKind.JSON:
            outcome = outputs.value_outcome(test, run, request.float_tolerance, request.compare)
        elif check is None:  # a request without tests: the program ran
            outcome = TestOutcome(tid, Status.PASSED, hidden, "", run["cpu_seconds"])
        elif check is not CheckKind.STDOUT:  # a malformed task: an assert or value check on a program's output
            outcome = TestOutcome(tid, Status.FAILED, hidden, f"a {check.value} check is not judged on a program's "
                                  "output", run["cpu_seconds"])
        elif run["stdout_total"] > len(run["stdout"].encode()):
            outcome = TestOutcome(tid, Status.FAILED, hidden, "output longer than the capture limit",
                                  run["cpu_seconds"])
        elif outputs.stdout_match(run["stdout"], str(test.expected), request.float_tolerance, request.compare):
            outcome = TestOutcome(tid, Status.PASSED, hidden, "", run["cpu_seconds"])
        else:
            outcome = TestOutcome(tid, Status.FAILED, hidden,
                                  f"got {run['stdout'][:80]!r}, expected {str(test.expected)[:80]!r}",
                                  run["cpu_seconds"])
        result.tests.append(outcome)
        origin.append(i)
    bad = _status_from_tests(result)
    # Show the first failing run's streams: that is the one a user wants to read.
    if bad is not None and tests:
        first = runs[origin[result.tests.index(bad)]]
        result.stdout, result.stderr = first["stdout"], first["stderr"]
    return result
