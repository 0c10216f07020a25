"""A test and its program see one set of files (`Slots.enter_judge`): a file a test writes in the working directory
or under /tmp is there for the program, a file the program writes is there for the test, and a path passed either
way names the same file: the common MBPP/APPS shape of a function that reads or writes a file, at every level (at
`full` the judge holds the program's view of the files: its /sandbox as the working directory, its /tmp & co.)."""

import os

import pytest

from coderl.sandbox.types import CheckKind, TestCase

from .helpers import make_tests_request, sandbox_at

PROGRAM = """
import os
def files(op, path=None, words=None):
    if op == "count":
        with open(path) as f:
            return len(f.read().split())
    if op == "save":
        with open(path, "w") as f:
            f.write(" ".join(words))
        return path
    if op == "private":  # a temp file only its maker's uid may read (0600)
        import tempfile
        fd, path = tempfile.mkstemp(suffix=".txt")
        os.write(fd, " ".join(words).encode())
        os.close(fd)
        return path
    return os.getcwd()
"""

MORE, OUT = (f"/tmp/coderl-test-{name}-{os.getpid()}.txt" for name in ("more", "out"))  # the host's /tmp at uid
TESTS = tuple(TestCase(t.id, t.source.replace("MORE", repr(MORE)).replace("OUT", repr(OUT)), t.check) for t in (
    # a relative path: the working directory
    TestCase("cwd", "open('words.txt', 'w').write('a b c')\nassert files('count', 'words.txt') == 3", CheckKind.ASSERT),
    # an absolute path under /tmp
    TestCase("tmp", "open(MORE, 'w').write('a b c d')\nassert files('count', MORE) == 4",
             CheckKind.ASSERT),
    # the test's own working directory, as a path
    TestCase("abs", "import os\nopen('x.txt', 'w').write('q')\nassert files('count', os.path.join(os.getcwd(), "
             "'x.txt')) == 1", CheckKind.ASSERT),
    # a file the program writes, read by the test, at the path it returns and at the test's own path
    TestCase("back", "p = files('save', 'out.txt', ['x', 'y'])\nassert open(p).read() == 'x y' == open('out.txt').read()",
             CheckKind.ASSERT),
    TestCase("back_tmp", "files('save', OUT, ['z'])\nassert open(OUT).read() == 'z'",
             CheckKind.ASSERT),
    # one working directory
    TestCase("same_dir", "import os\nassert files('cwd') == os.getcwd()", CheckKind.ASSERT),
    # temp files (0600: only the uid that made them may read them) passed either way
    TestCase("tempfile", "import tempfile\nwith tempfile.NamedTemporaryFile('w', suffix='.txt') as f:\n"
             "    f.write('a b')\n    f.flush()\n    assert files('count', f.name) == 2", CheckKind.ASSERT),
    TestCase("back_private", "import os\np = files('private', None, ['u', 'v'])\nassert open(p).read() == 'u v'\n"
             "os.unlink(p)", CheckKind.ASSERT),
))


SLOW = pytest.mark.slow  # the other levels: `make test-slow` (the default suite keeps `full`, the one training uses)


@pytest.mark.parametrize("level", ["full", pytest.param("uid", marks=SLOW), pytest.param("rlimits", marks=SLOW)])
def test_files_between_a_test_and_its_program(level):
    try:
        with sandbox_at(level) as sandbox:
            for _ in range(2):  # the slot's next program starts from fresh directories, and passes again
                result = sandbox.run(make_tests_request(PROGRAM, tests=TESTS, entry_point="files"))
                assert result.passed, [(t.id, t.status.value, t.message) for t in result.tests if not t.passed]
    finally:  # `rlimits` runs as this process: its files stay in the host's /tmp
        for path in (MORE, OUT):
            if os.path.lexists(path):
                os.unlink(path)


PLANT = """
import os
def plant(n):
    for fd in range(n):
        os.symlink(f"/proc/self/fd/{fd}", f"fd{fd}")
    return n
"""
# The judge writes where a test says, in a directory the program writes too: a link the program planted there must
# not reopen the judge's own pipes (its result pipe: forged records), which stay root's.
REOPEN = ("assert plant(16) == 16\n"
          "opened = []\n"
          "for fd in range(3, 16):\n"
          "    try:\n"
          "        open(f'fd{fd}', 'w').close()\n"
          "        opened.append(fd)\n"
          "    except OSError:\n"
          "        pass\n"
          "assert opened == [], opened")


@pytest.mark.parametrize("level", ["full", pytest.param("uid", marks=SLOW)])
def test_a_link_the_program_plants_does_not_reopen_the_judges_pipes(level):
    with sandbox_at(level) as sandbox:
        result = sandbox.run(make_tests_request(PLANT, tests=(TestCase("0", REOPEN, CheckKind.ASSERT),),
                                                entry_point="plant"))
    assert result.passed, (result.status, result.message)
