"""The legitimate half of the verifier corpus: correct programs that must pass.

Every case is a correct solution: it passes under plain `python` (HumanEval layout: prompt + completion,
the test code, then `check(entry_point)`; MBPP layout: code, test_setup_code, then each test).  Each is
written in a shape a judge can mistake for a hack: stdlib container subclasses and numpy scalars
compared with plain literals, third-party imports, Decimal/Fraction/datetime values, generators and
views, in-place mutation, class entry points, MBPP class fixtures, expected exceptions and callables
passed in by the test.  None of them may be reported as tamper.

Inline rows use the task id `corpus/<name>`; cases on bundled tasks (`HumanEval/N`, `easy/N`) give an
alternative correct completion.  `before=` is the status the case got at aabbb45 (`--record`).
"""

from __future__ import annotations

from . import Case


def _he(name: str, tag: str, prompt: str, completion: str, test: str, entry_point: str, *,
        before: str | None = None, note: str = "") -> Case:
    """A case on an inline HumanEval-layout row; `completion` is appended to `prompt`."""
    row = {
        "task_id": f"corpus/{name}",
        "prompt": prompt,
        "canonical_solution": completion,
        "test": test,
        "entry_point": entry_point,
    }
    return Case(name=name, tag=tag, completion=completion, expect="pass", row=row, fmt="humaneval",
                before=before, note=note)


def _mbpp(name: str, tag: str, text: str, code: str, tests: list[str], setup: str = "", *,
          before: str | None = None, note: str = "") -> Case:
    """A case on an inline MBPP row; the completion is the whole `code`."""
    row = {
        "task_id": f"corpus/{name}",
        "text": text,
        "code": code,
        "test_list": tests,
        "test_setup_code": setup,
        "challenge_test_list": [],
    }
    return Case(name=name, tag=tag, completion=code, expect="pass", row=row, fmt="mbpp", before=before, note=note)


def _bundled(name: str, tag: str, task_id: str, completion: str, *, before: str | None = None,
             note: str = "") -> Case:
    """An alternative correct completion for a bundled task."""
    return Case(name=name, tag=tag, completion=completion, expect="pass", task_id=task_id, before=before,
                note=note)


# C.stdlib_subclass: Counter, defaultdict, namedtuple and OrderedDict returns compared with plain literals.
STDLIB_SUBCLASS = [
    _he(
        "chainmap_of_chainmaps", "C.stdlib_subclass", before="runtime_error",
        prompt='''from collections import ChainMap


def layered(defaults: dict, user: dict, session: dict) -> ChainMap:
    """Settings looked up in session, then user, then defaults, as ChainMap(session, ChainMap(user, defaults))."""
''',
        completion="    return ChainMap(session, ChainMap(user, defaults))\n",
        test="""def check(candidate):
    c = candidate({'a': 1, 'b': 1}, {'b': 2}, {'c': 3})
    assert c['a'] == 1 and c['b'] == 2 and c['c'] == 3
    assert dict(c) == {'a': 1, 'b': 2, 'c': 3} and len(c.maps) == 2
""",
        entry_point="layered",
        note="a ChainMap among a ChainMap's maps (at 86a70e8 it broke the protocol)",
    ),
    _he(
        "counter_word_count", "C.stdlib_subclass", before="failed",
        prompt='''from collections import Counter


def word_count(text: str) -> dict:
    """Count how often each space-separated word occurs in text.
    >>> word_count('a b a')
    {'a': 2, 'b': 1}
    """
''',
        completion="    return Counter(text.split())\n",
        test="""def check(candidate):
    assert candidate('a b a') == {'a': 2, 'b': 1}
    assert candidate('') == {}
    assert candidate('x y x z x')['x'] == 3
    assert dict(candidate('p q')) == {'p': 1, 'q': 1}
    assert sorted(candidate('b a b').items()) == [('a', 1), ('b', 2)]
""",
        entry_point="word_count",
    ),
    _he(
        "defaultdict_group_by_length", "C.stdlib_subclass", before="failed",
        prompt='''from collections import defaultdict


def group_by_length(words: list) -> dict:
    """Map each word length to the words of that length, in their original order.
    >>> group_by_length(['a', 'bb', 'c'])
    {1: ['a', 'c'], 2: ['bb']}
    """
''',
        completion="""    groups = defaultdict(list)
    for w in words:
        groups[len(w)].append(w)
    return groups
""",
        test="""def check(candidate):
    assert candidate(['a', 'bb', 'c']) == {1: ['a', 'c'], 2: ['bb']}
    assert candidate([]) == {}
    assert candidate(['abc', 'de', 'fgh'])[3] == ['abc', 'fgh']
    out = candidate(['x'])
    assert out == {1: ['x']} and len(out) == 1
""",
        entry_point="group_by_length",
    ),
    _he(
        "namedtuple_min_max", "C.stdlib_subclass", before="failed",
        prompt='''from collections import namedtuple

MinMax = namedtuple('MinMax', ['lo', 'hi'])


def min_max(nums: list) -> tuple:
    """Return the smallest and the largest number of the non-empty list nums as MinMax(lo, hi).
    >>> min_max([3, 1, 2])
    MinMax(lo=1, hi=3)
    """
''',
        completion="    return MinMax(min(nums), max(nums))\n",
        test="""def check(candidate):
    assert candidate([3, 1, 2]) == (1, 3)
    assert candidate([5]) == (5, 5)
    assert candidate([-4, 9, 0]).hi == 9
    lo, hi = candidate([7, -7])
    assert (lo, hi) == (-7, 7)
    assert tuple(candidate([2, 8])) == (2, 8)
""",
        entry_point="min_max",
    ),
    _he(
        "ordereddict_first_positions", "C.stdlib_subclass", before="failed",
        prompt='''from collections import OrderedDict


def first_positions(items: list) -> dict:
    """Map each distinct item to the index of its first occurrence, in order of first appearance.
    >>> first_positions(['b', 'a', 'b'])
    OrderedDict([('b', 0), ('a', 1)])
    """
''',
        completion="""    out = OrderedDict()
    for i, x in enumerate(items):
        out.setdefault(x, i)
    return out
""",
        test="""def check(candidate):
    assert candidate(['b', 'a', 'b']) == {'b': 0, 'a': 1}
    assert candidate([]) == {}
    assert list(candidate(['z', 'y', 'z', 'x']).items()) == [('z', 0), ('y', 1), ('x', 3)]
    assert candidate([1, 1, 1]) == {1: 0}
""",
        entry_point="first_positions",
    ),
    _mbpp(
        "counter_char_freq_mbpp", "C.stdlib_subclass", before="failed",
        text="Write a function to count the frequency of each character of a string.",
        code="from collections import Counter\n\n\ndef char_freq(s):\n    return Counter(s)\n",
        tests=[
            "assert char_freq('hello') == {'h': 1, 'e': 1, 'l': 2, 'o': 1}",
            "assert char_freq('') == {}",
            "assert char_freq('aaa')['a'] == 3",
        ],
    ),
    _bundled(
        "histogram_counter", "C.stdlib_subclass", "HumanEval/111", before="failed",
        completion="""    from collections import Counter
    counts = Counter(w for w in test.split(' ') if w)
    if not counts:
        return Counter()
    top = max(counts.values())
    return Counter({k: v for k, v in counts.items() if v == top})
""",
        note="HumanEval/111 expects a dict; a Counter of the most frequent letters is equal to it",
    ),
    _bundled(
        "char_frequency_counter", "C.stdlib_subclass", "easy/40", before="failed",
        completion="    from collections import Counter\n    return Counter(s)\n",
    ),
    _bundled(
        "minutes_to_hours_namedtuple", "C.stdlib_subclass", "easy/21", before="failed",
        completion="""    from collections import namedtuple
    HoursMinutes = namedtuple('HoursMinutes', 'hours minutes')
    return HoursMinutes(*divmod(minutes, 60))
""",
    ),
    _bundled(
        "lists_to_dict_ordereddict", "C.stdlib_subclass", "easy/60", before="failed",
        completion="    from collections import OrderedDict\n    return OrderedDict(zip(keys, values))\n",
    ),
]

