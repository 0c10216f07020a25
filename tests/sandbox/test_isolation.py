"""Adversarial tests of the isolation levels: one hostile program per property.

Every bomb is bounded by the limit under test *and* by a small count or a short loop, so a broken
sandbox cannot take the machine down.  Properties that only a level provides are tested at that level.
"""

import os
import subprocess
import time

import pytest

from coderl.sandbox.client import Sandbox, SandboxUnavailable
from coderl.sandbox.types import Status

from .helpers import ADD, OWN_ENTRIES, make_script_request, make_tests_request

CAN_ROOT = os.geteuid() == 0


def _available(level):
    try:
        with Sandbox(workers=1, isolation=level) as sb:
            return sb.isolation == level
    except SandboxUnavailable:
        return False


LEVELS = [lvl for lvl in ("rlimits", "uid", "full") if _available(lvl)]


@pytest.fixture(scope="module", params=LEVELS)
def any_level(request):
    with Sandbox(workers=2, isolation=request.param) as sb:
        yield sb


@pytest.fixture(scope="module")
def full():
    if "full" not in LEVELS:
        pytest.skip("isolation 'full' is not available on this machine")
    with Sandbox(workers=2, isolation="full") as sb:
        yield sb


@pytest.fixture(scope="module")
def uid_level():
    if "uid" not in LEVELS:
        pytest.skip("isolation 'uid' is not available on this machine")
    with Sandbox(workers=2, isolation="uid") as sb:
        yield sb


def test_each_level_runs_a_correct_program(any_level):
    r = any_level.run(make_tests_request(ADD))
    assert r.passed and r.isolation == any_level.isolation


def test_auto_picks_the_strongest_level():
    with Sandbox(workers=1, isolation="auto") as sb:
        assert sb.isolation == LEVELS[-1]
        assert (sb.warning is None) == (sb.isolation == "full")


def test_unknown_level_is_rejected():
    with pytest.raises(ValueError, match="expected one of"):
        Sandbox(workers=1, isolation="chroot")


@pytest.mark.skipif(CAN_ROOT, reason="as root every level is available")
def test_forcing_an_unavailable_level_fails_with_one_line():
    with pytest.raises(SandboxUnavailable, match="not available"):
        Sandbox(workers=1, isolation="full")


def test_stdin_read_by_a_correct_program_still_passes(any_level):
    prog = "import sys\n_ = sys.stdin.read()\n" + ADD
    assert any_level.run(make_tests_request(prog)).passed


def test_env_secret_is_not_visible(any_level, monkeypatch):
    # The caller's environment never reaches a program: not in os.environ, not in /proc/*/environ.
    assert "CODERL_TEST_SECRET" not in os.environ
    prog = ("import os\n"
            "def add(a, b):\n"
            "    seen = [k for k in os.environ if 'SECRET' in k]\n"
            "    for pid in [os.getppid(), 1, os.getpid()]:\n"
            "        try:\n"
            "            seen += ['x' for s in open(f'/proc/{pid}/environ', 'rb').read().split(b'\\0') if b'SECRET' in s]\n"
            "        except OSError:\n"
            "            pass\n"
            "    return a + b + len(seen)\n")
    os.environ["CODERL_TEST_SECRET"] = "hunter2"
    try:
        with Sandbox(workers=1, isolation=any_level.isolation) as fresh:
            r = fresh.run(make_tests_request(prog))
    finally:
        del os.environ["CODERL_TEST_SECRET"]
    assert r.passed, r.message


def test_memory_bomb(any_level):
    prog = "def add(a, b):\n    x = []\n    for _ in range(64):\n        x.append(bytearray(64 * 1024 * 1024))\n    return a + b\n"
    r = any_level.run(make_tests_request(prog, memory_bytes=512 * 1024**2))
    assert r.status is Status.MEMORY_EXCEEDED


def test_output_flood_of_2gb_is_cut(any_level):
    prog = ("import os\nchunk = b'x' * (1 << 20)\n"
            "def add(a, b):\n    for _ in range(2048):\n        os.write(1, chunk)\n    return a + b\n")
    start = time.monotonic()
    r = any_level.run(make_tests_request(prog, output_kill_bytes=8 * 1024**2, cpu_seconds=5))
    assert r.status is Status.OUTPUT_EXCEEDED
    assert time.monotonic() - start < 10


def test_segfault(any_level):
    r = any_level.run(make_tests_request("import ctypes\nctypes.string_at(0)\n" + ADD))
    assert r.status is Status.RUNTIME_ERROR and "SIGSEGV" in r.message


