"""More of the legitimate corpus: ordinary code an attacker-grade review found failing at 4d83d22
(`before=` is the status there; every case passes under plain `python`).  Each names a class of
program shapes, not one task: prompt-defined Enum members and dataclasses, deques, ChainMaps and dict
views, iterators passed in, values nested deeper than 100, program-defined exception classes caught by
name, isinstance against a program class, setup-built objects mutated in place or linked in cycles,
exception arguments that are not plain, mutations of lists inside tuples, generators of generators.
"""

from __future__ import annotations

from .legitimate import _he, _mbpp

CASES = [
    _he("enum_member_from_prompt", "C.small_classes", before="failed",
        prompt="from enum import Enum\n\n\nclass Color(Enum):\n    RED = 1\n    BLUE = 2\n\n\n"
               "def parse(s: str) -> Color:\n    \"\"\"The Color named by s ('red' or anything else: BLUE).\"\"\"\n",
        completion="    return Color.RED if s == 'red' else Color.BLUE\n",
        test="def check(candidate):\n    assert candidate('red') == Color.RED\n    assert candidate('x') is Color.BLUE\n",
        entry_point="parse"),
    _he("dataclass_from_prompt", "C.small_classes", before="failed",
        prompt="from dataclasses import dataclass\n\n\n@dataclass\nclass Point:\n    x: int\n    y: int\n\n\n"
               "def mid(a: Point, b: Point) -> Point:\n    \"\"\"The midpoint of a and b, rounded down.\"\"\"\n",
        completion="    return Point((a.x + b.x) // 2, (a.y + b.y) // 2)\n",
        test="def check(candidate):\n    assert candidate(Point(0, 0), Point(2, 4)) == Point(1, 2)\n"
             "    assert Point(3, 3) == candidate(Point(3, 3), Point(4, 4))\n"
             "    assert candidate(Point(0, 0), Point(2, 2)) != Point(0, 0)\n",
        entry_point="mid"),
    _he("deque_return", "C.stdlib_subclass", before="failed",
        prompt="from collections import deque\n\n\ndef rotate(xs: list) -> deque:\n"
               "    \"\"\"xs as a deque rotated one step to the right.\"\"\"\n",
        completion="    d = deque(xs)\n    d.rotate(1)\n    return d\n",
        test="def check(candidate):\n    assert candidate([1, 2, 3]) == deque([3, 1, 2])\n"
             "    assert candidate([1, 2, 3]) != [3, 1, 2]\n    assert list(candidate([])) == []\n",
        entry_point="rotate"),
    _he("chainmap_return", "C.stdlib_subclass", before="failed",
        prompt="def layered(a: dict, b: dict):\n    \"\"\"A mapping with a's entries over b's.\"\"\"\n",
        completion="    from collections import ChainMap\n    return ChainMap(a, b)\n",
        test="def check(candidate):\n    assert candidate({1: 2}, {3: 4, 1: 0}) == {1: 2, 3: 4}\n"
             "    assert candidate({}, {}) == {}\n",
        entry_point="layered"),
    _he("dict_keys_vs_set", "C.iteration", before="failed",
        prompt="def keys_of(d: dict):\n    \"\"\"The keys of d.\"\"\"\n",
        completion="    return d.keys()\n",
        test="def check(candidate):\n    assert candidate({1: 2, 3: 4}) == {1, 3}\n    assert candidate({}) == set()\n",
        entry_point="keys_of"),
    _he("iterator_arguments", "C.iteration", before="runtime_error",
        prompt="def total(it) -> int:\n    \"\"\"The sum of an iterable of numbers.\"\"\"\n",
        completion="    return sum(it)\n",
        test="def check(candidate):\n    assert candidate(iter([1, 2, 3])) == 6\n"
             "    assert candidate(x * x for x in range(3)) == 5\n    assert candidate(map(abs, [-1, -2])) == 3\n",
        entry_point="total"),
    _he("generator_of_generators", "C.iteration", before="failed",
        prompt="def table(n: int):\n    \"\"\"Rows of the multiplication table, each row a generator.\"\"\"\n",
        completion="    return ((i * j for j in range(n)) for i in range(n))\n",
        test="def check(candidate):\n    assert [list(g) for g in candidate(3)] == [[0, 0, 0], [0, 1, 2], [0, 2, 4]]\n",
        entry_point="table"),
    _he("deeply_nested_return", "C.iteration", before="runtime_error",
        prompt="def nest(n: int) -> list:\n    \"\"\"[] wrapped in n lists.\"\"\"\n",
        completion="    out = []\n    for _ in range(n):\n        out = [out]\n    return out\n",
        test="def check(candidate):\n    x = candidate(300)\n    d = 0\n    while x:\n        x = x[0]\n        d += 1\n"
             "    assert d == 300\n",
        entry_point="nest"),
    _he("exception_with_tuple_args", "C.exceptions", before="failed",
        prompt="def lookup(table: dict, key: tuple):\n    \"\"\"table[key]; a missing key raises KeyError(key).\"\"\"\n",
        completion="    if key not in table:\n        raise KeyError(key)\n    return table[key]\n",
        test="def check(candidate):\n    try:\n        candidate({}, (1, 2))\n        assert False\n"
             "    except KeyError as e:\n        assert e.args[0] == (1, 2)\n",
        entry_point="lookup"),
    _he("list_inside_tuple_mutated", "C.mutation", before="failed",
        prompt="def push_all(pair: tuple, x) -> None:\n    \"\"\"Append x to both lists of pair, in place.\"\"\"\n",
        completion="    for xs in pair:\n        xs.append(x)\n",
        test="def check(candidate):\n    t = ([], [0])\n    candidate(t, 7)\n    assert t == ([7], [0, 7])\n",
        entry_point="push_all"),
    _mbpp("program_exception_caught_by_name", "C.exceptions", before="runtime_error",
          text="Write a function returning the integer square root, raising InvalidInput for negatives.",
          code="class InvalidInput(Exception):\n    pass\n\n\ndef isqrt(n):\n    if n < 0:\n"
               "        raise InvalidInput('negative')\n    return int(n ** 0.5)\n",
          tests=["assert isqrt(16) == 4",
                 "try:\n    isqrt(-1)\n    assert False\nexcept InvalidInput as e:\n    assert str(e) == 'negative'"]),
    _mbpp("isinstance_of_program_class", "C.small_classes", before="runtime_error",
          text="Write a class Stack and a function make_stack returning an empty one.",
          code="class Stack:\n    def __init__(self):\n        self.items = []\n\n\ndef make_stack():\n    return Stack()\n",
          tests=["assert isinstance(make_stack(), Stack)", "assert not isinstance(3, Stack)"]),
    _mbpp("setup_tree_mutated_in_place", "C.mbpp_fixtures", before="failed",
          text="Write a function to add one to the value of every node of a linked list.",
          code="def bump_all(node):\n    while node is not None:\n        node.v += 1\n        node = node.next\n",
          tests=["bump_all(head)\nassert [head.v, head.next.v] == [2, 3]"],
          setup="class Node:\n    def __init__(self, v, nxt=None):\n        self.v = v\n        self.next = nxt\n"
                "head = Node(1, Node(2))\n"),
    _mbpp("setup_tree_with_parent_links", "C.mbpp_fixtures", before="runtime_error",
          text="Write a function to find the depth of a node from its parent links.",
          code="def depth(n):\n    d = 0\n    while n.parent is not None:\n        n = n.parent\n        d += 1\n"
               "    return d\n",
          tests=["assert depth(leaf) == 2", "assert depth(root) == 0"],
          setup="class Node:\n    def __init__(self, parent=None):\n        self.parent = parent\n"
                "        self.kids = []\n        if parent:\n            parent.kids.append(self)\n"
                "root = Node()\nleaf = Node(Node(root))\n"),
    _mbpp("long_linked_list_from_setup", "C.mbpp_fixtures", before="runtime_error",
          text="Write a function to count the nodes of a linked list.",
          code="def length(head):\n    n = 0\n    while head:\n        n += 1\n        head = head.next\n    return n\n",
          tests=["assert length(head) == 300"],
          setup="class Node:\n    def __init__(self, v, nxt=None):\n        self.v = v\n        self.next = nxt\n"
                "head = None\nfor i in range(300):\n    head = Node(i, head)\n"),
    _he("task_exception_class_with_attributes", "C.exceptions", before="runtime_error",
        prompt="class InvalidInput(ValueError):\n    code = 400\n\n\ndef check_positive(x: int) -> int:\n"
               "    \"\"\"x, or InvalidInput('negative') for x < 0.\"\"\"\n",
        completion="    if x < 0:\n        raise InvalidInput('negative')\n    return x\n",
        test="def check(candidate):\n    try:\n        candidate(-1)\n        assert False\n    except InvalidInput as e:\n"
             "        assert e.code == 400 and str(e) == 'negative'\n    assert candidate(2) == 2\n",
        entry_point="check_positive"),
    _mbpp("setup_object_attribute_keeps_identity", "C.mbpp_fixtures", before="failed",
          text="Write a function to add an item to a bag.",
          code="def add(bag, x):\n    bag.items.append(x)\n",
          tests=["items = b.items\nadd(b, 1)\nassert items == [1] and b.items == [1]"],
          setup="class Bag:\n    def __init__(self):\n        self.items = []\nb = Bag()\n"),
    _he("dataclass_with_initvar", "C.small_classes", before="failed",
        prompt="from dataclasses import InitVar, dataclass\n\n\n@dataclass\nclass Scaled:\n    x: int\n"
               "    scale: InitVar[int]\n\n    def __post_init__(self, scale):\n        self.x *= scale\n\n\n"
               "def make(x: int) -> Scaled:\n    \"\"\"Scaled(x, 1).\"\"\"\n",
        completion="    return Scaled(x, 1)\n",
        test="def check(candidate):\n    assert candidate(3) == Scaled(3, 1)\n    assert candidate(3) != Scaled(3, 2)\n",
        entry_point="make"),
]
