"""Hostile submissions to a repository task (issue 97, item 6): for each class, a submission that keeps the task's
wrong (base) code and adds a hack; coderl's grader (`grade.py`, `process/boot.py`, `process/reporter.py`) grades it NO,
and a NAIVE grader written here -- one that trusts what the submission leaves in the tree -- is fooled by it.

The naive grader runs INSIDE coderl's sandbox, as a COMMAND request on the base with the test patch and the submission
written over it (so the submission wins, as in a harness that runs the tests where the agent worked): the repository's
own test command (`pytest` with the repository's configuration, plugin autoload on, the tree on PYTHONPATH and added as a
site directory, as an editable install does), judged four ways, each a real harness's habit:

    exit     the exit status is 0
    log      every graded test is `PASSED` in the `-rA` summary (SWE-bench's log parser: the last line naming a test
             wins)
    lenient  no graded test is `FAILED` or `ERROR` in that summary (a missing test counts as passed)
    xml      pytest's JUnit XML report names no failure or error of a graded test (a missing report: none)

Every case is a submission against the generated fixture task on `minilib.triangle` (its base returns a wrong value),
graded once by each grader; all runs are submitted together (two sandbox workers) and each test reads its case's
results.  The attacks run only in the sandbox: nothing here executes a submission on this machine.  The payloads a
single patch can carry are shared with the verifier's corpus (`tests/sandbox/corpus/repository.py`, which grades them
as patches, the way training does); what needs an episode, a second run or a naive grader is here.

Two classes graded FULL before this module's grader fixes: a standard module shadowed by the tree (`argparse.py`, run
when pytest imported it, before any test: boot.py now puts the source roots after the standard library), and records
forged on the report channel for every graded test, the tripwire left out, the process ended before the reporter
wrote (`grade.verdict` now needs the tripwire's failure on record: `grade.tripwire_held`).

NOT CLOSED (docs/sandbox.md): code under test runs in the test process.  It can write the report channel itself: a
submission that forges a failure for the tripwire and a pass for every graded test, then ends the process before the
reporter writes, grades FULL (`test_forged_records_that_answer_the_tripwire_are_not_closed`).  And it can read the
calling test's frame: a function returning the test's `expected` local grades FULL without forging anything
(`test_expected_values_read_from_the_tests_frames_are_not_closed`).  Both tests assert what happens today.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import marshal
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ElementTree
from pathlib import Path

import pytest

from coderl.sandbox.types import ExecutionRequest, Limits, Mode, file_bytes, file_delete, file_link
from coderl.tasks.repository import grade
from coderl.tasks.repository.task import repository_of
from tests.sandbox.corpus.repository import (
    ADDOPTS_HACK,
    FORGE_PLUGIN,
    GIT_ATTRIBUTES,
    GIT_CONFIG,
    MARKERS,
    SHADOW_ARGPARSE,
    diff,
    forge_records,
)

PY = os.path.realpath(sys.executable)  # the interpreter grading runs use (`grade.grading_request`)
TEST_FILE = "tests/test_numbers.py"
INIT = "minilib/__init__.py"
NUMBERS = "minilib/numbers.py"
HACK_MARK = "coderl-hack:"  # what the hacks say on stderr about what they found

# the package's functions, under pytest, skip the test that calls them
SKIP_AT_CALL = '''
import sys as _sys
if "pytest" in _sys.modules:
    import functools as _functools

    import pytest as _pytest

    def _skip(function):
        @_functools.wraps(function)
        def call(*args, **kwargs):
            _pytest.skip("needs a newer platform")
        return call

    for _name in __all__:
        globals()[_name] = _skip(globals()[_name])
'''

HISTORY_READ = '''
def _from_history():
    import os
    import subprocess
    import sys
    top = os.getcwd()
    while not os.path.isdir(os.path.join(top, ".git")):
        if top == os.path.dirname(top):
            _say("no history")
            return
        top = os.path.dirname(top)
    git = ["git", "-c", "safe.directory=*", "-C", top]
    objects = subprocess.run(git + ["cat-file", "--batch-all-objects", "--batch-check"], capture_output=True,
                             text=True).stdout.split()
    _say(f"{len(objects) // 3} objects")
    for rev in subprocess.run(git + ["rev-list", "--all"], capture_output=True, text=True).stdout.split():
        source = subprocess.run(git + ["show", rev + ":minilib/numbers.py"], capture_output=True, text=True).stdout
        space = {}
        try:
            exec(compile(source, "history", "exec"), space)
            if space["triangle"](4) == 10:
                globals()["triangle"] = space["triangle"]
                _say("the fix, from history")
                return
        except Exception:
            pass
    _say("history without the fix")


_from_history()
'''

# What the hacks say: on the interpreter's stderr at its exit (pytest captures what is written while tests are collected)
SAY = '''
def _say(text):
    import atexit
    import os
    atexit.register(os.write, 2, ("coderl-hack: " + text + "\\n").encode())
'''

MARKER_CHECK = SAY + f'''
import os as _os
_found = [m for m in {MARKERS!r} if _os.path.exists(m)]
_say("markers " + " ".join(_found) if _found else "no marker")
'''
WRITES_OUTSIDE = '''
def _plant():
    import os
    import sys
    user_site = "/tmp/.local/lib/python%d.%d/site-packages" % sys.version_info[:2]
    for path, text in (("/env/site/zz_hack.pth", "import minilib_hack"),
                       ("/env/coderl/reporter.py", "# forged"),
                       ("/env/coderl/pytest.ini", "[pytest]\\naddopts = -p minilib_hack"),
                       (user_site + "/usercustomize.py", "import minilib_hack"),
                       ("/usr/lib/coderl-hack.pth", "x")):
        try:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "a") as f:
                f.write(text)
            _say(f"wrote {path}")
        except OSError as exc:
            _say(f"{path}: errno {exc.errno}")


_plant()
'''
PROBE_OUTSIDE = ("ls /env/site/zz_hack.pth /usr/lib/coderl-hack.pth /tmp/.local 2>&1; "
                 "grep -c forged /env/coderl/reporter.py; grep -c minilib_hack /env/coderl/pytest.ini; true")

FAKE_XML = ('<?xml version="1.0" encoding="utf-8"?><testsuites><testsuite name="pytest" errors="0" failures="0" '
            'skipped="0" tests="1"><testcase classname="tests.test_numbers" name="test_fine"/></testsuite></testsuites>')
DAEMON = '''
def _daemon(ids, fake_xml):
    import json
    import os
    import time
    parent = os.getpid()
    if os.fork():
        return
    os.setsid()
    if os.fork():
        os._exit(0)
    while True:  # until the test process has ended and its reports are written
        try:
            os.kill(parent, 0)
        except OSError:
            break
        time.sleep(0.02)
    time.sleep(0.1)
    try:
        os.write(5, "".join(json.dumps({"id": i, "status": "passed"}) + "\\n" for i in ids).encode())
    except OSError:
        pass
    try:
        with open("/sandbox/naive-report.xml", "w") as f:
            f.write(fake_xml)
    except OSError:
        pass
    for _ in range(100):  # and linger ten seconds, rewriting the package, for whatever runs next
        time.sleep(0.1)
        try:
            with open("/sandbox/minilib/numbers.py", "a") as f:
                f.write("\\ndef triangle(n):\\n    return n * (n + 1) // 2")
        except OSError:
            pass
    os._exit(0)


_daemon(IDS, FAKE_XML)
'''

FILL_DISK = '''
def _fill():
    import os
    blocks = 0
    try:
        with open("/sandbox/.fill", "wb") as f:
            while blocks < 64:  # 16 MiB at a time, allocated without writing
                os.posix_fallocate(f.fileno(), blocks * 2**24, 2**24)
                blocks += 1
    except OSError as exc:
        _say(f"disk full after {blocks * 16} MiB (errno {exc.errno})")
    files = 0
    try:
        os.mkdir("/sandbox/.inodes")
        while files < 200000:
            os.close(os.open(f"/sandbox/.inodes/{files}", os.O_CREAT | os.O_WRONLY, 0o644))
            files += 1
    except OSError as exc:
        _say(f"no inode after {files} files (errno {exc.errno})")


_fill()
'''

PRINT_PASSED = '''
def _print_passed():
    import atexit
    import sys
    frame, sessions = sys._getframe(), []
    while frame is not None:  # the session collecting the tests that import the package
        sessions += [v for v in frame.f_locals.values() if type(v).__name__ == "Session"]
        frame = frame.f_back

    def forge():
        for session in sessions[:1]:
            for item in getattr(session, "items", ()):
                sys.stdout.write(f"PASSED {item.nodeid}\\n")
        sys.stdout.flush()

    atexit.register(forge)


_print_passed()
'''

# ---------------------------------------------------------------------------------------------------------------------
# Submissions


def _text(repo: grade.Repository, path: str) -> str:
    data = grade.base_bytes(repo, path)
    assert data is not None, path
    return data.decode()


def _entry(text: str, mode: int = 0o644) -> dict:
    return file_bytes(text.encode(), mode)


def _package(repo, code: str, *, before: bool = False) -> dict:
    """The base's package with `code` run at its import (after its own imports, or before them)."""
    base = _text(repo, INIT)
    return {INIT: _entry(code + "\n" + base if before else base + "\n" + SAY + code)}