def test_infinite_loop_with_ignored_sigalrm(any_level):
    prog = ("import signal\nsignal.signal(signal.SIGALRM, signal.SIG_IGN)\nsignal.alarm(1)\n"
            "def add(a, b):\n    while True:\n        pass\n")
    r = any_level.run(make_tests_request(prog, cpu_seconds=1))
    assert r.status is Status.TIMEOUT


def test_fork_bomb_is_contained(uid_level):
    # Bounded: each process forks at most 200 times, and the whole thing is under a 2 s CPU limit.
    name = f"bmb{os.getpid() % 10**6}u"
    prog = (_NAMED.format(name=name.encode()) +
            "def add(a, b):\n"
            "    n = 0\n"
            "    for _ in range(200):\n"
            "        try:\n"
            "            if os.fork() == 0:\n"
            "                continue\n"
            "            n += 1\n"
            "        except OSError:\n"
            "            break\n"
            "    return -1\n")
    r = uid_level.run(make_tests_request(prog, cpu_seconds=2, max_processes=16))
    assert not r.passed
    # The sibling slot is not starved: a correct program still runs at once.
    assert uid_level.run(make_tests_request(ADD)).passed
    assert _named_left(name) == []


def test_fork_bomb_in_full_isolation(full):
    name = f"bmb{os.getpid() % 10**6}f"
    prog = (_NAMED.format(name=name.encode()) +
            "def add(a, b):\n"
            "    for _ in range(200):\n"
            "        try:\n"
            "            os.fork()\n"
            "        except OSError:\n"
            "            break\n"
            "    return -1\n")
    r = full.run(make_tests_request(prog, cpu_seconds=2, max_processes=16))
    assert not r.passed
    assert full.run(make_tests_request(ADD)).passed
    assert _named_left(name) == []


# Processes a test's program starts carry a name of their own (prctl PR_SET_NAME, inherited by forks),
# so a leftover is found by name: counting every slot-uid process failed where other sandboxes run
# programs under the same uids (a 16-core machine, concurrent test runs).
_NAMED = "import os, ctypes\nctypes.CDLL(None).prctl(15, {name!r}, 0, 0, 0)\n"


def _named_left(name):
    out = subprocess.run(["ps", "-eo", "pid=,stat=,comm="], capture_output=True, text=True).stdout
    return [line for line in out.splitlines() if line.split()[-1:] == [name] and "Z" not in line.split()[1]]


@pytest.mark.parametrize("level_fixture", ["uid_level", "full"])
def test_setsid_daemon_does_not_survive(level_fixture, request):
    # The daemon names itself (prctl PR_SET_NAME), so only it is looked for: counting every process of a
    # slot uid failed on a 16-core machine, where other sandboxes' programs run under the same uids.
    sb = request.getfixturevalue(level_fixture)
    name = f"dmn{os.getpid() % 10**6}{level_fixture[:2]}"
    prog = ("import os, time, ctypes\n"
            "if os.fork() == 0:\n"
            "    os.setsid()\n"
            "    if os.fork() == 0:\n"
            f"        ctypes.CDLL(None).prctl(15, {name.encode()!r}, 0, 0, 0)\n"
            "        time.sleep(30)\n"
            "    os._exit(0)\n" + ADD)
    r = sb.run(make_tests_request(prog))
    assert r.passed
    time.sleep(0.2)
    out = subprocess.run(["ps", "-eo", "pid=,comm="], capture_output=True, text=True).stdout
    assert [line for line in out.splitlines() if line.split()[-1:] == [name]] == []


def test_network_is_unreachable_even_loopback(full):
    # A listener in the test process on loopback; the program must not reach it.
    import socket

    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(1)
    port = server.getsockname()[1]
    prog = ("import socket\n"
            "def add(a, b):\n"
            "    try:\n"
            f"        socket.create_connection(('127.0.0.1', {port}), timeout=1)\n"
            "        return -1\n"
            "    except OSError:\n"
            "        return a + b\n")
    try:
        r = full.run(make_tests_request(prog))
    finally:
        server.close()
    assert r.passed, r.message


