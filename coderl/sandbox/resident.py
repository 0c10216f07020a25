"""The resident judge: one judge process per worker slot that stays up and judges one function task after
another, so a program costs one fork, not two.  Standard library only; loaded by path by the fork server
and run in a process forked once per slot from the zygote, as the slot's judge uid.

Per request the server sends, on the judge's control socket (fd 6), one message and four descriptors
(SCM_RIGHTS): the request (a memfd), the channel to this request's program, the result pipe and a stderr
pipe.  They become fds 3, 4, 5 and 2 for the request, as in a judge forked for it, and are closed when its
records are written; then the judge answers `done` with its CPU time so far, and whether it leaves.

What a fresh judge would have, every request gets (`Baseline.reset`); whatever a request could leave behind for
the next is looked for after it (`Baseline.dirt`), and any of it ends this judge: the server forks a fresh one
for the slot's next request.  The full lists, and the tests that prove them: docs/sandbox.md, "The resident judge".
"""

import copyreg
import ctypes
import decimal
import fcntl
import gc
import json
import operator
import os
import random
import resource
import signal
import socket
import sys

try:
    from . import handles
    from .zygote import read_all
except ImportError:  # loaded by path in the fork server
    import _coderl_handles as handles
    from _coderl_zygote import read_all

CTL_FD = 6
MAX_REQUESTS = 1000  # then a fresh judge: no state, however subtle, lives longer
RSS_GROWTH = 256 * 2**20
_is = operator.is_
_SIGNALS = tuple(s for s in signal.valid_signals() if s not in (signal.SIGKILL, signal.SIGSTOP))


def _version_views(dicts):
    """ctypes views of the dicts' version stamps (PEP 509's `ma_version_tag`), or None where a probe shows they
    are not there or do not change at every change of a dict (other interpreters, CPython 3.14+)."""
    if sys.implementation.name != "cpython" or not (3, 8) <= sys.version_info[:2] < (3, 14):
        return None
    ctypes = sys.modules.get("ctypes")  # the sandbox's own `linux.py` imported it: nothing new to import
    if ctypes is None:
        return None
    offset = object.__basicsize__ + ctypes.sizeof(ctypes.c_ssize_t)  # after the header and `ma_used`

    def view(d):
        return ctypes.c_uint64.from_address(id(d) + offset)

    probe = {"a": 1}
    stamps = [view(probe).value]
    for change in (lambda: probe.__setitem__("a", 2), lambda: probe.__setitem__("b", 3),
                   lambda: probe.__delitem__("b"), lambda: probe.update(a=1), lambda: probe.clear()):
        change()
        stamps.append(view(probe).value)
    if ctypes.c_ssize_t.from_address(id(dicts[0]) + object.__basicsize__).value != len(dicts[0]):
        return None  # `ma_used` is not where the layout says: so neither is the stamp
    if len(set(stamps)) != len(stamps):
        return None
    return [view(d) for d in dicts]


def _statm(field):
    """Bytes of this process's memory by /proc/self/statm's `field`: 0 its address space, 1 its resident set."""
    with open("/proc/self/statm", "rb") as f:
        return int(f.read().split()[field]) * os.sysconf("SC_PAGE_SIZE")


def _fds():
    return frozenset(os.listdir("/proc/self/fd"))


def _read(path):
    with open(path) as f:
        return f.read()


_CONTEXTS = (decimal.DefaultContext, decimal.BasicContext, decimal.ExtendedContext)  # module objects held in C
_VOLATILE = ("Vm", "Rss", "Hugetlb", "voluntary_ctxt", "nonvoluntary_ctxt")
_ENVIRON = ctypes.POINTER(ctypes.c_char_p).in_dll(ctypes.CDLL(None), "environ")  # made before the judges fork


def _process():
    """The process's state that no module's names hold: the kernel's view of it (signal mask, dispositions and
    pending signals, credentials, affinity, name: /proc/self/status; nice, priority and policy; timer slack;
    every fd's flags), its interval timers, the interpreter's settings held in C, decimal's module contexts, and
    the C environment."""
    status = tuple(line for line in _read("/proc/self/status").splitlines() if not line.startswith(_VOLATILE))
    stat = _read("/proc/self/stat").rsplit(")", 1)[1].split()
    flags = []
    for fd in sorted(_fds()):
        try:
            flags.append(_read(f"/proc/self/fdinfo/{fd}").split("flags:", 1)[1].split()[0])
        except (OSError, IndexError):
            pass
    environ, i = [], 0
    while _ENVIRON[i]:
        environ.append(_ENVIRON[i])
        i += 1
    socket_timeout = socket.getdefaulttimeout()
    return (status, stat[16], stat[37:39], _read("/proc/self/timerslack_ns"), flags, environ,
            [signal.getitimer(getattr(signal, n)) for n in dir(signal) if n.startswith("ITIMER_")],
            sys.getswitchinterval(), sys.get_int_max_str_digits(), sys.get_coroutine_origin_tracking_depth(),
            tuple(sys.get_asyncgen_hooks()), sys.getdlopenflags(), gc.get_debug(), socket_timeout,
            sys.modules["_abc"].get_cache_token(), [repr(c) for c in _CONTEXTS])


