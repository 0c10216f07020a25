"""Typed data of the sandbox: what a request asks for and what a run returns.

A request is plain data (program text, files, argv, per-test inputs, limits); a result is an
`ExecutionResult`, never a status string to parse.  Expected values live only in the parent:
`TestCase.expected` is never sent to the child process (see `coderl.sandbox.client`).
"""

from __future__ import annotations

import base64
import dataclasses
import enum
import re
from dataclasses import dataclass, field
from typing import Any


class Status(str, enum.Enum):
    """Outcome of one program (or one test).  Ordered roughly by how early the run went wrong."""

    PASSED = "passed"
    FAILED = "failed"  # ran to the end, some test failed (wrong answer / assertion)
    TIMEOUT = "timeout"  # CPU-time limit or wall-clock backstop hit
    SYNTAX_ERROR = "syntax_error"  # the program does not compile
    BUILD_ERROR = "build_error"  # COMMAND mode: the build step (`build_argv`) failed; no test ran
    RUNTIME_ERROR = "runtime_error"  # uncaught exception, non-zero exit, or killed by a signal
    MEMORY_EXCEEDED = "memory_exceeded"  # MemoryError under the address-space limit
    OUTPUT_EXCEEDED = "output_exceeded"  # wrote more than `Limits.output_kill_bytes`
    NOT_RUN = "not_run"  # a test that never started because the program ended first
    SANDBOX_ERROR = "sandbox_error"  # an infrastructure failure: the sandbox failed where the program provably
    # could not have caused it (coderl.sandbox.client); never a verdict on the program, and never scored as one


class CheckKind(str, enum.Enum):
    """How a test case is judged, and by whom.

    Parent-judged kinds (`EQUALS`, `TRUTHY`, `FALSY`, `IS`, `STDOUT`): the judge process only
    returns plain data (the expression's value as exact builtin types, or the program's stdout) and
    the parent compares it with `TestCase.expected`, which no sandbox process ever sees.  `ASSERT`:
    the judge process runs the statements, in its own interpreter, reaching the program only
    through proxies (see `coderl.sandbox.server.judge.tester`).
    """

    ASSERT = "assert"  # `source` is Python statements; pass = they raise nothing
    EQUALS = "equals"  # `source` is an expression; pass = value == expected
    TRUTHY = "truthy"  # pass = bool(value) is True
    FALSY = "falsy"  # pass = bool(value) is False
    IS = "is"  # pass = value is expected (expected in {True, False, None})
    STDOUT = "stdout"  # `source` is stdin; pass = exit 0 and stdout matches expected token-wise
    # COMMAND mode, a trusted harness in the program's process prints values; the parent compares:
    JSON = "json"  # `source` is stdin; pass = exit 0 and the last VALUE_MARKER line's JSON equals expected
    TAGGED = "tagged"  # `source` is stdin; expected = {"nonce", "checks": [[label, value], ...]}: one
    # outcome per expected check, from the stdout lines "<nonce> <label> <value>" in order (HDL testbenches)
    ANSWER = "answer"  # Mode.ANSWER: `expected` is the final answer (text) the reply must state; judged in
    # the parent (`coderl.sandbox.answers`), nothing runs
    # COMMAND mode, every RECORD test of a request in ONE run: the outcome is the record with the test's id that the
    # run wrote on its report channel (fd 5, never stdout); pass = the record's status equals `expected` (None:
    # "passed"); a test without a record has failed.  A trusted reporter inside the run writes them (repository tasks'
    # pytest reporter): code running in that process can forge them (docs/sandbox.md, "Not closed")
    RECORD = "record"
    REPORT = "report"  # an analysis (a synthesiser, a linter): not a test; its exit status and output
    # excerpts go to `ExecutionResult.reports[id]` for the rewards, and never count for pass or fraction


PARENT_JUDGED = frozenset({CheckKind.EQUALS, CheckKind.TRUTHY, CheckKind.FALSY, CheckKind.IS})
STDIN_CHECKS = frozenset({CheckKind.STDOUT, CheckKind.JSON, CheckKind.TAGGED, CheckKind.REPORT})  # source = stdin
# The checks each mode can judge; any other is a malformed task (refused at load, `misfit`), and fails
# wherever it still reaches a judge: never a pass for a check that was not judged.
MODE_CHECKS = {"python_tests": PARENT_JUDGED | {CheckKind.ASSERT}, "python_script": STDIN_CHECKS,
               "command": STDIN_CHECKS | {CheckKind.RECORD}, "answer": frozenset({CheckKind.ANSWER})}
VALUE_MARKER = "\x1ecoderl-value "  # JSON checks: the harness's line is this marker + the value's JSON


