"""The judge process: runs the task's own code and every test; no candidate code ever runs here.

Standard library only; part of the fork server's package and run in a process forked from the zygote,
under its own uid, next to the program process.  The judge's namespace holds the task's trusted code
(prompt helpers, the test preamble, `test_setup_code`) with this interpreter's untouched builtins.
The program is reached only through the channel (`wire.py`):

  * `candidate`, the entry point and every other name the tests use that the trusted code does not
    define (and that is not a builtin) come from the program: data by value, callables as proxies;
  * calls send their arguments as copies (mutated containers are copied back), test callables go as
    callbacks that run here, and returns come back as this process's own values, or as opaque
    `Handle`s whose attribute access, calls, `len`, indexing and iteration are proxied; `==` on a
    handle is identity;
  * exceptions from the program are raised here as the task code's exception class of the same name,
    a stand-in for a program-defined exception class the tests name (`except InvalidInput:`), or the
    builtin exception of the same name, in that order;
  * a member of an `Enum` the task's code defines comes back as that member; a dataclass instance
    compares with the task's dataclass through its fields (no program code runs here).

Records go to the result fd, which only this process holds: value-test outputs (compared by the
parent, which alone holds the expected values) and assert-test outcomes, then `end`.

Over 400 lines: `Judge` is one object, the judge's end of a request's channel, and its encoder, its strict decoder
of the program's replies and its requests share its tables (handles, callbacks, mirrors, exception stand-ins,
aliases of yielded objects); split by topic, every part would reach into the same tables.
"""

import builtins
import collections
import enum
import inspect
import itertools
import math
import sys

from ..common import values, wire
from . import handles

Handle = handles.Handle

_type = type
MAX_ITEMS = 2_000_000
_SYMBOLS = {"eq": "==", "ne": "!=", "lt": "<", "le": "<=", "gt": ">", "ge": ">="}
# Exceptions that steer iteration: raised by a program call, never with that meaning here (PEP 479).
_CONTROL = (StopIteration, StopAsyncIteration, GeneratorExit)
_CONTROL_NAMES = frozenset(c.__name__ for c in _CONTROL)
TASK_MODULE = "__coderl_test__"  # __name__ of the judge's namespace: classes the task's code defines


def _puller(it, error):
    """The callback through which the program reads a test's iterator after its first batch: the next batch ([] at
    its end); the exception the iterator raised, once the items before it are read."""
    pending = [error]

    def pull():
        if pending[0] is not None:
            exc, pending[0] = pending[0], None
            raise exc
        items, _, exc = values.iterator_batch(it)
        if exc is not None and not items:
            raise exc
        pending[0] = exc
        return items
    return pull


def _metadata(func):
    """What a program may read of a test's callable besides calling it, as a decorator does (`functools.wraps`, a
    log line naming it, `inspect.signature` to curry it): its name, qualified name, docstring, module and
    parameters ([name, kind, default]: a default of plain data as itself, else how it prints)."""
    meta = {}
    for key, attr in (("n", "__name__"), ("q", "__qualname__"), ("d", "__doc__"), ("m", "__module__")):
        value = getattr(func, attr, None)
        if _type(value) is str:
            meta[key] = value[:2000]
    try:
        parameters = inspect.signature(func).parameters.values()
    except (TypeError, ValueError):  # a builtin without a signature, a class with a C constructor
        return meta
    meta["s"] = [[p.name, int(p.kind), [] if p.default is p.empty else [p.default] if _plain_default(p.default)
                  else [None, _shown(p.default)]] for p in parameters]
    return meta


def _shown(value):
    """How a default that is not plain data prints (`inf`, `(1, 2)`), for the program's view of the signature."""
    try:
        return repr(value)[:200]
    except Exception:
        return "..."


def _plain_default(value):
    """A default the channel's JSON carries as itself: None, a bool, an int, a str, a finite float."""
    return _type(value) in (int, str, bool, _type(None)) or (_type(value) is float and math.isfinite(value))


class Unsent(BaseException):
    """A value of the program's that cannot cross the channel (nested too deeply, a cycle, too large).  Never an
    exception a test expects: the test is failed even where its code catches this (`Judge.unsent`)."""


