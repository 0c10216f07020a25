"""--device for sft, train and eval: auto picks CUDA when present; cuda without a GPU is one line."""

import pytest
import torch

from coderl.cli import main
from coderl.models import ModelError, resolve_device

needs_no_gpu = pytest.mark.skipif(torch.cuda.is_available(), reason="this machine has a CUDA GPU")


def test_auto_follows_cuda_availability(monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    assert resolve_device("auto") == "cpu" and resolve_device("cpu") == "cpu"
    with pytest.raises(ModelError, match=r"^--device cuda: this machine has no CUDA GPU"):
        resolve_device("cuda")
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    assert resolve_device("auto") == "cuda" and resolve_device("cuda") == "cuda"
    assert resolve_device("cpu") == "cpu"           # asked for the CPU: stays there
    with pytest.raises(ModelError, match=r"--device='tpu': expected one of auto, cpu, cuda"):
        resolve_device("tpu")


@needs_no_gpu
@pytest.mark.parametrize("command", [
    ["train", "--steps", "1"],
    ["eval", "--limit", "1"],
    ["sft", "--data", "tests/fixtures/tasks/humaneval_small.jsonl", "--split", "all"],
])
def test_cuda_without_a_gpu_is_one_line_and_writes_nothing(command, tmp_path, capsys):
    out = tmp_path / "run"
    assert main(command + ["--device", "cuda", "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip()
    assert "--device cuda: this machine has no CUDA GPU" in err and "\n" not in err, err
    assert not out.exists() or not any(out.iterdir())
