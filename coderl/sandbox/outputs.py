"""Parent-side judging of what a command's process printed, for the check kinds that read its output:
values printed by a trusted harness (`JSON`), a testbench's tagged checks (`TAGGED`) and analyses
(`REPORT`).  Expected values never leave the parent; the program never reports a verdict, only values
the parent compares.

JSON: the harness (a trusted file of the task's runner, run in the program's process) prints the
entry point's return value as one line, `VALUE_MARKER` + JSON; the last such line counts.  JSON has
one number type, so 3 and 3.0 are equal; a boolean is never a number; `float_tolerance` (when set)
lets two floats differ by tol * max(1, |expected|).

TAGGED: the testbench prints "<nonce> <label> <value>" per check.  The nonce is drawn per request by
the task, given to the testbench on its command line, and known to the parent: a design cannot read
it, so a line it prints to fake a check is ignored.  Checks are matched in order against the expected
(label, value) pairs, which the task made by running the same stimulus on its reference; each is one
outcome, a missing check is failed, and each extra check adds a failed outcome.
"""

from __future__ import annotations

import json
import math
import re

from .rules import outputs_match, rule
from .server.common import flat, values
from .types import VALUE_MARKER, Status, TestCase, TestOutcome

MAX_EXTRA_OUTCOMES = 64  # extra tagged checks beyond this add no more outcomes (one says how many)


def stdout_match(actual: str, expected: str, float_tolerance: float | None, compare: str = "") -> bool:
    """A STDOUT check under the request's rule (`compare`)."""
    judge = rule(compare).output
    return outputs_match(actual, expected, float_tolerance) if judge is None else judge(actual, expected)


def json_equal(value, expected, tol=None):
    """`value` (decoded JSON) equals `expected` (a Python value; tuples as lists) under JSON's types: one
    number type (3 == 3.0), a boolean never a number, object keys as strings; floats within
    tol * max(1, |expected|) when `tol` is set.  Without recursion: a printed value may be nested as deep
    as `flat.MAX_DEPTH`."""
    stack = [(value, expected)]
    while stack:
        v, e = stack.pop()
        if isinstance(e, bool) or isinstance(v, bool):
            if not (type(v) is bool and type(e) is bool and v == e):
                return False
        elif isinstance(e, (int, float)):
            if not isinstance(v, (int, float)):
                return False
            if v != e and (tol is None or not (math.isfinite(v) and math.isfinite(e))
                           or abs(v - e) > tol * max(1.0, abs(e))):
                return False
        elif e is None or isinstance(e, str):
            if type(v) is not type(e) or v != e:
                return False
        elif isinstance(e, (list, tuple)):
            if not isinstance(v, list) or len(v) != len(e):
                return False
            stack.extend(zip(v, e))
        elif isinstance(e, dict):
            if not isinstance(v, dict) or set(v) != {str(k) for k in e}:
                return False
            stack.extend((v[str(k)], item) for k, item in e.items())
        else:
            return False
    return True


def _truncated(run: dict) -> bool:
    return run["stdout_total"] > len(run["stdout"].encode())


def value_outcome(test: TestCase, run: dict, float_tolerance: float | None, compare: str = "") -> TestOutcome:
    """A JSON check of a run that ended normally (its value compared under the request's rule, `RULES`; by
    default `json_equal`)."""
    cpu = run["cpu_seconds"]
    if _truncated(run):
        return TestOutcome(test.id, Status.FAILED, test.hidden, "output longer than the capture limit", cpu)
    # split on "\n" only: str.splitlines also breaks at the marker's own \x1e (a record separator)
    lines = [line.rstrip("\r") for line in run["stdout"].split("\n") if line.startswith(VALUE_MARKER)]
    if not lines:
        return TestOutcome(test.id, Status.FAILED, test.hidden, "no value was printed", cpu)
    try:  # the program prints this line: read without recursion, at most flat.MAX_DEPTH levels deep
        value = loads(lines[-1][len(VALUE_MARKER):])
    except ValueError as exc:
        return TestOutcome(test.id, Status.FAILED, test.hidden, f"the value is not JSON ({str(exc)[:80]})", cpu)
    loose = rule(compare).value
    if (json_equal(value, test.expected, float_tolerance) if loose is None else loose(value, test.expected)):
        return TestOutcome(test.id, Status.PASSED, test.hidden, "", cpu)
    return TestOutcome(test.id, Status.FAILED, test.hidden,
                       f"got {flat.short_repr(value, 80)}, expected {flat.short_repr(test.expected, 80)}", cpu)


