"""The judge's rules for what a program can reach of a test (docs/sandbox.md, "A verdict the program cannot
forge"): where a test's names come from, comparisons between program objects, and exceptions that would
steer the judge's loops.  Each rule has hostile programs that passed before it and must fail now, and
ordinary programs of the same shape that must keep passing.
"""

import pytest

from coderl.sandbox.types import CheckKind, TestCase
from coderl.tasks.prompt_code import program_names
from coderl.tasks.types import Task


def task(prompt, tests, entry, reference=None, preamble="", kinds=None):
    cases = tuple(TestCase(str(i), src, (kinds or {}).get(i, CheckKind.ASSERT)) for i, src in enumerate(tests))
    return Task(task_id="rules/0", kind="function", prompt=prompt, tests=cases, entry_point=entry,
                reference_solution=reference, test_preamble=preamble)


def run(sandbox, t, completion):
    return sandbox.run(t.build_request(completion))


AREA = task('def area(r):\n    """The area of a circle of radius r."""\n',
            ["assert abs(candidate(2) - pi * 4) < 1e-9"], "area")
THIRD = task('def third(n):\n    """n / 3 as an exact fraction."""\n',
             ["assert candidate(1) == Fraction(1, 3)", "assert candidate(2) == Fraction(2, 3)"], "third")
SORT = task('def sort_desc(xs):\n    """xs sorted from largest to smallest."""\n',
            ["assert is_descending(candidate([3, 1, 2]))", "assert len(candidate([3, 1, 2])) == 3"], "sort_desc")
_ALWAYS = "class _Same:\n    def __eq__(self, other):\n        return True\n    __hash__ = object.__hash__\n"


# ---- names -------------------------------------------------------------------------------------------------
def test_a_data_name_the_task_does_not_bind_is_never_the_programs(sandbox):
    """`pi` in a test is the judge's math.pi (the name table), not the program's `pi = 0`."""
    wrong = run(sandbox, AREA, "    return 0\n\n\npi = 0\n")
    assert not wrong.passed
    right = run(sandbox, AREA, "    return 3.141592653589793 * r * r\n")
    assert right.passed, right.message


def test_a_class_the_tests_build_expected_values_with_is_the_judges(sandbox):
    """`Fraction` in a test is fractions.Fraction, not an always-equal class of the program's."""
    wrong = run(sandbox, THIRD, "    return Fraction(0)\n\n\nclass Fraction:\n"
                "    def __init__(self, *a):\n        pass\n\n    def __eq__(self, other):\n        return True\n")
    assert not wrong.passed
    right = run(sandbox, THIRD, "    from fractions import Fraction\n    return Fraction(n, 3)\n")
    assert right.passed, right.message


def test_a_module_the_tests_use_is_the_judges_import_even_when_the_program_never_imported_it(sandbox):
    t = task('def root(x):\n    """The square root of x."""\n', ["assert candidate(2) == math.sqrt(2)"], "root")
    assert run(sandbox, t, "    return x ** 0.5\n").passed
    assert not run(sandbox, t, "    return 1\n\n\nclass math:\n    sqrt = staticmethod(lambda x: 1)\n").passed


def test_an_undeclared_data_name_stays_undefined(sandbox):
    """A test reading a name nobody binds (not the task's, no module, not in the table) fails closed."""
    t = task('def limit():\n    """The limit."""\n', ["assert candidate() == LIMIT"], "limit")
    result = run(sandbox, t, "    return 7\n\n\nLIMIT = 7\n")
    assert not result.passed and "NameError" in result.message, result.message


def test_a_called_helper_of_the_programs_cannot_judge_its_answer(sandbox):
    """`is_descending` is not the task's: only called, so only a class to construct and pass in.  A call
    that gives data back, or an object whose truth the test would read, is refused."""
    lam = run(sandbox, SORT, "    return xs\n\n\nis_descending = lambda xs: True\n")
    assert not lam.passed and "is_descending(...) built no object" in lam.message, lam.message
    obj = run(sandbox, SORT, "    return xs\n\n\nclass is_descending:\n    def __init__(self, xs):\n        pass\n\n"
                             "    def __bool__(self):\n        return True\n")
    assert not obj.passed and "only constructed and passed" in obj.message, obj.message


