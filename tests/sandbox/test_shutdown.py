"""`python main.py` semantics to the end, and forks that return into the runtime.

A stdin/stdout program's output is everything CPython writes, in CPython's order, when `main.py` ends:
what is buffered in `sys.__stdout__` / `sys.__stderr__` and in any stream the program swapped in, swapped
out or keeps in a global.  Each program here is also run by the real interpreter (`python main.py`,
outside the sandbox: these programs are ours) and the two outputs must be equal.

A function task's program that forks a child which returns into the program-side runtime must not turn
a correct parent into a failure: the child ends quietly instead of answering the judge.
"""

import os
import subprocess
import sys
import tempfile

import pytest

from coderl.sandbox.types import CheckKind, TestCase

from .helpers import ADD_TESTS, make_script_request, make_tests_request

SHUTDOWN_PROGRAMS = {
    # print() to the original stream while sys.stdout is swapped out for a StringIO
    "swapped_out_original": "import io, sys\nsys.stdout = io.StringIO()\nprint('hidden')\nprint(42, file=sys.__stdout__)\n",
    # data buffered in the original stream, then a new stream swapped in and written
    "swapped_in_after_buffering": "import os, sys\nprint('a')\nsys.stdout = open(os.dup(1), 'w')\nprint('b')\n",
    # a stream kept in a global, never flushed by the program
    "stream_in_a_global": "f = open(1, 'w', closefd=False)\nf.write('x\\n')\nprint('y')\n",
    # the original stream buffered, a global stream buffered after it
    "global_after_original": "import os\nprint('1')\nf = open(os.dup(1), 'w')\nf.write('2\\n')\n",
    # a stream in a reference cycle, reachable from nothing: collected at exit
    "stream_in_a_cycle": "import os\nclass Box: pass\nb = Box()\nb.me = b\nb.f = open(os.dup(1), 'w')\n"
                         "b.f.write('cyc\\n')\ndel b\nprint('main')\n",
    # swapped in, then swapped back; the swapped-in stream lives on in a global
    "swapped_back": "import os, sys\nw = open(os.dup(1), 'w')\nsys.stdout = w\nprint('in w')\n"
                    "sys.stdout = sys.__stdout__\nprint('in original')\n",
    # sys.__stdout__ itself replaced: the real original is still flushed by CPython
    "dunder_replaced": "import io, sys\nreal = sys.__stdout__\nprint('kept')\nsys.__stdout__ = io.StringIO()\n",
    # an atexit handler writing to a swapped-in stream
    "atexit_writes": "import atexit, os, sys\nsys.stdout = open(os.dup(1), 'w')\n"
                     "atexit.register(lambda: print('at exit'))\nprint('body')\n",
    # a __del__ printing at exit, after everything else
    "del_prints": "class Last:\n    def __del__(self):\n        print('deleted')\nlast = Last()\nprint('first')\n",
}


def cpython_stdout(program):
    """What `python main.py` prints (stdout) for `program`, with stdout a pipe as in the sandbox and no
    PYTHON* variables (`-E`: PYTHONUNBUFFERED would flush every print at once)."""
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "main.py")
        with open(path, "w", encoding="utf-8") as f:
            f.write(program)
        run = subprocess.run([sys.executable, "-E", "main.py"], cwd=tmp, capture_output=True, text=True, timeout=30,
                             stdin=subprocess.DEVNULL)
    return run.stdout


@pytest.mark.parametrize("name", sorted(SHUTDOWN_PROGRAMS))
def test_everything_cpython_writes_at_shutdown_is_output_in_its_order(sandbox, name):
    program = SHUTDOWN_PROGRAMS[name]
    expected = cpython_stdout(program)
    assert expected.strip(), "the program must print something under CPython"
    result = sandbox.run(make_script_request(program, cases=(("", expected),)))
    assert result.passed, (result.message, result.stdout, expected)
    assert result.stdout == expected, (result.stdout, expected)


def test_a_failing_flush_at_exit_is_status_120(sandbox):
    """As CPython: a flush of sys.stdout that fails at exit makes the exit status 120."""
    program = ("import sys\nclass Bad:\n    closed = False\n    def write(self, s):\n        return len(s)\n"
               "    def flush(self):\n        raise OSError('disk full')\nsys.stdout = Bad()\nprint('x')\n")
    with tempfile.TemporaryDirectory() as tmp:
        with open(os.path.join(tmp, "main.py"), "w") as f:
            f.write(program)
        code = subprocess.run([sys.executable, "-E", "main.py"], cwd=tmp, capture_output=True, timeout=30).returncode
    result = sandbox.run(make_script_request(program))
    assert code == 120 and result.exit_code == 120, (code, result.exit_code, result.message)


FORKS = {
    # the child returns from the call into the runtime, as the parent does
    "child_returns_from_the_call": "import os\ndef add(a, b):\n    pid = os.fork()\n    if pid:\n"
                                   "        os.waitpid(pid, 0)\n    return a + b\n",
    # the child runs on to the end of the program text, then into the runtime
    "child_runs_the_program_on": "import os\nif os.fork() == 0:\n    pass\n\ndef add(a, b):\n    return a + b\n",
    # the child raises out of the call
    "child_raises": "import os\ndef add(a, b):\n    if os.fork() == 0:\n        raise ValueError('child')\n"
                    "    return a + b\n",
}


