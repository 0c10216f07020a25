"""Driver programs run in coderl's sandbox, and what each printed after a marker: the scripts that run other projects'
code (the upstream graders, EvalPlus's own generator) run it only there, never on this machine's bare interpreter.

    results = run_marked(sandbox, programs, MARK, Limits(...))   # [(found, value, error)] per program
"""

from __future__ import annotations

import json


def run_marked(sandbox, programs: list[str], mark: str, limits) -> list[tuple[bool, object, str]]:
    """Per program (one Python script each, run as one request of `limits`): whether a stdout line began with
    `mark`, the JSON value after it on the last such line (None when there is none), and the tail of its stderr or
    the sandbox's message when there is none ('' otherwise)."""
    from coderl.sandbox.types import CheckKind, ExecutionRequest, Mode, TestCase

    requests = [ExecutionRequest(mode=Mode.PYTHON_SCRIPT, program=p, tests=(TestCase("0", "", CheckKind.STDOUT, ""),),
                                 limits=limits) for p in programs]
    out = []
    for result in sandbox.run_many(requests):
        found = [ln[len(mark):] for ln in result.stdout.split("\n") if ln.startswith(mark)]
        out.append((True, json.loads(found[-1]), "") if found else
                   (False, None, (result.stderr or result.message)[-600:]))
    return out
