"""A judge that starts clean: whatever a task's code does to its judge's process and interpreter, the slot's next
task sees what a fresh judge sees (by construction: each task's judge is forked for it from the judges' zygote,
which never runs a task's code; this test holds that construction to it).

What "sees" means is taken by code, not by a list of the kinds of state: `SNAPSHOT` runs in the judge (as the
task's own code, which is where task code runs) and records
  * the process as the kernel shows it: every text file of /proc/self and of its directories, line by line
    (limits, signal mask and dispositions, scheduling, credentials, timers' slack, fds and their flags, ...);
  * every public getter the loaded C modules have (`get*`, `is*`, `list*`), called with no argument and with
    each integer constant of its module (every resource limit, every signal's handler, every interval timer,
    affinity, the interpreter's limits and flags, gc's settings, the default socket timeout, ...);
  * every loaded module's names, the attributes of the classes and objects they hold, and the contents of the
    containers among them, three levels down (the standard library's registries, the environment);
  * the live objects by type and, for functions and classes, by name (what a C-level registry holds);
  * the C environment (`environ`, which `os.putenv` changes without `os.environ`).
What differs between fresh judges is the nature of that entry (a pid, a time), found by comparing four of them, and
left out (so is an entry that moves with the machine, its load: one that differs between the first fresh judge and
one taken right after the case), as are where the memory's pages are, the kernel's counters of how much the judge has
run (CPU time by clock ticks, faults, context switches, I/O: a tick of system time or not is the machine's load) and
the scheduler's (/proc/self/*map*, the sizes in statm, status and stat, sched, io), and the syntax trees of the
judge's parse cache; in mountinfo, the numbers the kernel draws machine-wide for mounts (ids, an in-memory file
system's device number: each mount is read by its place in the table and its parent's); everything else must match.
So a new kind of state a task leaves fails this test without anyone naming it.  Each case dirties the judge
one way."""

import pytest

from coderl.sandbox import judge as judge_module
from coderl.sandbox.client import Sandbox
from coderl.sandbox.types import CheckKind, ExecutionRequest, Limits, Mode, TestCase

from .helpers import ADD, MOUNT_TABLE

