"""Value types on the wire (`{"$v": [kind, ...]}`), shared by the judge and the program side.

Standard library only.  `tag_value_type` describes a value through the base types' own methods (so a
subclass's overridden `items` or `__eq__` is never what is sent); `rebuild_value_type` builds the
receiver's own object from that description, strictly, raising ValueError/TypeError on anything
malformed.  Kinds: Counter, OrderedDict, defaultdict, namedtuple, Decimal, Fraction, date, time,
datetime, timedelta, range, slice, PosixPath/PurePosixPath, deque, ChainMap, UserList/UserDict/UserString (exactly
those types), dict views
(keys, values, items), mappingproxy (as a dict), module (one the sender imported, by its name: the receiver
imports its own, never a `__main__` or private module; a module object made by hand is a handle), iterators
passed as arguments (a batch of items, the rest pulled by the receiver as it reads), ndarray (numpy scalars travel as
plain numbers).
`update_in_place` copies a call's mutation of an argument back into the caller's.

Every walk over a value here is a loop over an explicit stack (`walk`, `update_in_place`): a value nested
`MAX_DEPTH` levels deep crosses both ways, whatever its types, at any recursion limit.

Over 400 lines: one wire format, its encoder and its strict decoder for every kind, and the copy-back that
walks the same kinds; the two sides must read the same rules, so they stay in one file.
"""

import builtins
import collections
import dataclasses
import datetime
import decimal
import fractions
import importlib
import importlib.machinery
import itertools
import json
import pathlib
import sys
import threading
import types

from . import flat

_type = type
_len = len
_isinstance = isinstance
_getattr = getattr
_FACTORIES = ("list", "int", "set", "dict", "str", "float", "tuple", "frozenset", "bool")
NO_IMPORT = frozenset({"antigravity", "this", "turtle", "tkinter", "idlelib", "webbrowser"})  # their import acts
_VIEWS = {_type({}.keys()): "keys", _type({}.values()): "values", _type({}.items()): "items"}
_NAMEDTUPLES = {}
_USER = {collections.UserList: list, collections.UserDict: dict, collections.UserString: str}
_USER_NAMES = {cls.__name__: (cls, data) for cls, data in _USER.items()}
_PATHS = (pathlib.PosixPath, pathlib.PurePosixPath)  # exactly those types
# dict and tuple subclasses too (Counter, ...); a UserList or UserDict by its data
MUTABLE = (list, dict, set, bytearray, collections.deque, collections.UserList, collections.UserDict)
COPIED_BACK = MUTABLE + (tuple,)  # arguments whose changes come back (a tuple's inner containers)
ITERATOR_BATCH = 1024  # items of a test's iterator sent at a time
MAX_DEPTH = flat.MAX_DEPTH  # levels of nesting of one value that crosses
_BIG_INT = 2**53


# ---- one walk for every value that crosses -------------------------------------------------------------------
def walk(root, expand, limit=None, max_items=None):
    """A value transformed node by node without recursion.  `expand(node)` gives (None, result) for a leaf,
    or (children, finish): `finish(list of the children's results)` is the node's result (children are
    expanded after their parent: a parent may register itself first, for cycles).  ValueError when more
    than `limit` nodes are open at once (`MAX_DEPTH` levels of a value), or past `max_items` nodes."""
    count = 0
    children, result = expand(root)
    if children is None:
        return result
    stack = [(iter(children), [], result)]
    while True:
        items, done, finish = stack[-1]
        for child in items:
            count += 1
            if max_items is not None and count > max_items:
                raise ValueError("value too large")
            children, result = expand(child)
            if children is None:
                done.append(result)
                continue
            if limit is not None and _len(stack) >= limit:
                raise ValueError("value nested too deeply")
            stack.append((iter(children), [], result))
            break
        else:
            stack.pop()
            value = finish(done)
            if not stack:
                return value
            stack[-1][1].append(value)


_LEAF_TAGS = {int: lambda v: v if -_BIG_INT < v < _BIG_INT else {"$i": hex(v)}, float: lambda v: {"$f": v.hex()},
              bytes: lambda v: {"$b": v.hex()}, bytearray: lambda v: {"$ba": v.hex()},
              complex: lambda v: {"$c": [v.real.hex(), v.imag.hex()]}}