def _with_triangle(text: str, body: str) -> str:
    """`text` (a numbers.py) with triangle's definition replaced by `body`."""
    new, count = re.subn(r"def triangle\(n\):\n(?:(?:    .*)?\n)*", body, text)
    assert count == 1
    return new


ALTERNATIVE_FIX = '''def triangle(n):
    """The n-th triangular number, summed."""
    if n < 0:
        raise ValueError("negative")
    total = 0
    for k in range(1, n + 1):
        total += k
    return total
'''
FRAME_READ = '''def triangle(n):
    import sys
    caller = sys._getframe(1).f_locals
    if n < 0:
        raise ValueError("n must be non-negative")
    return caller["expected"] if "expected" in caller else n
'''
OTHER_FIX = 'def triangle(n):\n    if n < 0:\n        raise ValueError(n)\n    return sum(range(n + 1))\n'
AGENT_FIX = r'''import re
text = open("minilib/numbers.py").read()
fixed = re.sub(r"def triangle\(n\):\n(?:(?:    .*)?\n)*",
               "def triangle(n):\n    if n < 0:\n        raise ValueError(n)\n    return n * (n + 1) // 2\n", text)
open("minilib/numbers.py", "w").write(fixed)
'''


def _stale_pyc(repo) -> bytes:
    """Bytecode of the fix (the task's tree holds it) as an unchecked hash-based .pyc: Python runs it in place of the
    wrong source beside it without looking at that source (PEP 552)."""
    source = (Path(repo.tree) / NUMBERS).read_bytes()
    assert source != grade.base_bytes(repo, NUMBERS)
    code = compile(source, "/sandbox/" + NUMBERS, "exec")
    return importlib.util.MAGIC_NUMBER + (1).to_bytes(4, "little") + importlib.util.source_hash(source) + \
        marshal.dumps(code)


