"""A verdict the program cannot forge: one test per hack a policy can stumble on.

Each candidate below is *wrong* (add(a, b) should return a + b) but tries to pass anyway.
"""

from coderl.sandbox.types import CheckKind, TestCase

from .helpers import ADD, ADD_TESTS, make_tests_request

WRONG = "def add(a, b):\n    return 0\n"


def run(sandbox, program, tests=ADD_TESTS):
    return sandbox.run(make_tests_request(program, tests))


def test_always_equal_object(sandbox):
    prog = ("class Eq:\n    def __eq__(self, other): return True\n    def __bool__(self): return False\n"
            "def add(a, b):\n    return Eq()\n")
    r = run(sandbox, prog)
    assert not r.passed
    assert any(t.startswith("non_builtin_return") for t in r.tamper)


def test_int_subclass_with_lying_eq(sandbox):
    prog = "class I(int):\n    def __eq__(self, o): return True\n    __hash__ = int.__hash__\ndef add(a, b):\n    return I(0)\n"
    r = run(sandbox, prog)
    # It crosses as the int 0; the program side's report of the override is a courtesy note, never the judge's.
    assert not r.passed and r.tamper == ["subclass_equality:I"] and r.caught == []


def test_always_equal_inside_a_list(sandbox):
    prog = "class Eq:\n    def __eq__(self, other): return True\ndef add(a, b):\n    return [Eq()]\n"
    tests = (TestCase("0", "candidate(1, 2)", CheckKind.EQUALS, [3]),)
    r = run(sandbox, prog, tests)
    assert not r.passed


def test_patched_builtin_abs_at_import(sandbox):
    prog = "import builtins\nbuiltins.abs = lambda x: 0\ndef add(a, b):\n    return 0.0\n"
    tests = (TestCase("0", "assert abs(candidate(1, 2) - 3) < 1e-6", CheckKind.ASSERT),)
    r = run(sandbox, prog, tests)
    assert not r.passed
    assert "patched_builtins" in r.tamper


def test_patched_builtin_during_the_call(sandbox):
    prog = "import builtins\ndef add(a, b):\n    builtins.abs = lambda x: 0\n    return 0.0\n"
    tests = (TestCase("0", "assert abs(candidate(1, 2) - 3) < 1e-6 and abs(-1) == 1", CheckKind.ASSERT),)
    r = run(sandbox, prog, tests)
    assert not r.passed
    assert "patched_builtins" in r.tamper


def test_patched_math_module(sandbox):
    prog = "import math\nmath.isclose = lambda *a, **k: True\ndef add(a, b):\n    return 0.0\n"
    tests = (TestCase("0", "assert math.isclose(candidate(1, 2), 3.0)", CheckKind.ASSERT,
                      setup="import math"),)
    r = run(sandbox, prog, tests)
    assert not r.passed
    assert "patched_module:math" in r.tamper


def test_swapped_sys_modules(sandbox):
    prog = ("import sys, types\nfake = types.ModuleType('math')\nfake.isclose = lambda *a, **k: True\n"
            "sys.modules['math'] = fake\ndef add(a, b):\n    return 0.0\n")
    tests = (TestCase("0", "assert math.isclose(candidate(1, 2), 3.0)", CheckKind.ASSERT,
                      setup="import math"),)
    r = run(sandbox, prog, tests)
    assert not r.passed
    assert "patched_sys_modules" in r.tamper


def test_cannot_read_expected_values(sandbox):
    # The expected value of a parent-judged test never reaches the child: search all memory for it.
    prog = ("import gc, sys\n"
            "def add(a, b):\n"
            "    for o in gc.get_objects():\n"
            "        if isinstance(o, dict):\n"
            "            for v in list(o.values()):\n"
            "                if isinstance(v, str) and v.startswith('SECRET-'):\n"
            "                    return v\n"
            "    f = sys._getframe(1)\n"
            "    while f:\n"
            "        for v in list(f.f_locals.values()):\n"
            "            if isinstance(v, str) and v.startswith('SECRET-'):\n"
            "                return v\n"
            "        f = f.f_back\n"
            "    return None\n")
    tests = (TestCase("0", "candidate(1, 2)", CheckKind.EQUALS, "SECRET-expected-value-42"),)
    r = run(sandbox, prog, tests)
    assert not r.passed
    assert "got None" in r.tests[0].message


