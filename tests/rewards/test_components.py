"""Each reward component on hand-built results and samples."""

import subprocess
import sys

import pytest

from coderl.rewards import REWARDS, RewardConfig, defines_entry_point
from coderl.rewards.components import compiles, fraction, length_penalty, quality
from coderl.sandbox.types import Status
from tests.rewards.helpers import BODY, CHAT, STDIO, STDIO_PROGRAM, TASK, result, sample

SHAPING = ("syntax", "format", "quality")


def call(name, res, smp, task=TASK, **overrides):
    """A registered component with RewardConfig's defaults for its parameters."""
    config = RewardConfig(**overrides)
    component = REWARDS[name]
    return component.fn(res, smp, task, **{p: getattr(config, p) for p in component.params})


def test_registry_and_docstrings_cite_seeds():
    assert set(REWARDS) == {"pass", "fraction", "perfect_bonus", "length_penalty", "syntax", "format", "quality",
                            "compile", "functional", "synthesis", "reward_model", "f2p_fraction"}
    for name, component in REWARDS.items():
        assert "seed 00" in component.fn.__doc__.lower(), name
        assert all(hasattr(RewardConfig(), p) for p in component.params), name


def test_rewards_do_not_import_torch():
    code = "import sys, coderl.rewards; print('torch' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


# --- outcome components ---------------------------------------------------------------------

def test_pass_and_perfect_bonus():
    for name in ("pass", "perfect_bonus"):
        assert call(name, result(True, True), sample()) == 1.0
        assert call(name, result(True, False), sample()) == 0.0
        assert call(name, result(status=Status.TIMEOUT), sample()) == 0.0


def test_fraction_all_hidden_visible():
    res = result(True, False, True, False, hidden=(False, False, True, True))
    assert call("fraction", res, sample()) == 0.5  # 2 of 4
    assert call("fraction", res, sample(), fraction_tests="visible") == 0.5  # tests 0, 1: 1 of 2
    res = result(True, True, False, hidden=(False, False, True))
    assert call("fraction", res, sample(), fraction_tests="visible") == 1.0  # 2 of 2
    assert call("fraction", res, sample(), fraction_tests="hidden") == 0.0  # 0 of 1
    assert call("fraction", res, sample()) == pytest.approx(2 / 3)
    # no hidden tests: falls back to all tests; no tests at all: result.passed
    assert call("fraction", result(True, False), sample(), fraction_tests="hidden") == 0.5
    assert call("fraction", result(status=Status.PASSED), sample()) == 1.0
    assert call("fraction", result(status=Status.SYNTAX_ERROR), sample()) == 0.0
    with pytest.raises(ValueError, match="expected one of all, hidden, visible"):
        fraction(res, sample(), TASK, fraction_tests="some")


def test_length_penalty_on_all_vs_passed():
    long = sample(tokens=250)
    # -alpha * len / 100 = -0.01 * 250 / 100 = -0.025, on passing and failing samples alike
    assert call("length_penalty", result(True), long) == pytest.approx(-0.025)
    assert call("length_penalty", result(False), long) == pytest.approx(-0.025)
    # "passed": only passing samples pay; alpha 0.03: -0.03 * 250 / 100 = -0.075
    assert call("length_penalty", result(True), long, length_penalty_on="passed",
                length_alpha=0.03) == pytest.approx(-0.075)
    assert call("length_penalty", result(False), long, length_penalty_on="passed") == 0.0
    with pytest.raises(ValueError, match="expected one of all, passed"):
        length_penalty(result(True), long, TASK, length_alpha=0.01, length_penalty_on="failed")


# --- the shaping gate -----------------------------------------------------------------------

@pytest.mark.parametrize("completion", [
    "",  # empty answer: the prompt alone compiles and is lint-clean
    "   \n\n",  # whitespace
    "    pass\n",  # the stub left empty
    "    ...\n",
    "    raise NotImplementedError\n",
    "\ndef add(a: int, b: int) -> int:\n    \"\"\"Sum.\"\"\"\n",  # a redefinition with no body
    "\ndef add(a, b):\n    return a + b\n\ndef add(a, b):\n    pass\n",  # the last definition counts
])
def test_shaping_terms_pay_nothing_without_an_implementation(completion):
    smp = sample(completion)
    assert not defines_entry_point(TASK, completion)
    for name in SHAPING:
        assert call(name, result(False), smp) == 0.0, name


@pytest.mark.parametrize("completion", ["", "# nothing yet\n", "pass\n", '"""docstring only"""\n'])
def test_shaping_terms_pay_nothing_for_an_empty_stdio_program(completion):
    assert not defines_entry_point(STDIO, completion)
    for name in SHAPING:
        assert call(name, result(False), sample(completion, task=STDIO), task=STDIO) == 0.0, name


@pytest.mark.parametrize("completion", [BODY, CHAT, "\nadd = int.__add__\n"])
def test_an_implementation_earns_the_shaping_terms(completion):
    assert defines_entry_point(TASK, completion)
    for name in SHAPING:
        assert call(name, result(False), sample(completion)) == 1.0, name


def test_stdio_program_earns_the_shaping_terms():
    assert defines_entry_point(STDIO, STDIO_PROGRAM)
    for name in SHAPING:
        assert call(name, result(False), sample(STDIO_PROGRAM, task=STDIO), task=STDIO) == 1.0, name


# --- syntax ---------------------------------------------------------------------------------

