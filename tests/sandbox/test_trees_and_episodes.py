"""A request can carry a tree (bytes, modes, links kept as links), a read-only environment at /env, an episode
whose working copy outlives the request, and RECORD tests whose outcomes come from the run's report channel (fd 5),
never from its stdout or exit status (issue 97: what repository tasks run on)."""

import base64
import os

import pytest

from coderl.sandbox import Sandbox
from coderl.sandbox.client import SandboxUnavailable
from coderl.sandbox.types import (
    CheckKind,
    ExecutionRequest,
    Limits,
    Mode,
    Status,
    TestCase,
    file_bytes,
    file_delete,
    file_link,
)


def _sh(script, **fields):
    fields.setdefault("limits", Limits(cpu_seconds=5))
    return ExecutionRequest(Mode.COMMAND, argv=("sh", "-c", script), **fields)


@pytest.fixture(scope="module")
def sb():
    with Sandbox(workers=2, isolation="full") as sandbox:
        yield sandbox


@pytest.fixture
def tree(tmp_path):
    root = tmp_path / "tree"
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "mod.py").write_bytes(b"X = 1\n\xff\x00")
    (root / "run.sh").write_text("echo ran\n")
    os.chmod(root / "run.sh", 0o755)
    (root / "alias").symlink_to("pkg/mod.py")
    (root / "outside").symlink_to("/etc/hostname")
    os.mkfifo(root / "fifo")
    return root


def test_a_tree_is_copied_with_bytes_modes_and_links_never_followed(sb, tree):
    # under /tmp on the host, which the server's own tmpfs covers at `full`: reached all the same
    result = sb.run(_sh("./run.sh; od -An -c pkg/mod.py | tr -s ' ' | head -2; readlink alias outside; "
                        "test -e fifo || echo nofifo; cat extra", tree=str(tree), files={"extra": "over"}))
    assert result.exit_code == 0, result.stderr
    out = result.stdout
    assert "ran" in out and "377" in out and "pkg/mod.py" in out and "/etc/hostname" in out
    assert "nofifo" in out and out.rstrip().endswith("over")


def test_files_carry_bytes_modes_links_and_deletions(sb, tree):
    files = {"bin/tool": file_bytes(b"#!/bin/sh\necho tool\n", 0o755), "run.sh": file_delete(),
             "pkg": file_link("/nowhere"), "deep/new.txt": "text"}
    result = sb.run(_sh("bin/tool; test -e run.sh || echo gone; readlink pkg; cat deep/new.txt",
                        tree=str(tree), files=files))
    assert result.stdout.split() == ["tool", "gone", "/nowhere", "text"], (result.stdout, result.stderr)


def test_an_environment_is_bound_read_only_at_env(sb, tmp_path):
    env = tmp_path / "env"
    env.mkdir()
    (env / "marker").write_text("env!\n")
    result = sb.run(_sh("cat /env/marker; touch /env/x 2>/dev/null || echo readonly", environment=str(env)))
    assert result.stdout.split() == ["env!", "readonly"], result.stderr
    plain = sb.run(_sh("ls -A /env | wc -l"))  # a request without one sees an empty directory
    assert plain.stdout.strip() == "0"


def test_an_episode_keeps_its_working_copy_across_requests_and_slots(sb, tree):
    first = sb.run(_sh("echo 1 >> log; id -u > uid1", tree=str(tree), episode="e1"))
    assert first.exit_code == 0, first.stderr
    # several requests: with two slots, some run in the other slot, under its own uid
    for _ in range(4):
        again = sb.run(_sh("echo 1 >> log; wc -l < log; rm -f fifo", episode="e1", files={"note": "n"}))
        assert again.exit_code == 0, again.stderr
    assert again.stdout.strip() == "5"
    other = sb.run(_sh("test -e log && echo leaked || echo fresh", tree=str(tree), episode="e2"))
    assert other.stdout.strip() == "fresh"
    snap = sb.snapshot_episode("e1")
    assert base64.b64decode(snap["log"]["data"]) == b"1\n" * 5 and snap["alias"] == {"link": "pkg/mod.py"}
    assert snap["run.sh"]["mode"] & 0o777 == 0o755 and "note" in snap and "dir" in snap["pkg"]
    sb.close_episode("e1")
    sb.close_episode("e2")
    with pytest.raises(RuntimeError, match="no such episode"):
        sb.snapshot_episode("e1")
    fresh = sb.run(_sh("test -e log && echo kept || echo new", tree=str(tree), episode="e1"))
    assert fresh.stdout.strip() == "new"  # a closed episode's id starts over
    sb.close_episode("e1")