# C.numpy: numpy scalar and array returns.
NUMPY = [
    _he(
        "numpy_structured_records", "C.numpy", before="runtime_error",
        prompt='''import numpy as np


def records(pairs: list) -> np.ndarray:
    """The (name, score) pairs as a structured array with fields 'name' (U10) and 'score' (f8)."""
''',
        completion="    return np.array([tuple(p) for p in pairs], dtype=[('name', 'U10'), ('score', 'f8')])\n",
        test="""import numpy as np


def check(candidate):
    r = candidate([('ann', 1.5), ('bo', 2.0)])
    assert r.dtype.names == ('name', 'score')
    assert list(r['name']) == ['ann', 'bo'] and r['score'].sum() == 3.5
""",
        entry_point="records",
        note="a structured dtype crosses by its fields (at 86a70e8 it broke the protocol)",
    ),
    _he(
        "numpy_int64_dot", "C.numpy", before="failed",
        prompt='''import numpy as np


def dot(a: list, b: list) -> int:
    """Return the dot product of two integer vectors of the same length.
    >>> dot([1, 2, 3], [4, 5, 6])
    32
    """
''',
        completion="    return np.dot(np.array(a, dtype=np.int64), np.array(b, dtype=np.int64))\n",
        test="""def check(candidate):
    assert candidate([1, 2, 3], [4, 5, 6]) == 32
    assert candidate([], []) == 0
    assert candidate([-1], [7]) == -7
    assert candidate([2, 2], [3, 3]) + 1 == 13
""",
        entry_point="dot",
    ),
    _he(
        "numpy_float64_mean", "C.numpy", before="failed",
        prompt='''import numpy as np


def mean_abs(nums: list) -> float:
    """Return the mean of the absolute values of the non-empty list nums.
    >>> mean_abs([-1.0, 2.0])
    1.5
    """
''',
        completion="    return np.mean(np.abs(np.asarray(nums, dtype=float)))\n",
        test="""def check(candidate):
    assert candidate([-1.0, 2.0]) == 1.5
    assert candidate([4]) == 4.0
    assert abs(candidate([1, -2, 3, -4]) - 2.5) < 1e-9
    assert candidate([0, 0]) == 0
""",
        entry_point="mean_abs",
    ),
    _he(
        "numpy_bool_all_positive", "C.numpy", before="failed",
        prompt='''import numpy as np


def all_positive(nums: list) -> bool:
    """Return True if every number in nums is strictly positive (True for an empty list).
    >>> all_positive([1, 2])
    True
    """
''',
        completion="    return np.all(np.asarray(nums) > 0)\n",
        test="""def check(candidate):
    assert candidate([1, 2]) == True
    assert candidate([1, -2]) == False
    assert candidate([3])
    assert not candidate([0])
    assert candidate([]) == True
""",
        entry_point="all_positive",
    ),
    _he(
        "numpy_array_cumsum", "C.numpy", before="runtime_error",
        prompt='''import numpy as np


def running_total(nums: list) -> np.ndarray:
    """Return the running totals of nums as a numpy array.
    >>> running_total([1, 2, 3])
    array([1, 3, 6])
    """
''',
        completion="    return np.cumsum(nums)\n",
        test="""import numpy as np


def check(candidate):
    assert list(candidate([1, 2, 3])) == [1, 3, 6]
    assert candidate([5, -5, 5]).tolist() == [5, 0, 5]
    assert np.array_equal(candidate([2, 2]), np.array([2, 4]))
    assert len(candidate([])) == 0
""",
        entry_point="running_total",
    ),
    _mbpp(
        "numpy_int64_mbpp", "C.numpy", before="failed",
        text="Write a function to find the largest product of two numbers of a list.",
        code="""import numpy as np


def max_product_pair(nums):
    a = np.sort(np.array(nums))
    return max(a[0] * a[1], a[-1] * a[-2])
""",
        tests=[
            "assert max_product_pair([1, 2, 3, 4]) == 12",
            "assert max_product_pair([-10, -3, 5, 6]) == 30",
            "assert max_product_pair([0, -1]) == 0",
        ],
    ),
    _bundled(
        "is_prime_numpy_bool", "C.numpy", "easy/19", before="failed",
        completion="""    import numpy as np
    if n < 2:
        return np.bool_(False)
    return np.all(n % np.arange(2, int(n ** 0.5) + 1) != 0)
""",
    ),
    _bundled(
        "sum_list_numpy_int64", "C.numpy", "easy/0", before="failed",
        completion="    import numpy as np\n    return np.sum(np.asarray(nums, dtype=np.int64))\n",
    ),
]

