"""Reading a pytest-style test file at load, for the test-file kind (`coderl.tasks.test_files`): `convert` parses it
with `ast`, takes the solution module's imports out, refuses what coderl's runner (`coderl.tasks.pytest_runner`)
cannot run honestly, counts the tests and their parametrised cases, and gives the preamble the judge runs.  Every
refusal is a `TestFileError` naming the construct and its line, which the loaders put on one line with the row.
"""

from __future__ import annotations

import ast
import functools
from dataclasses import dataclass

from coderl.tasks.pytest_checks import Refused, check, module_bindings
from coderl.tasks.pytest_runner import RUNNER

MODULE = "solution"  # the module name the test files import the reply as
BUILTIN_FIXTURES = frozenset({"tmp_path"})
# pytest's builtin fixtures the runner does not give: each would judge the judge's own process, not the program's
# (capsys, caplog: its output and logs), patch what the program never sees (monkeypatch), or needs pytest itself
REFUSED_FIXTURES = frozenset({"monkeypatch", "capsys", "capsysbinary", "capfd", "capfdbinary", "caplog", "request",
                              "mocker", "tmpdir", "tmpdir_factory", "tmp_path_factory", "pytestconfig", "recwarn",
                              "record_property", "record_testsuite_property", "doctest_namespace", "cache",
                              "testdir", "pytester", "subtests"})
PYTEST_NAMES = frozenset({"raises", "approx", "fixture", "mark", "param", "fail", "skip", "importorskip", "main"})
SKIP_MARKS = frozenset({"skip", "skipif", "xfail", "usefixtures"})
MAX_CASES = 1000  # parametrised cases of one test function
CAPTURES = frozenset({"redirect_stdout", "redirect_stderr"})  # contextlib's: they would capture the judge's own output


class TestFileError(ValueError):
    """A test file the kind cannot run: the message names the construct (and its line)."""

    __test__ = False  # not a pytest test class


@dataclass(frozen=True)
class Converted:
    preamble: str  # the runner, then the file without its imports of the solution module
    names: tuple[str, ...]  # the names the file takes from the solution module by name
    tests: tuple[tuple[str, str, int, int], ...]  # (id, runner name, case index, cases counted)
    # the names the file binds in its module namespace (its own functions, classes, values; compound statements too)
    defines: tuple[str, ...] = ()
    bound: tuple[str, ...] = ()  # the names the file's `from solution import ...` binds (as-names included)


def _line(node: ast.AST) -> str:
    return f"line {getattr(node, 'lineno', '?')}"


def _is_pytest(node: ast.AST, aliases: set[str], attr: str | None = None) -> bool:
    """`pytest.ATTR` (or any `pytest.X` when attr is None), `pytest` being bound under one of `aliases`."""
    return (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in aliases
            and (attr is None or node.attr == attr))


