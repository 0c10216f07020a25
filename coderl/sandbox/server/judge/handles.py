"""Handles: the judge's proxies for objects that live in the program process (`tester.py` makes
them from replies).  Standard library only.  Everything but identity is a request through the one
`Judge` of this process (`JUDGE`, set when it is made).  `==` with anything but another program object
is identity (an always-equal object is named); `==`, `!=` and ordering between two program objects, and
operators on one, are not judged (`Judge.refuse`: the test fails, uncatchably; named), except on instances of
the classes the task asks for (`Judge.owns`: its entry point's class, a test file's solution classes), which use
the program's own comparisons, operators (in-place ones too), hash and `with`.
Iteration streams items in growing batches.  A class the task does not name but the tests call (MBPP's
`Pair` in a row with no reference) is a constructor only: what it builds is passed to the program and
takes attributes, and is never read (`_passive_ask`).
"""

import builtins
import collections

_type = type
JUDGE = None  # the Judge of this process, which judges one request
# The dunder attributes a test reads of a program object, as data (a function's or class's names, what a decorator
# wrapped); every other one stays this class's: probes such as `__deepcopy__` or `__array__` never reach the program.
READABLE = frozenset({"__name__", "__qualname__", "__wrapped__"})
NORMAL, BUILT, CONSTRUCTOR = 0, 1, 2  # `Handle._passive`: an object, one built by a test, its class


