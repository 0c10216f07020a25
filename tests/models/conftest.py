import pytest


@pytest.fixture
def cache(tmp_path, monkeypatch):
    """An empty CODERL_CACHE for the test; returns its models/ folder."""
    root = tmp_path / "coderl-cache"
    monkeypatch.setenv("CODERL_CACHE", str(root))
    return root / "models"