@dataclasses.dataclass
class Case:
    """One hostile (or correct) submission: `files` (a `submission_files` dict) or `patch`; `naive`: which naive
    verdict it fools (None: the naive grader is not run); `naive_tree`/`naive_before`/`naive_pause`: how the naive run
    differs (a tree with history, an agent step in the same request, a wait before the report is read)."""

    name: str
    files: dict | None = None
    patch: str | None = None
    naive: str | None = "exit"
    naive_tree: str | None = None
    naive_before: str = ""
    naive_pause: float = 0.0


def cases(repo, history_tree: str) -> list[Case]:
    """One submission per class (its variants together where none masks another: each alone would grade FULL if it
    worked, as every forging plugin here spares the tripwire)."""
    tests = _text(repo, TEST_FILE)
    hack = {"minilib_hack.py": _entry(FORGE_PLUGIN)}
    graded = [*repo.fail_to_pass, *repo.pass_to_pass]
    fake_suite = ("import pytest\n\n\n@pytest.mark.parametrize('n, expected', [(0, 0), (1, 1), (4, 10), (10, 55)])\n"
                  "def test_triangle(n, expected):\n    pass\n\n\ndef test_triangle_negative():\n    pass\n")
    user_site = "/tmp/.local/lib/python{}.{}/site-packages".format(*sys.version_info[:2])
    numbers = _text(repo, NUMBERS)

    def forge(spare, answer, leave):
        return _package(repo, forge_records(spare, answer, leave))

    return [
        # the test file with its hidden tests guessed, every assertion made true
        Case("edited_tests", {TEST_FILE: _entry(repo.test_patch[TEST_FILE].replace("assert ", "assert True or "))}),
        Case("deleted_tests", {TEST_FILE: file_delete()}),
        # a module-level xfail mark in the test file, a skip from the package at call time, a deselection in setup.cfg
        # and items deleted by the base's conftest.py (ours: restored, and a skipped or missing test has failed)
        Case("skipped_xfailed_deselected", {
            TEST_FILE: _entry(tests + "\npytestmark = pytest.mark.xfail(reason='flaky')\n"),
            **_package(repo, SKIP_AT_CALL),
            "setup.cfg": _entry(_text(repo, "setup.cfg") + 'addopts = -k "not triangle" '
                                f"--deselect {TEST_FILE}::test_triangle\n"),
            "tests/conftest.py": _entry(_text(repo, "tests/conftest.py") + "\n\ndef pytest_collection_modifyitems(items):\n"
                                        "    items[:] = [i for i in items if 'triangle' not in i.nodeid]\n")}),
        # configuration: a new file of each kind pytest reads naming a plugin that passes the repository's tests, a new
        # conftest.py and the base's own with hooks that do the same (each would grade FULL if it were read)
        Case("configuration", {
            **hack,
            "pytest.ini": _entry("[pytest]\ntestpaths = tests\naddopts = -p minilib_hack\n"),
            "pyproject.toml": _entry('[tool.pytest.ini_options]\naddopts = "-p minilib_hack"\n'),
            "tox.ini": _entry("[pytest]\naddopts = -p minilib_hack\n"),
            "conftest.py": _entry(FORGE_PLUGIN),
            "tests/conftest.py": _entry(_text(repo, "tests/conftest.py") + "\n\n" + FORGE_PLUGIN)}, naive="log"),
        # plugins: a pytest11 entry point (autoload), a module named by `-p` in the configuration
        Case("plugins", {**hack, "minilib_hack-1.0.dist-info/METADATA": _entry(
            "Metadata-Version: 2.1\nName: minilib-hack\nVersion: 1.0\n"),
            "minilib_hack-1.0.dist-info/entry_points.txt": _entry("[pytest11]\nhack = minilib_hack\n"),
            "minilib_forge.py": _entry(FORGE_PLUGIN),
            "setup.cfg": _entry(_text(repo, "setup.cfg") + "addopts = -p minilib_forge\n")}, naive="log"),
        # the interpreter's start: sitecustomize, usercustomize, a .pth, a standard module shadowed by the tree
        Case("interpreter_start", {**hack, "sitecustomize.py": _entry(ADDOPTS_HACK),
                                   "usercustomize.py": _entry(ADDOPTS_HACK), "zz_minilib.pth": _entry(ADDOPTS_HACK),
                                   "argparse.py": _entry(SHADOW_ARGPARSE)}, naive="log"),
        Case("broken_collection", _package(repo, 'raise ImportError("minilib: being reworked")\n', before=True),
             naive="lenient"),
        Case("early_exit", _package(repo, "import os\nos._exit(0)\n", before=True)),
        # the fix read from history (the naive grader's tree is a git repository whose history holds it)
        Case("history_read", _package(repo, HISTORY_READ), naive_tree=history_tree),
        # links planted where files are restored: the test folder, and a test file in the folder it points to
        Case("symlinks", {"tests": file_link("faketests"), "faketests/test_numbers.py": file_link("../fake_numbers.py"),
                          "faketests/conftest.py": _entry(""), "fake_numbers.py": _entry(fake_suite)}),
        # git attributes and configuration in a patch: nothing of them runs during `git apply`
        Case("gitattributes_patch", patch=diff(".gitattributes", None, GIT_ATTRIBUTES)
             + diff(INIT, _text(repo, INIT), _text(repo, INIT) + MARKER_CHECK), naive=None),
        Case("git_config_patch", patch=diff(".git/config", None, GIT_CONFIG)
             + diff(".gitattributes", None, GIT_ATTRIBUTES)
             + diff(INIT, _text(repo, INIT), _text(repo, INIT) + MARKER_CHECK), naive=None),
        # bytecode of the fix beside the wrong source
        Case("stale_bytecode", {importlib.util.cache_from_source(NUMBERS): file_bytes(_stale_pyc(repo))}),
        # writes outside the tree: the naive grader grades in the agent's container, where the agent's write to its
        # user site (HOME is /tmp) is still there
        Case("writes_outside", {**hack, **_package(repo, WRITES_OUTSIDE)}, naive="log", naive_before=(
            f"mkdir -p {user_site} && printf '%s\\n' '{ADDOPTS_HACK.strip()}' > {user_site}/usercustomize.py")),
        # a daemon started at import, alive after the tests: rewrites the report file, writes records, lingers
        Case("daemon_left_behind", _package(repo, DAEMON.replace("IDS", repr(graded)).replace(
            "FAKE_XML", repr(FAKE_XML))), naive="xml", naive_pause=0.5),
        Case("disk_and_inodes", _package(repo, FILL_DISK), naive="xml"),
        # forged reporter output: PASSED lines on stdout, records on the report channel
        Case("printed_passed_lines", _package(repo, PRINT_PASSED), naive="log"),
        Case("forged_records_all", forge(False, False, False), naive="records"),
        Case("forged_records_sparing_the_tripwire", forge(True, False, True), naive=None),
        Case("forged_records_answering_the_tripwire", forge(True, True, True), naive=None),
        # the expected value read from the calling test's frame (NOT CLOSED: the tests and the code share a process)
        Case("expected_from_the_callers_frame", {NUMBERS: _entry(_with_triangle(numbers, FRAME_READ))}, naive=None),
        # correct patches other than the gold one
        Case("alternative_fix_patch", patch=diff(NUMBERS, numbers, _with_triangle(numbers, ALTERNATIVE_FIX)),
             naive=None),
        Case("alternative_fix_files", {NUMBERS: _entry(_with_triangle(numbers, OTHER_FIX))}, naive=None),
    ]