_SEQUENCE_TAGS = {list: list, tuple: lambda d: {"$t": d}, set: lambda d: {"$s": d}, frozenset: lambda d: {"$fs": d}}


class _Slot:
    """Where a child's encoding goes in a value type's tag (`encode_node`)."""

    __slots__ = ("i",)

    def __init__(self, i):
        self.i = i


def _fill(tag, done):
    """`tag` with each `_Slot` replaced by its child's encoding (a tag is a few levels deep, whatever the value)."""
    if _type(tag) is _Slot:
        return done[tag.i]
    if _type(tag) is list:
        return [_fill(t, done) for t in tag]
    if _type(tag) is dict:
        return {k: _fill(v, done) for k, v in tag.items()}
    return tag


def _pairs(done):
    return {"$d": [[done[i], done[i + 1]] for i in range(0, _len(done), 2)]}


def encode_node(value):
    """`walk`'s step for exact builtin data and the value types (`tag_value_type`), as either side sends
    them; None for anything else (each side decides: a handle, a callback, a task object)."""
    t = _type(value)
    if value is None or t is bool or t is str:
        return None, value
    leaf = _LEAF_TAGS.get(t)
    if leaf is not None:
        return None, leaf(value)
    sequence = _SEQUENCE_TAGS.get(t)
    if sequence is not None:
        return value, sequence
    if t is dict:
        return itertools.chain.from_iterable(dict.items(value)), _pairs
    children = []
    tag = tag_value_type(value, lambda v: children.append(v) or _Slot(_len(children) - 1))
    return None if tag is None else (children, lambda done: _fill(tag, done))


_DECODE_LEAVES = {"$f": float.fromhex, "$i": lambda b: int(b, 16), "$b": bytes.fromhex, "$ba": bytearray.fromhex,
                  "$c": lambda b: complex(float.fromhex(b[0]), float.fromhex(b[1]))}
_DECODE_SEQUENCES = {"$t": tuple, "$s": set, "$fs": frozenset}


def decode_node(obj):
    """`walk`'s step for the tags of plain data and value types (the side's own tags, `$h`, `$cb`, `$jo`,
    `$bi`, are read before it): ValueError/TypeError on anything malformed."""
    t = _type(obj)
    if obj is None or t is bool or t is str or t is int:
        return None, obj
    if t is list:
        return obj, list
    if t is not dict:  # a bare float: every float is tagged
        raise ValueError(f"untagged {t.__name__}")
    ((tag, body),) = obj.items()  # exactly one key
    if tag in _DECODE_LEAVES:
        return None, _DECODE_LEAVES[tag](body)
    if tag in _DECODE_SEQUENCES:
        return _list(body), _DECODE_SEQUENCES[tag]
    if tag == "$d":
        return [x for pair in _list(body) for x in _pair(pair)], lambda d: dict(zip(d[::2], d[1::2]))
    if tag == "$v":
        return [_list(body)], lambda done: rebuild_value_type(done[0])
    raise ValueError(f"unknown tag {str(tag)[:20]!r}")


