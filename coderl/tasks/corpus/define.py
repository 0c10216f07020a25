"""How a corpus problem is written, and how it becomes a HumanEval-layout row.

A problem is a real Python function (or class) in a family module, with its description and the
arguments of its examples and tests given to a decorator:

    text = Family("text", "strings: counting, cleaning, transforming")

    @text.problem(
        "Return how many words of `sentence` start with a capital letter.",
        "Count the words in sentence whose first character is upper case. ...",
        examples=[("Hello World",)],
        tests=[("",), ("a B c D",), ("ALL CAPS here",), ("  spaced   Out ",)],
    )
    def count_capitalised(sentence: str) -> int:
        return sum(1 for w in sentence.split() if w[0].isupper())

The function's signature is the prompt's, one of the phrasings (chosen by a hash of the name)
is its docstring, the examples are rendered in one of three example styles (also by hash) with
their outputs computed by calling the function, and the function's body is the reference solution.
Each test is `assert candidate(ARGS) == EXPECTED` with EXPECTED computed the same way; so the
reference passes by construction and nobody types an expected value by hand.

A class problem (`Family.class_problem`) gives scenarios instead of argument tuples: constructor
arguments and a list of calls; the calls named in `queries` are checked, in order, in one assert
per scenario (`obj = candidate(...)`, the calls, `assert [r0, r1] == [...]`).

The reference must be self-contained (imports inside the body; no module-level helpers), have no
docstring of its own, and be deterministic; `render` checks what it can and raises `ValueError`.
"""

from __future__ import annotations

import ast
import copy
import hashlib
import inspect
import textwrap
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

MIN_TESTS = 4
_WIDTH = 92


def stable_hash(text: str) -> int:
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big")


@dataclass(frozen=True)
class Scenario:
    """One use of a class: constructor arguments, then calls `(method, arg, ...)`."""

    args: tuple
    calls: tuple[tuple, ...]


@dataclass(frozen=True)
class Problem:
    family: str
    name: str
    obj: Any  # the reference function or class
    phrasings: tuple[str, ...]
    examples: tuple  # argument tuples, or Scenarios for a class
    tests: tuple
    queries: tuple[str, ...] = ()  # class problems: the methods whose results are checked
    imports: str = ""  # lines the prompt starts with (e.g. "import math\n")
    level: int = 2  # 1 = warm-up (a line or three, within reach of a ~135M model), 2 = standard

    @property
    def is_class(self) -> bool:
        return inspect.isclass(self.obj)


@dataclass
class Family:
    """A family of problems (one module in `coderl.tasks.corpus.families`)."""

    name: str
    description: str
    problems: list[Problem] = field(default_factory=list)

    def problem(self, *phrasings: str, examples: Sequence[tuple | Scenario], tests: Sequence[tuple | Scenario],
                queries: Sequence[str] = (), imports: str = "", level: int = 2):
        """Register the decorated function (argument tuples) or class (Scenarios, and the `queries` whose
        results are checked) as a problem."""
        def register(obj: Callable) -> Callable:
            self.problems.append(Problem(self.name, obj.__name__, obj, tuple(phrasings), tuple(examples),
                                         tuple(tests), tuple(queries), imports, level))
            return obj

        return register

    class_problem = problem  # the name a class problem is written with


# ---------------------------------------------------------------- running the reference


def call(problem: Problem, args: tuple) -> Any:
    """The reference's output for one argument tuple (arguments deep-copied: it may mutate them)."""
    return problem.obj(*copy.deepcopy(args))


def play(problem: Problem, scenario: Scenario) -> list[Any]:
    """The results of a scenario's query calls."""
    obj = problem.obj(*copy.deepcopy(scenario.args))
    results = []
    for method, *args in scenario.calls:
        out = getattr(obj, method)(*copy.deepcopy(tuple(args)))
        if method in problem.queries:
            results.append(copy.deepcopy(out))
    return results


def _literal(value: Any, where: str) -> str:
    text = repr(value)
    try:
        back = ast.literal_eval(text)
    except (ValueError, SyntaxError):
        raise ValueError(f"{where}: {text[:60]} is not a Python literal (return plain values)") from None
    if back != value or type(back) is not type(value):
        raise ValueError(f"{where}: {text[:60]} does not survive repr -> literal_eval")
    if isinstance(value, float) and value != round(value, 6):
        raise ValueError(f"{where}: float {text} has more than 6 decimals (round it and say so)")
    return text


def _args(args: tuple, where: str) -> str:
    if not isinstance(args, tuple):
        raise ValueError(f"{where}: arguments must be a tuple, got {type(args).__name__}")
    return ", ".join(_literal(a, where) for a in args)


# ---------------------------------------------------------------- source text


def _source(problem: Problem) -> tuple[str, str]:
    """(header lines up to and including the `def`/`class` line's colon, body) of the reference."""
    text = textwrap.dedent(inspect.getsource(problem.obj))
    node = ast.parse(text).body[0]
    assert isinstance(node, (ast.FunctionDef, ast.ClassDef))
    body = node.body
    if ast.get_docstring(node, clean=False) is not None:
        raise ValueError(f"{problem.name}: the reference has a docstring; give the description as phrasings")
    lines = text.splitlines(keepends=True)
    header = "".join(lines[node.lineno - 1 : body[0].lineno - 1])
    solution = "".join(lines[body[0].lineno - 1 : node.end_lineno])
    return header, solution


