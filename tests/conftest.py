import os
import shutil

import pytest

from coderl.sandbox.client import Sandbox

# The fixture repository's own suite is a repository task's tests, run in the sandbox, never by this session
collect_ignore_glob = ["fixtures/repository/*"]


def require_binaries(*names: str) -> None:
    """Skip the calling test (or module, from a fixture) unless every binary in `names` is on PATH; under
    CI (env CI=true) a missing binary fails instead, so a CI image without the toolchain is noticed."""
    for name in names:
        if shutil.which(name) is None:
            if os.environ.get("CI", "").lower() == "true":
                pytest.fail(f"{name} not installed (make setup installs it)", pytrace=False)
            pytest.skip(f"{name} not installed: make setup installs it")


def require_vllm_engine() -> None:
    """Skip the calling module (called at its top) in one line unless a vLLM engine can start here
    (`vllm_engine.engine_python`: make setup-vllm); its tests are marked `vllm` and run by `make test-vllm`."""
    from coderl.base.config import ConfigError
    from coderl.rollout.vllm_engine import engine_python

    try:
        engine_python()
    except ConfigError as e:
        pytest.skip(f"no vLLM engine here ({e})", allow_module_level=True)


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