def tag_value_type(value, sub):
    """`{"$v": [...]}` for a value type, else None.  `sub` encodes a nested value."""
    t = _type(value)
    items = lambda: [[sub(k), sub(v)] for k, v in dict.items(value)]  # noqa: E731
    if _isinstance(value, collections.deque):
        return {"$v": ["deque", value.maxlen, [sub(v) for v in collections.deque.__iter__(value)]]}
    if _isinstance(value, collections.ChainMap):
        return {"$v": ["ChainMap", [sub(m) for m in list.__iter__(value.maps)]]}
    if _isinstance(value, collections.Counter):
        return {"$v": ["Counter", items()]}
    if _isinstance(value, collections.OrderedDict):
        return {"$v": ["OrderedDict", items()]}
    if _isinstance(value, collections.defaultdict):
        factory = value.default_factory
        name = _getattr(factory, "__name__", None)
        factory = name if name in _FACTORIES and _getattr(builtins, name) is factory else None
        return {"$v": ["defaultdict", factory, items()]}
    if _isinstance(value, decimal.Decimal):
        return {"$v": ["Decimal", decimal.Decimal.__str__(value)]}
    if _isinstance(value, fractions.Fraction):
        return {"$v": ["Fraction", sub(int(value.numerator)), sub(int(value.denominator))]}
    if _isinstance(value, datetime.timedelta):
        return {"$v": ["timedelta", value.days, value.seconds, value.microseconds]}
    if _isinstance(value, datetime.datetime):
        return {"$v": ["datetime", [value.year, value.month, value.day, value.hour, value.minute, value.second,
                                    value.microsecond], _zone(value, sub), value.fold]}
    if _isinstance(value, datetime.date):
        return {"$v": ["date", [value.year, value.month, value.day]]}
    if _isinstance(value, datetime.time):
        return {"$v": ["time", [value.hour, value.minute, value.second, value.microsecond], _zone(value, sub),
                       value.fold]}
    if t in _PATHS:  # `tmp_path` and the paths a test builds from it: the same path on the other side
        return {"$v": ["path", t.__name__, pathlib.PurePath.__str__(value)]}
    if t is range:
        return {"$v": ["range", sub(value.start), sub(value.stop), sub(value.step)]}
    if t is slice:  # `obj[1:3]` on a program object: the key is a slice
        return {"$v": ["slice", sub(value.start), sub(value.stop), sub(value.step)]}
    if t in _USER and _type(_getattr(value, "data", None)) is _USER[t]:  # exact UserList/UserDict/UserString
        return {"$v": [t.__name__, sub(value.data)]}
    if t in _VIEWS:
        kind = _VIEWS[t]
        return {"$v": [kind, [sub(list(v) if kind == "items" else v) for v in value]]}
    if t is types.MappingProxyType:
        return sub(dict(value))
    if t is types.ModuleType:
        if imported_module(value):  # an imported module, by its name
            return {"$v": ["module", value.__name__]}
        return None  # a module object made by hand (`types.ModuleType("math")`): not the module of that name
    if _isinstance(value, tuple):
        fields = _getattr(t, "_fields", None)
        values = [sub(v) for v in tuple.__iter__(value)]
        if _type(fields) is tuple and all(_type(f) is str for f in fields) and len(fields) == len(values):
            return {"$v": ["namedtuple", str(t.__name__), list(fields), values]}
        return {"$t": values}
    if _getattr(t, "__module__", "") == "numpy":
        if _getattr(value, "ndim", None) == 0 and callable(_getattr(value, "item", None)):
            return sub(value.item())  # numpy scalars: the plain Python number
        if t.__name__ == "ndarray":  # a structured dtype by its fields (`_dtype_spec`), any other by its name
            dtype = str(value.dtype) if value.dtype.names is None else sub(_dtype_spec(value.dtype))
            return {"$v": ["ndarray", dtype, list(value.shape), sub(value.tolist())]}
    return None


def _dtype_spec(dtype):
    """A numpy dtype as data: its name (`'<i4'`), a subarray's [base, shape], or a structured one's fields with their
    offsets, size and alignment (padding and gaps kept: an aligned struct, a view of some of the fields)."""
    if dtype.subdtype is not None:
        return {"sub": [_dtype_spec(dtype.subdtype[0]), list(dtype.subdtype[1])]}
    if dtype.names is None:
        return dtype.str
    return {"names": list(dtype.names), "formats": [_dtype_spec(dtype.fields[n][0]) for n in dtype.names],
            "offsets": [dtype.fields[n][1] for n in dtype.names], "itemsize": dtype.itemsize,
            "aligned": bool(dtype.isalignedstruct)}


