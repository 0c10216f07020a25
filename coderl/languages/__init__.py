"""Languages as data: what the prompt formats, the rewards and the judge need to know about a language.

    Language(name, display, fence_tag, fence_tags, parses, compiles, compile_error, defines, prose_header,
             placeholder_body, implements, completion_stops)

A language is one module here that builds a `Language` and registers it (`python.py`, `javascript.py`,
`verilog.py`; `math.py` for replies judged on their final answer; a user's from a YAML runner file:
`user.py`), with its runner (`runner.py`); formats read
its fence tags, prose check and completion stops, the `syntax` reward its compile check, the shaping
rewards its implementation check, the judge how a failed run's stderr shows a compile error.
`Task.language` names it (default "python").  The `quality` reward is ruff's: Python only.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class Language:
    name: str  # "python": Task.language, ExecutionRequest.language
    display: str  # "Python": how instructions name it
    fence_tag: str  # the tag prompts ask for: ```python
    fence_tags: frozenset[str]  # tags of a fenced block that hold this language's code ("" = untagged)
    parses: Callable[[str], bool]  # the text is code of this language (a prose check; nothing runs)
    compiles: Callable[[str], bool]  # the whole program compiles (the `syntax` reward; nothing runs)
    compile_error: Callable[[str], str | None]  # a failed run's stderr -> its compile-error line, or None
    defines: Callable[..., bool]  # defines(code, name, column0=False): the code defines function `name`
    prose_header: Callable[[str], str] = str  # a prose statement as the leading comment of a program
    placeholder_body: str = ""  # a statement that makes an empty function body valid ("pass")
    # implements(program, entry_point or None): the program holds a real implementation of the entry
    # point (or, without one, any non-placeholder code): the gate of the shaping rewards
    implements: Callable[[str, str | None], bool] | None = None
    completion_stops: tuple[str, ...] = ("\n```",)  # where a continuation of a code prompt ends


LANGUAGES: dict[str, Language] = {}


def register_language(language: Language) -> Language:
    if language.name in LANGUAGES:
        raise ValueError(f"language {language.name!r} is registered twice")
    LANGUAGES[language.name] = language
    return language


def get_language(name: str) -> Language:
    if name not in LANGUAGES:
        from coderl.languages.user import load_env_runners

        load_env_runners()  # a user's language, named in CODERL_RUNNERS
    try:
        return LANGUAGES[name]
    except KeyError:
        raise ValueError(f"language {name!r}: expected one of {', '.join(sorted(LANGUAGES))} (another language "
                         f"needs a runner file: docs/languages.md)") from None


from coderl.languages import javascript, math, python, verilog  # noqa: E402,F401  -- register themselves

PYTHON = LANGUAGES["python"]

__all__ = ["LANGUAGES", "PYTHON", "Language", "get_language", "register_language"]
