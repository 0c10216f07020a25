"""The sandbox: run untrusted programs, return typed, unforgeable verdicts.

    from coderl.sandbox import Sandbox
    with Sandbox(workers=2) as sandbox:                 # isolation="auto": the strongest available
        result = sandbox.run(task.build_request(completion))
        result.status, result.tests, result.tamper

Design
------
A request is plain data (`ExecutionRequest`: program, tests, files, argv, limits); the result is an
`ExecutionResult` with per-test outcomes.  Programs never run in the caller's process: a dedicated
single-threaded fork server (`server.py`), started by exec with a minimal environment before the
caller imports torch, forks a fresh child per program.  Python programs take a fast path (the child
is a warm interpreter that runs the harness); other languages exec `argv` (`Mode.COMMAND`).

Threat model
------------
Covered: what reinforcement learning stumbles on and what programs do by accident.
  * Resource abuse: infinite loops (CPU-time limit, plus a wall-clock backstop that also catches
    sleeps and ignored signals), memory bombs (address-space limit; memory cgroup), output floods
    (captured excerpt, killed past a hard cap), fork bombs (RLIMIT_NPROC per slot uid, pids cgroup),
    huge files (RLIMIT_FSIZE), crashes (a signal is a result, never a hang of the batch).
  * Escapes (level `full`): no network, not even loopback; a PID namespace per program so no
    `setsid` daemon outlives it and the server cannot be signalled; own uid per worker slot; private
    /tmp, /var/tmp, /dev/shm, /run/lock wiped after every program; scrubbed environment (nothing of
    the caller's, not even via /proc/*/environ); private working directory.
  * Forged verdicts: for `candidate(args) == literal` tests (and `is`/truthiness forms) the child
    returns only the output, as exact builtin types, and the parent compares it with an expected
    value the child never receives; objects with a lying `__eq__` (int subclasses too) are rejected.
    Other asserts run in the child after builtins, `sys.modules` and the modules the test touches are
    restored from a snapshot taken before the candidate ran (and again after every candidate call).
    A pass needs the harness's end record, stamped with a per-run nonce, on a pipe opened before the
    candidate started: exiting early, `atexit`/`excepthook` tricks, fake markers on stdout, rewritten
    stdout and records written to the pipe without the nonce all fail.  `ExecutionResult.tamper`
    names what was caught, so training can log a hack rate.

Not covered: a targeted attacker.  Kernel exploits; reading the harness's memory to find the nonce
(e.g. via `gc`) and forging records for child-judged asserts; side channels; `uid`/`rlimits` levels
leave the network and the file system readable (see `isolation.py` for what each level adds).  For
hostile code from untrusted users, run coderl inside a VM or container on top of this.
"""

from .client import Sandbox, SandboxUnavailable, usable_cpus
from .types import (
    CheckKind,
    ExecutionRequest,
    ExecutionResult,
    Limits,
    Mode,
    Status,
    TestCase,
    TestOutcome,
)

__all__ = [
    "CheckKind",
    "ExecutionRequest",
    "ExecutionResult",
    "Limits",
    "Mode",
    "Sandbox",
    "SandboxUnavailable",
    "Status",
    "TestCase",
    "TestOutcome",
    "usable_cpus",
]