SNAPSHOT = MOUNT_TABLE + r'''
def snapshot():
    import sys
    os, gc, types, ctypes, abc = (sys.modules[m] for m in ("os", "gc", "types", "ctypes", "collections.abc"))
    seen = {}
    PID_GETTERS = {"getpgid", "getsid", "sched_getaffinity", "sched_getparam", "sched_getscheduler"}
    # the process as the kernel shows it
    def read(path, key):
        try:
            if os.path.islink(path):
                seen[key] = os.readlink(path)
                return
            with open(path, "rb") as f:
                text = f.read(1 << 16).decode()
        except (OSError, UnicodeDecodeError, ValueError):
            return
        lines = text.split(" ") if key.endswith(":stat") else text.splitlines()
        if key == "proc:mountinfo":  # without the numbers the kernel draws machine-wide
            lines = mount_table(lines)
        for i, line in enumerate(lines):
            if key == "proc:stat" and (9 <= i <= 16 or i in (22, 23, 38)):
                line = "-"  # faults and CPU times; its memory's size (vsize, rss: statm's); the CPU it last ran on
            elif key == "proc:status" and line.startswith(("Vm", "Rss", "Hugetlb", "voluntary", "nonvoluntary")):
                line = line.split(":")[0]  # its memory's pages (as statm), its context switches
            seen[f"{key}:{i}"] = line
    for name in os.listdir("/proc/self"):
        path = "/proc/self/" + name
        # where its pages are and how often touched; run counters; arch_status: ms since the CPU last ran AVX-512
        if "map" in name or name in ("statm", "sched", "io", "arch_status"):
            continue
        if name in ("task", "net") or not os.path.isdir(path) or os.path.islink(path):
            read(path, "proc:" + name)
            continue
        try:
            entries = os.listdir(path)
        except OSError:
            continue
        seen[f"proc:{name}/"] = " ".join(sorted(entries))
        for entry in entries:
            read(f"{path}/{entry}", f"proc:{name}/{entry}")
    # the getters of the loaded C modules
    atomic = (str, bytes, int, float, complex, bool, type(None))
    def show(value, text=False):
        if isinstance(value, atomic):
            return repr(value)[:300]
        if isinstance(value, (tuple, list, frozenset, set)) and len(value) < 64:
            return type(value).__name__ + "[" + ",".join(show(v, text) for v in value) + "]"
        shown = repr(value) if text else ""  # a getter's value: its text, unless that is only its address
        return shown if text and " at 0x" not in shown and len(shown) < 1000 else f"{type(value).__name__}@{id(value):x}"
    for mname, module in list(sys.modules.items()):
        names = getattr(module, "__dict__", None)
        if type(names) is not dict:
            continue
        consts = {v for k, v in names.items() if k.isupper() and type(v) is not bool and isinstance(v, int) and 0 <= v < 4096}
        for fname, fn in list(names.items()):
            # a source of entropy (its value is drawn, not kept); the object graph (the live objects are counted by
            # type below; who refers to a small int moves with the zygote's counters); the heap's block count (it
            # moves with the zygote's own allocations when it forked the judge)
            if type(fn) is not types.BuiltinFunctionType or not fname.startswith(("get", "is", "list")) or \
                    "rand" in fname or fname in ("get_objects", "get_referrers", "get_referents", "getallocatedblocks"):
                continue
            # a getter of another process (getpgid(512)) answers by whether that pid is alive, which moves with the
            # pid counter (a judge whose own pid was 512 once made it answer): with 0, itself
            for args in [(), (0,), *((c,) for c in sorted(consts) if fname not in PID_GETTERS)]:
                try:
                    parts = show(fn(*args), text=True).split("@")  # a new object's address: where the heap had room
                    seen[f"call:{mname}.{fname}{args}"] = "@".join([parts[0]] + [p.lstrip("0123456789abcdef") for p in parts[1:]])
                except Exception:
                    pass
    # modules' names, classes' and objects' attributes, containers' contents
    visited = set()
    def walk(path, value, depth):
        if isinstance(value, atomic) or id(value) in visited or depth > 3:
            return
        visited.add(id(value))
        if isinstance(value, abc.Mapping) and type(value) is not types.MappingProxyType:
            try:
                items = list(value.items())[:5000]
            except Exception:
                return
        elif isinstance(value, (list, set, frozenset, tuple, abc.MutableSequence, abc.MutableSet)):
            items = list(enumerate(value))[:5000] if not isinstance(value, (set, frozenset, abc.MutableSet)) \
                else [(show(v), v) for v in value][:5000]
        else:
            d = getattr(value, "__dict__", None) if isinstance(value, (type, types.ModuleType)) or \
                type(value).__module__ not in ("builtins",) else None
            if not isinstance(d, (dict, types.MappingProxyType)):
                return
            items = list(d.items())
        seen["walk:" + path] = ",".join(sorted(f"{str(k)[:80]}={show(v)}" for k, v in items))
        for k, v in items:  # objects whose state lives in C (a decimal context): their text, where it shows it
            if not isinstance(v, (type, types.ModuleType, types.FunctionType, types.BuiltinFunctionType, atomic)) and \
                    not hasattr(v, "__dict__") and not isinstance(v, (abc.Mapping, abc.Collection)):
                seen[f"text:{path}.{str(k)[:80]}"] = show(v, text=True)
        for k, v in items:
            if not isinstance(v, (types.FunctionType, types.BuiltinFunctionType, types.ModuleType)):
                walk(f"{path}.{str(k)[:80]}", v, depth + 1)
    for mname, module in sorted(sys.modules.items(), key=lambda kv: kv[0]):
        walk(mname, module, 0)
    # live objects by type, and functions and classes by name
    census = {}
    for obj in gc.get_objects():
        t = type(obj)
        if t.__module__ == "ast":  # the judge's parse cache of tasks' code (`checks`), kept by design
            continue
        key = t.__qualname__
        if t in (types.FunctionType, type):
            key += ":" + str(getattr(obj, "__module__", "?")) + "." + str(getattr(obj, "__qualname__", "?"))
        census[key] = census.get(key, 0) + 1
    for key, n in census.items():
        seen["live:" + key] = str(n)
    # the C environment
    environ = ctypes.POINTER(ctypes.c_char_p).in_dll(ctypes.CDLL(None), "environ")
    i = 0
    while environ[i]:
        seen[f"environ:{i}"] = environ[i].decode(errors="replace")
        i += 1
    return seen
'''

