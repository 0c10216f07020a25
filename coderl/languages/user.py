"""A language a user names in a YAML file: its runner (binary, file name, build and run commands, judge)
and what prompts and rewards need (fence tags, a comment prefix, how its compile errors look).

    # lua.yaml                                  (the worked example: examples/lua/)
    language: lua                                # Task.language of the tasks it runs (a JSONL "language" field)
    display: Lua                                 # how instructions name it (default: the language, capitalised)
    fence_tag: lua                               # ```lua (default: the language)
    source_file: main.lua                        # the program's file in the work dir
    binaries: [lua5.4]                           # must be on PATH
    paths: []                                    # directories the toolchain lives in besides /usr, /bin, /lib*
                                                 # (e.g. [/opt/q]): shown read-only to programs at isolation full
    build: []                                    # once per program, optional (e.g. [qc, -o, main, "{source}"])
    run: [lua5.4, "{source}"]                    # once per test, the test's input on stdin
    judge: stdout                                # stdout | values (function tasks: needs a harness)
    harness: ""                                  # judge values: code appended to the program; {entry_point}
    comment: "--"                                # line comment, for a prose statement as a program header
    compile_error: "^lua5.4: .*:[0-9]+: .*near"  # a regex (multi-line: ^ and $ at each line): the stderr line
                                                 # where it first matches is a syntax error
    cpu_seconds: 3                               # optional, per test
    install: "apt-get install lua5.4"            # shown when a binary is missing

Load with `load_runner_file(path)`, or name the files in the environment variable `CODERL_RUNNERS`
(paths separated by ':'), which every command reads the first time it needs a language it does not know.
A bad file is a one-line error naming the file and the field.
"""

from __future__ import annotations

import os
import re
from re import _constants as _c
from re import _parser
from typing import Any

from coderl.base.config import ConfigError
from coderl.languages.language import LANGUAGES, Language, register_language
from coderl.languages.runner import RUNNERS, Runner, register_runner

ENV = "CODERL_RUNNERS"
FIELDS = {"paths", "language", "display", "fence_tag", "fence_tags", "source_file", "binaries", "build", "run", "judge",
          "harness", "comment", "compile_error", "cpu_seconds", "install", "address_space"}
_loaded: set[str] = set()


class RunnerFileError(ConfigError):
    """A malformed runner file; the message is one line naming the file and the field."""


def _strings(data: dict, key: str, where: str, required: bool = False) -> tuple[str, ...]:
    value = data.get(key)
    if value is None:
        if required:
            raise RunnerFileError(f"{where}: field '{key}' is missing (expected a list of strings)")
        return ()
    if isinstance(value, str):
        value = [value] if key in ("binaries", "fence_tags") else value.split()
    if not isinstance(value, list) or not all(isinstance(v, (str, int, float)) for v in value):
        raise RunnerFileError(f"{where}: field '{key}' is {value!r} (expected a list of strings)")
    return tuple(str(v) for v in value)


def _string(data: dict, key: str, where: str, default: str | None = None) -> str:
    value = data.get(key, default)
    if not isinstance(value, str) or (default is None and not value.strip()):
        raise RunnerFileError(f"{where}: field '{key}' is {value!r} (expected a non-empty string)")
    return value


def _backtracking(items, inside: bool = False) -> int:
    """How many repeats of a parsed pattern can backtrack (a `*`, `+`, `?`, `{m,n}` that is not possessive);
    ValueError for a repeat or an alternation inside a repeat (exponential).  With at most one, a search of a
    line of n characters takes O(n^2) steps at worst (`types.compile_error_line` cuts lines short)."""
    count = 0
    for op, av in items:
        if op in (_c.MAX_REPEAT, _c.MIN_REPEAT, _c.POSSESSIVE_REPEAT):
            if inside and av[1] != av[0]:
                raise ValueError("a repeat inside a repeat")
            count += op is not _c.POSSESSIVE_REPEAT and av[1] != av[0]
            count += _backtracking(av[2], inside or av[1] > 1)
        elif op is _c.BRANCH:
            if inside:
                raise ValueError("an alternation inside a repeat")
            count += max((_backtracking(b) for b in av[1]), default=0)
        elif op is _c.SUBPATTERN:
            count += _backtracking(av[3], inside)
        elif op is _c.ATOMIC_GROUP:
            count += _backtracking(av, inside)
        elif op in (_c.ASSERT, _c.ASSERT_NOT, _c.GROUPREF_EXISTS):
            count += sum(_backtracking(p, inside) for p in av[1:] if p is not None)
    return count