def test_a_declared_second_function_comes_from_the_program():
    """The reference names the program's functions: MBPP's second tested function is the program's."""
    names, is_class = program_names('"""\nWrite gcd and lcm.\n"""\n', "def gcd(a, b):\n    pass\n\n\n"
                                    "def lcm(a, b):\n    pass\n\n\nclass Pair:\n    pass\n", "gcd")
    assert names == ("Pair", "gcd", "lcm") and is_class is False
    names, is_class = program_names('import math\n\n\ndef helper(x):\n    return math.floor(x)\n\n\n'
                                    'def stub(x):\n    """To write."""\n\n\nclass Point:\n    """A point."""\n',
                                    "\n    def __init__(self, x):\n        self.x = x\n", "Point")
    assert names == ("Point", "stub") and is_class is True  # `helper` is the prompt's own code


def test_classes_the_tests_only_construct_and_pass_in_still_work(sandbox):
    """MBPP rows with no reference: `Pair(...)` is built in the program and passed in; a setup builds a
    tree of the program's `Node` by attribute assignment (also through `root.left.left = ...`)."""
    pairs = task('"""\nThe longest chain of pairs.\n"""\n', [
        "assert max_chain_length([Pair(5, 24), Pair(15, 25), Pair(27, 40), Pair(50, 60)], 4) == 3",
        "assert max_chain_length([Pair(1, 2), Pair(3, 4), Pair(5, 6), Pair(7, 8)], 4) == 4"], "max_chain_length")
    code = ("class Pair:\n    def __init__(self, a, b):\n        self.a, self.b = a, b\n\n\n"
            "def max_chain_length(arr, n):\n    best = [1] * n\n    for i in range(1, n):\n        for j in range(i):\n"
            "            if arr[i].a > arr[j].b:\n                best[i] = max(best[i], best[j] + 1)\n"
            "    return max(best)\n")
    result = run(sandbox, pairs, code)
    assert result.passed, result.message
    tree = task('"""\nThe height of a binary tree.\n"""\n', ["assert height(root) == 3"], "height",
                preamble="root = Node(1)\nroot.left = Node(2)\nroot.left.left = Node(4)\nroot.right = Node(3)\n")
    code = ("class Node:\n    def __init__(self, data):\n        self.data, self.left, self.right = data, None, None\n\n\n"
            "def height(node):\n    return 0 if node is None else 1 + max(height(node.left), height(node.right))\n")
    result = run(sandbox, tree, code)
    assert result.passed, result.message


def test_names_the_task_code_binds_win(sandbox):
    t = task('def double(x):\n    """2 * x."""\n', ["FACTOR = 2\nassert candidate(3) == FACTOR * 3"], "double")
    assert run(sandbox, t, "    return 2 * x\n").passed
    assert not run(sandbox, t, "    return 9\n\n\nFACTOR = 3\n").passed


# ---- comparisons -------------------------------------------------------------------------------------------
def test_two_program_objects_never_judge_each_other(sandbox):
    """`candidate(a) == candidate(b)`: two always-equal objects would vouch for each other."""
    t = task('def canon(xs):\n    """xs in a canonical order."""\n',
             ["assert candidate([2, 1]) == candidate([1, 2])", "assert candidate([3]) != candidate([4])"], "canon")
    wrong = run(sandbox, t, "    return _Same()\n\n\n" + _ALWAYS)
    assert not wrong.passed
    assert any(n.startswith("program_comparison:") for n in wrong.tamper), wrong.tamper
    assert "not judged" in wrong.message
    right = run(sandbox, t, "    return sorted(xs)\n")
    assert right.passed and right.tamper == [], (right.message, right.tamper)


@pytest.mark.parametrize("op", ["<", "<=", ">", ">="])
def test_ordering_between_program_objects_is_refused_and_named(sandbox, op):
    t = task('def key(x):\n    """A sort key."""\n', [f"assert candidate(1) {op} candidate(2)"], "key")
    wrong = run(sandbox, t, "    return _Lt()\n\n\nclass _Lt:\n    def __lt__(self, o):\n        return True\n"
                            "    __le__ = __gt__ = __ge__ = __lt__\n")
    assert not wrong.passed and any(n.startswith("program_comparison:") for n in wrong.tamper), wrong.tamper


VERSION_PROMPT = 'class Version:\n    """A version number "1.2.10": compares numerically, part by part."""\n'
VERSION_CODE = ("\n    def __init__(self, text):\n        self.parts = tuple(int(p) for p in text.split('.'))\n\n"
                "    def __eq__(self, other):\n        return self.parts == other.parts\n\n"
                "    def __lt__(self, other):\n        return self.parts < other.parts\n\n"
                "    def __le__(self, other):\n        return self.parts <= other.parts\n\n"
                "    __hash__ = None\n")


