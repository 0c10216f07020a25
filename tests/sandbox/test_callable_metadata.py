"""What a program reads of a test's callable besides calling it, and what a test reads of a program's function, as
in Python (found by a review, 2026-11-28; differential against `python` running prompt + completion + test): a
decorator task's program reads `fn.__name__` for a log line, copies it with `functools.wraps`, or counts its
parameters with `inspect.signature` to curry it; the test then reads the wrapper's `__name__` and `__doc__`. The
program's stand-in for a test callable had none of them (an AttributeError failed correct programs), and a
program function's `__name__`, `__qualname__`, `__doc__` and `__wrapped__` were not read through its handle. Now
the callable's name, qualified name, docstring, module and parameters go with it (`tester._metadata`), and those
four attributes of a program object are read as data (`handles.READABLE`)."""

from __future__ import annotations

import itertools
import subprocess
import sys

from .helpers import judged_as_python

FUNCS = {  # test callables: (definition, name the test passes, one call's arguments)
    "plain": ("    def area(w, h):\n        '''Width times height.'''\n        return w * h\n", "area", "(2, 3)"),
    "defaults": ("    def scale(x, k=2, *rest, flag=False, **more):\n        return x * k\n", "scale", "(4,)"),
    "odd defaults": ("    def clamp(x, lo=float('-inf'), hi=float('nan'), pair=(1, 2)):\n        return x\n", "clamp",
                     "(4,)"),
    "positional": ("    def first(a, /, b):\n        return a\n", "first", "(1, 2)"),
    "lambda": ("    sq = lambda x: x * x\n", "sq", "(3,)"),
    "nested": ("    class Box:\n        @staticmethod\n        def twice(x):\n            return 2 * x\n", "Box.twice",
               "(5,)"),
}
PROGRAMS = {  # what the program reads: (completion of `def f(fn):`, whether the reading is right)
    "name": "    return fn.__name__\n",
    "qualname": "    return fn.__qualname__.split('.')[-1]\n",
    "doc": "    return fn.__doc__\n",
    "signature": "    import inspect\n    return str(inspect.signature(fn))\n",
    "arity": "    import inspect\n    return len(inspect.signature(fn).parameters)\n",
    "log line": "    return f'{fn.__name__} -> ' + str(fn(ARGS))\n",
    "wraps": "    import functools\n    @functools.wraps(fn)\n    def wrapper(*a, **k):\n        return fn(*a, **k)\n"
             "    return (wrapper.__name__, wrapper.__doc__, wrapper(ARGS))\n",
    "wrapper read by the test": "    import functools\n    @functools.wraps(fn)\n    def wrapper(*a, **k):\n"
                                "        return fn(*a, **k)\n    return wrapper\n",
    "wrong name": "    return fn.__name__ + '_'\n",
}


def _cases():
    cases = []
    for (fname, (define, passed, args)), (pname, body) in itertools.product(FUNCS.items(), PROGRAMS.items()):
        body = body.replace("ARGS", args[1:-1].rstrip(",") or "")
        name = f"{fname}/{pname}"
        if pname == "wrapper read by the test":
            check = (f"    w = candidate({passed})\n    assert (w.__name__, w.__qualname__, w.__doc__, w{args}) == "
                     f"({passed}.__name__, {passed}.__qualname__, {passed}.__doc__, {passed}{args})\n"
                     f"    assert w.__wrapped__ is {passed}\n")
        else:
            check = f"    assert candidate({passed}) == EXPECTED\n"
        cases.append((name, body, "def check(candidate):\n" + define + check))
    return cases


def _run_plain(source):
    return subprocess.run([sys.executable, "-s", "-c", source], capture_output=True, text=True, timeout=60)


def _expected(body, test):
    """The program's answer in plain Python, written into the test as a literal (a wrong program's `wrong name`
    answer is compared with the right one's)."""
    if "EXPECTED" not in test:
        return test
    right = body.replace("fn.__name__ + '_'", "fn.__name__")
    probe = test.replace("    assert candidate(", "    print(repr(candidate(").replace(") == EXPECTED", ")))")
    out = _run_plain("def f(fn):\n" + right + "\n" + probe + "\ncheck(f)\n")
    assert out.returncode == 0, out.stderr
    return test.replace("EXPECTED", out.stdout.strip())


def test_a_callables_name_doc_and_signature_read_as_in_python():
    cases = [(name, body, _expected(body, test)) for name, body, test in _cases()]
    plain = judged_as_python((name, "def f(fn):\n", body, test, "f") for name, body, test in cases)
    assert plain == {name: not name.endswith("wrong name") for name, _, _ in cases}