def parse_runner(data: Any, where: str) -> tuple[Language, Runner]:
    """The language and runner a runner file describes (`where` names the file in errors)."""
    if not isinstance(data, dict):
        raise RunnerFileError(f"{where}: expected a mapping of fields ({', '.join(sorted(FIELDS))})")
    unknown = sorted(set(data) - FIELDS)
    if unknown:
        raise RunnerFileError(f"{where}: unknown field '{unknown[0]}' (expected: {', '.join(sorted(FIELDS))})")
    name = _string(data, "language", where)
    if not re.fullmatch(r"[a-z][a-z0-9_+-]*", name):
        raise RunnerFileError(f"{where}: field 'language' is {name!r} (expected lower-case letters, digits, _+-)")
    judge = _string(data, "judge", where, "stdout")
    if judge not in ("stdout", "values"):
        raise RunnerFileError(f"{where}: field 'judge' is {judge!r} (expected stdout or values)")
    harness = _string(data, "harness", where, "")
    if judge == "values" and "{entry_point}" not in harness:
        raise RunnerFileError(f"{where}: field 'harness' must call {{entry_point}} when judge is values")
    pattern = _string(data, "compile_error", where, "")
    try:
        re.compile(pattern, re.MULTILINE)
        if _backtracking(_parser.parse(pattern)) > 1:
            raise ValueError("more than one repeat that can backtrack")
    except re.error as exc:
        raise RunnerFileError(f"{where}: field 'compile_error' is not a regular expression ({exc})") from None
    except ValueError as exc:  # it runs on the program's stderr: a program could make the trainer slow
        raise RunnerFileError(f"{where}: field 'compile_error' can backtrack on a program's output ({exc}; expected "
                              "at most one *, +, ? or {m,n} that is not possessive (*+, ++, ?+), none inside "
                              "another repeat)") from None
    cpu = data.get("cpu_seconds")
    if cpu is not None and (isinstance(cpu, bool) or not isinstance(cpu, (int, float)) or cpu <= 0):
        raise RunnerFileError(f"{where}: field 'cpu_seconds' is {cpu!r} (expected a positive number)")
    space = data.get("address_space", False)
    if not isinstance(space, bool):
        raise RunnerFileError(f"{where}: field 'address_space' is {space!r} (expected true or false)")
    tag = _string(data, "fence_tag", where, name)
    comment = _string(data, "comment", where, "#")

    language = Language(
        name=name, display=_string(data, "display", where, name.capitalize()), fence_tag=tag,
        fence_tags=frozenset({"", tag, *_strings(data, "fence_tags", where)}),
        parses=lambda source: bool(source.strip()), compiles=lambda source: bool(source.strip()),
        compile_error=pattern or None, definition=r".*?\bNAME\b",  # the name anywhere in a line
        prose_header=lambda text: "".join(f"{comment} {line}".rstrip() + "\n" for line in text.rstrip().splitlines()),
        completion_stops=("\n```",))
    if harness and judge == "stdout":
        raise RunnerFileError(f"{where}: field 'harness' is only used with judge: values")
    paths = _strings(data, "paths", where)
    for p in paths:
        if not os.path.isabs(p):
            raise RunnerFileError(f"{where}: field 'paths' holds {p!r} (expected absolute directories)")
    try:
        runner = Runner(language=name, source_file=_string(data, "source_file", where),
                        run=_strings(data, "run", where, required=True), build=_strings(data, "build", where),
                        judge=judge, binaries=_strings(data, "binaries", where) or _strings(data, "run", where)[:1],
                        harness=harness,
                        install=_string(data, "install", where, ""), address_space=space,
                        cpu_seconds=float(cpu) if cpu is not None else None, paths=paths)
    except ValueError as exc:
        raise RunnerFileError(f"{where}: {exc}") from None
    return language, runner


def load_runner_file(path: str | os.PathLike[str]) -> Runner:
    """Register the language and runner of a YAML runner file (again: a no-op); returns the runner."""
    import yaml

    path = os.path.abspath(os.fspath(path))
    if not os.path.isfile(path):
        raise RunnerFileError(f"runner file {path}: no such file")
    try:
        with open(path, encoding="utf-8") as f:
            data = yaml.safe_load(f)
    except yaml.YAMLError as exc:
        raise RunnerFileError(f"runner file {path}: not YAML ({str(exc).splitlines()[0]})") from None
    language, runner = parse_runner(data, f"runner file {path}")
    if path in _loaded:
        return RUNNERS[runner.language]
    if language.name in LANGUAGES:
        raise RunnerFileError(f"runner file {path}: language {language.name!r} is already registered "
                              f"(built in, or loaded from another file)")
    register_language(language)
    register_runner(runner)
    _loaded.add(path)
    return runner


def load_env_runners() -> list[Runner]:
    """The runner files named in CODERL_RUNNERS (each loaded once)."""
    paths = [p for p in os.environ.get(ENV, "").split(os.pathsep) if p.strip()]
    return [load_runner_file(p) for p in paths]