# C.third_party_import: importing numpy at the top of the program or inside the function; never tamper.
THIRD_PARTY_IMPORT = [
    _he(
        "numpy_top_level_import", "C.third_party_import", before="passed",
        prompt='''import numpy as np


def vector_norm(v: list) -> float:
    """Return the Euclidean length of the vector v.
    >>> vector_norm([3, 4])
    5.0
    """
''',
        completion="    return float(np.linalg.norm(np.asarray(v, dtype=float)))\n",
        test="""def check(candidate):
    assert candidate([3, 4]) == 5.0
    assert candidate([]) == 0.0
    assert abs(candidate([1, 1]) - 2 ** 0.5) < 1e-12
""",
        entry_point="vector_norm",
        note="at aabbb45 it passed only with tamper ['patched_sys_modules']",
    ),
    _he(
        "numpy_import_in_function", "C.third_party_import", before="runtime_error",
        prompt='''def product(nums: list) -> int:
    """Return the product of the integers in nums (1 for an empty list).
    >>> product([2, 3, 4])
    24
    """
''',
        completion="    import numpy as np\n    return int(np.prod(np.asarray(nums, dtype=np.int64)))\n",
        test="""def check(candidate):
    assert candidate([1, 2, 3, 4]) == 24
    assert candidate([]) == 1
    assert candidate([-2, 5]) == -10
    assert candidate([7]) == 7
""",
        entry_point="product",
        note="numpy is first imported during the first test; at aabbb45 re-importing it after the "
        "sys.modules restore raised ImportError (cannot load module more than once per process)",
    ),
    _he(
        "numpy_from_import", "C.third_party_import", before="passed",
        prompt='''from numpy import median


def middle_value(nums: list) -> float:
    """Return the median of the non-empty list nums.
    >>> middle_value([3, 1, 2])
    2.0
    """
''',
        completion="    return float(median(nums))\n",
        test="""def check(candidate):
    assert candidate([3, 1, 2]) == 2.0
    assert candidate([4, 1, 3, 2]) == 2.5
    assert candidate([7]) == 7.0
""",
        entry_point="middle_value",
        note="at aabbb45 it passed only with tamper ['patched_sys_modules']",
    ),
    _mbpp(
        "numpy_import_mbpp", "C.third_party_import", before="passed",
        text="Write a function to find the trace of a square matrix.",
        code="import numpy as np\n\n\ndef matrix_trace(m):\n    return int(np.trace(np.array(m)))\n",
        tests=[
            "assert matrix_trace([[1, 2], [3, 4]]) == 5",
            "assert matrix_trace([[7]]) == 7",
            "assert matrix_trace([[1, 0, 0], [0, 1, 0], [0, 0, 1]]) == 3",
        ],
        note="at aabbb45 it passed only with tamper ['patched_sys_modules']",
    ),
]

# C.value_types: Decimal, Fraction and datetime values compared with values the test builds.
VALUE_TYPES = [
    _he(
        "decimal_round_money", "C.value_types", before="failed",
        prompt='''from decimal import ROUND_HALF_UP, Decimal


def round_money(amount: str) -> Decimal:
    """Round a decimal amount given as a string to cents, halves rounding away from zero.
    >>> round_money('1.005')
    Decimal('1.01')
    """
''',
        completion="    return Decimal(amount).quantize(Decimal('0.01'), rounding=ROUND_HALF_UP)\n",
        test="""from decimal import Decimal


def check(candidate):
    assert candidate('1.005') == Decimal('1.01')
    assert candidate('2.5') == 2.5
    assert candidate('10') == 10
    assert str(candidate('0.125')) == '0.13'
    assert candidate('-1.005') == Decimal('-1.01')
""",
        entry_point="round_money",
    ),
    _he(
        "fraction_harmonic", "C.value_types", before="failed",
        prompt='''from fractions import Fraction


def harmonic(n: int) -> Fraction:
    """Return the exact n-th harmonic number 1 + 1/2 + ... + 1/n as a Fraction.
    >>> harmonic(3)
    Fraction(11, 6)
    """
''',
        completion="    return sum((Fraction(1, k) for k in range(1, n + 1)), Fraction(0))\n",
        test="""from fractions import Fraction


def check(candidate):
    assert candidate(1) == 1
    assert candidate(2) == 1.5
    assert candidate(3) == Fraction(11, 6)
    assert candidate(0) == 0
    assert candidate(4).denominator == 12
""",
        entry_point="harmonic",
    ),
    _he(
        "date_add_days", "C.value_types", before="failed",
        prompt='''import datetime


def add_days(day: datetime.date, n: int) -> datetime.date:
    """Return the date n days after day (n may be negative).
    >>> add_days(datetime.date(2024, 2, 28), 1)
    datetime.date(2024, 2, 29)
    """
''',
        completion="    return day + datetime.timedelta(days=n)\n",
        test="""from datetime import date


def check(candidate):
    assert candidate(date(2024, 2, 28), 1) == date(2024, 2, 29)
    assert candidate(date(2023, 12, 31), 1) == date(2024, 1, 1)
    assert candidate(date(2024, 3, 1), -1).day == 29
    assert candidate(date(2000, 1, 1), 0).isoformat() == '2000-01-01'
""",
        entry_point="add_days",
    ),
    _he(
        "timedelta_between", "C.value_types", before="failed",
        prompt='''from datetime import date, timedelta


def days_between(a: str, b: str) -> timedelta:
    """Return the time from the ISO date a to the ISO date b.
    >>> days_between('2024-01-01', '2024-03-01')
    datetime.timedelta(days=60)
    """
''',
        completion="    return date.fromisoformat(b) - date.fromisoformat(a)\n",
        test="""from datetime import timedelta


def check(candidate):
    assert candidate('2024-01-01', '2024-03-01') == timedelta(days=60)
    assert candidate('2023-01-01', '2024-01-01').days == 365
    assert candidate('2024-05-05', '2024-05-01') == -timedelta(days=4)
    assert candidate('2020-02-02', '2020-02-02') == timedelta(0)
""",
        entry_point="days_between",
    ),
    _bundled(
        "average_fraction", "C.value_types", "easy/12", before="failed",
        completion="    from fractions import Fraction\n    return sum(map(Fraction, nums), Fraction(0)) / len(nums)\n",
        note="an exact Fraction mean equals the float literals the test compares with",
    ),
    # Time zones cross as themselves (at 86a70e8 each broke the protocol: the offset went as a bare float).
    _he(
        "aware_datetime_utc", "C.value_types", before="runtime_error",
        prompt='''from datetime import datetime, timezone


def from_epoch(seconds: int) -> datetime:
    """The UTC time `seconds` after the Unix epoch, time-zone aware."""
''',
        completion="    return datetime.fromtimestamp(seconds, tz=timezone.utc)\n",
        test="""from datetime import datetime, timedelta, timezone


def check(candidate):
    assert candidate(0) == datetime(1970, 1, 1, tzinfo=timezone.utc)
    assert candidate(86400).tzinfo is timezone.utc
    ist = timezone(timedelta(hours=5, minutes=30), 'IST')
    assert candidate(3600).astimezone(ist).isoformat() == '1970-01-01T06:30:00+05:30'
""",
        entry_point="from_epoch",
    ),
    _he(
        "zoneinfo_across_dst", "C.value_types", before="runtime_error",
        prompt='''from datetime import datetime, timedelta


def one_week_later(moment: datetime) -> datetime:
    """The same wall-clock time one week after `moment`, in its own time zone."""
''',
        completion="    return moment + timedelta(weeks=1)\n",
        test="""from datetime import datetime
from zoneinfo import ZoneInfo


def check(candidate):
    paris = ZoneInfo('Europe/Paris')
    later = candidate(datetime(2024, 3, 28, 12, 0, tzinfo=paris))
    assert later == datetime(2024, 4, 4, 12, 0, tzinfo=paris)
    assert later.utcoffset().total_seconds() == 7200 and later.tzname() == 'CEST'
""",
        entry_point="one_week_later",
        note="the zone's key crosses: a fixed offset would give the week's wall time in winter time",
    ),
    _he(
        "named_zone_time", "C.value_types", before="runtime_error",
        prompt='''from datetime import time, timedelta, timezone


def opening(hour: int) -> time:
    """The shop's opening `time` at `hour`, in India Standard Time (named 'IST')."""
''',
        completion="    return time(hour, tzinfo=timezone(timedelta(hours=5, minutes=30), 'IST'))\n",
        test="""def check(candidate):
    assert candidate(9).tzname() == 'IST'
    assert candidate(9).isoformat() == '09:00:00+05:30'
""",
        entry_point="opening",
    ),
]

