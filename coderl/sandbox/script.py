"""Program-side runtime of stdin/stdout programs (PYTHON_SCRIPT mode).  Standard library only.

Runs in a process forked from the zygote, with the test's input on stdin and its stdout captured by
the fork server; the parent compares the output with the expected one.  The zygote has written the
program to `main.py` in the program's work dir (read-only, owned by root where the program runs as a
slot uid).  `run_script` gives a program what `python main.py` gives it: a real `__main__` module with
`__file__` the script's absolute path, `__spec__` None and a source loader (so `inspect.getsource`,
tracebacks with source lines, `os.path.dirname(__file__)`, a `__main__` class that pickles, and
multiprocessing, fork or spawn: a spawned child re-runs the file as `__mp_main__`), `sys.argv ==
['main.py']` and the script's directory first on `sys.path`; then,
as CPython's finalisation does, non-daemon threads are joined, `atexit` handlers run and the standard
streams are flushed; exit codes follow `sys.exit` (`sys.exit(False)` is 0, a message is printed and
is 1), an uncaught exception prints its traceback and is 1.  A program that would never exit (a
thread or an `atexit` handler that hangs) runs into the wall-clock limit: a timeout.
"""

import builtins
import os
import sys
import traceback
import types

_type = type
_isinstance = isinstance
_BaseException = BaseException
SCRIPT_NAME = "main.py"


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


def write_main(program, directory="."):
    """`program` as `main.py` in `directory` (the zygote child, before it drops to the slot uid): a
    fresh, read-only file; returns its absolute path."""
    path = os.path.join(os.path.abspath(directory), SCRIPT_NAME)
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o444)
    try:
        data = memoryview(program.encode("utf-8", "surrogatepass"))
        while data:
            data = data[os.write(fd, data):]
    finally:
        os.close(fd)
    return path


def run_script(program, path=None):
    """Run `program` (the text of the file at `path`) as `__main__` like `python main.py`; returns the
    exit status.  Without `path` the program runs from memory, as `main.py` in the current directory."""
    path = path or os.path.join(os.getcwd(), SCRIPT_NAME)
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
