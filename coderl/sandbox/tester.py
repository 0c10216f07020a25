"""The judge process: runs the task's own code and every test; no candidate code ever runs here.

Standard library only; loaded by path by the fork server and run in a process forked from the zygote,
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
"""

import builtins
import collections
import enum

try:
    from . import values, wire
except ImportError:  # loaded by path in the fork server
    import _coderl_values as values
    import _coderl_wire as wire
_list, _pair = values._list, values._pair

_type = type
_MUTABLE = (list, dict, set, bytearray, tuple)  # tuples: their inner containers are copied back
MAX_ITEMS = 2_000_000
TASK_MODULE = "__coderl_test__"  # __name__ of the judge's namespace: classes the task's code defines


class Handle:
    """An object that lives in the program process.  Everything but identity is a proxied request."""

    __slots__ = ("_hid", "_tname", "_callable", "_iterator", "_custom_eq", "_buffer", "_error", "_stop",
                 "__weakref__")

    def __instancecheck__(self, obj):  # isinstance(x, ProgramClass): the program's own answer
        return self._ask("isinstance", v=JUDGE.out(obj)) is True

    def __subclasscheck__(self, cls):
        return self._ask("issubclass", v=JUDGE.out(cls)) is True

    def __init__(self, hid, tname, is_callable, is_iterator, custom_eq=False):
        object.__setattr__(self, "_custom_eq", custom_eq)
        object.__setattr__(self, "_hid", hid)
        object.__setattr__(self, "_tname", tname)
        object.__setattr__(self, "_callable", is_callable)
        object.__setattr__(self, "_iterator", is_iterator)
        object.__setattr__(self, "_buffer", collections.deque())
        object.__setattr__(self, "_error", None)
        object.__setattr__(self, "_stop", False)

    def _ask(self, op, **fields):
        return JUDGE.ask(op, o={"$h": self._hid}, **fields)

    def __call__(self, *args, **kwargs):
        return JUDGE.call(self, args, kwargs)

    def __getattr__(self, name):
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        return self._ask("getattr", n=name)

    def __setattr__(self, name, value):
        self._ask("setattr", n=name, v=JUDGE.out(value))

    def __delattr__(self, name):
        self._ask("delattr", n=name)

    def __getitem__(self, key):
        return self._ask("getitem", k=JUDGE.out(key))

    def __setitem__(self, key, value):
        self._ask("setitem", k=JUDGE.out(key), v=JUDGE.out(value))

    def __delitem__(self, key):
        self._ask("delitem", k=JUDGE.out(key))

    def __len__(self):
        n = self._ask("len")
        if _type(n) is not int or n < 0:
            raise TypeError("len() of a program object gave no length")
        return n

    def __contains__(self, value):
        return self._ask("contains", v=JUDGE.out(value)) is True

    def __bool__(self):
        return self._ask("bool") is True

    def __str__(self):
        text = self._ask("str")
        return text if _type(text) is str else f"<{self._tname}>"

    def __repr__(self):
        return f"<program {self._tname} object>"

    def __eq__(self, other):
        if _type(other) is Handle and other is not self:
            return self._ask("eq", v={"$h": other._hid}) is True  # both the program's: its own __eq__
        cls = JUDGE.trusted_class(self._tname)
        if cls is not None and _type(other) is cls and getattr(cls, "__dataclass_fields__", None):
            return JUDGE.rebuild(cls, self) == other  # the task's dataclass: its own __eq__ on the fields
        self._compared()
        return self is other

    def __ne__(self, other):
        return not self.__eq__(other)

    def _compared(self):
        """A program object with its own `__eq__` in a comparison: equality here is identity, and an
        always-equal object is the classic forged pass, so the judge names it."""
        if self._custom_eq:
            JUDGE.note("non_builtin_return:" + self._tname[:60])

    __hash__ = object.__hash__

    def __iter__(self):
        if self._iterator:
            return _Stream(self)
        it = self._ask("iter")
        if _type(it) is not Handle:
            raise TypeError(f"{self._tname!r} object is not iterable")
        return _Stream(it)

    def __next__(self):
        return self._pull(1)

    def _pull(self, batch):
        if not self._buffer and self._error is None and not self._stop:
            reply = JUDGE.ask_raw("next", o={"$h": self._hid}, n=batch)
            items = reply.get("r")
            for v in items if _type(items) is list else ():
                self._buffer.append(JUDGE.into(v))
            if "x" in reply:
                object.__setattr__(self, "_error", reply["x"])
            object.__setattr__(self, "_stop", reply.get("stop") is True)
        if self._buffer:
            return self._buffer.popleft()
        if self._error is not None:
            error = self._error
            object.__setattr__(self, "_error", None)
            raise JUDGE.exception(error)
        raise StopIteration


class _Stream:
    """Iteration over a program iterator (for-loops, list(...)): items come in growing batches."""

    __slots__ = ("handle", "batch")

    def __init__(self, handle):
        self.handle = handle
        self.batch = 1

    def __iter__(self):
        return self

    def __next__(self):
        item = self.handle._pull(self.batch)
        self.batch = min(self.batch * 2, 1024)
        return item