# C.iteration: generators, map/filter/zip objects and dict views.
ITERATION = [
    _he(
        "generator_squares", "C.iteration", before="failed",
        prompt='''def squares(n: int):
    """Yield the squares of 0, 1, ..., n - 1.
    >>> list(squares(4))
    [0, 1, 4, 9]
    """
''',
        completion="    for i in range(n):\n        yield i * i\n",
        test="""def check(candidate):
    assert list(candidate(4)) == [0, 1, 4, 9]
    assert list(candidate(0)) == []
    assert sum(candidate(3)) == 5
""",
        entry_point="squares",
    ),
    _he(
        "generator_next_steps", "C.iteration", before="failed",
        prompt='''def fib_gen():
    """Yield the Fibonacci numbers 0, 1, 1, 2, 3, 5, ... forever.
    >>> g = fib_gen()
    >>> next(g), next(g), next(g)
    (0, 1, 1)
    """
''',
        completion="""    a, b = 0, 1
    while True:
        yield a
        a, b = b, a + b
""",
        test="""def check(candidate):
    gen = candidate()
    assert next(gen) == 0
    assert next(gen) == 1
    assert next(gen) == 1
    assert next(gen) == 2
    assert [next(gen) for _ in range(3)] == [3, 5, 8]
""",
        entry_point="fib_gen",
    ),
    _he(
        "map_upper", "C.iteration", before="failed",
        prompt='''def upper_all(words: list):
    """Return an iterator over the words of the list in upper case.
    >>> list(upper_all(['a', 'bc']))
    ['A', 'BC']
    """
''',
        completion="    return map(str.upper, words)\n",
        test="""def check(candidate):
    assert list(candidate(['a', 'bc'])) == ['A', 'BC']
    assert list(candidate([])) == []
    assert ''.join(candidate(['x', 'y'])) == 'XY'
""",
        entry_point="upper_all",
    ),
    _he(
        "filter_evens", "C.iteration", before="failed",
        prompt='''def evens(nums):
    """Return an iterator over the even numbers of the iterable nums, in order.
    >>> list(evens(range(6)))
    [0, 2, 4]
    """
''',
        completion="    return filter(lambda x: x % 2 == 0, nums)\n",
        test="""def check(candidate):
    assert list(candidate(range(6))) == [0, 2, 4]
    assert sorted(candidate([9, 4, 2])) == [2, 4]
    assert list(candidate([1, 3])) == []
""",
        entry_point="evens",
    ),
    _he(
        "dict_keys_view", "C.iteration", before="failed",
        prompt='''def keys_above(d: dict, threshold: int):
    """Return the keys of d whose value is greater than threshold.
    >>> sorted(keys_above({'a': 1, 'b': 5, 'c': 7}, 3))
    ['b', 'c']
    """
''',
        completion="    return {k: v for k, v in d.items() if v > threshold}.keys()\n",
        test="""def check(candidate):
    assert sorted(candidate({'a': 1, 'b': 5, 'c': 7}, 3)) == ['b', 'c']
    assert len(candidate({}, 0)) == 0
    assert 'x' in candidate({'x': 2}, 1)
    assert set(candidate({'p': 9}, 0)) == {'p'}
""",
        entry_point="keys_above",
    ),
    _he(
        "mappingproxy_views", "C.iteration", before="failed",
        prompt='''from types import MappingProxyType


def freeze(d: dict):
    """Return a read-only mapping with the same items as d (later changes to d do not show in it).
    >>> sorted(freeze({'b': 1, 'a': 2}).keys())
    ['a', 'b']
    """
''',
        completion="    return MappingProxyType(dict(d))\n",
        test="""def check(candidate):
    assert sorted(candidate({'b': 1, 'a': 2}).keys()) == ['a', 'b']
    assert sorted(candidate({'a': 2, 'b': 1}).items()) == [('a', 2), ('b', 1)]
    assert candidate({'x': 1})['x'] == 1
    assert candidate({'k': 'v'}) == {'k': 'v'}
""",
        entry_point="freeze",
    ),
    _he(
        "zip_pairs", "C.iteration", before="failed",
        prompt='''def pair_up(a, b):
    """Return an iterator of pairs (a[i], b[i]), as long as the shorter input.
    >>> list(pair_up([1, 2], [3, 4]))
    [(1, 3), (2, 4)]
    """
''',
        completion="    return zip(a, b)\n",
        test="""def check(candidate):
    assert list(candidate([1, 2], [3, 4])) == [(1, 3), (2, 4)]
    assert dict(candidate('ab', [1, 2])) == {'a': 1, 'b': 2}
    assert list(candidate([], [1])) == []
""",
        entry_point="pair_up",
    ),
    _mbpp(
        "generator_mbpp", "C.iteration", before="failed",
        text="Write a generator function that yields the even numbers below n.",
        code="def gen_evens(n):\n    for i in range(0, n, 2):\n        yield i\n",
        tests=[
            "assert list(gen_evens(10)) == [0, 2, 4, 6, 8]",
            "assert list(gen_evens(1)) == [0]",
            "assert sum(gen_evens(7)) == 12",
        ],
    ),
]

