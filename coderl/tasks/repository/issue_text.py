"""The issue text of a generated repository task, written from the failing tests alone.

`issue_text(repo_name, failures, shown_ids=, seed=)` reads what the test reporter gives for each failing test at
the task's base (`Failure`: the test id, its outcome, the assertion or exception message, the last frames of its
traceback as file:line:function) and writes an issue the way a user would: which behaviour fails (the test's name
read as words), and how (the exception and its message, or the comparison the assertion makes, cut short), and
where it was raised (the innermost frame outside the tests: its function and file, never a line number). It
knows nothing of how the bug was made and prints no source text.

Only the tests whose ids are in `shown_ids` are named; at least one failing test must be left out (kept from the
agent until grading), and no piece of text that names a left-out test's function is written. A piece that would
name how a bug was made (the words "mutation", "mutant", or a kind of `mutations.KINDS`) is dropped too. The
phrasing is one of a few templates, chosen by a hash of the seed, the repository and the test ids: the same
inputs give the same text. Standard library only.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

EXCERPT = 160   # the longest excerpt of a message, in characters


class IssueTextError(ValueError):
    """Failures that no issue can be written from, said in one line."""


@dataclass(frozen=True)
class Frame:
    """One frame of a traceback, as the reporter gives it."""

    path: str
    line: int
    function: str

    @classmethod
    def read(cls, value: Frame | str | Mapping | tuple) -> Frame:
        """A frame from `path:line:function`, a (path, line, function) triple or a mapping with those keys."""
        if isinstance(value, Frame):
            return value
        if isinstance(value, str):
            m = re.fullmatch(r"(.+):(\d+):([^:]*)", value.strip())
            if not m:
                raise IssueTextError(f"frame {value!r}: not path:line:function")
            return cls(m.group(1), int(m.group(2)), m.group(3))
        if isinstance(value, Mapping):
            try:
                return cls(str(value["path"]), int(value["line"]), str(value["function"]))
            except (KeyError, TypeError, ValueError):
                raise IssueTextError(f"frame {dict(value)!r}: wants path, line and function") from None
        try:
            path, line, function = value
            return cls(str(path), int(line), str(function))
        except (TypeError, ValueError):
            raise IssueTextError(f"frame {value!r}: not (path, line, function)") from None


@dataclass(frozen=True)
class Failure:
    """One failing test at the task's base, as the reporter gives it."""

    test_id: str                     # the pytest node id, e.g. "tests/test_x.py::TestA::test_b[1]"
    outcome: str                     # "failed" or "error"
    message: str = ""                # the assertion or exception message, e.g. "ValueError: bad input"
    frames: tuple[Frame, ...] = ()   # the traceback's last frames, the innermost last

    @classmethod
    def read(cls, value: Failure | Mapping) -> Failure:
        """A failure from a mapping with `test_id` (or `nodeid`), `outcome`, `message` and `frames`."""
        if isinstance(value, Failure):
            return value
        if not isinstance(value, Mapping):
            raise IssueTextError(f"failure {value!r}: not a mapping")
        test_id = value.get("test_id", value.get("nodeid"))
        if not isinstance(test_id, str) or not test_id:
            raise IssueTextError(f"failure {dict(value)!r}: no test_id")
        frames = tuple(Frame.read(f) for f in value.get("frames") or ())
        return cls(test_id, str(value.get("outcome", "failed")), str(value.get("message") or ""), frames)


# ---------------------------------------------------------------- reading one failure

_FORBIDDEN = re.compile(r"mutat|mutant|off_by_one|removed_branch|swapped_arguments|wrong_return", re.IGNORECASE)
_EXCEPTION = re.compile(r"^((?:[A-Za-z_]\w*\.)*[A-Za-z_]\w*(?:Error|Exception|Exit|Interrupt|Warning|Iteration)"
                        r"|AssertionError)(?::\s*(.*))?$")


def _test_name(test_id: str) -> str:
    """The test function's name in a node id: `tests/t.py::C::test_b[1]` -> `test_b`."""
    return re.sub(r"\[.*\]$", "", test_id.split("::")[-1])


def _behaviour(test_id: str) -> str:
    """The behaviour a test is named for, as words: `test_chunked_strict` -> `chunked strict`; with its
    class when it has one (`TestParse::test_spans` -> `parse: spans`)."""
    parts = test_id.split("::")[1:] or [test_id]
    words = []
    for part in parts:
        name = re.sub(r"\[.*\]$", "", part)
        name = re.sub(r"^(?:test_?|Test_?)|(?:_?test|Tests?)$", "", name)
        name = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", " ", name).replace("_", " ").strip().lower()
        if name:
            words.append(name)
    return ": ".join(words) or _test_name(test_id)


def _first_line(message: str) -> str:
    for line in message.splitlines():
        line = re.sub(r"^E\s+", "", line.strip()).strip()
        if line and not line.startswith((">", "File ", "Traceback")):
            return line
    return ""


def _cut(text: str) -> str:
    return text if len(text) <= EXCERPT else text[:EXCERPT - 3].rstrip() + "..."


def _is_test_path(path: str) -> bool:
    name = path.replace("\\", "/").rsplit("/", 1)[-1]
    return (name.startswith("test_") or name.endswith("_test.py") or name == "conftest.py"
            or bool(re.search(r"(^|/)(tests?|testing)/", path.replace("\\", "/"))))


