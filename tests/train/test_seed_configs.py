"""The seeds' multi-GPU configs (configs/seeds/) pass `coderl train --dry-run` here, and the accelerate
launch configs (configs/accelerate/) are what docs/scaling.md says they are."""

import glob
import os

import pytest
import yaml

from coderl.cli import main

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SEEDS = sorted(glob.glob(os.path.join(ROOT, "configs", "seeds", "*.yaml")))


def test_there_is_a_config_per_seed_setup():
    names = [os.path.basename(p) for p in SEEDS]
    assert names == ["seed002-grpo-2gpu.yaml", "seed002-grpo-8gpu.yaml", "seed003-ppo-7b-lora.yaml",
                     "seed004-grpo-zero3.yaml"]


@pytest.mark.parametrize("path", SEEDS, ids=os.path.basename)
def test_seed_config_passes_dry_run(path, capsys):
    assert main(["train", "--config", path, "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert f"{path} is valid; nothing loaded" in out
    fields = yaml.safe_load(open(path))
    rows = fields["prompts_per_step"] * fields["samples_per_prompt"]
    assert f"= {rows} rollouts" in out


def test_seed_numbers_are_the_seeds():
    load = lambda name: yaml.safe_load(open(os.path.join(ROOT, "configs", "seeds", name)))  # noqa: E731
    two, eight = load("seed002-grpo-2gpu.yaml"), load("seed002-grpo-8gpu.yaml")
    assert (two["prompts_per_step"], two["samples_per_prompt"], two["max_total_sequence_length"]) == (16, 8, 2048)
    assert (eight["prompts_per_step"], eight["samples_per_prompt"], eight["max_total_sequence_length"]) == (32, 16, 4096)
    assert two["learning_rate"] == eight["learning_rate"] == 5e-6 and two["kl_beta"] == eight["kl_beta"] == 0.01
    ppo = load("seed003-ppo-7b-lora.yaml")
    assert (ppo["algo"], ppo["lora_r"], ppo["clip_eps"], ppo["value_coef"], ppo["max_grad_norm"],
            ppo["entropy_coef"]) == ("ppo", 16, 0.2, 0.5, 0.5, 0.01)
    q = load("seed004-grpo-zero3.yaml")
    assert (q["learning_rate"], q["temperature"], q["eval_steps"], q["eval_problems"], q["repeat_eval"],
            q["max_tests_per_problem"], q["reward"]) == (2e-6, 0.8, 25, 15, 4, 3, "seed004")


def test_accelerate_configs():
    kinds = {os.path.basename(p): yaml.safe_load(open(p))["distributed_type"]
             for p in glob.glob(os.path.join(ROOT, "configs", "accelerate", "*.yaml"))}
    assert kinds == {"ddp.yaml": "MULTI_GPU", "fsdp.yaml": "FSDP"}  # DeepSpeed is refused: no config for it


def launch_config(path: str) -> str:
    """The accelerate config a seed file's header launches it with."""
    header = "".join(line for line in open(path) if line.startswith("#"))
    found = [part.split()[0] for part in header.split("--config_file ")[1:]]
    return os.path.basename(found[0]) if found else ""


def test_seeds_whose_model_does_not_fit_one_gpu_launch_under_fsdp(monkeypatch, capsys):
    """Seed 004 (14-32B; a 32B does not fit an 80 GB GPU unsharded: docs/scaling.md's memory table) runs under
    configs/accelerate/fsdp.yaml, and its --dry-run under that launch says the weights are sharded; the
    others fit one GPU and run under DDP."""
    launches = {os.path.basename(p): launch_config(p) for p in SEEDS}
    assert launches == {"seed002-grpo-2gpu.yaml": "ddp.yaml", "seed002-grpo-8gpu.yaml": "ddp.yaml",
                        "seed003-ppo-7b-lora.yaml": "ddp.yaml", "seed004-grpo-zero3.yaml": "fsdp.yaml"}
    monkeypatch.setenv("ACCELERATE_USE_FSDP", "true")  # what accelerate launch --config_file fsdp.yaml sets
    monkeypatch.setenv("WORLD_SIZE", "7")
    path = os.path.join(ROOT, "configs", "seeds", "seed004-grpo-zero3.yaml")
    assert main(["train", "--config", path, "--dry-run"]) == 0
    assert "FSDP (this launch): the weights are sharded over the 7 processes" in capsys.readouterr().out


@pytest.mark.parametrize("path", SEEDS, ids=os.path.basename)
def test_the_settings_a_seed_configs_comments_name_exist(path):
    """A setting a comment names (`--flag ...`, `key: value` in backticks) is one of `coderl train`'s: a comment
    that names a renamed or removed setting is stale."""
    import re

    from coderl.base.config import leaves
    from coderl.train.config import TrainConfig

    comments = "\n".join(line.split("#", 1)[1] for line in open(path) if "#" in line)
    keys = set(leaves(TrainConfig))
    for quoted in re.findall(r"`([^`]+)`", comments):
        flag = re.match(r"--([a-z][a-z-]*)", quoted)
        key = re.match(r"([a-z_]+): ", quoted)
        if flag and not quoted.startswith(("--config", "--num")):
            assert flag.group(1).replace("-", "_") in keys, (quoted, path)
        if key:
            assert key.group(1) in keys, (quoted, path)


@pytest.mark.parametrize("name", ["seed002-grpo-2gpu.yaml", "seed002-grpo-8gpu.yaml"])
def test_seed002_reads_nemotron_through_its_preset_and_validates_on_the_fixture(name, capsys):
    """Seed 002's dataset is read by the `nemotron-rl` preset of `hf:` (not as a JSONL file: its keys are NeMo
    Gym's); pointed at the fixture (two published NeMo Gym rows), the config's dry run passes and its spec reads
    the rows.  A dry run reads no tasks: a path not here is said, and a mistyped preset is refused."""
    from coderl.tasks.spec import load_tasks

    path = os.path.join(ROOT, "configs", "seeds", name)
    spec = yaml.safe_load(open(path))["tasks"]
    assert spec == "hf:data/Nemotron-RL-coding-competitive_coding:preset=nemotron-rl"
    assert main(["train", "--config", path, "--dry-run"]) == 0
    assert ("tasks: data/Nemotron-RL-coding-competitive_coding is no file or folder here; a dry run reads no tasks"
            in capsys.readouterr().out)
    fixture = spec.replace("data/Nemotron-RL-coding-competitive_coding",
                           os.path.join(ROOT, "tests", "fixtures", "tasks", "nemotron_small.jsonl"))
    assert main(["train", "--config", path, "--tasks", fixture, "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert f"{path} is valid; nothing loaded" in out and "no file or folder here" not in out.split("--- config")[0]
    assert [t.task_id for t in load_tasks(fixture).tasks] == ["570676e22bd21c28e452486b0668ec74",
                                                              "1a54a91d7294e33bed666e3bc94148fd"]
    assert main(["train", "--config", path, "--tasks", fixture.replace("nemotron-rl", "nemotron"), "--dry-run"]) == 2
    assert "preset 'nemotron': expected one of" in capsys.readouterr().err
