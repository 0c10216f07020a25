"""Python: `ast.parse` as the prose check, `compile()` as the syntax check, the `SyntaxError` line of a
traceback as the judge's compile error, `def name(` as a definition."""

from __future__ import annotations

import ast
import re
import warnings

from coderl.languages import Language, register_language


def parses(source: str) -> bool:
    try:
        ast.parse(source)
    except (SyntaxError, ValueError):
        return False
    return True


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


def compile_error(stderr: str) -> str | None:
    """The last line of a traceback when it is a SyntaxError (CPython compiles before it runs)."""
    lines = stderr.strip().splitlines()
    return lines[-1] if lines and lines[-1].startswith("SyntaxError") else None


def defines(code: str, name: str, column0: bool = False) -> bool:
    indent = "" if column0 else r"[ \t]*"
    return re.search(rf"^{indent}(?:async[ \t]+)?def[ \t]+{re.escape(name)}[ \t]*\(", code, re.MULTILINE) is not None


def prose_header(text: str) -> str:
    """A problem statement as a module docstring."""
    return '"""\n' + text.replace('"""', "'''").rstrip() + '\n"""\n'


PYTHON = register_language(Language(
    name="python", display="Python", fence_tag="python", fence_tags=frozenset({"", "python", "py", "python3"}),
    parses=parses, compiles=compiles, compile_error=compile_error, defines=defines, prose_header=prose_header,
    placeholder_body="pass",
))
