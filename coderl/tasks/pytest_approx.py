"""`pytest.approx` for the test-file runner (`coderl.tasks.pytest_runner`): `APPROX` is trusted source run in the
judge's interpreter with the runner's (never where the program runs), defining `make_approx()`, which gives the
runner its `approx`.

pytest 9's rules, type by type, as the differential against real pytest checks
(tests/tasks/test_pytest_differential.py): a Decimal, a mapping, a numpy array, a sequence (sized and indexable, not
str/bytes), any other collection refused, a datetime/timedelta, else a scalar; a container's values may not be
containers; a bool equals only a bool; non-numbers compare exactly; NaN only under nan_ok; infinity only itself; else
|expected - actual| <= max(rel x |expected|, abs), the defaults 1e-6 and 1e-12 (a Decimal's as Decimals); a datetime or
timedelta needs an explicit tolerance.
"""

APPROX = r'''
def make_approx():
    import math
    from collections.abc import Collection, Mapping, Sized
    from decimal import Decimal
    from numbers import Complex
    import datetime as _dt

    def _numpy(x):
        return type(x).__module__ == "numpy"

    def _is_bool(x):
        return isinstance(x, bool) or (_numpy(x) and type(x).__name__ == "bool_")

    def _is_nan(x):
        return x.is_nan() if isinstance(x, Decimal) else math.isnan(x)

    def _is_inf(x):
        return x.is_infinite() if isinstance(x, Decimal) else math.isinf(x)

    def _nested(x):
        return isinstance(x, Collection) and not isinstance(x, (str, bytes, bytearray))

    def _sequence_like(x):
        return hasattr(x, "__getitem__") and isinstance(x, Sized) and not isinstance(x, (str, bytes))

    def _array(x):
        """(shape, flat items) of a numpy array, else None."""
        if _numpy(x) and hasattr(x, "shape") and hasattr(x, "tolist") and getattr(x, "ndim", 0):
            flat = x.tolist()
            for _ in range(x.ndim - 1):
                flat = [item for row in flat for item in row]
            return tuple(x.shape), flat
        return None

    class _Scalar:
        __hash__ = None

        def __init__(self, expected, rel, abs_, nan_ok):
            if rel is not None:
                if not isinstance(rel, (int, float, Decimal)):
                    raise TypeError("relative tolerance for a scalar value must be an int, float or Decimal, got "
                                    f"{type(rel).__name__}")
                if not hasattr(type(expected), "__abs__"):
                    raise TypeError("expected value must support abs(...) when relative tolerance is used, got "
                                    f"{type(expected).__name__}")
            if abs_ is not None and not isinstance(abs_, (int, float, Decimal)):
                raise TypeError("absolute tolerance for a scalar value must be an int, float or Decimal, got "
                                f"{type(abs_).__name__}")
            self.decimal = isinstance(expected, Decimal)
            if self.decimal:
                rel = Decimal.from_float(rel) if isinstance(rel, (int, float)) else rel
                abs_ = Decimal.from_float(abs_) if isinstance(abs_, (int, float)) else abs_
            self.expected, self.rel, self.abs, self.nan_ok = expected, rel, abs_, nan_ok

        def tolerance(self):
            default_abs, default_rel = (Decimal("1e-12"), Decimal("1e-6")) if self.decimal else (1e-12, 1e-6)
            absolute = default_abs if self.abs is None else self.abs
            if _is_nan(absolute):
                raise ValueError("absolute tolerance can't be NaN.")
            if absolute < 0:
                raise ValueError(f"absolute tolerance can't be negative: {absolute}")
            if self.rel is None and self.abs is not None:
                return absolute
            relative = (default_rel if self.rel is None else self.rel) * abs(self.expected)
            if _is_nan(relative):
                raise ValueError("relative tolerance can't be NaN.")
            if relative < 0:
                raise ValueError(f"relative tolerance can't be negative: {relative}")
            return max(relative, absolute)

        def __eq__(self, actual):
            got = _array(actual)
            if got is not None:
                return all(self.__eq__(a) for a in got[1])
            e = self.expected
            if _is_bool(e) and not _is_bool(actual):
                return False
            if actual == e:
                return True
            if _is_bool(e) or not (isinstance(e, (Complex, Decimal)) and isinstance(actual, (Complex, Decimal))):
                return False
            if _is_nan(abs(e)):
                return self.nan_ok and _is_nan(abs(actual))
            if _is_inf(abs(e)):
                return False
            return abs(e - actual) <= self.tolerance()

        def __repr__(self):
            return repr(self.expected)

    class _Time:
        __hash__ = None

        def __init__(self, expected, rel, abs_, nan_ok):
            if isinstance(expected, _dt.datetime) and rel is not None:
                raise TypeError("pytest.approx() does not support relative tolerance for datetime comparisons. "
                                "Use abs=timedelta(...) instead.")
            if nan_ok:
                raise TypeError("pytest.approx() does not support nan_ok for datetime/timedelta comparisons.")
            if abs_ is None and rel is None:
                raise TypeError("pytest.approx() requires an explicit tolerance for datetime/timedelta comparisons")
            if abs_ is not None and not isinstance(abs_, _dt.timedelta):
                raise TypeError(f"absolute tolerance for datetime/timedelta must be a timedelta, got "
                                f"{type(abs_).__name__}")
            if abs_ is not None and abs_ < _dt.timedelta(0):
                raise ValueError(f"absolute tolerance can't be negative: {abs_}")
            if rel is not None:
                if not isinstance(rel, (int, float)):
                    raise TypeError(f"relative tolerance for timedelta must be a number, got {type(rel).__name__}")
                if rel < 0 or math.isnan(rel) or math.isinf(rel):
                    raise ValueError(f"relative tolerance can't be {rel}")
            relative = None if rel is None else rel * abs(expected)
            self.expected = expected
            self.tol = max(abs_, relative) if abs_ is not None and relative is not None else (
                abs_ if abs_ is not None else relative)

        def __eq__(self, actual):
            try:
                return bool(abs(self.expected - actual) <= self.tol)
            except (TypeError, OverflowError):
                return False

        def __repr__(self):
            return f"{self.expected} ± {self.tol}"

    class Approx:
        __hash__ = None

        def __init__(self, expected, rel, abs_, nan_ok):
            self.expected, self.rel, self.abs, self.nan_ok = expected, rel, abs_, nan_ok
            array = _array(expected)
            if isinstance(expected, Decimal):
                self.kind = "scalar"
            elif isinstance(expected, Mapping):
                self.kind = "mapping"
                for key, value in expected.items():
                    if _nested(value):
                        raise TypeError(f"pytest.approx() does not support nested dictionaries: key={key!r} "
                                        f"value={value!r}")
            elif array is not None:
                self.kind, self.shape, self.flat = "array", array[0], array[1]
            elif _sequence_like(expected):
                self.kind = "sequence"
                for index, value in enumerate(expected):
                    if _nested(value):
                        raise TypeError(f"pytest.approx() does not support nested data structures: {value!r} at "
                                        f"index {index}")
            elif isinstance(expected, Collection) and not isinstance(expected, (str, bytes)):
                raise TypeError(f"pytest.approx() only supports ordered sequences, but got: {expected!r}")
            else:
                self.kind = "scalar"
            if self.kind == "scalar":
                self.one = self._of(expected)

        def _of(self, x):
            if isinstance(x, (_dt.datetime, _dt.timedelta)):
                return _Time(x, self.rel, self.abs, self.nan_ok)
            return _Scalar(x, self.rel, self.abs, self.nan_ok)

        def __eq__(self, actual):
            if self.kind == "scalar":
                return self.one == actual
            if self.kind == "mapping":
                try:
                    if set(actual.keys()) != set(self.expected.keys()):
                        return False
                except AttributeError:
                    return False
                return all(actual[k] == self._of(v) for k, v in self.expected.items())
            if self.kind == "array":
                got = _array(actual)
                if got is None and isinstance(actual, (list, tuple)):
                    return False if not self.shape or len(actual) != self.shape[0] else all(
                        a == self._of(e) for a, e in zip(_flatten(actual, len(self.shape)), self.flat))
                if got is None:
                    return all(actual == self._of(e) for e in self.flat)
                return got[0] == self.shape and all(a == self._of(e) for a, e in zip(got[1], self.flat))
            try:
                if len(actual) != len(self.expected):
                    return False
            except TypeError:
                return False
            return all(a == self._of(e) for a, e in zip(actual, self.expected))

        def __ne__(self, actual):
            return not self.__eq__(actual)

        def __bool__(self):
            raise AssertionError("approx() is not supported in a boolean context.\nDid you mean: "
                                 "`assert a == approx(b)`?")

        def __repr__(self):
            return f"approx({self.expected!r})"

    def _flatten(rows, depth):
        for _ in range(depth - 1):
            rows = [item for row in rows for item in row]
        return rows

    def approx(expected, rel=None, abs=None, nan_ok=False):
        return Approx(expected, rel, abs, nan_ok)

    return approx

'''
