"""Generated test files and solutions for the differential between coderl's test-file runner and real pytest (issue
99 item 1), both run inside coderl's sandbox: pytest through the repository grader's own run (its environment's pytest
9, coderl's reporter giving each collected test's outcome), coderl through the test-file kind.

Each `Case` is one test file with one solution module.  The file is written with `{M}` where the solution module is
named: coderl's copy imports `solution` (what the kind reads), pytest's copy `sol_<n>` (so many cases run in one pytest
process, each its own module).  The families cover what the kind supports -- plain asserts, `raises` (context and
callable, `match`, tuples, `excinfo`), `approx` (numbers, sequences, dicts; rel, abs, nan_ok; at its tolerance's edge),
parametrize (stacked, `param` with ids, one name taking tuples whole), fixtures (chains, `yield` with a failing
teardown, autouse, `tmp_path`), `Test*` classes with setup/teardown -- over right, wrong and hostile solutions, and the
outcomes pytest makes uncatchable (`fail`, `skip`, a raises that did not raise) caught by the file or by the
solution.  `fools_pytest` marks a case where pytest itself is fooled (a bare `except:` swallowing `pytest.fail`): there
coderl must fail the test, and the case is listed, not compared."""

from __future__ import annotations

import random
from dataclasses import dataclass


@dataclass(frozen=True)
class Case:
    name: str
    family: str
    test_file: str  # with {M} for the solution module's name
    solution: str
    fools_pytest: bool = False

    def for_coderl(self) -> str:
        return self.test_file.replace("{M}", "solution")

    def for_pytest(self, module: str) -> str:
        return self.test_file.replace("{M}", module)


def _asserts_and_approx(rng: random.Random, n: int) -> Case:
    k = rng.choice([1, 3, 7, 0.1, 2.5])
    delta = rng.choice([0, 0, 1e-13, 1e-9, 5e-7, 1e-6, 2e-6, 1e-4, 0.01, 0.5])
    solution = f"def f(x):\n    return x * {k!r} + {delta!r}\n\ndef pair(x):\n    return [f(x), f(x + 1)]\n\n" \
               f"def table(x):\n    return {{'a': f(x), 'b': f(2 * x)}}\n"
    x = rng.choice([0, 1, 3, -2, 1e6, 1e-6])
    tol = rng.choice(["", "", ", rel=1e-3", ", abs=1e-5", ", rel=1e-9, abs=1e-12", ", abs=0.6", ", rel=0"])
    lines = [f"def test_number():\n    assert f({x!r}) == pytest.approx({x!r} * {k!r}{tol})\n",
             f"def test_sequence():\n    assert pair({x!r}) == pytest.approx([{x!r} * {k!r}, ({x!r} + 1) * {k!r}]{tol})\n",
             f"def test_tuple_is_not_a_list():\n    assert tuple(pair({x!r})) == pytest.approx(({x!r} * {k!r}, "
             f"({x!r} + 1) * {k!r}){tol})\n",
             f"def test_mapping():\n    assert table({x!r}) == pytest.approx({{'a': {x!r} * {k!r}, 'b': 2 * {x!r} * "
             f"{k!r}}}{tol})\n",
             f"def test_not_equal():\n    assert f({x!r}) != pytest.approx({x!r} * {k!r} + 1{tol})\n",
             "def test_special():\n    assert float('inf') == pytest.approx(float('inf'))\n"
             "    assert float('nan') == pytest.approx(float('nan'), nan_ok=True)\n"
             "    assert [float('nan')] != pytest.approx([float('nan')])\n"]
    rng.shuffle(lines)
    body = "import pytest\nfrom {M} import f, pair, table\n\n\n" + "\n\n".join(lines[:rng.randint(2, len(lines))])
    return Case(f"approx-{n}", "approx", body, solution)


