"""Correct programs the verdict's fifth pass must not fail (issue 73): a test and its program sharing files (the
MBPP/APPS shape of a function that reads or writes one: the working directory, /tmp, paths passed either way), and
tests that do real work of their own under a task's time limit (the judge's work is not the program's)."""

from __future__ import annotations

import dataclasses

from . import Case
from .legitimate import _he, _mbpp

SHARED_FILES = [
    _mbpp(
        "count_lines_of_a_test_file", "C.shared_files",
        "Write a function to count the lines of a text file.",
        "def count_lines(path):\n    with open(path) as f:\n        return len(f.read().splitlines())\n",
        ["assert count_lines('data.txt') == 3", "assert count_lines(TWO) == 2",
         "assert os.unlink(TWO) is None"],  # (`rlimits` removes nothing of the host's /tmp)
        # a name of its own under /tmp: at `uid` and `rlimits` it is the host's, shared with concurrent programs
        setup="import os\nTWO = f'/tmp/coderl-two-{os.getpid()}.txt'\nopen('data.txt', 'w').write('a\\nb\\nc\\n')\n"
              "open(TWO, 'w').write('x\\ny\\n')",
        before="runtime_error",
    ),
    _mbpp(
        "write_squares_read_by_the_test", "C.shared_files",
        "Write a function that writes the squares 1..n to a file, one a line, and returns its path.",
        "def write_squares(path, n):\n    with open(path, 'w') as f:\n"
        "        f.write(''.join(f'{i * i}\\n' for i in range(1, n + 1)))\n    return path\n",
        ["assert open(write_squares('squares.txt', 3)).read() == '1\\n4\\n9\\n'",
         "assert write_squares(SQ, 2) == SQ and open(SQ).read() == '1\\n4\\n'",
         "assert os.stat(SQ).st_uid != os.getuid() or os.unlink(SQ) is None"],  # (the program's, but at `rlimits`)
        setup="import os\nSQ = f'/tmp/coderl-sq-{os.getpid()}.txt'",
        before="runtime_error",
    ),
    _mbpp(
        "sum_numbers_of_a_test_temp_file", "C.shared_files",
        "Write a function to sum the numbers in a file, one a line.",
        "def sum_file(path):\n    with open(path) as f:\n        return sum(int(x) for x in f.read().split())\n",
        # a temp file the test makes: 0600, its maker's uid alone may read it
        ["import tempfile\nwith tempfile.NamedTemporaryFile('w') as f:\n    f.write('1\\n2\\n3\\n')\n"
         "    f.flush()\n    assert sum_file(f.name) == 6"],
        before="runtime_error",
    ),
    _he(
        "file_in_the_tests_working_directory", "C.shared_files",
        "import os\n\ndef size_of(name: str) -> int:\n    \"\"\"The size in bytes of the file `name`.\"\"\"\n",
        "    return os.path.getsize(name)\n",
        "def check(candidate):\n    import os\n    open('five.bin', 'wb').write(b'12345')\n"
        "    assert candidate('five.bin') == 5\n    assert candidate(os.path.join(os.getcwd(), 'five.bin')) == 5\n",
        "size_of", before="runtime_error",
    ),
]

# The test's own work (0.3 CPU-s in the judge, as a brute-force expected value takes) under a task limit of
# 0.25 s: it ran under the program's lowered limits and wall backstop (1.75 s), the program blamed once it outran them
# (these pass before on a quiet enough machine; past the backstop they failed every time: the 1.8 s case of
# tests/tasks/test_time_limits.py, kept out of the corpus, which every level runs in CI).
BURN = "    import time\n    t = time.process_time()\n    while time.process_time() - t < 0.3:\n        pass\n"
TESTS_OWN_WORK = [
    dataclasses.replace(_he(
        "tests_compute_their_expected_value", "C.tests_own_work",
        "def triangle(n: int) -> int:\n    \"\"\"1 + 2 + ... + n.\"\"\"\n",
        "    return n * (n + 1) // 2\n",
        "def check(candidate):\n" + BURN + "    assert candidate(4) == 10\n    assert candidate(0) == 0\n",
        "triangle", before="passed"), time_limit=0.25),
    dataclasses.replace(_mbpp(
        "mbpp_setup_does_real_work", "C.tests_own_work",
        "Write a function to return the largest of a list.",
        "def largest(xs):\n    return max(xs)\n",
        ["assert largest([3, 1, 2]) == 3", "assert largest([-1]) == -1"],
        setup=BURN.replace("\n    ", "\n").strip(), before="passed"), time_limit=0.25),
]

CASES: list[Case] = [*SHARED_FILES, *TESTS_OWN_WORK]