def test_syntax_on_a_broken_program():
    assert call("syntax", result(False), sample("    return a +\n")) == 0.0  # does not parse
    # parses, but does not compile: `nonlocal` at module level is a compile-time error
    broken = "\ndef add(a, b):\n    return a + b\n\nnonlocal x\n"
    assert defines_entry_point(TASK, broken) and not compiles(TASK.build_program(broken))
    assert call("syntax", result(False), sample(broken)) == 0.0
    assert call("syntax", result(False), sample(BODY)) == 1.0


def test_compile_does_not_run_the_program(tmp_path):
    marker = tmp_path / "ran"
    assert compiles(f"open({str(marker)!r}, 'w').write('x')\n")
    assert not marker.exists()


# --- format ---------------------------------------------------------------------------------

def test_format_reads_format_ok():
    assert call("format", result(False), sample(CHAT, format_ok=True)) == 1.0
    assert call("format", result(False), sample(CHAT, format_ok=False)) == 0.0


def test_format_on_a_repository_task_is_the_last_replys_tool_call():
    """An agent episode's sample is its last reply, a shell command with no entry point: `format` pays for a
    well-formed call (an episode not ended by malformed replies), where the entry-point gate paid nothing."""
    import dataclasses

    repo_task = dataclasses.replace(TASK, kind="repository", metadata={"repository": {}})
    reply = "Run the tests.\n\n```bash\npytest -q\n```"
    assert not defines_entry_point(TASK, reply)
    assert call("format", result(False), sample(reply, format_ok=True), task=repo_task) == 1.0
    assert call("format", result(False), sample(reply, format_ok=False), task=repo_task) == 0.0


# --- quality --------------------------------------------------------------------------------

def test_quality_unused_imports_vs_clean_code():
    clean = "    total = a + b\n    return total\n"
    assert call("quality", result(True), sample(clean)) == 1.0
    # 2 findings (F401 os, F401 sys) on 4 non-blank completion lines: 1 - 1.0 * 2/4 = 0.5
    messy = "    import os\n    import sys\n    total = a + b\n    return total\n"
    assert call("quality", result(True), sample(messy)) == pytest.approx(0.5)
    # quality_scale 3: 1 - 3 * 2/4 < 0 -> clipped to 0
    assert call("quality", result(True), sample(messy), quality_scale=3.0) == 0.0
    # the same program as a stdio task: 2 findings on 3 lines
    stdio = "import os\nimport sys\nprint(sum(map(int, input().split())))\n"
    assert call("quality", result(True), sample(stdio, task=STDIO), task=STDIO) == pytest.approx(1 - 2 / 3)


def test_quality_ignores_the_prompt_and_the_stub_redefinition():
    # The prompt imports List and math, which the model does not use (F401 in the prompt's lines),
    # and the chat completion redefines the stub (F811): neither is the model's finding.
    assert call("quality", result(True), sample(CHAT)) == 1.0
    # A finding of the model's own in a chat completion still counts: F841 (unused `x`), 3 lines.
    chat = "\ndef add(a: int, b: int) -> int:\n    x = 1\n    return a + b\n"
    assert call("quality", result(True), sample(chat)) == pytest.approx(1 - 1 / 3)


def test_quality_called_alone_lints_itself_and_with_a_report_does_not():
    from coderl.rewards import LintReport

    kwargs = {"quality_scale": 1.0, "quality_select": ("F",), "quality_ignore": (), "quality_timeout_seconds": 30.0}
    assert quality(result(True), sample("    import os\n    return a + b\n"), TASK, **kwargs) == 0.5
    assert quality(result(True), sample(BODY), TASK, lint=LintReport(findings=1, lines=4), **kwargs) == 0.75


def test_quality_without_ruff_names_the_fix(monkeypatch):
    from coderl.rewards import lint

    monkeypatch.setattr(lint.sys, "executable", "/nonexistent/python")
    monkeypatch.setattr(lint.shutil, "which", lambda name: None)
    with pytest.raises(lint.LinterMissing, match="pip install ruff"):
        call("quality", result(True), sample(BODY))


def test_f2p_fraction_is_the_share_of_fail_to_pass_tests_with_every_pass_to_pass_passing():
    import dataclasses

    from coderl.sandbox.types import ExecutionResult, TestOutcome
    from coderl.tasks.repository.grade import Repository

    repo = Repository(tree="/", environment="/", fail_to_pass=("a", "b", "c"), pass_to_pass=("p",))
    task = dataclasses.replace(TASK, kind="repository", metadata={"repository": repo})

    def outcome(**passed):
        tests = [TestOutcome(k, Status.PASSED if v else Status.FAILED) for k, v in passed.items()]
        wire = TestOutcome("test_wire.py::test_wire", Status.PASSED)  # the tripwire, recorded failed as planted
        return ExecutionResult(status=Status.FAILED, tests=[*tests, wire])

    # 2 of 3 FAIL_TO_PASS with the PASS_TO_PASS test passing: 2/3; the PASS_TO_PASS test failing: 0
    assert call("f2p_fraction", outcome(a=1, b=1, c=0, p=1), sample(""), task) == pytest.approx(2 / 3)
    assert call("f2p_fraction", outcome(a=1, b=1, c=1, p=0), sample(""), task) == 0.0
    assert call("f2p_fraction", result(Status.PASSED), sample(""), TASK) == 1.0  # other kinds: pass's value