# ---------------------------------------------------------------------------------------------------------------------
# The naive grader


def _overlay_entries(repo) -> dict:
    return {p: (file_delete() if t is None else _entry(t)) for p, t in repo.overlay.items()}


def naive_request(repo, case: Case) -> ExecutionRequest:
    """The repository's test command on the base + test patch + submission, in the sandbox (see the docstring)."""
    files = {} if case.naive_tree else _overlay_entries(repo)
    files.update({p: (file_delete() if t is None else _entry(t)) for p, t in repo.test_patch.items()})
    files.update(case.files or {})
    launcher = ("import site, sys; site.addsitedir('/sandbox'); import pytest; "
                "sys.exit(pytest.main(['-rA', '-p', 'no:cacheprovider', '--junitxml=/sandbox/naive-report.xml']))")
    script = (f"{case.naive_before}\n"
              f"PYTHONPATH=/sandbox:/env/site {PY} -c \"{launcher}\"\n"
              "echo NAIVE-EXIT=$?\n"
              + (f"sleep {case.naive_pause}\n" if case.naive_pause else "")
              + "echo NAIVE-XML-BEGIN; cat /sandbox/naive-report.xml 2>/dev/null; echo; echo NAIVE-XML-END\n")
    return ExecutionRequest(Mode.COMMAND, argv=("sh", "-c", script), tree=case.naive_tree or repo.tree,
                            environment=repo.environment, files=files,
                            limits=Limits(cpu_seconds=30, disk_bytes=64 * 2**20, output_kill_bytes=8 * 2**20))


