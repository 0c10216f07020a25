"""Load-time refusals of a test file's constructs that would judge the judge's process rather than the program's
(issue 77), for `coderl.tasks.pytest_files.convert`: the file runs in the judge, the program in a process of its
own, so a test may not

  * change where or how the judge imports (`sys.path`, `from sys import path`, `sys.meta_path`, `sys.modules`,
    `site`, `importlib`, `imp`, `runpy`, `pkgutil`, `zipimport`, `__import__`, `exec`/`eval`/`compile`, `globals()`,
    `__dict__`, frames, `getattr` on a module, writes to `os.environ`, `PYTHONPATH` among them), or run a process
    (`subprocess`, `os.system`, ...): a program's files would then run in the judge;
  * set process state meant for the program, which never reaches it (`os.chdir`, `os.environ[...] = `, `os.putenv`,
    `random.seed`, `setattr(sys, ...)`, `sys.stdin = `, `builtins.input = `, any assignment to an imported module's
    or object's attribute, binding `input`, `print` or `open` at module level);
  * capture what the program prints or warns (`redirect_stdout`/`redirect_stderr` under any alias,
    `warnings.catch_warnings(record=True)`);
  * hide a test where pytest does not collect it (`def test_x` under an `if`, `try`, `with`, ...), or make pytest
    collect other than the plain `def test*` counted at load (`collection`: a `Test*` class inside a class, a
    `test*` name bound by assignment to a lambda or a name, or by `from ... import`; `__test__` set anywhere);
  * expect the program to exit (`pytest.raises(SystemExit)`, `except SystemExit` / `KeyboardInterrupt`): a program's
    exit is an error in the sandbox whatever catches it (`exit_called`), so a correct solution could not pass.

Names are resolved through the file's imports (`from contextlib import redirect_stdout as capture` is
`contextlib.redirect_stdout`).  `module_bindings` gives what the file binds at module level, compound statements
included, for the refusal of a file that defines a name the solution provides (`coderl.tasks.test_files`).
"""

from __future__ import annotations

import ast

IMPORT_MODULES = frozenset({"importlib", "imp", "runpy", "site", "pkgutil", "zipimport", "sitecustomize",
                            "usercustomize"})
# sys's attributes a test may read (anything else, `sys.path` first, is refused): none changes imports or the judge
SYS_OK = frozenset({"version", "version_info", "hexversion", "platform", "maxsize", "maxunicode", "float_info",
                    "int_info", "hash_info", "byteorder", "implementation", "getsizeof", "getrecursionlimit",
                    "setrecursionlimit", "exit", "stdout", "stderr", "stdin", "float_repr_style", "exc_info",
                    "exception", "intern", "getdefaultencoding", "getfilesystemencoding", "get_int_max_str_digits",
                    "set_int_max_str_digits", "api_version", "argv"})
DYNAMIC = frozenset({"__import__", "exec", "eval", "compile", "globals", "__builtins__", "breakpoint"})
ATTRS = frozenset({"__import__", "__builtins__", "meta_path", "path_hooks", "path_importer_cache", "sys",
                   "addsitedir", "__dict__", "__globals__", "__getattribute__", "__loader__", "__spec__",
                   "__code__", "f_globals", "f_locals", "f_back", "gi_frame", "tb_frame"}) | IMPORT_MODULES
# running a process from the judge: a program's files would run outside the program's process
PROCESSES = frozenset({"subprocess", "multiprocessing", "pty", "concurrent", "ctypes"})
STATE = {"os.chdir": "changes the judge's working directory", "os.fchdir": "changes the judge's working directory",
         "os.putenv": "sets the judge's environment", "os.unsetenv": "sets the judge's environment",
         "os.environb": "sets the judge's environment", "os.umask": "sets the judge's umask",
         "random.seed": "seeds the judge's random generator", "random.setstate": "seeds the judge's random generator",
         "numpy.random.seed": "seeds the judge's random generator",
         "numpy.random.set_state": "seeds the judge's random generator", "time.tzset": "sets the judge's time zone",
         "locale.setlocale": "sets the judge's locale"}
CAPTURE = frozenset({"contextlib.redirect_stdout", "contextlib.redirect_stderr"})
ENVIRON_READS = frozenset({"get", "copy", "keys", "items", "values"})
PROCESS_NAMES = frozenset({"input", "print", "open"})
COMPOUND = (ast.If, ast.For, ast.AsyncFor, ast.While, ast.With, ast.AsyncWith, ast.Try) + (
    (ast.TryStar,) if hasattr(ast, "TryStar") else ()) + ((ast.Match,) if hasattr(ast, "Match") else ())