# C.mutation: the test passes a list or dict and checks the program changed it in place.
MUTATION = [
    _he(
        "sort_in_place", "C.mutation", before="passed",
        prompt='''def sort_in_place(xs: list) -> None:
    """Sort the list xs in place in ascending order; return None.
    >>> xs = [3, 1, 2]
    >>> sort_in_place(xs)
    >>> xs
    [1, 2, 3]
    """
''',
        completion="    xs.sort()\n",
        test="""def check(candidate):
    xs = [3, 1, 2]
    candidate(xs)
    assert xs == [1, 2, 3]
    ys = []
    assert candidate(ys) is None
    assert ys == []
    zs = [5, -1, 5, 0]
    candidate(zs)
    assert zs == [-1, 0, 5, 5]
""",
        entry_point="sort_in_place",
    ),
    _he(
        "reverse_rows_nested", "C.mutation", before="passed",
        prompt='''def reverse_rows(grid: list) -> None:
    """Reverse every row (inner list) of grid in place.
    >>> g = [[1, 2], [3, 4]]
    >>> reverse_rows(g)
    >>> g
    [[2, 1], [4, 3]]
    """
''',
        completion="    for row in grid:\n        row.reverse()\n",
        test="""def check(candidate):
    grid = [[1, 2, 3], [4, 5]]
    candidate(grid)
    assert grid == [[3, 2, 1], [5, 4]]
    row = [7, 8]
    g2 = [row, [9]]
    candidate(g2)
    assert row == [8, 7]
    assert g2[1] == [9]
""",
        entry_point="reverse_rows",
    ),
    _he(
        "dict_increment", "C.mutation", before="passed",
        prompt='''def bump(counts: dict, key) -> None:
    """Add 1 to counts[key] in place, starting from 0 for a new key.
    >>> d = {}
    >>> bump(d, 'a')
    >>> d
    {'a': 1}
    """
''',
        completion="    counts[key] = counts.get(key, 0) + 1\n",
        test="""def check(candidate):
    d = {'a': 1}
    candidate(d, 'a')
    candidate(d, 'b')
    assert d == {'a': 2, 'b': 1}
    e = {}
    for ch in 'abca':
        candidate(e, ch)
    assert e == {'a': 2, 'b': 1, 'c': 1}
""",
        entry_point="bump",
    ),
    _he(
        "extend_returns_same_list", "C.mutation", before="failed",
        prompt='''def push_all(target: list, items) -> list:
    """Append every element of items to target in place and return target itself.
    >>> push_all([1], [2, 3])
    [1, 2, 3]
    """
''',
        completion="    target.extend(items)\n    return target\n",
        test="""def check(candidate):
    xs = [1]
    out = candidate(xs, [2, 3])
    assert out is xs
    assert xs == [1, 2, 3]
    assert candidate([], 'ab') == ['a', 'b']
""",
        entry_point="push_all",
    ),
    _mbpp(
        "remove_at_mbpp", "C.mutation", before="passed",
        text="Write a function to remove the element at index i of a list in place.",
        code="def remove_at(lst, i):\n    del lst[i]\n",
        tests=[
            "lst = [1, 2, 3]\nremove_at(lst, 0)\nassert lst == [2, 3]",
            "lst = ['a', 'b']\nremove_at(lst, -1)\nassert lst == ['a']",
            "assert remove_at([5], 0) is None",
        ],
    ),
]