def _raises(rng: random.Random, n: int) -> Case:
    kind = rng.choice(["ValueError", "TypeError", "KeyError", "LookupError", "ZeroDivisionError"])
    message = rng.choice(["negative", "negative value -3", "bad (x)", "x must be >= 0"])
    raises_on = rng.choice(["x < 0", "x <= 0", "False", "True"])
    solution = (f"def g(x):\n    if {raises_on}:\n        raise {kind}({message!r})\n    return x\n\n"
                "def h(x):\n    return 1 / x\n")
    expect = rng.choice(["ValueError", "LookupError", "Exception", "(ValueError, TypeError)", "KeyError",
                         "ZeroDivisionError", "ArithmeticError"])
    match = rng.choice(["", "", ", match='negative'", ", match=r'^negative$'", ", match='bad \\\\(x\\\\)'",
                        ", match=r'>= 0'", ", match='value -3'", ", match='nothing like it'"])
    value = rng.choice([-3, 0, 5])
    tests = [f"def test_context():\n    with pytest.raises({expect}{match}):\n        g({value})\n",
             f"def test_callable():\n    info = pytest.raises({expect}, g, {value})\n    assert info.type is not None\n",
             f"def test_info():\n    with pytest.raises({expect}) as info:\n        g({value})\n"
             f"    assert info.type.__name__ == {kind!r}\n    assert {message!r} in str(info.value)\n",
             f"def test_info_match():\n    with pytest.raises(Exception) as info:\n        g({value})\n"
             f"    info.match({rng.choice(['negative', '^x', 'value'])!r})\n",
             "def test_division():\n    with pytest.raises(ZeroDivisionError):\n        h(0)\n    assert h(2) == 0.5\n"]
    rng.shuffle(tests)
    body = "import pytest\nfrom {M} import g, h\n\n\n" + "\n\n".join(tests[:rng.randint(1, len(tests))])
    return Case(f"raises-{n}", "raises", body, solution)


def _parametrize(rng: random.Random, n: int) -> Case:
    wrong_at = rng.choice([None, 0, 2, 5])
    solution = f"def add(a, b):\n    return a + b + (1 if a == {wrong_at!r} else 0)\n\ndef size(t):\n    return len(t)\n"
    cases = [(rng.randint(0, 6), rng.randint(0, 6)) for _ in range(rng.randint(1, 4))]
    style = rng.choice(["string", "list", "params", "stacked", "one-name"])
    if style == "string":
        test = f"@pytest.mark.parametrize('a, b', {cases!r})\ndef test_add(a, b):\n    assert add(a, b) == a + b\n"
    elif style == "list":
        test = f"@pytest.mark.parametrize(['a', 'b'], {cases!r})\ndef test_add(a, b):\n    assert add(a, b) == a + b\n"
    elif style == "params":
        items = ", ".join(f"pytest.param({a}, {b}, id='c{i}')" for i, (a, b) in enumerate(cases))
        test = f"@pytest.mark.parametrize('a,b', [{items}])\ndef test_add(a, b):\n    assert add(a, b) == a + b\n"
    elif style == "stacked":
        test = (f"@pytest.mark.parametrize('a', {[a for a, _ in cases]!r})\n"
                f"@pytest.mark.parametrize('b', {[b for _, b in cases]!r})\n"
                "def test_add(a, b):\n    assert add(a, b) == a + b\n")
    else:
        test = (f"@pytest.mark.parametrize('pair', {cases!r})\ndef test_whole(pair):\n"
                "    assert size(pair) == 2\n    assert add(*pair) == sum(pair)\n")
    extra = "\n\ndef test_plain():\n    assert add(1, 1) == 2\n" if rng.random() < 0.5 else ""
    return Case(f"parametrize-{n}", "parametrize", "import pytest\nfrom {M} import add, size\n\n\n" + test + extra,
                solution)


