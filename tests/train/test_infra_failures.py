"""Infrastructure failures in a training run, injected at the sandbox (`Sandbox.submit_once`): a failure the
retry clears leaves the run bit-identical to the fault-free one; one that stays is left out of the advantages
and counted (`sandbox/infra_failures`); too many for too long stop the run in one line (exit 3)."""

import functools
import json
import os
from concurrent.futures import Future

import pytest

torch = pytest.importorskip("torch")

from coderl.sandbox.batches import Batches  # noqa: E402
from coderl.sandbox.client import Sandbox  # noqa: E402
from coderl.sandbox.types import ExecutionResult, Status  # noqa: E402
from coderl.train.infra_guard import InfraFailuresStop, InfraGuard  # noqa: E402
from coderl.train.rl.policy_gradient import train  # noqa: E402
from coderl.train.tracking import read_metrics as metrics  # noqa: E402
from tests.models.tiny import tiny_llama  # noqa: E402
from tests.train.helpers import base_config, learning_metrics, varied_reward  # noqa: E402


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory):
    return tiny_llama(tmp_path_factory.mktemp("model"))



def adapter(run_dir, step):
    from safetensors.torch import load_file

    return load_file(os.path.join(run_dir, "checkpoints", f"step-{step}", "adapter_model.safetensors"))


def fail_first_of_each_group(monkeypatch, *, every_time: bool, group: int = 3):
    """The first row of every group of `group` (a third of it) gets a `sandbox_error` instead of running: once
    (the retry runs it), or `every_time`."""
    real = Sandbox.submit_once
    fresh = {"calls": 0}
    seen: dict[int, object] = {}  # id -> the request, held so that no id is reused

    def submit_once(self, request):
        retry = id(request) in seen
        if not retry:
            fresh["calls"] += 1
            seen[id(request)] = request
        if (fresh["calls"] - 1) % group == 0 and (every_time or not retry):
            future = Future()
            future.set_result(ExecutionResult(status=Status.SANDBOX_ERROR, message="injected: the slot's cgroup "
                                              "could not be made"))
            return future
        return real(self, request)

    monkeypatch.setattr(Sandbox, "submit_once", submit_once)


def same_run(a, b, steps):
    for step in range(1, steps + 1):
        x, y = adapter(a, step), adapter(b, step)
        assert x.keys() == y.keys() and all(torch.equal(x[k], y[k]) for k in x), step
    assert [learning_metrics(m) for m in metrics(a)] == [learning_metrics(m) for m in metrics(b)]


@pytest.mark.slow  # whole training runs (about 3 s each on 2 cores)
def test_a_third_of_each_group_failing_once_leaves_the_run_bit_identical(model_dir, tmp_path, monkeypatch):
    clean = base_config(model_dir, tmp_path / "clean", algo="grpo")
    train(clean, log=lambda m: None, reward_override=varied_reward)
    fail_first_of_each_group(monkeypatch, every_time=False)
    flaky = base_config(model_dir, tmp_path / "flaky", algo="grpo")
    train(flaky, log=lambda m: None, reward_override=varied_reward)
    same_run(clean.out, flaky.out, 2)
    assert [m["sandbox/infra_failures"] for m in metrics(flaky.out)] == [0.0, 0.0]


@pytest.mark.slow  # whole training runs (about 3 s each on 2 cores)
def test_failures_that_stay_are_left_out_of_the_advantages_and_counted(model_dir, tmp_path, monkeypatch):
    from coderl.algorithms import ADVANTAGES

    seen = []
    real = ADVANTAGES["grpo"]

    @functools.wraps(real)  # its options and `needs_values` as the config reads them
    def grpo(rewards, group_ids, mask, **kwargs):
        out, state = real(rewards, group_ids, mask, **kwargs)
        seen.append((rewards.clone(), group_ids.clone(), out[:, 0].clone()))
        return out, state

    monkeypatch.setitem(ADVANTAGES, "grpo", grpo)
    monkeypatch.setattr(Batches, "infra_retries", 0)
    fail_first_of_each_group(monkeypatch, every_time=True)
    cfg = base_config(model_dir, tmp_path / "run", algo="grpo")
    train(cfg, log=lambda m: None, reward_override=varied_reward)
    rows = metrics(cfg.out)
    assert [m["sandbox/infra_failures"] for m in rows] == [2.0, 2.0]  # 2 groups of 3, one row each
    assert [m["sandbox/sandbox_error_rate"] for m in rows] == pytest.approx([1 / 3, 1 / 3])
    assert [m["watch/stalls"] for m in rows] == [0.0, 0.0]  # the stall watch ran (train/stalls.py)
    with open(os.path.join(cfg.out, "heartbeat.json")) as f:
        assert json.load(f)["phase"] == "ended"
    for rewards, group_ids, advantage in seen:  # the estimator saw the 4 remaining rows alone
        assert group_ids.tolist() == [0, 0, 1, 1]
        want, _ = real(rewards, group_ids, torch.ones(4, 1))
        assert torch.equal(advantage, want[:, 0])