@dataclass(frozen=True)
class TestCase:
    """One test of a task.

    `setup` holds statements (from the original test code) that run, in order, in the shared test
    namespace right before this test; `source` is the assert statement, the expression whose value
    is checked, or the stdin text, depending on `check`.
    """

    __test__ = False  # not a pytest test class

    id: str
    source: str
    check: CheckKind = CheckKind.ASSERT
    expected: Any = None  # parent-side only
    setup: str = ""
    hidden: bool = False
    argv: tuple[str, ...] = ()  # COMMAND mode: this test's run command instead of the request's `argv`
    # Function tasks: CPU seconds the program's whole tree may spend on this test alone (EvalPlus's per-input limit,
    # `coderl.tasks.time_limits.per_input_limit`); over it the test is a TIMEOUT.  The run's `Limits.cpu_seconds`
    # still bounds the whole run (the backstop).  None: no limit of its own.
    time_limit: float | None = None


@dataclass(frozen=True)
class Limits:
    """Resource limits of one program run.  Every field is a documented, user-settable limit."""

    cpu_seconds: float = 3.0  # CPU time of the program (RLIMIT_CPU); the timeout verdict
    wall_seconds: float | None = None  # wall-clock backstop; None = 3 * cpu_seconds + 1
    memory_bytes: int = 2 * 1024**3  # address space (RLIMIT_AS), or data (RLIMIT_DATA) without address_space
    file_size_bytes: int = 16 * 1024**2  # largest file the program may write (RLIMIT_FSIZE)
    output_bytes: int = 64 * 1024  # captured per stream (stdout, stderr); the rest is counted, not kept
    output_kill_bytes: int = 64 * 1024**2  # a stream past this kills the program (output_exceeded)
    max_processes: int = 64  # processes/threads the program may run at once (pids cgroup or RLIMIT_NPROC)
    # CPU seconds of a function task's judge (the tests' own work, never the program's); None = `cpu_seconds`.  A
    # task's time limit lowers `cpu_seconds` only: its judge keeps the run's own limit (`Task.build_request`)
    judge_cpu_seconds: float | None = None
    # Bound memory by address space (RLIMIT_AS: a clean MemoryError in Python).  False for runtimes that
    # reserve far more address space than they use (Node.js dies at start under 512 MiB of RLIMIT_AS):
    # the slot's memory cgroup then bounds the program, with RLIMIT_DATA at `memory_bytes` as well.
    address_space: bool = True
    # The size of the program's writable work dir (and, at `full`, its private /tmp & co.) in bytes: None = the
    # memory limit, at most 256 MiB.  A repository's working copy and its test suite's files need more.
    disk_bytes: int | None = None

    @property
    def wall_deadline(self) -> float:
        return self.wall_seconds if self.wall_seconds is not None else 3.0 * self.cpu_seconds + 1.0

    def validate(self) -> Limits:
        """Every limit positive (and `address_space` a bool), else a ValueError naming it; returns self."""
        for f in dataclasses.fields(self):
            v = getattr(self, f.name)
            if f.name == "address_space":
                if not isinstance(v, bool):
                    raise ValueError(f"sandbox limit address_space={v!r}: expected true or false")
                continue
            if v is not None and (not isinstance(v, (int, float)) or v <= 0):
                raise ValueError(f"sandbox limit {f.name}={v!r}: expected a positive number")
        return self


class Mode(str, enum.Enum):
    PYTHON_TESTS = "python_tests"  # one process: run `program`, then each test in the test harness
    PYTHON_SCRIPT = "python_script"  # one process per test: `program` as __main__ with stdin = test.source
    COMMAND = "command"  # one process per test: exec `argv` in the work dir with stdin = test.source
    # (after `build_argv`, when given, ran once in a work dir of its own: what it wrote there is copied
    # into every test's work dir)
    ANSWER = "answer"  # no process: `program` is a reply (math), whose final answer the parent compares with
    # each test's expected answer (`coderl.sandbox.answers`); the reply is never executed


# CPython compiles a whole file before it runs any of it: a SyntaxError is the traceback's last line.
# (`[^\n]*\Z` backtracks one character at a time with an O(1) test each: linear in the program's stderr,
# which the program controls; `.*(?=\s*\Z)` rescanned trailing blanks at every step, quadratic.)
PYTHON_COMPILE_ERROR = r"^SyntaxError[^\n]*\Z"


