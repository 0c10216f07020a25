"""Program-side runtime of stdin/stdout programs (PYTHON_SCRIPT mode).  Standard library only.

Runs in a process forked from the zygote, with the test's input on stdin and its stdout captured by
the fork server; the parent compares the output with the expected one.  The zygote has written the
program to `main.py` in the program's work dir (read-only, owned by root where the program runs as a
slot uid).  `run_script` gives a program what `python main.py` gives it: a real `__main__` module with
`__file__` the script's absolute path, `__spec__` None and a source loader (so `inspect.getsource`,
tracebacks with source lines, `os.path.dirname(__file__)`, a `__main__` class that pickles, and
multiprocessing, fork or spawn: a spawned child re-runs the file as `__mp_main__`), `sys.argv ==
['main.py']` and the script's directory first on `sys.path`; then `finalize` does what CPython's
finalisation does, in its order (threads joined, `atexit` handlers, the standard streams flushed, the
original streams put back and `__main__` cleared, so every stream the program swapped in or out, or
kept in a global, writes what it buffered); exit codes follow `sys.exit` (`sys.exit(False)` is 0, a
message is printed and is 1), an uncaught exception prints its traceback and is 1.  A program that would never exit (a
thread or an `atexit` handler that hangs) runs into the wall-clock limit: a timeout.
"""

import _weakref
import builtins
import os
import sys
import traceback
import types

_type = type
_isinstance = isinstance
_BaseException = BaseException
SCRIPT_NAME = "main.py"
_OWN = sys.modules.get(__name__)  # this runtime: it finishes the shutdown, so it is never cleared


def exit_status(exc):
    """The process exit status CPython gives `raise SystemExit(code)`."""
    code = exc.code
    if code is None:
        return 0
    if _isinstance(code, int):
        return code & 0xFF
    try:
        print(code, file=sys.stderr)
    except _BaseException:
        pass
    return 1


def write_main(program):
    """`program` as `main.py` in the current directory (the zygote child, before it drops to the slot uid): a
    fresh, read-only file."""
    try:
        os.unlink(SCRIPT_NAME)
    except FileNotFoundError:
        pass
    fd = os.open(SCRIPT_NAME, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o444)
    try:
        data = memoryview(program.encode("utf-8", "surrogatepass"))
        while data:
            data = data[os.write(fd, data):]
    finally:
        os.close(fd)


def run_script(program):
    """Run `program` (the text of `main.py` in the current directory) as `__main__` like `python main.py`; returns
    the exit status."""
    path = os.path.join(os.getcwd(), SCRIPT_NAME)
    main = types.ModuleType("__main__")
    main.__file__ = path
    main.__cached__ = None
    main.__spec__ = None
    main.__package__ = None
    main.__builtins__ = builtins
    try:
        from importlib.machinery import SourceFileLoader

        main.__loader__ = SourceFileLoader("__main__", path)
    except _BaseException:
        pass
    sys.modules["__main__"] = main
    sys.argv = [os.path.basename(path)]
    sys.path.insert(0, os.path.dirname(path))
    status = 0
    try:
        exec(compile(program, path, "exec"), main.__dict__)
    except SystemExit as exc:
        status = exit_status(exc)
    except _BaseException as exc:
        try:  # through sys.excepthook, as CPython does, without this function's frame
            tb = exc.__traceback__
            tb = tb.tb_next if tb is not None else None
            sys.excepthook(_type(exc), exc.with_traceback(tb), tb)
        except _BaseException:
            try:
                traceback.print_exc()
            except _BaseException:
                pass
        status = 1
    main = tb = None  # noqa: F841 -- as in CPython, nothing but sys.modules holds `__main__` at finalisation
    return finalize(status)


def finalize(status):
    """What CPython's finalisation (`Py_FinalizeEx`) does that a program can see, in its order; returns
    the exit status.

    1. join non-daemon threads (`threading._shutdown`);
    2. run `atexit` handlers (a `SystemExit` there sets the status, as in CPython);
    3. flush the current `sys.stdout`, then `sys.stderr` (a failure makes the status 120, as CPython's);
    4. collect garbage (finalizers of objects in cycles run: a file object in a cycle flushes);
    5. put the original streams back (`sys.stdout = sys.__stdout__`, ...), so a stream the program
       swapped in and holds nowhere else is finalised, which flushes it; take every module out of
       `sys.modules` in order (one only it held is freed: its objects' finalisers run), collect, then clear
       the globals of every module still alive, last imported first, as CPython clears a module's (a stream
       the program keeps in a global is finalised and flushed);
    6. flush `sys.__stdout__`, then `sys.__stderr__`: what was printed to a stream the program swapped
       out (CPython flushes them last, when it clears the `sys` module).
    """
    threading = sys.modules.get("threading")
    if threading is not None:
        try:
            threading._shutdown()
        except _BaseException:
            pass
    atexit = sys.modules.get("atexit")
    if atexit is not None:
        try:
            atexit._run_exitfuncs()  # prints what a handler raises, as CPython does
        except SystemExit as exc:
            status = exit_status(exc)
        except _BaseException:
            pass
    if not flush(getattr(sys, "stdout", None)) or not flush(getattr(sys, "stderr", None)):
        status = 120  # as CPython, when flushing the standard streams at exit fails
    gc = sys.modules.get("gc") or __import__("gc")
    try:
        if gc.isenabled():  # as CPython's `_PyGC_CollectIfEnabled`; the collections below run regardless
            gc.collect()
        for name in ("stdin", "stdout", "stderr"):
            setattr(sys, name, getattr(sys, f"__{name}__", None))
        modules, alive = sys.modules, []
        for name in list(modules):  # every module out of sys.modules, in order: one only sys.modules held is freed
            module = modules[name]
            if module is not sys and module is not builtins and module is not _OWN:
                try:
                    alive.append(_weakref.ref(module))
                except TypeError:
                    pass
                modules[name] = None
        del module
        gc.collect()
        for ref in reversed(alive):  # then the globals of those still alive, the last imported first (`__main__` late)
            namespace = getattr(ref(), "__dict__", None)
            if _type(namespace) is dict:
                _clear_module_dict(namespace)
            del namespace
    except _BaseException:
        pass
    flush(getattr(sys, "__stdout__", None))
    flush(getattr(sys, "__stderr__", None))
    return status


def _clear_module_dict(namespace):
    """As CPython clears a module's globals at exit (`_PyModule_ClearDict`): names starting with a single
    underscore are set to None first, then every other name but `__builtins__`, in their order."""
    for first in (True, False):
        for name in list(namespace):
            if _type(name) is str and name != "__builtins__" and \
                    (name.startswith("_") and not name.startswith("__")) is first:
                namespace[name] = None


def flush(stream):
    """Flush a stream that is open (a closed or missing one is fine); False when flushing fails."""
    try:
        if stream is not None and not stream.closed:
            stream.flush()
    except _BaseException:
        return False
    return True