def _fixtures(rng: random.Random, n: int) -> Case:
    wrong = rng.random() < 0.3
    solution = ("def store(path, text):\n    path.write_text(text)\n    return len(text)\n\n"
                f"def total(items):\n    return sum(items){' + 1' if wrong else ''}\n")
    teardown_fails = rng.random() < 0.25
    autouse = rng.random() < 0.5
    body = ("import pytest\nfrom {M} import store, total\n\nLOG = []\n\n\n"
            "@pytest.fixture\ndef items():\n    return [1, 2, 3]\n\n\n"
            "@pytest.fixture\ndef more(items):\n    yield items + [4]\n"
            + ("    raise RuntimeError('teardown broke')\n" if teardown_fails else "    LOG.append('down')\n")
            + "\n\n"
            + ("@pytest.fixture(autouse=True)\ndef mark():\n    LOG.append('up')\n    yield\n    LOG.append('after')\n\n\n"
               if autouse else "")
            + "def test_total(items):\n    assert total(items) == 6\n\n\n"
            "def test_chain(more):\n    assert total(more) == 10\n\n\n"
            "def test_file(tmp_path):\n    p = tmp_path / 'x.txt'\n    assert store(p, 'abc') == 3\n"
            "    assert p.read_text() == 'abc'\n\n\n"
            + ("def test_log():\n    assert LOG and LOG[-1] == 'up'\n" if autouse else
               "def test_log():\n    assert 'up' not in LOG\n"))
    return Case(f"fixtures-{n}", "fixtures", body, solution)


def _classes(rng: random.Random, n: int) -> Case:
    wrong = rng.random() < 0.3
    solution = ("class Counter:\n    def __init__(self, start=0):\n        self.n = start\n\n"
                f"    def bump(self):\n        self.n += {2 if wrong else 1}\n        return self.n\n")
    body = ("import pytest\nfrom {M} import Counter\n\n\n"
            "class TestCounter:\n    seen = []\n\n"
            "    def setup_method(self, method):\n        self.c = Counter(10)\n\n"
            "    def teardown_method(self):\n        self.seen.append(1)\n\n"
            "    def test_bump(self):\n        assert self.c.bump() == 11\n\n"
            "    def test_fresh_instance(self):\n        assert self.c.n == 10\n        assert self.c.bump() == 11\n\n"
            "    def test_class_state(self):\n        assert isinstance(self.seen, list)\n")
    return Case(f"classes-{n}", "classes", body, solution)


# outcomes pytest makes uncatchable (OutcomeException is a BaseException), caught where Python would let them be
_CAUGHT = [
    ("file-except-exception-fail", "    try:\n        pytest.fail('no')\n    except Exception:\n        pass\n", False),
    ("file-except-exception-skip", "    try:\n        pytest.skip('no')\n    except Exception:\n        pass\n", False),
    ("file-except-assertion-did-not-raise",
     "    try:\n        with pytest.raises(ValueError):\n            ok(1)\n    except AssertionError:\n        pass\n", False),
    ("file-except-exception-did-not-raise",
     "    try:\n        pytest.raises(ValueError, ok, 1)\n    except Exception:\n        pass\n", False),
    ("file-raises-catches-fail", "    with pytest.raises(Exception):\n        pytest.fail('no')\n", False),
    ("file-raises-assertion-catches-fail", "    with pytest.raises(AssertionError):\n        pytest.fail('no')\n",
     False),
    ("solution-catches-fail", "    assert guarded(lambda: pytest.fail('no')) == 'caught'\n", False),
    ("solution-catches-skip", "    assert guarded(lambda: pytest.skip('no')) == 'caught'\n", False),
    ("solution-catches-did-not-raise",
     "    def check():\n        with pytest.raises(ValueError):\n            ok(1)\n"
     "    assert guarded(check) == 'caught'\n", False),
    ("file-bare-except-fail", "    try:\n        pytest.fail('no')\n    except:\n        pass\n", True),
    ("file-except-baseexception-skip", "    try:\n        pytest.skip('no')\n    except BaseException:\n        pass\n",
     True),
    ("solution-bare-except-fail", "    assert guarded_all(lambda: pytest.fail('no')) == 'caught'\n", True),
    ("file-raises-baseexception-catches-fail", "    with pytest.raises(BaseException):\n        pytest.fail('no')\n",
     True),
]