class Handle:
    """An object that lives in the program process.  Everything but identity is a proxied request."""

    __slots__ = ("_hid", "_tname", "_callable", "_iterator", "_custom_eq", "_buffer", "_error", "_stop", "_end",
                 "_passive", "__weakref__")

    def __instancecheck__(self, obj):  # isinstance(x, ProgramClass): the program's own answer
        return self._ask("isinstance", v=JUDGE.outgoing(obj)) is True

    def __subclasscheck__(self, cls):
        return self._ask("issubclass", v=JUDGE.outgoing(cls)) is True

    def __init__(self, hid, tname, is_callable, is_iterator, custom_eq=False):
        """The judge's stand-in for the program's object `hid` (its type's name; callable; an iterator; with an
        `__eq__` of its own).  Set through `object.__setattr__`: this class's `__setattr__` goes to the program."""
        for name, value in (("_custom_eq", custom_eq), ("_hid", hid), ("_tname", tname), ("_callable", is_callable),
                            ("_iterator", is_iterator), ("_buffer", collections.deque()), ("_error", None),
                            ("_stop", False), ("_end", None), ("_passive", NORMAL)):
            object.__setattr__(self, name, value)

    def _ask(self, op, **fields):
        if self._passive:
            return self._passive_ask(op, fields)
        return JUDGE.ask(op, o={"$h": self._hid}, **fields)

    def __call__(self, *args, **kwargs):
        """Call the object in the program's process.  A class the tests only construct (CONSTRUCTOR) must build an
        object of the program's, which is then only passed in (BUILT), never called."""
        if self._passive == BUILT:
            self._refuse("called")
        result = JUDGE.call(self, args, kwargs)
        if self._passive == CONSTRUCTOR:
            if _type(result) is not Handle:
                raise TypeError(f"{self._tname}(...) built no object of the program's (a name the task does not "
                                "give the program is only a class to construct and pass in)")
            result._make_passive(BUILT)
        return result

    # ---- a class the task does not name, which the tests only construct and pass in ------------------
    def _make_passive(self, kind, name=None):
        if self._passive == NORMAL:
            object.__setattr__(self, "_passive", kind)
            if name is not None:  # a constructor goes by the test's name for it in messages
                object.__setattr__(self, "_tname", name)

    def _passive_ask(self, op, fields):
        """An object built from such a class goes to the program as an argument and takes attributes
        (`root.left = Node(2)`, `root.left.left = Node(4)`); nothing else of it is read: its truth, its
        text, a data attribute would be the program judging its own answer."""
        if self._passive == BUILT and op == "setattr":
            return JUDGE.ask(op, o={"$h": self._hid}, **fields)
        if self._passive == BUILT and op == "getattr":
            value = JUDGE.ask(op, o={"$h": self._hid}, **fields)
            if _type(value) is Handle:
                value._make_passive(BUILT)
                return value
        self._refuse(op)

    def _refuse(self, what):
        raise JUDGE.refuse(f"an object of the program's {self._tname!r}, which the task does not name, is only "
                           f"constructed and passed to the program ({what} refused)")

    def __getattr__(self, name):
        if name.startswith("__") and name.endswith("__") and name not in READABLE:
            raise AttributeError(name)
        return self._ask("getattr", n=name)

    # the program object's docstring (a test of a decorator built with `functools.wraps`), not this class's
    __doc__ = property(lambda self: self._ask("getattr", n="__doc__"))

    def __setattr__(self, name, value):
        self._ask("setattr", n=name, v=JUDGE.outgoing(value))

    def __delattr__(self, name):
        self._ask("delattr", n=name)

    def __getitem__(self, key):
        return self._ask("getitem", k=JUDGE.outgoing(key))

    def __setitem__(self, key, value):
        self._ask("setitem", k=JUDGE.outgoing(key), v=JUDGE.outgoing(value))

    def __delitem__(self, key):
        self._ask("delitem", k=JUDGE.outgoing(key))

    def __len__(self):
        n = self._ask("len")
        if _type(n) is not int or n < 0:
            raise TypeError("len() of a program object gave no length")
        return n

    def __contains__(self, value):
        return self._ask("contains", v=JUDGE.outgoing(value)) is True

    def __bool__(self):
        return self._ask("bool") is True

    def __str__(self):
        text = self._ask("str")
        return text if _type(text) is str else f"<{self._tname}>"

    def __repr__(self):
        if self._owned():
            text = self._ask("repr")
            if _type(text) is str:
                return text
        return f"<program {self._tname} object>"

    def _owned(self):
        """An instance of the class the task asks for (`Judge.owns`), of this request, while its program runs."""
        return not JUDGE.channel.gone and JUDGE.owns(self)

    def __eq__(self, other):
        if _type(other) is Handle:
            return other is self or JUDGE.compare(self, other, "eq")
        cls = JUDGE.trusted_class(self._tname)
        if cls is not None and _type(other) is cls and getattr(cls, "__dataclass_fields__", None):
            return JUDGE.rebuild(cls, self) == other  # the task's dataclass: its own __eq__ on the fields
        self._compared()
        return self is other

    def __ne__(self, other):
        if _type(other) is Handle:
            return other is not self and JUDGE.compare(self, other, "ne")
        return not self.__eq__(other)

    def _compared(self):
        """A program object with its own `__eq__` in a comparison: equality here is identity, and an
        always-equal object is the classic forged pass, so the judge names it."""
        if self._custom_eq:
            JUDGE.note("non_builtin_return:" + self._tname[:60])

    def __hash__(self):
        """An instance of a class the task asks for: the program's own hash (a set or a dict key of equal instances
        holds one, as in Python); any other program object: its identity."""
        if self._owned():
            value = self._ask("hash")
            if _type(value) is int:
                return value
        return object.__hash__(self)

    def __enter__(self):
        """`with obj:` on an instance of a class the task asks for: the program's `__enter__` (its value)."""
        if not self._owned():
            raise TypeError(f"{self._tname!r} object does not support the context manager protocol")
        return self._ask("enter")

    def __exit__(self, etype, value, tb):
        """Its `__exit__`, told the builtin type the block raised; the test's exception always goes on: a program
        cannot swallow a failing assert (Python would let it)."""
        raised = None if etype is None else next((c.__name__ for c in etype.__mro__
                                                  if getattr(builtins, c.__name__, None) is c), "Exception")
        self._ask("exit", e=raised)
        return False

    def __iter__(self):
        if self._passive:
            self._refuse("iter")
        if self._iterator:
            return _Stream(self)
        it = self._ask("iter")
        if _type(it) is not Handle:
            raise TypeError(f"{self._tname!r} object is not iterable")
        return _Stream(it)

    def __next__(self):
        return self._pull(1)

    def _pull(self, batch):
        """The iterator's next item: fetched `batch` at a time and buffered; the program's exception, or the end of
        iteration, comes after the buffered items, in order."""
        if self._passive:
            self._refuse("next")
        if not self._buffer and self._error is None and not self._stop:
            reply = JUDGE.ask_raw("next", o={"$h": self._hid}, n=batch)
            items = reply.get("r")
            if _type(reply.get("pre")) is list:  # yielded objects changed since: so before this batch's items
                self._buffer.append(_changes(reply["pre"]))
            for v in items if _type(items) is list else ():
                pending = []  # (alias id, state) of the objects the program can still change, in or at the item
                value = JUDGE.into(v, pending)
                self._buffer.append(_Aliased(value, pending) if pending else value)
            if _type(reply.get("sync")) is list:  # their states at the end, for when the test reads the end
                self._buffer.append(_changes(reply["sync"]))
            if "x" in reply or "u" in reply:
                object.__setattr__(self, "_error", reply.get("x") if "x" in reply else {"u": reply["u"]})
            object.__setattr__(self, "_stop", reply.get("stop") is True)
            if self._stop and "value" in reply:  # a generator's return value, the StopIteration's `value`
                object.__setattr__(self, "_end", JUDGE.into(reply["value"]))
        while self._buffer:
            item = self._buffer.popleft()
            if _type(item) is not _Aliased:
                return item
            for aid, value in item.pending:
                JUDGE.alias(aid, value)
            if item.value is not _CHANGES:
                return item.value
        if self._error is not None:
            error = self._error
            object.__setattr__(self, "_error", None)
            if _type(error) is dict:  # an item that could not cross
                raise JUDGE.cannot_send(error["u"])
            raise JUDGE.exception(error, iteration=True)
        raise StopIteration(self._end) if self._end is not None else StopIteration


