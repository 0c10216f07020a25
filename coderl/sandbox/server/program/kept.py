"""Which mutable objects inside an item a program iterator yields the program can still change (`Program.next_items`).

In Python the test gets the program's own objects: a buffer the generator clears and refills, yielded alone or inside
a tuple (`yield i, buf`), or a stored row inside a list it keeps, is one object the test sees changing. Such an object
must cross with an alias id so that the judge gives the test one object for it too. It is one the program can still
reach when something references it beyond the item's own containers (its reference count says so), when it was
yielded before, or when it sits inside such an object (a kept tuple or list holding it).

Program side: standard library only, run inside the program process.
"""

import collections
import sys

_id = id
_len = len
_type = type
_issubclass = issubclass
_getrefcount = sys.getrefcount
_tuple_iter = tuple.__iter__
_list_iter = list.__iter__
_dict_values = dict.values
_deque_iter = collections.deque.__iter__

# what crosses as data the program can change in place (builtin subclasses cross as their base type; deque,
# Counter, OrderedDict and defaultdict as themselves; a bytearray subclass is a handle: only the exact type)
ALIASED = (list, dict, set, bytearray, collections.deque)
CONTAINERS = (*ALIASED, tuple)  # what an item must be for anything in it to be aliased
MAX_NODES = 100_000  # containers looked at in one item at most: past it, the rest crosses as before (copies)


def container(obj):
    """Whether `obj` is a tuple or of an `ALIASED` type (by its real type: a `__class__` that says list is not one)."""
    return _issubclass(_type(obj), CONTAINERS)


def unchanging(obj):
    """Whether `obj` is a tuple by its real type: nothing in it changes but through what it holds."""
    return _issubclass(_type(obj), tuple)


def _children(obj):
    """The contents of a container that may hold mutable objects (set members are hashable: none)."""
    t = _type(obj)
    if _issubclass(t, tuple):
        return _tuple_iter(obj)
    if _issubclass(t, list):
        return _list_iter(obj)
    if _issubclass(t, dict):
        return _dict_values(obj)
    if _issubclass(t, collections.deque):
        return _deque_iter(obj)
    return ()


def _excess(objs, counts):
    """Each object's references beyond those the item's containers and this walk hold (plus a constant the probe
    below measures)."""
    out = {}
    for key in counts:
        out[key] = _getrefcount(objs[key]) - counts[key]
    return out


def held_inside(root, root_held, seen):
    """{id: object} of the objects of `ALIASED` types and the tuples inside `root` (itself included) the program can
    still change or yield again: `root_held` for the root itself (the caller counts its references), any other when
    referenced beyond the item, yielded before (its id in `seen`), or inside one that is.  (A tuple cannot change,
    but the program's one tuple yielded twice is one object in Python: `got[0] is got[1]`.)"""
    for child in _children(root):
        if container(child):
            break
    else:  # the common case, an item of plain values: the item alone, or nothing
        return {_id(root): root} if (root_held or _id(root) in seen) and _data(root) else {}
    objs = {_id(root): root}
    counts = {_id(root): 0}
    below = {}  # id -> ids of the containers directly inside it
    stack = [root]
    while stack and _len(objs) < MAX_NODES:
        obj = stack.pop()
        inner = []
        for child in _children(obj):
            if not container(child):
                continue
            key = _id(child)
            inner.append(key)
            if key in counts:
                counts[key] += 1
                continue
            objs[key] = child
            counts[key] = 1
            stack.append(child)
        below[_id(obj)] = inner
    stack.clear()  # what is left unwalked past MAX_NODES: no reference of the walk's own counts against it
    child = obj = None
    excess = _excess(objs, counts)
    reach = [k for k in objs if k in seen or (root_held if k == _id(root) else excess[k] > BASE)]
    held = {}
    while reach:
        key = reach.pop()
        if key in held:
            continue
        held[key] = objs[key]
        reach.extend(below.get(key, ()))
    return {k: o for k, o in held.items() if _data(o)}


def _data(obj):
    """Whether `obj` crosses as data (a bytearray subclass is a handle)."""
    return _type(obj) is bytearray or not _issubclass(_type(obj), bytearray)


def _probe():
    """The references `_excess` counts for an object nothing outside the item holds: a fresh list in a fresh tuple."""
    item = (0, [1])
    objs = {_id(item): item, _id(item[1]): item[1]}
    return _excess(objs, {_id(item[1]): 1})[_id(item[1])]


BASE = _probe()