def _caught(rng: random.Random, n: int) -> Case:
    label, body, fools = _CAUGHT[n % len(_CAUGHT)]
    solution = ("def ok(x):\n    return x\n\n"
                "def guarded(f):\n    try:\n        f()\n    except Exception:\n        return 'caught'\n"
                "    return 'ran'\n\n"
                "def guarded_all(f):\n    try:\n        f()\n    except:  # noqa: E722\n        return 'caught'\n"
                "    return 'ran'\n")
    test = "import pytest\nfrom {M} import ok, guarded, guarded_all\n\n\ndef test_outcome():\n" + body
    test += "    assert ok(2) == 2\n"
    return Case(f"caught-{label}", "caught", test, solution, fools_pytest=fools)


FAMILIES = {"approx": _asserts_and_approx, "raises": _raises, "parametrize": _parametrize, "fixtures": _fixtures,
            "classes": _classes}


def cases(n_per_family: int, seed: int = 0) -> list[Case]:
    """`n_per_family` generated cases of each family (seeded), and every caught-outcome case once."""
    rng = random.Random(seed)
    out = [make(rng, i) for make in FAMILIES.values() for i in range(n_per_family)]
    return out + [_caught(rng, i) for i in range(len(_CAUGHT))]


# what pytest collects (and does not), one construct a file; the loader must count what pytest counts, or refuse
_COLLECTION = [
    "class TestWithInit:\n    def __init__(self):\n        self.x = 1\n\n    def test_a(self):\n        assert ok(1) == 1\n",
    "class TestOuter:\n    class TestInner:\n        def test_a(self):\n            assert ok(1) == 1\n\n"
    "    def test_b(self):\n        assert ok(2) == 2\n",
    "def test_twice():\n    assert ok(1) == 2\n\n\ndef test_twice():\n    assert ok(1) == 1\n",
    "test_lambda = lambda: None\n\n\ndef test_a():\n    assert ok(1) == 1\n",
    "class TestStatic:\n    @staticmethod\n    def test_a():\n        assert ok(1) == 1\n",
    "class TestBase:\n    def test_a(self):\n        assert ok(self.value()) == 1\n\n    def value(self):\n        return 1\n\n\n"
    "class TestChild(TestBase):\n    def value(self):\n        return 2\n",
    "def test():\n    assert ok(1) == 1\n",
    "class Tester:\n    def test_a(self):\n        assert ok(1) == 1\n",
    "def testing_helper():\n    assert ok(1) == 2\n\n\ndef test_a():\n    assert ok(1) == 1\n",
    "async def test_async():\n    assert ok(1) == 2\n",
    "@pytest.mark.parametrize('x', [])\ndef test_empty(x):\n    assert ok(x) == x\n",
    "class TestHidden:\n    __test__ = False\n\n    def test_a(self):\n        assert ok(1) == 2\n",
    "def test_gen():\n    yield ok(1)\n",
    "class TestClassmethod:\n    @classmethod\n    def test_a(cls):\n        assert ok(1) == 1\n",
    "def helper_test():\n    assert ok(1) == 2\n\n\ndef test_a():\n    assert ok(1) == 1\n",
    "class TestAttribute:\n    test_value = 3\n\n    def test_a(self):\n        assert ok(self.test_value) == 3\n",
    "def _test_private():\n    assert ok(1) == 2\n\n\ndef test_a():\n    assert ok(1) == 1\n",
    "@pytest.fixture\ndef test_fixture_named():\n    return 1\n\n\ndef test_a(test_fixture_named):\n"
    "    assert ok(test_fixture_named) == 1\n",
    "@pytest.mark.parametrize('x', [1, 2])\nclass TestParamClass:\n    def test_a(self, x):\n        assert ok(x) == x\n",
    "@pytest.mark.parametrize('x, y', [(1, 1)])\n@pytest.mark.parametrize('x', [2])\ndef test_clash(x, y):\n"
    "    assert ok(x) == y\n",
]