def tagged_checks(stdout: str, nonce: str) -> list[tuple[str, str]]:
    """The (label, value) pairs of the lines "<nonce> <label> <value>", in order."""
    out = []
    prefix = nonce + " "
    for line in stdout.split("\n"):
        if line.startswith(prefix):
            label, _, value = line[len(prefix):].strip().partition(" ")
            out.append((label, value.strip()))
    return out


def tagged_outcomes(test: TestCase, run: dict, failure: tuple[Status, str] | None) -> list[TestOutcome]:
    """One outcome per expected check of a TAGGED test (ids "<test id>/<k>"), plus failed ones for
    extra checks.  A run that failed (timeout, crash, non-zero exit) fails every check with its status."""
    expected = [(str(a), str(b)) for a, b in test.expected["checks"]]
    cpu = run["cpu_seconds"]

    def outcome(k: int, status: Status, message: str = "") -> TestOutcome:
        return TestOutcome(f"{test.id}/{k}", status, test.hidden, message[:300], cpu)

    if failure is not None:
        return [outcome(k, failure[0], failure[1]) for k in range(len(expected))]
    if _truncated(run):
        return [outcome(k, Status.FAILED, "output longer than the capture limit") for k in range(len(expected))]
    got = tagged_checks(run["stdout"], str(test.expected["nonce"]))
    outcomes = []
    for k, (label, value) in enumerate(expected):
        if k >= len(got):
            outcomes.append(outcome(k, Status.FAILED, f"check {k} ({label}): missing"))
        elif got[k] == (label, value):
            outcomes.append(outcome(k, Status.PASSED))
        else:
            outcomes.append(outcome(k, Status.FAILED, f"check {k} ({label}): got {got[k][1][:60]!r}"
                                    f"{'' if got[k][0] == label else f' labelled {got[k][0][:30]!r}'}, "
                                    f"expected {value[:60]!r}"))
    extra = len(got) - len(expected)
    for j in range(min(extra, MAX_EXTRA_OUTCOMES)):
        outcomes.append(outcome(len(expected) + j, Status.FAILED, f"extra check ({extra} more than expected)"))
    return outcomes


def report(run: dict, failure: tuple[Status, str] | None) -> dict:
    """What an analysis run (`REPORT`) left for the rewards: its status, exit code and output excerpts."""
    status, message = failure if failure is not None else (Status.PASSED, "")
    return {"status": status.value, "exit_code": run["exit_code"], "message": message[:300],
            "stdout": run["stdout"], "stderr": run["stderr"]}


# A bracket, or a JSON string (what it holds is no bracket) up to its closing quote, or to the end of the text where
# it has none (json fails there, before it reads a bracket after it): one pass, each character read once.
_TOKEN = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"?|[][{}]', re.DOTALL)
_NESTING = {"[": 1, "{": 1, "]": -1, "}": -1}


def loads(text):
    """`json.loads(text)` (NaN and infinities included); ValueError on malformed text and on nesting past
    `flat.MAX_DEPTH` levels, counted first without recursion (the program prints this text), so `json`'s own
    recursion never goes deeper than the limit, at which `values.deep` lets it reach."""
    depth = 0
    for m in _TOKEN.finditer(text):
        depth += _NESTING.get(m.group()[0], 0)
        if depth > flat.MAX_DEPTH:
            raise ValueError("value nested too deeply")
    return values.deep(json.loads, text)