# One way each to dirty the judge, as a task's test preamble would (each runs in the judge, as the task's code).
DIRT = {
    "rlimit_nofile": "import resource\nresource.setrlimit(resource.RLIMIT_NOFILE, (64, resource.getrlimit(resource.RLIMIT_NOFILE)[1]))",
    "rlimit_stack": "import resource\nresource.setrlimit(resource.RLIMIT_STACK, (1 << 20, resource.getrlimit(resource.RLIMIT_STACK)[1]))",
    "rlimit_core": "import resource\nresource.setrlimit(resource.RLIMIT_CORE, (0, 0))",
    "itimer_virtual": "import signal\nsignal.setitimer(signal.ITIMER_VIRTUAL, 1000)",
    "alarm": "import signal\nsignal.alarm(1000)",
    "signal_mask": "import signal\nsignal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGUSR2})",
    "signal_ignored": "import signal\nsignal.signal(signal.SIGTERM, signal.SIG_IGN)",
    "nice": "import os\nos.nice(3)",
    "affinity": "import os\nos.sched_setaffinity(0, {min(os.sched_getaffinity(0))})",
    "scheduler": "import os\nos.sched_setscheduler(0, os.SCHED_BATCH, os.sched_param(0))",
    "switch_interval": "import sys\nsys.setswitchinterval(0.5)",
    "int_digits": "import sys\nsys.set_int_max_str_digits(640)",
    "coroutine_depth": "import sys\nsys.set_coroutine_origin_tracking_depth(7)",
    "asyncgen_hooks": "import sys\nsys.set_asyncgen_hooks(firstiter=lambda g: None)",
    "dlopen_flags": "import sys\nsys.setdlopenflags(sys.getdlopenflags() | 0x100)",
    "socket_timeout": "import socket\nsocket.setdefaulttimeout(0.001)",
    "putenv": "import os\nos.putenv('LEFT', '1')",
    "environ": "import os\nos.environ['LEFT'] = '1'",
    "gc_debug": "import gc\ngc.set_debug(gc.DEBUG_SAVEALL)",
    "gc_freeze": "import gc\ngc.freeze()",
    "codec_search": "import codecs\ncodecs.register(lambda name: None)",
    "codec_error": "import codecs\ncodecs.register_error('left', lambda e: ('', e.end))",
    "class_attribute": "import json\njson.JSONEncoder.item_separator = ';'",
    "class_method": "import fractions\nfractions.Fraction.__eq__ = lambda self, other: True",
    "instance_attribute": "import json\njson._default_encoder.indent = 4",
    "registry": "import copyreg\ncopyreg.pickle(complex, lambda c: (complex, (0, 0)))",
    "abc_registry": "import collections.abc\nclass Left:\n    pass\ncollections.abc.Sequence.register(Left)",
    "process_name": "import ctypes\nctypes.CDLL(None).prctl(15, b'left', 0, 0, 0)",
    "timer_slack": "import ctypes\nctypes.CDLL(None).prctl(29, 12345, 0, 0, 0)",
    # the sandbox's own CDLL in the judge: a function looked up (cached on it) and one of its own rebound
    "sandbox_libc": "import sys\nlibc = sys.modules['_coderl_server.contain.linux']._libc\nlibc.getppid()\nlibc.prctl = libc.getpid",
    "fd_flags": "import os\nos.set_inheritable(0, True)",
    "umask": "import os\nos.umask(0)",
    "cwd": "import os\nos.chdir('/tmp')",
    "recursion": "import sys\nsys.setrecursionlimit(60)",
    "decimal": "import decimal\ndecimal.getcontext().prec = 3",
    "decimal_default": "import decimal\ndecimal.DefaultContext.prec = 3",
}