def test_an_episode_ends_with_a_plain_request_left_clean(sb, tree):
    sb.run(_sh("echo left > /tmp/t; echo left > mine", tree=str(tree), episode="e3"))
    sb.close_episode("e3")
    result = sb.run(_sh("cat /tmp/t mine 2>&1 | wc -l; ls"))
    assert "mine" not in result.stdout


def _records(*lines):
    return "printf '%s\\n' " + " ".join(f"'{line}'" for line in lines) + " >&5"


def test_record_tests_come_from_the_report_channel_only(sb):
    tests = (TestCase("a", "", CheckKind.RECORD), TestCase("b", "", CheckKind.RECORD),
             TestCase("trip", "", CheckKind.RECORD, expected="failed"), TestCase("gone", "", CheckKind.RECORD))
    script = (_records('{"id": "a", "status": "passed"}', '{"id": "b", "status": "failed", "message": "boom"}',
                       '{"id": "trip", "status": "failed"}')
              + '; echo \'{"id": "gone", "status": "passed"}\'; exit 0')
    result = sb.run(_sh(script, tests=tests))
    got = {t.id: (t.status, t.message) for t in result.tests}
    assert got["a"][0] is Status.PASSED and got["trip"][0] is Status.PASSED
    assert got["b"] == (Status.FAILED, "failed: boom")
    assert got["gone"][0] is Status.FAILED and "missing" in got["gone"][1]  # stdout is no channel
    assert result.status is Status.FAILED


def test_a_twice_recorded_test_and_garbage_are_failures_with_a_note(sb):
    tests = (TestCase("a", "", CheckKind.RECORD),)
    result = sb.run(_sh(_records('{"id": "a", "status": "failed"}', '{"id": "a", "status": "passed"}', "junk"),
                        tests=tests))
    assert result.tests[0].status is Status.FAILED and "bad_record" in result.tamper


def test_record_runs_killed_by_a_limit_say_so(sb):
    tests = (TestCase("a", "", CheckKind.RECORD),)
    result = sb.run(ExecutionRequest(Mode.COMMAND, argv=("sh", "-c", "while :; do :; done"), tests=tests,
                                     limits=Limits(cpu_seconds=0.5)))
    assert result.status is Status.TIMEOUT and result.tests[0].status is Status.TIMEOUT


def test_trees_and_episodes_refused_where_they_cannot_hold(tree):
    with Sandbox(workers=1, isolation="uid") as sandbox:
        with pytest.raises(SandboxUnavailable, match="isolation 'full'"):
            sandbox.submit(_sh("true", episode="x"))
        assert sandbox.run(_sh("cat pkg/mod.py | head -1", tree=str(tree))).stdout.strip() == "X = 1"
    with Sandbox(workers=1, isolation="full") as sandbox:
        with pytest.raises(SandboxUnavailable, match="existing directory"):
            sandbox.submit(_sh("true", tree=str(tree / "missing")))
        with pytest.raises(SandboxUnavailable, match="without a build step"):
            sandbox.submit(ExecutionRequest(Mode.COMMAND, argv=("true",), build_argv=("true",), tree=str(tree)))


def test_a_disk_limit_sizes_the_work_dir(sb):
    small = sb.run(_sh("head -c 3000000 /dev/zero > big && echo ok", limits=Limits(disk_bytes=2 * 2**20)))
    assert "ok" not in small.stdout
    large = sb.run(_sh("head -c 3000000 /dev/zero > big && echo ok", limits=Limits(disk_bytes=8 * 2**20)))
    assert large.stdout.strip() == "ok", large.stderr


def test_trees_and_environments_in_a_private_home_are_reached(sb, tree):
    # a 0700 home the server's namespace masks (where an interpreter sits under it): reached through the host's
    # directory as it was, never shown to programs otherwise
    import shutil
    import tempfile
    from pathlib import Path

    home = Path(tempfile.mkdtemp(prefix=".coderl-test-", dir=Path.home()))
    try:
        shutil.copytree(tree, home / "tree", symlinks=True, ignore=shutil.ignore_patterns("fifo"))
        (home / "env").mkdir()
        (home / "env" / "marker").write_text("home env\n")
        result = sb.run(_sh("head -1 pkg/mod.py; cat /env/marker", tree=str(home / "tree"), environment=str(home / "env")))
        assert result.stdout.splitlines() == ["X = 1", "home env"], result.message or result.stderr
    finally:
        shutil.rmtree(home)
