"""The Ray sandbox backend against a local Ray instance that the tests start and stop: the same results
as the local sandbox in input order, the same isolation, and a lost Ray worker failing only its programs.
Slow (Ray starts in ~10 s): `make test-slow`, which installs the [ray] extra."""

import time

import pytest

pytestmark = pytest.mark.slow
ray = pytest.importorskip("ray")

from coderl.sandbox import Sandbox, Status  # noqa: E402
from coderl.sandbox.ray_backend import RaySandbox  # noqa: E402
from tests.sandbox.helpers import ADD, make_script_request, make_tests_request  # noqa: E402

PROGRAMS = [
    make_tests_request(ADD),  # passed
    make_tests_request("def add(a, b):\n    return a - b\n"),  # failed
    make_tests_request("def add(a, b)\n    return a + b\n"),  # syntax error
    make_tests_request("def add(a, b):\n    while True:\n        pass\n", cpu_seconds=1),  # timeout
    make_script_request("print(int(input()) * 2)", cases=(("21", "42"), ("2", "4"))),  # passed
    make_script_request("raise SystemExit(3)"),  # runtime error
    make_tests_request("import os\ndef add(a, b):\n    return len(os.listdir('/home'))\n"),
]


def test_coderl_check_runs_on_ray(tmp_path):  # first: it starts and stops its own Ray instance
    from coderl.base.config import build
    from coderl.eval.check import CheckConfig, run_check

    cfg = build(CheckConfig, {"tasks": "tests/fixtures/tasks/humaneval_small.jsonl", "reference": True,
                              "backend": "ray", "ray_workers": 2, "workers": 1, "out": str(tmp_path / "c.jsonl")})
    summary = run_check(cfg)
    assert summary["workers"] == 2 and summary["statuses"] == {"passed": 3}
    assert not ray.is_initialized()


@pytest.fixture(scope="module")
def ray_sandbox():
    assert not ray.is_initialized()
    sandbox = RaySandbox(ray_workers=2, workers=1)
    yield sandbox
    sandbox.close()
    assert not ray.is_initialized()  # the instance the backend started is stopped


def test_results_in_input_order_equal_the_local_sandbox(ray_sandbox):
    requests = PROGRAMS * 3  # more than the 2 programs that run at once
    with Sandbox(workers=2) as local:
        want = local.run_many(requests)
    got = ray_sandbox.run_many(requests)
    assert [r.status for r in got] == [r.status for r in want]
    assert [r.status for r in got[:6]] == [Status.PASSED, Status.FAILED, Status.SYNTAX_ERROR, Status.TIMEOUT,
                                           Status.PASSED, Status.RUNTIME_ERROR]
    assert [[t.status for t in r.tests] for r in got] == [[t.status for t in r.tests] for r in want]
    assert {r.isolation for r in got} == {local.isolation} == {ray_sandbox.isolation}


def test_workers_run_on_ray_and_each_holds_a_sandbox(ray_sandbox):
    assert len(ray_sandbox.infos) == 2 and ray_sandbox.workers == 2
    assert len({info["pid"] for info in ray_sandbox.infos}) == 2  # two actor processes


def test_a_program_cannot_reach_the_ray_cluster_it_runs_under(ray_sandbox):
    """Attack: the program connects to Ray's control service (GCS) on the loopback to drive the cluster
    (submit work, read objects, kill its neighbours).  Under `full` isolation it has no network at all."""
    if ray_sandbox.isolation != "full":
        pytest.skip(f"isolation {ray_sandbox.isolation}: the network stays reachable below full (docs/sandbox.md)")
    host, port = ray.get_runtime_context().gcs_address.rsplit(":", 1)
    probe = ("import socket\ntry:\n"
             f"    socket.create_connection(({host!r}, {int(port)}), timeout=2)\n    print('reached')\n"
             "except OSError:\n    print('blocked')\n")
    result = ray_sandbox.run(make_script_request(probe, cases=(("", "blocked"),)))
    assert result.status is Status.PASSED, (result.status, result.tests)


def test_a_lost_worker_fails_only_its_programs(ray_sandbox):  # last: it kills one of the two workers
    sandbox = ray_sandbox
    slow = make_script_request("import time\ntime.sleep(1.5)\nprint('ok')", cases=(("", "ok"),), cpu_seconds=5)
    start = next(sandbox._next)  # round robin: where the next program goes
    futures = [sandbox.submit(slow) for _ in range(6)]  # 3 per worker, 1 running on each
    time.sleep(0.5)
    victim = (start + 1) % 2  # the worker that got futures 0, 2, 4
    ray.kill(sandbox._actors[victim])
    results = [f.result(timeout=120) for f in futures]
    # the lost worker's programs were an infrastructure failure, run again on the survivor (Batches.submit)
    assert [r.status for r in results] == [Status.PASSED] * 6
    assert sandbox.lost == 1 and sandbox.retried == 3
    assert sandbox.run(make_tests_request(ADD)).status is Status.PASSED  # the survivor takes new work