def test_the_class_the_task_asks_for_compares_its_own_instances(sandbox):
    """A task whose entry point is a class with `==` and ordering: its instances compare by its methods."""
    t = task(VERSION_PROMPT, ["assert candidate('1.2') < candidate('1.10')",
                              "assert candidate('1.2') == candidate('1.2')",
                              "assert candidate('1.2') != candidate('1.3')",
                              "assert candidate('2.0') <= candidate('2.0')",
                              "assert not candidate('2.1') < candidate('2.0')"], "Version", reference=VERSION_CODE)
    result = run(sandbox, t, VERSION_CODE)
    assert result.passed and result.tamper == [], (result.message, result.tamper)


def test_other_program_objects_of_a_class_task_are_still_refused(sandbox):
    t = task(VERSION_PROMPT, ["assert candidate('1.2').key() == candidate('9.9').key()"], "Version",
             reference=VERSION_CODE)
    wrong = run(sandbox, t, VERSION_CODE + "\n    def key(self):\n        return _Same()\n\n\n" + _ALWAYS)
    assert not wrong.passed and any(n.startswith("program_comparison:_Same") for n in wrong.tamper)


def test_a_function_task_is_not_a_class_task_whatever_the_program_names_its_objects(sandbox):
    """The entry point `make` is a function in the task: objects of a program class named `make` are not
    instances of the class the task asks for."""
    t = task('def make(n):\n    """A value."""\n', ["assert candidate(1) == candidate(2)"], "make",
             reference="    return n\n")
    wrong = run(sandbox, t, "    return _make()\n\n\nclass _make:\n    __qualname__ = 'make'\n"
                            "    def __eq__(self, o):\n        return True\n")
    assert not wrong.passed


# ---- exceptions --------------------------------------------------------------------------------------------
DOUBLE = 'def double(x):\n    """2 * x."""\n'


@pytest.mark.parametrize("name", ["StopIteration", "StopAsyncIteration", "_Done"])
def test_an_exception_from_the_program_never_ends_the_judges_iteration(sandbox, name):
    """`all(map(lambda ...))` would stop at a StopIteration from the program and find nothing false."""
    t = task(DOUBLE, ["assert all(map(lambda x: candidate(x) == 2 * x, range(5)))",
                      "assert list(map(candidate, [1, 2])) == [2, 4]"], "double")
    wrong = run(sandbox, t, f"    raise {name}\n\n\nclass _Done(StopIteration):\n    pass\n")
    assert not wrong.passed
    assert all("RuntimeError" in o.message for o in wrong.tests), [o.message for o in wrong.tests]
    assert run(sandbox, t, "    return 2 * x\n").passed


def test_generator_exit_from_the_program_is_a_runtime_error(sandbox):
    t = task(DOUBLE, ["try:\n    candidate(1)\nexcept RuntimeError as e:\n    assert 'GeneratorExit' in str(e)\n"
                      "else:\n    assert False"], "double")
    result = run(sandbox, t, "    raise GeneratorExit\n")
    assert result.passed, result.message


def test_a_program_generator_still_ends_its_own_iteration(sandbox):
    """`next` on a program iterator: StopIteration there is the end of the iteration, as in Python."""
    t = task('def evens(n):\n    """The even numbers below n."""\n',
             ["assert list(candidate(7)) == [0, 2, 4, 6]", "assert next(candidate(0), 'none') == 'none'",
              "assert all(x % 2 == 0 for x in candidate(9))"], "evens")
    result = run(sandbox, t, "    yield from range(0, n, 2)\n")
    assert result.passed, result.message


LOOKUP = task('def lookup(d, k):\n    """d[k]; a missing key raises KeyError."""\n',
              ["try:\n    candidate({}, 'x')\nexcept KeyError:\n    pass\nelse:\n    assert False",
               "assert candidate({'a': 1}, 'a') == 1"], "lookup")


