"""A small pool of repository tasks generated from the committed fixture repository (once per test session), and a
sandbox to grade them in."""

import shutil
from pathlib import Path

import pytest

from coderl.sandbox import Sandbox

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "repository" / "minilib"


@pytest.fixture(scope="session")
def fixture_pool(tmp_path_factory, worker_id):
    """A generated pool (repo:PATH) of up to 8 validated tasks over the fixture repository: generated once per test
    session, by whichever xdist worker asks first, while the others wait for it on a lock and then read it (each
    worker generating its own had cost 40-75 s a worker on a 2-vCPU machine)."""
    from filelock import FileLock

    from coderl.tasks.repository.generate import RepoInput, generate

    shared = tmp_path_factory.getbasetemp()
    if worker_id != "master":  # every worker's base folder lies in the session's own folder
        shared = shared.parent
    pool, done = shared / "repository-pool", shared / "repository-pool.done"
    with FileLock(str(shared / "repository-pool.lock")):
        if not done.is_file():
            if pool.exists():  # a worker that failed while generating: nothing of its pool is kept
                shutil.rmtree(pool)
            pool.mkdir()
            with Sandbox(workers=2, isolation="full") as sandbox:
                stats = generate(sandbox, [RepoInput("minilib", FIXTURE, "minilib")], pool, per_function=1,
                                 max_tasks=8, log=lambda line: None)
            assert stats["total"]["validated"] >= 4, stats
            done.touch()
    return pool


@pytest.fixture(scope="session")
def fixture_tasks(fixture_pool):
    from coderl.tasks.repository.task import load_repository_tasks

    return load_repository_tasks(str(fixture_pool))


@pytest.fixture(scope="module")
def repo_sandbox():
    with Sandbox(workers=2, isolation="full") as sandbox:
        yield sandbox
