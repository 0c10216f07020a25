"""Request after request on one slot, nothing one request does is there for the next: each function task's judge
is forked for it from the judges' zygote, which never ran a task's code.

Each case is a pair of requests on one slot.  The first (the leaver) tries to leave something behind, through
the task's own code (its test preamble, run in the judge) or through the program (its returns, its exceptions,
its calls of the test's callbacks); the second (the finder) is an ordinary task whose tests look for it and
pass only if it is not there.
"""

import pytest

from coderl.sandbox.client import Sandbox
from coderl.sandbox.types import CheckKind, ExecutionRequest, Limits, Mode, TestCase

from .helpers import ADD, make_tests_request

CLEAN = "assert candidate(1, 2) == 3"


def request(program=ADD, preamble="", tests=(CLEAN,), entry_point="add"):
    cases = tuple(TestCase(str(i), source, CheckKind.ASSERT) for i, source in enumerate(tests))
    return ExecutionRequest(Mode.PYTHON_TESTS, program=program, entry_point=entry_point, tests=cases,
                            test_preamble=preamble, limits=Limits(cpu_seconds=5))


@pytest.fixture(scope="module")
def sandbox():
    with Sandbox(workers=1) as sb:
        yield sb


def run_all(sandbox, requests):
    return [sandbox.run(r) for r in requests]


def test_request_after_request_on_one_slot(sandbox):
    results = run_all(sandbox, [make_tests_request(ADD)] * 12)
    assert all(r.passed for r in results), [r.message for r in results]


# (leaver's test preamble: the task's own code, in the judge; finder's assert)
LEFT_BY_TASK_CODE = {
    "builtin": ("import builtins\nbuiltins.len = lambda x: 0", "assert len([1, 2]) == 2"),
    "module_attribute": ("import math\nmath.pi = 3", "import math\nassert math.pi > 3.14"),
    "new_attribute": ("import string\nstring.left = 1", "import string\nassert not hasattr(string, 'left')"),
    "sys_modules": ("import sys, types\nsys.modules['left'] = types.ModuleType('left')",
                    "import sys\nassert 'left' not in sys.modules"),
    "new_import": ("import xml.dom.minidom\nxml.dom.minidom.left = 1",
                   "import sys\nassert 'xml.dom.minidom' not in sys.modules"),
    "environment": ("import os\nos.environ['LEFT'] = '1'", "import os\nassert 'LEFT' not in os.environ"),
    # a judge starts in its program's working directory (`Slots.enter_judge`): /sandbox, or the slot's work dir
    "cwd": ("import os\nos.chdir('/tmp')", "import os\nassert os.path.basename(os.getcwd()) in ('sandbox', 'work')"),
    "umask": ("import os\nos.umask(0)", "import os\nm = os.umask(0o22)\nos.umask(m)\nassert m != 0"),
    "signal": ("import signal\nsignal.signal(signal.SIGUSR1, lambda *a: None)",
               "import signal\nassert signal.getsignal(signal.SIGUSR1) == signal.SIG_DFL"),
    "thread": ("import _thread, time\n_thread.start_new_thread(time.sleep, (30,))",
               "import os\nassert len(os.listdir('/proc/self/task')) == 1"),
    "fd": ("import os\nos.dup2(os.open('/dev/null', os.O_RDONLY), 99)",
           "import os\ntry:\n    os.fstat(99)\nexcept OSError:\n    pass\nelse:\n    raise AssertionError('fd 99 open')"),
    "trace_hook": ("import sys\nsys.settrace(lambda *a: None)", "import sys\nassert sys.gettrace() is None"),
    "audit_hook": ("import sys\nsys.addaudithook(lambda *a: None)", ""),
    "warnings": ("import warnings\nwarnings.simplefilter('error')",
                 "import warnings\nassert not [f for f in warnings.filters if f[0] == 'error']"),
    "gc": ("import gc\ngc.disable()", "import gc\nassert gc.isenabled()"),
    "child": ("import os\nif os.fork() == 0:\n    import time\n    time.sleep(30)",
              "import os\ntry:\n    os.waitpid(-1, os.WNOHANG)\nexcept ChildProcessError:\n    pass\n"
              "else:\n    raise AssertionError('a child is there')"),
    "kept_handle": ("import re\nre._cache['left'] = candidate",
                    "import re\nassert 'left' not in re._cache"),
}

