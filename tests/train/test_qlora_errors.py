"""`--qlora` in RL and evaluation (not only SFT): without CUDA it is one line, before anything is written."""

import pytest

torch = pytest.importorskip("torch")

from coderl.cli import main  # noqa: E402
from coderl.models.quantized import QLORA_NO_CUDA  # noqa: E402
from tests.models.tiny import tiny_llama  # noqa: E402
from tests.train.helpers import TASKS  # noqa: E402


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory):
    return tiny_llama(tmp_path_factory.mktemp("model"))


@pytest.mark.parametrize("command", [
    ["train", "--tasks", TASKS, "--steps", "1", "--device", "cpu"],
    ["eval", "--tasks", TASKS, "--device", "cpu"],
])
def test_qlora_without_cuda_is_one_line(model_dir, tmp_path, capsys, monkeypatch, command):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)  # the same answer on a GPU machine
    out = tmp_path / "run"
    code = main([*command, "--model", str(model_dir), "--out", str(out), "--qlora"])
    assert code == 2
    assert capsys.readouterr().err == f"coderl {command[0]}: error: {QLORA_NO_CUDA}\n"
    assert not out.exists()


def test_qlora_is_one_lora_field_shared_by_sft_and_train():
    from coderl.base.config import build
    from coderl.train.config import TrainConfig
    from coderl.train.sft.run import SFTConfig

    assert build(TrainConfig, {"out": "x", "qlora": True}).lora.qlora
    assert build(SFTConfig, {"out": "x", "qlora": True}).lora.qlora
