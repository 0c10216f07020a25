"""Runners: how a language's program runs in the sandbox, as data.

    Runner(language, source_file, run, build=(), judge="stdout", binaries=(), harness="", ...)

A runner names the file the program is written to, an optional build command (run once per program,
in its own work dir; what it writes is copied into every test's), the run command (once per test,
the test's input on stdin) and how tests are judged, always outside the program:

    stdout    the program's stdout against the expected output, token-wise (stdin/stdout tasks)
    values    as stdout for stdin/stdout tasks; for function tasks a trusted harness, appended to the
              program, reads the test's JSON arguments on stdin, calls the entry point and prints
              the return value (`VALUE_MARKER` + JSON); the parent compares it with the expected value
    hardware  a testbench prints the device's outputs per check, tagged with a nonce the design
              cannot read; the parent compares them with the reference's (Verilog: `coderl.tasks.hdl`)

Runners of built-in languages register themselves (`javascript.py`, `verilog.py`); a user's come from
a YAML file (`coderl.languages.user`).  Every binary a runner needs is checked before the first
request: a missing one is a one-line error naming it.  Runners bound memory with the slot's cgroup
(and RLIMIT_DATA), not the address space, unless they say otherwise (`address_space: true`).
"""

from __future__ import annotations

import dataclasses
import os
import shutil
from dataclasses import dataclass

from coderl.base.config import ConfigError
from coderl.base.registry import register_once
from coderl.languages.language import LANGUAGES
from coderl.sandbox.types import CheckKind, ExecutionRequest, Limits, Mode, TestCase

JUDGES = ("stdout", "values", "hardware")


class RunnerMissing(ConfigError):
    """A runner's binary is not installed; the message is one line naming it."""


@dataclass(frozen=True)
class Runner:
    language: str  # the `Language` it runs (coderl.languages.LANGUAGES)
    source_file: str  # the program's file name in the work dir: "main.js"
    run: tuple[str, ...]  # argv of each test ("{source}" is replaced by source_file)
    build: tuple[str, ...] = ()  # argv of the build, once per program (empty: none)
    judge: str = "stdout"  # one of JUDGES: what the runner can judge (values: function tasks too)
    binaries: tuple[str, ...] = ()  # executables that must be on PATH
    harness: str = ""  # judge "values": code appended to the program; "{entry_point}" is replaced
    install: str = ""  # how to get the binaries, for the missing-binary error
    address_space: bool = False  # bound memory by RLIMIT_AS (Python-like runtimes) instead of cgroup + data
    cpu_seconds: float | None = None  # a per-test CPU limit of its own (toolchains slower than Python)
    paths: tuple[str, ...] = ()  # toolchain directories outside /usr, /bin, /lib* that programs must see

    def __post_init__(self):
        if self.judge not in JUDGES:
            raise ValueError(f"runner {self.language}: judge {self.judge!r}: expected one of {', '.join(JUDGES)}")
        if not self.run:
            raise ValueError(f"runner {self.language}: run: expected a command (a list of strings)")

    def argv(self, command: tuple[str, ...]) -> tuple[str, ...]:
        return tuple(part.replace("{source}", self.source_file) for part in command)

    def limits(self, limits: Limits) -> Limits:
        changes = {"address_space": self.address_space}
        if self.cpu_seconds is not None:
            changes["cpu_seconds"] = self.cpu_seconds
        return dataclasses.replace(limits, **changes)

    def require(self) -> None:
        """RunnerMissing (one line) when a binary is not on PATH (found ones are remembered per PATH: this
        runs before every request)."""
        for binary in self.binaries:
            if not _which(binary, os.environ.get("PATH", "")):
                hint = f"; install it: {self.install}" if self.install else ""
                raise RunnerMissing(f"language {self.language}: binary {binary!r} not found on PATH{hint}")

    def request(self, program: str, tests: tuple[TestCase, ...], limits: Limits, *,
                entry_point: str | None = None, float_tolerance: float | None = None) -> ExecutionRequest:
        """The sandbox request that runs `program` on `tests` (COMMAND mode)."""
        self.require()
        if any(t.check is CheckKind.JSON for t in tests):  # a function task: the harness prints its values
            if self.judge != "values" or not self.harness:
                raise ValueError(f"runner {self.language}: function tasks need judge 'values' and a harness "
                                 f"(this runner has judge {self.judge!r})")
            if not entry_point:
                raise ValueError(f"runner {self.language}: judge 'values' needs the task's entry point")
            program = program.rstrip("\n") + "\n" + self.harness.replace("{entry_point}", entry_point)
        return ExecutionRequest(
            mode=Mode.COMMAND, files={self.source_file: program}, tests=tests,
            argv=self.argv(self.run), build_argv=self.argv(self.build), limits=self.limits(limits),
            float_tolerance=float_tolerance, compile_error=LANGUAGES[self.language].compile_error)


_FOUND: set[tuple[str, str]] = set()  # (binary, PATH) pairs shutil.which found


def _which(binary: str, path: str) -> bool:
    """`shutil.which` found `binary` on `path`; a find is remembered, a miss is asked again next time
    (a binary installed later is seen)."""
    if (binary, path) not in _FOUND and shutil.which(binary, path=path):
        _FOUND.add((binary, path))
    return (binary, path) in _FOUND


RUNNERS: dict[str, Runner] = {}


def register_runner(runner: Runner) -> Runner:
    return register_once(RUNNERS, runner.language, runner, "the runner of language")
