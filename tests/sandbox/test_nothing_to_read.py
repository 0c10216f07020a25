"""Nothing to read: a program's process holds no expected value, nothing derived from one, and no other test's
data, for every kind of task that runs a process.  The program searches everything it can read — its memory
(`/proc/self/mem`), the interpreter's objects and frames, its environment, the files it can list, its other
fds — for secrets the test planted in the expected outputs, in a test's source and in another test's input,
and for the capture size the server derives from an expected output's length (the server keeps it)."""

import hashlib
import os
import secrets
import sys

import pytest

from coderl.sandbox.types import CheckKind, ExecutionRequest, Limits, Mode, TestCase

from .helpers import sandbox_at

PREFIX = "coderl-secret-"
FILLER = "x" * 40_000  # an expected output this long makes the server capture more than the default 64 KiB

# The program knows each secret only by its hash, so its own text and objects never hold one.
SEARCH = r'''
import ctypes, gc, hashlib, os, re, sys
ctypes.CDLL(None).prctl(4, 1, 0, 0, 0)  # PR_SET_DUMPABLE: its own /proc/self/mem is its uid's again
P = bytes.fromhex("%(prefix)s")
HASHES = %(hashes)r
found, sizes = set(), set()
SIZE = re.compile(rb'"output_bytes": ?(\d+)')
def scan(data):
    i = data.find(P)
    while i >= 0:
        if hashlib.sha256(data[i:i + len(P) + 16]).hexdigest() in HASHES:
            found.add(hashlib.sha256(data[i:i + len(P) + 16]).hexdigest()[:8])
        i = data.find(P, i + 1)
    sizes.update(int(m.group(1)) for m in SIZE.finditer(data))
def look(value):
    if isinstance(value, dict):
        if "output_bytes" in value:
            sizes.add(value["output_bytes"])
        for v in list(value.values()):
            if isinstance(v, dict) and "output_bytes" in v:
                sizes.add(v["output_bytes"])
    elif isinstance(value, (str, bytes)):
        scan(value.encode("utf-8", "replace") if isinstance(value, str) else value)
for obj in gc.get_objects():
    look(obj)
frame = sys._getframe()
while frame is not None:
    look(frame.f_locals)
    for v in list(frame.f_locals.values()):
        look(v)
    frame = frame.f_back
scan(repr(dict(os.environ)).encode())
mem = open("/proc/self/mem", "rb", 0)
for line in open("/proc/self/maps").read().splitlines():
    span, perms = line.split()[:2]
    if "r" not in perms or line.endswith(("[vvar]", "[vsyscall]", "[vvar_vclock]")):
        continue
    start, end = (int(x, 16) for x in span.split("-"))
    try:
        mem.seek(start)
        scan(mem.read(end - start))
    except (OSError, OverflowError, ValueError):
        pass
for fd in os.listdir("/proc/self/fd"):
    try:
        if int(fd) > 2 and os.path.isfile("/proc/self/fd/" + fd):
            scan(os.pread(int(fd), 1 << 24, 0))
    except OSError:
        pass
for top in (os.getcwd(), "/tmp") if os.getcwd() == "/sandbox" else (os.getcwd(),):  # the host's /tmp: not its own
    for root, _, names in os.walk(top):
        for name in names:
            try:
                scan(open(os.path.join(root, name), "rb").read(1 << 24))
            except OSError:
                pass
print("FOUND", sorted(found), sorted(sizes))
'''


# The search reads the whole address space: seconds of CPU, more on a loaded machine (it is about what can be
# read, not how fast)
ROOMY = Limits(cpu_seconds=30, wall_seconds=300)


def _secret():
    return PREFIX + secrets.token_hex(8)


def _program(tokens):
    hashes = {hashlib.sha256(t.encode()).hexdigest() for t in tokens}
    return SEARCH % {"prefix": PREFIX.encode().hex(), "hashes": hashes}


@pytest.fixture(scope="module", params=["full", "uid", "rlimits"])
def sandbox(request):
    with sandbox_at(request.param) as sb:
        yield sb


def _clean(result, where):
    lines = [line for line in result.stdout.splitlines() if line.startswith("FOUND")]
    assert lines, (where, result.status, result.stderr[-800:])
    assert all(line == "FOUND [] []" for line in lines), (where, lines)


def test_a_stdin_program_finds_no_expected_output_and_no_other_input(sandbox):
    expected, other_input = _secret(), _secret()
    request = ExecutionRequest(Mode.PYTHON_SCRIPT, program=_program([expected, other_input]), limits=ROOMY,
                               tests=(TestCase("0", "", CheckKind.STDOUT, expected + FILLER),
                                      TestCase("1", other_input, CheckKind.STDOUT, expected + FILLER)))
    result = sandbox.run(request)
    _clean(result, "python_script")


def test_a_command_finds_no_expected_output(sandbox):
    expected = _secret()
    python = sys.executable if sandbox.isolation == "full" else "/usr/bin/python3"  # one the slot uid may run
    if not os.access(python, os.X_OK):
        pytest.skip(f"no {python} here")
    request = ExecutionRequest(Mode.COMMAND, files={"main.py": _program([expected])}, argv=(python, "main.py"),
                               tests=(TestCase("0", "", CheckKind.STDOUT, expected + FILLER),), limits=ROOMY)
    _clean(sandbox.run(request), "command")


def test_a_function_program_finds_no_test_source_or_expected_value(sandbox):
    in_source, expected = _secret(), _secret()
    program = _program([in_source, expected]) + "\ndef f(x):\n    return x\n"
    request = ExecutionRequest(Mode.PYTHON_TESTS, program=program, entry_point="f", limits=ROOMY,
                               tests=(TestCase("0", f"assert candidate(1) == {in_source!r}", CheckKind.ASSERT),
                                      TestCase("1", "candidate(2)", CheckKind.EQUALS, expected)))
    _clean(sandbox.run(request), "python_tests")