def _task_code_alive():
    """Whether a function of the task's code (compiled as `<task>` or `<test>`) outlived its request: held by a
    registry no module's names show (codecs, hooks), it would run in a later request."""
    return any(type(o) is _FUNCTION and o.__code__.co_filename in ("<task>", "<test>") for o in gc.get_objects())


_FUNCTION = type(_fds)


def _own_dict(value):
    """The attributes' dict of a class (a heap type's, the real one behind its mappingproxy) or of an object a
    module holds; None for anything else (modules are walked already, builtins' types are read-only)."""
    if isinstance(value, type):
        if not value.__flags__ & (1 << 9):  # Py_TPFLAGS_HEAPTYPE
            return None
        inner = gc.get_referents(vars(value))
        return inner[0] if len(inner) == 1 and type(inner[0]) is dict else None
    d = getattr(type(value), "__dictoffset__", 0) and getattr(value, "__dict__", None)
    return d if type(d) is dict and type(value).__module__ != "builtins" else None


class Baseline:
    """This judge's state before its first request: what every later request must find again."""

    def __init__(self):
        """Record the judge's state before its first request (modules, their names and their classes' attributes, the
        process, the registries), against which `dirt` compares."""
        gc.collect()
        self.modules = dict(sys.modules)
        self.dicts = []
        for module in self.modules.values():
            d = getattr(module, "__dict__", None)
            if type(d) is dict:
                self.dicts.append([module, d, tuple(d), tuple(d.values())])
        seen = {id(d) for _, d, _, _ in self.dicts}
        for module, d, _, values in list(self.dicts):  # the classes and objects modules hold: their attributes too
            for value in values:
                inner = _own_dict(value)
                if inner is not None and id(inner) not in seen:
                    seen.add(id(inner))
                    self.dicts.append([value, inner, tuple(inner), tuple(inner.values())])
        # Walking ~8,000 module attributes costs ~0.8 ms a request (each read touches a cold object); CPython
        # (3.8-3.13) stamps a dict with a new version at every change, so only a dict whose stamp moved is
        # walked.  Used only where a probe shows the stamps do that here.
        self.versions = _version_views([d for _, d, _, _ in self.dicts])
        self.stamps = [v.value for v in self.versions] if self.versions else None
        self.sequences = self._sequences()
        self.copyreg = dict(copyreg.dispatch_table)
        self.environ = dict(os.environ)
        self.cwd = os.getcwd()
        self.signals = {s: signal.getsignal(s) for s in _SIGNALS}
        self.recursion = sys.getrecursionlimit()
        self.digits = sys.get_int_max_str_digits() if hasattr(sys, "get_int_max_str_digits") else None
        self.gc = (gc.isenabled(), gc.get_threshold())
        self.frozen = gc.get_freeze_count()  # only falls (frozen objects freed) unless something freezes more
        self.decimal = decimal.getcontext().copy()
        self.rss = _statm(1)
        self.space = _statm(0)  # the address space it judges from: the request's memory limit comes on top
        self.process = _process()
        self.limits = None
        self.audit = [False]
        sys.addaudithook(self._audit)  # before anything else can: its own events are cheap
        self.fds = _fds()

    def _audit(self, event, _args):
        if event == "sys.addaudithook":
            self.audit[0] = True

    @staticmethod
    def _sequences():
        warnings = sys.modules.get("warnings")
        return (tuple(sys.path), tuple(sys.meta_path), tuple(sys.path_hooks), tuple(gc.callbacks),
                tuple(warnings.filters) if warnings is not None else ())

    def reset(self, limits, cpu_used):
        """Before a request: what a judge forked for it would start with."""
        random.seed()  # as `random` reseeds itself in a forked child
        decimal.setcontext(self.decimal.copy())
        sys.setrecursionlimit(self.recursion)
        cpu = int(cpu_used + max(1.0, float(limits["cpu_seconds"]))) + 1
        _, hard = resource.getrlimit(resource.RLIMIT_CPU)
        resource.setrlimit(resource.RLIMIT_CPU, (cpu if hard == resource.RLIM_INFINITY else min(cpu, hard), hard))
        for which, value in ((resource.RLIMIT_AS, self.space + limits["memory_bytes"]),
                             (resource.RLIMIT_FSIZE, limits["file_size_bytes"]),
                             (resource.RLIMIT_NPROC, limits["max_processes"])):
            _, hard = resource.getrlimit(which)
            resource.setrlimit(which, (value if hard == resource.RLIM_INFINITY else min(value, hard), hard))
        self.limits = _read("/proc/self/limits")  # every limit, as this request starts

    def dirt(self, served):
        """Why this judge must not judge another request, or None: the first difference found."""
        handles.JUDGE = None  # the one name that changes with every request, set back first
        if served >= MAX_REQUESTS:
            return "requests"
        if len(sys.modules) != len(self.modules) or any(sys.modules.get(k) is not m for k, m in self.modules.items()):
            return "modules"
        for i, (module, d, keys, values) in enumerate(self.dicts):
            if self.stamps is not None:
                stamp = self.versions[i].value
                if stamp == self.stamps[i]:
                    continue
                self.stamps[i] = stamp  # changed, and (below) changed back: the same names and objects again
            if len(d) != len(keys) or not all(map(_is, d.values(), values)) or not all(map(_is, d, keys)):
                return "module:" + str(getattr(module, "__name__", "?"))[:60]
        if self.audit[0]:
            return "audit_hook"
        if self._sequences() != self.sequences or dict(copyreg.dispatch_table) != self.copyreg:
            return "import_system"
        if sys.gettrace() is not None or sys.getprofile() is not None:
            return "trace_hook"
        if (gc.isenabled(), gc.get_threshold()) != self.gc or gc.get_freeze_count() > self.frozen:
            return "gc"
        if dict(os.environ) != self.environ or os.getcwd() != self.cwd:
            return "environment"
        if any(signal.getsignal(s) is not h for s, h in self.signals.items()):  # the umask: in `_process`
            return "process"
        if len(os.listdir("/proc/self/task")) > 1:
            return "thread"
        try:
            os.waitpid(-1, os.WNOHANG)
            return "child"  # one still running, or one that ended and was never reaped
        except ChildProcessError:
            pass
        if _fds() != self.fds:
            return "fd"
        if _process() != self.process or _read("/proc/self/limits") != self.limits:
            return "process"
        if _task_code_alive():
            gc.collect()
            if _task_code_alive():
                return "kept_code"
        if handles.LIVE:
            gc.collect()  # a handle in a reference cycle (a traceback's frames) is freed by a collection
            if handles.LIVE:
                return "handle"
        if _statm(1) > self.rss + RSS_GROWTH:
            return "memory"
        return None