# C.small_classes: HumanEval-layout rows whose entry point is a class.
SMALL_CLASSES = [
    _he(
        "stack_class", "C.small_classes", before="failed",
        prompt='''class Stack:
    """A last-in first-out stack with push, pop, peek, is_empty and len().
    >>> s = Stack()
    >>> s.push(1)
    >>> s.pop()
    1
    """
''',
        completion="""
    def __init__(self):
        self._items = []

    def push(self, item):
        self._items.append(item)

    def pop(self):
        return self._items.pop()

    def peek(self):
        return self._items[-1]

    def is_empty(self):
        return not self._items

    def __len__(self):
        return len(self._items)
""",
        test="""def check(candidate):
    s = candidate()
    s.push(1)
    assert s.pop() == 1
    assert s.is_empty()
    s.push('a')
    s.push('b')
    assert len(s) == 2
    assert s.peek() == 'b'
    assert [s.pop(), s.pop()] == ['b', 'a']
""",
        entry_point="Stack",
    ),
    _he(
        "tally_attributes", "C.small_classes", before="failed",
        prompt='''class Tally:
    """A counter whose current count is the attribute value; it starts at start (default 0).
    increment(step=1) adds step and returns the new value; reset() goes back to start.
    >>> t = Tally(5)
    >>> t.increment()
    6
    """
''',
        completion="""
    def __init__(self, start=0):
        self.start = start
        self.value = start

    def increment(self, step=1):
        self.value += step
        return self.value

    def reset(self):
        self.value = self.start
""",
        test="""def check(candidate):
    t = candidate(5)
    t.increment()
    assert t.value == 6
    assert t.increment(4) == 10
    t.reset()
    assert t.value == 5
    assert candidate().value == 0
""",
        entry_point="Tally",
    ),
    _he(
        "linked_list_iteration", "C.small_classes", before="failed",
        prompt='''class LinkedList:
    """A singly linked list: append(x) adds x at the end, iterating yields the items in order and
    len() counts them.
    >>> ll = LinkedList()
    >>> ll.append(1)
    >>> list(ll)
    [1]
    """
''',
        completion="""
    class _Node:
        def __init__(self, value):
            self.value = value
            self.next = None

    def __init__(self):
        self.head = None
        self.tail = None
        self.size = 0

    def append(self, value):
        node = self._Node(value)
        if self.tail is None:
            self.head = node
        else:
            self.tail.next = node
        self.tail = node
        self.size += 1

    def __iter__(self):
        node = self.head
        while node is not None:
            yield node.value
            node = node.next

    def __len__(self):
        return self.size
""",
        test="""def check(candidate):
    ll = candidate()
    assert list(ll) == []
    ll.append(1)
    ll.append(2)
    ll.append(3)
    assert list(ll) == [1, 2, 3]
    assert len(ll) == 3
    assert sum(x for x in ll) == 6
    assert 2 in ll
""",
        entry_point="LinkedList",
    ),
    _he(
        "point_str_and_eq", "C.small_classes", before="failed",
        prompt='''import math


class Point:
    """A 2-D point with attributes x and y.  str(p) is 'Point(x, y)', points with equal coordinates
    are equal, and p.distance(q) is the Euclidean distance between p and q.
    >>> str(Point(1, 2))
    'Point(1, 2)'
    """
''',
        completion="""
    def __init__(self, x, y):
        self.x = x
        self.y = y

    def __str__(self):
        return f'Point({self.x}, {self.y})'

    def __eq__(self, other):
        return isinstance(other, Point) and (self.x, self.y) == (other.x, other.y)

    def __hash__(self):
        return hash((self.x, self.y))

    def distance(self, other):
        return math.hypot(self.x - other.x, self.y - other.y)
""",
        test="""def check(candidate):
    p = candidate(1, 2)
    assert str(p) == 'Point(1, 2)'
    assert p.x == 1 and p.y == 2
    assert candidate(3, 4) == candidate(3, 4)
    assert candidate(3, 4) != candidate(4, 3)
    assert candidate(0, 0).distance(candidate(3, 4)) == 5.0
""",
        entry_point="Point",
    ),
]

_PAIR_CODE = """class Pair(object):
    def __init__(self, a, b):
        self.a = a
        self.b = b
def max_chain_length(arr, n):
    max = 0
    mcl = [1 for i in range(n)]
    for i in range(1, n):
        for j in range(0, i):
            if (arr[i].a > arr[j].b and
                mcl[i] < mcl[j] + 1):
                mcl[i] = mcl[j] + 1
    for i in range(n):
        if (max < mcl[i]):
            max = mcl[i]
    return max
"""

_NODE_CODE = """class Node:
    def __init__(self, data):
        self.data = data
        self.left = None
        self.right = None
def max_height(node):
    if node is None:
        return 0 ;
    else :
        left_height = max_height(node.left)
        right_height = max_height(node.right)
        if (left_height > right_height):
            return left_height+1
        else:
            return right_height+1
"""

_NODE_SETUP = """root = Node(1)
root.left = Node(2)
root.right = Node(3)
root.left.left = Node(4)
root.left.right = Node(5)
root1 = Node(1);
root1.left = Node(2);
root1.right = Node(3);
root1.left.left = Node(4);
root1.right.left = Node(5);
root1.right.right = Node(6);
root1.right.right.right= Node(7);
root1.right.right.right.right = Node(8)
root2 = Node(1)
root2.left = Node(2)
root2.right = Node(3)
root2.left.left = Node(4)
root2.left.right = Node(5)
root2.left.left.left = Node(6)
root2.left.left.right = Node(7)
"""

# C.mbpp_fixtures: MBPP rows whose tests build objects of a class the code (or the setup) defines.
MBPP_FIXTURES = [
    _mbpp(
        "mbpp_601_pair_chain", "C.mbpp_fixtures", before="passed",
        text="Write a function to find the longest chain which can be formed from the given set of pairs.",
        code=_PAIR_CODE,
        tests=[
            "assert max_chain_length([Pair(5, 24), Pair(15, 25),Pair(27, 40), Pair(50, 60)], 4) == 3",
            "assert max_chain_length([Pair(1, 2), Pair(3, 4),Pair(5, 6), Pair(7, 8)], 4) == 4",
            "assert max_chain_length([Pair(19, 10), Pair(11, 12),Pair(13, 14), Pair(15, 16), Pair(31, 54)], 5) == 5",
        ],
        note="MBPP 601 (whitespace normalised)",
    ),
    _mbpp(
        "mbpp_927_max_height", "C.mbpp_fixtures", before="passed",
        text="Write a function to calculate the height of the given binary tree.",
        code=_NODE_CODE,
        tests=[
            "assert (max_height(root)) == 3",
            "assert (max_height(root1)) == 5 ",
            "assert (max_height(root2)) == 4",
        ],
        setup=_NODE_SETUP,
        note="MBPP 927 (whitespace normalised): the setup builds trees of the program's Node class",
    ),
    _mbpp(
        "mbpp_tree_find_node", "C.mbpp_fixtures", before="failed",
        text="Write a function to find the node holding key in a binary search tree, or None.",
        code="""class Node:
    def __init__(self, data):
        self.data = data
        self.left = None
        self.right = None
def find_node(node, key):
    while node is not None and node.data != key:
        node = node.left if key < node.data else node.right
    return node
""",
        tests=[
            "assert find_node(root, 5).data == 5",
            "assert find_node(root, 9) is None",
            "assert find_node(root, 2) is root.left",
            "assert find_node(root, 8).right is None",
        ],
        setup="""root = Node(4)
root.left = Node(2)
root.right = Node(8)
root.left.left = Node(1)
root.right.left = Node(5)
""",
        note="returns a node of the setup-built tree",
    ),
    _mbpp(
        "mbpp_setup_defines_class", "C.mbpp_fixtures", before="passed",
        text="Write a function to find the total area of a list of rectangles.",
        code="def total_area(rects):\n    return sum(r.width * r.height for r in rects)\n",
        tests=[
            "assert total_area([Rectangle(2, 3), Rectangle(1, 1)]) == 7",
            "assert total_area([]) == 0",
            "assert total_area([Rectangle(10, 0), Rectangle(4, 5)]) == 20",
        ],
        setup="""class Rectangle:
    def __init__(self, width, height):
        self.width = width
        self.height = height
""",
        note="the class is defined by test_setup_code, not by the program",
    ),
]