WHY = "the program runs in a process of its own: nothing a test sets in the judge reaches it"


class Refused(ValueError):
    """A construct the test file may not use (the message names it); `convert` makes it a `TestFileError`."""


def _line(node: ast.AST) -> str:
    return f"line {getattr(node, 'lineno', '?')}"


def _aliases(tree: ast.Module, solution: str) -> dict[str, str]:
    """name -> the dotted name it is bound to by the file's imports (anywhere in the file)."""
    out: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.name == solution:
                    continue
                out[a.asname or a.name.split(".")[0]] = a.name if a.asname else a.name.split(".")[0]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level and node.module != solution:
            out.update({a.asname or a.name: f"{node.module}.{a.name}" for a in node.names if a.name != "*"})
    return out


def _nested(stmts: list[ast.stmt]):
    """The statements inside compound statements among `stmts` (their bodies, else and finally blocks, handlers,
    match cases), recursively, never inside a function or class body."""
    for s in stmts:
        if not isinstance(s, COMPOUND):
            continue
        blocks = [getattr(s, f, []) for f in ("body", "orelse", "finalbody")]
        blocks += [h.body for h in getattr(s, "handlers", [])] + [c.body for c in getattr(s, "cases", [])]
        for block in blocks:
            yield from block
            yield from _nested(block)


def module_bindings(tree: ast.Module, solution: str) -> set[str]:
    """Every name the file binds in the module's namespace: definitions, assignments, loop and `with` targets,
    imports (not of the solution module), at the top level or in compound statements there, and names a function
    declares `global`."""
    names: set[str] = set()
    stmts = [*tree.body, *_nested(tree.body)]
    for s in stmts:
        if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(s.name)
        elif isinstance(s, (ast.Import, ast.ImportFrom)):
            if isinstance(s, ast.ImportFrom) and s.module == solution and not s.level:
                continue
            names |= {a.asname or a.name.split(".")[0] for a in s.names if a.name != "*"}
        else:
            parts = [s] if not isinstance(s, COMPOUND) else [getattr(s, f) for f in ("target", "test", "subject",
                                                                                    "iter") if hasattr(s, f)]
            parts += [i.optional_vars for i in getattr(s, "items", []) if i.optional_vars is not None]
            parts += [h for h in getattr(s, "handlers", [])]
            for part in parts:
                for n in ast.walk(part):
                    if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del)):
                        names.add(n.id)
                    elif isinstance(n, ast.ExceptHandler) and n.name:
                        names.add(n.name)
    for n in ast.walk(tree):
        if isinstance(n, ast.Global):
            names |= set(n.names)
    return names


def hidden_tests(tree: ast.Module) -> None:
    """Refuses a `test*` function or `Test*` class pytest would not collect: one defined in a compound statement
    at the top level or in a `Test*` class body (not inside a function: that is a local helper)."""
    scopes = [tree.body] + [n.body for n in tree.body if isinstance(n, ast.ClassDef) and n.name.startswith("Test")]
    for scope in scopes:
        for s in _nested(scope):
            test_func = isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)) and s.name.startswith("test")
            if test_func or isinstance(s, ast.ClassDef) and s.name.startswith("Test"):
                raise Refused(f"{_line(s)}: test {s.name} is defined inside a compound statement ('if', 'try', "
                              "'with', ...): pytest collects tests at the top level of the module or a Test class")


