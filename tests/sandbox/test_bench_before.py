"""`bench/sandbox.py --before COMMIT` (issue 58): the commit checked out as a temporary git worktree for the run and
removed after; a name that is no commit is a one-line error, exit 2."""

import importlib.util
import os
import subprocess
import sys

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPT = os.path.join(REPO, "bench", "sandbox.py")


def _bench():
    spec = importlib.util.spec_from_file_location("bench_sandbox", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _worktrees():
    return subprocess.run(["git", "-C", REPO, "worktree", "list"], capture_output=True, text=True).stdout


def test_a_commit_is_checked_out_for_the_run_and_removed_after():
    head = subprocess.run(["git", "-C", REPO, "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip()
    with _bench().checkout("HEAD") as path:
        assert os.path.isfile(os.path.join(path, "coderl", "__init__.py"))
        at = subprocess.run(["git", "-C", path, "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip()
        assert at == head
        assert path in _worktrees()
    assert not os.path.exists(path)
    assert path not in _worktrees()


def test_a_name_that_is_no_commit_is_one_line_and_exit_2():
    done = subprocess.run([sys.executable, SCRIPT, "--before", "no-such-commit-58"], capture_output=True, text=True)
    assert done.returncode == 2
    assert "--before 'no-such-commit-58': neither a directory nor a commit" in done.stderr.splitlines()[-1]