def compile_error_line(pattern: str | None, stderr: str) -> str | None:
    """The line (stripped) where `pattern` first matches (`ExecutionRequest.compile_error`) in the stderr
    stripped of leading and trailing whitespace, or None.  The program writes that stderr: only its first
    and last 100 lines are searched, each cut at 256 characters (a runner's pattern backtracks in at most one
    repeat, `coderl.languages.user`: the search is bounded whatever was printed)."""
    lines = [line[:256] for line in stderr.strip().splitlines()]
    text = "\n".join(lines if len(lines) <= 200 else lines[:100] + lines[-100:])
    match = re.search(pattern, text, re.MULTILINE) if pattern else None
    if match is None:
        return None
    start = text.rfind("\n", 0, match.start()) + 1
    end = text.find("\n", match.start())
    return text[start: end if end >= 0 else len(text)].strip()


@dataclass(frozen=True)
class ExecutionRequest:
    """Everything needed to run one candidate program; plain data, JSON-serialisable.

    The request separates untrusted code (`program`, `argv`, `files`) from the task's trusted code
    (`trusted_code`, `test_preamble`, the tests), which only the judge process runs."""

    mode: Mode
    program: str = ""  # untrusted: the candidate's Python source (PYTHON_* modes), run in its own process
    entry_point: str | None = None  # PYTHON_TESTS: the program's name bound to `candidate` in the judge
    # Trusted (the task's): run only in the judge process, never where the program runs.
    trusted_code: str = ""  # PYTHON_TESTS: the task's own code (prompt helpers); its names win over the program's
    test_preamble: str = ""  # PYTHON_TESTS: module-level test code run once before the tests
    # PYTHON_TESTS: besides the entry point, the names the task says the program defines (its prompt's stubs,
    # the functions and classes its reference defines): with the entry point and names the tests only call,
    # the only names the tests take from the program (docs/sandbox.md, "Names")
    program_names: tuple[str, ...] = ()
    # PYTHON_TESTS: the entry point is a class the task asks for (two of its instances may be compared with
    # the program's own `==` and ordering; any other two program objects may not)
    entry_is_class: bool = False
    # PYTHON_TESTS: more classes the task asks for, among `program_names` (a test file's: the reference's classes it
    # takes from the solution): their instances too use the program's own operators, comparisons, hash and `with`
    task_classes: tuple[str, ...] = ()
    tests: tuple[TestCase, ...] = ()
    argv: tuple[str, ...] = ()  # COMMAND mode: the run command, once per test
    build_argv: tuple[str, ...] = ()  # COMMAND mode: a build command run once per program, before the tests
    # Written into the private work dir (COMMAND mode), after `tree`: relative path -> text (0644), or an entry of
    # `file_bytes`, `file_link`, `file_delete` (bytes with a mode, a symbolic link, a path removed)
    files: dict[str, Any] = field(default_factory=dict)
    # COMMAND mode: a host directory copied into the work dir before `files` (regular files with their bytes and
    # modes, directories, symbolic links as links, never followed; other special files left out), by the server
    tree: str = ""
    # COMMAND mode, isolation `full` only: a host directory bound read-only at /env in the program's view (a
    # repository's environment: its test runner and dependencies, built once and shared)
    environment: str = ""
    # COMMAND mode, isolation `full` only: the id of an episode whose working copy is this request's work dir.  The
    # first request of an id makes it (from `tree` and `files`); later ones find it as the last left it (their
    # `files` written over it), until `Sandbox.close_episode` -- the one state that outlives a request
    # (docs/sandbox.md, "Episodes")
    episode: str = ""
    limits: Limits = field(default_factory=Limits)
    float_tolerance: float | None = None  # STDOUT checks: numeric tokens equal within abs/rel tol
    # STDOUT and EQUALS checks: the comparison rule (`coderl.sandbox.rules.RULES`: a dataset's own grader's);
    # "": coderl's own (tokens, `==`).  Judged in the parent only: never sent to the sandbox server
    compare: str = ""
    # How the judge reads a failed run's stderr: a regex whose first match (re.MULTILINE, in the stripped
    # stderr; the program writes that text, so the pattern must not backtrack badly) marks the line that
    # is a compile error (a syntax error, not a runtime error); None: no line is.  The language's, handed
    # over by the task (`coderl.languages`: the sandbox knows only Python, its default).
    compile_error: str | None = PYTHON_COMPILE_ERROR
    rejected: str = ""  # COMMAND mode: why the task's build-time rules refuse the program (a build
    # error; nothing runs)
    # ANSWER mode: the words a final answer may carry besides units (the noun a generated problem counts,
    # from the task's metadata; never a word taken from its question)
    answer_words: tuple[str, ...] = ()


def file_bytes(data: bytes, mode: int = 0o644) -> dict:
    """A `files` entry: these bytes, with this mode (the permission bits, at most 0o755)."""
    return {"data": base64.b64encode(data).decode("ascii"), "mode": int(mode) & 0o755}