def request(preamble="", tests=(TestCase("0", "candidate(1, 2)", CheckKind.EQUALS, 3),)):
    return ExecutionRequest(Mode.PYTHON_TESTS, program=ADD, entry_point="add", tests=tests, test_preamble=preamble,
                            limits=Limits(cpu_seconds=20))


@pytest.fixture(scope="module")
def sandbox():
    with Sandbox(workers=1) as sb:
        yield sb


@pytest.fixture(scope="module")
def seen(sandbox):
    """`seen()`: the snapshot the slot's judge takes at the next request (a value test's value, read as the parent
    decodes it)."""
    mp = pytest.MonkeyPatch()
    values = []
    decode = judge_module.decode_value

    def spy(tokens):
        values.append(decode(tokens))
        return values[-1]

    mp.setattr(judge_module, "decode_value", spy)

    def take():
        values.clear()
        result = sandbox.run(request(SNAPSHOT, tests=(TestCase("0", "snapshot()", CheckKind.EQUALS, None),)))
        assert len(values) == 1 and type(values[0]) is dict, (result.status, result.message)
        return values[0]

    yield take
    mp.undo()


@pytest.fixture(scope="module")
def fresh(sandbox, seen):
    """`fresh()`: a fresh judge's snapshot, and the entries that differ by nature between fresh judges (a pid, a
    time); taken anew if the server was replaced."""
    taken = {}

    def take():
        if taken.get("pid") != sandbox.server_info["pid"]:
            samples = [seen() for _ in range(4)]
            first = samples[0]
            keys = set().union(*samples)
            volatile = {k for k in keys if len({s.get(k) for s in samples}) > 1}
            assert len(volatile) < len(keys) / 4, sorted(volatile)[:50]
            taken.update(pid=sandbox.server_info["pid"], first=first, volatile=volatile)
        return taken["first"], taken["volatile"]

    return take


def test_the_snapshot_sees_every_kind_of_state(fresh):
    first, volatile = fresh()
    kinds = {k.split(":")[0] for k in set(first) - volatile}
    assert kinds == {"proc", "call", "walk", "text", "live", "environ"}, kinds
    assert len(set(first) - volatile) > 3_000, len(set(first) - volatile)


@pytest.mark.parametrize("case", sorted(DIRT))
def test_the_next_task_sees_what_a_fresh_judge_sees(sandbox, seen, fresh, case):
    first, volatile = fresh()
    pid = sandbox.server_info["pid"]
    sandbox.run(request(DIRT[case]))  # its own verdict may be broken (a task breaking the judge's `json`)
    assert sandbox.server_info["pid"] == pid  # the server outlived it
    after = seen()
    now = seen()  # a fresh judge's again, for what moves with the machine (its load)
    differ = sorted(k for k in set(first) | set(after)
                    if k not in volatile and first.get(k) == now.get(k) != after.get(k))
    assert not differ, [(k, first.get(k, "-")[:100], after.get(k, "-")[:100]) for k in differ[:12]]
    assert sandbox.run(request()).passed  # and an ordinary task after it passes


def test_every_libc_function_of_the_sandbox_is_bound_at_import():
    """ctypes caches a function on its CDLL at first use: every `_libc.NAME` that `sandbox/server/contain/linux.py` calls is
    looked up when the module loads, so no path a task takes (a timeout's) adds one to what the next judge inherits
    (a task's own lookups and rebinding: the `sandbox_libc` case above)."""
    import inspect
    import re

    from coderl.sandbox.server.contain import linux
    called = set(re.findall(r"_libc\.(\w+)\(", inspect.getsource(linux)))
    assert called and called == set(linux.LIBC_FUNCTIONS)
    assert called <= set(vars(linux._libc))
