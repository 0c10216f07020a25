"""The reporter's per-test wall-clock limit: a test that hangs -- on a network the sandbox does not have, or in a loop
that swallows every Exception -- fails alone, and the tests after it still run and report; neither a thread a test leaves
waiting nor an exit handler that sleeps keeps the run alive after the last test."""

import shutil

from coderl.tasks.repository import environment
from coderl.tasks.repository.grade import Repository, grading_request

from .conftest import FIXTURE

HANGING = '''import atexit
import socket
import threading
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


def test_leaves_a_thread_waiting_forever():
    # not a daemon: at the interpreter's exit Python would join it (boltons' socket tests leave such servers behind)
    threading.Thread(target=threading.Event().wait).start()


def test_registers_an_exit_handler_that_sleeps():
    atexit.register(time.sleep, 1000)


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
    for name in ("test_leaves_a_thread_waiting_forever", "test_registers_an_exit_handler_that_sleeps"):
        assert records[f"tests/test_hang.py::{name}"]["status"] == "passed"
    assert records["tests/test_hang.py::test_after_them"]["status"] == "passed"
    assert result.wall_seconds < 30
