"""Hardware tasks (seed 003): a module to write in Verilog, judged by simulation against a reference,
synthesised and linted.  `Task(kind="hdl", language="verilog")`.

A problem (a row of `coderl/tasks/data/verilog/problems.jsonl`, or of a user's file in the same layout):

    task_id, description      the statement
    header, top               the ANSI module header the answer implements, and the module's name
    reference                 a module that compiles, passes, synthesises and lints clean
    testbench                 module `coderl_tb`: drives the device (`dut`) and reports its outputs with
                              `CHECK("label", expr);` (the prelude, `coderl.languages.verilog.PRELUDE`)
    latches                   whether the task allows a latch (a level-sensitive storage element)
    wrong                     variants that must lose a named reward component (tests and `coderl check`)

The expected checks are the reference's: the loader runs the same testbench on it once (Icarus
Verilog, outside the sandbox: the reference is the task's trusted code) and caches the (label, value)
pairs under `cache_root()/verilog`.  A request is one COMMAND run of three tests: `sim` (TAGGED: one
outcome per check, matched in order), and two analyses that never count for pass or fraction (REPORT):
`synthesis` (yosys; fails on a latch unless allowed) and `lint` (verilator -Wall).

What the toolchain compiles is the design re-emitted from its tokens
(`coderl.languages.verilog.checked`), never the completion as written; a design the lexer refuses or
that breaks a build-time rule is a build error before anything runs.  The nonce is drawn per request
and compiled into the testbench (`verilog.testbench_source`): the simulation's argv and environment do
not hold it, and its wrapper (`verilog.SIMULATE`) deletes `sim` and the sources before vvp, reading the
program from a FIFO, runs the design.  The reference's run here takes the same path.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import json
import os
import secrets
import subprocess
import tempfile
from typing import Any

from coderl.base.paths import cache_root
from coderl.languages import get_runner
from coderl.languages import verilog as V
from coderl.sandbox.types import CheckKind, ExecutionRequest, Limits, Mode, TestCase
from coderl.tasks.kinds import TaskKind, register_kind
from coderl.tasks.rows import BUNDLED, iter_jsonl, require
from coderl.tasks.types import Task, TaskFormatError

WRONG_COMPONENTS = ("compile", "functional", "synthesis", "quality")
_FIELDS = ("task_id", "description", "header", "top", "reference", "testbench")


def bundled_path() -> str:
    return os.path.join(BUNDLED, "verilog", "problems.jsonl")


def prompt_text(description: str, header: str) -> str:
    return f"{description.strip()}\n\nThe module header:\n\n```verilog\n{header.strip()}\n```\n"


@functools.lru_cache(maxsize=1)
def _tool_versions() -> str:
    """Icarus Verilog's version line, part of the cache key: one subprocess per process, not per task."""
    out = subprocess.run(["iverilog", "-V"], capture_output=True, text=True, timeout=30).stdout
    return out.splitlines()[0] if out else "?"


def simulate(testbench: str, design: str, timeout: float = 30.0) -> list[tuple[str, str]]:
    """(label, value) per check of `testbench` on `design`, run here (trusted code only: references)."""
    nonce = secrets.token_hex(8)
    with tempfile.TemporaryDirectory(prefix="coderl-verilog-") as tmp:
        with open(os.path.join(tmp, V.TESTBENCH_FILE), "w", encoding="utf-8") as f:
            f.write(V.testbench_source(testbench, nonce))
        with open(os.path.join(tmp, V.DESIGN_FILE), "w", encoding="utf-8") as f:
            f.write(design)
        build = subprocess.run(list(V.BUILD), cwd=tmp, capture_output=True, text=True, timeout=timeout)
        if build.returncode != 0:
            raise ValueError(f"does not compile: {(build.stderr or build.stdout).strip().splitlines()[:1]}")
        run = subprocess.run(list(V.SIMULATE), cwd=tmp, capture_output=True, text=True, timeout=timeout,
                             stdin=subprocess.DEVNULL)
        if run.returncode != 0:
            raise ValueError(f"simulation exited {run.returncode}: {run.stderr.strip()[:200]}")
    from coderl.sandbox.outputs import tagged_checks

    return tagged_checks(run.stdout, nonce)