def test_a_program_class_named_like_a_builtin_is_not_that_builtin(sandbox):
    wrong = run(sandbox, LOOKUP, "    if k in d:\n        return d[k]\n    raise KeyError(k)\n\n\n"
                                 "class KeyError(Exception):\n    pass\n")
    assert not wrong.passed
    deeper = run(sandbox, LOOKUP, "    if k in d:\n        return d[k]\n    raise Missing(k)\n\n\n"
                                  "class KeyError(Exception):\n    pass\n\n\nclass Missing(KeyError):\n    pass\n")
    assert not deeper.passed


@pytest.mark.parametrize("raised", ["d[k]", "Missing(k)", "LookupError(k) if False else KeyError(k)"])
def test_real_builtin_exceptions_and_their_subclasses_are_caught(sandbox, raised):
    code = f"    if k in d:\n        return d[k]\n    raise {raised}\n\n\nclass Missing(KeyError):\n    pass\n"
    if raised == "d[k]":
        code = "    return d[k]\n"
    result = run(sandbox, LOOKUP, code)
    assert result.passed, result.message


def test_a_module_object_made_by_hand_is_not_the_module_of_its_name(sandbox):
    """`types.ModuleType("math")` with a wrong `sqrt` comes back as the program's object, not the judge's
    math; the real module, imported, comes back as the judge's own import."""
    t = task('def get_math():\n    """The math module."""\n', ["assert candidate().sqrt(16) == 4"], "get_math")
    fake = run(sandbox, t, "    import types\n    m = types.ModuleType('math')\n    m.sqrt = lambda x: 0\n    return m\n")
    assert not fake.passed
    assert run(sandbox, t, "    import math\n    return math\n").passed


# Every way a program can make a module object by hand and register it where an import would find it: the
# object crosses as the program's own object (a handle), whatever name it takes, and the judge imports nothing.
_HAND_MADE = {
    "ModuleType": "types.ModuleType({name!r})",
    "type(sys)": "type(sys)({name!r})",
    "subclass": "type('M', (types.ModuleType,), {{}})({name!r})",
    "copied spec": "types.ModuleType({name!r}); m.__spec__ = importlib.util.find_spec({name!r}); "
                   "m.__loader__ = m.__spec__.loader; m.__file__ = m.__spec__.origin",
    "module_from_spec": "importlib.util.module_from_spec(importlib.util.find_spec({name!r}))",
}


@pytest.mark.parametrize("made", sorted(_HAND_MADE))
@pytest.mark.parametrize("name", ["math", "colorsys", "xml.dom.minidom"])
def test_a_hand_made_module_registered_under_a_real_name_crosses_as_a_plain_object(sandbox, made, name):
    """Before: a module object the program made and put in `sys.modules` crossed as the module of that name,
    so the judge imported its own (a false fail: its `answer` is gone) and an import ran in the judge."""
    t = task('def space():\n    """A module object whose attribute answer is 42."""\n',
             ["assert candidate().answer == 42",
              f"import sys\nassert {name!r} not in sys.modules or {name!r} in ('math',)"], "space")
    code = (f"    import importlib.util, sys, types\n    m = {_HAND_MADE[made].format(name=name)}\n"
            f"    m.answer = 42\n    sys.modules[{name!r}] = m\n    return m\n")
    result = run(sandbox, t, code)
    assert result.passed, (made, name, result.message)


# ---- attacks on these rules by a program that knows them ----------------------------------------------------
@pytest.mark.parametrize("check", ['f"{Checker(candidate([3, 1]))}" == "ok"', 'str(Checker(candidate([3, 1]))) == "ok"',
                                   'len(Checker(candidate([3, 1]))) == 1', 'list(Checker(candidate([3, 1]))) == [1]',
                                   '1 in Checker(candidate([3, 1]))', 'Checker(candidate([3, 1])).ok == 1'])
def test_an_object_built_from_an_unnamed_class_cannot_be_read_any_way(sandbox, check):
    """`Checker` is not the task's: what it builds goes to the program and nowhere else (format, str, len,
    iteration, `in`, a data attribute: each would let the program judge its own answer)."""
    t = task('def sort_desc(xs):\n    """xs sorted from largest to smallest."""\n', [f"assert {check}"], "sort_desc")
    lie = ("    return xs\n\n\nclass Checker:\n    ok = 1\n\n    def __init__(self, xs):\n        pass\n\n"
           "    def __str__(self):\n        return 'ok'\n\n    __format__ = lambda self, spec: 'ok'\n"
           "    __len__ = lambda self: 1\n    __iter__ = lambda self: iter([1])\n"
           "    __contains__ = lambda self, x: True\n")
    result = run(sandbox, t, lie)
    assert not result.passed and "only constructed and passed" in result.message, result.message


