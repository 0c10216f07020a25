"""Languages as data: what the prompt formats, the rewards and the judge need to know about a language.

    Language(name, display, fence_tag, fence_tags, parses, compiles, compile_error, definition, prose_header,
             placeholder_body, implements, completion_stops)                      (`language.py`)
    Runner(language, source_file, run, build=(), judge="stdout", ...)          (`runner.py`)

A language is one module here that builds a `Language` and registers it (`python.py`, `javascript.py`,
`verilog.py`; `math.py` for replies judged on their final answer; a user's from a YAML runner file:
`user.py`), with its runner (`runner.py`); formats read
its fence tags, prose check and completion stops, the `syntax` reward its compile check, the shaping
rewards its implementation check, the judge how a failed run's stderr shows a compile error (a regex the
request carries: the sandbox knows no language but Python).
`Task.language` names it (default "python").  The `quality` reward is ruff's: Python only.
"""

from __future__ import annotations

from coderl.base.config import ConfigError
from coderl.languages import javascript, math, python, verilog  # noqa: F401  -- register themselves
from coderl.languages.language import LANGUAGES, Language, register_language
from coderl.languages.runner import RUNNERS, Runner, RunnerMissing, register_runner
from coderl.languages.user import load_env_runners

PYTHON = LANGUAGES["python"]


def get_language(name: str) -> Language:
    if name not in LANGUAGES:
        load_env_runners()  # a user's language, named in CODERL_RUNNERS
    try:
        return LANGUAGES[name]
    except KeyError:
        raise ValueError(f"language {name!r}: expected one of {', '.join(sorted(LANGUAGES))} (another language "
                         f"needs a runner file: docs/languages.md)") from None


def get_runner(language: str) -> Runner:
    if language not in RUNNERS:
        load_env_runners()
    try:
        return RUNNERS[language]
    except KeyError:
        known = ", ".join(sorted(RUNNERS)) or "none"
        raise ConfigError(f"language {language!r} has no runner (runners: {known}; a YAML runner file adds "
                         f"one: docs/languages.md)") from None


def toolchain_paths() -> tuple[str, ...]:
    """The `paths` of every registered runner (and of the runner files named in CODERL_RUNNERS): what a
    sandbox's file-system view must show besides the system directories (`Sandbox(expose=...)`,
    `SandboxConfig.open(expose=...)`)."""
    load_env_runners()
    return tuple(sorted({p for runner in RUNNERS.values() for p in runner.paths}))


__all__ = ["LANGUAGES", "PYTHON", "RUNNERS", "Language", "Runner", "RunnerMissing", "get_language", "get_runner",
           "register_language", "register_runner", "toolchain_paths"]
