"""Values that crossed wrongly, found by a review (2026-11-28), each against `python` running prompt + completion +
test: a builtin the program returns (`type(x)`, `max if big else min`) was a handle, so `candidate(5) is int`
failed (now it crosses by name as the judge's own, `wire.BUILTINS_BY_NAME`: classes and functions of their
arguments only); a slice could not be sent, so `seq[1:3]` on the task's class failed; an `OSError` lost its
`filename` (its constructor's arguments now cross) and a generator's `return 7` its `StopIteration.value`."""

from __future__ import annotations

import pytest

from .helpers import judged_as_python

SEQ = ("class Seq:\n    def __init__(self, xs):\n        self.xs = list(xs)\n\n    def __getitem__(self, i):\n"
       "        return self.xs[i] if isinstance(i, int) else Seq(self.xs[i])\n\n    def __len__(self):\n"
       "        return len(self.xs)\n\n    def __eq__(self, other):\n        return list(self) == list(other)\n")
CASES = [  # name, prompt, completion, test, entry point
    ("type", "def f(x):\n", "    return type(x)\n",
     "    assert candidate(5) is int\n    assert candidate('a') == str\n    assert candidate(1.5) is not int\n", "f"),
    ("type wrong", "def f(x):\n", "    return int\n", "    assert candidate('a') is str\n", "f"),
    ("function", "def f(big):\n", "    return max if big else min\n",
     "    assert candidate(True) is max\n    assert candidate(False)([3, 1]) == 1\n", "f"),
    ("function wrong", "def f(big):\n", "    return min\n", "    assert candidate(True) is max\n", "f"),
    ("class", "def f():\n", "    return dict\n", "    assert candidate()(a=1) == {'a': 1}\n", "f"),
    ("as a value test", "def f():\n", "    return int\n", "    assert candidate() == 5\n", "f"),
    ("exception class", "def f():\n", "    return KeyError\n",
     "    assert issubclass(candidate(), LookupError)\n", "f"),
    ("slices", "", SEQ, "    s = candidate([1, 2, 3, 4])\n    assert list(s[1:3]) == [2, 3]\n"
                        "    assert list(s[::-1]) == [4, 3, 2, 1]\n    assert s[-1] == 4\n", "Seq"),
    ("slice wrong", "", SEQ.replace("Seq(self.xs[i])", "Seq(self.xs[i][1:])"),
     "    s = candidate([1, 2, 3, 4])\n    assert list(s[1:3]) == [2, 3]\n", "Seq"),
    ("filename", "def f(p):\n", "    return open(p).read()\n",
     "    try:\n        candidate('/nonexistent/x')\n    except FileNotFoundError as e:\n"
     "        assert (e.errno, e.filename, e.args) == (2, '/nonexistent/x', (2, 'No such file or directory'))\n"
     "    else:\n        assert False\n", "f"),
    ("oserror without a file", "def f():\n", "    raise OSError(5, 'io')\n",
     "    try:\n        candidate()\n    except OSError as e:\n        assert e.errno == 5 and e.filename is None\n", "f"),
    ("return value", "def f():\n", "    def g():\n        yield 1\n        return [7]\n    return g()\n",
     "    it = candidate()\n    assert next(it) == 1\n    try:\n        next(it)\n    except StopIteration as e:\n"
     "        assert e.value == [7]\n    else:\n        assert False\n", "f"),
    ("no return value", "def f():\n", "    return iter([1])\n",
     "    it = candidate()\n    next(it)\n    try:\n        next(it)\n    except StopIteration as e:\n"
     "        assert e.value is None\n", "f"),
]


def test_builtins_slices_and_exception_details_cross_as_in_python():
    plain = judged_as_python((name, prompt, completion, "def check(candidate):\n" + test, entry)
                             for name, prompt, completion, test, entry in CASES)
    assert plain == {name: "wrong" not in name and name != "as a value test" for name, *_ in CASES}


@pytest.mark.parametrize("name", ["open", "exec", "eval", "compile", "__import__", "globals", "vars", "getattr",
                                  "setattr", "input", "print", "breakpoint"])
def test_a_builtin_that_reads_or_runs_code_or_state_does_not_cross_by_name(name):
    """The program's word names the builtin: only the judge's list crosses (a forged `{"$bi": "open"}` ends the
    channel; the program's own `open` stays a handle)."""
    import types

    from coderl.sandbox.server.common import wire
    from coderl.sandbox.server.judge import tester
    assert name not in wire.BUILTINS_BY_NAME
    with pytest.raises(wire.Gone):
        tester.Judge(types.SimpleNamespace()).into({"$bi": name})