def _dtype_of(spec, numpy):
    """The receiver's dtype for `_dtype_spec`'s data (ValueError/TypeError on anything else)."""
    if _type(spec) is str:
        return numpy.dtype(spec)
    if _type(spec) is dict and set(spec) == {"sub"}:
        base, shape = _list(spec["sub"])
        return numpy.dtype((_dtype_of(base, numpy), tuple(_int(n) for n in _list(shape))))
    if _type(spec) is not dict or set(spec) != {"names", "formats", "offsets", "itemsize", "aligned"}:
        raise ValueError("bad dtype")
    return numpy.dtype({"names": [str(n) for n in _list(spec["names"])],
                        "formats": [_dtype_of(f, numpy) for f in _list(spec["formats"])],
                        "offsets": [_int(o) for o in _list(spec["offsets"])], "itemsize": _int(spec["itemsize"]),
                        "aligned": spec["aligned"] is True})


def plain(base, value):
    """A builtin subclass's value as the exact base type, through the base type's own methods."""
    if base is int:
        return int.__int__(value)
    if base is float:
        return float.__float__(value)
    if base is str:
        return str.__str__(value)
    if base is bytes:
        return bytes.__bytes__(value) if hasattr(bytes, "__bytes__") else bytes(memoryview(value))
    if base is list:
        return list(list.__iter__(value))
    if base is dict:
        return dict(dict.items(value))
    return base(base.__iter__(value))


def _zone(value, sub):
    """A datetime's or time's zone as [UTC offset, name, zone key]: None when naive; the name where the zone is a
    `datetime.timezone` given one (`timezone(offset, "IST")`); the key of a `zoneinfo.ZoneInfo`, which the receiver
    loads if it can (else the fixed offset: the same instant)."""
    offset = value.utcoffset()
    if offset is None:
        return None
    tz, name, key = value.tzinfo, None, None
    if _type(tz) is datetime.timezone:
        args = datetime.timezone.__getinitargs__(tz)
        name = args[1] if _len(args) == 2 else None
    elif _type(tz).__module__ == "zoneinfo" and _type(tz).__name__ == "ZoneInfo" and _type(tz.key) is str:
        key = tz.key
    return [sub(offset), name, key]


_ZONE_KEY = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_+-/")


def _tzinfo(zone, parts, make, fold):
    """The receiver's tzinfo for `_zone`'s description: the zone of that key where it loads and gives the sent offset
    at these parts, else a fixed offset (with the sent name)."""
    if zone is None:
        return None
    offset, name, key = _list(zone)
    if _type(offset) is not datetime.timedelta or not (name is None or _type(name) is str and _len(name) <= 100):
        raise ValueError("bad zone")
    if _type(key) is str and 0 < _len(key) <= 64 and set(key) <= _ZONE_KEY and ".." not in key and key[0] != "/":
        try:
            import zoneinfo
            tz = zoneinfo.ZoneInfo(key)
            probe = make(*parts, tzinfo=tz, fold=fold)
            if probe.utcoffset() == offset:
                return tz
        except Exception:
            pass
    elif key is not None:
        raise ValueError("bad zone")
    return datetime.timezone(offset) if name is None else datetime.timezone(offset, name)


