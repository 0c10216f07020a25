"""A program starts with the signal dispositions a fresh interpreter gives it (docs/sandbox.md, "Signals").

Function programs and stdin scripts fork from the sandbox's zygote instead of starting an interpreter, so what
CPython sets up at start must be set again in the child: SIGINT is `default_int_handler` (a KeyboardInterrupt,
what `_thread.interrupt_main` and `signal.raise_signal(SIGINT)` rely on), SIGPIPE and SIGXFSZ are ignored, the
rest default.  Found by an attack (2026-11-27): SIGINT was reset to SIG_DFL, so a correct program that interrupts
its own main thread ran into the wall-clock backstop.  Each case is judged by the plain interpreter too."""

import os
import signal
import subprocess
import sys
import tempfile

from coderl.sandbox.client import Sandbox
from coderl.sandbox.types import CheckKind, ExecutionRequest, Limits, Mode, Status, TestCase

PLAIN_ENV = {"PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8", "PYTHONHASHSEED": "0"}

# Each prints one line; the same program run by `python main.py` prints the line the test expects.
DISPOSITIONS = ("import signal\n"
                "names = ('SIGINT', 'SIGTERM', 'SIGPIPE', 'SIGXFSZ', 'SIGCHLD', 'SIGHUP', 'SIGUSR1', 'SIGALRM')\n"
                "def name(h):\n"
                "    return {signal.SIG_DFL: 'dfl', signal.SIG_IGN: 'ign', signal.default_int_handler: 'int'}.get(h, 'other')\n"
                "print(' '.join(n + '=' + name(signal.getsignal(getattr(signal, n))) for n in names))\n")
INTERRUPT_MAIN = ("import _thread, threading, time\n"
                  "threading.Timer(0.2, _thread.interrupt_main).start()\n"
                  "try:\n"
                  "    while True:\n"
                  "        time.sleep(0.01)\n"
                  "except KeyboardInterrupt:\n"
                  "    print(7)\n")
RAISE_SIGINT = ("import signal\n"
                "try:\n"
                "    signal.raise_signal(signal.SIGINT)\n"
                "except KeyboardInterrupt:\n"
                "    print('caught')\n")
BROKEN_PIPE = ("import os\n"
               "r, w = os.pipe()\n"
               "os.close(r)\n"
               "try:\n"
               "    os.write(w, b'x')\n"
               "except BrokenPipeError:\n"
               "    print('broken pipe')\n")
SCRIPTS = (DISPOSITIONS, INTERRUPT_MAIN, RAISE_SIGINT, BROKEN_PIPE)


def _default_interrupts():
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGQUIT, signal.SIG_DFL)


def plain_stdout(script: str) -> str:
    with tempfile.TemporaryDirectory() as d:
        with open(os.path.join(d, "main.py"), "w") as f:
            f.write(script)
        # started as a shell starts a foreground program: SIGINT and SIGQUIT at their defaults, whatever this test
        # process inherited (a suite run in the background with `&` has them ignored, and Python keeps an ignored
        # SIGINT ignored)
        run = subprocess.run([sys.executable, "-s", "main.py"], cwd=d, env=PLAIN_ENV, stdin=subprocess.DEVNULL,
                             capture_output=True, text=True, timeout=30, start_new_session=True,
                             preexec_fn=_default_interrupts)
    assert run.returncode == 0, run.stderr
    return run.stdout.strip()


def test_scripts_start_with_the_interpreters_signal_dispositions():
    expected = [plain_stdout(s) for s in SCRIPTS]
    assert expected[0].startswith("SIGINT=int ") and "SIGPIPE=ign" in expected[0]  # what CPython sets up
    requests = [ExecutionRequest(Mode.PYTHON_SCRIPT, program=s, limits=Limits(),
                                 tests=(TestCase("0", "", CheckKind.STDOUT, want),)) for s, want in zip(SCRIPTS, expected)]
    with Sandbox(workers=2) as sb:
        results = [f.result() for f in [sb.submit(r) for r in requests]]
    for script, want, result in zip(SCRIPTS, expected, results):
        assert result.status == Status.PASSED, (script, want, result.stdout, result.message)


def test_function_programs_start_with_them_too():
    want = plain_stdout(DISPOSITIONS)
    program = ("import signal, _thread, threading, time\n"
               "def f():\n"
               "    names = ('SIGINT', 'SIGTERM', 'SIGPIPE', 'SIGXFSZ', 'SIGCHLD', 'SIGHUP', 'SIGUSR1', 'SIGALRM')\n"
               "    kinds = {signal.SIG_DFL: 'dfl', signal.SIG_IGN: 'ign', signal.default_int_handler: 'int'}\n"
               "    line = ' '.join(n + '=' + kinds.get(signal.getsignal(getattr(signal, n)), 'other') for n in names)\n"
               "    threading.Timer(0.2, _thread.interrupt_main).start()\n"
               "    try:\n"
               "        while True:\n"
               "            time.sleep(0.01)\n"
               "    except KeyboardInterrupt:\n"
               "        return line\n")
    request = ExecutionRequest(Mode.PYTHON_TESTS, program=program, entry_point="f", limits=Limits(),
                               tests=(TestCase("0", "candidate()", CheckKind.EQUALS, want),))
    with Sandbox(workers=1) as sb:
        result = sb.run(request)
    assert result.status == Status.PASSED, (want, result.message, result.tests)
