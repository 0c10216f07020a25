"""Mutants of a reference: which edits exist, where, and that each one compiles and changes the code."""

import ast

import pytest

from coderl.tasks.corpus.mutants import mutants
from coderl.tasks.types import Task


def _task(prompt: str, solution: str, entry: str = "f") -> Task:
    return Task("t/0", "function", prompt, (), entry_point=entry, reference_solution=solution)


def test_mutants_of_a_small_function_in_source_order():
    task = _task('def f(xs, k):\n    """Count even items above k; 0 for an empty list."""\n',
                 "    if not xs:\n        return 0\n    return sum(1 for x in xs if x > k and x % 2 == 0)\n")
    got = [(m.operator, m.line, m.description) for m in mutants(task)]
    assert got == [
        ("edge_case", 1, "guard deleted"),              # `if not xs: return 0` removed
        ("branch", 1, "unary operator dropped"),        # `if xs:` (negating `not xs` would be the same)
        ("constant", 2, "0 -> 1"), ("constant", 2, "0 -> -1"),
        ("constant", 3, "1 -> 2"), ("constant", 3, "1 -> 0"),
        ("branch", 3, "comprehension filter 1 negated"),
        ("branch", 3, "And -> Or"),
        ("edge_case", 3, "operand 1 of And dropped"), ("edge_case", 3, "operand 2 of And dropped"),
        ("off_by_one", 3, "Gt -> GtE"),
        ("branch", 3, "Eq -> NotEq"),
        ("arithmetic", 3, "Mod -> FloorDiv"),
        ("constant", 3, "2 -> 3"), ("constant", 3, "2 -> 1"),
        ("constant", 3, "0 -> 1"), ("constant", 3, "0 -> -1"),
    ]


def test_every_mutant_compiles_differs_and_leaves_the_docstring_alone():
    task = _task('def g(s):\n    """Keep 1 char: x."""\n',
                 "    out = []\n    for i in range(len(s)):\n        if s[i] != 'x':\n"
                 "            out.append(s[i].upper())\n    return ''.join(sorted(out))\n", "g")
    found = mutants(task)
    texts = [m.completion for m in found]
    assert len(texts) == len(set(texts))
    original = ast.unparse(ast.parse(task.prompt + task.reference_solution))
    for m in found:
        program = task.prompt + m.completion
        compile(program, "<mutant>", "exec")
        assert ast.unparse(ast.parse(program)) != original
        assert '"""Keep 1 char: x."""' in program
    ops = {m.description for m in found}
    assert {"range stop - 1", "range stop + 1", "sorted(x) -> x", ".upper() dropped", "'x' -> 'a'",
            "NotEq -> Eq"} <= ops


def test_class_references_are_mutated_inside_their_methods():
    task = _task('class C:\n    """A counter."""\n',
                 "    def __init__(self):\n        self.n = 0\n\n    def bump(self, k):\n"
                 "        self.n = max(0, self.n + k)\n        return self.n\n", "C")
    got = [(m.operator, m.description) for m in mutants(task)]
    assert got == [("constant", "0 -> 1"), ("constant", "0 -> -1"), ("branch", "max -> min"),
                   ("constant", "0 -> 1"), ("constant", "0 -> -1"), ("arithmetic", "Add -> Sub")]


def test_a_task_without_reference_is_refused():
    with pytest.raises(ValueError, match="no reference"):
        mutants(_task("def f():\n    pass\n", ""))


def test_mbpp_layout_mutates_the_whole_reference():
    task = _task('"""Write a function that doubles x."""\n', "def double(x):\n    return x * 2\n", "double")
    got = [(m.description, m.completion) for m in mutants(task)]
    assert got == [("Mult -> Add", "def double(x):\n    return x + 2\n"),
                   ("2 -> 3", "def double(x):\n    return x * 3\n"),
                   ("2 -> 1", "def double(x):\n    return x * 1\n")]
