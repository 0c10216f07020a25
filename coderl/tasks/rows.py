"""Read task files: JSON Lines, plain or gzip-compressed, one object per line.

`iter_jsonl` yields `(line_number, row)` for every non-blank line and raises `TaskFormatError` with
one line (`file:LINE: what is wrong`) for anything it cannot read: a missing or unreadable file, a
bad gzip stream, text that is not UTF-8, invalid JSON, or a line that is not a JSON object.  No row
is ever skipped silently.  `require` checks one field of a row and reports it the same way.
"""

from __future__ import annotations

import contextlib
import contextvars
import gzip
import json
import os
import zlib
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from coderl.tasks.types import TaskFormatError

_GZIP_MAGIC = b"\x1f\x8b"
# coderl/tasks/data: the bundled task files (package data)
BUNDLED = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")

_TYPE_NAMES = {
    str: "a string",
    int: "an integer",
    float: "a number",
    bool: "a boolean",
    list: "a list",
    dict: "an object",
}


def type_description(expected: type | tuple[type, ...]) -> str:
    types = expected if isinstance(expected, tuple) else (expected,)
    return " or ".join(_TYPE_NAMES.get(t, t.__name__) for t in types)


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "list"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__


def require(
    row: dict[str, Any],
    field: str,
    expected: type | tuple[type, ...],
    where: str,
    *,
    label: str | None = None,
) -> Any:
    """`row[field]`, checked to be an instance of `expected`; `label` names the field in messages
    (e.g. "input_output.inputs" for a nested field).  `bool` is never accepted as an integer."""
    name = label or field
    if field not in row:
        raise TaskFormatError(f"{where}: field '{name}' missing (expected {type_description(expected)})")
    value = row[field]
    types = expected if isinstance(expected, tuple) else (expected,)
    ok = isinstance(value, types) and not (isinstance(value, bool) and bool not in types)
    if not ok:
        raise TaskFormatError(
            f"{where}: field '{name}' is {_json_type(value)} (expected {type_description(expected)})"
        )
    return value


def optional(row: dict[str, Any], field: str, expected: type | tuple[type, ...], where: str, default: Any = None):
    """`require` for a field that may be absent or null (a dataset's empty cell): `default` then."""
    return default if row.get(field) is None else require(row, field, expected, where)


def plain_or_gzip(path: str) -> str:
    """`path`, or `path + ".gz"` where only the compressed file exists: a `results/` folder keeps a run's
    samples and metrics gzip-compressed in place (results/README.md)."""
    return path + ".gz" if not os.path.exists(path) and os.path.exists(path + ".gz") else path


def is_gzip(path: str | os.PathLike[str]) -> bool:
    try:
        with open(path, "rb") as f:
            return f.read(2) == _GZIP_MAGIC
    except OSError as e:
        raise TaskFormatError(f"{path}: cannot read ({e.strerror or e})") from None


def iter_jsonl(path: str | os.PathLike[str], skipped: list[str] | None = None) -> Iterator[tuple[int, dict[str, Any]]]:
    """Yield `(line_number, object)` for each non-blank line of a `.jsonl` or `.jsonl.gz` file.

    Compression is detected from the file's first bytes, not its name.  `skipped`: a list to append a bad
    line's one-line error to (and go on) instead of raising it; an unreadable file still raises.
    """
    for lineno, row in _iter_jsonl(path):
        if isinstance(row, TaskFormatError):
            if skipped is None:
                raise row
            skipped.append(str(row))
            continue
        yield lineno, row


def _iter_jsonl(path: str | os.PathLike[str]) -> Iterator[tuple[int, Any]]:
    """`iter_jsonl`'s lines: a bad line's error is yielded in place of its object."""
    if os.path.isdir(path):
        raise TaskFormatError(f"{path}: is a directory (expected a .jsonl or .jsonl.gz file)")
    opener = gzip.open if is_gzip(path) else open
    lineno = 0
    try:
        with opener(path, "rb") as f:
            for lineno, raw in enumerate(f, start=1):
                try:
                    text = raw.decode("utf-8")
                except UnicodeDecodeError as e:
                    yield lineno, TaskFormatError(f"{path}:{lineno}: not UTF-8 text ({e.reason})")
                    continue
                if lineno == 1:
                    text = text.removeprefix("\ufeff")
                if not text.strip():
                    continue
                try:
                    row = json.loads(text)
                except json.JSONDecodeError as e:
                    yield lineno, TaskFormatError(f"{path}:{lineno}: invalid JSON ({e.msg})")
                    continue
                except RecursionError:
                    yield lineno, TaskFormatError(f"{path}:{lineno}: invalid JSON (nested too deeply)")
                    continue
                if not isinstance(row, dict):
                    yield lineno, TaskFormatError(
                        f"{path}:{lineno}: expected a JSON object per line, got {_json_type(row)}"
                    )
                    continue
                yield lineno, row
    except (OSError, EOFError, zlib.error) as e:
        where = f"{path}:{lineno + 1}" if lineno else str(path)
        reason = getattr(e, "strerror", None) or str(e) or type(e).__name__
        raise TaskFormatError(f"{where}: cannot read ({reason})") from None


