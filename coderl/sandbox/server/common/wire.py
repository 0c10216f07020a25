"""The channel between a trusted judge process and an untrusted program process.  Standard library only.

Both processes are forked from the zygote (`zygote.py`); they share one socketpair and nothing else.
Messages are length-prefixed JSON (4-byte big-endian length), capped in size and parsed depth-safe:
whatever the program sends is data, and the judge rebuilds it only as its own types.

Values cross the boundary in a tagged form:

    None, bool, str, small int      as JSON
    {"$f": hex}                     float (exact, NaN and infinities too)
    {"$i": hex}                     int past 2**53
    [..] / {"$t": [..]}             list / tuple
    {"$d": [[k, v], ..]}            dict
    {"$s": [..]} / {"$fs": [..]}    set / frozenset
    {"$b": hex} / {"$ba": hex}      bytes / bytearray
    {"$c": [re, im]}                complex
    {"$v": [kind, ..]}              value types rebuilt as the receiver's own: Counter, OrderedDict,
                                    defaultdict, namedtuple, Decimal, Fraction, date, time, datetime,
                                    timedelta, numpy arrays (numpy scalars travel as int/float/bool)
    {"$h": id, "t": name, ..}       an opaque handle on an object the program holds
    {"$cb": id}                     a callable the judge holds (a lambda or key from test code)
    {"$bi": name}                   a builtin function or type, by name
    {"$jo": id, ..}                 an object of a task class the judge holds (`values.Mirrors`)

Both sides encode and decode with one loop over an explicit stack (`values.walk`), never by recursion.

Requests carry "op"; replies carry "r" (a value) or "x" ([exception type names along the MRO, message,
args(, the program's class or a test exception's token)]), and "back" (arguments the call mutated, to be
copied back into the caller's containers).
"""

import builtins
import json
import os
import select
import struct
from _thread import RLock as _RLock
from time import monotonic as _monotonic

from . import values

_type = type
_len = len
_getattr = getattr  # bound before any program runs (the program side calls `module_class`)
_isinstance = isinstance
MAX_DEPTH = values.MAX_DEPTH  # nesting of one value
HEADER = struct.Struct(">I")


class Gone(BaseException):
    """The peer closed the channel, or sent something no honest peer sends.  A BaseException so that
    test code's `except Exception` cannot swallow it."""

    def __init__(self, reason):
        super().__init__(reason)
        self.reason = reason


