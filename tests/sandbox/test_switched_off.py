"""The speed mechanisms switched off for bench/sandbox.py's ablation (`CODERL_SANDBOX_OFF`): each "off" does per
program what the mechanism does once, so verdicts and isolation are the same; an unknown name is refused."""

import pytest

from coderl.sandbox.client import Sandbox, SandboxUnavailable
from coderl.sandbox.isolation import MECHANISMS, OFF_ENV
from coderl.sandbox.types import Status

from .helpers import ADD, make_script_request, make_tests_request

LEAVE_AND_FIND = """
import os
left = [n for n in os.listdir(".") if n != "main.py"]
open("left.txt", "w").write("x")
print("ok" if not left else left)
"""


@pytest.mark.parametrize("isolation", ["full", "uid"])
@pytest.mark.parametrize("off", [*MECHANISMS, ",".join(MECHANISMS)])
def test_a_mechanism_switched_off_gives_the_same_verdicts(monkeypatch, isolation, off):
    monkeypatch.setenv(OFF_ENV, off)
    requests = [make_tests_request(ADD), make_tests_request("def add(a, b):\n    return a - b\n"),
                make_script_request(LEAVE_AND_FIND, cases=(("", "ok"),))] * 2
    try:
        sb = Sandbox(workers=1, isolation=isolation)
    except SandboxUnavailable:
        pytest.skip(f"isolation {isolation!r} is not available here")
    with sb:
        results = [sb.run(r) for r in requests]
    assert [r.status for r in results] == [Status.PASSED, Status.FAILED, Status.PASSED] * 2, \
        [(r.status, r.message, r.stdout[-200:]) for r in results]
    assert {r.isolation for r in results} == {isolation}


def test_an_unknown_mechanism_is_refused_in_one_line(monkeypatch):
    monkeypatch.setenv(OFF_ENV, "spare")
    with pytest.raises(SandboxUnavailable, match=f"{OFF_ENV}='spare': expected names among namespaces"):
        Sandbox(workers=1)
