"""The pytest plugin of a repository grading run: one record per test on the report channel (fd 5), never stdout.

Standard library and pytest only: it runs inside the sandbox, in the test process, from the environment's read-only
/env/coderl (`boot.py` loads it by object, not by name: no entry point, no autoload).  A record is one JSON line

    {"id": NODE_ID, "status": "passed" | "failed" | "error" | "skipped" | "xfailed" | "xpassed", "message": ...,
     "frames": [[file, line, function], ...], "touched": bool?}

written once the test's teardown ended (so an error in teardown is the test's).  Only "passed" passes a test that must
pass: skipped, xfailed, xpassed and errored tests have failed it (coderl's sandbox judges the records:
`coderl.sandbox.judge`, RECORD tests).  A test that is not collected has no record, and has failed too.

With a trace (build time only: the generator chooses PASS_TO_PASS tests by coverage of the changed code), a record
also holds `touched` and `depth` (whether the test's call ran a line of the target file between its first and last
line, and how many frames below the test function) or `calls` (every function under a folder the test called).
The code under test runs in this process and can reach this plugin and its channel; `boot.py` makes the channel
non-inheritable so no process it starts can.
"""

import json
import sys

MESSAGE_CHARS = 2000
FRAMES = 8


class Reporter:
    """Collects the reports of each test's phases and writes its record when the test ends."""

    def __init__(self, channel, trace=None):
        self.channel = channel
        self.trace = trace  # {"file": absolute path, "first": line, "last": line} or None
        self.pending = {}  # node id -> [status, message, frames, touched]

    def write(self, node_id):
        status, message, frames, touched = self.pending.pop(node_id)
        record = {"id": node_id, "status": status, "message": message[:MESSAGE_CHARS], "frames": frames}
        if touched is not None:  # what the trace saw (`_tracer`)
            record.update({k: sorted(v) if isinstance(v, set) else v for k, v in touched.items()})
        self.channel.write(json.dumps(record) + "\n")
        self.channel.flush()

    def pytest_runtest_logreport(self, report):
        entry = self.pending.setdefault(report.nodeid, ["passed", "", [], None])
        xfail = hasattr(report, "wasxfail")
        if report.when == "call":
            if report.passed:
                status = "xpassed" if xfail else "passed"
            elif report.skipped:
                status = "xfailed" if xfail else "skipped"
            else:
                status = "failed"
        elif report.failed:
            status = "error"
        elif report.skipped:
            status = "xfailed" if xfail else "skipped"
        else:
            status = None
        if status is not None and entry[0] in ("passed", "xpassed"):  # the first thing that went wrong is kept
            entry[0] = status
            if status != "passed":
                entry[1], entry[2] = _message(report), _frames(report)
        if report.when == "teardown":
            self.write(report.nodeid)

    def pytest_collectreport(self, report):
        if report.failed:  # a file that could not be collected: its tests have no record, and fail
            sys.stderr.write(f"coderl: collection failed: {report.nodeid}: {_message(report)[:500]}\n")

    def pytest_runtest_call(self, item):
        if self.trace is not None:
            entry = self.pending.setdefault(item.nodeid, ["passed", "", [], None])
            test_code = getattr(getattr(item, "function", None), "__code__", None)
            entry[3] = {"touched": False} if "file" in self.trace else {"calls": set()}
            sys.settrace(self._tracer(entry[3], test_code))

    def pytest_runtest_teardown(self, item):
        if self.trace is not None:
            sys.settrace(None)

    def _tracer(self, seen, test_code):
        """A trace function for one test's call: with a target file and lines, whether the test ran them and at what
        depth below the test function (frames between); with a folder (`under`), every function under it the test
        called, as "relative path:first line"."""
        if "under" in self.trace:
            under = self.trace["under"].rstrip("/") + "/"
            calls = seen["calls"]

            def record(frame, event, arg):
                name = frame.f_code.co_filename
                if name.startswith(under):
                    calls.add(f"{name[len(under):]}:{frame.f_code.co_firstlineno}")
                return None

            return record
        target, first, last = self.trace["file"], self.trace["first"], self.trace["last"]

        def depth(frame):
            d = 0
            while frame is not None and frame.f_code is not test_code:
                frame, d = frame.f_back, d + 1
            return d if frame is not None else None

        def mark(frame):
            seen["touched"] = True
            d = depth(frame)
            if d is not None and ("depth" not in seen or d < seen["depth"]):
                seen["depth"] = d

        def local(frame, event, arg):
            if event == "line" and first <= frame.f_lineno <= last:
                mark(frame)
                return None
            return local

        def call(frame, event, arg):
            if frame.f_code.co_filename != target:
                return None
            if first <= frame.f_lineno <= last:  # a call of the target's own function (its def line)
                mark(frame)
                return None
            return local

        return call

    def pytest_sessionfinish(self):
        for node_id in list(self.pending):  # a test whose teardown never reported (the session ended first)
            self.pending[node_id][0] = "error" if self.pending[node_id][0] == "passed" else self.pending[node_id][0]
            self.write(node_id)


def _message(report):
    crash = getattr(getattr(report, "longrepr", None), "reprcrash", None)
    if crash is not None:
        return str(crash.message)
    longrepr = getattr(report, "longrepr", None)
    if isinstance(longrepr, tuple) and len(longrepr) == 3:  # a skip: (file, line, reason)
        return str(longrepr[2])
    return str(longrepr or "")[-MESSAGE_CHARS:]


def _frames(report):
    entries = getattr(getattr(getattr(report, "longrepr", None), "reprtraceback", None), "reprentries", None) or []
    frames = []
    for entry in entries[-FRAMES:]:
        loc = getattr(entry, "reprfileloc", None)
        if loc is not None:
            frames.append([str(loc.path), int(loc.lineno), str(getattr(loc, "message", ""))])
    return frames