class Channel:
    """A blocking, re-entrant request/reply channel over one socket fd.

    `request` sends and waits for the reply; requests that arrive meanwhile (a callback from inside
    a call, a call from inside a callback) are answered with `dispatch` first.  One request at a time: a
    thread's request waits for another thread's reply to come first (re-entrant for the thread that holds it), so
    callbacks a program calls from several threads each get their own reply (without it they read each other's).
    """

    def __init__(self, fd, max_bytes, dispatch=None, oversized=None):
        """`oversized(reply, why)`: the replies to try in turn instead of one over `max_bytes` (the program's: its value
        cannot cross); without it such a reply is a ValueError here."""
        self.fd = fd
        self.max_bytes = max_bytes
        self.dispatch = dispatch
        self.oversized = oversized
        self.gone = None  # reason, once the peer is gone
        self._one = _RLock()

    def send(self, obj):
        """Write one length-prefixed message, whole.  A message over the channel's size is refused here; a write to a
        gone peer ends the channel."""
        if self.gone:
            raise Gone(self.gone)
        data = values.text(obj).encode()
        if _len(data) > self.max_bytes:
            raise ValueError(f"message of {_len(data)} bytes is over the channel's {self.max_bytes}")
        view = memoryview(HEADER.pack(_len(data)) + data)
        try:
            while view:
                view = view[os.write(self.fd, view):]
        except OSError as exc:
            self._lose("peer_closed" if _isinstance(exc, BrokenPipeError) else "write_failed")

    def _read_exactly(self, n):
        """Exactly `n` bytes; the peer's end (or a failed read) ends the channel."""
        buf = bytearray()
        while _len(buf) < n:
            try:
                chunk = os.read(self.fd, min(n - _len(buf), 1 << 20))
            except OSError:
                chunk = b""
            if not chunk:
                self._lose("peer_closed")
            buf += chunk
        return buf

    def recv(self):
        """One message: its length, checked against the channel's limit before the body is read, then a JSON object;
        anything else ends the channel as a bad message."""
        (n,) = HEADER.unpack(self._read_exactly(HEADER.size))
        if n > self.max_bytes:
            self._lose("oversized_message")
        body = self._read_exactly(n)
        try:
            msg = values.deep(json.loads, body)
        except (ValueError, RecursionError, MemoryError):
            self._lose("bad_message")
        if _type(msg) is not dict:
            self._lose("bad_message")
        return msg

    def request(self, obj):
        with self._one:
            self.send(obj)
            return self.wait()

    def wait(self):
        """The next reply; requests that come first are answered with `dispatch`."""
        while True:
            msg = self.recv()
            if "op" not in msg:
                return msg
            if self.dispatch is None:
                self._lose("unexpected_request")
            self.answer(self.dispatch(msg))

    def answer(self, reply):
        """Send a reply to the peer's request; one over the channel's size becomes the first of `oversized(reply, why)`
        that fits, where given; if none does, `{"u": why}` alone."""
        try:
            self.send(reply)
        except ValueError as exc:
            if self.oversized is None:
                raise
            for candidate in self.oversized(reply, str(exc)):
                try:
                    return self.send(candidate)
                except ValueError:
                    continue
            self.send({"u": str(exc)})

    def wait_closed(self, timeout):
        """Wait (at most `timeout` s) for the peer to close its end: the program exits on its own
        before the judge does, so its exit status never depends on a race with the judge's exit."""
        deadline = _monotonic() + timeout
        while True:
            left = deadline - _monotonic()
            if left <= 0 or not select.select([self.fd], [], [], left)[0]:
                return False
            try:
                if not os.read(self.fd, 65536):
                    return True
            except OSError:
                return True

    def _lose(self, reason):
        self.gone = self.gone or reason
        raise Gone(self.gone)


def exception_reply(exc, encode, own=None):
    """{"x": [type names along the MRO, message, args(, own)]} for an exception raised on this side;
    `args` encoded with `encode` (this side's value encoder), else None.  `own`: a class of the program's own
    (not a builtin) goes too, so the judge can tell two classes of the same name apart; a test's exception
    raised through the program goes as the judge's token for it (`{"$te": n}`), so it comes back as itself."""
    try:
        names = [c.__name__ for c in _type(exc).__mro__ if _type(c.__name__) is str][:16]
    except BaseException:  # a hostile __mro__ on the program side
        names = ["Exception"]
    try:
        text = str(exc)[:1000]
    except BaseException:  # a hostile __str__, or args too deep to print at this side's recursion limit
        text = ""
    try:
        raw = exc.args
        if _isinstance(exc, OSError) and (exc.filename is not None or exc.filename2 is not None):
            raw = (exc.errno, exc.strerror, exc.filename, None, exc.filename2)  # its constructor's: `e.filename`
        args = [encode(a) for a in raw] if _type(raw) is tuple and _len(raw) <= 8 else None
    except BaseException:
        args = None
    reply = {"x": [names, text, args]}
    try:  # its notes (`add_note`), which pytest's `raises(match=)` reads too: strings only, as sent
        notes = exc.__dict__.get("__notes__")
        if _type(notes) is list and notes and all(_type(n) is str for n in notes):
            reply["n"] = [n[:1000] for n in notes[:16]]
    except BaseException:
        pass
    try:
        token = getattr(exc, TEST_EXCEPTION, None)
        if own is None and _type(token) is int:
            own = {"$te": token}
        elif own is None and _EXCEPTIONS.get(_type(exc).__name__) is not _type(exc):
            own = encode(_type(exc))
    except BaseException:
        pass
    if own is not None:
        reply["x"].append(own)
        try:  # a module's exception class (`json.JSONDecodeError`): its attributes (`pos`), as data
            state = exc.__dict__
            if _type(own) is dict and "mod" in own and _type(state) is dict and state:
                reply["x"].append(encode({k: v for k, v in state.items() if _type(k) is str}))
        except BaseException:
            pass
    return reply


TEST_EXCEPTION = "_coderl_test_exception"  # the program side's mark on an exception a test's callable raised