def _wrap(paragraph: str, indent: str) -> str:
    out = []
    for para in paragraph.strip().split("\n\n"):
        out.append(textwrap.fill(" ".join(para.split()), _WIDTH - len(indent), initial_indent=indent,
                                 subsequent_indent=indent))
    return ("\n" + indent + "\n").join(out).replace(indent + "\n", "\n") + "\n"


def _example_lines(problem: Problem, indent: str) -> list[str]:
    style = stable_hash("style:" + problem.name) % 3
    lines: list[str] = []
    if problem.is_class:
        for k, sc in enumerate(problem.examples):
            results = iter(play(problem, sc))
            var = problem.name[0].lower() if problem.name[0].lower() != "i" else "obj"
            lines.append(f">>> {var} = {problem.name}({_args(sc.args, problem.name)})")
            for method, *args in sc.calls:
                lines.append(f">>> {var}.{method}({_args(tuple(args), problem.name)})")
                if method in problem.queries:
                    lines.append(_literal(next(results), problem.name))
            if k + 1 < len(problem.examples):
                lines.append("")
        return [indent + x if x else "" for x in lines]
    pairs = [(f"{problem.name}({_args(a, problem.name)})", _literal(call(problem, a), problem.name))
             for a in problem.examples]
    if style == 0:
        for c, r in pairs:
            lines += [f">>> {c}", r]
    elif style == 1:
        lines.append("Examples:")
        lines += [f"    {c} -> {r}" for c, r in pairs]
    else:
        lines.append("For example:")
        lines += [f"    {c} == {r}" for c, r in pairs]
    return [indent + x for x in lines]


def phrasing(problem: Problem) -> str:
    return problem.phrasings[stable_hash("phrasing:" + problem.name) % len(problem.phrasings)]


def render_prompt(problem: Problem) -> tuple[str, str]:
    """(prompt, reference solution) in HumanEval layout."""
    header, solution = _source(problem)
    indent = " " * (len(solution) - len(solution.lstrip(" ")))
    doc = _wrap(phrasing(problem), indent).rstrip("\n")
    examples = _example_lines(problem, indent)
    docstring = f'{indent}"""{doc.lstrip()}\n\n' + "\n".join(examples) + f'\n{indent}"""\n'
    return problem.imports + header + docstring, solution


def render_test(problem: Problem) -> str:
    """The `check(candidate)` text (of a problem `validate` passed)."""
    lines = ["def check(candidate):"]
    for k, test in enumerate(problem.tests):
        where = f"{problem.name} test {k}"
        if problem.is_class:
            lines.append(f"    obj = candidate({_args(test.args, where)})")
            names = []
            for method, *args in test.calls:
                if method in problem.queries:
                    names.append(f"r{len(names)}")
                    lines.append(f"    {names[-1]} = obj.{method}({_args(tuple(args), where)})")
                else:
                    lines.append(f"    obj.{method}({_args(tuple(args), where)})")
            lines.append(f"    assert [{', '.join(names)}] == {_literal(play(problem, test), where)}")
        else:
            lines.append(f"    assert candidate({_args(test, where)}) == {_literal(call(problem, test), where)}")
    return "\n".join(lines) + "\n"


def validate(problem: Problem) -> None:
    """What `render` cannot enforce by construction: enough tests, determinism, outputs that differ."""
    where = f"{problem.family}/{problem.name}"
    if not problem.phrasings:
        raise ValueError(f"{where}: no phrasing")
    if problem.level not in (1, 2):
        raise ValueError(f"{where}: level {problem.level!r} (expected 1 = warm-up or 2 = standard)")
    if len(problem.tests) < MIN_TESTS:
        raise ValueError(f"{where}: {len(problem.tests)} tests (at least {MIN_TESTS})")
    if not problem.examples:
        raise ValueError(f"{where}: no example")
    if problem.is_class:
        for k, test in enumerate(problem.tests):
            if not isinstance(test, Scenario) or not any(c[0] in problem.queries for c in test.calls):
                raise ValueError(f"{where} test {k}: not a Scenario calling a query method "
                                 f"({', '.join(problem.queries)})")
    run = play if problem.is_class else call
    outputs = [run(problem, t) for t in problem.tests]
    for k, output in enumerate(outputs):
        _literal(output, f"{where} test {k}")
    if outputs != [run(problem, t) for t in problem.tests]:
        raise ValueError(f"{where}: the reference is not deterministic")
    if len({repr(o) for o in outputs}) < 2:
        raise ValueError(f"{where}: every test expects {outputs[0]!r} (a constant answer would pass)")
    if len({repr(t) for t in problem.tests}) != len(problem.tests):
        raise ValueError(f"{where}: a test is repeated")


def render(problem: Problem) -> dict[str, Any]:
    """The HumanEval-layout row of a problem, plus `family`."""
    validate(problem)
    prompt, solution = render_prompt(problem)
    return {
        "task_id": f"corpus/{problem.family}/{problem.name}",
        "prompt": prompt,
        "canonical_solution": solution,
        "test": render_test(problem),
        "entry_point": problem.name,
        "family": problem.family,
    }