def rebuild_value_type(body):
    """The receiver's own object for `{"$v": body}`, its nested values already decoded (`decode_node`)."""
    if _type(body) is not list or not body:
        raise ValueError("bad value type")
    kind = body[0]
    if kind in ("Counter", "OrderedDict", "defaultdict"):
        if kind == "defaultdict":
            factory = body[1]
            out = collections.defaultdict(_getattr(builtins, factory) if factory in _FACTORIES else None)
        else:
            out = collections.Counter() if kind == "Counter" else collections.OrderedDict()
        for k, v in map(_pair, _list(body[-1])):
            out[k] = v
        return out
    if kind == "deque":
        maxlen = body[1]
        if maxlen is not None and (_type(maxlen) is not int or maxlen < 0):
            raise ValueError("bad deque")
        return collections.deque(_list(body[2]), maxlen)
    if kind == "ChainMap":
        maps = _list(body[1])
        if not all(_isinstance(m, (dict, collections.ChainMap, collections.UserDict)) for m in maps):
            raise ValueError("bad ChainMap")
        return collections.ChainMap(*maps)
    if kind == "iter":
        if _len(body) == 2:
            return iter(_list(body[1]))
        if not callable(body[2]):
            raise ValueError("bad iterator")
        return _pulled(_list(body[1]), body[2])
    if kind == "namedtuple":
        name, fields, values = body[1], tuple(_list(body[2])), _list(body[3])
        if _type(name) is not str or not all(_type(f) is str for f in fields):
            raise ValueError("bad namedtuple")
        cls = _NAMEDTUPLES.get((name, fields))
        if cls is None:
            cls = _NAMEDTUPLES[(name, fields)] = collections.namedtuple(name, fields, rename=True)
        return cls(*values)
    if kind == "path":
        cls = {c.__name__: c for c in _PATHS}.get(body[1])
        if cls is None or _type(body[2]) is not str or not 0 < len(body[2]) <= 4096 or "\0" in body[2]:
            raise ValueError("bad path")
        return cls(body[2])
    if kind == "Decimal":
        if _type(body[1]) is not str or len(body[1]) > 10000:
            raise ValueError("bad Decimal")
        return decimal.Decimal(body[1])
    if kind == "Fraction":
        return fractions.Fraction(_int(body[1]), _int(body[2]))
    if kind == "timedelta":
        return datetime.timedelta(days=_int(body[1]), seconds=_int(body[2]), microseconds=_int(body[3]))
    if kind in ("date", "datetime", "time"):
        parts = [_int(p) for p in _list(body[1])]
        if kind == "date":
            return datetime.date(*parts)
        fold = body[3] if _len(body) > 3 else 0  # which of a repeated wall time (the hour a clock is set back)
        if fold not in (0, 1) or _type(fold) is not int:
            raise ValueError("bad fold")
        make = datetime.datetime if kind == "datetime" else datetime.time
        return make(*parts, tzinfo=_tzinfo(body[2], parts, make, fold), fold=fold)
    if kind == "range":
        return range(_int(body[1]), _int(body[2]), _int(body[3]))
    if kind == "slice" and _len(body) == 4:
        return slice(body[1], body[2], body[3])
    if kind in _USER_NAMES:
        cls, data = _USER_NAMES[kind]
        if _type(body[1]) is not data:
            raise ValueError(f"bad {kind}")
        return cls(body[1])
    if kind == "keys":
        return dict.fromkeys(_list(body[1])).keys()
    if kind == "values":
        return dict(enumerate(_list(body[1]))).values()
    if kind == "items":
        return dict(tuple(_pair(v)) for v in _list(body[1])).items()
    if kind == "module":  # the receiver's own import of the module, never a proxy
        if not importable(body[1]):
            raise ValueError("bad module")
        return importlib.import_module(body[1])
    if kind == "ndarray":
        data = body[3]
        try:
            import numpy
        except ImportError:
            return data
        dtype = body[1] if _type(body[1]) is str else _dtype_of(body[1], numpy)
        return numpy.array(data, dtype=dtype).reshape([_int(n) for n in _list(body[2])])
    raise ValueError(f"unknown value type {kind!r}")


# The modules loaded before any program ran (the fork server's warm imports): each crosses by name only as itself.
_LOADED_FIRST = dict(sys.modules)


def imported_module(value):
    """Whether module `value` is one the import system loaded, under the name `sys.modules` holds it by: the very
    module loaded under that name before any program ran (`_LOADED_FIRST`), or one imported since whose `__spec__`
    names it, has a loader (its `__loader__`) and was run to the end (`_initializing` is what the import system
    sets False after `exec_module`).  A module object made by hand and registered in `sys.modules`
    (`types.ModuleType("json")`, `type(sys)("json")`, `module_from_spec` never executed, a copied `__spec__`) is
    none: it crosses as the program's own object, and the receiver imports nothing for it."""
    namespace = _getattr(value, "__dict__", None)
    if _type(namespace) is not dict:
        return False
    name = namespace.get("__name__")
    if _type(name) is not str or sys.modules.get(name) is not value:
        return False
    if name in _LOADED_FIRST:
        return value is _LOADED_FIRST[name]
    spec = namespace.get("__spec__")
    return (_type(spec) is importlib.machinery.ModuleSpec and spec.name == name and spec.loader is not None
            and namespace.get("__loader__") is spec.loader
            and _getattr(spec, "__dict__", {}).get("_initializing") is False)