def file_link(target: str) -> dict:
    """A `files` entry: a symbolic link to `target` (never followed by the sandbox)."""
    return {"link": str(target)}


def file_delete() -> dict:
    """A `files` entry: the path (a file, a link or a whole directory) removed."""
    return {"delete": True}


def misfit(request: ExecutionRequest) -> tuple[int, TestCase] | None:
    """The first test (index, test) whose check the request's mode cannot judge (`MODE_CHECKS`), or None."""
    fits = MODE_CHECKS[request.mode.value]
    return next(((i, t) for i, t in enumerate(request.tests) if t.check not in fits), None)


@dataclass(frozen=True)
class TestOutcome:
    __test__ = False  # not a pytest test class
    id: str
    status: Status
    hidden: bool = False
    message: str = ""  # short reason: assertion text, exception line, diff excerpt
    cpu_seconds: float | None = None  # per-process modes only
    # function tasks: the program tree's CPU within this test alone (the server's stamps on the judge's records)
    call_cpu_seconds: float | None = None

    @property
    def passed(self) -> bool:
        return self.status is Status.PASSED


# Tamper notes in two classes (docs/sandbox.md, "tamper").  Judge-observed notes are made by the judge
# (its process, or the parent reading its records) from what crossed the channel or how the program
# ended: a program cannot suppress them, and honest code does not earn them (every bundled reference
# solution is checked), so they gate the reward (`--tamper-cap`) and pass@1 without tamper.
JUDGE_OBSERVED = ("exit_called", "early_exit", "forged_pass", "unexpected_value_record", "bad_record")
JUDGE_OBSERVED_PREFIXES = ("protocol:", "non_builtin_return:", "program_comparison:")
# Program-side courtesy notes: what the runtime inside the program saw it do to its own interpreter
# (`patched_builtins`, `patched_sys_modules`, `patched_module:<name>`, `patched_import_system`,
# `patched_runtime`, `trace_hook`, `subclass_equality:<type>`; `checks.PROGRAM_NOTES`: the judge takes no other
# name from the program).  The program can suppress them and honest code can trigger them (a library adding an
# import finder): logged for the hack-rate signal, never gating.


def is_judge_observed(note: str) -> bool:
    """Whether a tamper note is one the judge made itself (gating), not a program-side courtesy report."""
    return note in JUDGE_OBSERVED or note.startswith(JUDGE_OBSERVED_PREFIXES)


@dataclass
class ExecutionResult:
    status: Status
    tests: list[TestOutcome] = field(default_factory=list)
    cpu_seconds: float = 0.0  # summed over the processes of this request
    wall_seconds: float = 0.0
    max_rss_bytes: int = 0
    exit_code: int | None = None
    signal: int | None = None
    stdout: str = ""  # capped excerpt
    stderr: str = ""  # capped excerpt
    stdout_truncated: bool = False
    stderr_truncated: bool = False
    tamper: list[str] = field(default_factory=list)  # what the harness caught the program doing
    reports: dict[str, dict] = field(default_factory=dict)  # REPORT analyses by test id (`sandbox.outputs.report`)
    message: str = ""  # one line: why it did not pass
    isolation: str = ""

    @property
    def passed(self) -> bool:
        return self.status is Status.PASSED

    @property
    def caught(self) -> list[str]:
        """The judge-observed tamper notes (`is_judge_observed`): what gates rewards and pass@1 without tamper."""
        return [note for note in self.tamper if is_judge_observed(note)]

    @property
    def fraction_passed(self) -> float:
        return sum(t.passed for t in self.tests) / len(self.tests) if self.tests else float(self.passed)

    def to_dict(self) -> dict[str, Any]:
        """The result as JSON-ready data (statuses as strings), as `coderl check --out` writes it."""
        return {
            "passed": self.passed,
            "status": self.status.value,
            "fraction_passed": self.fraction_passed,
            "tests": [
                {"id": t.id, "status": t.status.value, "hidden": t.hidden, "message": t.message}
                for t in self.tests
            ],
            "cpu_seconds": round(self.cpu_seconds, 4),
            "wall_seconds": round(self.wall_seconds, 4),
            "max_rss_bytes": self.max_rss_bytes,
            "exit_code": self.exit_code,
            "signal": self.signal,
            "stdout": self.stdout,
            "stderr": self.stderr,
            "stdout_truncated": self.stdout_truncated,
            "stderr_truncated": self.stderr_truncated,
            "tamper": list(self.tamper),
            **({"reports": {k: dict(v) for k, v in self.reports.items()}} if self.reports else {}),
            "message": self.message,
            "isolation": self.isolation,
        }
