"""The fork server is one package, loaded from its folder under a private name (`coderl/sandbox/server/__init__.py`):
a program finds its modules only as `_coderl_server.*` in `sys.modules`, none of them under a name the judge would
import when a program names a module across the channel (`values.importable`), and neither the server's folder nor
coderl on its `sys.path`; a function task's judge has loaded the same one package."""

import json
import os

import coderl.sandbox.server as server_package
from coderl.sandbox.server import __main__ as entry
from coderl.sandbox.server.common import values
from coderl.sandbox.types import CheckKind, Status, TestCase

from .helpers import make_script_request, make_tests_request

FOLDER = os.path.dirname(os.path.abspath(server_package.__file__))
# What a process can see of the server: the modules loaded from its folder, by name; its folder on sys.path;
# whether `coderl` can be imported.
SEEN = (f"dict(ours=sorted(n for n, m in list(__import__('sys').modules.items()) "
        f"if (getattr(m, '__file__', None) or '').startswith({FOLDER!r})), "
        f"path=[p for p in __import__('sys').path if p.startswith({FOLDER!r})], "
        f"coderl=__import__('importlib.util').util.find_spec('coderl') is not None)")


def server_modules():
    """Every module of the package's folder, as the server names it."""
    names = []
    for root, _, files in os.walk(FOLDER):
        for file in files:
            if file.endswith(".py") and file != "__main__.py":
                parts = os.path.relpath(os.path.join(root, file), FOLDER)[:-3].split(os.sep)
                names.append(".".join([entry.PACKAGE, *[p for p in parts if p != "__init__"]]))
    return sorted(names)


def private(seen):
    """The entry script is `__main__` (as any script run by `python FILE`); every other module is the package's."""
    return seen["path"] == [] and not seen["coderl"] and seen["ours"] \
        and set(seen["ours"]) - {"__main__"} <= set(server_modules())


def test_no_module_of_the_server_is_importable_by_a_name_a_program_sends():
    assert len(server_modules()) >= 20
    assert [name for name in server_modules() if values.importable(name)] == []


def test_a_script_sees_the_server_as_one_private_package(sandbox):
    result = sandbox.run(make_script_request(f"import json\nprint(json.dumps({SEEN}))\n"))
    seen = json.loads(result.stdout)
    assert private(seen), seen
    assert f"{entry.PACKAGE}.program.script" in seen["ours"] and f"{entry.PACKAGE}.loop" in seen["ours"]


def test_a_function_task_sees_it_so_on_both_sides(sandbox):
    """The program asserts it of itself at import; a test asserts it in the judge."""
    check = f"(lambda seen: seen['path'] == [] and not seen['coderl'] and seen['ours'] and all(" \
            f"n.split('.')[0] in ({entry.PACKAGE!r}, '__main__') for n in seen['ours']))({SEEN})"
    program = f"assert {check}\ndef add(a, b):\n    return a + b\n"
    tests = [TestCase("program", "candidate(1, 2)", CheckKind.EQUALS, 3),
             TestCase("judge", f"assert {check}", CheckKind.ASSERT)]
    result = sandbox.run(make_tests_request(program, tests=tests))
    assert result.status is Status.PASSED, result
    broken = sandbox.run(make_tests_request(program, tests=[TestCase("judge", "assert 'coderl' in __import__('sys')"
                                                                     ".modules", CheckKind.ASSERT)]))
    assert broken.status is not Status.PASSED, broken  # the probe can fail: a module the judge lacks is seen so
