"""`coderl launch` refuses, before any rank starts, more ranks than the machine has CUDA devices when the run uses
CUDA (the third GPU lease: `--num_processes 2` on one GPU died in accelerate's barrier with `invalid device
ordinal` after ~50 s).  CUDA is faked: torch.cuda's answers patched, accelerate's launcher replaced."""

import os

import pytest

pytest.importorskip("accelerate")

from tests.train.test_distributed import ROOT  # noqa: E402

FSDP = os.path.join(ROOT, "configs", "accelerate", "fsdp.yaml")
DDP = os.path.join(ROOT, "configs", "accelerate", "ddp.yaml")


@pytest.fixture
def launched(monkeypatch):
    """One CUDA device; the launches that got as far as accelerate's launcher.  The variables a launch sets for its
    ranks are this process's: set, then removed, so that the test's end takes them away again (a later `coderl`
    command in this process would otherwise take it for a rank whose launcher is gone, and end itself)."""
    import accelerate.commands.launch
    import torch

    from coderl import cli

    for name in (cli.LAUNCHER, cli.OWNER):
        monkeypatch.setenv(name, "-")
        monkeypatch.delenv(name)

    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 1)
    seen = []
    monkeypatch.setattr(accelerate.commands.launch, "launch_command", lambda args: seen.append(args.num_processes))
    return seen


def _launch(options, tmp_path, *train):
    from coderl import cli

    return cli.main(["launch", *options, "train", "--model", "m", "--tasks", "easy", "--out", str(tmp_path / "o"),
                     *train])


@pytest.mark.parametrize("options, said", [
    (["--config_file", FSDP, "--num_processes", "2"], "--num_processes 2 starts 2 ranks"),
    (["--config_file", FSDP], "--num_processes 8 starts 8 ranks"),  # the config file's 8
    (["--config_file", DDP, "--num_processes", "3"], "--num_processes 3 starts 3 ranks"),
])
def test_more_ranks_than_cuda_devices_is_one_line(options, said, tmp_path, launched, capsys):
    assert _launch(options, tmp_path) == 2 and launched == []
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("coderl launch: error: " + said), err
    assert "which has 1 CUDA device" in err and "at most 1" in err and "--device cpu" in err, err
    assert not (tmp_path / "o").exists()  # refused before anything was written


def test_the_launches_that_fit_or_run_on_cpu_go_on(tmp_path, launched, monkeypatch, capsys):
    assert _launch(["--config_file", FSDP, "--num_processes", "1"], tmp_path) == 0
    assert _launch(["--config_file", FSDP, "--num_processes", "2"], tmp_path, "--device", "cpu") == 0
    assert _launch(["--config_file", FSDP, "--num_processes", "4", "--num_machines", "4"], tmp_path) == 0
    import torch

    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)  # auto on a machine without CUDA: CPU ranks
    assert _launch(["--config_file", FSDP, "--num_processes", "2"], tmp_path) == 0
    assert launched == [1, 2, 4, 2]


def test_accelerates_cpu_flag_alone_is_still_refused(tmp_path, launched, capsys):
    """--cpu moves accelerate's backend, not coderl's model (`--device` does): still one device per rank."""
    assert _launch(["--config_file", DDP, "--cpu", "--num_processes", "2"], tmp_path) == 2 and launched == []
    assert "which accelerate's --cpu/use_cpu alone does not make" in capsys.readouterr().err
