"""One program's mess is its own result: the fork server survives it and neighbours are unaffected."""

import pytest

from coderl.sandbox.types import Status

from .helpers import ADD, OWN_ENTRIES, make_script_request, make_tests_request

DEEP_TREE = ("import os\n"
             "for _ in range(3000):\n"
             "    os.mkdir('d')\n"
             "    os.chdir('d')\n" + ADD)


def test_thousands_of_nested_directories_are_wiped_without_killing_the_server(sandbox):
    restarts = sandbox.restarts
    results = sandbox.run_many([make_tests_request(DEEP_TREE), make_tests_request(ADD),
                                make_tests_request(DEEP_TREE), make_tests_request(ADD)])
    assert [r.status for r in results] == [Status.PASSED] * 4
    assert sandbox.restarts == restarts


def test_nested_directories_in_tmp_too(sandbox):
    if sandbox.isolation != "full":
        pytest.skip("a private /tmp needs isolation 'full'")
    prog = "import os\nos.chdir('/tmp')\n" + DEEP_TREE
    assert sandbox.run(make_tests_request(prog)).passed
    listing = "import os\n" + OWN_ENTRIES + "print(sorted(os.listdir('.')), sorted(own_entries('/tmp')))\n"
    r = sandbox.run(make_script_request(listing, cases=(("", "[] []"),)))
    assert r.passed, (r.status, r.tests[0].message)


def test_a_quick_program_is_never_a_wall_timeout(sandbox):
    # Judged at the program's exit, not when the server gets round to reaping it.
    results = sandbox.run_many([make_tests_request(ADD, cpu_seconds=0.3, wall_seconds=0.5) for _ in range(20)])
    assert all(r.status is Status.PASSED for r in results), [r.message for r in results if not r.passed]


def test_a_program_holds_no_descriptor_of_the_zygote(sandbox):
    # A stdin/stdout program has no channel or result fd: fds 3-5 must not be the zygote's own (its wake
    # pipe and epoll fd, which a program could make spin the zygote with epoll_ctl).
    listing = ("import os\n"
               "fds = sorted(int(f) for f in os.listdir('/proc/self/fd'))\n"
               "print([f for f in fds if f > 2 and os.path.exists(f'/proc/self/fd/{f}')])\n")
    r = sandbox.run(make_script_request(listing, cases=(("", "[]"),)))
    assert r.passed, (r.status, r.tests[0].message, r.stdout if hasattr(r, "stdout") else "")