EXCEPTIONS = _EXCEPTIONS = {
    name: obj for name, obj in vars(builtins).items()
    if _isinstance(obj, _type) and issubclass(obj, BaseException)
}
# An exit from the other side must not end this process: it becomes an ordinary error here.
_NOT_RAISED = {"SystemExit", "KeyboardInterrupt", "GeneratorExit"}


# Builtins that cross by name from the program (`{"$bi": name}`), as the judge's own: the classes (`type(x)` returned
# and compared with `is int`) and the functions that compute from their arguments alone (`max if big else min`);
# none that reads or runs code, files, the namespace or the interpreter's state.
BUILTINS_BY_NAME = frozenset(
    [n for n, v in vars(builtins).items() if isinstance(v, type) and not n.startswith("_")]
    + "abs all any ascii bin callable chr divmod format hash hex isinstance issubclass iter len max min next oct ord "
      "pow repr round sorted sum".split())


def rebuild_exception(payload, decode):
    """The builtin exception (this side's own class) nearest to the peer's exception type, its args
    decoded with `decode` (this side's value decoder).

    Returns (exception, names); `names[0]` is the peer's own type name."""
    well_formed = _type(payload) is list and _len(payload) in (3, 4, 5)
    names, text, args = payload[:3] if well_formed else (["Exception"], "", None)
    names = [n for n in names if _type(n) is str][:16] if _type(names) is list else ["Exception"]
    text = text if _type(text) is str else ""
    plain = _type(args) is list
    if plain:
        args = [decode(a) for a in args]
    for name in names:
        cls = _EXCEPTIONS.get(name)
        if cls is not None and name not in _NOT_RAISED:
            try:
                if cls is StopIteration:
                    return StopIteration(), names
                if plain:
                    return cls(*args), names
                return cls(text) if text else cls(), names
            except BaseException:
                break
    first = names[0] if names else "Exception"
    return RuntimeError(f"{first}: {text}" if text else first), names


# ---- what both sides read: replies over the size, exception classes of modules --------------------------------
def smaller_replies(reply, why):
    """Replies to try in turn for one over the channel's size, without what made it so: an exception without its
    args (as one whose args cannot be encoded), or the value replaced by `{"u": why}`; first with the arguments and
    task objects the call changed (`back`, `mirrors`), then with the task objects alone (they persist across tests)."""
    small = {"x": [*reply["x"][:2], None, *reply["x"][3:4]]} if "x" in reply else {"u": why}
    return [{**small, **{k: reply[k] for k in keys if k in reply}} for keys in (("back", "mirrors"), ("mirrors",))]


def module_class(cls, modules):
    """The program side: [module, qualname] of an exception class that an imported module (in `modules`, the
    program's `sys.modules`) holds under that name (its own class, not one the program made and named after it; a
    C accelerator's, `_csv.Error`, by the public module that re-exports it, `csv`), else None."""
    try:
        module, qualname = cls.__module__, cls.__qualname__
        if _type(module) is not str or _type(qualname) is not str:
            return None
        for name in (module, module[1:]) if module[:1] == "_" and module[1:2] != "_" else (module,):
            obj = modules.get(name)
            if not values.importable(name) or not values.imported_module(obj):
                continue
            for part in qualname.split("."):
                obj = _getattr(obj, part, None)
            if obj is cls:
                return [name, qualname]
        return None
    except BaseException:
        return None


def module_class_named(where, modules, refused):
    """The judge side: its own exception class for a program's exception class that a module defines (`[module,
    qualname]` from `module_class`): only of a module loaded in the judge already (in `modules`, its `sys.modules`:
    the test's import, or one the judge uses itself, as `json`), never one it imports for the program, nor one of
    the modules `refused` (the tests' and the task's own)."""
    if _type(where) is not list or len(where) != 2 or not all(_type(w) is str for w in where):
        return None
    module, qualname = where
    if module in refused or not values.importable(module):
        return None
    obj = modules.get(module)
    for part in qualname.split(".") if obj is not None else ():
        obj = getattr(obj, part, None) if part.isidentifier() and not part.startswith("__") else None
    return obj if isinstance(obj, type) and issubclass(obj, Exception) else None
