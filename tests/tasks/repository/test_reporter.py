"""The reporter's per-test wall-clock limit: a test that hangs -- on a network the sandbox does not have, or in a loop
that swallows every Exception -- fails alone, and the tests after it still run and report."""

import shutil

from coderl.tasks.repository import environment
from coderl.tasks.repository.grade import Repository, grading_request

from .conftest import FIXTURE

HANGING = '''import socket
import time


def test_waits_on_a_connection_that_never_comes():
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    server.accept()


def test_swallows_every_exception():
    while True:
        try:
            time.sleep(100)
        except Exception:
            pass


def test_after_them():
    assert True
'''


def test_a_hanging_test_fails_alone_and_the_rest_still_report(tmp_path, repo_sandbox):
    tree = tmp_path / "tree"
    shutil.copytree(FIXTURE, tree)
    (tree / "tests" / "test_hang.py").write_text(HANGING)
    env = environment.build(tmp_path / "envs")
    repo = Repository(tree=str(tree), environment=str(env), fail_to_pass=(), pass_to_pass=(), test_timeout=1.0)
    result = repo_sandbox.run(grading_request(repo, tests=(), select=["tests/test_hang.py"]))
    records = result.reports["records"]
    for name in ("test_waits_on_a_connection_that_never_comes", "test_swallows_every_exception"):
        rec = records[f"tests/test_hang.py::{name}"]
        assert rec["status"] in ("failed", "error") and ("wall-clock limit" in rec["message"] or "OSError" in
                                                          rec["message"]), rec
    assert records["tests/test_hang.py::test_after_them"]["status"] == "passed"
    assert result.wall_seconds < 30