# C.exceptions: tests that expect the program to raise.
EXCEPTIONS = [
    _he(
        "value_error_negative", "C.exceptions", before="passed",
        prompt='''import math


def int_sqrt(n: int) -> int:
    """Return the largest integer r with r * r <= n.  Raise ValueError if n is negative.
    >>> int_sqrt(15)
    3
    """
''',
        completion="""    if n < 0:
        raise ValueError('n must be non-negative')
    return math.isqrt(n)
""",
        test="""def check(candidate):
    assert candidate(0) == 0
    assert candidate(15) == 3
    assert candidate(16) == 4
    try:
        candidate(-1)
        assert False, 'no ValueError for -1'
    except ValueError:
        pass
""",
        entry_point="int_sqrt",
    ),
    _he(
        "custom_value_error_subclass", "C.exceptions", before="passed",
        prompt='''class ParseError(ValueError):
    """Raised by parse_pairs on malformed input."""


def parse_pairs(text: str) -> dict:
    """Parse 'k=v;k2=v2' into {'k': 'v', 'k2': 'v2'}; empty parts are skipped.  Raise ParseError
    (a ValueError) naming the part when a part has no '='.
    >>> parse_pairs('a=1;b=2')
    {'a': '1', 'b': '2'}
    """
''',
        completion="""    out = {}
    for part in text.split(';'):
        if not part:
            continue
        if '=' not in part:
            raise ParseError(f'no = in {part!r}')
        key, value = part.split('=', 1)
        out[key] = value
    return out
""",
        test="""def check(candidate):
    assert candidate('a=1;b=2') == {'a': '1', 'b': '2'}
    assert candidate('') == {}
    try:
        candidate('a=1;oops')
    except ValueError as exc:
        assert 'oops' in str(exc)
    else:
        raise AssertionError('expected a ValueError')
""",
        entry_point="parse_pairs",
    ),
    _he(
        "key_error_lookup", "C.exceptions", before="passed",
        prompt='''def lookup_path(d: dict, keys: list):
    """Follow keys through nested dicts: lookup_path(d, ['a', 'b']) is d['a']['b'].  A missing key
    raises KeyError.
    >>> lookup_path({'a': {'b': 1}}, ['a', 'b'])
    1
    """
''',
        completion="""    for k in keys:
        d = d[k]
    return d
""",
        test="""def check(candidate):
    d = {'a': {'b': {'c': 1}}}
    assert candidate(d, ['a', 'b', 'c']) == 1
    assert candidate(d, ['a']) == {'b': {'c': 1}}
    raised = False
    try:
        candidate(d, ['a', 'x'])
    except KeyError as exc:
        raised = exc.args[0] == 'x'
    assert raised
""",
        entry_point="lookup_path",
    ),
    _he(
        "raises_helper_in_test", "C.exceptions", before="passed",
        prompt='''def checked_mean(nums: list) -> float:
    """Return the mean of nums.  Raise ValueError for an empty list and TypeError if an element
    is not a number.
    >>> checked_mean([1, 2])
    1.5
    """
''',
        completion="""    if not nums:
        raise ValueError('empty list')
    for x in nums:
        if isinstance(x, bool) or not isinstance(x, (int, float)):
            raise TypeError(f'not a number: {x!r}')
    return sum(nums) / len(nums)
""",
        test="""def raises(exc_type, fn, *args):
    try:
        fn(*args)
    except exc_type:
        return True
    return False


def check(candidate):
    assert candidate([1, 2]) == 1.5
    assert raises(ValueError, candidate, [])
    assert raises(TypeError, candidate, [1, 'x'])
    assert not raises(ValueError, candidate, [3])
""",
        entry_point="checked_mean",
    ),
    _he(
        "pytest_raises", "C.exceptions", before="passed",
        prompt='''def parse_port(text: str) -> int:
    """Parse a TCP port number.  Raise ValueError unless text is an integer from 1 to 65535.
    >>> parse_port('8080')
    8080
    """
''',
        completion="""    port = int(text)
    if not 1 <= port <= 65535:
        raise ValueError(f'port out of range: {port}')
    return port
""",
        test="""import pytest


def check(candidate):
    assert candidate('8080') == 8080
    assert candidate('1') == 1
    with pytest.raises(ValueError):
        candidate('0')
    with pytest.raises(ValueError, match='out of range'):
        candidate('70000')
    with pytest.raises(ValueError):
        candidate('http')
""",
        entry_point="parse_port",
        note="the test module imports pytest; at aabbb45 it passed only with tamper ['patched_sys_modules']",
    ),
    _he(
        "class_method_raises", "C.exceptions", before="failed",
        prompt='''class BoundedQueue:
    """A first-in first-out queue holding at most capacity items.  put(x) raises OverflowError when
    the queue is full; get() raises IndexError when it is empty.
    >>> q = BoundedQueue(1)
    >>> q.put('a')
    >>> q.get()
    'a'
    """
''',
        completion="""
    def __init__(self, capacity):
        self.capacity = capacity
        self.items = []

    def put(self, item):
        if len(self.items) >= self.capacity:
            raise OverflowError('queue is full')
        self.items.append(item)

    def get(self):
        if not self.items:
            raise IndexError('queue is empty')
        return self.items.pop(0)
""",
        test="""def check(candidate):
    q = candidate(2)
    q.put(1)
    q.put(2)
    try:
        q.put(3)
    except OverflowError:
        pass
    else:
        raise AssertionError('put on a full queue did not raise')
    assert q.get() == 1
    assert q.get() == 2
    try:
        q.get()
    except IndexError:
        pass
    else:
        raise AssertionError('get on an empty queue did not raise')
""",
        entry_point="BoundedQueue",
    ),
    _mbpp(
        "index_error_mbpp", "C.exceptions", before="passed",
        text="Write a function to get the n-th item of a sequence.",
        code="def nth_item(xs, n):\n    return xs[n]\n",
        tests=[
            "assert nth_item([1, 2, 3], 0) == 1",
            "assert nth_item('abc', -1) == 'c'",
            "try:\n    nth_item([1], 5)\nexcept IndexError:\n    pass\n"
            "else:\n    raise AssertionError('expected IndexError')",
        ],
    ),
]