def test_a_rewritten_runtime_cannot_claim_a_stop_iteration(sandbox):
    """The program rewrites its own runtime to answer every call with a raw StopIteration reply (no class
    handle: a claim that the builtin was raised): still a RuntimeError in the judge, never an early end."""
    t = task(DOUBLE, ["assert all(map(lambda x: candidate(x) == 2 * x, range(5)))"], "double")
    forged = ("    return 0\n\n\nimport gc\n"
              "_P = next((o for o in gc.get_objects() if type(o).__name__ == 'Program' and hasattr(o, 'channel')), None)\n"
              "if _P is not None:\n    type(_P).call = lambda self, msg: {'x': [['StopIteration'], '', []]}\n")
    result = run(sandbox, t, forged)
    assert not result.passed and "RuntimeError" in result.message, result.message


# ---- the judge's own objects decide identity (issue 58) -------------------------------------------------------
VECTOR_PROMPT = 'class Vector:\n    """A 2-d vector: +, -, scalar *, unary -, abs, int, round, repr and ordering by length."""\n'
VECTOR_CODE = ("\n    def __init__(self, x, y):\n        self.x, self.y = x, y\n\n"
               "    def __add__(self, o):\n        return Vector(self.x + o.x, self.y + o.y)\n\n"
               "    def __sub__(self, o):\n        return Vector(self.x - o.x, self.y - o.y)\n\n"
               "    def __mul__(self, k):\n        return Vector(self.x * k, self.y * k)\n\n"
               "    __rmul__ = __mul__\n\n"
               "    def __neg__(self):\n        return Vector(-self.x, -self.y)\n\n"
               "    def __abs__(self):\n        return (self.x ** 2 + self.y ** 2) ** 0.5\n\n"
               "    def __int__(self):\n        return int(abs(self))\n\n"
               "    def __round__(self, n=None):\n        return Vector(round(self.x, n), round(self.y, n))\n\n"
               "    def __eq__(self, o):\n        return (self.x, self.y) == (o.x, o.y)\n\n"
               "    def __lt__(self, o):\n        return abs(self) < abs(o)\n\n"
               "    def __repr__(self):\n        return f'Vector({self.x}, {self.y})'\n")
VECTOR_TESTS = ["assert candidate(1, 2) + candidate(3, 4) == candidate(4, 6)",
                "assert candidate(3, 4) - candidate(1, 1) == candidate(2, 3)",
                "assert 2 * candidate(1, 2) == candidate(1, 2) * 2 == candidate(2, 4)",
                "assert -candidate(1, -2) == candidate(-1, 2)", "assert abs(candidate(3, 4)) == 5.0",
                "assert int(candidate(3, 4)) == 5", "assert round(candidate(1.26, 2.0), 1) == candidate(1.3, 2.0)",
                "assert repr(candidate(1, 2)) == 'Vector(1, 2)'",
                "assert sorted([candidate(3, 4), candidate(1, 0)]) == [candidate(1, 0), candidate(3, 4)]"]


def test_the_class_the_task_asks_for_has_its_operators_and_protocols(sandbox):
    """Before: every test but the comparison one failed (`+`, `-`, `*`, unary `-`, `abs`, `int`, `round`
    and `repr` were not proxied: TypeError, or `<program Vector object>`)."""
    t = task(VECTOR_PROMPT, VECTOR_TESTS, "Vector", reference=VECTOR_CODE)
    result = run(sandbox, t, VECTOR_CODE)
    assert result.passed and not result.tamper, (result.message, result.tamper)
    wrong = run(sandbox, t, VECTOR_CODE.replace("self.x + o.x", "self.x - o.x"))
    assert [o.id for o in wrong.tests if not o.passed] == ["0"], wrong.tests


def test_operators_of_other_program_objects_stay_refused(sandbox):
    """A proxied `-` would let an object whose `__sub__` gives 0 pass every `abs(candidate(x) - want) < eps`."""
    t = task('def root(x):\n    """The square root of x."""\n', ["assert abs(candidate(2) - 1.4142135623730951) < 1e-9",
                                                                  "assert -candidate(4) == -2"], "root")
    lie = ("    return _Zero()\n\n\nclass _Zero:\n    __sub__ = __rsub__ = lambda self, o: 0\n"
           "    __neg__ = lambda self: -2\n")
    wrong = run(sandbox, t, lie)
    assert not wrong.passed and all("not judged" in o.message for o in wrong.tests), wrong.tests
    assert run(sandbox, t, "    return x ** 0.5\n").passed