class _Check(ast.NodeVisitor):
    def __init__(self, aliases: dict[str, str]):
        self.aliases = aliases
        self.parents: dict[ast.AST, ast.AST] = {}

    def qualname(self, node: ast.AST) -> str | None:
        if isinstance(node, ast.Name):
            return self.aliases.get(node.id, node.id)
        if isinstance(node, ast.Attribute):
            base = self.qualname(node.value)
            return f"{base}.{node.attr}" if base else None
        return None

    def imported(self, node: ast.AST) -> bool:
        """Whether an attribute chain starts at a name the file's imports bind (a module, a class, a function)."""
        while isinstance(node, (ast.Attribute, ast.Subscript)):
            node = node.value
        return isinstance(node, ast.Name) and node.id in self.aliases

    def generic_visit(self, node):
        for child in ast.iter_child_nodes(node):
            self.parents[child] = node
        super().generic_visit(node)

    def visit_Import(self, node: ast.Import):
        for a in node.names:
            if a.name.split(".")[0] in PROCESSES:
                raise Refused(f"{_line(node)}: 'import {a.name}' (a test may not run processes from the judge)")
            if a.name.split(".")[0] in IMPORT_MODULES:
                raise Refused(f"{_line(node)}: 'import {a.name}' (a test may not change how or where the judge "
                              "imports: the program's files would run in the judge)")

    def visit_ImportFrom(self, node: ast.ImportFrom):
        top = (node.module or "").split(".")[0]
        for a in node.names:
            if top in PROCESSES:
                raise Refused(f"{_line(node)}: 'from {node.module} import ...' (a test may not run processes from the "
                              "judge)")
            if top in IMPORT_MODULES or top == "sys" and a.name not in SYS_OK or top == "os" and a.name in (
                    "sys", "environb") or a.name in ATTRS:
                raise Refused(f"{_line(node)}: 'from {node.module} import {a.name}' (a test may not change how or "
                              "where the judge imports, nor set state for the program)")
            what = STATE.get(f"{node.module}.{a.name}")
            if what:
                raise Refused(f"{_line(node)}: 'from {node.module} import {a.name}' ({what}: {WHY})")

    def _reference(self, node: ast.AST, name: str) -> None:
        """A name or attribute chain read (or called) in the file, whole or as the start of a longer chain."""
        parent = self.parents.get(node)
        if name in STATE:
            raise Refused(f"{_line(node)}: {name} ({STATE[name]}: {WHY})")
        if name in CAPTURE:
            raise Refused(f"{_line(node)}: {name} (the test captures standard output or error: the program prints "
                          "in its own process, nothing here can capture it)")
        parts = name.split(".")
        if parts[0] in ("unittest", "mock") and "mock" in parts:
            raise Refused(f"{_line(node)}: {name} (mock cannot reach the program's process)")
        if parts[0] == "sys" and (len(parts) > 1 and parts[1] not in SYS_OK or len(parts) == 1 and not isinstance(
                parent, ast.Attribute)):
            raise Refused(f"{_line(node)}: {name if len(parts) > 1 else 'the sys module object'} is not supported (a "
                          "test may not change how or where the judge imports)")
        if name == "builtins" and not isinstance(parent, ast.Attribute):
            raise Refused(f"{_line(node)}: the builtins module object is used other than as builtins.name")
        if name == "os.environ":
            reads = isinstance(parent, ast.Subscript) and isinstance(parent.ctx, ast.Load) or isinstance(
                parent, ast.Attribute) and parent.attr in ENVIRON_READS and isinstance(
                self.parents.get(parent), ast.Call) or isinstance(parent, ast.Compare) and node in parent.comparators
            if not reads:
                raise Refused(f"{_line(node)}: os.environ used other than read (a test may not set the judge's "
                              f"environment: {WHY})")

    def visit_Name(self, node: ast.Name):
        if node.id in DYNAMIC:
            raise Refused(f"{_line(node)}: {node.id} is not supported (code the file builds at run time could change "
                          "how or where the judge imports)")
        if isinstance(node.ctx, ast.Load):
            self._reference(node, self.qualname(node))

    def visit_Attribute(self, node: ast.Attribute):
        if node.attr in ATTRS:
            raise Refused(f"{_line(node)}: .{node.attr} is not supported (a test may not change how or where the "
                          "judge imports)")
        name = self.qualname(node)
        if isinstance(node.ctx, (ast.Store, ast.Del)) and self.imported(node.value):
            raise Refused(f"{_line(node)}: the test sets {ast.unparse(node)[:60]} ({WHY})")
        if name and isinstance(node.ctx, ast.Load):
            self._reference(node, name)
        self.generic_visit(node)

    def visit_Subscript(self, node: ast.Subscript):
        if isinstance(node.ctx, (ast.Store, ast.Del)) and self.qualname(node.value) in ("os.environ", "os.environb"):
            raise Refused(f"{_line(node)}: the test sets os.environ (the judge's environment: {WHY})")
        self.generic_visit(node)

    def visit_Call(self, node: ast.Call):
        func = self.qualname(node.func)
        if func in ("setattr", "delattr") and node.args and self.imported(node.args[0]):
            raise Refused(f"{_line(node)}: {func}({ast.unparse(node.args[0])[:40]}, ...) ({WHY})")
        if func in ("getattr", "vars", "dir") and node.args and self.imported(node.args[0]):
            raise Refused(f"{_line(node)}: {func}({ast.unparse(node.args[0])[:40]}, ...) is not supported (name the "
                          "attribute: the file's reads of modules are checked at load)")
        if func and func.split(".")[0] == "os" and func.split(".")[-1].startswith(("system", "popen", "exec", "spawn",
                                                                                   "fork", "posix_spawn")):
            raise Refused(f"{_line(node)}: {func} (a test may not run processes from the judge)")
        if func == "warnings.catch_warnings" and any(k.arg == "record" and not (
                isinstance(k.value, ast.Constant) and not k.value.value) for k in node.keywords):
            raise Refused(f"{_line(node)}: warnings.catch_warnings(record=True) (the program warns in its own process:"
                          " nothing here can record it)")
        self.generic_visit(node)


