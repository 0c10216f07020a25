"""Seed 003's reward components, for any language but written for hardware tasks:

    R = w_c * compile + w_f * functional + w_s * synthesis + w_q * quality

`compile` and `functional` read the sandbox's verdict; `synthesis` and `quality` read the analyses a
hardware request runs beside its simulation (`ExecutionResult.reports`, `coderl.tasks.hdl`): yosys and
verilator.  (`quality` itself lives in `components`: ruff for Python, verilator's warnings for Verilog.)
"""

from __future__ import annotations

from coderl.rewards.components import defines_entry_point, reward
from coderl.rollout.types import Sample
from coderl.sandbox.types import ExecutionResult, Status
from coderl.tasks.types import Task

NOT_BUILT = frozenset({Status.BUILD_ERROR, Status.SYNTAX_ERROR})


@reward("compile")
def compile_reward(result: ExecutionResult, sample: Sample, task: Task) -> float:
    """1.0 when the program built and ran its tests (no build error, no syntax error, not rejected by
    the task's build-time rules), else 0.0: seed 003's "compilation", from the real compiler (Icarus
    Verilog; Node and Python parse before running).  0.0 unless the completion defines the entry point."""
    if not defines_entry_point(task, sample.completion):
        return 0.0
    return 0.0 if result.status in NOT_BUILT else 1.0


@reward("functional")
def functional(result: ExecutionResult, sample: Sample, task: Task) -> float:
    """The fraction of checks matching the reference (seed 003's functional correctness): for a hardware
    task one outcome per testbench check, a missing or extra check counted as failed; for other tasks
    the fraction of tests.  0.0 when nothing ran."""
    return sum(t.passed for t in result.tests) / len(result.tests) if result.tests else 0.0


@reward("synthesis")
def synthesis(result: ExecutionResult, sample: Sample, task: Task) -> float:
    """1.0 when yosys synthesised the design without error and inferred no latch (unless the task allows
    latches), else 0.0 (seed 003's "synthesise").  0.0 for a design that did not build, and for tasks
    without a synthesis analysis (every non-hardware task)."""
    report = result.reports.get("synthesis")
    if report is None or result.status in NOT_BUILT:
        return 0.0
    return 1.0 if report.get("status") == Status.PASSED.value else 0.0
