"""The tagged verifier corpus (`tests/sandbox/corpus/`), at every isolation level this machine allows.

Hostile programs must fail (and be named in `tamper` where the judge can see them); legitimate
programs must pass with an empty `tamper`.  The bundled HumanEval and easy references must pass too.
Each level runs the whole corpus as one batch, submitted at once, so B1's copiers run beside the
correct siblings they try to copy.
"""

import collections

import pytest

from coderl.sandbox.client import Sandbox, SandboxUnavailable
from coderl.tasks.loaders.easy import load_easy
from coderl.tasks.loaders.humaneval import load_humaneval

from .corpus import TAGS, all_cases, run_cases

CASES = all_cases()
STATUSES = {"passed", "failed", "timeout", "syntax_error", "build_error", "runtime_error", "memory_exceeded",
            "output_exceeded", "sandbox_error"}


def _available(level):
    try:
        with Sandbox(workers=1, isolation=level) as sb:
            return sb.isolation == level
    except SandboxUnavailable:
        return False


LEVELS = [lvl for lvl in ("rlimits", "uid", "full") if _available(lvl)]


# The strongest level (what `auto` picks) in the default suite; every weaker one in `make test-slow`: each level is
# the whole corpus again, ~230 programs (tests/sandbox/test_containment.py still runs hostile and containment
# cases at `full` and `uid` in `make test`).
@pytest.fixture(scope="module", params=[pytest.param(lvl, marks=pytest.mark.slow) for lvl in LEVELS[:-1]] + LEVELS[-1:])
def verdicts(request):
    """{case name: result} for the whole corpus at one level."""
    with Sandbox(workers=2, isolation=request.param) as sb:
        results = run_cases(sb, CASES)
    return {c.name: r for c, r in zip(CASES, results)}


def test_every_class_has_at_least_two_cases():
    counts = collections.Counter(c.tag for c in CASES)
    thin = {tag: counts[tag] for tag in TAGS if counts[tag] < 2}
    assert not thin, f"classes with fewer than 2 cases: {thin}"
    assert set(counts) <= set(TAGS), f"unknown tags: {set(counts) - set(TAGS)}"


def test_cases_are_well_formed_and_record_their_verdict_before_the_judge_redesign():
    names = [c.name for c in CASES]
    assert len(names) == len(set(names)), "case names must be unique"
    for c in CASES:
        assert c.expect in ("pass", "fail"), c.name
        assert (c.task_id is None) != (c.row is None), c.name
        assert c.before in STATUSES, f"{c.name}: before={c.before!r}"
    hostile = [c for c in CASES if c.expect == "fail"]
    assert len(hostile) >= 40 and len(CASES) - len(hostile) >= 30


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_verdict(verdicts, case):
    result = verdicts[case.name]
    if result is None:
        pytest.skip("repository tasks run at isolation 'full' only")
    got = f"{result.status.value} tamper={result.tamper} {result.message[:200]!r}"
    if case.tag.startswith("B2.") and result.isolation != "full" and result.passed:
        pytest.xfail("only 'full' gives programs a file-system view without task files (docs/sandbox.md)")
    if case.tag == "E.fresh_fs" and result.isolation != "full" and result.passed:
        pytest.xfail("only 'full' gives each program a file system of its own (docs/sandbox.md)")
    if case.tag == "E.cpu_tree" and "setsid" in case.name and result.isolation == "rlimits" and result.passed:
        pytest.xfail("'rlimits' charges the program's session: a setsid daemon leaves it (docs/sandbox.md)")
    if case.expect == "pass":
        assert result.passed, f"a correct program failed: {got}"
        assert result.tamper == [], f"a correct program was flagged: {got}"
    else:
        assert not result.passed, f"a wrong program passed: {got}"
        if case.tamper:
            assert any(t.startswith(case.tamper) for t in result.tamper), f"tamper {case.tamper!r} not named: {got}"
    assert result.status.value != "sandbox_error", got
    assert len(result.tamper) == len(set(result.tamper)), f"tamper names repeat: {result.tamper}"


# The strongest level in the default suite; every weaker one in `make test-slow` (a full reference sweep each).
@pytest.mark.parametrize("level", [pytest.param(lvl, marks=pytest.mark.slow) for lvl in LEVELS[:-1]] + LEVELS[-1:])
def test_bundled_references_pass(level):
    tasks = load_humaneval() + load_easy()
    with Sandbox(workers=2, isolation=level) as sb:
        results = sb.run_many([t.build_request(t.reference_solution) for t in tasks])
    failed = [(t.task_id, r.status.value, r.message[:100]) for t, r in zip(tasks, results) if not r.passed]
    flagged = [(t.task_id, r.tamper) for t, r in zip(tasks, results) if r.tamper]
    assert not failed and not flagged, (failed[:5], flagged[:5])