class _Rewrite(ast.NodeTransformer):
    """Takes the solution module's imports out (recording the names), `solution.x` -> `x`, `import pytest` out
    (the runner's stand-in is bound already) and `from pytest import x` -> `x = pytest.x`; refuses what the
    runner cannot honour."""

    def __init__(self):
        self.names: list[str] = []
        self.bound: list[str] = []  # the names `from solution import` binds (`b` of `a as b`)
        self.star = False
        self.modules: set[str] = set()  # the names the solution module is bound to
        self.pytest = {"pytest"}

    def visit_Import(self, node: ast.Import):
        keep, bind = [], []
        for alias in node.names:
            top = alias.name.split(".")[0]
            if alias.name == MODULE:
                self.modules.add(alias.asname or MODULE)
            elif alias.name == "pytest":
                if alias.asname and alias.asname != "pytest":  # the stand-in under the file's name for it
                    self.pytest.add(alias.asname)
                    bind.append(ast.Assign([ast.Name(alias.asname, ast.Store())], ast.Name("pytest", ast.Load())))
            elif top in ("mock", "unittest") and (alias.name != "unittest" or alias.asname):
                raise TestFileError(f"{_line(node)}: 'import {alias.name}' (mock cannot reach the program's process)")
            elif top in ("solution", "conftest", "_pytest"):
                raise TestFileError(f"{_line(node)}: 'import {alias.name}' is not supported")
            else:
                keep.append(alias)
        out = [ast.copy_location(s, node) for s in bind]
        if keep:
            node.names = keep
            return [node, *out]
        return out or ast.copy_location(ast.Pass(), node)

    def visit_ImportFrom(self, node: ast.ImportFrom):
        module = node.module or ""
        if node.level == 0 and module == MODULE:
            out: list[ast.stmt] = []
            for alias in node.names:
                if alias.name == "*":
                    self.star = True
                    continue
                self.names.append(alias.name)
                self.bound.append(alias.asname or alias.name)
                if alias.asname and alias.asname != alias.name:
                    out.append(ast.Assign([ast.Name(alias.asname, ast.Store())], ast.Name(alias.name, ast.Load())))
            return [ast.copy_location(s, node) for s in out] or ast.copy_location(ast.Pass(), node)
        if node.level == 0 and module == "pytest":
            out = []
            for alias in node.names:
                if alias.name not in PYTEST_NAMES:
                    raise TestFileError(f"{_line(node)}: 'from pytest import {alias.name}' is not supported")
                out.append(ast.Assign([ast.Name(alias.asname or alias.name, ast.Store())],
                                      ast.Attribute(ast.Name("pytest", ast.Load()), alias.name, ast.Load())))
            return [ast.copy_location(s, node) for s in out]
        if node.level or module.split(".")[0] in (MODULE, "mock", "conftest", "_pytest") or module == "unittest.mock" \
                or (module == "unittest" and any(a.name == "mock" for a in node.names)):
            what = "mock cannot reach the program's process" if "mock" in module or module == "unittest" else \
                "not supported"
            raise TestFileError(f"{_line(node)}: 'from {'.' * node.level}{module} import ...' ({what})")
        return node

    def visit_Attribute(self, node: ast.Attribute):
        if isinstance(node.value, ast.Name) and node.value.id in self.modules:
            raise TestFileError(f"{_line(node)}: {node.value.id}.{node.attr} used other than as the callee of a call "
                                f"({node.value.id}.{node.attr}(...)): the judge holds the program's values as they "
                                "were when the tests started, never its module's live attributes")
        if _is_pytest(node, self.pytest) and node.attr not in PYTEST_NAMES:
            raise TestFileError(f"{_line(node)}: pytest.{node.attr} is not supported")
        if _is_pytest(node.value, self.pytest, "mark") and node.attr in SKIP_MARKS:
            why = "a skipped test never counts as passed" if node.attr != "usefixtures" else "name the fixture as an " \
                "argument"
            raise TestFileError(f"{_line(node)}: pytest.mark.{node.attr} is not supported ({why})")
        self.generic_visit(node)
        return node

    def visit_Call(self, node: ast.Call):
        func = node.func
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id in self.modules:
            self.names.append(func.attr)  # `solution.f(...)` -> `f(...)`: the program's f, called
            node.func = ast.copy_location(ast.Name(func.attr, ast.Load()), func)
        if (func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")) in CAPTURES:
            raise TestFileError(f"{_line(node)}: the test captures standard output or error (the program prints in "
                                "its own process: nothing here can capture it)")
        self.generic_visit(node)
        return node

    def visit_Assign(self, node: ast.Assign):
        for target in node.targets:
            if isinstance(target, ast.Attribute) and target.attr in ("stdout", "stderr", "stdin") and isinstance(
                    target.value, ast.Name) and target.value.id == "sys":
                raise TestFileError(f"{_line(node)}: the test replaces sys.{target.attr} (the program reads and "
                                    "prints in its own process: nothing here can capture or feed it)")
        self.generic_visit(node)
        return node

    def visit_Name(self, node: ast.Name):
        if node.id in self.modules:
            raise TestFileError(f"{_line(node)}: the module object '{node.id}' is used other than as "
                                f"'{node.id}.name' (not supported)")
        return node


def _parametrize(func: ast.FunctionDef, pytest_names: set[str]) -> tuple[int, set[str]]:
    """(the number of cases its parametrize marks give, the argument names they fill)."""
    count, filled = 1, set()
    for deco in func.decorator_list:
        call = deco if isinstance(deco, ast.Call) else None
        target = call.func if call else deco
        if not (isinstance(target, ast.Attribute) and target.attr == "parametrize"
                and (_is_pytest(target.value, pytest_names, "mark")
                     or isinstance(target.value, ast.Name) and target.value.id == "mark")):
            continue
        if call is None:
            raise TestFileError(f"{_line(deco)}: parametrize without its argument names and values")
        if any(k.arg in ("indirect", "scope") for k in call.keywords):
            raise TestFileError(f"{_line(deco)}: parametrize with indirect= or scope= is not supported")
        given = {**dict(zip(("argnames", "argvalues"), call.args)), **{k.arg: k.value for k in call.keywords if k.arg}}
        if "argnames" not in given or "argvalues" not in given:
            raise TestFileError(f"{_line(deco)}: parametrize without its argument names and values")
        names, values = given["argnames"], given["argvalues"]
        try:
            argnames = ast.literal_eval(names)
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            raise TestFileError(f"{_line(deco)}: parametrize argument names that are not a literal") from None
        if isinstance(argnames, str):
            argnames = [n.strip() for n in argnames.split(",") if n.strip()]
        if not isinstance(argnames, (list, tuple)) or not argnames or not all(
                isinstance(n, str) and n.isidentifier() for n in argnames):
            raise TestFileError(f"{_line(deco)}: parametrize argument names {ast.unparse(names)[:60]} (expected "
                                "'a, b' or a list of names)")
        if not isinstance(values, (ast.List, ast.Tuple)) or any(isinstance(e, ast.Starred) for e in values.elts):
            raise TestFileError(f"{_line(deco)}: parametrize over values that are not a literal list (the cases "
                                "cannot be counted at load)")
        for elt in values.elts:
            if isinstance(elt, ast.Call) and _is_pytest(elt.func, pytest_names, "param") and elt.keywords and any(
                    k.arg == "marks" for k in elt.keywords):
                raise TestFileError(f"{_line(elt)}: pytest.param with marks= is not supported")
        twice = sorted({n for n in argnames if list(argnames).count(n) > 1} | (set(argnames) & filled))
        if twice:  # pytest: "duplicate parametrization of 'x'", a collection error
            raise TestFileError(f"{_line(deco)}: parametrize names {twice[0]!r} twice (pytest refuses it at "
                                "collection)")
        count *= len(values.elts)
        filled |= set(argnames)
    if count > MAX_CASES:
        raise TestFileError(f"{_line(func)}: {func.name} has {count} parametrized cases (at most {MAX_CASES})")
    return count, filled


def _is_fixture(func: ast.AST, pytest_names: set[str]) -> bool:
    for deco in getattr(func, "decorator_list", ()):
        target = deco.func if isinstance(deco, ast.Call) else deco
        if _is_pytest(target, pytest_names, "fixture") or isinstance(target, ast.Name) and target.id == "fixture":
            if isinstance(deco, ast.Call) and any(k.arg == "params" or k.arg == "scope" and not (
                    isinstance(k.value, ast.Constant) and k.value.value == "function") for k in deco.keywords):
                raise TestFileError(f"{_line(deco)}: fixture {func.name!r} with params= or a scope other than "
                                    "'function' is not supported")
            return True
    return False


def _fixture_name(func: ast.FunctionDef) -> str:
    """The name tests ask for a fixture by: its `name=` (`@pytest.fixture(name="base")`), else the function's."""
    for deco in func.decorator_list:
        for k in deco.keywords if isinstance(deco, ast.Call) else ():
            if k.arg == "name":
                if not (isinstance(k.value, ast.Constant) and isinstance(k.value.value, str)):
                    raise TestFileError(f"{_line(deco)}: fixture name= that is not a string literal")
                return k.value.value
    return func.name


def _skips_unconditionally(func: ast.FunctionDef, pytest_names: set[str]) -> bool:
    """Whether the test's body calls pytest.skip as one of its own statements (not under an `if`)."""
    return any(isinstance(s, ast.Expr) and isinstance(s.value, ast.Call)
               and _is_pytest(s.value.func, pytest_names, "skip") for s in func.body)


def _collect(tree: ast.Module, fixtures: set[str], pytest_names: set[str]) -> list[tuple[str, ast.FunctionDef]]:
    """(runner name, function) of every test pytest collects from the module: `test*` functions, and `test*` methods
    of `Test*` classes (without an `__init__`); a later definition of a name replaces an earlier one."""
    found: dict[str, tuple[str, ast.FunctionDef]] = {}
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name.startswith("test"):
            if _is_fixture(node, pytest_names):  # a fixture named test*: pytest does not collect it as a test
                found.pop(node.name, None)
                continue
            found[node.name] = (node.name, node)
        elif isinstance(node, ast.ClassDef) and node.name.startswith("Test"):
            if node.keywords or any(not (isinstance(b, ast.Name) and b.id == "object") for b in node.bases):
                raise TestFileError(f"{_line(node)}: test class {node.name} has a base class (unittest.TestCase "
                                    "classes are not supported)")
            if node.decorator_list:
                raise TestFileError(f"{_line(node)}: test class {node.name} is decorated (marks on a class are not "
                                    "supported)")
            methods = {m.name: m for m in node.body if isinstance(m, (ast.FunctionDef, ast.AsyncFunctionDef))}
            if "__init__" in methods:
                continue  # pytest does not collect it either
            for name in ("setup_class", "teardown_class", "setup", "teardown"):
                if name in methods:
                    raise TestFileError(f"{_line(methods[name])}: {node.name}.{name} is not supported")
            for m in methods.values():
                if _is_fixture(m, pytest_names):
                    raise TestFileError(f"{_line(m)}: fixture {m.name!r} inside class {node.name} is not supported")
            found.update({f"{node.name}::{m.name}": (f"{node.name}::{m.name}", m)
                          for m in methods.values() if m.name.startswith("test")})
        elif isinstance(node, ast.FunctionDef) and node.name in ("setup_module", "teardown_module", "setup_function",
                                                                   "teardown_function"):
            raise TestFileError(f"{_line(node)}: {node.name} is not supported")
    return list(found.values())


def _check_test(name: str, func: ast.AST, fixtures: set[str], pytest_names: set[str]) -> int:
    """The number of cases of one collected test; a test the runner cannot run honestly is refused."""
    if isinstance(func, ast.AsyncFunctionDef) or any(isinstance(n, (ast.Yield, ast.YieldFrom)) for n in ast.walk(func)
                                                     if not isinstance(n, ast.Lambda)):
        raise TestFileError(f"{_line(func)}: test {name} is a coroutine or generator (not supported)")
    if _skips_unconditionally(func, pytest_names):
        raise TestFileError(f"{_line(func)}: test {name} skips unconditionally (a skipped test never counts as passed)")
    count, filled = _parametrize(func, pytest_names)
    args = func.args
    params = [a.arg for a in args.posonlyargs + args.args + args.kwonlyargs]
    if "::" in name:
        params = params[1:]  # self
    if args.vararg or args.kwarg:
        raise TestFileError(f"{_line(func)}: test {name} takes *args or **kwargs (not supported)")
    for p in params:
        if p in filled or p in fixtures or p in BUILTIN_FIXTURES:
            continue
        why = "not supported" if p in REFUSED_FIXTURES else "not a fixture of this file"
        raise TestFileError(f"{_line(func)}: test {name} asks for fixture {p!r} ({why})")
    return count


def _hide_classes(tree: ast.Module) -> None:
    """Every top-level `Test*` class becomes `Name = (lambda: <made in a function>)()`: the judge hands the program the
    preamble's top-level class definitions (to rebuild an object a test passes it), and never a test's source."""
    for i, node in enumerate(tree.body):
        if isinstance(node, ast.ClassDef) and node.name.startswith("Test"):
            maker = f"__coderl_class_{node.name}"
            func = ast.FunctionDef(maker, ast.arguments([], [], None, [], [], None, []),
                                   [node, ast.Return(ast.Name(node.name, ast.Load()))], [], None, None)
            assign = ast.Assign([ast.Name(node.name, ast.Store())], ast.Call(ast.Name(maker, ast.Load()), [], []))
            tree.body[i] = ast.copy_location(ast.If(ast.Constant(True), [func, assign], []), node)


@functools.lru_cache(maxsize=256)
def convert(text: str) -> Converted:
    """The preamble, solution names and tests of a test file (module docstring); `TestFileError` for what the runner
    cannot run, naming the construct and its line."""
    try:
        return _convert(text)
    except (RecursionError, MemoryError):
        raise TestFileError("nested too deeply to read") from None


def _convert(text: str) -> Converted:
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError) as e:
        where = f"line {e.lineno}: " if isinstance(e, SyntaxError) and e.lineno else ""
        raise TestFileError(f"not valid Python ({where}{getattr(e, 'msg', None) or e})") from None
    try:
        check(tree, MODULE)
    except Refused as e:
        raise TestFileError(str(e)) from None
    defines = module_bindings(tree, MODULE)
    rewrite = _Rewrite()
    for node in ast.walk(tree):  # the names pytest is imported as, before the rewrite reads `pytest.x`
        if isinstance(node, ast.Import):
            rewrite.pytest |= {a.asname for a in node.names if a.name == "pytest" and a.asname}
            rewrite.modules |= {a.asname or MODULE for a in node.names if a.name == MODULE}
    tree = rewrite.visit(tree)
    fixtures = {_fixture_name(n) for n in tree.body
                if isinstance(n, ast.FunctionDef) and _is_fixture(n, rewrite.pytest)}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and _is_fixture(node, rewrite.pytest):
            for p in [a.arg for a in node.args.posonlyargs + node.args.args + node.args.kwonlyargs]:
                if p not in fixtures and p not in BUILTIN_FIXTURES:
                    why = "not supported" if p in REFUSED_FIXTURES else "not a fixture of this file"
                    raise TestFileError(f"{_line(node)}: fixture {node.name!r} asks for fixture {p!r} ({why})")
    collected = _collect(tree, fixtures, rewrite.pytest)
    if not collected:
        raise TestFileError("no test functions (pytest collects functions and Test* class methods named test*)")
    tests = []
    for name, func in collected:
        count = _check_test(name, func, fixtures, rewrite.pytest)
        if count == 0:
            raise TestFileError(f"{_line(func)}: test {name} is parametrized over no cases")
        width = len(str(count - 1))
        for i in range(count):
            tests.append((name if count == 1 else f"{name}[{i:0{width}d}]", name, i, count))
    _hide_classes(tree)
    body = ast.unparse(ast.fix_missing_locations(tree))
    names = tuple(dict.fromkeys(n for n in rewrite.names))
    return Converted(RUNNER.lstrip("\n") + "\n" + body + "\n", names, tuple(tests), tuple(sorted(defines)),
                     tuple(dict.fromkeys(rewrite.bound)))
