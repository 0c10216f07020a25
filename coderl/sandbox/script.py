"""Program-side runtime of stdin/stdout programs (PYTHON_SCRIPT mode).  Standard library only.

Runs in a process forked from the zygote, with the test's input on stdin and its stdout captured by
the fork server; the parent compares the output with the expected one.  `run_script` gives a program
what `python main.py` gives it: a real `__main__` module (so a class defined there pickles), then,
as CPython's finalisation does, non-daemon threads are joined, `atexit` handlers run and the standard
streams are flushed; exit codes follow `sys.exit` (`sys.exit(False)` is 0, a message is printed and
is 1), an uncaught exception prints its traceback and is 1.  A program that would never exit (a
thread or an `atexit` handler that hangs) runs into the wall-clock limit: a timeout.
"""

import builtins
import sys
import traceback
import types

_type = type
_isinstance = isinstance
_BaseException = BaseException


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


def run_script(program, filename="main.py"):
    """Run `program` as `__main__` like `python main.py`; returns the exit status."""
    main = types.ModuleType("__main__")
    main.__file__ = filename
    main.__builtins__ = builtins
    sys.modules["__main__"] = main
    sys.argv = [filename]
    status = 0
    try:
        exec(compile(program, filename, "exec"), main.__dict__)
    except SystemExit as exc:
        status = exit_status(exc)
    except _BaseException:
        try:
            traceback.print_exc()
        except _BaseException:
            pass
        status = 1
    return finalize(status)


def finalize(status):
    """What CPython does at exit, in its order: join non-daemon threads, run atexit handlers, flush."""
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
    for stream in (sys.stdout, sys.stderr):
        try:
            if stream is not None and not stream.closed:
                stream.flush()
        except _BaseException:
            status = status or 120  # like CPython when flushing stdout fails at exit
    return status
