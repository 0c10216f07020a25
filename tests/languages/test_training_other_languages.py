"""`coderl train` and `coderl eval` run on Verilog and JavaScript tasks as they are: one GRPO step on a tiny
random model with the real sandbox and the real rewards, every seed-003 component logged."""

import json
import os

import pytest

torch = pytest.importorskip("torch")

from coderl.train.rl.policy_gradient import train  # noqa: E402
from tests.conftest import require_binaries  # noqa: E402
from tests.languages.test_runners_sandbox import JS_FUNCTIONS  # noqa: E402
from tests.models.tiny import tiny_llama  # noqa: E402
from tests.train.helpers import base_config  # noqa: E402


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory):
    return tiny_llama(tmp_path_factory.mktemp("model"))


def _metrics(run_dir):
    with open(os.path.join(run_dir, "metrics.jsonl"), encoding="utf-8") as f:
        return [json.loads(line) for line in f]


def test_grpo_step_on_verilog_logs_every_seed_003_component(model_dir, tmp_path):
    require_binaries("iverilog", "vvp", "yosys", "verilator")
    cfg = base_config(model_dir, tmp_path / "verilog", algo="grpo", tasks="verilog@train", steps=1,
                      reward="verilog", max_new_tokens=8, max_total_sequence_length=4096)
    train(cfg, log=lambda m: None)
    step = _metrics(cfg.out)[-1]
    for name in ("compile", "functional", "synthesis", "quality"):
        assert f"reward/{name}" in step and f"reward/weighted/{name}" in step, name
    assert step["sandbox/sandbox_error_rate"] == 0.0
    # A random model writes no module: nothing builds, every component is 0.
    assert step["reward/total"] == 0.0


def test_grpo_step_on_javascript_functions(model_dir, tmp_path):
    require_binaries("node")
    cfg = base_config(model_dir, tmp_path / "js", algo="grpo", tasks=f"{JS_FUNCTIONS}@train", steps=1,
                      reward="fraction", max_new_tokens=8, max_total_sequence_length=4096)
    train(cfg, log=lambda m: None)
    step = _metrics(cfg.out)[-1]
    assert step["sandbox/sandbox_error_rate"] == 0.0 and "reward/fraction" in step


def test_sft_targets_are_fenced_in_the_tasks_language_and_round_trip():
    from coderl.tasks.spec import load_tasks
    from coderl.train.sft.data import solution_text, target_round_trips

    require_binaries("iverilog", "vvp", "yosys", "verilator")
    hdl = load_tasks("verilog@train").tasks[0]
    js = load_tasks("stdio-basics:language=javascript").tasks[0]
    for task, tag in ((hdl, "verilog"), (js, "javascript")):
        target = solution_text(task, "chat")
        assert target == f"```{tag}\n{task.reference_solution.rstrip(chr(10))}\n```", task.task_id
        assert target_round_trips(task, "chat"), task.task_id