def test_membership_in_the_class_the_task_asks_for_is_an_isinstance_not_a_name(sandbox):
    """Before: a program class that called itself `Version` (its `__qualname__`) compared with the
    program's own `==` (an always-equal object passed)."""
    t = task(VERSION_PROMPT, ["assert candidate('1.2').bump() == candidate('9.9')"], "Version", reference=VERSION_CODE)
    forged = VERSION_CODE + ("\n    def bump(self):\n        return _Fake()\n\n\nclass _Fake:\n"
                             "    __qualname__ = 'Version'\n    __eq__ = lambda self, o: True\n")
    wrong = run(sandbox, t, forged)
    assert not wrong.passed and any(n.startswith("program_comparison:") for n in wrong.tamper), wrong.tamper
    honest = VERSION_CODE + "\n    def bump(self):\n        return Version('9.9')\n"
    assert run(sandbox, t, honest).passed


def test_an_object_of_a_called_only_class_is_never_compared(sandbox):
    """Truth through comparison: `Item` is only called by the tests (not the task's), so what it builds is never
    read, even by `==` or `<` with an object of the class the task asks for.  Before: a `Box` compared with an
    `Item` (both named `Box`) by the program's always-true `==`."""
    prompt = 'class Box:\n    """A box holding one item: put(item), take()."""\n'
    code = "\n    def put(self, item):\n        self.item = item\n\n    def take(self):\n        return self.item\n"
    t = task(prompt, ["b = candidate()\nb.put(Item(1))\nassert b.take() == Item(2)",
                      "b = candidate()\nb.put(Item(1))\nassert not b.take() < Item(2)"], "Box", reference=code)
    forged = code.replace("return self.item", "return Item(0)") + ("\n\nclass Item(Box):\n    __qualname__ = 'Box'\n\n    def __init__(self, n):\n        self.n = n\n\n"
                     "    __eq__ = lambda self, o: True\n    __lt__ = lambda self, o: False\n")
    wrong = run(sandbox, t, forged)
    assert not wrong.passed and all("not judged" in o.message for o in wrong.tests), wrong.tests
    ordinary = task(prompt, ["b = candidate()\nb.put(Item(1))\nassert b.take() is not None"], "Box", reference=code)
    assert run(sandbox, ordinary, code + "\n\nclass Item:\n    def __init__(self, n):\n        self.n = n\n").passed


APPLY = task('def apply_all(xs, f):\n    """[f(x) for x in xs]."""\n', [
    "class Stop(Exception):\n    pass\ndef f(x):\n    if x == 3:\n        raise Stop(x, 'three')\n    return x\n"
    "try:\n    candidate([1, 2, 3, 4], f)\nexcept Stop as e:\n    assert e.args == (3, 'three')\nelse:\n    assert False",
    "class Bad(ValueError):\n    pass\ndef g(x):\n    raise Bad(x)\ntry:\n    candidate([1], g)\nexcept Bad as e:\n"
    "    assert e.args == (1,)\nelse:\n    assert False"], "apply_all")


def test_a_tests_own_exception_comes_back_through_the_program_as_itself(sandbox):
    """Before: the test's `Stop`, raised by its callback inside a correct program, came back as a plain
    Exception and escaped `except Stop`."""
    result = run(sandbox, APPLY, "    return [f(x) for x in xs]\n")
    assert result.passed and not result.tamper, (result.message, result.tamper)
    # The program catches it by its nearest builtin, as in Python.
    catching = task('def successes(xs, f):\n    """How many f(x) do not raise ValueError."""\n', [
        "class Bad(ValueError):\n    pass\ndef g(x):\n    if x % 2:\n        raise Bad(x)\n    return x\n"
        "assert candidate([1, 2, 3, 4], g) == 2"], "successes")
    code = "    n = 0\n    for x in xs:\n        try:\n            f(x)\n            n += 1\n        except ValueError:\n"
    assert run(sandbox, catching, code + "            pass\n    return n\n").passed