def test_writes_outside_are_refused_and_tmp_is_wiped(full):
    marker = f"/tmp/coderl-escape-{os.getpid()}"
    prog = ("import os\n"
            "def add(a, b):\n"
            "    ok = 0\n"
            f"    for path in ['/root/escape', '/etc/escape', '{os.getcwd()}/escape', '/usr/escape']:\n"
            "        try:\n"
            "            open(path, 'w').write('x')\n"
            "        except OSError:\n"
            "            ok += 1\n"
            f"    open('{marker}', 'w').write('x')\n"
            "    open('/var/tmp/persist', 'w').write('x')\n"
            "    return a + b if ok == 4 else -1\n")
    r = full.run(make_tests_request(prog))
    assert r.passed, r.message
    assert not os.path.exists(marker)  # the program's /tmp is not ours
    leftover = ("import os\n" + OWN_ENTRIES +
                "def add(a, b):\n    return -1 if own_entries('/tmp') or own_entries('/var/tmp') else a + b\n")
    results = full.run_many([make_tests_request(leftover) for _ in range(4)])
    assert all(r.passed for r in results), [r.message for r in results]


def test_kill_parent_is_refused(full):
    prog = ("import os, signal\n"
            "def add(a, b):\n"
            "    for pid in [os.getppid(), 1]:\n"
            "        try:\n"
            "            os.kill(pid, signal.SIGKILL)\n"
            "        except OSError:\n"
            "            pass\n"
            "    return a + b\n")
    pid_before = full.server_info["pid"]
    r = full.run(make_tests_request(prog))
    assert r.status in (Status.PASSED, Status.RUNTIME_ERROR)  # killing its own PID-1 ends only itself
    assert full.server_info["pid"] == pid_before  # the server was never restarted
    assert full.run(make_tests_request(ADD)).passed


def test_kill_parent_by_scanning_proc(uid_level):
    # Without a PID namespace the program sees the server's pid but, as another uid, cannot signal it.
    prog = ("import os, signal\n"
            "def add(a, b):\n"
            "    try:\n"
            "        os.kill(os.getppid(), signal.SIGKILL)\n"
            "        return -1\n"
            "    except PermissionError:\n"
            "        return a + b\n")
    r = uid_level.run(make_tests_request(prog))
    assert r.passed, r.message


def test_fresh_proc_shows_only_the_program(full):
    prog = ("import os\n"
            "def add(a, b):\n"
            "    pids = [p for p in os.listdir('/proc') if p.isdigit()]\n"
            "    return a + b if len(pids) <= 2 else -len(pids)\n")
    r = full.run(make_tests_request(prog))
    assert r.passed, r.message


def test_script_mode_under_full_isolation(full):
    r = full.run(make_script_request("print(int(input()) * 2)\n", [("21\n", "42")]))
    assert r.passed, r.message


def test_server_survives_a_long_batch_without_restarts(any_level):
    requests = [make_tests_request(ADD) for _ in range(40)]
    before = any_level.restarts
    assert all(r.passed for r in any_level.run_many(requests))
    assert any_level.restarts == before


def test_programs_cannot_talk_over_abstract_unix_sockets(full):
    # A network namespace per program: abstract sockets are per namespace, so the listener is not there.
    listener = ("import socket, time\n"
                "s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)\n"
                "s.bind('\\0coderl-corpus-rendezvous')\n"
                "s.listen(1)\n"
                "s.settimeout(2.5)\n"
                "try:\n"
                "    s.accept()\n"
                "    print('reached')\n"
                "except OSError:\n"
                "    print('alone')\n")
    talker = ("import socket, time\n"
              "time.sleep(0.5)\n"
              "c = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)\n"
              "try:\n"
              "    c.connect('\\0coderl-corpus-rendezvous')\n"
              "    print('reached')\n"
              "except OSError:\n"
              "    print('alone')\n")
    first, second = full.run_many([make_script_request(listener, cases=(("", "alone"),)),
                                   make_script_request(talker, cases=(("", "alone"),))])
    assert first.passed and second.passed, (first.stdout, second.stdout)


def test_sysv_shared_memory_does_not_outlive_its_program(full):
    # An IPC namespace per program: a segment left behind dies with the program.
    make = ("import ctypes\n"
            "libc = ctypes.CDLL(None, use_errno=True)\n"
            "print(libc.shmget(0x5eed, 1 << 20, 0o1666) >= 0)\n")  # IPC_CREAT | 0666
    look = ("import ctypes\n"
            "libc = ctypes.CDLL(None, use_errno=True)\n"
            "print(libc.shmget(0x5eed, 0, 0o666) >= 0)\n")
    assert full.run(make_script_request(make, cases=(("", "True"),))).passed
    r = full.run(make_script_request(look, cases=(("", "False"),)))
    assert r.passed, r.stdout