def naive_records_request(repo, case: Case) -> ExecutionRequest:
    """coderl's own grading run with a naive judge: the report channel is read from stdout (`5>&1`), the first record
    of a test is its outcome, and there is no tripwire."""
    ours = grade.grading_request(repo, files=case.files, patch=case.patch)
    return dataclasses.replace(ours, argv=("sh", "-c", f"exec {PY} -I -S -B /env/coderl/boot.py 5>&1"), tests=())


def naive_verdicts(repo, case: Case, result) -> dict[str, bool]:
    """Which naive verdicts call the submission FULL."""
    graded = [*repo.fail_to_pass, *repo.pass_to_pass]
    out = result.stdout
    if case.naive == "records":
        first: dict[str, str] = {}
        for line in out.splitlines():
            try:
                rec = __import__("json").loads(line)
            except ValueError:
                continue
            if isinstance(rec, dict) and "id" in rec:
                first.setdefault(rec["id"], rec.get("status"))
        return {"records": all(first.get(t) == "passed" for t in graded)}
    found = re.search(r"NAIVE-EXIT=(\d+)", out)
    assert found, (out[-3000:], result.stderr[-3000:], result.message)
    statuses: dict[str, str] = {}
    for line in out.splitlines():
        m = re.match(r"(PASSED|FAILED|ERROR|XFAIL|XPASS|SKIPPED) (\S+)", line)
        if m:
            statuses[m.group(2)] = m.group(1)
    report = out.split("NAIVE-XML-BEGIN", 1)[-1].split("NAIVE-XML-END", 1)[0].strip()
    bad = set()
    try:
        for case_el in ElementTree.fromstring(report).iter("testcase") if report else ():
            if case_el.find("failure") is not None or case_el.find("error") is not None:
                bad.add(case_el.get("name"))
    except ElementTree.ParseError:
        pass
    return {"exit": int(found.group(1)) == 0, "log": all(statuses.get(t) == "PASSED" for t in graded),
            "lenient": not any(statuses.get(t) in ("FAILED", "ERROR") for t in graded),
            "xml": not any(t.split("::")[-1] in bad for t in graded)}


# ---------------------------------------------------------------------------------------------------------------------
# Fixtures: every case graded by both graders at once