EXITS = frozenset({"SystemExit", "KeyboardInterrupt"})


def _exits(node: ast.AST) -> bool:
    """Whether an exception spec (a name, an attribute, a tuple of them) names SystemExit or KeyboardInterrupt."""
    if isinstance(node, ast.Tuple):
        return any(_exits(e) for e in node.elts)
    return (node.attr if isinstance(node, ast.Attribute) else getattr(node, "id", "")) in EXITS


def exits(tree: ast.Module) -> None:
    """Refuse a test that expects the program to exit: `raises(SystemExit)`, `except SystemExit`."""
    for node in ast.walk(tree):
        if isinstance(node, ast.ExceptHandler) and node.type is not None and _exits(node.type):
            spec = f"except {ast.unparse(node.type)[:40]}"
        elif isinstance(node, ast.Call) and node.args and _exits(node.args[0]) and (
                node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")) == "raises":
            spec = f"raises({ast.unparse(node.args[0])[:40]})"
        else:
            continue
        raise Refused(f"{_line(node)}: {spec}: a program's exit is an error in the sandbox whatever catches it "
                      "(docs/sandbox.md, exit_called), so a correct solution could not pass")


def collection(body: list, where: str = "the module") -> None:
    """Refuse what would make pytest collect other than the plain defs counted at load: a `test*` name bound other
    than by a def to what may be a function (pytest collects any function under a test name), `__test__` (its switch
    for collecting a module or class), a `Test*` class inside a `Test*` class; the module's and each class's body."""
    for node in body:
        if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names = [t.id for target in targets for t in ast.walk(target) if isinstance(t, ast.Name)]
            if "__test__" in names:
                raise Refused(f"{_line(node)}: {where} sets __test__ (what pytest collects would change)")
            if isinstance(node.value, (ast.Lambda, ast.Name, ast.Attribute)) and any(n.startswith("test")
                                                                                     for n in names):
                raise Refused(f"{_line(node)}: {where} binds a test name by assignment ({ast.unparse(node)[:60]}): "
                              "pytest would collect a function bound so")
        elif isinstance(node, ast.ImportFrom):  # (a module, `import testing`, is no function)
            for alias in node.names:
                if (alias.asname or alias.name).startswith("test") and alias.name != "*":
                    raise Refused(f"{_line(node)}: {where} imports the name {alias.asname or alias.name!r}: pytest "
                                  "would collect a function bound so")
        elif isinstance(node, ast.ClassDef) and node.name.startswith("Test"):
            if where != "the module":
                raise Refused(f"{_line(node)}: test class {node.name} inside {where} (pytest collects it; nested "
                              "test classes are not supported)")
            collection(node.body, f"class {node.name}")


def check(tree: ast.Module, solution: str) -> None:
    """Refuses (`Refused`, naming the construct and its line) what the module docstring lists."""
    hidden_tests(tree)
    collection(tree.body)
    exits(tree)
    for s in tree.body:
        for n in ([s] if isinstance(s, (ast.Assign, ast.AnnAssign, ast.AugAssign)) else []):
            for t in getattr(n, "targets", [getattr(n, "target", None)]):
                if isinstance(t, ast.Name) and t.id in PROCESS_NAMES:
                    raise Refused(f"{_line(n)}: the file binds {t.id} (the program's {t.id} is its own: {WHY})")
    for s in [*tree.body, *_nested(tree.body)]:
        if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)) and s.name in PROCESS_NAMES:
            raise Refused(f"{_line(s)}: the file binds {s.name} (the program's {s.name} is its own: {WHY})")
    _Check(_aliases(tree, solution)).visit(tree)
