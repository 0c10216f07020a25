"""A runner's `paths`: a toolchain outside /usr, /bin, /lib* is visible to programs at isolation full only
when its runner names the directory (the sandbox's view shows it read-only)."""

import os
import shutil
import uuid

import pytest

from coderl.languages import LANGUAGES
from coderl.languages.runner import RUNNERS
from coderl.languages.user import load_runner_file
from coderl.sandbox import Sandbox
from coderl.sandbox.config import SandboxConfig
from coderl.sandbox.types import CheckKind, Status, TestCase
from coderl.tasks.spec import open_sandbox
from coderl.tasks.types import Task
from tests.conftest import require_binaries


@pytest.fixture
def registered():
    """Unregister this test's runners afterwards: the registry is process-global, and a later sandbox
    of the session would otherwise show their directory (under /tmp) to every program."""
    names = []
    yield names
    for name in names:
        RUNNERS.pop(name, None)
        LANGUAGES.pop(name, None)


def _runner_file(tmp_path, binary, paths):
    name = f"q{uuid.uuid4().hex[:8]}"  # languages are process-global: a fresh name per runner file
    path = tmp_path / f"{name}.yaml"
    path.write_text(f"language: {name}\nsource_file: main.q\nrun: [{binary}, \"{{source}}\"]\n"
                    + (f"paths: [{paths}]\n" if paths else ""), encoding="utf-8")
    return load_runner_file(path)


def _task(language):
    return Task(task_id="q/double", kind="stdio", prompt="Double n.", language=language,
                tests=(TestCase("0", "21\n", CheckKind.STDOUT, "42"),))


def test_a_toolchain_outside_the_system_dirs_needs_its_paths(tmp_path, registered):
    require_binaries("lua5.4")
    toolchain = tmp_path / "opt-q"
    (toolchain / "bin").mkdir(parents=True)
    binary = toolchain / "bin" / "q"
    shutil.copy(os.path.realpath(shutil.which("lua5.4")), binary)
    program = "print(io.read('n') * 2)"
    # First a runner without `paths` (no registered runner shows the directory yet) ...
    hidden = _runner_file(tmp_path, binary, None)
    registered.append(hidden.language)
    with Sandbox(workers=1) as sb:
        assert str(toolchain) not in sb.expose
        result = sb.run(_task(hidden.language).build_request(program))
    if result.isolation == "full":
        assert result.status is Status.RUNTIME_ERROR and "cannot execute" in result.message, result.message
    else:  # no view: the program sees the host's file system
        assert result.status is Status.PASSED, result.message
    # ... then one that names it: every sandbox a command opens after shows it, read-only (a sandbox made
    # by hand shows only what its `expose=` names: the sandbox knows no runner).
    exposed = _runner_file(tmp_path, binary, str(toolchain))
    registered.append(exposed.language)
    assert exposed.paths == (str(toolchain),)
    with Sandbox(workers=1) as sb:
        assert str(toolchain) not in sb.expose
    with open_sandbox(SandboxConfig(workers=1)) as sb:
        assert str(toolchain) in sb.expose
        result = sb.run(_task(exposed.language).build_request(program))
        assert result.status is Status.PASSED, result.message
        write = sb.run(_task(exposed.language).build_request(
            f"local f = io.open('{toolchain}/bin/planted', 'w'); print(f and 'WROTE' or 'DENIED')"))
    if write.isolation == "full":
        assert "DENIED" in write.stdout


def test_unregistered_runners_leave_no_path_behind():
    # Runs after the test above in file order: its runners (and their paths) are gone again.
    from coderl.languages import toolchain_paths

    assert not any("opt-q" in p for p in toolchain_paths())