# Operators and numeric protocols: the program's own, on instances of the class the task asks for alone
# (`Judge.owns`); on any other program object Python's TypeError, as before: a proxied `-` would let an object
# whose `__sub__` gives 0 pass `abs(candidate(x) - expected) < 1e-9`.
BINARY = ("add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "matmul", "and", "or", "xor", "lshift", "rshift")
UNARY = ("neg", "pos", "abs", "invert", "index", "int", "float", "round", "trunc", "floor", "ceil")


def _ordering(op):
    """Ordering exists only between two instances of the task's own class (`Judge.compare`); against anything
    else it is not judged (`Judge.refuse`: the test fails, whatever it catches)."""
    def compare(self, other):
        if _type(other) is Handle:
            return JUDGE.compare(self, other, op)
        raise JUDGE.refuse(f"'{op}' between an object of the program ({self._tname}) and a value of the test's is not "
                           "judged: only the class the task asks for compares its own instances")
    return compare


def _binary(name, reflected):
    def operator(self, other):
        if not self._owned():
            raise JUDGE.refuse(f"'{name}' on a program object ({self._tname}) that is no instance of the class the "
                               "task asks for is not judged")
        return self._ask("operator", name=name, a=[JUDGE.outgoing(other)], r=reflected)
    return operator


def _unary(name):
    def operator(self, *args):
        if not self._owned():
            raise JUDGE.refuse(f"bad operand for {name}(): a program object ({self._tname}) that is no instance of "
                               "the class the task asks for (not judged)")
        return self._ask("operator", name=name, a=[JUDGE.outgoing(a) for a in args])
    return operator


for _name in BINARY:
    setattr(Handle, f"__{_name}__", _binary(_name, False))
    setattr(Handle, f"__r{_name}__", _binary(_name, True))
    setattr(Handle, f"__i{_name}__", _binary(f"i{_name}", False))  # `v += w`: the program's own __iadd__
for _name in UNARY:
    setattr(Handle, f"__{_name}__", _unary(_name))
for _name in ("lt", "le", "gt", "ge"):
    setattr(Handle, f"__{_name}__", _ordering(_name))


class _Aliased:
    """A buffered item of a program iterator holding objects the program can still change (`Program.next_items`):
    the item, holding the judge's one object for each, and the states those objects take when the test reads it
    (`Judge.alias`). `_CHANGES` for no item: what objects yielded earlier hold now, applied where the test reads
    past this point."""

    __slots__ = ("value", "pending")

    def __init__(self, value, pending):
        self.value = value
        self.pending = pending


_CHANGES = object()


def _changes(pairs):
    """The `pre` or `sync` pairs of a reply ([[alias id, tagged state]]) as a buffered entry of their own."""
    pending = []
    for pair in pairs:
        JUDGE.aliased(pair, pending)
    return _Aliased(_CHANGES, pending)


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