# what approx, raises and fixtures do on inputs pytest accepts (and refuses)
_EDGES = [
    "def test_a():\n    assert ok(True) == pytest.approx(True)\n    assert ok(1) != pytest.approx(True)\n",
    "def test_a():\n    assert ok('a') == pytest.approx('a')\n    assert ok(None) == pytest.approx(None)\n",
    "def test_a():\n    from decimal import Decimal\n    assert ok(Decimal('0.3')) == pytest.approx(Decimal('0.30000001'))\n",
    "def test_a():\n    assert ok([[0.1]]) == pytest.approx([[0.1]])\n",
    "def test_a():\n    assert ok({0.1}) == pytest.approx({0.1})\n",
    "def test_a():\n    assert ok(1 + 1j) == pytest.approx(1 + 1.0000001j)\n",
    "def test_a():\n    assert ok(0.1) == pytest.approx(0.1, rel=-1)\n",
    "def test_a():\n    assert ok(1e308) != pytest.approx(float('inf'))\n    assert ok(float('inf')) != pytest.approx(1e308)\n",
    "def test_a():\n    assert ok(0.1 + 1e-13) == pytest.approx(0.1)\n    assert ok(1e-13) == pytest.approx(0)\n"
    "    assert ok(2e-12) != pytest.approx(0)\n",
    "def test_a():\n    assert ok({'a': 1.0}) != pytest.approx({'b': 1.0})\n    assert ok({'a': 1.0, 'b': 2}) != "
    "pytest.approx({'a': 1.0})\n",
    "def test_a():\n    assert ok([True, 1.0]) == pytest.approx([True, 1.0000001])\n",
    "def test_a():\n    assert ok(3) == pytest.approx(3.0000001, abs=0)\n",
    "def test_a():\n    assert ok((1, 2)) == pytest.approx([1, 2])\n    assert ok([1, 2]) == pytest.approx((1, 2))\n",
    "def test_a():\n    assert ok(0.3) == pytest.approx(0.1 + 0.2, rel=None, abs=None)\n"
    "    assert pytest.approx(0.3) == ok(0.1 + 0.2)\n",
    "def test_a():\n    assert ok([0.1, 0.2]) <= pytest.approx([0.1, 0.2])\n",
    "def test_a():\n    with pytest.raises(ValueError, match='note here'):\n        noted()\n",
    "def test_a():\n    with pytest.raises(MyError):\n        own()\n",
    "def test_a():\n    with pytest.raises(ValueError) as info:\n        own()\n    assert info.type.__name__ == 'MyError'\n",
    "def test_a():\n    with pytest.raises(ValueError, match='a.c'):\n        raise ValueError('abc')\n"
    "    with pytest.raises(ValueError, match=''):\n        raise ValueError('')\n",
    "def test_a():\n    with pytest.raises(ValueError, match='x'):\n        raise ValueError(1, 'x')\n",
    "def test_a():\n    with pytest.raises(KeyError, match='k'):\n        {}['k']\n",
    "def test_a():\n    with pytest.raises(ValueError):\n        pass\n    assert False\n",
    "def test_a():\n    with pytest.raises(SystemExit):\n        leave()\n",
    "def test_a():\n    with pytest.raises(ZeroDivisionError):\n        1 / 0\n        pytest.fail('never here')\n",
    "def test_a():\n    assert pytest.raises(ValueError, int, 'x').type is ValueError\n",
    "def test_a():\n    with pytest.raises(ValueError) as info:\n        int('x')\n    assert info.value.args[0].startswith('invalid')\n"
    "    assert 'ValueError' in repr(info) or True\n",
    "@pytest.fixture\ndef twice():\n    yield 1\n    yield 2\n\n\ndef test_a(twice):\n    assert ok(twice) == 1\n",
    "@pytest.fixture\ndef gen_value():\n    return (i for i in range(3))\n\n\ndef test_a(gen_value):\n"
    "    assert ok(list(gen_value)) == [0, 1, 2]\n",
    "@pytest.fixture\ndef a():\n    return 1\n\n\n@pytest.fixture\ndef b(a):\n    return a + 1\n\n\n"
    "@pytest.mark.parametrize('a', [5])\ndef test_a(b):\n    assert ok(b) == 6\n",
    "@pytest.fixture\ndef a():\n    return 1\n\n\n@pytest.mark.parametrize('a', [5])\ndef test_a(a):\n    assert ok(a) == 5\n",
    "@pytest.fixture(params=[1, 2])\ndef p(request):\n    return request.param\n\n\ndef test_a(p):\n    assert ok(p) > 0\n",
    "def test_a(tmp_path):\n    assert ok(tmp_path).is_dir()\n    assert list(ok(tmp_path).iterdir()) == []\n",
    "class TestA:\n    def setup_method(self):\n        self.x = ok(1)\n\n    def teardown_method(self, m):\n"
    "        assert self.x == 2\n\n    def test_a(self):\n        assert self.x == 1\n",
    "@pytest.fixture(autouse=True)\ndef fails():\n    raise RuntimeError('setup')\n\n\ndef test_a():\n    assert ok(1) == 1\n",
    "def test_a():\n    pytest.importorskip('json')\n    assert ok(1) == 1\n",
    "def test_a():\n    try:\n        assert ok(1) == 2\n    except AssertionError:\n        pass\n",
    "def test_a():\n    assert ok([1, 2]) == [1, 2] and ok((1,)) == (1,) and ok({'a': [1]}) == {'a': [1]}\n",
]

