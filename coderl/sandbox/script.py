"""Program-side runtime of stdin/stdout programs (PYTHON_SCRIPT mode).  Standard library only.

Runs in a process forked from the zygote, with the test's input on stdin and its stdout captured by
the fork server; the parent compares the output with the expected one.
"""

import builtins
import sys
import traceback

_type = type
_BaseException = BaseException


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
