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
    # kept objects inside a fresh item, inside a kept one, and of the collections types
    "buffer in a tuple": "    buf = []\n    for i in range(n):\n        buf.append(i)\n        yield i, Y(buf)\n",
    "buffer in a fresh list": "    buf = {}\n    for i in range(n):\n        buf[i] = i\n        yield [Y(buf), i]\n",
    "kept tuple": "    buf = []\n    t = ('t', buf)\n    for i in range(n):\n        buf.append(i)\n        yield Y(t)\n",
    "kept grid": "    grid = [[0, 0] for _ in range(2)]\n    for i in range(n):\n        grid[i % 2][0] = i\n"
                 "        yield Y(grid)\n",
    "row of a record": "    rec = {'row': []}\n    for i in range(n):\n        rec['row'].append(i)\n"
                       "        yield {'i': i, 'row': Y(rec['row'])}\n",
    "Counter": "    import collections\n    c = collections.Counter()\n    for i in range(n):\n        c[i % 2] += 1\n"
               "        yield Y(c)\n",
    "deque": "    import collections\n    q = collections.deque(maxlen=3)\n    for i in range(n):\n        q.append(i)\n"
             "        yield Y(q)\n",
    "list subclass": "    class Row(list):\n        pass\n    buf = Row()\n    for i in range(n):\n        buf.append(i)\n"
                     "        yield Y(buf)\n",
}
CONSUMERS = {
    "collect": "    assert list(candidate({n})) == {want!r}\n",
    "compare as read": "    for got, w in zip(candidate({n}), {want!r}):\n        assert got == w\n",
    "hold two": "    g = candidate({n})\n    first = next(g)\n    next(g)\n    assert first == {want!r}[0]\n",
    "identity": "    got = list(candidate({n}))\n    assert got[0] is not got[1]\n",
    "lengths": "    assert [len(x) for x in candidate({n})] == {lengths!r}\n",
}


def _expected(body, n):
    ns = {"Y": copy.deepcopy}
    exec("def f(n):\n" + body, ns)  # noqa: S102 - the test's own generator source
    return [copy.deepcopy(x) for x in ns["f"](n)]


def _cases():
    cases = []
    for (label, body), (how, make), n in itertools.product(PRODUCERS.items(), CONSUMERS.items(), (4, 5)):
        want = _expected(body, n)
        test = ("def check(candidate):\n    from collections import Counter, deque\n"
                + make.format(n=n, want=want, lengths=[len(x) for x in want]))
        for y in ("x", "copy.deepcopy(x)"):
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

    def read(pair):  # an aliased item as the test reads it: its state given to the judge's one object
        pending = []
        held = judge.aliased(pair, pending)
        for aid, value in pending:
            judge.alias(aid, value)
        return held

    first = read([3, [1, 2]])
    again = read([3, [5]])
    assert again is first and first == [5]
    other = read([3, {"$d": [["a", 1]]}])
    assert other == {"a": 1} and first == [5]
    # nested: an id inside the value of another is one object too; a tag inside a tag of the wrong kind ends it
    outer = read([4, [{"$al": [3, {"$d": [["b", 2]]}]}, 7]])
    assert outer == [{"b": 2}, 7] and outer[0] is other
    for bad in ([5, {"$al": [3, 1]}], [5, [{"$al": "x"}]]):
        with pytest.raises(wire.Gone):
            judge.aliased(bad, [])
    with pytest.raises(wire.Gone):  # outside a program iterator's items, an alias tag is no tag of the program's
        judge.into({"$al": [3, [1]]})


def test_kept_objects_that_are_not_data_or_are_the_tasks_still_cross_as_before():
    """A kept bytearray subclass is a handle (the program's own object, no alias); a kept list inside a kept tuple
    inside a kept dict is one object at every depth."""
    producers = {
        "bytearray subclass": "    class B(bytearray):\n        pass\n    b = B()\n    for i in range(n):\n"
                              "        b.append(65 + i)\n        yield b\n",
        "deep": "    buf = []\n    t = (buf,)\n    d = {'t': t}\n    for i in range(n):\n        buf.append(i)\n"
                "        yield {'d': d, 'i': i}\n",
    }
    tests = {
        "bytearray subclass": "def check(candidate):\n    got = list(candidate(3))\n    assert got[0] is got[2]\n"
                              "    assert len(got[0]) == 3\n",
        "deep": "def check(candidate):\n    got = list(candidate(3))\n    assert got[0]['d']['t'][0] is got[2]['d']['t'][0]\n"
                "    assert got[0]['d']['t'][0] == [0, 1, 2] and [g['i'] for g in got] == [0, 1, 2]\n",
    }
    plain = judged_as_python((name, "def f(n):\n", body, tests[name], "f") for name, body in producers.items())
    assert plain == {"bytearray subclass": True, "deep": True}


def test_what_is_looked_inside_goes_by_the_real_type():
    """An object whose `__class__` says list is no container to `kept` (its type decides): nothing of it is walked
    with list's methods, which would raise in the program's harness."""
    from coderl.sandbox.server.program import kept

    class Fake:
        @property
        def __class__(self):
            return list

    fake, buf = Fake(), [1]
    assert isinstance(fake, list) and not kept.container(fake)
    assert kept.held_inside((0, fake), False, {}) == {}
    found = kept.held_inside((fake, buf), False, {})  # `buf` is held here, beyond the item: aliased; `fake` never
    assert found == {id(buf): buf}
