import pytest

from coderl.sandbox.client import Sandbox


def _has_cuda() -> bool:
    try:
        import torch
    except ImportError:  # the verifier alone needs no torch
        return False
    return torch.cuda.is_available()


def pytest_collection_modifyitems(config, items):
    """Tests marked `gpu` run only where CUDA is present; every other test runs on the CPU everywhere."""
    gpu = [item for item in items if "gpu" in item.keywords]
    if gpu and not _has_cuda():
        skip = pytest.mark.skip(reason="needs a CUDA GPU (torch.cuda.is_available() is False)")
        for item in gpu:
            item.add_marker(skip)


@pytest.fixture(scope="session")
def sandbox():
    with Sandbox(workers=2) as sb:
        yield sb
