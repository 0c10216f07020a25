"""Classes built on classes, as the plain interpreter sees them (found by a review, 2026-11-28; each case here
failed before, differential against `python` running prompt + completion + test):

- **A program's exception hierarchy.** `except AppError` in a test did not catch the program's `NotFound(AppError)`:
  the judge's stand-in for a program exception class derived from the nearest builtin only. Now each stand-in
  derives from its bases' stand-ins (`Tester.stand_in`: the base classes cross with the class), so a hierarchy in
  the prompt's stubs, in the completion, or on a base class of the task's own code is caught at every level.
- **A prompt class on a stub.** `class Shape: pass` is the program's to define (a stub), and the prompt's
  `class Square(Shape)` was the judge's: defining it on the program's class was a TypeError in the task's code,
  and every program failed, the reference too. A class built on a name left to the program is the program's too
  (`prompt_code._left_to_program`).
- **A Flag's combined members.** `Perm.R | Perm.W` and `Perm(0)` have no one member name; a program returning one
  broke the protocol (a gating tamper note on a correct program). A Flag member crosses by its value."""

from __future__ import annotations

import itertools

from .helpers import judged_as_python

HIERARCHIES = {  # the classes (first the ones a test may name), their definitions
    "two levels": (["AppError", "NotFound"], "class AppError(Exception):\n    pass\n\n"
                                             "class NotFound(AppError):\n    pass\n"),
    "three on ValueError": (["Base", "Mid", "Leaf"], "class Base(ValueError):\n    pass\n\nclass Mid(Base):\n"
                                                     "    '''A middle.'''\n\nclass Leaf(Mid):\n    pass\n"),
    "two bases": (["A", "B", "C"], "class A(Exception):\n    pass\n\nclass B(Exception):\n    pass\n\n"
                                   "class C(A, B):\n    pass\n"),
    "on KeyError": (["E", "F"], "class E(KeyError):\n    pass\n\nclass F(E):\n    pass\n"),
    "a base with a body": (["AppError", "NotFound"], "class AppError(Exception):\n    code = 1\n\n"
                                                     "class NotFound(AppError):\n    pass\n"),
}
CATCHES = ["Exception", "ValueError", "KeyError", "LookupError", "ArithmeticError"]


def _raiser(cls):
    return f"    if x < 0:\n        raise {cls}(x)\n    return x\n"


def _catching(name):
    return (f"def check(candidate):\n    assert candidate(1) == 1\n    try:\n        candidate(-1)\n"
            f"    except {name}:\n        pass\n    else:\n        assert False\n")


def _hierarchy_cases():
    """(name, prompt, completion, test): the classes in the prompt, or in the completion (helpers after the
    function), the program raising each class, the test catching each class and some builtins."""
    cases = []
    for (label, (names, defs)), where in itertools.product(HIERARCHIES.items(), ("prompt", "completion")):
        for raised, caught in itertools.product(names, names + CATCHES):
            prompt = defs + "\n\ndef f(x):\n" if where == "prompt" else "def f(x):\n"
            completion = _raiser(raised) + ("" if where == "prompt" else "\n\n" + defs)
            cases.append((f"{label}/{where}/raise {raised}/except {caught}", prompt, completion, _catching(caught)))
    return cases


