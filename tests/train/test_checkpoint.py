"""Checkpoint RNG state: Python, torch CPU and, where CUDA is present, every GPU's generator (sampling on a
GPU draws from it); checkpoints move between CPU and GPU machines; `--deterministic`."""

import os
import random

import pytest

torch = pytest.importorskip("torch")

from coderl.train import checkpoint  # noqa: E402
from coderl.train.checkpoint import load_trainer_state, rng_state, set_rng_state  # noqa: E402


def draws():
    return random.random(), torch.rand(3).tolist()


def test_python_and_torch_generators_round_trip():
    state = rng_state()
    first = draws()
    draws()
    set_rng_state(state)
    assert draws() == first


class FakeCuda:
    """torch.cuda of a machine with `count` GPUs, whose generator states are recorded."""

    def __init__(self, monkeypatch, count: int):
        self.states = [torch.tensor([i, 7], dtype=torch.uint8) for i in range(count)]
        self.restored = []
        monkeypatch.setattr(torch.cuda, "is_available", lambda: count > 0)
        monkeypatch.setattr(torch.cuda, "device_count", lambda: count)
        monkeypatch.setattr(torch.cuda, "get_rng_state_all", lambda: list(self.states))
        monkeypatch.setattr(torch.cuda, "set_rng_state", lambda s, device: self.restored.append((device, s.tolist())))


def test_cuda_generators_are_saved_and_restored(monkeypatch):
    cuda = FakeCuda(monkeypatch, 2)
    state = rng_state()
    assert [s.tolist() for s in state["cuda"]] == [[0, 7], [1, 7]]
    set_rng_state(state)
    assert cuda.restored == [(0, [0, 7]), (1, [1, 7])]


def test_checkpoints_move_between_cpu_and_gpu_machines(monkeypatch, tmp_path):
    cpu_state = rng_state()  # this machine: whatever it has
    cpu_state.pop("cuda", None)  # as written on a machine without CUDA
    cuda = FakeCuda(monkeypatch, 1)
    set_rng_state(cpu_state)  # on a GPU machine: the GPU generator stays as seeded
    assert cuda.restored == []
    gpu_state = {**cpu_state, "cuda": [torch.tensor([3, 3], dtype=torch.uint8)] * 2}  # written with 2 GPUs
    set_rng_state(gpu_state)  # here 1 GPU: the one it has
    assert cuda.restored == [(0, [3, 3])]
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    set_rng_state(gpu_state)  # on a CPU-only machine: ignored, no error
    assert len(cuda.restored) == 1
    seen = {}
    real_load = torch.load

    def spy(*args, **kwargs):
        seen.update(kwargs)
        return real_load(*args, **kwargs)

    os.makedirs(tmp_path / "step-1")
    torch.save({"step": 1, "rng": gpu_state}, tmp_path / "step-1" / "trainer_state.pt")
    monkeypatch.setattr(checkpoint.torch, "load", spy)
    assert load_trainer_state(str(tmp_path / "step-1"))["step"] == 1
    assert seen["map_location"] == "cpu"  # GPU tensors (optimizer moments) load on a CPU-only machine


def test_deterministic_turns_on_deterministic_algorithms(tmp_path, monkeypatch):
    from coderl.train import run_training
    from tests.models.tiny import tiny_llama
    from tests.train.helpers import base_config, varied_reward

    monkeypatch.delenv("CUBLAS_WORKSPACE_CONFIG", raising=False)
    assert not torch.are_deterministic_algorithms_enabled()
    cfg = base_config(tiny_llama(tmp_path / "model"), tmp_path / "run", steps=1, deterministic=True, device="cpu")
    try:
        run_training(cfg, log=lambda m: None, reward_override=varied_reward)
        assert torch.are_deterministic_algorithms_enabled()
        assert torch.is_deterministic_algorithms_warn_only_enabled()
        assert os.environ["CUBLAS_WORKSPACE_CONFIG"] == ":4096:8"
    finally:
        torch.use_deterministic_algorithms(False)
        os.environ.pop("CUBLAS_WORKSPACE_CONFIG", None)


def test_a_checkpoint_carries_the_manifest_of_its_files(tmp_path):
    """Every file's size and sha256 (trainer_state.pt's hashed as torch.save writes it), the step and the run's
    steps; `damage` reads a file cut, changed or missing against it; the final copy leaves it out."""
    import hashlib
    import json

    from coderl.train.checkpoint import MANIFEST, damage, final_copy, save_checkpoint

    def adapter(path):
        os.makedirs(os.path.join(path, "sub"))
        with open(os.path.join(path, "sub", "weights.bin"), "wb") as f:
            f.write(b"w" * 1000)

    path = save_checkpoint(str(tmp_path), 3, save_adapter=adapter,
                           trainer_state={"step": 3, "steps": 5, "moments": torch.ones(100)},
                           extra={"value_head.pt": {"w": torch.zeros(3)}})
    manifest = json.loads(open(os.path.join(path, MANIFEST)).read())
    assert manifest["step"] == 3 and manifest["steps"] == 5
    assert set(manifest["files"]) == {"sub/weights.bin", "trainer_state.pt", "value_head.pt"}
    for name, entry in manifest["files"].items():
        data = open(os.path.join(path, name), "rb").read()
        assert entry == {"size": len(data), "sha256": hashlib.sha256(data).hexdigest()}, name
    assert damage(path) is None
    assert load_trainer_state(path)["step"] == 3
    assert not os.path.exists(os.path.join(final_copy(str(tmp_path), path, "adapter"), MANIFEST))
    with open(os.path.join(path, "value_head.pt"), "ab") as f:
        f.write(b"x")
    assert damage(path).startswith("value_head.pt is ")
