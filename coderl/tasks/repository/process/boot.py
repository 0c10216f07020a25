"""The start of a repository grading run, in the sandbox: run as `python -I -S -B /env/coderl/boot.py` in the work
dir, which holds the task's base, the submission's files and `.coderl/grade.json` (the grader's plan).

Standard library only until pytest is imported from the environment.  Before any line of the submission can run:
  1. the plan is read and removed from the tree;
  2. a submitted patch is applied with `git apply` (no git configuration of the tree's: it has no .git yet and git
     reads no system or global file here; a patch that does not apply ends the run with no record: every test fails);
  3. every `.git`, `__pycache__` and `*.pyc` in the tree is removed, every conftest.py and pytest configuration file
     the base does not hold is removed, and every protected file (conftest.py, configuration, the tests' own files,
     what the test patch touches) is written back as the plan gives it, whatever stood at its path or on the way to it;
  4. the tripwire is written: a test with a per-run name that must fail;
  5. sys.path is the environment's packages, this folder, the standard library and the source roots, in that order,
     nothing else: `-I -S` took site, .pth files, sitecustomize, PYTHON* variables and the user's site away, and no
     module of the tree's stands in for one of the standard library's (a repository whose package is named like a
     standard module fails validation);
  6. pytest runs the named tests under coderl's own configuration (`-c /env/coderl/pytest.ini`, the repository's own
     configuration files are never read), plugin autoload off, the task's plugins named, the cache provider off,
     with `reporter.Reporter` writing one record per test on fd 5 (made non-inheritable first).
  7. once pytest returns, the exit handlers run under the per-test limit and the process ends (`os._exit`): no
     thread a test left behind is waited for.
The exit status and stdout mean nothing to the grader.
"""

import base64
import json
import os
import shutil
import stat
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
PLAN = os.path.join(".coderl", "grade.json")
CHANNEL_FD = 5
CONFIG_NAMES = ("conftest.py", "pytest.ini", ".pytest.ini", "tox.ini", "setup.cfg", "pyproject.toml")


def main():
    with open(PLAN, "rb") as f:
        plan = json.loads(f.read())
    shutil.rmtree(".coderl")
    if plan.get("patch") is not None and not apply_patch(plan["patch"]):
        return 0
    clean(plan)
    for path, entry in plan["restore"].items():
        put(path, entry)
    put(plan["tripwire"]["file"], {"data": base64.b64encode(plan["tripwire"]["source"].encode()).decode(),
                                   "mode": 0o644})
    channel = os.fdopen(CHANNEL_FD, "w", buffering=1, encoding="utf-8")
    os.set_inheritable(CHANNEL_FD, False)
    # the environment first and the source roots last: nothing of the tree shadows pytest, its plugins or their
    # dependencies, the standard library included (a module of the tree's named like one pytest imports on its way
    # to the first test would otherwise run before anything is collected)
    sys.path[:] = [os.path.join(os.path.dirname(HERE), "site"), HERE, *sys.path,
                   *(os.path.abspath(root) for root in plan["roots"])]
    sys.dont_write_bytecode = True
    os.environ["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
    import pytest  # noqa: E402 -- from the environment, once sys.path is set
    import reporter  # noqa: E402

    args = ["-c", os.path.join(HERE, "pytest.ini"), "--rootdir", os.getcwd(), "-p", "no:cacheprovider", "-q",
            "-o", "addopts=", "--no-header", "-rN"]
    for plugin in plan.get("plugins", []):
        args += ["-p", plugin]
    args += plan["tests"]
    pytest.main(args, plugins=[reporter.Reporter(channel, plan.get("trace"), plan.get("test_timeout"))])
    channel.flush()
    finish(plan.get("test_timeout"))


def finish(timeout):
    """Every record is written: the exit handlers run (each stopped at the per-test limit), then the process ends
    without the interpreter's shutdown, which would first wait for every thread a test left running (a server still
    waiting in accept kept a run alive to its wall-clock backstop)."""
    import atexit
    import signal

    if timeout:
        def expire(signum, frame):
            raise SystemExit(f"coderl: an exit handler ran past {timeout:g} s")

        signal.signal(signal.SIGALRM, expire)
        signal.setitimer(signal.ITIMER_REAL, timeout, 1.0)
    atexit._run_exitfuncs()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)


def apply_patch(text):
    """The submitted patch applied to the tree with git apply (outside any repository); False, said on stderr, when it
    does not apply."""
    patch = "/tmp/coderl-submission.patch"
    with open(patch, "w", encoding="utf-8", errors="surrogateescape") as f:
        f.write(text)
    env = {"PATH": "/usr/bin:/bin", "HOME": "/tmp", "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": "/dev/null",
           "GIT_CEILING_DIRECTORIES": os.path.dirname(os.getcwd()), "LANG": "C.UTF-8"}
    done = subprocess.run(["git", "apply", "--whitespace=nowarn", patch], env=env, capture_output=True, text=True)
    if done.returncode != 0:
        sys.stderr.write(f"coderl: the patch does not apply: {done.stderr.strip()[:2000]}\n")
        return False
    return True


def clean(plan):
    """What of the tree never reaches the tests: history, bytecode, and configuration the base does not hold."""
    keep = set(plan["restore"])
    for top, dirs, files in os.walk(".", topdown=True):
        for name in list(dirs):
            path = os.path.join(top, name)
            if name in (".git", "__pycache__") or os.path.islink(path):
                dirs.remove(name)
                if not os.path.islink(path):
                    shutil.rmtree(path)
        for name in files:
            rel = os.path.normpath(os.path.join(top, name))
            if name.endswith((".pyc", ".pyo")) or (name in CONFIG_NAMES and rel not in keep):
                os.unlink(rel)


def put(path, entry):
    """`entry` ({"data", "mode"} or {"delete"}) at `path`, replacing whatever stood there or on the way to it."""
    parts = os.path.normpath(path).split(os.sep)
    if path.startswith("/") or ".." in parts:
        raise SystemExit(f"coderl: bad path in the plan: {path!r}")
    current = "."
    for part in parts[:-1]:
        current = os.path.join(current, part)
        info = os.lstat(current) if os.path.lexists(current) else None
        if info is not None and not stat.S_ISDIR(info.st_mode):
            os.unlink(current)
            info = None
        if info is None:
            os.mkdir(current)
    target = os.path.join(current, parts[-1])
    if os.path.lexists(target):
        if os.path.isdir(target) and not os.path.islink(target):
            shutil.rmtree(target)
        else:
            os.unlink(target)
    if entry.get("delete"):
        return
    fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, entry.get("mode", 0o644) & 0o755)
    with os.fdopen(fd, "wb") as f:
        f.write(base64.b64decode(entry["data"]))


if __name__ == "__main__":
    sys.exit(main())