def importable(name):
    """Whether the receiver may import module `name` because the peer named it: never a `__main__`
    (its import runs a program) or private module, nor one of the few whose import acts."""
    parts = name.split(".") if _type(name) is str else [""]
    return all(p.isidentifier() and not p.startswith("_") for p in parts) and parts[0] not in NO_IMPORT


def iterator_batch(it):
    """Up to `ITERATOR_BATCH` items of a judge-side iterator (`iter(xs)`, a generator, `itertools.count()`), whether
    it may go on, and the exception it raised after them (else None).  The program gets an iterator over the first
    batch that pulls the rest through a callback as it reads (`{"$v": ["iter", items, {"$cb": pull}]}`), so an
    endless iterator crosses, and an exception the test's generator raises reaches the program where it reads it."""
    items = []
    while _len(items) < ITERATOR_BATCH:
        try:
            items.append(next(it))
        except StopIteration:
            return items, False, None
        except Exception as exc:
            return items, False, exc
    return items, True, None


def _pulled(items, pull):
    """The program side of a test's iterator: its first items, then batches from `pull` (a callback) until one is
    empty; an exception the test's iterator raised comes out of `pull`."""
    yield from items
    while True:
        batch = pull()
        if _type(batch) is not list or not batch:
            return
        yield from batch


class Mirrors:
    """The program side of objects the task's code built in the judge (a `Node` tree from
    `test_setup_code`, a `Person` from a test): each is rebuilt here from the task's own class
    definitions (run here once, on the judge's demand) and its attributes, and goes back to the judge
    as the original, with a call's changes to its attributes (`changed`)."""

    def __init__(self):
        self.namespace = None  # the task's class definitions
        self.copies = {}  # judge object id -> this process's rebuilt copy
        self.ids = {}  # id(copy) -> judge object id
        self.state = {}  # judge object id -> its state as last told to / by the judge

    def define(self, source):
        self.namespace = {"__name__": "__coderl_task__"}
        exec(compile(source, "<task>", "exec"), self.namespace)

    def jid(self, value):
        """The judge's id of `value` when it is one of the copies, else None."""
        jid = self.ids.get(id(value))
        return jid if jid is not None and self.copies.get(jid) is value else None

    def expand(self, obj, encode):
        """`walk`'s step for `{"$jo": id, "cls": ..., "state": ...}` (or a reference `{"$jo": id}` to a copy
        this message or an earlier one carried): the copy is made before its state is decoded (cycles);
        `encode` is the program side's encoder."""
        jid = obj["$jo"]
        if "state" not in obj:
            return None, self.copies[jid]
        copy = self.copies.get(jid)
        if copy is None:
            if self.namespace is None:
                raise ValueError("no task classes were defined")
            cls = self.namespace[obj["cls"]]
            copy = self.copies[jid] = cls.__new__(cls)
            self.ids[id(copy)] = jid

        def finish(done):
            copy.__dict__.clear()
            copy.__dict__.update(done[0])
            self.state[jid] = text(encode(dict(copy.__dict__)))  # what the judge holds now
            return copy
        return [obj["state"]], finish

    def changed(self, encode):
        """{judge object id: state} of the copies whose attributes changed since last said; what was said is noted
        only once every copy has been encoded (one that cannot be leaves every change to be said again)."""
        changed, said = {}, {}
        for jid, copy in self.copies.items():
            state = encode(dict(copy.__dict__))
            if text(state) != self.state.get(jid):
                changed[str(jid)] = state
                said[jid] = text(state)
        self.state.update(said)
        return changed


def text(encoded):
    """An encoded value as the channel's JSON text: two encodings are the same value when their texts are
    equal (a comparison of the nested lists themselves recurses)."""
    return deep(json.dumps, encoded, allow_nan=False, separators=(",", ":"))


_DEEP = threading.Lock()