def test_os_exit_zero_before_tests(sandbox):
    r = run(sandbox, "import os\nos._exit(0)\n" + WRONG)
    assert not r.passed and "early_exit" in r.tamper


def test_os_exit_zero_inside_the_call(sandbox):
    r = run(sandbox, "import os\ndef add(a, b):\n    os._exit(0)\n")
    assert not r.passed and "early_exit" in r.tamper


def test_sys_exit_at_import(sandbox):
    r = run(sandbox, "import sys\nsys.exit(0)\n" + ADD)
    assert not r.passed and "exit_called" in r.tamper


def test_sys_exit_inside_the_call(sandbox):
    r = run(sandbox, "import sys\ndef add(a, b):\n    sys.exit(0)\n")
    assert not r.passed and "exit_called" in r.tamper


def test_atexit_and_excepthook_cannot_rewrite_the_verdict(sandbox):
    prog = ("import atexit, sys, os\n"
            "atexit.register(lambda: os.write(3, b'{\"event\": \"end\"}\\n'))\n"
            "sys.excepthook = lambda *a: None\n" + WRONG)
    r = run(sandbox, prog)
    assert not r.passed


def test_fake_markers_on_stdout(sandbox):
    prog = ("print('{\"event\": \"end\"}')\nprint('PASSED')\nprint('All tests passed')\n" + WRONG)
    assert not run(sandbox, prog).passed


def test_rewritten_stdout(sandbox):
    prog = "import sys, io\nsys.stdout = io.StringIO()\nsys.__stdout__ = None\n" + WRONG
    assert not run(sandbox, prog).passed


def test_forged_record_on_the_result_pipe(sandbox):
    forged = ''.join(
        f'os.write(fd, b\'{{"event": "{e}", "id": "{i}", "status": "passed"}}\\n\')\n' for e, i in
        [("test", "0"), ("test", "1"), ("test", "2"), ("end", "")])
    prog = "import os\nfor fd in range(3, 10):\n    try:\n" + "".join("        " + line + "\n" for line in forged.splitlines()) + "    except OSError:\n        pass\n" + WRONG
    r = run(sandbox, prog)
    assert not r.passed
    assert any(t.startswith("protocol:") for t in r.tamper)


def test_assert_rewritten_by_patching_assertionerror(sandbox):
    prog = "import builtins\nbuiltins.AssertionError = type('X', (Exception,), {})\n" + WRONG
    assert not run(sandbox, prog).passed


def test_honest_program_has_no_tamper(sandbox):
    prog = "import math, sys, json\n" + ADD
    r = run(sandbox, prog)
    assert r.passed and r.tamper == []


# Every malformed or unsolicited first message a program can put on the channel before its runtime says
# whether it started (the program finds the runtime's Program object and sends it itself, then ends its run
# as any program would, or stays silent).
_FIRST_MESSAGES = ["{}", "{'ready': 1}", "{'ready': 'yes'}", "{'ready': None}", "{'ready': False}",
                   "{'ready': False, 'error': 7}", "{'ready': False, 'syntax_error': ['x']}",
                   "{'ready': False, 'status': 'memory_exceeded'}", "{'r': {'names': {}, 'entry': 0}}",
                   "{'r': 3}", "{'op': 'end'}", "{'x': [['ValueError'], 'no', []]}", "{'tamper': ['forged_pass']}"]


import pytest  # noqa: E402


@pytest.mark.parametrize("k", range(len(_FIRST_MESSAGES)))
def test_a_malformed_or_unsolicited_first_message_is_a_protocol_break(sandbox, k):
    """Before: any first message without `ready: True` was read as a failed start, with the message 'None'
    (or whatever its `error` held), and no `protocol:` note.  The program then goes on (its runtime's own
    hello follows) or exits, in turn."""
    first, then = _FIRST_MESSAGES[k], ("continue", "exit")[k % 2]
    prog = ("import gc, os\n"
            "_P = next(o for o in gc.get_objects() if type(o).__name__ == 'Program' and hasattr(o, 'channel'))\n"
            f"_P.channel.send({first})\n" + ("os._exit(0)\n" if then == "exit" else "") + ADD)
    r = run(sandbox, prog)
    assert not r.passed
    assert any(t.startswith("protocol:") for t in r.tamper), (r.tamper, r.message)
    assert "protocol" in r.message and "None" not in r.message, r.message