def test_a_class_the_tests_define_is_never_matched_by_a_name_the_program_sends(sandbox):
    """Before: the program's own `Stop`, raised without calling the test's callable, was caught as the test's."""
    wrong = run(sandbox, APPLY, "    raise Stop(3, 'three')\n\n\nclass Stop(Exception):\n    pass\n")
    assert not wrong.passed and wrong.tests[0].status.value == "runtime_error", wrong.tests


def test_exceptions_of_the_tasks_trusted_code_are_matched_by_name(sandbox):
    prompt = ('class InvalidInput(Exception):\n    """Raised on a negative input."""\n\n\n'
              'def check(n):\n    """n, or InvalidInput when n < 0."""\n')
    t = task(prompt, ["try:\n    candidate(-1)\nexcept InvalidInput as e:\n    assert e.args == (-1,)\nelse:\n"
                      "    assert False", "assert candidate(2) == 2"], "check")
    assert run(sandbox, t, "    if n < 0:\n        raise InvalidInput(n)\n    return n\n").passed
    assert not run(sandbox, t, "    if n < 0:\n        raise ValueError(n)\n    return n\n").passed


# ---- notes: only what the judge saw is judge-observed ----------------------------------------------------------
FROZEN = task('def table(n):\n    """{i: i * i} for i < n, as a hashable mapping."""\n', ["assert candidate(3) == {0: 0, 1: 1, 2: 4}",
                                                                                       "assert len(candidate(4)) == 4"], "table")


def test_an_honest_program_earns_no_judge_observed_note(sandbox):
    """A dict subclass with its own `__hash__` is an ordinary program (it arrives as its dict); before, the
    program side's report of it was taken as the judge's `non_builtin_return`, and capped the reward."""
    code = ("    return FrozenDict((i, i * i) for i in range(n))\n\n\nclass FrozenDict(dict):\n"
            "    def __hash__(self):\n        return hash(frozenset(self.items()))\n")
    result = run(sandbox, FROZEN, code)
    assert result.passed and result.caught == [], (result.message, result.tamper)
    assert result.tamper == ["subclass_equality:FrozenDict"]  # still logged, as a program-side courtesy report


@pytest.mark.parametrize("claim", ["forged_pass", "exit_called", "protocol:bad_message", "early_exit"])
def test_a_program_cannot_report_a_judge_observed_note(sandbox, claim):
    """The program side's report is a courtesy: a name of the judge's own class in it is dropped (before, any
    program could cap its reward, or a library's note could)."""
    code = ("    return {i: i * i for i in range(n)}\n\n\nimport gc\n"
            "for _o in gc.get_objects():\n"
            "    if type(_o).__name__ == 'Program' and hasattr(_o, 'notes'):\n"
            f"        _o.notes.append({claim!r})\n")
    result = run(sandbox, FROZEN, code)
    assert result.caught == [] and claim not in result.tamper, result.tamper


# ---- kind x check: a check the mode cannot judge fails closed in both judges ------------------------------------
@pytest.mark.parametrize("check", [CheckKind.ASSERT, CheckKind.EQUALS, CheckKind.TRUTHY, CheckKind.ANSWER])
def test_a_check_a_stdio_program_cannot_have_fails_closed(sandbox, check):
    """Before: any check but an output check on a stdin/stdout run passed whenever the program exited 0."""
    from coderl.sandbox.types import ExecutionRequest, Mode

    request = ExecutionRequest(Mode.PYTHON_SCRIPT, program="print(input())\n",
                               tests=(TestCase("0", "7\n", CheckKind.STDOUT, "7"), TestCase("1", "7\n", check, 7)))
    result = sandbox.run(request)
    assert [t.status.value for t in result.tests] == ["passed", "failed"], result.tests
    assert "not judged on a program's output" in result.tests[1].message


@pytest.mark.parametrize("check", [CheckKind.STDOUT, CheckKind.JSON, CheckKind.ANSWER])
def test_an_output_check_in_a_function_task_fails_closed_and_is_never_run(sandbox, check):
    """Before: the test's input ran in the judge as Python statements (`x = 1` passed)."""
    from coderl.sandbox.types import ExecutionRequest, Mode

    request = ExecutionRequest(Mode.PYTHON_TESTS, program="def f():\n    return 1\n", entry_point="f",
                               tests=(TestCase("0", "candidate()", CheckKind.EQUALS, 1), TestCase("1", "x = 1", check, "")))
    result = sandbox.run(request)
    assert [t.status.value for t in result.tests] == ["passed", "failed"], result.tests
    assert "not judged in a function task" in result.tests[1].message