def _how(failure: Failure) -> str:
    """How a failure shows, in a few words: the comparison an assertion makes, or the exception raised and
    where; '' when the message says nothing that can be quoted."""
    line = _first_line(failure.message)
    if line.startswith("AssertionError: assert "):
        line = line[len("AssertionError: "):]
    if line.startswith("assert "):
        return f"the check `{_cut(line[len('assert '):])}` does not hold"
    m = _EXCEPTION.match(line)
    where = ""
    inner = [f for f in failure.frames if not _is_test_path(f.path)]
    if inner and inner[-1].function and inner[-1].function != "<module>":
        where = f" (raised in `{inner[-1].function}`, `{inner[-1].path}`)"
    if m and m.group(1) == "AssertionError":
        return f"an assertion fails: `{_cut(m.group(2))}`" if m.group(2) else "an assertion fails"
    if m:
        said = f": {_cut(m.group(2))}" if m.group(2) else ""
        return f"it raises `{m.group(1)}{said}`{where}"
    return f"it reports `{_cut(line)}`" if line else ""


# ---------------------------------------------------------------- the text

_TITLES = ("{behaviour} is broken", "Unexpected result from {behaviour}", "Regression in {behaviour}",
           "{behaviour} does not work as documented")
_OPENINGS = ("Running the test suite of {repo}, {count} {fail}.", "In {repo}, {count} no longer {pass_}.",
             "I ran the tests of {repo} and {count} {fail}.")
_CLOSINGS = ("Expected: these tests pass, without changing the tests.",
             "The tests are right; the library should be fixed so they pass.",
             "Please fix the library so that the tests above pass (the tests themselves are correct).")
_ANONYMOUS_TITLES = ("Something is broken in {repo}", "Unexpected results from {repo}", "Regression in {repo}")
_ANONYMOUS_CLOSINGS = ("Expected: the library behaves as documented.",
                       "Please fix the library; its tests cover this case.")
_MORE = ("Other cases may fail the same way.", "The same problem may show elsewhere too.", "")


def _choose(options: tuple[str, ...], key: str, salt: str) -> str:
    digest = hashlib.sha256(f"{salt}\x00{key}".encode()).digest()
    return options[int.from_bytes(digest[:8], "big") % len(options)]


LISTED_AT_MOST = 10  # failing tests an issue lists one by one (88 listed made a 20,000-character issue)


def issue_text(repo_name: str, failures: Iterable[Failure | Mapping], *, shown_ids: Iterable[str],
               seed: int = 0) -> str:
    """The issue for the failing tests `failures` of `repo_name`, naming only those in `shown_ids`.

    Raises `IssueTextError` when there is no failure, when `shown_ids` names a test that is not failing, or
    when it would show every failing test (one must stay hidden until grading)."""
    records = sorted({f.test_id: f for f in map(Failure.read, failures)}.values(), key=lambda f: f.test_id)
    if not records:
        raise IssueTextError(f"{repo_name}: no failing test to write an issue from")
    ids = {f.test_id for f in records}
    shown = set(shown_ids)
    if shown - ids:
        raise IssueTextError(f"{repo_name}: shown_ids names tests that do not fail: {sorted(shown - ids)}")
    if shown >= ids:
        raise IssueTextError(f"{repo_name}: every failing test would be shown; keep at least one out of the text")
    hidden_names = {_test_name(t) for t in ids - shown} - {_test_name(t) for t in shown}
    hidden = re.compile("|".join(rf"(?<![\w]){re.escape(n)}(?![\w])" for n in sorted(hidden_names))) \
        if hidden_names else None

    def clean(piece: str) -> str:
        """The piece, or '' when it names a hidden test or how a bug was made."""
        if _FORBIDDEN.search(piece) or (hidden is not None and hidden.search(piece)):
            return ""
        return piece

    shown_records = [f for f in records if f.test_id in shown and clean(f.test_id)]
    key = f"{seed}\x00{repo_name}\x00" + "\x00".join(sorted(ids))
    lines: list[str] = []
    if shown_records:
        subject = clean(_behaviour(shown_records[0].test_id)) or "a documented behaviour"
        one = len(shown_records) == 1
        count, fail, pass_ = ("one test", "fails", "passes") if one else (f"{len(shown_records)} tests", "fail", "pass")
        lines.append(_choose(_TITLES, key, "title").format(behaviour=subject[:1].upper() + subject[1:]))
        lines.append("")
        lines.append(_choose(_OPENINGS, key, "opening").format(repo=repo_name, count=count, fail=fail, pass_=pass_))
        lines.append("")
        for f in shown_records[:LISTED_AT_MOST]:
            how = clean(_how(f))
            verb = "errors" if f.outcome == "error" else "fails"
            lines.append(f"- `{f.test_id}` {verb}" + (f": {how}" if how else ""))
        if len(shown_records) > LISTED_AT_MOST:
            lines.append(f"- ... and {len(shown_records) - LISTED_AT_MOST} more (run the tests to see them all)")
    else:
        # nothing may be named: say what goes wrong, from the first failure, without its test
        how = clean(_how(records[0]))
        lines.append(_choose(_ANONYMOUS_TITLES, key, "title").format(repo=repo_name))
        lines.append("")
        lines.append(f"Something in {repo_name} misbehaves" + (f": {how}." if how else "."))
    lines.append("")
    more = _choose(_MORE, key, "more")
    if more:
        lines.append(more)
    lines.append(_choose(_CLOSINGS if shown_records else _ANONYMOUS_CLOSINGS, key, "closing"))
    return "\n".join(lines) + "\n"