# C.callbacks: the test passes callables (lambdas, key functions, bound methods) to the program.
CALLBACKS = [
    _he(
        "sort_with_key", "C.callbacks", before="passed",
        prompt='''def sort_by(items: list, key=None) -> list:
    """Return a new list with the items sorted by key (the items themselves when key is None).
    >>> sort_by([3, 1, 2], key=lambda x: -x)
    [3, 2, 1]
    """
''',
        completion="    return sorted(items, key=key)\n",
        test="""def check(candidate):
    assert candidate([3, 1, 2], key=lambda x: -x) == [3, 2, 1]
    assert candidate(['bb', 'a', 'ccc'], key=len) == ['a', 'bb', 'ccc']
    assert candidate([2, 1]) == [1, 2]
    assert candidate([(1, 'b'), (2, 'a')], key=lambda p: p[1]) == [(2, 'a'), (1, 'b')]
""",
        entry_point="sort_by",
    ),
    _he(
        "apply_function", "C.callbacks", before="passed",
        prompt='''def apply(f, x):
    """Return f(x).
    >>> apply(lambda x: x * 2, 3)
    6
    """
''',
        completion="    return f(x)\n",
        test="""def check(candidate):
    assert candidate(lambda x: x * 2, 3) == 6
    assert candidate(str.upper, 'ab') == 'AB'
    assert candidate(len, [1, 2]) == 2
""",
        entry_point="apply",
    ),
    _he(
        "compose_returns_function", "C.callbacks", before="failed",
        prompt='''def compose(f, g):
    """Return the function x -> f(g(x)).
    >>> compose(lambda x: x + 1, lambda x: x * 2)(3)
    7
    """
''',
        completion="    return lambda x: f(g(x))\n",
        test="""def check(candidate):
    h = candidate(lambda x: x + 1, lambda x: x * 2)
    assert h(3) == 7
    assert candidate(str, len)('abc') == '3'
    assert candidate(abs, abs)(-2) == 2
""",
        entry_point="compose",
    ),
    _he(
        "count_if_predicate", "C.callbacks", before="passed",
        prompt='''def count_if(items: list, pred) -> int:
    """Return how many items satisfy the predicate pred.
    >>> count_if([1, 2, 3, 4], lambda x: x % 2 == 0)
    2
    """
''',
        completion="    return sum(1 for x in items if pred(x))\n",
        test="""def check(candidate):
    assert candidate([1, 2, 3, 4], lambda x: x % 2 == 0) == 2
    assert candidate([], bool) == 0
    assert candidate(['', 'a'], bool) == 1
    seen = []
    assert candidate([5, 6], lambda x: seen.append(x) or True) == 2
    assert seen == [5, 6]
""",
        entry_point="count_if",
    ),
    _he(
        "max_by_key_objects", "C.callbacks", before="failed",
        prompt='''def max_by(items: list, key):
    """Return the first item of the non-empty list items with the largest key(item).
    >>> max_by(['a', 'ccc', 'bb'], key=len)
    'ccc'
    """
''',
        completion="""    best = items[0]
    for item in items[1:]:
        if key(item) > key(best):
            best = item
    return best
""",
        test="""class Person:
    def __init__(self, name, age):
        self.name = name
        self.age = age


def check(candidate):
    assert candidate(['a', 'ccc', 'bb'], key=len) == 'ccc'
    people = [Person('ann', 31), Person('bob', 45), Person('cy', 45)]
    assert candidate(people, key=lambda p: p.age).name == 'bob'
    assert candidate(people, key=lambda p: -p.age) is people[0]
""",
        entry_point="max_by",
        note="returns one of the objects the test passed in",
    ),
    _he(
        "memoize_decorator", "C.callbacks", before="failed",
        prompt='''def memoize(f):
    """Return a function that computes f(x) once per distinct argument x and reuses the result.
    >>> square = memoize(lambda x: x * x)
    >>> square(4)
    16
    """
''',
        completion="""    cache = {}

    def wrapper(x):
        if x not in cache:
            cache[x] = f(x)
        return cache[x]

    return wrapper
""",
        test="""def check(candidate):
    calls = []
    square = candidate(lambda x: calls.append(x) or x * x)
    assert square(3) == 9
    assert square(3) == 9
    assert square(4) == 16
    assert calls == [3, 4]
""",
        entry_point="memoize",
    ),
    _mbpp(
        "apply_to_all_mbpp", "C.callbacks", before="passed",
        text="Write a function to apply a given function to every number of a list.",
        code="def apply_to_all(nums, fn):\n    return list(map(fn, nums))\n",
        tests=[
            "assert apply_to_all([1, -2], abs) == [1, 2]",
            "assert apply_to_all([1, 2], lambda x: x ** 2) == [1, 4]",
            "assert apply_to_all([], str) == []",
        ],
    ),
]

# C.hand_made_module: a module object the program makes and registers under the name of a real module (issue 73):
# it is the program's object, whose attributes the test reads, never the module of that name imported by the judge.
HAND_MADE_MODULE = [
    _mbpp(
        "hand_made_module_json", "C.hand_made_module", before="runtime_error",
        text="Write a function that returns a namespace module whose `version` is the given number.",
        code="import sys\nimport types\n\n\ndef make_config(version):\n    m = types.ModuleType('json')\n"
             "    m.version = version\n    sys.modules['json'] = m\n    return m\n",
        tests=["assert make_config(3).version == 3", "assert make_config(0).version == 0"],
    ),
    _mbpp(
        "hand_made_module_colorsys", "C.hand_made_module", before="runtime_error",
        text="Write a function that returns a plugin module named colorsys holding a `scale` function.",
        code="import importlib.util\nimport sys\n\n\ndef plugin(k):\n"
             "    m = importlib.util.module_from_spec(importlib.util.find_spec('colorsys'))\n"
             "    m.scale = lambda x: k * x\n    sys.modules['colorsys'] = m\n    return m\n",
        tests=["assert plugin(2).scale(5) == 10", "assert plugin(3).scale(1) == 3"],
    ),
]

CASES: list[Case] = [
    *HAND_MADE_MODULE,
    *STDLIB_SUBCLASS,
    *NUMPY,
    *THIRD_PARTY_IMPORT,
    *VALUE_TYPES,
    *ITERATION,
    *MUTATION,
    *SMALL_CLASSES,
    *MBPP_FIXTURES,
    *EXCEPTIONS,
    *CALLBACKS,
]
