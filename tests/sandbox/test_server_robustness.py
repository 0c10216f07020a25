"""One program's mess is its own result: the fork server survives it and neighbours are unaffected."""

import os
import signal
import subprocess
import sys
import time

import pytest

from coderl.sandbox import Sandbox
from coderl.sandbox.types import Status

from .helpers import ADD, OWN_ENTRIES, make_script_request, make_tests_request
from .test_isolation import LEVELS

DEEP_TREE = ("import os\n"
             "for _ in range(3000):\n"
             "    os.mkdir('d')\n"
             "    os.chdir('d')\n" + ADD)


def test_thousands_of_nested_directories_are_wiped_without_killing_the_server(sandbox):
    restarts = sandbox.restarts
    results = sandbox.run_many([make_tests_request(DEEP_TREE), make_tests_request(ADD),
                                make_tests_request(DEEP_TREE), make_tests_request(ADD)])
    assert [r.status for r in results] == [Status.PASSED] * 4
    assert sandbox.restarts == restarts


def test_nested_directories_in_tmp_too(sandbox):
    if sandbox.isolation != "full":
        pytest.skip("a private /tmp needs isolation 'full'")
    prog = "import os\nos.chdir('/tmp')\n" + DEEP_TREE
    assert sandbox.run(make_tests_request(prog)).passed
    listing = ("import os\n" + OWN_ENTRIES +  # (the program's own main.py is in its work dir)
               "print(sorted(set(os.listdir('.')) - {'main.py'}), sorted(own_entries('/tmp')))\n")
    r = sandbox.run(make_script_request(listing, cases=(("", "[] []"),)))
    assert r.passed, (r.status, r.tests[0].message)


def test_a_quick_program_is_never_a_wall_timeout(sandbox):
    # Judged at the program's exit, not when the server gets round to reaping it.
    results = sandbox.run_many([make_tests_request(ADD, cpu_seconds=0.3, wall_seconds=0.5) for _ in range(20)])
    assert all(r.status is Status.PASSED for r in results), [r.message for r in results if not r.passed]


def test_a_program_holds_no_descriptor_of_the_zygote(sandbox):
    # A stdin/stdout program has no channel or result fd: fds 3-5 must not be the zygote's own (its wake
    # pipe and epoll fd, which a program could make spin the zygote with epoll_ctl).
    listing = ("import os\n"
               "fds = sorted(int(f) for f in os.listdir('/proc/self/fd'))\n"
               "print([f for f in fds if f > 2 and os.path.exists(f'/proc/self/fd/{f}')])\n")
    r = sandbox.run(make_script_request(listing, cases=(("", "[]"),)))
    assert r.passed, (r.status, r.tests[0].message, r.stdout if hasattr(r, "stdout") else "")


# ---- a killed server or client leaves nothing running

def _named(name):
    out = subprocess.run(["ps", "-eo", "pid=,comm="], capture_output=True, text=True).stdout
    return [line for line in out.splitlines() if line.split()[-1:] == [name]]


def _server_groups(server_pid):
    tag = f"coderl-{server_pid}"
    roots = ["/sys/fs/cgroup", "/sys/fs/cgroup/pids", "/sys/fs/cgroup/memory"]
    return [os.path.join(r, tag) for r in roots if os.path.isdir(os.path.join(r, tag))]


def _daemon_program(name):
    # A program that leaves a setsid daemon (named, so only it is looked for) and keeps running itself.
    return ("import os, time, ctypes\n"
            "if os.fork() == 0:\n"
            "    os.setsid()\n"
            "    if os.fork() == 0:\n"
            f"        ctypes.CDLL(None).prctl(15, {name.encode()!r}, 0, 0, 0)\n"
            "        time.sleep(60)\n"
            "    os._exit(0)\n"
            "time.sleep(60)\n" + ADD)


def _gone(check, seconds=5.0):
    deadline = time.monotonic() + seconds
    while check() and time.monotonic() < deadline:
        time.sleep(0.05)
    return not check()


@pytest.mark.parametrize("level", [lvl for lvl in LEVELS if lvl != "rlimits"])
def test_a_killed_server_leaves_no_program_or_cgroup(level):
    name = f"srv{os.getpid() % 10**5}{level[:2]}"
    with Sandbox(workers=1, isolation=level) as sb:
        pid = sb.server_info["pid"]
        sb.submit(make_tests_request(_daemon_program(name), cpu_seconds=30, wall_seconds=60))
        assert _gone(lambda: not _named(name)), "the daemon never started"
        daemons = [int(line.split()[0]) for line in _named(name)]
        os.kill(pid, signal.SIGKILL)  # (the client then starts a new server and runs the program again)
        alive = lambda: [d for d in daemons if _alive(d)]  # noqa: E731
        assert _gone(alive), f"left running after the server was killed: {alive()}"
        assert _gone(lambda: _server_groups(pid)), f"cgroups left: {_server_groups(pid)}"


def _alive(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


@pytest.mark.parametrize("level", [lvl for lvl in LEVELS if lvl != "rlimits"])
def test_a_killed_client_leaves_no_server_program_or_cgroup(level, tmp_path):
    name = f"cli{os.getpid() % 10**5}{level[:2]}"
    script = tmp_path / "client.py"
    script.write_text(
        "import sys, time\n"
        f"sys.path.insert(0, {os.getcwd()!r})\n"
        "from coderl.sandbox import Sandbox\n"
        "from tests.sandbox.helpers import make_tests_request\n"
        f"sb = Sandbox(workers=1, isolation={level!r}).__enter__()\n"
        "print(sb.server_info['pid'], flush=True)\n"
        f"sb.submit(make_tests_request({_daemon_program(name)!r}, cpu_seconds=30, wall_seconds=60))\n"
        "time.sleep(60)\n")
    client = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, text=True)
    try:
        pid = int(client.stdout.readline())
        assert _gone(lambda: not _named(name)), "the daemon never started"
    finally:
        client.kill()
        client.wait()
    assert _gone(lambda: _alive(pid)), "the server outlived its client"
    assert _gone(lambda: _named(name)), f"left running after the client was killed: {_named(name)}"
    assert _gone(lambda: _server_groups(pid)), f"cgroups left: {_server_groups(pid)}"
