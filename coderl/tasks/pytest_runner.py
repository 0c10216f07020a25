"""The runner a test-file task's tests run through, in the judge process (`coderl.tasks.test_files`).

`RUNNER` is trusted code: the text is the first part of such a task's test preamble, and runs only in the
judge's interpreter (docs/sandbox.md), never where the program runs.  It binds two names there:

    pytest             a stand-in module with what the supported test files use: `raises` (a context manager or
                       the callable form, `match=`), `approx`, `fixture`, `mark.parametrize`, `param`, `fail`,
                       `skip`, `importorskip`, `main` (does nothing: the runner runs every test itself); any other
                       mark is a no-op decorator
    __coderl_pytest__  `run(name, index, count)`: one test (a function, or `Class::method`) with its
                       parametrised case `index` of `count` (the number counted at load), its fixtures resolved:
                       the file's `@pytest.fixture` functions (plain or `yield`, on other fixtures, `autouse`) and
                       the builtin `tmp_path` (a new directory, which the program may read and write too)

Never pytest itself, whether or not the sandbox's interpreter has it: one meaning everywhere, and nothing in a
plugin or an ini file that could change a verdict.  A skip reached at run time (`pytest.skip`, `importorskip` of a
module that is not there) fails the test: a skipped test never counts as passed.  The runner's code runs in a
namespace of its own, from a string: the judge reads every name the preamble binds as the tests' own (`checks.Names`:
a runner function named `add` would have kept a solution's `add` from the tests), and hands the program the
preamble's top-level class definitions when a test passes it an object of one (`checks.class_definitions`).
"""

from coderl.tasks.pytest_approx import APPROX  # noqa: E402 -- the runner's `approx`, one room of its own

