"""`uid` level (no mount namespace for programs): the interpreter is importable by the slot uids wherever it lives,
and everything the server's uids (slot and judge) leave in any world-writable place of the host is gone before the
slot's next program and at the end (`coderl.sandbox.server.contain.shared`)."""

import json
import os

import pytest

from coderl.sandbox.server.contain import linux
from coderl.sandbox.server.contain import shared as shared_places
from coderl.sandbox.types import CheckKind, TestCase

from .helpers import make_script_request, make_tests_request, sandbox_at

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="slot uids need root")


def test_the_whole_standard_library_imports_at_uid():
    # Modules the server never preloads: where the interpreter sits under a 0700 home they were unreadable.
    program = "import xml.dom.minidom, sqlite3, csv, contextvars, email.message\nprint('ok')\n"
    with sandbox_at("uid") as sandbox:
        result = sandbox.run(make_script_request(program, cases=(("", "ok"),)))
    assert result.passed, (result.status, result.stderr[-400:])


def _remove(path):
    parent = os.open(os.path.dirname(path), os.O_RDONLY | os.O_DIRECTORY)
    try:
        linux.remove_tree(parent, os.path.basename(path))
    finally:
        os.close(parent)


def test_what_a_judge_leaves_in_tmp_is_gone_before_the_next_program():
    left = f"/tmp/coderl-judge-left-{os.getpid()}"
    tests = (TestCase("0", f"open({left!r}, 'w').write('x')\nassert candidate(1, 2) == 3", CheckKind.ASSERT),)
    try:
        with sandbox_at("uid") as sandbox:
            for _ in range(2):  # the second run's judge makes it again: it was gone, not kept by the first
                result = sandbox.run(make_tests_request("def add(a, b):\n    return a + b\n", tests=tests))
                assert result.passed, (result.status, result.message)
                assert not os.path.lexists(left)
    finally:
        if os.path.lexists(left):
            _remove(left)


LEAVE = """
import os, sys
d = sys.stdin.read().strip()
try:
    open(os.path.join(d, "left.txt"), "w").write("x")
    os.makedirs(os.path.join(d, "left-dir", "inner"))
    print("wrote")
except OSError as exc:
    print("could not", exc)
"""


def test_what_a_program_leaves_in_a_world_writable_directory_outside_tmp_is_gone():
    # A world-writable directory that is not one of the usual temp directories (as /var/crash or a shared spool
    # are): made before the sandbox starts, where the slot uids can reach it.
    shared = os.path.join(os.path.dirname(os.path.abspath(__file__)), f".coderl-shared-{os.getpid()}")
    # (a checkout that lies in a temp directory was an xfail until issue 99: the walk stopped at the temp directory)
    os.mkdir(shared)
    os.chmod(shared, 0o1777)
    if os.path.exists(shared_places.CACHE):  # made after the last walk: the next server walks again
        os.unlink(shared_places.CACHE)
    try:
        with sandbox_at("uid") as sandbox:
            result = sandbox.run(make_script_request(LEAVE, cases=((shared, "wrote"),)))
            if "could not" in result.stdout:
                pytest.skip(f"{shared} is not reachable by the slot uids here")
            assert result.passed, (result.status, result.stdout, result.stderr[-300:])
            assert os.listdir(shared) == []
    finally:
        _remove(shared)


def _nested_shared():
    """`/tmp/coderl-nested-<pid>` (0755, root's: not world-writable) holding `shared` (1777): a world-writable directory
    below one that is not, below a world-writable one."""
    outer = f"/tmp/coderl-nested-{os.getpid()}"
    os.mkdir(outer)
    os.chmod(outer, 0o755)
    shared = os.path.join(outer, "shared")
    os.mkdir(shared)
    os.chmod(shared, 0o1777)
    return outer, shared


def test_the_walk_finds_a_world_writable_directory_below_one_that_is_not():
    # (issue 99: the walk stopped at /tmp, and `remove_owned` descends only world-writable directories, so
    # /tmp/x/shared was never cleaned)
    outer, shared = _nested_shared()
    try:
        places = shared_places._walk(shared_places._mounts())
        assert shared in places and "/tmp" in places
        assert outer not in places  # not world-writable: nothing but root's own there
    finally:
        _remove(outer)


def test_what_a_program_leaves_below_a_directory_that_is_not_world_writable_is_gone():
    outer, shared = _nested_shared()
    if os.path.exists(shared_places.CACHE):  # made after the last walk: the next server walks again
        os.unlink(shared_places.CACHE)
    try:
        with sandbox_at("uid") as sandbox:
            result = sandbox.run(make_script_request(LEAVE, cases=((shared, "wrote"),)))
            if "could not" in result.stdout:
                pytest.skip(f"{shared} is not reachable by the slot uids here")
            assert result.passed, (result.status, result.stdout, result.stderr[-300:])
            assert os.listdir(shared) == []
    finally:
        _remove(outer)


def test_the_walk_is_kept_for_the_same_mounts_and_redone_when_stale(tmp_path, monkeypatch):
    cache = tmp_path / "own"
    cache.mkdir(mode=0o700)
    cache = str(cache / "places.json")
    walks = []
    real = shared_places._walk
    monkeypatch.setattr(shared_places, "_walk", lambda mounts: walks.append(1) or real(mounts))
    first = shared_places.writable_places(cache)
    assert "/tmp" in first and shared_places.writable_places(cache) == first and len(walks) == 1
    kept = json.loads(open(cache).read())
    open(cache, "w").write(json.dumps({**kept, "at": kept["at"] - shared_places.CACHE_SECONDS - 1}))
    assert shared_places.writable_places(cache) == first and len(walks) == 2


def test_uid_is_refused_in_one_line_where_no_mount_namespace_can_expose_the_interpreter(tmp_path, monkeypatch):
    from coderl.sandbox.server.contain import isolation
    home = tmp_path / "home"
    home.mkdir(mode=0o700)
    (home / "python").mkdir()

    def no_namespaces(flags):
        raise OSError(1, "Operation not permitted")

    monkeypatch.setattr(isolation.linux, "unshare", no_namespaces)
    slots = object.__new__(isolation.Slots)
    with pytest.raises(isolation.IsolationError) as caught:
        slots._expose_at_uid([str(home / "python")])
    message = str(caught.value)
    assert "\n" not in message and "cannot search" in message and "run at 'full'" in message
