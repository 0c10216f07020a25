"""Cases for the judge's written rules (docs/sandbox.md): where a test's names come from, comparisons
between program objects, exceptions that would steer the judge's loops, forks that return into the
program-side runtime, values at the nesting limit, and what `python main.py` writes at shutdown.

`before=` is the verdict each case got at 2837def, the commit before these rules: a hostile case that
"passed" there shows a hole the rule closed; a legitimate one that failed shows a correct program the
old judge turned away.
"""

from __future__ import annotations

from . import Case


def _he(name: str, tag: str, prompt: str, completion: str, test: str, entry_point: str, *, expect: str,
        reference: str | None = None, tamper: str | None = None, before: str | None = None) -> Case:
    """A case on an inline HumanEval-layout row; `reference` (the row's canonical solution) defaults to
    the completion of a passing case."""
    row = {"task_id": f"corpus/{name}", "prompt": prompt, "test": test, "entry_point": entry_point,
           "canonical_solution": reference if reference is not None else completion}
    return Case(name=name, tag=tag, completion=completion, expect=expect, row=row, fmt="humaneval",
                tamper=tamper, before=before)


def _mbpp(name: str, tag: str, text: str, tests: list[str], completion: str, *, expect: str, code: str = "",
          setup: str = "", before: str | None = None) -> Case:
    """A case on an inline MBPP row; an empty `code` is a row with no reference solution."""
    row = {"task_id": f"corpus/{name}", "text": text, "code": code, "test_list": tests,
           "test_setup_code": setup, "challenge_test_list": []}
    return Case(name=name, tag=tag, completion=completion, expect=expect, row=row, fmt="mbpp", before=before)


def _stdio(name: str, tag: str, program: str, output: str, *, before: str | None = None) -> Case:
    row = {"problem_id": f"corpus/{name}", "question": "Print the answer.",
           "input_output": {"inputs": [""], "outputs": [output]}}
    return Case(name=name, tag=tag, completion=program, expect="pass", row=row, fmt="stdio", before=before)


_SAME = "\n\nclass _Same:\n    def __eq__(self, other):\n        return True\n\n    __hash__ = object.__hash__\n"
_CIRCLE = 'def circle_area(r):\n    """The area of a circle of radius r."""\n'
_CIRCLE_TEST = "def check(candidate):\n    assert abs(candidate(1) - pi) < 1e-9\n    assert abs(candidate(2) - 4 * pi) < 1e-9\n"
_THIRDS = 'def thirds(n):\n    """n / 3 as an exact fraction."""\n'
_THIRDS_TEST = "def check(candidate):\n    assert candidate(1) == Fraction(1, 3)\n    assert candidate(4) == Fraction(4, 3)\n"
_DOUBLE = 'def double(x):\n    """2 * x."""\n'
_MAP_TEST = "def check(candidate):\n    assert all(map(lambda x: candidate(x) == 2 * x, range(6)))\n"
_LOOKUP = 'def lookup(d, k):\n    """d[k]; a missing key raises KeyError."""\n'
_LOOKUP_TEST = ("def check(candidate):\n    assert candidate({'a': 1}, 'a') == 1\n    try:\n        candidate({}, 'x')\n"
                "    except KeyError:\n        pass\n    else:\n        assert False\n")
_VERSION = 'class Version:\n    """A dotted version number, compared part by part as integers."""\n'
_VERSION_CODE = ("\n    def __init__(self, text):\n        self.parts = tuple(int(p) for p in text.split('.'))\n\n"
                 "    def __eq__(self, other):\n        return self.parts == other.parts\n\n"
                 "    def __lt__(self, other):\n        return self.parts < other.parts\n\n    __hash__ = None\n")

