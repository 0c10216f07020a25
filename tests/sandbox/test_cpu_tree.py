"""A CPU limit charges the whole run: every process a program starts, by any means, alive or not at exit.

Each generation below spreads the same work over processes: `WORKERS` processes each burn `EACH` CPU seconds
(by their own thread's clock, so the work does not depend on the machine's load), and none of them alone comes near the
limit or RLIMIT_CPU's whole second.  The honest single-process version of the same work (`SINGLE`) uses
`WORKERS * EACH` > `LIMIT` seconds and times out; so must each spread one.  The wall-clock backstop is set far
out, so a loaded machine cannot make the verdict a timeout for the wrong reason: the message must be the CPU
limit's.

Generations, by how the work is started and whether its processes are still alive when the program exits:
fork (waited, or running at exit), double fork (orphaned grandchildren, running at exit or exited before it),
setsid daemons (still running), multiprocessing (processes joined, or running at exit), subprocess (a new
interpreter, exec; waited, or running at exit), threads (one process: the baseline), and each of them inside a
function task, where the judge has answered before the program is ended.
"""

import os

import pytest

from coderl.sandbox.types import Status

from .helpers import make_script_request, make_tests_request, sandbox_at

LIMIT = 0.3
EACH = 0.15
WORKERS = 3  # 0.45 CPU seconds in all
WALL = 60.0

# Burn `EACH` seconds of this thread's own CPU, then say so on fd `done` (one byte) and, with `spin`, go on
# burning until killed: alive when the program exits.
BURN = f"""
import os, sys, time
def burn(done=None, spin=False):
    end = time.thread_time() + {EACH}
    while time.thread_time() < end:
        pass
    if done is not None:
        os.write(done, b"x")
    while spin:
        pass
def wait_for(r):
    got = b""
    while len(got) < {WORKERS}:
        got += os.read(r, 16)
"""

# Each generation's body: start WORKERS workers that each `burn`, and wait until all have burned; the workers of
# the `*_waited` generations have exited and been waited for, the others are still running when the program
# exits (or, in a function, returns).
GENERATIONS = {
    "single": f"""
for _ in range({WORKERS}):
    burn()
""",
    "threads": f"""
import threading
ts = [threading.Thread(target=burn) for _ in range({WORKERS})]
[t.start() for t in ts]
[t.join() for t in ts]
""",
    "fork_waited": f"""
pids = []
for _ in range({WORKERS}):
    pid = os.fork()
    if pid == 0:
        burn()
        os._exit(0)
    pids.append(pid)
for pid in pids:
    os.waitpid(pid, 0)
""",
    "fork": f"""
r, w = os.pipe()
for _ in range({WORKERS}):
    if os.fork() == 0:
        burn(w, spin=True)
wait_for(r)
""",
    "double_fork": f"""
r, w = os.pipe()
for _ in range({WORKERS}):
    pid = os.fork()
    if pid == 0:
        if os.fork() == 0:
            burn(w, spin=True)
        os._exit(0)
    os.waitpid(pid, 0)
wait_for(r)
""",
    "double_fork_exited": f"""
r, w = os.pipe()
for _ in range({WORKERS}):
    pid = os.fork()
    if pid == 0:
        if os.fork() == 0:
            burn(w)
            os._exit(0)
        os._exit(0)
    os.waitpid(pid, 0)
wait_for(r)
""",
    "setsid_daemon": f"""
r, w = os.pipe()
for _ in range({WORKERS}):
    pid = os.fork()
    if pid == 0:
        os.setsid()
        if os.fork() == 0:
            os.chdir("/")
            burn(w, spin=True)
        os._exit(0)
    os.waitpid(pid, 0)
wait_for(r)
""",
    "multiprocessing_waited": f"""
import multiprocessing
procs = [multiprocessing.get_context("fork").Process(target=burn) for _ in range({WORKERS})]
[p.start() for p in procs]
[p.join() for p in procs]
""",
    "multiprocessing": f"""
import multiprocessing
r, w = os.pipe()
procs = [multiprocessing.get_context("fork").Process(target=burn, args=(w, True), daemon=True)
         for _ in range({WORKERS})]
[p.start() for p in procs]
wait_for(r)
""",
    "subprocess_waited": f"""
import subprocess
code = {BURN!r} + "burn()"
[p.wait() for p in [subprocess.Popen([sys.executable, "-c", code]) for _ in range({WORKERS})]]
""",
    "subprocess": f"""
import subprocess
r, w = os.pipe()
code = {BURN!r} + "burn(int(sys.argv[1]), spin=True)"
procs = [subprocess.Popen([sys.executable, "-c", code, str(w)], pass_fds=(w,)) for _ in range({WORKERS})]
wait_for(r)
""",
}
SINGLE = "single"