@dataclass(frozen=True)
class Rows:
    """The rows of a task file or dataset, as the layout loaders read them: `(n, row)` pairs, the name
    messages give them (`where(n)`: `file:LINE` for a file, `name row N` for a dataset), and the stem
    row-numbered task ids start with."""

    name: str
    rows: Iterable[tuple[int, dict[str, Any]]]
    unit: str = "line"  # "line" (1-based, a file's) or "row" (0-based, a dataset's)
    stem: str = ""
    skipped: list[str] | None = None  # when a list: bad rows are skipped, each one's line appended here
    prepare: Callable[[dict[str, Any], str], dict[str, Any]] | None = None  # row -> the layout's row (hf presets)

    def attempt(self, build: Callable[[int, dict[str, Any]], Any], n: int, row: dict[str, Any]) -> Any:
        """`build(n, row)` (after `prepare`); a bad row (`TaskFormatError`) stops the load, or with `skipped`
        is recorded there and gives None."""
        if self.skipped is None:
            return build(n, self.prepare(row, self.where(n)) if self.prepare else row)
        try:
            return build(n, self.prepare(row, self.where(n)) if self.prepare else row)
        except TaskFormatError as e:
            self.skipped.append(str(e))
            return None

    def collect(self, build: Callable[[int, dict[str, Any]], Any]) -> list:
        """`build(n, row)` of every row through `attempt`: the tasks, or the `empty` error when none is left."""
        tasks = []
        for n, row in self:
            task = self.attempt(build, n, row)
            if task is not None:
                tasks.append(task)
        if not tasks:
            raise self.empty()
        return tasks

    def empty(self) -> TaskFormatError:
        """The error of a source that gave no task: empty, or (skipping) every row left out as bad."""
        mine = sum(1 for line in self.skipped or () if line.startswith(self.name))
        if mine:
            return TaskFormatError(f"{self.name}: no task left: all {mine} rows were skipped as bad (--skip-bad-rows)")
        return TaskFormatError(f"{self.name}: no rows (the file is empty)" if self.unit == "line"
                               else f"{self.name}: no rows")

    def where(self, n: int) -> str:
        return f"{self.name}:{n}" if self.unit == "line" else f"{self.name} row {n}"

    def __iter__(self) -> Iterator[tuple[int, dict[str, Any]]]:
        return iter(self.rows)


class TaskIds:
    """The task ids the rows of one source have taken, each with the row (`Rows.unit` number) that took it: an id
    taken before is a one-line `TaskFormatError` naming both rows.  `check` refuses one early (before the row's other
    fields are read); `take` checks and records it once the row is good (a skipped row takes no id)."""

    def __init__(self, rows: Rows):
        self.rows, self.first = rows, {}

    def check(self, task_id: str, n: int, field: str = "field 'task_id'") -> None:
        if task_id in self.first:
            raise TaskFormatError(f"{self.rows.where(n)}: {field} {task_id!r} duplicates {self.rows.unit} "
                                  f"{self.first[task_id]}")

    def take(self, task_id: str, n: int, field: str = "field 'task_id'") -> None:
        self.check(task_id, n, field)
        self.first[task_id] = n


_SKIPPING: contextvars.ContextVar[list[str] | None] = contextvars.ContextVar("coderl_skipped_rows", default=None)


@contextlib.contextmanager
def skipping_bad_rows():
    """Within it, the task loaders skip bad rows instead of stopping at the first (`--skip-bad-rows`); yields
    the list each skipped row's one-line reason is appended to."""
    skipped: list[str] = []
    token = _SKIPPING.set(skipped)
    try:
        yield skipped
    finally:
        _SKIPPING.reset(token)


def skipped_rows() -> list[str] | None:
    """The list bad rows go to in a `skipping_bad_rows` block; None outside one (a bad row stops the load)."""
    return _SKIPPING.get()


def jsonl_rows(path: str | os.PathLike[str]) -> Rows:
    """A JSONL(.gz) file's rows (`iter_jsonl`)."""
    path = os.fspath(path)
    skipped = skipped_rows()
    return Rows(path, iter_jsonl(path, skipped), "line", file_stem(path), skipped)


def first_row(path: str | os.PathLike[str]) -> tuple[int, dict[str, Any]]:
    """The first non-blank row of a file (for format detection); an empty file is an error."""
    bad: list[str] | None = [] if skipped_rows() is not None else None
    for lineno, row in iter_jsonl(path, bad):  # skipping: the first good one (its loader skips the bad ones again)
        return lineno, row
    if bad:  # every line bad: those are the skipped rows, and the file is not empty
        skipped_rows().extend(bad)
        raise TaskFormatError(f"{path}: no task left: all {len(bad)} rows were skipped as bad (--skip-bad-rows)")
    raise TaskFormatError(f"{path}: no rows (the file is empty)")


def file_stem(path: str | os.PathLike[str], suffixes: tuple[str, ...] = (".jsonl", ".json")) -> str:
    """`data/foo.jsonl.gz` -> `foo`: the last part of `path`, without `.gz` and then each of `suffixes` in turn."""
    name = os.path.basename(os.path.normpath(os.fspath(path)))
    for suffix in (".gz", *suffixes):
        name = name.removesuffix(suffix)
    return name