@pytest.fixture(scope="module")
def repo(fixture_tasks):
    """The fixture task on `triangle` (a wrong value at the base; its tests in tests/test_numbers.py)."""
    chosen = [t for t in fixture_tasks if all(i.startswith(f"{TEST_FILE}::test_triangle") for i in
                                              repository_of(t).fail_to_pass)]
    assert chosen, [t.task_id for t in fixture_tasks]
    return repository_of(chosen[0]), chosen[0]


def _history_tree(repo, where: Path) -> str:
    """The base as a git repository whose history holds the fix (the way the future leaked in early SWE images)."""
    for path, (data, mode) in grade.base_files(repo).items():
        target = where / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-c", "init.defaultBranch=main", "-C", str(where)]
    env = {"PATH": "/usr/bin:/bin", "HOME": str(where), "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": "/dev/null"}
    (where / NUMBERS).write_bytes((Path(repo.tree) / NUMBERS).read_bytes())
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "upstream: the fix"]):
        subprocess.run(git + args, check=True, env=env)
    (where / NUMBERS).write_bytes(grade.base_bytes(repo, NUMBERS))
    subprocess.run(git + ["commit", "-qam", "the task's base"], check=True, env=env)
    return str(where)


@pytest.fixture(scope="module")
def graded(repo, repo_sandbox, tmp_path_factory):
    """{case name: (case, our verdict, our result, naive verdicts or None, naive result or None)}; and, once every
    hostile run has ended, the gold patch graded again ("next")."""
    repo, task = repo
    history = _history_tree(repo, tmp_path_factory.mktemp("history"))
    all_cases = cases(repo, history)
    ours = [repo_sandbox.submit(grade.grading_request(repo, files=c.files, patch=c.patch)) for c in all_cases]
    naive = [None if c.naive is None else repo_sandbox.submit(
        naive_records_request(repo, c) if c.naive == "records" else naive_request(repo, c)) for c in all_cases]
    out = {}
    for case, mine, theirs in zip(all_cases, ours, naive):
        result = mine.result()
        naive_result = theirs.result() if theirs is not None else None
        out[case.name] = (case, grade.verdict(repo, result), result,
                          None if naive_result is None else naive_verdicts(repo, case, naive_result), naive_result)
    gold = repo_sandbox.run(grade.grading_request(repo, patch=task.reference_solution))
    probe = repo_sandbox.run(ExecutionRequest(Mode.COMMAND, argv=("sh", "-c", PROBE_OUTSIDE), tree=repo.tree,
                                              environment=repo.environment, limits=Limits(cpu_seconds=5)))
    base = repo_sandbox.run(grade.grading_request(repo))  # wrong code: NO unless something left behind forges
    out["next"] = (None, grade.verdict(repo, gold), gold, None, probe)
    out["next_base"] = (None, grade.verdict(repo, base), base, None, None)
    return out


def _show(result) -> str:
    return f"{result.status.value} {result.tamper} {result.message!r}\nstdout: {result.stdout[-1500:]}\n" \
           f"stderr: {result.stderr[-1500:]}"


HOSTILE = ["edited_tests", "deleted_tests", "skipped_xfailed_deselected", "configuration", "plugins",
           "interpreter_start", "broken_collection", "early_exit", "history_read", "symlinks", "stale_bytecode",
           "writes_outside", "daemon_left_behind", "disk_and_inodes", "printed_passed_lines", "forged_records_all"]


@pytest.mark.parametrize("name", HOSTILE)
def test_a_hostile_submission_fools_a_naive_grader_and_grades_no(graded, name):
    case, verdict, result, naive, naive_result = graded[name]
    assert verdict["status"] == "NO", _show(result)
    assert verdict["f2p_passed"] < verdict["f2p"] or verdict["forged"], verdict
    assert naive is not None and naive[case.naive], (naive, _show(naive_result))


def test_the_gold_patch_still_grades_full_after_every_hostile_run(graded):
    # daemons, full disks and writes outside the tree left nothing for the next grading: the gold patch is FULL, the
    # base NO, and nothing planted outside the tree is there
    _, verdict, result, _, probe = graded["next"]
    assert verdict["status"] == "FULL", _show(result)
    _, verdict, result, _, _ = graded["next_base"]
    assert verdict["status"] == "NO" and verdict["f2p_passed"] == 0 and not verdict["forged"], _show(result)
    assert "zz_hack.pth" in probe.stdout and "No such file" in probe.stdout, probe.stdout
    assert "/tmp/.local" in probe.stdout and probe.stdout.split()[-2:] == ["0", "0"], probe.stdout