# What every request starts with, whatever the one before set.
RESET = {
    "random": ("import random\nrandom.seed(7)", "import random\nrandom.seed(7)\nfirst = random.random()\n"
               "assert first == 0.32383276483316237"),
    "random_state": ("import random\nrandom.seed(7)",
                     "import random\nassert random.random() != 0.32383276483316237"),
    "decimal": ("import decimal\ndecimal.getcontext().prec = 3", "import decimal\nassert decimal.getcontext().prec == 28"),
    "recursion": ("import sys\nsys.setrecursionlimit(60)", "import sys\nassert sys.getrecursionlimit() >= 1000"),
}


@pytest.mark.parametrize("case", sorted(LEFT_BY_TASK_CODE))
def test_what_the_task_code_leaves_is_not_there_for_the_next(sandbox, case):
    leave, find = LEFT_BY_TASK_CODE[case]
    results = run_all(sandbox, [request(preamble=leave), request(tests=(CLEAN, find or "pass"))])
    assert results[1].passed, results[1].message


@pytest.mark.parametrize("case", sorted(RESET))
def test_what_a_fresh_judge_starts_with_every_request_gets(sandbox, case):
    leave, find = RESET[case]
    results = run_all(sandbox, [request(preamble=leave), request(tests=(CLEAN, find))])
    assert all(r.passed for r in results), [r.message for r in results]


# The program's side: what it returns, raises and sends through the test's callbacks reaches the judge.
POISONERS = {
    # a module object named by the program: the judge imports it (a new module: the judge leaves)
    "returns_a_module": ("import xml.dom.minidom\ndef add(a, b):\n    return xml.dom.minidom\n", "assert candidate(1, 2) != 3"),
    # an exception class of its own (a stand-in in the judge), raised from a callback's call
    "own_exception": ("class Left(Exception):\n    pass\n"
                      "def add(f, b):\n    try:\n        f(1)\n    finally:\n        raise Left('x')\n",
                      "try:\n    candidate(lambda v: v, 0)\nexcept Exception:\n    pass"),
    # its objects handed to the test's callbacks, which keep them in the test's namespace
    "callback_keeps_handles": ("class Box:\n    pass\ndef add(f, b):\n    for _ in range(50):\n        f(Box())\n    return 3\n",
                               "kept = []\nassert candidate(kept.append, 0) == 3"),
    # a generator the test abandons halfway, a handle to a function, a deep value
    "abandoned_generator": ("def add(a, b):\n    def g():\n        while True:\n            yield add\n    return g()\n",
                            "it = candidate(1, 2)\nnext(it)\nnext(it)"),
}

FIND_PROGRAM = ("import sys\n"
                "def add(a, b):\n    return a + b\n")
FINDS = ("import sys\nassert 'xml.dom.minidom' not in sys.modules",
         "import gc, sys\nmine = {id(h) for h in sys.modules['_coderl_server.judge.handles'].JUDGE.handles.values()}\n"
         "assert not [o for o in gc.get_objects() if type(o).__name__ == 'Handle' and id(o) not in mine]",
         "assert candidate(2, 2) == 4")


@pytest.mark.parametrize("case", sorted(POISONERS))
def test_a_program_cannot_leave_anything_for_the_next_request(sandbox, case):
    program, test = POISONERS[case]
    results = run_all(sandbox, [request(program=program, tests=(test,)), request(program=FIND_PROGRAM, tests=FINDS)])
    assert results[1].passed, results[1].message
