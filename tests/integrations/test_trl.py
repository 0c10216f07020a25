"""coderl's verifier as TRL reward functions: direct calls, and one real `GRPOTrainer` step on a tiny model.
Slow (TRL imports and one training step): `make test-slow`, which installs TRL."""

import pytest

pytestmark = pytest.mark.slow
trl = pytest.importorskip("trl")

from coderl.integrations.trl import CoderlRewards  # noqa: E402
from coderl.tasks import load_tasks  # noqa: E402
from tests.models.tiny import tiny_llama  # noqa: E402
from tests.train.helpers import TASKS  # noqa: E402


@pytest.fixture(scope="module")
def rewards():
    r = CoderlRewards(TASKS, format="completion", weights={"pass": 1.0, "fraction": 0.5})
    yield r
    r.close()


def test_rewards_equal_the_verifier_on_references_and_wrong_code(rewards):
    tasks = load_tasks(TASKS).tasks
    ids = [t.task_id for t in tasks] * 2
    completions = [t.reference_solution for t in tasks] + ["    return None\n"] * len(tasks)
    prompts = [t.prompt for t in tasks] * 2
    total = rewards(prompts, completions, task_id=ids)
    assert total[: len(tasks)] == [1.5] * len(tasks)  # pass 1 x 1.0 + fraction 1 x 0.5
    assert all(t < 1.5 for t in total[len(tasks):])
    passed, fraction = (f(prompts, completions, task_id=ids) for f in rewards.functions())
    assert passed == [1.0] * len(tasks) + [0.0] * len(tasks)
    assert [p * 1.0 + f * 0.5 for p, f in zip(passed, fraction)] == total
    assert [f.__name__ for f in rewards.functions()] == ["coderl_pass", "coderl_fraction"]
    assert rewards.weights() == [1.0, 0.5]


def test_one_batch_runs_once_in_the_sandbox(rewards, monkeypatch):
    tasks = load_tasks(TASKS).tasks[:2]
    runs = []
    real = rewards._sandbox.run_many
    monkeypatch.setattr(rewards._sandbox, "run_many", lambda requests: runs.append(1) or real(requests))
    args = ([t.prompt for t in tasks], ["    return 0\n"] * 2)
    for function in rewards.functions():
        function(*args, task_id=[t.task_id for t in tasks])
    assert len(runs) == 1


def test_unknown_task_id_is_one_clear_error(rewards):
    with pytest.raises(KeyError, match="task_id Nope/1: not among the"):
        rewards(["p"], ["c"], task_id=["Nope/1"])


def test_one_real_grpo_trainer_step(tmp_path):
    from datasets import Dataset
    from trl import GRPOConfig, GRPOTrainer

    from coderl.models import lora_config

    model = tiny_llama(tmp_path / "model")
    rewards = CoderlRewards(TASKS, format="chat", weights={"pass": 1.0, "format": 0.2, "syntax": 0.1})
    calls = []
    functions = rewards.functions()
    for f in functions:
        inner = f

        def traced(prompts, completions, task_id, inner=inner, **kwargs):
            calls.append((inner.__name__, len(completions), sorted(kwargs)))
            return inner(prompts, completions, task_id, **kwargs)

        traced.__name__ = f.__name__
        functions[functions.index(f)] = traced
    config = GRPOConfig(output_dir=str(tmp_path / "out"), use_cpu=True, report_to=[], save_strategy="no",
                        logging_steps=1, disable_tqdm=True, max_steps=1, seed=0, per_device_train_batch_size=4,
                        num_generations=2, max_completion_length=8, beta=0.0, bf16=False,
                        reward_weights=rewards.weights())
    trainer = GRPOTrainer(model=str(model), reward_funcs=functions, args=config,
                          train_dataset=Dataset.from_list(rewards.dataset()), peft_config=lora_config(8, 16, 0.05))
    trainer.train()
    rewards.close()
    assert [name for name, _, _ in calls] == ["coderl_pass", "coderl_format", "coderl_syntax"]
    assert all(n == 4 and "completion_ids" in keys for _, n, keys in calls)
    logged = next(entry for entry in trainer.state.log_history if "reward" in entry)
    for name in ("coderl_pass", "coderl_format", "coderl_syntax"):
        assert f"rewards/{name}/mean" in logged  # TRL logs each component on its own