SOURCE = r'''
def make(test_namespace):
    import inspect
    import itertools
    import math
    import pathlib
    import re
    import tempfile
    import types

    class Skipped(Exception):
        """pytest.skip at run time: the runner fails the test."""

    class Failed(AssertionError):
        """pytest.fail, or a raises block that did not raise."""

    # The outcomes pytest makes uncatchable (its OutcomeException is a BaseException): the first one raised in a test
    # is kept here, and the test fails with it whatever caught it after -- the file (`except Exception`, a raises
    # block) or the program a callback raised it in (`guard(lambda: pytest.fail())`).  Stricter than pytest, which a
    # bare `except:` fools: docs/tasks.md, "Test files".
    outcome = []

    def _outcome(exc):
        if not outcome:
            outcome.append(exc)
        return exc

    def skip(reason="", **kwargs):
        raise _outcome(Skipped(reason))

    def fail(reason="", pytrace=True):
        raise _outcome(Failed(reason))

    def importorskip(modname, minversion=None, reason=None, **kwargs):
        import importlib
        try:
            return importlib.import_module(modname)
        except ImportError:
            raise _outcome(Skipped(reason or f"could not import {modname!r}")) from None

    def main(*args, **kwargs):
        return 0

    class ExceptionInfo:
        def __init__(self):
            self.type = self.value = self.tb = None

        @property
        def typename(self):
            return self.type.__name__

        def match(self, regexp):
            # pytest's: the exception's str, then its notes (add_note), one a line
            text = "\n".join([str(self.value), *getattr(self.value, "__notes__", [])])
            if not re.search(regexp, text):
                raise AssertionError(f"Regex pattern did not match.\n Regex: {regexp!r}\n Input: {text!r}")
            return True

        def __repr__(self):
            return f"<ExceptionInfo {self.value!r}>"

    class RaisesContext:
        def __init__(self, expected, match):
            self.expected, self.match_expr, self.info = expected, match, ExceptionInfo()

        def __enter__(self):
            return self.info

        def __exit__(self, etype, value, tb):
            if etype is None:
                raise _outcome(Failed(f"DID NOT RAISE {self.expected!r}"))
            if not issubclass(etype, self.expected):
                return False
            self.info.type, self.info.value, self.info.tb = etype, value, tb
            if self.match_expr is not None:
                self.info.match(self.match_expr)
            return True

    def raises(expected_exception, *args, match=None, **kwargs):
        kinds = expected_exception if isinstance(expected_exception, tuple) else (expected_exception,)
        if not kinds or not all(isinstance(k, type) and issubclass(k, BaseException) for k in kinds):
            raise TypeError(f"expected exception must be a BaseException type, not {expected_exception!r}")
        if not args:
            if kwargs:
                raise TypeError(f"unexpected keyword arguments to raises: {sorted(kwargs)}")
            return RaisesContext(expected_exception, match)
        with RaisesContext(expected_exception, match) as info:
            args[0](*args[1:], **kwargs)
        return info

    approx = make_approx()

    fixtures = {}  # name -> (function, autouse)

    def fixture(fixture_function=None, *, scope="function", params=None, autouse=False, ids=None, name=None):
        def register(func):
            fixtures[name or func.__name__] = (func, autouse)
            return func
        return register(fixture_function) if callable(fixture_function) else register

    class ParameterSet:
        def __init__(self, values, marks, id):
            self.values, self.marks, self.id = values, marks, id

    def param(*values, marks=(), id=None):
        return ParameterSet(values, marks, id)

    def _mark_of(name):
        def mark(*args, **kwargs):
            if len(args) == 1 and not kwargs and callable(args[0]):
                return _marked(args[0], name)
            return lambda func: _marked(func, name)
        return mark

    def _marked(func, name):
        if name in ("skip", "skipif", "xfail"):  # refused at load; reached anyway, the test fails
            func.__dict__.setdefault("__coderl_skip__", name)
        return func

    class Mark:
        def parametrize(self, argnames, argvalues, indirect=False, ids=None, scope=None):
            def add(func):
                func.__dict__.setdefault("__coderl_parametrize__", []).insert(0, (argnames, list(argvalues)))
                return func
            return add

        def __getattr__(self, name):
            if name.startswith("__"):
                raise AttributeError(name)
            return _mark_of(name)

    module = types.ModuleType("pytest", "coderl's stand-in for pytest (coderl.tasks.pytest_runner)")
    for value in (skip, fail, importorskip, main, raises, approx, fixture, param):
        setattr(module, value.__name__, value)
    module.mark, module.Skipped, module.Failed, module.ExceptionInfo = Mark(), Skipped, Failed, ExceptionInfo

    def _names(argnames):
        if isinstance(argnames, str):
            return [n.strip() for n in argnames.split(",") if n.strip()]
        return list(argnames)

    def cases(func):
        """Every parametrised case of `func`: {argument name: value}, the product of its parametrize marks."""
        sets = []
        for argnames, argvalues in func.__dict__.get("__coderl_parametrize__", []):
            names, rows = _names(argnames), []
            for value in argvalues:
                values = value.values if isinstance(value, ParameterSet) else value
                if isinstance(value, ParameterSet) and value.marks:
                    raise Failed("a parametrized case with marks is not run (skip, xfail)")
                if len(names) == 1 and isinstance(argnames, str) and not isinstance(value, ParameterSet):
                    # pytest: one name given as a string takes each value whole; a list of one name, a 1-tuple
                    values = (values,)
                values = tuple(values)
                if len(values) != len(names):
                    raise Failed(f"parametrize: {len(names)} names, a case of {len(values)} values")
                rows.append(dict(zip(names, values)))
            sets.append(rows)
        return [dict(kv for part in combo for kv in part.items()) for combo in itertools.product(*sets)]

    def hook(method, test):
        """setup_method / teardown_method, given the test only where it takes an argument (pytest accepts both)."""
        return method(test) if inspect.signature(method).parameters else method()

    def run(name, index=0, count=1):
        """Run the test `name` (`function` or `Class::method`), its case `index` of the `count` counted at load."""
        ns = test_namespace
        owner, _, method = name.rpartition("::")
        func = getattr(ns[owner], method) if owner else ns[name]
        if "__coderl_skip__" in func.__dict__:
            raise Failed(f"the test is marked {func.__coderl_skip__}: a skipped test never passes")
        combos = cases(func)
        if len(combos) != count:
            raise Failed(f"{len(combos)} parametrized cases, {count} counted at load")
        params = combos[index]
        instance = ns[owner]() if owner else None
        test = getattr(instance, method) if owner else func
        cache, teardowns = {}, []
        outcome.clear()

        def resolve(arg, asking=()):
            if arg in params:
                return params[arg]
            if arg in cache:
                return cache[arg]
            if arg == "tmp_path":
                value = pathlib.Path(tempfile.mkdtemp(prefix="pytest-tmp-"))
            elif arg in fixtures:
                if arg in asking:
                    raise Failed(f"fixture {arg!r} depends on itself")
                func = fixtures[arg][0]
                kwargs = {p: resolve(p, (*asking, arg)) for p in inspect.signature(func).parameters}
                if inspect.isgeneratorfunction(func):
                    gen = func(**kwargs)
                    teardowns.append(gen)
                    value = next(gen)
                else:
                    value = func(**kwargs)
            else:
                raise Failed(f"fixture {arg!r} not found")
            cache[arg] = value
            return value

        try:
            if instance is not None and callable(getattr(instance, "setup_method", None)):
                hook(instance.setup_method, test)
            for fname, (_, autouse) in list(fixtures.items()):
                if autouse:
                    resolve(fname)
            kwargs = {p: resolve(p) for p in inspect.signature(test).parameters}
            test(**kwargs)
        except Skipped as exc:
            raise Failed(f"the test skipped itself at run time ({exc}): a skipped test never passes") from None
        finally:
            try:
                for gen in reversed(teardowns):
                    try:
                        next(gen)
                    except StopIteration:
                        continue
                    raise Failed("a yield fixture yielded twice")
            finally:
                if instance is not None and callable(getattr(instance, "teardown_method", None)):
                    hook(instance.teardown_method, test)
        if outcome:  # raised in the test, its fixtures or its hooks, and caught there or in the program
            kind = "skipped itself at run time" if isinstance(outcome[0], Skipped) else "failed"
            raise Failed(f"the test {kind} ({outcome[0]}), which was caught: pytest's outcomes cannot be caught")

    return module, types.SimpleNamespace(run=run)

'''

# The preamble's first lines: the runner's code runs in a namespace of its own (none of its names is one the tests'
# names are resolved against: `checks.Names` reads every name the preamble binds), and binds two names in the tests'.
RUNNER = ("__coderl_runner__ = {'__name__': '__coderl_runner__'}\n"
          f"exec(compile({APPROX + SOURCE!r}, '<coderl pytest runner>', 'exec'), __coderl_runner__)\n"
          "pytest, __coderl_pytest__ = __coderl_runner__['make'](globals())\n"
          "del __coderl_runner__\n")