class Judge:
    """The judge side of the channel: handles on program objects, the test code's callables."""

    def __init__(self, channel):
        self.channel = channel
        channel.dispatch = self.dispatch
        self.handles = {}  # program handle id -> Handle
        self.callbacks = {}  # callback id -> judge callable
        self.callback_ids = {}  # id(callable) -> callback id
        self.mirrors = {}  # judge object id -> (object,): task-built objects the program holds copies of
        self.mirror_ids = {}
        self.defined = False
        self.task_classes = ""  # the task code's class definitions (set by the test run)
        self.ns = {}  # the test namespace (set by the test run): the task's classes by name
        self.stand_ins = {}  # exception class name -> this process's class for a program-defined one
        self.tamper = []

    def note(self, what):
        if what not in self.tamper:
            self.tamper.append(what)

    def trusted_class(self, qualname):
        """The class of that name the task's own code defined, or None."""
        cls = self.ns.get(qualname) if _type(qualname) is str else None
        return cls if isinstance(cls, type) and cls.__module__ == TASK_MODULE else None

    def rebuild(self, cls, handle):
        """This process's instance of the task's dataclass `cls` from the program object's fields."""
        return values.dataclass_instance(cls, self.ask("state", o={"$h": handle._hid}))

    def stand_in(self, name, bases):
        """A class standing for the program's exception class `name` (MRO names `bases`), so that
        `except Name:` in a test catches what the program raises as `Name`."""
        if name not in self.stand_ins:
            base = next((wire.EXCEPTIONS[b] for b in bases if b in wire.EXCEPTIONS), Exception)
            self.stand_ins[name] = type(name, (base,), {"__module__": TASK_MODULE})
        return self.stand_ins[name]

    # ---- values to the program ---------------------------------------------------------------
    def out(self, value, depth=0):
        if depth == 0:
            self.sending = set()  # task objects whose state this message carries already (cycles)
        t = _type(value)
        if depth > wire.MAX_DEPTH:
            raise ValueError("argument nested too deeply")
        if value is None or t is bool or t is str:
            return value
        if t is int:
            return wire.int_tag(value)
        if t is float:
            return wire.float_tag(value)
        if t is list:
            return [self.out(v, depth + 1) for v in value]
        if t is tuple:
            return {"$t": [self.out(v, depth + 1) for v in value]}
        if t is dict:
            return {"$d": [[self.out(k, depth + 1), self.out(v, depth + 1)] for k, v in value.items()]}
        if t is set or t is frozenset:
            return {"$s" if t is set else "$fs": [self.out(v, depth + 1) for v in value]}
        if t is bytes:
            return {"$b": value.hex()}
        if t is bytearray:
            return {"$ba": value.hex()}
        if t is complex:
            return {"$c": [value.real.hex(), value.imag.hex()]}
        if t is Handle:
            return {"$h": value._hid}
        name = getattr(value, "__name__", None)
        if _type(name) is str and getattr(builtins, name, None) is value:
            return {"$bi": name}
        tagged = values.tag_value_type(value, lambda v: self.out(v, depth + 1))
        if tagged is not None:
            return tagged
        if getattr(t, "__module__", None) == TASK_MODULE and not isinstance(value, type) and hasattr(value, "__dict__"):
            return self.mirror(value, depth)
        if callable(getattr(t, "__next__", None)) and iter(value) is value:
            return values.iterator_tag(value, lambda v: self.out(v, depth + 1))
        if callable(value):
            cid = self.callback_ids.get(id(value))
            if cid is None:
                cid = self.callback_ids[id(value)] = len(self.callbacks)
                self.callbacks[cid] = value
            return {"$cb": cid}
        raise TypeError(f"a {t.__name__} object cannot be passed to the program (only data, program "
                        "objects and callables cross)")

    def mirror(self, value, depth):
        """An instance of a class the task's code defines (a `Node` built by the test): the program
        rebuilds it from the same class definitions and its attributes (a call's changes to them come
        back in the reply's `mirrors`); it comes back as this object."""
        jid = self.mirror_ids.get(id(value))
        if jid is None:
            if not self.defined:
                self.defined = True
                self.result(self.ask_raw("define", source=self.task_classes))
            jid = self.mirror_ids[id(value)] = len(self.mirrors)
            self.mirrors[jid] = (value,)
        if jid in self.sending:
            return {"$jo": jid}
        self.sending.add(jid)
        state = {"$d": [[self.out(k, depth + 1), self.out(v, depth + 1)] for k, v in vars(value).items()]}
        return {"$jo": jid, "cls": _type(value).__qualname__, "state": state}

    # ---- values from the program (untrusted) ---------------------------------------------------
    def into(self, obj, budget=None, depth=0):
        budget = budget or wire.Budget(MAX_ITEMS)
        budget.take()
        if depth > wire.MAX_DEPTH:
            raise wire.Gone("bad_message")
        t = _type(obj)
        if obj is None or t is bool or t is str or t is int:
            return obj
        if t is list:
            return [self.into(v, budget, depth + 1) for v in obj]
        if t is not dict or not obj:
            raise wire.Gone("bad_message")
        try:
            return self._tagged(obj, budget, depth)
        except wire.Gone:
            raise
        except BaseException:  # SystemExit from a module's import too: nothing honest sends that
            raise wire.Gone("bad_message") from None

    def _tagged(self, obj, budget, depth):
        sub = lambda v: self.into(v, budget, depth + 1)  # noqa: E731
        if "$h" in obj:
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
                return cls[obj["m"]]  # a member of the task's Enum: this process's own member
            if _type(obj.get("x")) is list and _type(obj.get("t")) is str and obj.get("c") is True:
                return self.stand_in(obj["t"], [b for b in obj["x"][:16] if _type(b) is str])
            return handle
        ((tag, body),) = obj.items()
        if tag == "$f":
            return float.fromhex(body)
        if tag == "$i":
            return int(body, 16)
        if tag == "$t":
            return tuple(sub(v) for v in _list(body))
        if tag == "$d":
            return {sub(k): sub(v) for k, v in map(_pair, _list(body))}
        if tag == "$s":
            return {sub(v) for v in _list(body)}
        if tag == "$fs":
            return frozenset(sub(v) for v in _list(body))
        if tag == "$b":
            return bytes.fromhex(body)
        if tag == "$ba":
            return bytearray.fromhex(body)
        if tag == "$c":
            return complex(float.fromhex(body[0]), float.fromhex(body[1]))
        if tag == "$cb":
            return self.callbacks[body]
        if tag == "$v":
            return values.rebuild_value_type(body, sub)
        if tag == "$jo":
            return self.mirrors[body][0]
        raise ValueError(tag)

    # ---- requests -----------------------------------------------------------------------------
    def exception(self, payload):
        exc, names = wire.rebuild_exception(payload, self.into)
        cls = (self.stand_ins.get(names[0]) or self.trusted_class(names[0])) if names else None
        if cls is not None and issubclass(cls, Exception):
            try:
                exc = cls(*exc.args)
            except Exception:
                pass
        if names and names[0] in ("SystemExit", "KeyboardInterrupt"):
            self.note("exit_called")
        return exc

    def result(self, reply, args=(), kwargs=None):
        changed = reply.get("mirrors")  # task objects the call changed in the program: their new state
        for jid, state in changed.items() if _type(changed) is dict else ():
            obj = self.mirrors.get(int(jid) if jid.isdigit() else None)
            new = self.into(state)
            if obj is None or _type(new) is not dict:
                raise wire.Gone("bad_message")
            vars(obj[0]).clear()
            vars(obj[0]).update(new)
        back = reply.get("back")
        if _type(back) is dict:
            for key, new in back.items():
                old = kwargs.get(key[2:]) if key.startswith("k:") and kwargs else None
                if not key.startswith("k:") and key.isdigit() and int(key) < len(args):
                    old = args[int(key)]
                if _type(old) in _MUTABLE:
                    values.update_in_place(old, self.into(new))
        if "x" in reply:
            raise self.exception(reply["x"])
        if "r" not in reply:
            raise wire.Gone("bad_message")
        r = reply["r"]
        if _type(r) is dict and len(r) == 1 and _type(r.get("$arg")) is int and 0 <= r["$arg"] < len(args):
            return args[r["$arg"]]  # the call returned one of its (mutable) arguments: the caller's own
        return self.into(r)

    def ask_raw(self, op, **fields):
        return self.channel.request({"op": op, **fields})

    def ask(self, op, **fields):
        return self.result(self.ask_raw(op, **fields))

    def call(self, target, args, kwargs):
        message = self.call_message(target, args, kwargs)
        return self.result(self.channel.request(message), args, kwargs)

    def call_message(self, target, args, kwargs):
        return {"op": "call", "f": self.out(target), "a": [self.out(a) for a in args],
                "k": {k: self.out(v) for k, v in kwargs.items()}}

    def dispatch(self, msg):
        """A callback from inside a program call: run the test code's callable here."""
        if msg.get("op") != "callback" or msg.get("cb") not in self.callbacks:
            raise wire.Gone("unexpected_request")
        func = self.callbacks[msg["cb"]]
        args = [self.into(a) for a in _list(msg.get("a", []))]
        kwargs = msg.get("k", {})
        if _type(kwargs) is not dict or not all(_type(k) is str for k in kwargs):
            raise wire.Gone("bad_message")
        try:
            return {"r": self.out(func(*args, **{k: self.into(v) for k, v in kwargs.items()}))}
        except wire.Gone:
            raise
        except Exception as exc:
            return wire.exception_reply(exc)


JUDGE = None  # the one Judge of this process