_EDGE_SOLUTION = ("import sys\n\n\ndef ok(x):\n    return x\n\n\nclass MyError(ValueError):\n    pass\n\n\n"
                  "def own():\n    raise MyError('mine')\n\n\ndef noted():\n    e = ValueError('plain')\n"
                  "    e.add_note('note here')\n    raise e\n\n\ndef leave():\n    sys.exit(3)\n")


def constructs() -> list[Case]:
    """Every collection construct and every edge once, with the one solution they call."""
    head = "import pytest\nfrom {M} import ok, own, noted, leave, MyError\n\n\n"
    return ([Case(f"collection-{i}", "collection", head + body, _EDGE_SOLUTION) for i, body in enumerate(_COLLECTION)]
            + [Case(f"edge-{i}", "edge", head + body, _EDGE_SOLUTION) for i, body in enumerate(_EDGES)])


# a solution's objects: every operation Python applies to them, right and wrong solutions, against pytest (item 2)
_OBJECT_OPS = [
    ("add", "assert (V(1, 2) + V(3, 4)).x == 4"),
    ("eq", "assert V(1, 2) == V(1, 2)\n    assert V(1, 2) != V(2, 1)"),
    ("lt", "assert V(1, 2) < V(2, 0)\n    assert sorted([V(3, 0), V(1, 0)])[0].x == 1"),
    ("len", "assert len(V(3, 4)) == 2"),
    ("iter", "assert list(V(3, 4)) == [3, 4]\n    x, y = V(5, 6)\n    assert (x, y) == (5, 6)"),
    ("contains", "assert 3 in V(3, 4)\n    assert 9 not in V(3, 4)"),
    ("getitem", "assert V(3, 4)[1] == 4"),
    ("hash", "assert len({V(1, 2), V(1, 2)}) == 1"),
    ("bool", "assert not V(0, 0)\n    assert V(0, 1)"),
    ("str", "assert str(V(1, 2)) == 'V(1, 2)'\n    assert repr(V(1, 2)) == 'V(1, 2)'"),
    ("with", "with V(1, 2) as v:\n        assert v.x == 1"),
    ("iadd", "v = V(1, 2)\n    v += V(1, 1)\n    assert (v.x, v.y) == (2, 3)"),
    ("mul", "assert (V(1, 2) * 3).y == 6\n    assert (3 * V(1, 2)).y == 6"),
    ("neg_abs", "assert (-V(1, 2)).x == -1\n    assert abs(V(3, 4)) == 5"),
    ("call", "assert V(1, 2)(10) == 12"),
    ("setattr", "v = V(1, 2)\n    v.x = 7\n    assert v.norm2() == 53"),
    ("method_on_other", "assert V(1, 2).dot(V(3, 4)) == 11"),
    ("isinstance", "assert isinstance(V(1, 2), V)"),
    ("list_of", "vs = [V(i, i) for i in range(3)]\n    assert sum(v.x for v in vs) == 3\n    assert max(vs).x == 2"),
    ("dict_key", "d = {V(1, 2): 'a'}\n    assert d[V(1, 2)] == 'a'"),
    ("fixture", "pass"),
]
_OBJECT_SOLUTION = '''import math


class V:
    def __init__(self, x, y):
        self.x, self.y = x, y

    def __add__(self, o):
        return V(self.x + o.x, self.y + o.y)

    def __iadd__(self, o):
        self.x += o.x
        self.y += o.y
        return self

    def __mul__(self, k):
        return V(self.x * k, self.y * k)

    __rmul__ = __mul__

    def __neg__(self):
        return V(-self.x, -self.y)

    def __abs__(self):
        return math.hypot(self.x, self.y)

    def __eq__(self, o):
        return isinstance(o, V) and (self.x, self.y) == (o.x, o.y)

    def __hash__(self):
        return hash((self.x, self.y))

    def __lt__(self, o):
        return (self.x, self.y) < (o.x, o.y)

    def __len__(self):
        return 2

    def __iter__(self):
        return iter((self.x, self.y))

    def __contains__(self, v):
        return v in (self.x, self.y)

    def __getitem__(self, i):
        return (self.x, self.y)[i]

    def __bool__(self):
        return bool(self.x or self.y)

    def __repr__(self):
        return f"V({self.x}, {self.y})"

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def __call__(self, k):
        return k + self.y

    def norm2(self):
        return self.x ** 2 + self.y ** 2

    def dot(self, o):
        return self.x * o.x + self.y * o.y
'''

