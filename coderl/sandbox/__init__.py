"""The sandbox: run untrusted programs, return typed, unforgeable verdicts.

    from coderl.sandbox import Sandbox
    with Sandbox(workers=2) as sandbox:                 # isolation="auto": the strongest available
        result = sandbox.run(task.build_request(completion))
        result.status, result.tests, result.tamper

Design
------
A request is plain data (`ExecutionRequest`: the untrusted program, the task's trusted code and tests,
files, argv, limits); the result is an `ExecutionResult` with per-test outcomes.  Programs never run
in the caller's process: a dedicated single-threaded fork server (`server/`, a program of its own, standard
library only), started by exec with a minimal environment before the caller imports torch, has a zygote
(`server/zygote.py`) that forks every process and never holds any request's data.  A function task runs as two
processes: the program (`server/program/`) and a trusted judge (`server/judge/`) that runs the task's own code and
every test, reaching the program only through proxies over one socketpair (`server/common/`: `wire`, `values`).
This folder is the client: `Sandbox`, its config and types, the Ray backend, and the verdicts decided from the
server's raw facts (`judge.py`, `outputs.py`, `answers.py`).  Other languages exec `argv` (`Mode.COMMAND`).

Threat model
------------
Covered: what reinforcement learning stumbles on, what programs do by accident, and a program that
attacks the verdict from inside its own process.
  * Resource abuse: infinite loops (CPU-time limit, plus a wall-clock backstop that also catches
    sleeps and ignored signals), memory bombs (address-space limit; memory cgroup), output floods
    (captured excerpt, killed past a hard cap), fork bombs (RLIMIT_NPROC per slot uid, pids cgroup),
    huge files (RLIMIT_FSIZE), crashes (a signal is a result, never a hang of the batch).
  * Escapes (level `full`): no network, not even loopback; a PID namespace per program so no
    `setsid` daemon outlives it and the server cannot be signalled; own uid per worker slot; private
    /tmp, /var/tmp, /dev/shm, /run/lock and work dir made anew for every program; scrubbed environment (nothing of
    the caller's, not even via /proc/*/environ); private working directory.
  * Forged verdicts: no candidate code runs where tests are evaluated.  The judge process runs the
    task's code with its own builtins; whatever the program sends is rebuilt as the judge's own
    values (builtin subclasses as their base type, other objects as opaque handles whose `==` is
    identity), so rebinding builtins or helpers, editing frames, patching the harness, trace hooks,
    forged records, `dup2` over pipes, exits and always-equal objects change nothing but the
    program's own answers.  Only the judge holds the result pipe; the expected values of
    `candidate(args) == literal` tests never leave the client.  `ExecutionResult.tamper` names what
    was seen, so training can log a hack rate.
  * Copying: every process forks from the zygote, which has never held another request's data, so
    a program's memory holds no sibling's code.

Not covered: kernel exploits and side channels; at `uid`/`rlimits` the network and the file system
stay readable, and at `rlimits` the program runs as the caller's uid and can trace the judge (see
`server/contain/isolation.py` for what each level adds).  For hostile code from untrusted users, run coderl inside a
VM or container on top of this.
"""

from .client import Sandbox, SandboxFailed, SandboxUnavailable, usable_cpus
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
    "SandboxFailed",
    "SandboxUnavailable",
    "Status",
    "TestCase",
    "TestOutcome",
    "usable_cpus",
]