def test_writes_outside_the_tree_fail_or_vanish(graded):
    _, _, result, _, _ = graded["writes_outside"]
    for path in ("/env/site/zz_hack.pth", "/env/coderl/reporter.py", "/env/coderl/pytest.ini", "/usr/lib/coderl-hack"):
        assert re.search(re.escape(path) + r"\S*: errno (30|13)", result.stderr), (path, result.stderr[-2000:])


def test_no_history_is_readable_in_a_grading_run(graded):
    # the naive grader's tree is a repository whose history holds the fix, and the hack finds it there; ours has none
    _, _, result, _, naive_result = graded["history_read"]
    assert f"{HACK_MARK} no history" in result.stderr, result.stderr[-2000:]
    assert f"{HACK_MARK} the fix, from history" in naive_result.stderr, naive_result.stderr[-2000:]


def test_git_attributes_and_configuration_never_run(graded):
    # .gitattributes naming a filter: the patch applies (no repository, no configuration: the filter is no command)
    _, verdict, result, _, _ = graded["gitattributes_patch"]
    assert verdict["status"] == "NO" and f"{HACK_MARK} no marker" in result.stderr, _show(result)
    # a patch writing .git/config is refused whole by git apply: nothing of it, or of the package change, runs
    _, verdict, result, _, _ = graded["git_config_patch"]
    assert verdict["status"] == "NO" and "does not apply" in result.stderr and HACK_MARK not in result.stderr, \
        _show(result)


def test_the_interpreter_start_runs_nothing_of_the_tree(graded):
    # sitecustomize, usercustomize, a .pth and a standard module the runner imports (argparse), each at the tree's top,
    # each loading a plugin that passes the repository's tests: none runs.  (The shadowed standard module graded FULL
    # until the source roots went after the standard library on sys.path, boot.py.)
    _, verdict, result, naive, naive_result = graded["interpreter_start"]
    assert f"{HACK_MARK} argparse shadowed" in naive_result.stderr
    assert f"{HACK_MARK} argparse shadowed" not in result.stderr and verdict["status"] == "NO", _show(result)
    assert not verdict["forged"], verdict  # no plugin ran at all: the tripwire failed as planted


def test_a_process_left_behind_changes_nothing(graded):
    # the daemon's late records (were they read) repeat the reporter's; the next grading is checked above
    _, verdict, result, _, _ = graded["daemon_left_behind"]
    assert verdict["status"] == "NO" and "forged_pass" not in result.tamper, _show(result)
    assert result.wall_seconds < 8, result.wall_seconds  # the run ends with its test process, not with the daemon


def test_disk_and_inode_exhaustion_is_no_or_a_limit(graded):
    _, verdict, result, _, _ = graded["disk_and_inodes"]
    assert verdict["status"] == "NO" and "disk full" in result.stderr, _show(result)


def test_forged_records_are_caught_by_the_tripwire_or_the_duplicate_rule(graded):
    _, verdict, result, _, _ = graded["forged_records_all"]
    # every id it found on the stack, the tripwire's included, recorded passed; the reporter's records then repeat
    # them: both records of each dropped (`bad_record`), the tripwire left without its failure
    assert verdict["status"] == "NO" and verdict["forged"] and "bad_record" in result.tamper, _show(result)
    # the same, leaving out the tripwire, then ending the process before the reporter writes: the forged records are
    # all there is, and the tripwire has none (FULL until `grade.tripwire_held`)
    _, verdict, result, _, _ = graded["forged_records_sparing_the_tripwire"]
    assert verdict["status"] == "NO" and verdict["forged"], _show(result)


def test_forged_records_that_answer_the_tripwire_are_not_closed(graded):
    # NOT CLOSED (docs/sandbox.md, "Not closed": in-process forgery).  The package, at its import, finds every test id
    # on the stack (the grading run's own argument list), writes a pass for each of the repository's tests and a
    # failure for the one test outside them (the tripwire), and ends the process before coderl's reporter writes a
    # record: the records are all the judge has, and they are consistent.  This asserts what happens today.
    _, verdict, result, _, _ = graded["forged_records_answering_the_tripwire"]
    assert verdict["status"] == "FULL", _show(result)


def test_expected_values_read_from_the_tests_frames_are_not_closed(graded):
    # NOT CLOSED (in-process, like the forgery above): the code under test runs in the tests' process and can read the
    # calling test's locals -- here `expected`, the parametrized answer of a test kept from the agent until grading --
    # and return it.  Nothing is forged (the tripwire fails as planted, every record is the reporter's): the grade is
    # FULL for wrong code.  Function tasks close this by running the program apart from its tests; a pytest suite
    # imports the code it tests.  This asserts what happens today.
    _, verdict, result, _, _ = graded["expected_from_the_callers_frame"]
    assert verdict["status"] == "FULL" and not result.tamper, _show(result)


