"""Handles: the judge's proxies for objects that live in the program process (`tester.py` makes
them from replies).  Standard library only.  Everything but identity is a request through the one
`Judge` of this process (`JUDGE`, set when it is made); `==` with anything but another program object
is identity (an always-equal object is named), and iteration streams items in growing batches.
"""

import collections

_type = type
JUDGE = None  # the one Judge of this process


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
