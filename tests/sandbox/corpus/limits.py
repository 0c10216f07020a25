"""Limits that hold for the whole run, and a fresh file system per program (issue 73, items 1 and 2).

E.cpu_tree  work spread over processes a program starts (children, double forks, setsid daemons,
            multiprocessing, subprocess), still running or waited for, on a task whose CPU limit the same work in
            one process exceeds: the task's limit charges the whole tree, so each must time out (fail); the same
            spread work under a limit it fits must pass.
E.fresh_fs  a program that reads the file system it writes on (inode numbers) to tell how much ran before it on
            its slot -- a channel, and a checkpoint across runs: each program has a tmpfs of its own at `full`,
            so the count is the same for every program (at `uid` and `rlimits` the host's file system's).

The tasks are rows of coderl's own layout (`fmt="coderl"`), which carry a `time_limit`.
"""

from __future__ import annotations

from . import Case

LIMIT = 0.4
EACH = 0.2  # CPU seconds each of three workers burns: 0.6 in all, over the limit; none alone near it

_BURN = f"""import os, sys, time
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
    while len(got) < 3:
        got += os.read(r, 16)
"""

_SPREAD = {
    "fork_running_at_exit": "r, w = os.pipe()\nfor _ in range(3):\n    if os.fork() == 0:\n        burn(w, True)\n"
                            "wait_for(r)\n",
    "fork_waited": "pids = []\nfor _ in range(3):\n    pid = os.fork()\n    if pid == 0:\n        burn()\n"
                   "        os._exit(0)\n    pids.append(pid)\nfor pid in pids:\n    os.waitpid(pid, 0)\n",
    "double_fork": "r, w = os.pipe()\nfor _ in range(3):\n    pid = os.fork()\n    if pid == 0:\n"
                   "        if os.fork() == 0:\n            burn(w, True)\n        os._exit(0)\n    os.waitpid(pid, 0)\n"
                   "wait_for(r)\n",
    "setsid_daemon": "r, w = os.pipe()\nfor _ in range(3):\n    pid = os.fork()\n    if pid == 0:\n"
                     "        os.setsid()\n        if os.fork() == 0:\n            burn(w, True)\n        os._exit(0)\n"
                     "    os.waitpid(pid, 0)\nwait_for(r)\n",
    "multiprocessing": "import multiprocessing\nr, w = os.pipe()\nctx = multiprocessing.get_context('fork')\n"
                       "for _ in range(3):\n    ctx.Process(target=burn, args=(w, True), daemon=True).start()\n"
                       "wait_for(r)\n",
    "subprocess": "import subprocess\nr, w = os.pipe()\n"
                  "code = " + repr(_BURN) + " + 'burn(int(sys.argv[1]), True)'\n"
                  "for _ in range(3):\n    subprocess.Popen([sys.executable, '-c', code, str(w)], pass_fds=(w,))\n"
                  "wait_for(r)\n",
}


def _stdio_row(name: str, time_limit: float, tests: list[tuple[str, str]]) -> dict:
    return {"task_id": f"corpus/{name}", "kind": "stdio", "prompt": "Print the sum of the numbers on the line.",
            "time_limit": time_limit,
            "tests": [{"id": str(i), "source": i_, "check": "stdout", "expected": o} for i, (i_, o) in enumerate(tests)]}


def _function_row(name: str, time_limit: float) -> dict:
    return {"task_id": f"corpus/{name}", "kind": "function", "entry_point": "add", "time_limit": time_limit,
            "prompt": "def add(a: int, b: int) -> int:\n    \"\"\"a + b.\"\"\"\n",
            "tests": [{"id": "0", "source": "candidate(1, 2)", "check": "equals", "expected": 3}]}


SUM = [("1 2 3\n", "6\n")]
_SCRIPT_TAIL = "print(sum(map(int, input().split())), flush=True)\nos._exit(0)\n"


def _spread_script(how: str) -> str:
    return _BURN + _SPREAD[how] + _SCRIPT_TAIL


def _spread_function(how: str) -> str:
    body = "".join("    " + line + "\n" for line in (_BURN + _SPREAD[how]).splitlines())
    return body + "    return a + b\n"


def _before(how: str, expect: str) -> str:
    """The verdict at 827ca0c, the commit before: the daemons passed; the rest timed out on the wall-clock backstop
    (children left spinning), not on the CPU they had used (a few hundredths of a second charged)."""
    return "passed" if expect == "pass" or how == "setsid_daemon" else "timeout"


def _cpu(name: str, how: str, mode: str, limit: float, expect: str) -> Case:
    if mode == "script":
        return Case(name=name, tag="E.cpu_tree", completion=_spread_script(how), expect=expect,
                    row=_stdio_row(name, limit, SUM), fmt="coderl", before=_before(how, expect))
    return Case(name=name, tag="E.cpu_tree", completion=_spread_function(how), expect=expect,
                row=_function_row(name, limit), fmt="coderl", before=_before(how, expect))


# A checkpoint across runs: inode numbers count up on a file system that outlives its programs, so a program
# can tell (and, step by step, store) how much ran before it on its slot.  These wrong programs print the right
# answer only when the count shows earlier programs (as it did after a few dozen on a slot); on a tmpfs of its own
# the count starts where every program's does, and they print a wrong one.
_INODE_COUNTER = """import os
open("/tmp/probe", "w").close()
earlier = os.stat(PLACE).st_ino > 64
print(sum(map(int, input().split())) + (0 if earlier else 1))
"""

CASES = [
    # each generation once, as a script or inside a function (tests/sandbox/test_cpu_tree.py: both, every level)
    *(_cpu(f"spread_{how}_{mode}", how, mode, LIMIT, "fail") for how, mode in (
        ("fork_running_at_exit", "script"), ("fork_waited", "function"), ("double_fork", "script"),
        ("setsid_daemon", "function"), ("multiprocessing", "script"), ("subprocess", "function"))),
    _cpu("spread_fork_within_its_limit", "fork_running_at_exit", "script", 8 * EACH * 3, "pass"),
    _cpu("spread_subprocess_within_its_limit", "subprocess", "function", 8 * EACH * 3, "pass"),
    Case(name="inode_of_a_new_file_counts_earlier_programs", tag="E.fresh_fs", expect="fail",
         completion=_INODE_COUNTER.replace("PLACE", "'/tmp/probe'"), before="passed",
         row=_stdio_row("inode_of_a_new_file_counts_earlier_programs", 3.0, SUM), fmt="coderl"),
    Case(name="inode_of_the_work_dir_counts_earlier_programs", tag="E.fresh_fs", expect="fail",
         completion=_INODE_COUNTER.replace("PLACE", "'/sandbox'"), before="passed",
         row=_stdio_row("inode_of_the_work_dir_counts_earlier_programs", 3.0, SUM), fmt="coderl"),
]
