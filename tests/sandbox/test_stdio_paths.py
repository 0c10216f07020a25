"""The paths a process expects for its standard streams, as a plain container shows them: `/dev/stdin`,
`/dev/stdout`, `/dev/stderr`, `/dev/fd/N` and `/proc/self/fd/N` open at every level, for a pipe and for a
large input (a memfd), so the common stdin idioms of correct programs pass, in Python and in Node.js; and
`/dev` at `full` holds what docs/sandbox.md lists, nothing else."""

import os
import shutil

import pytest

from coderl.sandbox.types import CheckKind, ExecutionRequest, Limits, Mode, TestCase

from .helpers import make_script_request, sandbox_at

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="slot uids need root")

IDIOMS = {
    "open_dev_stdin": "print(sum(map(int, open('/dev/stdin').read().split())))",
    "open_0": "print(sum(map(int, open(0).read().split())))",
    "stdin_buffer": "import sys\nprint(sum(map(int, sys.stdin.buffer.read().split())))",
    "proc_self_fd_0": "print(sum(map(int, open('/proc/self/fd/0').read().split())))",
    "dev_fd_0": "print(sum(map(int, open('/dev/fd/0', 'rb').read().split())))",
    "stdin_readline": "import sys\nfirst = sys.stdin.readline().split()\nprint(sum(map(int, first + sys.stdin.read().split())))",
    "write_dev_stdout": "total = sum(map(int, open('/dev/stdin').read().split()))\n"
                        "with open('/dev/stdout', 'w') as out:\n    out.write(f'{total}\\n')\n"
                        "open('/dev/stderr', 'w').write('done\\n')",
}
SMALL = "1 2 3\n"
LARGE = "1\n" * 40_000  # over the pipe's size: stdin is an unlinked file (a memfd) then


@pytest.fixture(scope="module", params=["full", "uid"])
def sandbox(request):
    with sandbox_at(request.param) as sb:
        yield sb


@pytest.mark.parametrize("idiom", sorted(IDIOMS))
def test_a_stdin_idiom_of_a_correct_program_passes(sandbox, idiom):
    cases = ((SMALL, "6"), (LARGE, str(40_000)))
    result = sandbox.run(make_script_request(IDIOMS[idiom], cases=cases))
    assert result.passed, (result.status, result.message, result.stderr[-500:])


@pytest.mark.skipif(shutil.which("node") is None, reason="no node here")
def test_node_reads_dev_stdin(sandbox):
    code = ("const s = require('fs').readFileSync('/dev/stdin', 'utf8');\n"
            "console.log(s.split(/\\s+/).filter(Boolean).map(Number).reduce((a, b) => a + b, 0));\n")
    request = ExecutionRequest(Mode.COMMAND, files={"main.js": code}, argv=("node", "main.js"),
                               tests=(TestCase("0", SMALL, CheckKind.STDOUT, "6"),
                                      TestCase("1", LARGE, CheckKind.STDOUT, "40000")),
                               limits=Limits(address_space=False))
    result = sandbox.run(request)
    assert result.passed, (result.status, result.message, result.stderr[-500:])


def test_dev_at_full_holds_what_the_docs_list(sandbox):
    if sandbox.isolation != "full":
        pytest.skip("the view is `full`'s")
    show = ("import os\nprint(sorted(n + ('->' + os.readlink('/dev/' + n) if os.path.islink('/dev/' + n) else '')"
            " for n in os.listdir('/dev')))")
    result = sandbox.run(make_script_request(show, cases=(("", ""),)))
    expected = sorted(["fd->/proc/self/fd", "full", "null", "random", "shm", "stderr->/proc/self/fd/2",
                       "stdin->/proc/self/fd/0", "stdout->/proc/self/fd/1", "urandom", "zero"]
                      + (["tty"] if os.path.exists("/dev/tty") else []))
    assert result.stdout.strip() == repr(expected), result.stdout
