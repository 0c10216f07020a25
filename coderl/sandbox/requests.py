"""What a request becomes before the fork server sees it: the wire form (everything but the expected values), the
requests settled in the caller without the server (refused at build time, math replies), and the requests this
sandbox refuses in one line (a tree, environment or episode it cannot honour)."""

from __future__ import annotations

import os
from concurrent.futures import Future

from .answers import judge_answer
from .types import PARENT_JUDGED, CheckKind, ExecutionRequest, ExecutionResult, Mode, Status, TestOutcome


class SandboxUnavailable(ValueError):
    """The requested isolation level (or the sandbox itself) cannot run here, or a request asks what it cannot
    honour; one-line reason."""


def rejected_result(request: ExecutionRequest) -> ExecutionResult:
    """The verdict of a request its task refused before the build: a build error naming the rule."""
    return ExecutionResult(
        status=Status.BUILD_ERROR, message=f"build failed: rejected: {request.rejected}"[:300],
        tests=[TestOutcome(t.id, Status.NOT_RUN, t.hidden, "the build failed")
               for t in request.tests if t.check is not CheckKind.REPORT])


def settled_here(request: ExecutionRequest) -> Future | None:
    """A finished future for a request that runs nothing (refused at build time by the task's rules, or a
    math reply judged in the caller); None for a program to run.  Every backend settles these alike."""
    if not request.rejected and request.mode is not Mode.ANSWER:
        return None
    future: Future = Future()
    future.set_result(rejected_result(request) if request.rejected else judge_answer(request))
    return future


def to_wire(request: ExecutionRequest, rid: int) -> dict:
    """What the server receives: everything but the expected values."""
    lim = request.limits
    capture = lim.output_bytes
    for t in request.tests:  # STDOUT checks need the whole expected output captured
        if t.check in (CheckKind.STDOUT, CheckKind.JSON, CheckKind.TAGGED):
            capture = max(capture, 2 * len(str(t.expected).encode()) + 4096)
    tests = []
    for t in request.tests:
        kind = ("truth" if t.check in (CheckKind.TRUTHY, CheckKind.FALSY) else "value" if t.check in PARENT_JUDGED
                else "assert" if t.check is CheckKind.ASSERT else "record" if t.check is CheckKind.RECORD
                else "stdin")  # "stdin": never run as code
        tests.append({"id": t.id, "setup": t.setup, "source": t.source, "kind": kind, "argv": list(t.argv),
                      **({"time_limit": float(t.time_limit)} if t.time_limit is not None else {})})
    return {
        "op": "run",
        "id": rid,
        "mode": request.mode.value,
        "program": request.program,
        # the task's side of a function task, for its judge process only
        "judge": {"trusted": request.trusted_code, "preamble": request.test_preamble,
                  "entry_point": request.entry_point, "program_names": list(request.program_names),
                  "entry_is_class": request.entry_is_class, "task_classes": list(request.task_classes)},
        "tests": tests,
        "argv": list(request.argv),
        "build_argv": list(request.build_argv),
        "files": dict(request.files),
        **({"tree": os.path.realpath(request.tree)} if request.tree else {}),
        **({"environment": os.path.realpath(request.environment)} if request.environment else {}),
        **({"episode": request.episode} if request.episode else {}),
        "limits": {
            "cpu_seconds": lim.cpu_seconds,
            "judge_cpu_seconds": lim.judge_cpu_seconds or lim.cpu_seconds,
            "wall_seconds": lim.wall_deadline,
            "memory_bytes": int(lim.memory_bytes),
            "file_size_bytes": int(lim.file_size_bytes),
            "output_bytes": int(min(capture, lim.output_kill_bytes)),
            "output_kill_bytes": int(lim.output_kill_bytes),
            "max_processes": int(lim.max_processes),
            "address_space": bool(lim.address_space),
            **({"disk_bytes": int(lim.disk_bytes)} if lim.disk_bytes else {}),
        },
    }



def refuse_layout(request: ExecutionRequest, isolation: str) -> None:
    """Refuse, in one line, a request whose tree, environment or episode this sandbox cannot honour."""
    if not (request.tree or request.environment or request.episode):
        return
    if request.mode is not Mode.COMMAND or request.build_argv:
        raise SandboxUnavailable("a request's tree, environment or episode: expected a COMMAND request without "
                                 "a build step")
    for name in ("tree", "environment"):
        path = getattr(request, name)
        if path and not os.path.isdir(path):
            raise SandboxUnavailable(f"request {name} {path!r}: expected an existing directory")
    if (request.environment or request.episode) and isolation != "full":
        raise SandboxUnavailable(
            f"a request's environment or episode needs sandbox isolation 'full' (this one is '{isolation}'): "
            "the environment is bound at /env and the episode's working copy is kept on the server's own file "
            "system only there")

