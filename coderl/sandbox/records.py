"""RECORD checks, judged in the parent: every test's outcome is the record with its id that the run wrote on its
report channel (fd 5), never its stdout or exit status (docs/sandbox.md, "Requests and results")."""

from __future__ import annotations

import json

from .types import ExecutionRequest, ExecutionResult, Status, TestOutcome

MAX_RECORD_LINE = 65536  # a record longer than this is not one coderl's reporter writes


def report_records(stream: str) -> tuple[dict[str, dict], list[str]]:
    """The records a run wrote on its report channel (RECORD tests): test id -> its record ({"id", "status",
    "message"?}), and what was wrong with the stream (lines that are not such records, ids recorded twice: both of
    a twice-recorded id are dropped, so a second record never overrides the first)."""
    by_id: dict[str, dict] = {}
    twice: set[str] = set()
    wrong: list[str] = []
    for i, line in enumerate(stream.splitlines()):
        try:
            rec = json.loads(line) if len(line) <= MAX_RECORD_LINE else None
        except (ValueError, RecursionError):
            rec = None
        if not (isinstance(rec, dict) and isinstance(rec.get("id"), str) and isinstance(rec.get("status"), str)):
            wrong.append(f"line {i + 1} is not a record")
            continue
        if rec["id"] in by_id or rec["id"] in twice:
            twice.add(rec["id"])
            by_id.pop(rec["id"], None)
            continue
        by_id[rec["id"]] = rec
    wrong.extend(f"{tid} recorded twice" for tid in sorted(twice))
    return by_id, wrong


def record_outcomes(request: ExecutionRequest, run: dict, result: ExecutionResult,
                    failure: tuple[Status, str] | None) -> None:
    """Each RECORD test's outcome into `result` (all in one run): its record's status against `expected` ("passed"
    when None); a test without a record has failed (with the run's limit status, `failure`, when a limit ended it),
    whatever the exit status or stdout say.  The records as written go to `result.reports["records"]`."""
    by_id, wrong = report_records(run.get("result", ""))
    if wrong:
        result.tamper.append("bad_record")
    # the records as written (a failure's frames, build-time coverage): every test the run recorded, asked for or not
    result.reports["records"] = by_id
    for test in request.tests:
        rec = by_id.get(test.id)
        want = "passed" if test.expected is None else str(test.expected)
        if rec is None:
            status, message = failure or (Status.FAILED, "missing from the report (not collected, not run, or the "
                                                         "run ended first)")
            result.tests.append(TestOutcome(test.id, status, test.hidden, message))
        elif rec["status"] == want:
            result.tests.append(TestOutcome(test.id, Status.PASSED, test.hidden))
        elif want != "passed" and rec["status"] == "passed":  # a test that must fail (a tripwire) reported passed:
            # the run's outcomes were forged in the process that wrote them
            if "forged_pass" not in result.tamper:
                result.tamper.append("forged_pass")
            result.tests.append(TestOutcome(test.id, Status.FAILED, test.hidden, f"expected {want}, reported passed "
                                            "(the run's outcomes were forged)"))
        else:
            message = f"{rec['status']}: {str(rec.get('message', ''))}".strip().rstrip(":")
            result.tests.append(TestOutcome(test.id, Status.FAILED, test.hidden, message[:2000]))
