"""COMMAND requests are files + build argv + run argv + stdin: the build runs once per program, in a
work dir of its own, and what it wrote there is copied into every test's work dir; a failed build is
`build_error` with the compiler's first error line, and no test runs."""

import pytest

from coderl.sandbox import Sandbox
from coderl.sandbox.types import CheckKind, ExecutionRequest, Limits, Mode, Status, TestCase

from .test_isolation import LEVELS


def _request(build, run, cases, files=None, **limits):
    tests = tuple(TestCase(str(i), stdin, CheckKind.STDOUT, out) for i, (stdin, out) in enumerate(cases))
    return ExecutionRequest(Mode.COMMAND, argv=tuple(run), build_argv=tuple(build), files=files or {},
                            tests=tests, limits=Limits(**limits))


def _sh(script):
    # The shell, not Python: at `uid` the slot uids may not reach this interpreter (docs/sandbox.md).
    return ("sh", "-c", script)


@pytest.fixture(scope="module", params=LEVELS)
def sb(request):
    with Sandbox(workers=2, isolation=request.param) as sandbox:
        yield sandbox


def test_the_build_runs_once_and_every_test_sees_its_outputs(sb):
    # The "compiler" turns src.txt into an executable script and counts its own runs in a file a test
    # would see twice if the build ran per test.
    build = _sh('mkdir -p bin; printf "#!/bin/sh\\nread x\\necho \\"\\$x$(cat src.txt)\\"\\n" > bin/prog; '
                "chmod 755 bin/prog; printf x >> builds")
    request = _request(build, ["sh", "-c", "./bin/prog; cat builds"], [("a", "a!\nx"), ("b", "b!\nx"), ("c", "c!\nx")],
                       files={"src.txt": "!"})
    result = sb.run(request)
    assert result.passed, (result.status, result.message, [t.message for t in result.tests])


def test_a_test_run_cannot_change_what_the_next_test_gets(sb):
    build = _sh("echo clean > state")
    run = ["sh", "-c", "cat state; echo dirty > state"]
    result = sb.run(_request(build, run, [("", "clean")] * 4))
    assert result.passed, [t.message for t in result.tests]


def test_a_failed_build_is_build_error_with_the_first_error_line(sb):
    build = _sh("echo 'main.v:3: error: syntax error' >&2; echo 'main.v:4: error: more' >&2; exit 1")
    result = sb.run(_request(build, ["true"], [("", ""), ("", "")]))
    assert result.status is Status.BUILD_ERROR
    assert result.message == "build failed: main.v:3: error: syntax error"
    assert [t.status for t in result.tests] == [Status.NOT_RUN, Status.NOT_RUN]


def test_a_build_that_hangs_is_a_build_error_that_says_so(sb):
    result = sb.run(_request(_sh("while :; do :; done"), ["true"], [("", "")], cpu_seconds=0.5))
    assert result.status is Status.BUILD_ERROR and "timeout" in result.message, result.message


def test_build_outputs_are_bounded(sb):
    # More than the copy's file limit: the build fails (its outputs would be copied into every test).
    # 10,001 files by a few processes (0.25 s of CPU), with a wall clock a machine other jobs keep busy meets: a shell
    # loop under 31 s ran into it at load 13
    build = _sh("mkdir d && cd d && seq 0 10000 | xargs touch")
    result = sb.run(_request(build, ["true"], [("", "")], cpu_seconds=60))
    assert result.status is Status.BUILD_ERROR and "10000 files" in result.message, result.message


def test_without_a_build_nothing_changes(sb):
    result = sb.run(_request((), ["cat"], [("hi", "hi")]))
    assert result.passed


def test_a_job_queues_its_build_alone_and_its_tests_after():
    from coderl.sandbox.server.jobs import Job

    msg = {"id": 1, "mode": "command", "limits": {}, "build_argv": ["make"],
           "tests": [{"id": "0", "source": "a"}, {"id": "1", "source": "b"}]}
    job = Job(msg)
    assert job.first_runs() == [job.build] and job.build.index == -1 and len(job.runs) == 2
    assert job.pending == 2  # the build is not one of the job's results
    plain = Job({**msg, "build_argv": []})
    assert plain.build is None and plain.first_runs() == plain.runs


def test_collected_outputs_skip_links_and_keep_modes(tmp_path):
    import os

    from coderl.sandbox.server.jobs import collect_outputs, write_files

    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "tool").write_bytes(b"\x7fELF")
    os.chmod(tmp_path / "sub" / "tool", 0o755)
    (tmp_path / "link").symlink_to("/etc/passwd")
    got = collect_outputs(str(tmp_path))
    assert set(got) == {"sub", "sub/tool"} and got["sub/tool"][0] == b"\x7fELF"
    out = tmp_path / "copy"
    out.mkdir()
    write_files(str(out), got)
    assert (out / "sub" / "tool").read_bytes() == b"\x7fELF" and os.access(out / "sub" / "tool", os.X_OK)


def test_writing_files_never_follows_a_link_planted_in_the_work_dir(tmp_path):
    # At `uid` a program of another server runs under the same slot uid and can plant links in this
    # server's work dir: root must not write, chmod or chown through them.
    import os

    from coderl.sandbox.server.jobs import write_files

    victim = tmp_path / "victim"
    victim.write_text("root's")
    os.chmod(victim, 0o600)
    work = tmp_path / "work"
    (work / "real").mkdir(parents=True)
    (work / "main.c").symlink_to(victim)
    (work / "sub").symlink_to(tmp_path)
    for files in ({"../victim": "x"}, {"/etc/x": "x"}):
        with pytest.raises((OSError, ValueError)):
            write_files(str(work), files, uid=os.getuid())
    # A link at a name, or on the way to it, is replaced (a file, a directory), never written through
    write_files(str(work), {"main.c": "int main;", "sub/victim": "x"}, uid=os.getuid())
    assert victim.read_text() == "root's" and (victim.stat().st_mode & 0o777) == 0o600
    assert not (work / "main.c").is_symlink() and (work / "main.c").read_text() == "int main;"
    assert not (work / "sub").is_symlink() and (work / "sub" / "victim").read_text() == "x"
    write_files(str(work), {"real/ok.txt": "fine", "new/dir/f": (b"\x00", 0o755), "empty": (None, 0o755)})
    assert (work / "real" / "ok.txt").read_text() == "fine" and (work / "empty").is_dir()


def test_collecting_outputs_skips_fifos_and_links(tmp_path):
    import os

    from coderl.sandbox.server.jobs import collect_outputs

    os.mkfifo(tmp_path / "fifo")  # opening it for reading would block the server
    (tmp_path / "dirlink").symlink_to("/etc")
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "f").write_text("x")
    got = collect_outputs(str(tmp_path))
    assert set(got) == {"d", "d/f"} and got["d"][0] is None and got["d/f"][0] == b"x"


def test_build_directories_reach_the_tests_writable(sb):
    build = _sh("mkdir out empty; echo hi > out/a")
    result = sb.run(_request(build, ["sh", "-c", "echo x > out/b && cat out/a out/b && ls -d empty"],
                             [("", "hi\nx\nempty")] * 2))
    assert result.passed, [t.message for t in result.tests]
