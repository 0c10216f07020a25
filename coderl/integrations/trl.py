"""coderl's verifier as reward functions for TRL's `GRPOTrainer(reward_funcs=...)`.

    from coderl.integrations.trl import CoderlRewards
    rewards = CoderlRewards("humaneval@train", format="chat", weights={"pass": 1.0, "format": 0.2})
    trainer = GRPOTrainer(model=..., train_dataset=Dataset.from_list(rewards.dataset()),
                          reward_funcs=rewards.functions(), args=GRPOConfig(reward_weights=rewards.weights(), ...))
    trainer.train(); rewards.close()

* `dataset()` is one row per task: `prompt` (the format's chat messages, or the raw prompt text for
  `completion`) and `task_id`, the column the reward functions read back from TRL's keyword arguments.
* `functions()` is one reward function per weighted component (`coderl_pass`, `coderl_format`, ...),
  each returning that component's unweighted value; `weights()` is their weights for GRPOConfig's
  `reward_weights`, so TRL's total is coderl's total and TRL logs every component on its own
  (`rewards/coderl_pass/mean`, ...).  The first function called on a batch runs the whole batch in the
  sandbox and scores every component (one `coderl.rewards.score`); the others read that result.
* The completion is cut and extracted exactly as coderl's own rollouts do (the format's `extract`), the
  program built by the task, and run in coderl's sandbox (isolation and limits: docs/sandbox.md), so
  a reward here equals the reward `coderl train` would give the same text.
* `CoderlRewards` itself is also a reward function (the weighted total), for `reward_funcs=rewards`.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

from coderl.integrations.verify import run_outputs
from coderl.rewards.score import RewardConfig, score
from coderl.rollout.formats import get_format
from coderl.sandbox.config import SandboxConfig
from coderl.tasks import Task, load_tasks
from coderl.tasks.spec import open_sandbox
from coderl.tasks.types import for_training


def _text(completion: Any) -> str:
    """TRL's completion: a string (standard datasets) or a list of messages (conversational)."""
    if isinstance(completion, str):
        return completion
    return "".join(m.get("content") or "" for m in completion if m.get("role", "assistant") == "assistant")


class CoderlRewards:
    """Reward functions for TRL over coderl tasks (see the module docstring)."""

    __name__ = "coderl_total"  # TRL names a reward function by its __name__ in its logs

    def __init__(self, tasks: str | Sequence[Task], *, format: str = "chat", weights: dict[str, float] | None = None,
                 sandbox: SandboxConfig | None = None, reward: RewardConfig | None = None):
        self.tasks = {t.task_id: t for t in for_training(load_tasks(tasks).tasks if isinstance(tasks, str) else tasks)}
        self.format = get_format(format)
        self.config = reward or RewardConfig(weights=dict(weights or {"pass": 1.0}))
        self.sandbox_config = sandbox or SandboxConfig()
        self._sandbox = None
        self._lock = threading.Lock()
        self._last: tuple | None = None  # (key of the batch, RewardBatch)

    def dataset(self) -> list[dict]:
        """Rows for `datasets.Dataset.from_list`: `prompt` and `task_id` per task."""
        return [{"prompt": self.format.render(t, None) if self.format.name != "completion" else t.prompt,
                 "task_id": t.task_id} for t in self.tasks.values()]

    def weights(self) -> list[float]:
        """GRPOConfig(reward_weights=...) for `functions()`, in the same order."""
        return [w for w in self.config.weights.values() if w]

    def functions(self) -> list:
        """One TRL reward function per weighted component, named coderl_<component>."""
        out = []
        for name, weight in self.config.weights.items():
            if not weight:
                continue

            def component(prompts, completions, task_id, name=name, **kwargs):
                return self._score(prompts, completions, task_id, kwargs).components[name]

            component.__name__ = f"coderl_{name}"
            out.append(component)
        return out

    def __call__(self, prompts, completions, task_id, **kwargs) -> list[float]:
        return list(self._score(prompts, completions, task_id, kwargs).total)

    def _score(self, prompts, completions, task_id, kwargs):
        key = (tuple(map(repr, prompts)), tuple(map(repr, completions)), tuple(task_id))
        with self._lock:
            if self._last is not None and self._last[0] == key:
                return self._last[1]
            unknown = sorted({t for t in task_id if t not in self.tasks})
            if unknown:
                raise KeyError(f"task_id {', '.join(unknown[:5])}: not among the {len(self.tasks)} tasks given to "
                               "CoderlRewards (the dataset's task_id column must come from its dataset())")
            if self._sandbox is None:
                self._sandbox = open_sandbox(self.sandbox_config)
            ids = kwargs.get("completion_ids") or [()] * len(completions)
            tasks = [self.tasks[t] for t in task_id]
            samples, results = run_outputs(self._sandbox, self.sandbox_config.limits(), [
                (task, self.format.name, repr(prompt), _text(completion), row_ids)
                for task, prompt, completion, row_ids in zip(tasks, prompts, completions, ids)])
            rewarded = score(self.config, results, samples, tasks)
            self._last = (key, rewarded)
            return rewarded

    def close(self) -> None:
        if self._sandbox is not None:
            self._sandbox.close()
            self._sandbox = None
