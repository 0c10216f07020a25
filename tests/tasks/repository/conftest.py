"""A small pool of repository tasks generated from the committed fixture repository (once per test session), and a
sandbox to grade them in."""

from pathlib import Path

import pytest

from coderl.sandbox import Sandbox

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "repository" / "minilib"


@pytest.fixture(scope="session")
def fixture_pool(tmp_path_factory):
    """A generated pool (repo:PATH) of up to 8 validated tasks over the fixture repository."""
    from coderl.tasks.repository.generate import RepoInput, generate

    pool = tmp_path_factory.mktemp("pool")
    with Sandbox(workers=2, isolation="full") as sandbox:
        stats = generate(sandbox, [RepoInput("minilib", FIXTURE, "minilib")], pool, per_function=1, max_tasks=8,
                         log=lambda line: None)
    assert stats["total"]["validated"] >= 4, stats
    return pool


@pytest.fixture(scope="session")
def fixture_tasks(fixture_pool):
    from coderl.tasks.repository.task import load_repository_tasks

    return load_repository_tasks(str(fixture_pool))


@pytest.fixture(scope="module")
def repo_sandbox():
    with Sandbox(workers=2, isolation="full") as sandbox:
        yield sandbox
