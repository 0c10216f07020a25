"""Seed 003's components (compile, functional, synthesis, Verilog quality) on hand-built results."""

import dataclasses

import pytest

from coderl.rewards import PRESETS, REWARDS, RewardConfig, score
from coderl.rewards.components import quality
from coderl.sandbox.types import CheckKind, ExecutionResult, Status, TestCase, TestOutcome
from coderl.tasks.types import Task
from tests.rewards.helpers import TASK, result, sample

DESIGN = "module inv(input a, output y);\n  assign y = ~a;\n\nendmodule\n"  # 3 non-blank lines
HDL = Task(task_id="verilog/inv", kind="hdl", language="verilog", prompt="Invert a.",
           tests=(TestCase("sim", "", CheckKind.TAGGED, {"checks": [["a", "1"]]}),), entry_point="inv",
           metadata={"top": "inv", "latches": False, "testbench": ""})


def hdl_result(checks: tuple[bool, ...] = (True, True), status: Status | None = None, synth: str = "passed",
               lint_stderr: str = "", lint_exit: int = 0) -> ExecutionResult:
    tests = [TestOutcome(f"sim/{i}", Status.PASSED if ok else Status.FAILED) for i, ok in enumerate(checks)]
    status = status or (Status.PASSED if all(checks) else Status.FAILED)
    reports = {"synthesis": {"status": synth, "exit_code": 0 if synth == "passed" else 1, "stdout": "", "stderr": ""},
               "lint": {"status": "passed" if lint_exit == 0 else "runtime_error", "exit_code": lint_exit,
                        "stdout": "", "stderr": lint_stderr}}
    return ExecutionResult(status=status, tests=tests, reports=reports)


def call(name, res, smp, task=HDL):
    config = RewardConfig()
    component = REWARDS[name]
    return component.fn(res, smp, task, **{p: getattr(config, p) for p in component.params})


def test_compile_is_the_build():
    smp = sample(DESIGN, task=HDL)
    assert call("compile", hdl_result(), smp) == 1.0
    assert call("compile", hdl_result((False, False)), smp) == 1.0  # built, wrong: still compiled
    assert call("compile", hdl_result((), status=Status.BUILD_ERROR), smp) == 0.0
    assert call("compile", hdl_result((), status=Status.SYNTAX_ERROR), smp) == 0.0
    assert call("compile", hdl_result(), sample("", task=HDL)) == 0.0  # nothing written: no shaping pay
    assert call("compile", result(True), sample()) == 1.0  # Python: built = no syntax error
    assert call("compile", result(False, status=Status.SYNTAX_ERROR), sample()) == 0.0


def test_functional_is_the_fraction_of_checks():
    smp = sample(DESIGN, task=HDL)
    assert call("functional", hdl_result((True, False, True, True)), smp) == 0.75
    assert call("functional", hdl_result((), status=Status.BUILD_ERROR), smp) == 0.0
    assert call("functional", result(True, False), sample(), TASK) == 0.5


def test_synthesis_reads_the_yosys_report():
    smp = sample(DESIGN, task=HDL)
    assert call("synthesis", hdl_result(), smp) == 1.0
    assert call("synthesis", hdl_result(synth="runtime_error"), smp) == 0.0  # a latch, or a yosys error
    assert call("synthesis", hdl_result((False,)), smp) == 1.0  # synthesises, whatever it computes
    assert call("synthesis", dataclasses.replace(hdl_result(), status=Status.BUILD_ERROR), smp) == 0.0
    assert call("synthesis", result(True), sample(), TASK) == 0.0  # no hardware analysis


def test_quality_counts_verilator_warnings_per_line():
    smp = sample(DESIGN, task=HDL)
    warn = "%Warning-WIDTH: design.sv:2: ...\n%Warning-UNUSEDSIGNAL: design.sv:1: ...\n%Error: Exiting due to 2 warning(s)\n"
    assert call("quality", hdl_result(), smp) == 1.0
    assert call("quality", hdl_result(lint_stderr=warn, lint_exit=1), smp) == pytest.approx(1 - 2 / 3)
    assert call("quality", hdl_result(lint_stderr="%Error: design.sv:1: syntax\n", lint_exit=1), smp) == 0.0
    assert call("quality", hdl_result((), status=Status.BUILD_ERROR), smp) == 0.0


def test_quality_without_a_linter_is_a_one_line_error():
    js = dataclasses.replace(TASK, language="javascript", task_id="js/1")
    with pytest.raises(ValueError, match="no linter for language 'javascript'"):
        quality(result(True), sample("function f() { return 1; }", task=js), js, quality_scale=1.0,
                quality_select=("E",), quality_ignore=(), quality_timeout_seconds=10)


def test_verilog_preset_weights_and_total():
    config = PRESETS["compile_functional_synthesis_quality"]()
    assert config.weights == {"compile": 0.4, "functional": 0.5, "synthesis": 0.3, "quality": 0.5}
    batch = score(config, [hdl_result((True, False)), hdl_result((), status=Status.BUILD_ERROR)],
                  [sample(DESIGN, task=HDL), sample(DESIGN, task=HDL)], [HDL, HDL])
    assert batch.total == pytest.approx([0.4 + 0.5 * 0.5 + 0.3 + 0.5, 0.0])
    assert batch.components["functional"] == [0.5, 0.0]