@pytest.mark.parametrize("name", sorted(FORKS))
def test_a_fork_that_returns_into_the_runtime_leaves_a_correct_parent_correct(sandbox, name):
    result = sandbox.run(make_tests_request(FORKS[name]))
    assert result.passed, (result.status, result.message, result.tamper)
    assert not any(t.startswith("protocol") for t in result.tamper), result.tamper


def test_a_forked_child_cannot_answer_for_its_wrong_parent(sandbox):
    """The parent is wrong; a child that would answer right (if it could speak) changes nothing."""
    program = ("import os, time\ndef add(a, b):\n    if os.fork() == 0:\n        return a + b\n"
               "    time.sleep(0.05)\n    return 0\n")
    result = sandbox.run(make_tests_request(program, tests=ADD_TESTS[:1]))
    assert not result.passed


def test_a_forked_child_cannot_call_the_tests_callables(sandbox):
    program = ("import os\ndef apply(f, x):\n    pid = os.fork()\n    if pid == 0:\n"
               "        try:\n            f(x)\n        except RuntimeError as e:\n"
               "            os._exit(0 if 'forked' in str(e) else 3)\n        os._exit(4)\n"
               "    _, status = os.waitpid(pid, 0)\n    return f(x) if status == 0 else -1\n")
    tests = (TestCase("0", "candidate(lambda v: v + 1, 2)", CheckKind.EQUALS, 3),)
    result = sandbox.run(make_tests_request(program, tests=tests, entry_point="apply"))
    assert result.passed, result.message


# Generated shutdown programs: each is a random mix (seeded) of the things CPython's finalisation reaches, in a
# random order, every one printing a tag of its own; the sandbox must print what `python -E main.py` prints,
# in its order, and exit as it exits.
SHUTDOWN_PARTS = [
    "print('body{n}', end='')",
    "atexit.register(print, 'atexit{n}')",
    "class Del{n}:\n    def __del__(self):\n        print('del{n}')\nglobal{n} = Del{n}()",
    "class Cyc{n}:\n    def __del__(self):\n        print('cycle{n}')\nc{n} = Cyc{n}()\nc{n}.me = c{n}\ndel c{n}",
    "class Fin{n}:\n    pass\nfin{n} = Fin{n}()\nweakref.finalize(fin{n}, print, 'finalize{n}')",
    "stream{n} = open(os.dup(1), 'w')\nstream{n}.write('stream{n}\\n')",
    "sys.stdout = open(os.dup(1), 'w')\nprint('swapped{n}')",
    "sys.stdout = io.StringIO()\nprint('hidden{n}')\nprint('original{n}', file=sys.__stdout__)",
    "threading.Thread(target=lambda w=[t for t in threading.enumerate() if t.name.startswith('part')]:\n"
    "                 ([t.join() for t in w], body_done.wait(), print('thread{n}')), name='part{n}').start()",
    "def gen{n}():\n    try:\n        yield\n    finally:\n        print('generator{n}')\ng{n} = gen{n}()\nnext(g{n})",
    "side{n} = types.ModuleType('side{n}')\nsys.modules['side{n}'] = side{n}\n"
    "class Side{n}:\n    def __del__(self):\n        print('module{n}')\nside{n}.obj = Side{n}()\ndel side{n}",
    "_private{n} = Del{m}() if 'Del{m}' in globals() else None",
    "atexit.register(lambda: print('atexit_stdout{n}', file=sys.stdout))",
]
# A thread prints once the body has run (`body_done`), not after a sleep: what it prints to is then the same under
# any load.
HEAD = "import atexit, gc, io, os, sys, threading, types, weakref\nbody_done = threading.Event()\n"


def _generated(seed, gc_off=False):
    """A program of 2-6 random parts; `gc_off`: `gc.disable()` between two of them (so CPython's finalisation
    collects only once the modules are gone, and a stream collected then may lose what it buffered)."""
    import random

    rng = random.Random(seed)
    parts = [rng.randrange(len(SHUTDOWN_PARTS)) for _ in range(rng.randint(2, 6))]
    body = [SHUTDOWN_PARTS[p].format(n=i, m=max(i - 1, 0)) for i, p in enumerate(parts)]
    if gc_off:
        body.insert(rng.randint(0, len(body)), "gc.disable()")
    body.append("body_done.set()")
    if rng.random() < 0.2:
        body.append(f"sys.exit({rng.choice([0, 3, 'bye'])!r})")
    return HEAD + "\n".join(body) + "\n"


def cpython_run(program):
    with tempfile.TemporaryDirectory() as tmp:
        with open(os.path.join(tmp, "main.py"), "w", encoding="utf-8") as f:
            f.write(program)
        return subprocess.run([sys.executable, "-E", "main.py"], cwd=tmp, capture_output=True, text=True, timeout=30,
                              stdin=subprocess.DEVNULL)


# 8 seeds in `make test`, all 40 in `make test-slow`: each seed is one more random mix of the same parts.
@pytest.mark.parametrize("gc_off", [False, True], ids=["gc", "gc_disabled"])
@pytest.mark.parametrize("seed", [*range(8), *(pytest.param(s, marks=pytest.mark.slow) for s in range(8, 40))])
def test_a_generated_shutdown_prints_what_cpython_prints(sandbox, seed, gc_off):
    program = _generated(seed, gc_off)
    expected = cpython_run(program)
    result = sandbox.run(make_script_request(program, cases=(("", expected.stdout),)))
    assert (result.stdout, result.exit_code) == (expected.stdout, expected.returncode), (program, expected.stderr)