NAMES = [
    # `pi` is math.pi (the name table), whatever the program binds to it.
    _he("program_pi_zero", "A.program_names", _CIRCLE, "    return 0\n\n\npi = 0\n", _CIRCLE_TEST, "circle_area",
        expect="fail", reference="    import math\n    return math.pi * r * r\n", before="passed"),
    # `Fraction` is fractions.Fraction, not the program's always-equal class.
    _he("program_fraction_class", "A.program_names", _THIRDS,
        "    return Fraction(0)\n\n\nclass Fraction:\n    def __init__(self, *args):\n        pass\n\n"
        "    def __eq__(self, other):\n        return True\n", _THIRDS_TEST, "thirds", expect="fail",
        reference="    from fractions import Fraction\n    return Fraction(n, 3)\n", before="passed"),
    # A helper the test calls that the task does not name: only a class to build and pass in.
    _mbpp("program_checker_helper", "A.program_names", "Sort a list in descending order.",
          ["assert is_descending(sort_desc([3, 1, 2]))", "assert is_descending(sort_desc([5, 9]))"],
          "def sort_desc(xs):\n    return xs\n\n\ndef is_descending(xs):\n    return True\n", expect="fail",
          before="passed"),
    # `math` is the judge's import even where the program rebinds the name to a class of its own.
    _he("program_math_class", "A.program_names", 'def root(x):\n    """The square root of x."""\n',
        "    return 1.0\n\n\nclass math:\n    sqrt = staticmethod(lambda x: 1.0)\n",
        "def check(candidate):\n    assert candidate(2) == math.sqrt(2)\n    assert candidate(9) == math.sqrt(9)\n",
        "root", expect="fail", reference="    return x ** 0.5\n", before="failed"),
]

NAMES_LEGITIMATE = [
    _he("uses_pi_without_import", "C.name_resolution", _CIRCLE, "    return 3.141592653589793 * r * r\n",
        _CIRCLE_TEST, "circle_area", expect="pass", before="failed"),
    _he("uses_fraction_without_import", "C.name_resolution", _THIRDS,
        "    from fractions import Fraction\n    return Fraction(n, 3)\n", _THIRDS_TEST, "thirds", expect="pass",
        before="failed"),
    # An MBPP row with no reference: the tests build the program's Pair and pass it in.
    _mbpp("pairs_without_reference", "C.name_resolution", "The longest chain of pairs.",
          ["assert chain([Pair(5, 24), Pair(15, 25), Pair(27, 40), Pair(50, 60)], 4) == 3",
           "assert chain([Pair(1, 2), Pair(3, 4), Pair(5, 6), Pair(7, 8)], 4) == 4"],
          "class Pair:\n    def __init__(self, a, b):\n        self.a, self.b = a, b\n\n\n"
          "def chain(arr, n):\n    best = [1] * n\n    for i in range(1, n):\n        for j in range(i):\n"
          "            if arr[i].a > arr[j].b:\n                best[i] = max(best[i], best[j] + 1)\n"
          "    return max(best)\n", expect="pass", before="passed"),
]

COMPARISONS = [
    _he("always_equal_pair", "A.program_comparison", 'def canon(xs):\n    """xs in a canonical order."""\n',
        "    return _Same()\n" + _SAME,
        "def check(candidate):\n    assert candidate([2, 1]) == candidate([1, 2])\n"
        "    assert candidate([1, 2, 2]) == candidate([2, 2, 1])\n", "canon", expect="fail",
        reference="    return sorted(xs)\n", tamper="program_comparison:", before="passed"),
    _he("ordering_liar", "A.program_comparison", 'def key(x):\n    """A sort key: smaller x, smaller key."""\n',
        "    return _Lt()\n\n\nclass _Lt:\n    def __lt__(self, other):\n        return True\n",
        "def check(candidate):\n    assert candidate(1) < candidate(2)\n", "key", expect="fail",
        reference="    return x\n", tamper="program_comparison:", before="runtime_error"),
]

COMPARISONS_LEGITIMATE = [
    _he("version_ordering", "C.small_classes", _VERSION, _VERSION_CODE,
        "def check(candidate):\n    assert candidate('1.2') < candidate('1.10')\n"
        "    assert candidate('1.2') == candidate('1.2')\n    assert not candidate('2.0') < candidate('1.9')\n",
        "Version", expect="pass", before="runtime_error"),
]

