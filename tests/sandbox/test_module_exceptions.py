"""An exception class that an imported module defines (`json.JSONDecodeError`, `statistics.StatisticsError`,
`decimal.InvalidOperation`, ...) raised by the program is caught by a test's `except module.Class` as in Python
(`wire.module_class`, `wire.module_class_named`): the judge takes its own class of that name from a module the
test imported.  Before (at 86a70e8) it was a stand-in for a class of the program's, which no `except json.
JSONDecodeError` catches: a correct program failed.  A class the program makes and names after a module's is
still its own.  Differential: every case against the plain interpreter."""

from __future__ import annotations

import itertools
import subprocess
import sys

from coderl.sandbox.client import Sandbox
from coderl.sandbox.types import ExecutionRequest, Limits, Mode, TestCase

RAISERS = {  # module, the class the call raises, a sibling class it does not raise, the program's body
    "json": ("json", "JSONDecodeError", "JSONDecodeError", "    import json\n    return json.loads('{bad')\n"),
    "statistics": ("statistics", "StatisticsError", "StatisticsError",
                   "    import statistics\n    return statistics.mean([])\n"),
    "decimal": ("decimal", "InvalidOperation", "DivisionByZero",
                "    import decimal\n    return decimal.Decimal('x')\n"),
    "decimal zero": ("decimal", "DivisionByZero", "InvalidOperation",
                     "    import decimal\n    return decimal.Decimal(1) / decimal.Decimal(0)\n"),
    "re": ("re", "error", "error", "    import re\n    return re.compile('(')\n"),
    "struct": ("struct", "error", "error", "    import struct\n    return struct.unpack('>I', b'12')\n"),
    "binascii via base64": ("binascii", "Error", "Incomplete",
                            "    import base64\n    return base64.b64decode('abc', validate=True)\n"),
    "csv": ("csv", "Error", "Error", "    import csv\n    return list(csv.reader(['a,\"b'], strict=True))\n"),
    "queue": ("queue", "Empty", "Full", "    import queue\n    return queue.Queue().get_nowait()\n"),
    "configparser": ("configparser", "NoSectionError", "NoOptionError",
                     "    import configparser\n    return configparser.ConfigParser().get('s', 'o')\n"),
    "xml": ("xml.etree.ElementTree", "ParseError", "ParseError",
            "    import xml.etree.ElementTree as ET\n    return ET.fromstring('<a>')\n"),
    "calendar": ("calendar", "IllegalMonthError", "IllegalWeekdayError",
                 "    import calendar\n    return calendar.monthrange(2024, 13)\n"),
    "made and named after json's": ("json", "JSONDecodeError", "JSONDecodeError",
                                    "    class JSONDecodeError(ValueError):\n        pass\n"
                                    "    JSONDecodeError.__module__ = 'json'\n"
                                    "    JSONDecodeError.__qualname__ = 'JSONDecodeError'\n"
                                    "    raise JSONDecodeError('x')\n"),
}
CATCHES = {
    "the class": lambda module, cls, other: f"except {module}.{cls}:\n    pass",
    "a sibling": lambda module, cls, other: f"except {module}.{other}:\n    pass",
    "Exception": lambda module, cls, other: "except Exception:\n    pass",
    "by its name": lambda module, cls, other: f"except Exception as e:\n    assert type(e).__name__ == {cls!r}",
}
CASES = [(r, c) for r, c in itertools.product(RAISERS, CATCHES) if not (c == "a sibling" and RAISERS[r][1] ==
                                                                        RAISERS[r][2])]


def _test(raiser, catch):
    module, cls, other, _ = RAISERS[raiser]
    return f"import {module}\ntry:\n    candidate()\n{CATCHES[catch](module, cls, other)}\nelse:\n    assert False\n"


def _plain(raiser, catch):
    body = "".join("    " + line + "\n" for line in _test(raiser, catch).splitlines())
    source = "def f():\n" + RAISERS[raiser][3] + "\ndef check(candidate):\n" + body + "check(f)\n"
    return subprocess.run([sys.executable, "-s", "-c", source], capture_output=True, timeout=60).returncode == 0


def test_a_modules_exception_class_is_caught_as_in_python():
    requests = [ExecutionRequest(Mode.PYTHON_TESTS, program="def f():\n" + RAISERS[r][3], entry_point="f",
                                 limits=Limits(), tests=(TestCase("0", _test(r, c)),)) for r, c in CASES]
    with Sandbox(workers=2) as sb:
        results = sb.run_many(requests)
    plain = {case: _plain(*case) for case in CASES}
    assert sum(plain.values()) >= 25 and sum(not p for p in plain.values()) >= 7  # both verdicts occur
    got = {case: r.passed for case, r in zip(CASES, results)}
    assert got == plain, {case: (got[case], plain[case], r.message[:120])
                          for case, r in zip(CASES, results) if got[case] != plain[case]}
    assert all(r.tamper == [] for r in results)


def test_a_modules_exception_keeps_its_attributes():
    """Found by a review: `e.pos` of a JSONDecodeError was an AttributeError (the instance is rebuilt without its
    `__init__`); its attributes now cross as data."""
    test = ("import json\ntry:\n    candidate('{\"a\": 1,}')\nexcept json.JSONDecodeError as e:\n"
            "    assert (e.pos, e.lineno, e.colno) == (8, 1, 9) and e.msg and e.doc == '{\"a\": 1,}'\n"
            "else:\n    assert False\n")
    program = "def f(text):\n    import json\n    return json.loads(text)\n"
    source = program.replace("def f", "def candidate") + test
    plain = subprocess.run([sys.executable, "-s", "-c", source], capture_output=True, timeout=60)
    assert plain.returncode == 0, plain.stderr
    with Sandbox(workers=1) as sb:
        result = sb.run(ExecutionRequest(Mode.PYTHON_TESTS, program=program, entry_point="f", limits=Limits(),
                                         tests=(TestCase("0", test),)))
    assert result.passed, result.message
