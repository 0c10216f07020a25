"""A program iterator that yields an object it keeps (a reused buffer, a backtracking path, a stored row) hands the
test that very object in Python: `list(chunks(xs, 2))` of a generator that clears and refills one list sees the
list's last state in every entry, and a test that collects before it compares fails such a program. The judge got
a copy of each item as it was yielded, so the wrong program passed (found by a review, 2026-11-28). Now an item the
program still holds crosses with an alias id (`Program.next_items`): the test gets one object per program object,
holding the program's state as the test reads each item and, at the end of the iteration, the state then.

Differential: generated producers (a list, dict, set or bytearray kept and changed in place, or copied, or
stored and changed after its yield) under consumers that compare as they read, collect first, hold two items, or
test identity, each against `python` running the same program and test."""

from __future__ import annotations

import copy
import itertools

from .helpers import judged_as_python

# Each producer yields `Y(...)`: as written in the program, `Y(x)` is `x` (the object itself) or a copy (the
# correct version of the same generator); the expected items come from the copying version, run here.
PRODUCERS = {
    "buffer cleared": "    buf = []\n    for i in range(n):\n        buf.append(i)\n        if len(buf) == 2:\n"
                      "            yield Y(buf)\n            buf.clear()\n    if buf:\n        yield Y(buf)\n",
    "growing list": "    acc = []\n    for i in range(n):\n        acc.append(i * i)\n        yield Y(acc)\n",
    "path": "    path = []\n    def go(k):\n        if k == 0:\n            yield Y(path)\n            return\n"
            "        for c in 'ab':\n            path.append(c)\n            yield from go(k - 1)\n            path.pop()\n"
            "    yield from go(min(n, 3))\n",
    "record": "    rec = {}\n    for i in range(n):\n        rec['i'] = i\n        rec[i] = str(i)\n        yield Y(rec)\n",
    "set": "    s = set()\n    for i in range(n):\n        s.add(i % 3)\n        yield Y(s)\n",
    "bytes": "    b = bytearray()\n    for i in range(n):\n        b.append(65 + i)\n        yield Y(b)\n",
    "stored rows": "    rows = [[i] for i in range(n)]\n    for r in rows:\n        yield Y(r)\n",
    "rows changed after": "    rows = [[i] for i in range(n)]\n    for r in rows:\n        yield Y(r)\n        r.append(-1)\n",
}
CONSUMERS = {
    "collect": "    assert list(candidate({n})) == {want!r}\n",
    "compare as read": "    for got, w in zip(candidate({n}), {want!r}):\n        assert got == w\n",
    "hold two": "    g = candidate({n})\n    first = next(g)\n    next(g)\n    assert first == {want!r}[0]\n",
    "identity": "    got = list(candidate({n}))\n    assert got[0] is not got[1]\n",
    "lengths": "    assert [len(x) for x in candidate({n})] == {lengths!r}\n",
}


def _expected(body, n):
    ns = {"Y": copy.copy}
    exec("def f(n):\n" + body, ns)  # noqa: S102 - the test's own generator source
    return [copy.copy(x) for x in ns["f"](n)]


def _cases():
    cases = []
    for (label, body), (how, make), n in itertools.product(PRODUCERS.items(), CONSUMERS.items(), (4, 5)):
        want = _expected(body, n)
        test = "def check(candidate):\n" + make.format(n=n, want=want, lengths=[len(x) for x in want])
        for y in ("x", "copy.copy(x)"):
            completion = "    import copy\n    Y = lambda x: " + y + "\n" + body
            cases.append((f"{label}/{how}/n={n}/{'copy' if 'copy' in y else 'itself'}", completion, test))
    return cases


def test_a_kept_object_a_program_iterator_yields_is_one_object_in_the_test_as_in_python():
    plain = judged_as_python((name, "def f(n):\n", completion, test, "f") for name, completion, test in _cases())
    assert sum(plain.values()) >= 60 and sum(not p for p in plain.values()) >= 25  # both verdicts occur
    assert all(plain[name] for name in plain if name.endswith("/copy") and "/identity/" not in name)


def test_a_forged_alias_is_a_protocol_break_or_a_value_of_its_own():
    """The alias tags are the program's word: an id that is not a number, or a value that is not a list, dict, set
    or bytearray, ends the channel; an id naming an object of another type gives a new object, never a changed
    one of another kind."""
    import types

    import pytest

    from coderl.sandbox.server.common import wire
    from coderl.sandbox.server.judge import tester
    judge = tester.Judge(types.SimpleNamespace())
    for bad in (["x", [1]], [1], [1, 2], [1, "s"], "x"):
        with pytest.raises(wire.Gone):
            judge.aliased(bad)
    first = judge.alias(*judge.aliased([3, [1, 2]]))
    again = judge.alias(*judge.aliased([3, [5]]))
    assert again is first and first == [5]
    other = judge.alias(3, {"a": 1})
    assert other == {"a": 1} and first == [5]
