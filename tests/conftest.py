import pytest

from coderl.sandbox.client import Sandbox


@pytest.fixture(scope="session")
def sandbox():
    with Sandbox(workers=2) as sb:
        yield sb