@pytest.mark.slow  # whole training runs (about 3 s each on 2 cores)
def test_a_sandbox_failing_step_after_step_stops_the_run_in_one_line(model_dir, tmp_path, monkeypatch):
    monkeypatch.setattr(Batches, "infra_retries", 0)
    fail_first_of_each_group(monkeypatch, every_time=True)
    cfg = base_config(model_dir, tmp_path / "run", algo="grpo", steps=5)
    with pytest.raises(InfraFailuresStop) as info:
        train(cfg, log=lambda m: None, reward_override=varied_reward)
    message = str(info.value)
    assert "\n" not in message and info.value.exit_code == 3
    assert message.startswith("step 3: infrastructure failures (sandbox_error) in more than 5% of the samples for 3 "
                              "steps in a row (steps 1-3: 33%, 33%, 33%)"), message
    assert "injected: the slot's cgroup could not be made" in message
    assert message.endswith(f"newest intact checkpoint: {os.path.join(cfg.out, 'checkpoints', 'step-2')} "
                            "(continue with --resume once fixed)")
    assert len(metrics(cfg.out)) == 3 and not os.path.exists(os.path.join(cfg.out, "checkpoints", "step-3"))


class Rolled:
    def __init__(self, n, failed):
        self.rewards = torch.zeros(n)
        self.infra = torch.tensor([i < failed for i in range(n)]) if failed else None
        self.infra_cause = "the cgroup could not be made"


def test_the_guard_counts_only_steps_in_a_row_above_the_rate(tmp_path):
    guard = InfraGuard(str(tmp_path))
    for step, failed in enumerate([2, 2, 1, 2, 2], start=1):  # 1 of 20 is 5%: not above, the streak restarts
        guard.stop_if_due(step, Rolled(20, failed))
    with pytest.raises(InfraFailuresStop, match=r"^step 6: .* \(steps 4-6: 10%, 10%, 10%\).* checkpoint: none yet$"):
        guard.stop_if_due(6, Rolled(20, 2))


def test_the_cli_says_one_line_and_exits_3(monkeypatch, capsys, tmp_path):
    import coderl.train as trainer
    from coderl.cli import main

    def stop(cfg, **kwargs):
        raise InfraFailuresStop("step 3: infrastructure failures ... newest intact checkpoint: none yet")

    monkeypatch.setattr(trainer, "run_training", stop)
    code = main(["train", "--out", str(tmp_path / "run"), "--model", "tiny", "--tasks", "easy", "--steps", "3",
                 "--no-progress"])
    err = capsys.readouterr().err
    assert code == 3 and err.strip().splitlines() == ["coderl train: error: step 3: infrastructure failures ... "
                                                       "newest intact checkpoint: none yet"], err


@pytest.mark.parametrize("algo", ["grpo", "ppo"])
def test_a_sandbox_that_cannot_be_restarted_ends_train_with_3_naming_the_newest_intact_checkpoint(
        monkeypatch, capsys, tmp_path, algo):
    """issue 102: it ended with 2 (the code for bad input) and named no checkpoint."""
    import coderl.train.rl.policy_gradient as pg
    import coderl.train.rl.ppo as ppo
    from coderl.cli import main
    from coderl.sandbox.client import SandboxFailed
    from coderl.train.checkpoint import save_checkpoint

    out = tmp_path / "run"

    def dies(cfg, **kwargs):  # two steps checkpointed, then the server dies and is not restartable
        out.mkdir(exist_ok=True)
        (out / "config.yaml").write_text("steps: 3\n")
        for step in (1, 2):
            save_checkpoint(str(out), step, save_adapter=lambda path: open(os.path.join(path, "a.bin"), "wb").close(),
                            trainer_state={"step": step, "steps": 3})
        raise SandboxFailed("the sandbox server died (exit -9) and could not be restarted: the sandbox server was "
                            "killed by SIGKILL before it started (no hello)")

    monkeypatch.setattr(ppo if algo == "ppo" else pg, "train", dies)
    code = main(["train", "--out", str(out), "--model", "tiny", "--tasks", "easy", "--steps", "3", "--algo", algo,
                 "--no-progress"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 3 and len(err) == 1, err
    assert err[0] == ("coderl train: error: infrastructure failure: the sandbox server died (exit -9) and could not be "
                      "restarted: the sandbox server was killed by SIGKILL before it started (no hello); newest intact "
                      f"checkpoint: {out / 'checkpoints' / 'step-2'} (continue with --resume once fixed)")
    assert (out / "checkpoints" / "step-2").is_dir()  # the run is kept, to resume