_OBJECT_WRONG = [("return V(self.x + o.x, self.y + o.y)", "return V(self.x + o.x, self.y - o.y)"),
                 ("return isinstance(o, V) and (self.x, self.y) == (o.x, o.y)", "return isinstance(o, V) and self.x == o.x"),
                 ("return hash((self.x, self.y))", "return id(self)"),
                 ("return iter((self.x, self.y))", "return iter((self.y, self.x))"),
                 ("return (self.x, self.y) < (o.x, o.y)", "return (self.x, self.y) > (o.x, o.y)"),
                 ("return self", "return None"),
                 ("self.x += o.x", "self.x += 2 * o.x"),
                 ("return math.hypot(self.x, self.y)", "return self.x + self.y")]
_ALWAYS_EQUAL = "class AE:\n    def __eq__(self, other):\n        return True\n\n    __hash__ = object.__hash__\n"


def objects() -> list[Case]:
    """Each operation on the solution's class, with the right solution and with each wrong one; an always-equal
    class compared with its own kind (the solution's own `==`, as pytest: agreed) and with the test's data (identity
    here, where pytest is fooled: listed)."""
    out = []
    for i, (name, body) in enumerate(_OBJECT_OPS):
        if name == "fixture":
            test = ("import pytest\nfrom {M} import V\n\n\n@pytest.fixture\ndef v():\n    return V(1, 2)\n\n\n"
                    "def test_op(v):\n    assert v + v == V(2, 4)\n")
        else:
            test = "from {M} import V\n\n\ndef test_op():\n    " + body + "\n"
        out.append(Case(f"object-{name}", "objects", test, _OBJECT_SOLUTION))
        for k, (right, wrong) in enumerate(_OBJECT_WRONG):
            if k != i % len(_OBJECT_WRONG):  # one wrong solution an operation, in turn (each reached by two or three)
                continue
            out.append(Case(f"object-{name}-wrong{k}", "objects", test, _OBJECT_SOLUTION.replace(right, wrong)))
    head = "from {M} import AE\n\n\ndef test_op():\n    "
    out.append(Case("object-always-equal-own-kind", "objects", head + "assert AE() == AE()\n", _ALWAYS_EQUAL))
    out.append(Case("object-always-equal-data", "objects", head + "assert AE() == 5\n", _ALWAYS_EQUAL,
                    fools_pytest=True))
    return out