def _cpu():
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def serve(run, once=False):
    """The judge's life: `run(request, chan_fd, result_fd)` for each request the server sends, until the
    server closes the control socket or a request leaves something behind.  `once` (resident judges switched off,
    `isolation.OFF_ENV`): one request, with no baseline to keep or compare, as a judge forked for it."""
    ctl = socket.socket(fileno=CTL_FD)
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 2)
    os.close(devnull)
    baseline = None if once else Baseline()
    served = 0
    while True:
        try:
            data, fds, _, _ = socket.recv_fds(ctl, 4096, 4)
        except OSError:
            return
        if not data:
            return
        key = json.loads(data)["key"]
        high = []
        for fd in fds:  # out of the way first: they may have arrived as 3, 4, 5
            high.append(fcntl.fcntl(fd, fcntl.F_DUPFD, 64))
            os.close(fd)
        for fd, target in zip(high, (3, 4, 5, 2)):  # request, channel, result pipe, stderr
            os.dup2(fd, target)
            os.close(fd)
        request = json.loads(read_all(3))
        os.close(3)
        if baseline is not None:
            baseline.reset(request["limits"], _cpu())
        try:
            run(request, 4, 5)
        finally:
            os.close(4)
            os.close(5)
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, 2)
            os.close(devnull)
        served += 1
        why = "once" if once else baseline.dirt(served)
        ctl.send(json.dumps({"done": key, "cpu": _cpu(), "leaves": why}).encode())
        if why is not None:  # with whatever it started in its process group (the task's own code may start some)
            os.killpg(0, signal.SIGKILL)