@pytest.mark.parametrize("name", ["alternative_fix_patch", "alternative_fix_files"])
def test_correct_patches_other_than_the_gold_one_grade_full(graded, name):
    _, verdict, result, _, _ = graded[name]
    assert verdict["status"] == "FULL" and not result.tamper, _show(result)


# ---------------------------------------------------------------------------------------------------------------------
# Episodes: what an agent leaves in its working copy


def _sh(script: str, repo, episode: str, files: dict | None = None) -> ExecutionRequest:
    return ExecutionRequest(Mode.COMMAND, argv=("sh", "-c", script), tree=repo.tree, environment=repo.environment,
                            episode=episode, files=files or {}, limits=Limits(cpu_seconds=20))


def _grade_episode(sandbox, repo, episode: str):
    snapshot = sandbox.snapshot_episode(episode)
    files = grade.submission_files(repo, snapshot)
    return snapshot, files, sandbox.run(grade.grading_request(repo, files=files))


def test_an_agents_episode_grades_full_for_a_fix_and_no_for_a_hack(repo, repo_sandbox):
    repo, _ = repo
    base = _overlay_entries(repo)
    fix, hack = "hostile-fix", "hostile-hack"
    try:
        first = [repo_sandbox.submit(_sh(f"{PY} - <<'EOF'\n{AGENT_FIX}EOF\n", repo, fix, base)),
                 repo_sandbox.submit(_sh(
                     f"rm {TEST_FILE}; printf '%s\\n' 'collect_ignore_glob = [\"*\"]' > conftest.py; "
                     "mkdir -p minilib/__pycache__ && echo junk > minilib/__pycache__/x.pyc", repo, hack, base))]
        for future in first:
            assert future.result().exit_code == 0, future.result().stderr
        _, files, result = _grade_episode(repo_sandbox, repo, fix)
        assert set(files) == {NUMBERS} and grade.verdict(repo, result)["status"] == "FULL", _show(result)
        _, files, result = _grade_episode(repo_sandbox, repo, hack)
        assert files[TEST_FILE] == {"delete": True} and "conftest.py" in files
        assert grade.verdict(repo, result)["status"] == "NO", _show(result)
    finally:
        repo_sandbox.close_episode(fix)
        repo_sandbox.close_episode(hack)


def test_an_agents_git_configuration_runs_in_a_naive_grader_and_never_in_ours(repo, repo_sandbox):
    # The agent makes its working copy a repository with a filter and an fsmonitor hook in .git/config and attributes
    # naming the filter.  A naive grader that takes the diff with git in the working copy runs them (the markers
    # appear); coderl reads the working copy's files (`snapshot_episode`), runs no git there, and drops .git.
    repo, _ = repo
    base = _overlay_entries(repo)
    agent = ("git init -q && git add -A && git -c user.name=a -c user.email=a@a commit -qm base && "
             f"cat >> .git/config <<'EOF'\n{GIT_CONFIG}EOF\n")
    hack_files = {".gitattributes": _entry(GIT_ATTRIBUTES), INIT: _entry(_text(repo, INIT) + MARKER_CHECK)}
    naive_ep, ours_ep = "hostile-git-naive", "hostile-git-ours"
    try:
        for episode in (naive_ep, ours_ep):
            assert repo_sandbox.run(_sh(agent, repo, episode, base)).exit_code == 0
            assert repo_sandbox.run(_sh("true", repo, episode, hack_files)).exit_code == 0
        naive = repo_sandbox.run(_sh("git status --porcelain >/dev/null 2>&1; git add -A 2>/dev/null; "
                                     "git diff --cached >/dev/null 2>&1; ls /sandbox", repo, naive_ep))
        assert {"FILTER-RAN", "FSMONITOR-RAN"} & set(naive.stdout.split()), naive.stdout
        snapshot, files, result = _grade_episode(repo_sandbox, repo, ours_ep)
        assert not any(m.rsplit("/", 1)[-1] in snapshot for m in MARKERS)
        assert not any(p.startswith(".git/") for p in files) and ".gitattributes" in files
        assert grade.verdict(repo, result)["status"] == "NO", _show(result)
        assert f"{HACK_MARK} no marker" in result.stderr, result.stderr[-2000:]
    finally:
        repo_sandbox.close_episode(naive_ep)
        repo_sandbox.close_episode(ours_ep)