def expected_checks(testbench: str, reference: str, where: str) -> list[tuple[str, str]]:
    """The reference's checks, cached by the hash of the prelude, testbench, reference and tool version."""
    key = hashlib.sha256("\0".join([V.testbench_source(testbench, "0"), *V.SIMULATE, reference,
                                    _tool_versions()]).encode()).hexdigest()
    path = cache_root() / "verilog" / f"{key[:32]}.json"
    if path.is_file():
        with open(path, encoding="utf-8") as f:
            return [tuple(pair) for pair in json.load(f)]
    try:
        checks = simulate(testbench, reference)
    except (ValueError, subprocess.TimeoutExpired) as exc:
        raise TaskFormatError(f"{where}: the reference with the testbench: {exc}") from None
    if not checks:
        raise TaskFormatError(f"{where}: the testbench printed no CHECK line with the reference")
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(f".{os.getpid()}.tmp")
    tmp.write_text(json.dumps(checks), encoding="utf-8")
    os.replace(tmp, path)
    return checks


def hdl_task(row: dict[str, Any], where: str) -> Task:
    values = {k: require(row, k, str, where) for k in _FIELDS}
    latches = row.get("latches", False)
    if not isinstance(latches, bool):
        raise TaskFormatError(f"{where}: field 'latches' is {latches!r} (expected true or false)")
    if f"module {values['top']}" not in values["reference"]:
        raise TaskFormatError(f"{where}: field 'reference' does not define module {values['top']!r} (field 'top')")
    if f"module {V.TESTBENCH_MODULE}" not in values["testbench"]:
        raise TaskFormatError(f"{where}: field 'testbench' does not define module {V.TESTBENCH_MODULE}")
    wrong = row.get("wrong", [])
    if not isinstance(wrong, list) or not all(isinstance(w, dict) and w.get("loses") in WRONG_COMPONENTS
                                              and isinstance(w.get("code"), str) for w in wrong):
        raise TaskFormatError(f"{where}: field 'wrong' must be a list of {{loses: {'|'.join(WRONG_COMPONENTS)}, "
                              f"code: ...}}")
    checks = expected_checks(values["testbench"], values["reference"], where)
    sim = TestCase(id="sim", source="", check=CheckKind.TAGGED, expected={"checks": [list(c) for c in checks]})
    return Task(
        task_id=values["task_id"], kind="hdl", language="verilog",
        prompt=prompt_text(values["description"], values["header"]), tests=(sim,), entry_point=values["top"],
        reference_solution=values["reference"], source=where,
        metadata={"format": "verilog", "top": values["top"], "header": values["header"],
                  "testbench": values["testbench"], "latches": latches, "category": row.get("category", ""),
                  "wrong": [dict(w) for w in wrong], "checks": len(checks)})


def load_verilog(path: str | os.PathLike[str] | None = None) -> list[Task]:
    """The problems of a Verilog problem file (default: the bundled set)."""
    get_runner("verilog").require()  # a one-line error when the toolchain is missing
    path = os.fspath(path) if path is not None else bundled_path()
    tasks = [hdl_task(row, f"{path}:{lineno}") for lineno, row in iter_jsonl(path)]
    if not tasks:
        raise TaskFormatError(f"{path}: no rows (the file is empty)")
    return tasks


def hdl_request(task: Task, completion: str, limits: Limits, tests: tuple) -> ExecutionRequest:
    """Build (testbench with a fresh nonce + the design re-emitted from its tokens), simulate,
    synthesise, lint."""
    runner = get_runner(task.language)
    runner.require()
    top, latches = task.metadata["top"], task.metadata["latches"]
    nonce = secrets.token_hex(8)
    design, rejected = V.checked(completion)
    sim = next(t for t in task.tests if t.check is CheckKind.TAGGED)
    sim = dataclasses.replace(sim, expected={"nonce": nonce, "checks": sim.expected["checks"]}, argv=V.SIMULATE)
    analyses = (TestCase(id="synthesis", source="", check=CheckKind.REPORT, argv=V.synthesis_argv(top, latches)),
                TestCase(id="lint", source="", check=CheckKind.REPORT, argv=V.lint_argv(top)))
    return ExecutionRequest(
        mode=Mode.COMMAND,
        files={V.TESTBENCH_FILE: V.testbench_source(task.metadata["testbench"], nonce), V.DESIGN_FILE: design},
        tests=(sim, *analyses), argv=V.SIMULATE, build_argv=V.BUILD, limits=runner.limits(limits),
        compile_error=V.COMPILE_ERROR, rejected=rejected or "")


HDL = register_kind(TaskKind(
    name="hdl", prompt_is_code=False,
    instruction="Implement the following {language} module. Reply with the complete module in one ```{tag} "
                "code block.",
    build_program=lambda task, completion: completion,
    build_request=hdl_request,
))