def script(generation, linger=0.0):
    # os._exit: no atexit hook (multiprocessing's) waits for what is still running
    return BURN + GENERATIONS[generation] + f"time.sleep({linger})\nprint('done', flush=True)\nos._exit(0)\n"


def function(generation, linger=0.0):
    """The same generation inside a function task's function: the work is done by the time it returns."""
    body = "\n".join("    " + line for line in GENERATIONS[generation].strip("\n").splitlines())
    return BURN + f"def add(a, b):\n{body}\n    time.sleep({linger})\n    return a + b\n"


def assert_cpu_timeout(result):
    assert result.status is Status.TIMEOUT, (result.status, result.message, result.cpu_seconds, result.stderr[-300:])
    assert f"CPU time limit of {LIMIT:g}s" in result.message, result.message
    assert result.cpu_seconds > LIMIT, result.cpu_seconds


# Beyond `full` with its cgroup (the default tests): every level, with the cgroup CPU counter and with the level's
# fallback (`coderl/sandbox/server/meter.py`); `rlimits` has no cgroups.
SETUPS = (("full", "none"), ("uid", "cgroup"), ("uid", "none"), ("rlimits", "none"))


@pytest.fixture(scope="module")
def full():
    with sandbox_at("full") as sb:
        yield sb


# The default suite: every generation inside a function (`full`), and the corpus (tests/sandbox/corpus/limits.py)
# each generation once at every level; the rest of the matrix in `make test-slow`.
@pytest.mark.slow
@pytest.mark.skipif(os.geteuid() != 0, reason="`full` needs root")
@pytest.mark.parametrize("generation", sorted(GENERATIONS))
def test_a_script_is_charged_for_every_process_it_starts(full, generation):
    assert_cpu_timeout(full.run(make_script_request(script(generation), cases=(("", "done"),), cpu_seconds=LIMIT,
                                                    wall_seconds=WALL)))


@pytest.mark.skipif(os.geteuid() != 0, reason="`full` needs root")
@pytest.mark.parametrize("generation", sorted(GENERATIONS))
def test_a_function_is_charged_for_every_process_it_starts_after_the_judge_answered(full, generation):
    result = full.run(make_tests_request(function(generation), tests=make_tests_request("").tests[:1],
                                         cpu_seconds=LIMIT, wall_seconds=WALL))
    assert_cpu_timeout(result)


@pytest.mark.skipif(os.geteuid() != 0, reason="`full` needs root")
def test_the_same_work_under_the_limit_passes(full):
    # Under a limit it fits (twice its work), every generation passes: the charge is the program's tree, not more
    for generation in ("fork", "subprocess"):
        r = full.run(make_script_request(script(generation), cases=(("", "done"),), cpu_seconds=4 * WORKERS * EACH,
                                         wall_seconds=WALL))
        assert r.passed, (generation, r.status, r.message, r.stderr[-300:])


@pytest.mark.slow
@pytest.mark.parametrize("generation", sorted(GENERATIONS))
@pytest.mark.parametrize("level,controller", SETUPS)
def test_every_level_charges_the_tree_with_and_without_a_controller(level, controller, generation, monkeypatch):
    if controller == "none":
        monkeypatch.setenv("CODERL_SANDBOX_CGROUPS", "none")
    if level == "rlimits" and generation == "setsid_daemon":
        pytest.skip("rlimits: a process that leaves the program's session is not charged (docs/sandbox.md)")
    # `full`'s fallback sees what its processes use only while they live (the namespace's teardown reaps them
    # uncounted): the program lingers, so that a poll of a loaded machine's server comes while they do.
    linger = 1.0 if (level, controller) == ("full", "none") else 0.0
    with sandbox_at(level) as sb:
        assert sb.server_info["cpu_accounting"].startswith("cgroup" if controller == "cgroup" else "fallback")
        for request in (make_script_request(script(generation, linger), cases=(("", "done"),), cpu_seconds=LIMIT,
                                            wall_seconds=WALL),
                        make_tests_request(function(generation, linger), tests=make_tests_request("").tests[:1],
                                           cpu_seconds=LIMIT, wall_seconds=WALL)):
            result = sb.run(request)
            if level == "uid" and "No module named" in result.message:  # an interpreter under a private home
                pytest.skip("the slot uid cannot import the standard library here (issue 73, item 5)")
            assert_cpu_timeout(result)
