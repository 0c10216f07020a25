"""coderl's verifier as verl's custom reward function.

    # data: one row per task, written by `verl_rows` (verl's RL parquet layout)
    pd.DataFrame(verl_rows("humaneval@train", format="chat")).to_parquet("train.parquet")
    # verl config
    custom_reward_function.path=<site-packages>/coderl/integrations/verl.py
    custom_reward_function.name=compute_score          # NaiveRewardManager: one response at a time
    custom_reward_function.name=compute_score_batch    # reward_model.reward_manager=batch: a whole batch
                                                       # in the sandbox at once (verl #1130: serial scoring)

* `ground_truth` is the task id; `extra_info` carries the task spec (`tasks`), the prompt `format` and
  optional reward `weights` (default {"pass": 1.0}), as `verl_rows` writes them.
* The response is extracted as `coderl train` extracts its own rollouts, the program built by the task
  and run in coderl's sandbox (isolation and limits: docs/sandbox.md; `coderl check --show-isolation`),
  so a score here is the reward coderl gives the same text.
* Each call returns {"score": total, "coderl/<component>": value, ...}: verl trains on `score` and
  logs the other keys (its `reward_extra_info`).
* One sandbox per process, opened on first use (workers and limits from `CODERL_SANDBOX_WORKERS`,
  `CODERL_SANDBOX_TIMEOUT`, or the defaults) and closed at exit; task sets are loaded once.
"""

from __future__ import annotations

import atexit
import functools
import os
import threading

from coderl.integrations.verify import run_outputs
from coderl.rewards.score import RewardConfig, score
from coderl.rollout.formats import get_format
from coderl.sandbox.config import SandboxConfig
from coderl.tasks import load_tasks
from coderl.tasks.spec import absolute_spec, open_sandbox
from coderl.tasks.types import for_training

_lock = threading.Lock()
_state: dict = {}


def verl_rows(tasks: str, *, format: str = "chat", weights: dict[str, float] | None = None,
              data_source: str = "coderl") -> list[dict]:
    """verl's RL rows for a task spec: prompt (chat messages, or text for `completion`), reward_model
    (style rule, ground_truth = task id) and extra_info (tasks, format, weights, index)."""
    fmt = get_format(format)
    rows = []
    tasks = absolute_spec(tasks)  # the rows are scored wherever the trainer runs, not only from this directory
    for i, task in enumerate(load_tasks(tasks).tasks):
        prompt = fmt.render(task, None) if format != "completion" else [{"role": "user", "content": task.prompt}]
        rows.append({"data_source": data_source, "prompt": prompt, "ability": "code",
                     "reward_model": {"style": "rule", "ground_truth": task.task_id},
                     "extra_info": {"tasks": tasks, "format": format, "weights": dict(weights or {"pass": 1.0}),
                                    "index": i}})
    return rows


@functools.lru_cache(maxsize=16)
def _tasks(spec: str) -> dict:
    return {t.task_id: t for t in for_training(load_tasks(spec).tasks)}  # verl trains on these rewards


def _sandbox():
    with _lock:
        if "sandbox" not in _state:
            config = SandboxConfig(workers=int(os.environ["CODERL_SANDBOX_WORKERS"])
                                   if "CODERL_SANDBOX_WORKERS" in os.environ else None,
                                   timeout=float(os.environ.get("CODERL_SANDBOX_TIMEOUT", "3")))
            _state["sandbox"], _state["limits"] = open_sandbox(config), config.limits()
            atexit.register(_state["sandbox"].close)
        return _state["sandbox"], _state["limits"]


def compute_score_batch(data_sources, solution_strs, ground_truths, extra_infos, **kwargs) -> list[dict]:
    """Scores of a batch of responses, all run in the sandbox at once (verl's BatchRewardManager)."""
    rows, configs = [], []
    for i, (response, task_id, extra) in enumerate(zip(solution_strs, ground_truths, extra_infos)):
        extra = dict(extra or {})
        if "tasks" not in extra:
            raise KeyError(f"row {i} (ground_truth {task_id!r}): extra_info has no 'tasks' (the coderl task spec); "
                           "write the data with coderl.integrations.verl.verl_rows")
        table = _tasks(extra["tasks"])
        if task_id not in table:
            raise KeyError(f"row {i}: ground_truth {task_id!r} is not a task of {extra['tasks']!r}")
        rows.append((table[task_id], extra.get("format", "chat"), "", response, ()))
        configs.append(RewardConfig(weights=dict(extra.get("weights") or {"pass": 1.0})))
    samples, results = run_outputs(*_sandbox(), rows)
    tasks = [row[0] for row in rows]
    out = []
    for i, config in enumerate(configs):  # rows may weigh components differently: score each alone
        scored = score(config, results[i:i + 1], samples[i:i + 1], tasks[i:i + 1])
        out.append({"score": scored.total[0], **{f"coderl/{k}": v[0] for k, v in scored.components.items()}})
    return out


def compute_score(data_source, solution_str, ground_truth, extra_info=None, **kwargs) -> dict:
    """The score of one response (verl's NaiveRewardManager calls this per row)."""
    return compute_score_batch([data_source], [solution_str], [ground_truth], [extra_info])[0]