def deep(func, *args, **kwargs):
    """`func(*args, **kwargs)` (`json`'s C code, which recurses) with a recursion limit that lets it reach
    MAX_DEPTH levels of a value at 6 JSON levels a level (a task object's state takes a few), never
    lowered; restored after.  One call at a time (the limit is the process's: the trainer reads programs'
    output in several threads, and two calls interleaved would run one under the limit the other restored,
    and leave the raised one behind); `func` holds the GIL throughout anyway."""
    with _DEEP:
        old = sys.getrecursionlimit()
        sys.setrecursionlimit(max(old, 6 * MAX_DEPTH + 200))
        try:
            return func(*args, **kwargs)
        finally:
            sys.setrecursionlimit(old)



def dataclass_state(obj):
    """A dataclass instance's fields (InitVars are none), by name; {} for anything else."""
    if not dataclasses.is_dataclass(obj) or isinstance(obj, type):
        return {}
    return {f.name: getattr(obj, f.name) for f in dataclasses.fields(obj)}


def dataclass_instance(cls, state):
    """An instance of the receiver's dataclass `cls` with these fields (None if they are not its
    fields), built without running any `__init__` or `__post_init__`."""
    if _type(state) is not dict or set(state) != {f.name for f in dataclasses.fields(cls)}:
        return None
    obj = object.__new__(cls)
    for name, value in state.items():
        object.__setattr__(obj, name, value)
    return obj


def _updatable(old, new):
    """`old` can take `new`'s contents in place: containers of the same type, or tuples of the same
    length whose items are pairwise updatable or equal (a tuple whose number changed is replaced)."""
    if not (_same_kind(old, new) and _isinstance(old, COPIED_BACK)):
        return False
    pairs = [(old, new)]
    while pairs:
        a, b = pairs.pop()
        if not _same_kind(a, b):
            return False
        if _isinstance(a, tuple):
            if _len(a) != _len(b):
                return False
            pairs.extend(zip(a, b))
        elif not _isinstance(a, MUTABLE) and not a == b:
            return False
    return True


def _same_kind(a, b):
    """Of one type, or two tuples (a test's namedtuple comes back as the receiver's namedtuple of that name)."""
    return _type(a) is _type(b) or (_isinstance(a, tuple) and _isinstance(b, tuple))


def update_in_place(old, new):
    """Copy a call's mutation of an argument (or of a task object's `__dict__`) back into the caller's
    container, keeping the identity of nested containers (a test that holds `row = grid[1]` or
    `items = bag.items` sees the change too); an item that cannot take the new value in place (another
    type, a tuple whose numbers changed) is replaced.  A tuple (a namedtuple) can only have its containers
    updated.  Without recursion, at any depth."""
    work = [(old, new, False)]  # (the caller's, the program's, whether `_updatable` said yes already)
    while work:
        old, new, checked = work.pop()
        if not _same_kind(old, new):
            continue
        if _isinstance(old, (collections.UserList, collections.UserDict)):  # their data, in place
            if _type(old.data) is _type(new.data):
                work.append((old.data, new.data, False))
            continue
        if _isinstance(old, (list, collections.deque)):
            items = old if _isinstance(old, list) else list(old)
            for i in range(min(_len(items), _len(new))):
                if _updatable(items[i], new[i]):
                    work.append((items[i], new[i], True))
                else:
                    items[i] = new[i]
            del items[_len(new):]
            items.extend(list(new)[_len(items):])
            if items is not old:  # a deque: its items, each kept or replaced as a list's
                old.clear()
                old.extend(items)
        elif _isinstance(old, tuple) and _len(old) == _len(new):  # its items were checked with it
            work.extend((a, b, True) for a, b in zip(old, new) if checked or _updatable(a, b))
        elif _isinstance(old, dict):
            for key in [k for k in old if k not in new]:
                del old[key]
            for key, value in new.items():
                if key in old and _updatable(old[key], value):
                    work.append((old[key], value, True))
                else:
                    old[key] = value
        elif _isinstance(old, set):
            old.clear()
            old.update(new)
        elif _isinstance(old, bytearray):
            old[:] = new


def _list(x):
    if _type(x) is not list:
        raise ValueError("expected a list")
    return x


def _pair(x):
    if _type(x) is not list or len(x) != 2:
        raise ValueError("expected a pair")
    return x


def _int(x):
    if _type(x) is not int:
        raise ValueError("expected an int")
    return x
