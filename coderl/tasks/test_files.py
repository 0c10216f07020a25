"""The test-file task kind (`test_file`): the reply is a Python module (`solution`), judged by a pytest-style
test file that imports it (KodCode's layout: `coderl.tasks.loaders.kodcode`).

What runs where (docs/tasks.md, "Test files"):

  * the program is the completion, the module's whole text, run in the program process (Mode.PYTHON_TESTS);
  * the test file never reaches that process.  It is read at load, with `ast` (`coderl.tasks.pytest_files`): its
    imports of the solution module are taken out (`from solution import a, b`, `from solution import *`;
    `solution.a(...)` becomes `a(...)`), and what is left (helpers, fixtures, test functions, `Test*` classes,
    wrapped so that the judge never hands their source to the program) becomes the test preamble, after the runner
    (`coderl.tasks.pytest_runner`);
  * every test function, `Test*` class method and parametrised case is one ASSERT test, `__coderl_pytest__.run(name,
    case, count)`, run by the judge in its own interpreter: the names the file took from the solution are the
    program's (data by value, callables as proxies, `==` on a program object is identity, exits and exceptions as
    in function tasks), and nothing the program does reaches the runner or its `pytest` stand-in.

What the file may use is what KodCode's files use (counted in docs/tasks.md): plain asserts, `pytest.raises` (with
`match=`, as a context manager or the callable form), `pytest.approx`, `pytest.mark.parametrize` over a literal list
of cases (`pytest.param` without marks), `@pytest.fixture` functions (plain or `yield`, on other fixtures,
`autouse`) and the builtin `tmp_path`, `Test*` classes with `setup_method`/`teardown_method`.  Anything else a
test needs is refused at load, in one line naming the row and the construct (`TestFileError`): a fixture it does not
know (monkeypatch, capsys, ...), `mock`, a skip or xfail mark, a test that skips unconditionally, parametrize over
a list it cannot count, `unittest.TestCase` classes, other uses of the solution module, a test that captures or
feeds standard streams (the program prints and reads in its own process), what would change where the judge
imports or set state meant for the program, tests hidden in compound statements (`coderl.tasks.pytest_checks`),
and a file that binds a name the solution provides (`shadowed`; `check_task`, for every layout).
"""

from __future__ import annotations

import ast
import functools
import textwrap

from coderl.sandbox.types import ExecutionRequest, Limits, Mode, TestCase
from coderl.tasks.kinds import TaskKind, register_kind
from coderl.tasks.pytest_files import convert

KIND = "test_file"


def file_tests(text: str) -> tuple[TestCase, ...]:
    """One ASSERT test per collected test and parametrised case of a test file: the runner's call."""
    return tuple(TestCase(id=tid, source=f"__coderl_pytest__.run({name!r}, {i}, {count})")
                 for tid, name, i, count in convert(text).tests)


def test_source(text: str, test_id: str) -> str:
    """A test as repair feedback shows it: its function's (or `Test*` method's) source in the file, and its case
    (`# case 2 of 4`); the id itself where the file or the test is not found."""
    name, _, case = test_id.partition("[")
    owner, _, method = name.rpartition("::")
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return test_id
    scope = tree.body
    if owner:
        scope = next((n.body for n in tree.body if isinstance(n, ast.ClassDef) and n.name == owner), [])
    node = None
    for n in scope:
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name == (method or name):
            node = n  # the last definition of the name, as pytest collects it
    if node is None:
        return test_id
    start = min([node.lineno] + [d.lineno for d in node.decorator_list])
    source = "\n".join(text.splitlines()[start - 1: node.end_lineno])
    source = textwrap.dedent(source)
    return source + (f"\n# case {case.rstrip(']')}" if case else "")


