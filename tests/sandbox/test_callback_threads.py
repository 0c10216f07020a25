"""Callbacks a program calls from several threads each get their own reply (`wire.Channel.request`: one request at
a time).  Found by an attack (2026-11-27): `ThreadPoolExecutor(4).map(fn, xs)` over the test's lambda returned
the results crossed, and with 8 threads the program died; the plain interpreter passes each case."""

import subprocess
import sys

import pytest

from coderl.sandbox.client import Sandbox
from coderl.sandbox.types import CheckKind, ExecutionRequest, Limits, Mode, Status, TestCase

PROGRAM = ("def f(fn, xs, workers):\n"
           "    from concurrent.futures import ThreadPoolExecutor\n"
           "    with ThreadPoolExecutor(workers) as ex:\n"
           "        return list(ex.map(fn, xs))\n")


@pytest.mark.parametrize("workers", [2, 4, 8])
def test_callbacks_from_several_threads_get_their_own_replies(workers):
    xs = list(range(40))
    call = f"candidate(lambda x: [x] * (x % 7 + 1), {xs!r}, {workers})"
    expected = [[x] * (x % 7 + 1) for x in xs]
    plain = subprocess.run([sys.executable, "-s", "-c", PROGRAM.replace("def f", "def candidate") +
                            f"\nassert {call} == {expected!r}\n"], capture_output=True, timeout=60)
    assert plain.returncode == 0, plain.stderr.decode()
    request = ExecutionRequest(Mode.PYTHON_TESTS, program=PROGRAM, entry_point="f", limits=Limits(),
                               tests=(TestCase("0", call, CheckKind.EQUALS, expected),))
    with Sandbox(workers=1) as sb:
        result = sb.run(request)
    assert result.status == Status.PASSED and result.tamper == [], (result.status, result.message[:300])
