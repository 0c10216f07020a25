"""Build-time validation of a repository task, in the sandbox: every FAIL_TO_PASS test fails at the base and passes
with the gold patch, every PASS_TO_PASS test passes at both, each check `RUNS` times; a test whose outcome varies
between runs is dropped with a record; a task left without FAIL_TO_PASS is refused.

The runs are grading runs (`grade.grading_request`): the same restoration, configuration, reporter and tripwire as
the grader's, so a test validated here is judged the same way later.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable

from coderl.sandbox.types import ExecutionResult
from coderl.tasks.repository.grade import Repository, grading_request, tests_of, tripwire_held

RUNS = 2  # each side (base, gold) run this often; a test must give the same outcome in every run


@dataclasses.dataclass
class Validation:
    """What validation kept and why it dropped the rest."""

    fail_to_pass: tuple[str, ...]
    pass_to_pass: tuple[str, ...]
    dropped: dict[str, str]  # test id -> why (varied, passes at base, fails with the fix, ...)
    runs: int
    failures: dict[str, dict]  # FAIL_TO_PASS test id -> its record at the base (the issue is written from these)
    forged: bool = False  # a run's tripwire passed or went unrecorded (never in an honest build)
    depths: dict[str, int] = dataclasses.field(default_factory=dict)  # test -> frames from it down to the traced code

    @property
    def ok(self) -> bool:
        return bool(self.fail_to_pass) and not self.forged

    def to_dict(self) -> dict:
        return {"runs": self.runs, "kept_f2p": len(self.fail_to_pass), "kept_p2p": len(self.pass_to_pass),
                "dropped": self.dropped}


def statuses(result: ExecutionResult, ids: Iterable[str]) -> dict[str, str]:
    """Each test's recorded status in a run ("missing" without a record)."""
    records = result.reports.get("records", {})
    return {t: records[t]["status"] if t in records else "missing" for t in ids}


def validate(sandbox, repo: Repository, gold_patch: str, candidates: Iterable[str] | None = None,
             runs: int = RUNS, trace: dict | None = None, prescreen: bool = False) -> Validation:
    """Run the base and the gold patch `runs` times each on `candidates` (default: the task's own tests) and keep the
    tests that fail at the base and pass with the fix in every run (FAIL_TO_PASS), and those that pass in every run
    of both (PASS_TO_PASS).  `trace` ({"file", "first", "last"}: the changed code): the base runs also record how
    deep below each test that code runs (`depths`).  `prescreen` (the generator's): one base run first, and none
    more where every test passes in it (an equivalent or uncaught mutant: most of them); a kept task still has
    `runs` runs of each side."""
    ids = list(candidates) if candidates is not None else [*repo.fail_to_pass, *repo.pass_to_pass]
    tests = tests_of(repo, ids)

    def submit(side):
        return side, sandbox.submit(grading_request(repo, patch=gold_patch if side == "gold" else None, tests=tests,
                                                    trace=trace if side == "base" else None))

    results = []
    if prescreen:  # one base run first: where no test fails, nothing can be FAIL_TO_PASS and the rest is not run
        side, first = submit("base")
        results.append((side, first.result()))
        if all(s == "passed" for s in statuses(results[0][1], ids).values()):
            return Validation((), (), {t: "passed at the base" for t in ids}, 1, {}, False, {})
    futures = [submit(side) for side in ("base",) * (runs - len(results)) + ("gold",) * runs]
    results += [(side, future.result()) for side, future in futures]
    seen: dict[str, dict[str, set]] = {t: {"base": set(), "gold": set()} for t in ids}
    forged = any("forged_pass" in r.tamper or not tripwire_held(r, ids) for _, r in results)
    failures: dict[str, dict] = {}
    depths: dict[str, int] = {}
    for side, result in results:
        for test, rec in result.reports.get("records", {}).items():
            if side == "base" and isinstance(rec.get("depth"), int):
                depths[test] = min(depths.get(test, rec["depth"]), rec["depth"])
        for test, status in statuses(result, ids).items():
            seen[test][side].add(status)
            if side == "base" and status != "passed" and test not in failures:
                failures[test] = result.reports.get("records", {}).get(test, {"id": test, "status": status})
    f2p, p2p, dropped = [], [], {}
    for test in ids:
        base, gold = seen[test]["base"], seen[test]["gold"]
        if len(base) > 1 or len(gold) > 1:
            dropped[test] = f"varied between runs (base {sorted(base)}, gold {sorted(gold)})"
        elif gold != {"passed"}:
            dropped[test] = f"{next(iter(gold))} with the fix"
        elif base == {"passed"}:
            p2p.append(test)
        elif base == {"failed"}:
            f2p.append(test)
        else:  # errored, skipped, missing at the base: not a test the fix turns from failing to passing cleanly
            dropped[test] = f"{next(iter(base))} at the base"
    return Validation(tuple(f2p), tuple(p2p), dropped, runs, {t: failures[t] for t in f2p}, forged, depths)