@functools.lru_cache(maxsize=256)
def _reference_names(reference: str | None) -> tuple[str, ...]:
    """The top-level functions, classes and plainly assigned names of the reference module: what a file's
    `from solution import *` takes from the program (its imports are not: the judge gives its own modules)."""
    try:
        tree = ast.parse(reference or "")
    except (SyntaxError, ValueError):
        return ()
    names: list[str] = []
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.append(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names += [t.id for t in targets if isinstance(t, ast.Name)]
    return tuple(names)


def program_names(task) -> tuple[str, ...]:
    """The names the judge may take from the program: those the file imports from the solution module, and the
    reference module's own definitions (`_reference_names`), plus the functions the task names (`metadata`)."""
    named = task.metadata.get("functions") if isinstance(task.metadata.get("functions"), list) else []
    own = [n for n in named if isinstance(n, str) and n.isidentifier()]
    return tuple(sorted({*convert(task.test_preamble).names, *_reference_names(task.reference_solution), *own}))


def shadowed(text: str, functions, reference: str | None) -> str | None:
    """The name the solution is to provide that the test file binds itself (a pasted-in solution, a fallback
    definition under `try`/`if`): one it imports from the solution, or `test_info` names (`functions`), or, where
    every top-level function and class of the reference is one the file binds, the first of them; None when the
    tests use the program's.  A helper class both define (a `TreeNode`) is the tests' own unless so named."""
    converted = convert(text)
    own = set(converted.defines)
    for name in (*converted.names, *converted.bound, *functions):
        if name in own:
            return name
    defined = [n for n in _reference_definitions(reference)]
    return defined[0] if defined and set(defined) <= own else None


@functools.lru_cache(maxsize=256)
def _reference_definitions(reference: str | None) -> tuple[str, ...]:
    try:
        tree = ast.parse(reference or "")
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return ()
    return tuple(n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)))


def check_task(task) -> str | None:
    """Why a test-file task cannot be judged (any layout: a KodCode row, coderl's own `kind: test_file` row), or
    None: the file binds a name the solution provides (`shadowed`), or its `tests` are not the ones its file gives
    (a test the file holds would never run, or one it does not hold would fail)."""
    named = task.metadata.get("functions") if isinstance(task.metadata.get("functions"), list) else []
    name = shadowed(task.test_preamble, [n for n in named if isinstance(n, str)], task.reference_solution)
    if name:
        return (f"the test file defines {name} itself (its tests would never call the program's: any reply would "
                "pass)")
    given = file_tests(task.test_preamble)
    if tuple(task.tests) != given:
        return (f"field 'tests' is not what the test file gives ({len(task.tests)} tests; the file gives "
                f"{len(given)}: {', '.join(t.id for t in given[:5])}{', ...' if len(given) > 5 else ''})")
    return None


def _request(task, completion: str, limits: Limits, tests: tuple) -> ExecutionRequest:
    if task.language != "python":
        raise ValueError(f"task {task.task_id}: a test_file task is Python (not {task.language})")
    converted = convert(task.test_preamble)
    names = program_names(task)
    classes = tuple(n for n in _reference_classes(task.reference_solution) if n in names)
    return ExecutionRequest(mode=Mode.PYTHON_TESTS, program=completion, program_names=names, task_classes=classes,
                            test_preamble=converted.preamble, tests=tests, limits=limits)


@functools.lru_cache(maxsize=256)
def _reference_classes(reference: str | None) -> tuple[str, ...]:
    """The reference module's top-level classes: the classes the task asks for (their instances compare and operate
    by the program's own methods, as in pytest)."""
    try:
        tree = ast.parse(reference or "")
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return ()
    return tuple(n.name for n in tree.body if isinstance(n, ast.ClassDef))


TEST_FILE = register_kind(TaskKind(
    name=KIND, prompt_is_code=False,
    instruction="Solve the following problem with a complete {language} module. Its tests import it as `solution` "
                "(`from solution import ...`): define every function and class the problem names, at the top level. "
                "Reply with the module in one ```{tag} code block.",
    build_program=lambda task, completion: completion,
    build_request=_request,
))
