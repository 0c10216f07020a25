"""How a corpus problem becomes a HumanEval-layout task: prompt, reference, tests, and what is refused."""

import pytest

from coderl.tasks.corpus.define import Family, Scenario, render
from coderl.tasks.corpus.families import _example
from coderl.tasks.loaders.humaneval import humaneval_task


def test_function_problem_renders_signature_phrasing_examples_reference_and_tests():
    problem = next(p for p in _example.FAMILY.problems if p.name == "count_capitalised")
    row = render(problem)
    assert row["task_id"] == "corpus/example/count_capitalised" and row["entry_point"] == "count_capitalised"
    assert row["prompt"].startswith("def count_capitalised(sentence: str) -> int:\n    \"\"\"")
    assert any(" ".join(p.split())[:30] in " ".join(row["prompt"].split()) for p in problem.phrasings)
    assert "count_capitalised('Hello big World')" in row["prompt"]  # an example, with its output below it
    assert row["canonical_solution"] == "    return sum(1 for word in sentence.split() if word[0].isupper())\n"
    # expected values come from the reference: '   Spaced   out  Words ' has two capitalised words
    assert "    assert candidate('   Spaced   out  Words ') == 2\n" in row["test"]
    task = humaneval_task(row, "x")
    assert len(task.tests) == len(problem.tests) and all(t.check.value == "equals" for t in task.tests)


def test_class_problem_renders_scenarios_as_setup_and_one_assert_each():
    problem = next(p for p in _example.FAMILY.problems if p.name == "CappedCounter")
    row = render(problem)
    assert row["prompt"].startswith("class CappedCounter:\n")
    assert ">>> c = CappedCounter(5)\n    >>> c.add(3)\n    >>> c.value()\n    3\n" in row["prompt"]
    assert row["canonical_solution"].startswith("    def __init__(self, limit: int):\n")
    assert ("    obj = candidate(3)\n    obj.add(1)\n    obj.add(1)\n    r0 = obj.value()\n    obj.add(5)\n"
            "    r1 = obj.value()\n    assert [r0, r1] == [2, 3]\n") in row["test"]
    assert len(humaneval_task(row, "x").tests) == 4


def _family():
    return Family("t", "test family")


def test_refusals_name_the_problem():
    fam = _family()

    @fam.problem("Return x.", examples=[(1,)], tests=[(1,), (2,), (3,)])
    def three_tests(x: int) -> int:
        return x

    @fam.problem("Return 7.", examples=[(1,)], tests=[(1,), (2,), (3,), (4,)])
    def constant(x: int) -> int:
        return 7

    @fam.problem("Half.", examples=[(1,)], tests=[(1,), (2,), (3,), (4,)])
    def third(x: int) -> float:
        return x / 3

    @fam.problem("A set.", examples=[(1,)], tests=[(1,), (2,), (3,), (4,)])
    def as_object(x: int) -> object:
        return object()

    @fam.problem("Doc.", examples=[(1,)], tests=[(1,), (2,), (3,), (4,)])
    def documented(x: int) -> int:
        """Not allowed: the phrasings are the docstring."""
        return x

    messages = {"three_tests": r"3 tests \(at least 4\)", "constant": "a constant answer would pass",
                "third": "more than 6 decimals", "as_object": "not a Python literal",
                "documented": "has a docstring"}
    for problem in fam.problems:
        with pytest.raises(ValueError, match=messages[problem.name]):
            render(problem)


def test_arguments_are_copied_so_a_mutating_reference_cannot_change_later_tests():
    fam = _family()

    @fam.problem("Pop the last item and return the rest.", examples=[([1, 2],)],
                 tests=[([1],), ([1, 2, 3],), ([5, 5],), ([0, 9, 8],)])
    def drop_last(xs: list[int]) -> list[int]:
        xs.pop()
        return xs

    assert "assert candidate([1, 2, 3]) == [1, 2]" in render(fam.problems[0])["test"]


def test_a_class_scenario_without_a_query_is_refused():
    fam = _family()

    @fam.class_problem("Box.", examples=[Scenario((), (("put", 1), ("get",)))],
                       tests=[Scenario((), (("put", 1),))] * 4, queries=("get",))
    class Box:
        def __init__(self):
            self.items = []

        def put(self, x):
            self.items.append(x)

        def get(self):
            return self.items[-1]

    with pytest.raises(ValueError, match="Box test 0: not a Scenario calling a query method"):
        render(fam.problems[0])