class Judge:
    """The judge side of the channel: handles on program objects, the test code's callables."""

    def __init__(self, channel):
        """The judge side of one request's channel; it becomes this process's one Judge, through which handles send
        their requests."""
        self.channel = channel
        channel.dispatch = self.dispatch
        channel.oversized = lambda reply, why: [self.unsendable_reply(why)]  # a callback's reply over the size
        handles.JUDGE = self  # the one Judge of this process: handles send their requests through it
        self.handles = {}  # program handle id -> Handle
        self.callbacks = {}  # callback id -> judge callable
        self.callback_ids = {}  # id(callable) -> callback id
        self.mirrors = {}  # judge object id -> (object,): task-built objects the program holds copies of
        self.mirror_ids = {}
        self.defined = False
        self.task_classes = ""  # the task code's class definitions (set by the test run)
        self.ns = {}  # the test namespace (set by the test run): the task's classes by name
        self.stand_ins = {}  # program exception class (handle id) -> this process's class standing for it
        self.aliases = {}  # alias id -> the judge's one object for a program iterator's item (`Program.next_items`)
        self.described = set()  # callback ids whose name and signature the program has (`_metadata`)
        self.raised = []  # exceptions the test's callables raised into the program (`{"$te": index}`)
        self.trusted = {}  # the classes the task's trusted code defines, by name (set by the test run)
        self.entry_classes = []  # the program's classes the task asks for (Handles: its entry point, `task_classes`)
        self.instances = {}  # program handle id -> whether it is an instance of one of `entry_classes`
        self.tamper = []
        self.unsent = None  # why a value of the program's could not cross during the current test (`Unsent`)

    def note(self, what):
        if what not in self.tamper:
            self.tamper.append(what)

    def trusted_class(self, qualname):
        """The class of that name the task's trusted code (the prompt's) defined, or None: never a class the
        tests define, nor a name the program rebound."""
        return self.trusted.get(qualname) if _type(qualname) is str else None

    def owns(self, handle):
        """Whether a program object is an instance of a class the task asks for: decided by an `isinstance`
        against the classes this judge holds (the program's entry point, the request's `task_classes`), never by
        the name the program gives its type; an object built through a name the tests only call is never one (it is
        not read)."""
        if not self.entry_classes or handle._passive or any(handle is cls for cls in self.entry_classes):
            return False
        if handle._hid not in self.instances:
            self.instances[handle._hid] = any(isinstance(handle, cls) for cls in self.entry_classes)
        return self.instances[handle._hid]

    def compare(self, a, b, op):
        """`a <op> b` between two program objects (handles): the program's own answer only between two
        instances of the class the task asks for (a task that asks for `__eq__` or ordering); any other
        pair is a TypeError here, named in `tamper`: two objects of the program would otherwise judge
        each other (an always-equal object compared with another of its kind)."""
        if self.owns(a) and self.owns(b):
            return a._ask("compare", cmp=op, v={"$h": b._hid}) is True
        self.note("program_comparison:" + a._tname[:60])
        raise self.refuse(f"'{_SYMBOLS[op]}' between two objects of the program ({a._tname}, {b._tname}) is not "
                          "judged: only the class the task asks for compares its own instances")

    def rebuild(self, cls, handle):
        """This process's instance of the task's dataclass `cls` from the program object's fields."""
        return values.dataclass_instance(cls, self.ask("state", o={"$h": handle._hid}))

    def aliased(self, pair, pending=None):
        """The judge's one object for the program's object of an aliased item as sent (`[alias id, tagged value]`),
        decoded now; it takes the value where the test reads the item (`alias`, pairs added to `pending`)."""
        if pending is None:
            pending = []
        return self.into({"$al": pair}, pending)

    def _aliased(self, pair, value, pending):
        """`aliased` once its value is decoded: the object this judge holds for the alias id (made empty, of the
        value's kind, the first time or when the id names one of another kind), its new state left in `pending`."""
        if _type(pair) is not list or len(pair) != 2 or _type(pair[0]) is not int or not (
                _type(value) in ALIASED or isinstance(value, tuple)):
            raise wire.Gone("bad_message")
        held = self.aliases.get(pair[0])
        if not _same_kind(held, value):  # a tuple is the first one made (what it holds that can change is aliased)
            held = self.aliases[pair[0]] = value if isinstance(value, tuple) else _empty_like(value)
        pending.append((pair[0], value))
        return held

    def alias(self, aid, value):
        """The judge's one object for the program's object `aid`, now holding `value` (changed in place, so every
        reference the test holds sees it, as every reference to the program's one object would)."""
        held = self.aliases.get(aid)
        if not _same_kind(held, value):
            self.aliases[aid] = value
            return value
        if isinstance(held, tuple):  # the one tuple: its mutable items take their own states
            return held
        if _type(held) in (list, bytearray):
            held[:] = value
        elif _type(held) is collections.deque:
            held.clear()
            held.extend(value)
        elif _type(held) is set:
            held.clear()
            held.update(value)
        else:  # dict, Counter, OrderedDict, defaultdict: dict's own methods (Counter.update would add)
            dict.clear(held)
            dict.update(held, value)
            if _type(held) is collections.defaultdict:
                held.default_factory = value.default_factory
        return held

    def stand_in(self, obj, making=()):
        """A class standing for the program's exception class tagged `obj` (its name `t`, the builtins along its MRO
        `x`, its direct exception bases `pb`: a builtin's name or the base's own tag), so that `except Name:` in a
        test catches what the program raises as that very class (and not another class of the same name), and
        `except Base:` what it raises as a subclass of its class `Base`, as in Python. Made once per class, on the
        stand-ins of its bases; the builtin nearest along its MRO where they cannot be had (`making`: the tags
        being made, a forged cycle)."""
        hid = obj["$h"]
        if hid not in self.stand_ins:
            if hid in making or len(making) > 16:
                raise wire.Gone("bad_message")
            bases = []
            for base in obj.get("pb") if _type(obj.get("pb")) is list else ():
                cls = (wire.EXCEPTIONS.get(base) if _type(base) is str
                       else self.program_class(base, (*making, hid)) if _type(base) is dict else None)
                if isinstance(cls, type) and issubclass(cls, BaseException) and cls not in bases:
                    bases.append(cls)
            nearest = next((wire.EXCEPTIONS[b] for b in obj["x"][:16] if _type(b) is str and b in wire.EXCEPTIONS),
                           Exception)
            try:
                made = type(obj["t"], tuple(bases) or (nearest,), {"__module__": "__coderl_program__"})
            except (TypeError, ValueError):  # bases whose layouts or orders do not combine here
                made = type(obj["t"], (nearest,), {"__module__": "__coderl_program__"})
            self.stand_ins[hid] = made  # never the task's
        return self.stand_ins[hid]

    def program_class(self, obj, making):
        """The judge's class for a base class's tag inside a program exception class's: as `handle` gives it."""
        if _type(obj.get("$h")) is not int or _type(obj.get("x")) is not list or _type(obj.get("t")) is not str:
            return None
        own = wire.module_class_named(obj.get("mod"), sys.modules, (TASK_MODULE, "__main__", "__coderl_program__"))
        return self.trusted_class(obj["t"]) or own or self.stand_in(obj, making)

    # ---- values to the program ---------------------------------------------------------------
    def out(self, value):
        """A value of the test's as tagged data for the program, without recursion: data by value, program
        objects as their handles, the task's objects as mirrors, test callables as callbacks."""
        sending = set()  # task objects whose state this message carries already (cycles)

        def expand(v):
            """One node of the walk: handles by id, builtins by name, data by value, the task's objects as mirrors,
            iterators drained, callables as callbacks; nothing else crosses."""
            t = _type(v)
            if t is Handle:
                return None, {"$h": v._hid}
            name = getattr(v, "__name__", None)
            if _type(name) is str and getattr(builtins, name, None) is v:
                return None, {"$bi": name}
            node = values.encode_node(v)
            if node is not None:
                return node
            if getattr(t, "__module__", None) == TASK_MODULE and not isinstance(v, type) and hasattr(v, "__dict__"):
                return self.mirror(v, sending)
            if callable(getattr(t, "__next__", None)) and iter(v) is v:  # its first items; the program pulls the rest
                items, more, error = values.iterator_batch(v)
                if not more and error is None:
                    return items, lambda done: {"$v": ["iter", done]}
                pull = self.callback(_puller(v, error))
                return items, lambda done: {"$v": ["iter", done, {"$cb": pull}]}
            if callable(v):
                cid = self.callback(v)
                if cid in self.described:
                    return None, {"$cb": cid}
                self.described.add(cid)
                return None, {"$cb": cid, "m": _metadata(v)}
            raise TypeError(f"a {t.__name__} object cannot be passed to the program (only data, program "
                            "objects and callables cross)")
        try:
            return values.walk(value, expand, wire.MAX_DEPTH)
        except ValueError as exc:
            raise ValueError(f"argument {exc}") from None

    def callback(self, func):
        """The id the program calls the test's callable `func` by (one per callable)."""
        cid = self.callback_ids.get(id(func))
        if cid is None:
            cid = self.callback_ids[id(func)] = len(self.callbacks)
            self.callbacks[cid] = func
        return cid

    def mirror(self, value, sending):
        """`out`'s step for an instance of a class the task's code defines (a `Node` built by the test): the
        program rebuilds it from the same class definitions and its attributes (a call's changes to them
        come back in the reply's `mirrors`); it comes back as this object."""
        jid = self.mirror_ids.get(id(value))
        if jid is None:
            if not self.defined:
                self.defined = True
                self.result(self.ask_raw("define", source=self.task_classes))
            jid = self.mirror_ids[id(value)] = len(self.mirrors)
            self.mirrors[jid] = (value,)
        if jid in sending:
            return None, {"$jo": jid}
        sending.add(jid)
        state = list(itertools.chain.from_iterable(vars(value).items()))
        return state, lambda done: {"$jo": jid, "cls": _type(value).__qualname__, "state": values._pairs(done)}

    # ---- values from the program (untrusted) ---------------------------------------------------
    def into(self, obj, pending=None):
        """The program's tagged data as this process's own objects, without recursion (a message is as deep
        as `json` parsed it); anything malformed ends the channel.  With `pending` (a program iterator's items,
        `Handle._pull`): an aliased object (`{"$al": [alias id, value]}`) is the judge's one object for it, its new
        state added to `pending` as (alias id, value), to be given to it where the test reads the item."""
        def expand(o):
            """One node of the walk (at most MAX_ITEMS in a message): a handle, callback or mirror by its id (only ids
            this judge gave out), anything else plain data."""
            if _type(o) is dict:
                if "$al" in o and len(o) == 1 and pending is not None and _type(o["$al"]) is list:
                    pair = o["$al"]
                    return pair[1:2], lambda done: self._aliased(pair, done[0] if done else None, pending)
                if "$h" in o:
                    return None, self.handle(o)
                if "$cb" in o and len(o) == 1:
                    return None, self.callbacks[o["$cb"]]
                if "$jo" in o and len(o) == 1:
                    return None, self.mirrors[o["$jo"]][0]
                if "$bi" in o and len(o) == 1 and o["$bi"] in wire.BUILTINS_BY_NAME:
                    return None, getattr(builtins, o["$bi"])  # a builtin the program returned: this process's own
                if _type(o.get("$v")) is list and o["$v"][:1] == ["iter"]:
                    raise ValueError("an iterator by value")  # only the judge sends one (the program's are handles)
            return values.decode_node(o)
        try:
            return values.walk(obj, expand, max_items=MAX_ITEMS)
        except wire.Gone:
            raise
        except BaseException:  # SystemExit from a module's import too: nothing honest sends that
            raise wire.Gone("bad_message") from None

    def handle(self, obj):
        """The judge's object for a program object's tag: a task Enum's own member, a stand-in for a program
        exception class, else its `Handle`."""
        hid = obj["$h"]
        if _type(hid) is not int:
            raise ValueError
        handle = self.handles.get(hid)
        if handle is None:
            tname = obj.get("t")
            handle = self.handles[hid] = Handle(hid, tname[:100] if _type(tname) is str else "object",
                                                obj.get("c") is True, obj.get("i") is True, obj.get("e") is True)
        cls = self.trusted_class(obj.get("t"))
        if cls is not None and isinstance(cls, enum.EnumMeta) and _type(obj.get("m")) is str:
            try:  # a member of the task's Enum: this process's own member; a Flag's by its value (R|W, none)
                return cls(obj["fv"]) if issubclass(cls, enum.Flag) and _type(obj.get("fv")) is int else cls[obj["m"]]
            except (KeyError, ValueError):  # none of the task's members (a class of the program's by that name)
                return handle
        if _type(obj.get("x")) is list and _type(obj.get("t")) is str and obj.get("c") is True:
            own = wire.module_class_named(obj.get("mod"), sys.modules, (TASK_MODULE, "__main__", "__coderl_program__"))
            return own or self.stand_in(obj)
        return handle

    # ---- requests -----------------------------------------------------------------------------
    def exception(self, payload, iteration=False):
        """This process's exception for one the program raised (`payload`: `wire.exception_reply`'s), in
        this order: the task code's own class of that name; a stand-in for a class of the program's own
        (whose base is the nearest class along its MRO that *is* a builtin: a program class that only
        bears a builtin's name is never rebuilt as that builtin); the builtin the program says it raised.
        A StopIteration, StopAsyncIteration or GeneratorExit from anything but a `next` on a program
        iterator (`iteration`) is a RuntimeError here, as PEP 479 makes it in a generator: no exception
        from the program steers the judge's loops."""
        exc, names = wire.rebuild_exception(payload, self.into)
        own = payload[3] if _type(payload) is list and len(payload) in (4, 5) else None
        attrs = payload[4] if _type(payload) is list and len(payload) == 5 else None
        if _type(own) is dict and len(own) == 1 and _type(own.get("$te")) is int:  # a test's own, raised through
            if 0 <= own["$te"] < len(self.raised):
                return self.raised[own["$te"]]
            raise wire.Gone("bad_message")
        cls = self.trusted_class(names[0]) if names else None
        if cls is None and own is not None:  # the program's own class: a stand-in, never a builtin by name
            cls = self.into(own)
            if not (isinstance(cls, type) and issubclass(cls, BaseException)):
                cls, exc = None, RuntimeError(f"{names[0] if names else 'Exception'} (an exception of the program's)")
        if cls is not None and issubclass(cls, Exception):
            try:  # the class's own type, its args as sent; its __init__ never sees them (it may format)
                rebuilt = cls.__new__(cls)
                rebuilt.args = exc.args
                if attrs is not None and cls.__module__ not in ("builtins", TASK_MODULE, "__coderl_program__"):
                    state = self.into(attrs)  # a module's class (`wire.module_class`): its attributes, as sent
                    if _type(state) is dict:
                        rebuilt.__dict__.update({k: v for k, v in state.items() if _type(k) is str})
                exc = rebuilt
            except wire.Gone:
                raise
            except Exception:
                exc = RuntimeError(f"{names[0]}: {exc}")
        if any(n in ("SystemExit", "KeyboardInterrupt") for n in names):
            self.note("exit_called")  # seen crossing the channel (the program's own report is never taken)
        control = isinstance(exc, _CONTROL) or (cls is not None and issubclass(cls, _CONTROL)) or (
            own is None and cls is None and bool(names) and names[0] in _CONTROL_NAMES)
        if control and not iteration:
            return RuntimeError(f"the program raised {names[0] if names else 'StopIteration'} (not an end of "
                                "iteration here, as in a generator under PEP 479)")
        return exc

    def result(self, reply, args=(), kwargs=None):
        """The program's reply to a call, as the call's value: first the new state of the mirrors and copied-back
        arguments the call changed, then the program's exception raised, or the value returned (the caller's own
        argument when the call returned it)."""
        changed = reply.get("mirrors")  # task objects the call changed in the program: their new state
        for jid, state in changed.items() if _type(changed) is dict else ():
            obj = self.mirrors.get(int(jid) if jid.isdigit() else None)
            new = self.into(state)
            if obj is None or _type(new) is not dict:
                raise wire.Gone("bad_message")
            values.update_in_place(vars(obj[0]), new)
        back = reply.get("back")
        if _type(back) is dict:
            for key, new in back.items():
                old = kwargs.get(key[2:]) if key.startswith("k:") and kwargs else None
                if not key.startswith("k:") and key.isdigit() and int(key) < len(args):
                    old = args[int(key)]
                if isinstance(old, values.COPIED_BACK):
                    values.update_in_place(old, self.into(new))
        if "u" in reply:
            raise self.cannot_send(reply["u"])
        if "x" in reply:
            exc = self.exception(reply["x"])
            notes = reply.get("n")
            if _type(notes) is list and all(_type(n) is str for n in notes) and _type(exc) is not RuntimeError:
                exc.__notes__ = list(notes)  # the program's `add_note`s (pytest's `raises(match=)` reads them)
            raise exc
        if "r" not in reply:
            raise wire.Gone("bad_message")
        r = reply["r"]
        if _type(r) is dict and len(r) == 1 and _type(r.get("$arg")) is int and 0 <= r["$arg"] < len(args):
            return args[r["$arg"]]  # the call returned one of its (mutable) arguments: the caller's own
        return self.into(r)

    def refuse(self, message):
        """What the judge does not judge (a comparison between program objects, an operator on one that is no
        instance of the task's class): the test fails whatever its code catches (a TypeError here would pass
        `try: a < b except TypeError` for a program whose objects do compare)."""
        self.unsent = self.unsent or message
        return Unsent(self.unsent)

    def cannot_send(self, why, what="the program's value cannot be sent to the tests"):
        """A value could not cross (the program's: `Program.sendable`; the test's: `outgoing`): the test that asked
        fails whatever its code does with this exception (`checks.TestRun.run_one` reads `unsent`)."""
        return self.refuse(f"{what} ({str(why)[:200]})")

    def outgoing(self, value):
        """`out` for a value a request sends: one that cannot cross (a cycle, nested too deeply, an object that is no
        data, an endless iterator) fails the test, which cannot catch that (a ValueError or TypeError here, before
        the program runs, would pass a test that expects the program to raise one)."""
        try:
            return self.out(value)
        except (TypeError, ValueError) as exc:
            raise self.cannot_send(exc, "the test's value cannot be sent to the program") from None

    def request(self, message):
        """A request to the program; one over the channel's size (nothing of it sent) fails the test as `outgoing`."""
        try:
            return self.channel.request(message)
        except ValueError as exc:
            raise self.cannot_send(exc, "the test's value cannot be sent to the program") from None

    def ask_raw(self, op, **fields):
        return self.request({"op": op, **fields})

    def ask(self, op, **fields):
        return self.result(self.ask_raw(op, **fields))

    def call(self, target, args, kwargs):
        message = {"op": "call", "f": self.outgoing(target), "a": [self.outgoing(a) for a in args],
                   "k": {k: self.outgoing(v) for k, v in kwargs.items()}}
        return self.result(self.request(message), args, kwargs)

    def dispatch(self, msg):
        """A callback from inside a program call: run the test code's callable here."""
        if msg.get("op") != "callback" or msg.get("cb") not in self.callbacks:
            raise wire.Gone("unexpected_request")
        func = self.callbacks[msg["cb"]]
        args = [self.into(a) for a in values._list(msg.get("a", []))]
        kwargs = msg.get("k", {})
        if _type(kwargs) is not dict or not all(_type(k) is str for k in kwargs):
            raise wire.Gone("bad_message")
        try:
            value = func(*args, **{k: self.into(v) for k, v in kwargs.items()})
        except wire.Gone:
            raise
        except Unsent as exc:  # the callable called the program back, whose value could not cross: unwind it too
            return self.unsendable_reply(exc)
        except Exception as exc:  # goes through the program as the nearest builtin; comes back as itself
            self.raised.append(exc)
            return wire.exception_reply(exc, self._data_or_none, own={"$te": len(self.raised) - 1})
        try:
            return {"r": self.out(value)}
        except (TypeError, ValueError) as exc:  # the callable's value cannot cross: the test fails (`unsent`)
            return self.unsendable_reply(exc)

    def unsendable_reply(self, why):
        """The reply to a callback whose value cannot cross (see `outgoing`; the judge channel's `oversized` too):
        the test fails whatever happens next, and the program's call of the callable raises, so that it unwinds."""
        self.cannot_send(why, "the test's value cannot be sent to the program")
        return {"x": [["RuntimeError", "Exception", "BaseException", "object"], self.unsent, None]}

    def _data_or_none(self, value):
        """A test exception's argument for the program: its data, or None where it cannot cross."""
        try:
            return self.out(value)
        except (TypeError, ValueError):
            return None


ALIASED = (list, dict, set, bytearray, collections.deque, collections.Counter, collections.OrderedDict,
           collections.defaultdict)  # what an aliased item may decode to (`Judge.aliased`)


def _same_kind(held, value):
    """Whether `held` can take `value`'s state in place: one type, and for a deque one maxlen."""
    if _type(held) is not _type(value):
        return False
    return _type(held) is not collections.deque or held.maxlen == value.maxlen


def _empty_like(value):
    """An empty object of `value`'s kind (a deque of its maxlen, a defaultdict of its factory)."""
    if _type(value) is collections.deque:
        return collections.deque(maxlen=value.maxlen)
    if _type(value) is collections.defaultdict:
        return collections.defaultdict(value.default_factory)
    return _type(value)()
