"""The `Language` record and its registry; `coderl.languages` looks languages up (and loads a user's)."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from coderl.base.registry import register_once


@dataclass(frozen=True)
class Language:
    name: str  # "python": Task.language, ExecutionRequest.language
    display: str  # "Python": how instructions name it
    fence_tag: str  # the tag prompts ask for: ```python
    fence_tags: frozenset[str]  # tags of a fenced block that hold this language's code ("" = untagged)
    parses: Callable[[str], bool]  # the text is code of this language (a prose check; nothing runs)
    compiles: Callable[[str], bool]  # the whole program compiles (the `syntax` reward; nothing runs)
    # a regex: the line of a failed run's stderr where it first matches (re.MULTILINE) is a compile error
    # (`ExecutionRequest.compile_error`: the judge reads it from the request); None: no such line
    compile_error: str | None
    definition: str  # a regex: a line that defines function NAME, after its indentation (`defines`)
    prose_header: Callable[[str], str] = str  # a prose statement as the leading comment of a program
    placeholder_body: str = ""  # a statement that makes an empty function body valid ("pass")
    # implements(program, entry_point or None): the program holds a real implementation of the entry
    # point (or, without one, any non-placeholder code): the gate of the shaping rewards
    implements: Callable[[str, str | None], bool] | None = None
    completion_stops: tuple[str, ...] = ("\n```",)  # where a continuation of a code prompt ends

    def defines(self, code: str, name: str, column0: bool = False) -> bool:
        """The code defines function `name`: a line (unindented, with `column0`) matches `definition`."""
        head = self.definition.replace("NAME", re.escape(name))
        return re.search(("^" if column0 else r"^[ \t]*") + head, code, re.MULTILINE) is not None


LANGUAGES: dict[str, Language] = {}


def register_language(language: Language) -> Language:
    return register_once(LANGUAGES, language.name, language, "language")