SHAPES = "class Shape:\n    pass\n\n\nclass Square(Shape):\n    def __init__(self, side):\n        self.side = side\n"
META = "class Meta(type):\n    pass\n\n\nclass Unit(metaclass=Meta):\n    size = 1\n"
FLAG = "from enum import Flag, IntFlag, auto\n\n\nclass Perm(Flag):\n    R = auto()\n    W = auto()\n    X = auto()\n"
FLAGS = "    p = Perm(0)\n    for c in s:\n        p |= Perm[c.upper()]\n    return p\n"
OTHER_CASES = [
    ("shape stub", SHAPES + "\n\ndef f(shapes):\n",
     "    return [isinstance(s, Shape) and s.side for s in shapes]\n",
     "def check(candidate):\n    assert candidate([Square(2), Square(3)]) == [2, 3]\n    assert candidate([]) == []\n"),
    ("shape stub, wrong", SHAPES + "\n\ndef f(shapes):\n", "    return [s.side + 1 for s in shapes]\n",
     "def check(candidate):\n    assert candidate([Square(2)]) == [2]\n"),
    ("metaclass stub", META + "\n\ndef f():\n", "    return Unit.size\n",
     "def check(candidate):\n    assert candidate() == 1\n"),
    ("flag combined", FLAG + "\n\ndef f(s):\n", FLAGS,
     "def check(candidate):\n    assert candidate('rw') == Perm.R | Perm.W\n    assert Perm.W in candidate('rwx')\n"
     "    assert candidate('wr') is Perm.R | Perm.W\n"),
    ("flag none", FLAG + "\n\ndef f(s):\n", FLAGS, "def check(candidate):\n    assert candidate('') == Perm(0)\n"
                                                   "    assert not candidate('')\n"),
    ("flag one", FLAG + "\n\ndef f(s):\n", FLAGS, "def check(candidate):\n    assert candidate('x') is Perm.X\n"),
    ("flag wrong", FLAG + "\n\ndef f(s):\n", FLAGS.replace("|=", "="),
     "def check(candidate):\n    assert candidate('rw') == Perm.R | Perm.W\n"),
    ("flag all", FLAG + "\n\ndef f(s):\n", FLAGS,
     "def check(candidate):\n    assert candidate('rwx') == Perm.R | Perm.W | Perm.X\n"
     "    assert candidate('rwx') != Perm.R | Perm.W\n"),
]


def test_a_programs_exception_hierarchy_is_caught_at_every_level_as_in_python():
    plain = judged_as_python(((*case, "f") for case in _hierarchy_cases()), reference=True)
    assert sum(plain.values()) >= 40 and sum(not p for p in plain.values()) >= 40  # both verdicts occur


def test_classes_on_a_stub_and_flags_get_the_interpreters_verdict():
    plain = judged_as_python(((*case, "f") for case in OTHER_CASES), reference=True)
    assert plain == {name: "wrong" not in name for name, *_ in OTHER_CASES}


def test_a_class_built_on_a_stub_is_left_to_the_program():
    from coderl.tasks.prompt_code import program_names, trusted_code

    prompt = SHAPES + "\n\nclass Circle:\n    r = 1\n\n\n" + META + "\n\ndef f(shapes):\n"
    assert program_names(prompt, None, "f") == (("Meta", "Shape", "Square", "Unit", "f"), False)
    assert "class Circle" in trusted_code(prompt, "f") and "Square" not in trusted_code(prompt, "f")


def test_a_forged_class_chain_ends_the_channel_and_junk_bases_are_left_out():
    """What the program side sends of a class's bases is the program's word: a chain that names itself, or one
    deeper than any the program side sends (16), is a protocol break; entries that are not a builtin exception's
    name nor a class's tag are left out."""
    import types

    import pytest

    from coderl.sandbox.server.common import wire
    from coderl.sandbox.server.judge import tester
    judge = tester.Judge(types.SimpleNamespace())

    def tag(hid, name, bases):
        return {"$h": hid, "t": name, "c": True, "x": ["Exception", "BaseException"], "pb": bases}

    looped = tag(1, "A", [])
    looped["pb"].append(tag(2, "B", [looped]))
    with pytest.raises(wire.Gone):
        judge.handle(looped)
    deep = tag(100, "D0", ["Exception"])
    for i in range(1, 30):
        deep = tag(100 + i, f"D{i}", [deep])
    with pytest.raises(wire.Gone):
        judge.handle(deep)
    made = judge.handle(tag(200, "Odd", [7, {"t": "x"}, "NotAnException", "KeyError", tag(201, "Base", ["OSError"])]))
    assert [b.__name__ for b in made.__bases__] == ["KeyError", "Base"] and issubclass(made, OSError)