CONTROL_EXCEPTIONS = [
    _he("stop_iteration_in_map", "A.control_exceptions", _DOUBLE, "    raise StopIteration\n", _MAP_TEST, "double",
        expect="fail", reference="    return 2 * x\n", before="passed"),
    _he("stop_iteration_subclass_in_map", "A.control_exceptions", _DOUBLE,
        "    raise _Done\n\n\nclass _Done(StopIteration):\n    pass\n", _MAP_TEST, "double", expect="fail",
        reference="    return 2 * x\n", before="passed"),
    _he("fake_builtin_keyerror", "A.control_exceptions", _LOOKUP,
        "    if k in d:\n        return d[k]\n    raise KeyError(k)\n\n\nclass KeyError(Exception):\n    pass\n",
        _LOOKUP_TEST, "lookup", expect="fail", reference="    return d[k]\n", before="passed"),
]

FORKS = [
    # The parent is wrong; a forked child returns the right value into the runtime and would answer first.
    _he("forked_child_answers", "A.fork_reply", 'def add(a, b):\n    """a + b."""\n',
        "    import os, time\n    if os.fork() == 0:\n        return a + b\n    time.sleep(0.05)\n    return 0\n",
        "def check(candidate):\n    assert candidate(1, 2) == 3\n", "add", expect="fail",
        reference="    return a + b\n", before="passed"),
    _he("forked_child_answers_at_import", "A.fork_reply", 'def add(a, b):\n    """a + b."""\n',
        "    return 0\n\n\nimport os\nif os.fork() == 0:\n    def add(a, b):\n        return a + b\n",
        "def check(candidate):\n    assert candidate(1, 2) == 3\n    assert candidate(2, 2) == 4\n", "add",
        expect="fail", reference="    return a + b\n", before="runtime_error"),
]

FORKS_LEGITIMATE = [
    _he("fork_and_wait", "C.fork_in_function", 'def add(a, b):\n    """a + b."""\n',
        "    import os\n    pid = os.fork()\n    if pid:\n        os.waitpid(pid, 0)\n    return a + b\n",
        "def check(candidate):\n    assert candidate(1, 2) == 3\n    assert candidate(5, 5) == 10\n", "add",
        expect="pass", before="passed"),
    _he("fork_child_raises", "C.fork_in_function", 'def add(a, b):\n    """a + b."""\n',
        "    import os\n    if os.fork() == 0:\n        raise ValueError('child')\n    return a + b\n",
        "def check(candidate):\n    assert candidate(1, 2) == 3\n    assert candidate(5, 5) == 10\n", "add",
        expect="pass", before="runtime_error"),
]

DEEP = [
    _he("nested_list_at_limit", "C.deep_values", 'def nested(n):\n    """0 inside n nested lists."""\n',
        "    v = 0\n    for _ in range(n):\n        v = [v]\n    return v\n",
        "def check(candidate):\n    v = 0\n    for _ in range(1000):\n        v = [v]\n    assert candidate(1000) == v\n",
        "nested", expect="pass", before="passed"),
    _he("nested_dict_at_limit", "C.deep_values", 'def nested(n):\n    """0 inside n nested dicts."""\n',
        "    v = 0\n    for _ in range(n):\n        v = {'k': v}\n    return v\n",
        "def check(candidate):\n    v = 0\n    for _ in range(1000):\n        v = {'k': v}\n    assert candidate(1000) == v\n",
        "nested", expect="pass", before="passed"),
]

SHUTDOWN = [
    _stdio("print_to_original_stream", "C2.stdio_semantics",
           "import io, sys\nsys.stdout = io.StringIO()\nprint('hidden')\nprint(42, file=sys.__stdout__)\n", "42\n",
           before="failed"),
    _stdio("swapped_in_stream", "C2.stdio_semantics",
           "import os, sys\nprint('a')\nsys.stdout = open(os.dup(1), 'w')\nprint('b')\n", "b\na\n", before="failed"),
    _stdio("stream_in_a_global", "C2.stdio_semantics",
           "f = open(1, 'w', closefd=False)\nf.write('x\\n')\nprint('y')\n", "y\nx\n", before="failed"),
]

CASES: list[Case] = [*NAMES, *NAMES_LEGITIMATE, *COMPARISONS, *COMPARISONS_LEGITIMATE, *CONTROL_EXCEPTIONS,
                     *FORKS, *FORKS_LEGITIMATE, *DEEP, *SHUTDOWN]
