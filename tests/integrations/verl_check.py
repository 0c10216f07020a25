"""Run inside verl's own environment (verl pins transformers < 5.11): coderl's `compute_score` and
`compute_score_batch`, loaded through verl's `get_custom_reward_fn` and called by verl's own
NaiveRewardManager and BatchRewardManager on a DataProto batch.  Prints `verl_check: ok` at the end;
any mismatch is an AssertionError.  `tests/integrations/test_verl.py` runs it (make test-slow)."""

from __future__ import annotations

import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, ROOT)


def batch(tokenizer, rows, responses):
    import numpy as np
    import torch
    from verl import DataProto

    prompts = [tokenizer(r["prompt"][0]["content"], add_special_tokens=False)["input_ids"][-16:] for r in rows]
    answers = [tokenizer(text, add_special_tokens=False)["input_ids"] for text in responses]
    P, R, pad = max(map(len, prompts)), max(map(len, answers)), tokenizer.pad_token_id or 0
    prompt_ids = torch.tensor([[pad] * (P - len(p)) + p for p in prompts])  # left-padded
    response_ids = torch.tensor([a + [pad] * (R - len(a)) for a in answers])  # right-padded
    mask = torch.tensor([[0] * (P - len(p)) + [1] * len(p) + [1] * len(a) + [0] * (R - len(a))
                         for p, a in zip(prompts, answers)])
    return DataProto.from_dict(
        tensors={"prompts": prompt_ids, "responses": response_ids, "attention_mask": mask,
                 "input_ids": torch.cat([prompt_ids, response_ids], dim=1)},
        non_tensors={"data_source": np.array([r["data_source"] for r in rows], dtype=object),
                     "reward_model": np.array([r["reward_model"] for r in rows], dtype=object),
                     "extra_info": np.array([dict(r["extra_info"]) for r in rows], dtype=object)}), answers


def main() -> None:
    from omegaconf import OmegaConf
    from verl.trainer.ppo.reward import get_custom_reward_fn
    from verl.workers.reward_manager.batch import BatchRewardManager
    from verl.workers.reward_manager.naive import NaiveRewardManager

    from coderl.integrations.verl import verl_rows
    from coderl.tasks import load_tasks
    from tests.models.tiny import tiny_tokenizer
    from tests.train.helpers import TASKS

    tokenizer = tiny_tokenizer()
    tasks = load_tasks(TASKS).tasks
    rows = verl_rows(TASKS, format="completion", weights={"pass": 1.0, "fraction": 0.5}) * 2
    responses = [t.reference_solution for t in tasks] + ["    return None\n"] * len(tasks)
    path = os.path.join(ROOT, "coderl", "integrations", "verl.py")
    for manager, name in ((NaiveRewardManager, "compute_score"), (BatchRewardManager, "compute_score_batch")):
        config = OmegaConf.create({"reward": {"custom_reward_function": {"path": path, "name": name}}})
        reward_fn = manager(tokenizer, 0, compute_score=get_custom_reward_fn(config))
        data, answers = batch(tokenizer, rows, responses)
        out = reward_fn(data, return_dict=True)
        rewards = out["reward_tensor"]
        last = [len(a) - 1 for a in answers]
        scores = [float(rewards[i, j]) for i, j in enumerate(last)]
        assert float(rewards.sum()) == sum(scores), "verl puts the score on the last response token"
        n = len(tasks)
        assert scores[:n] == [1.5] * n, (name, scores)  # references: pass 1 + 0.5 x fraction 1
        assert all(s < 1.5 for s in scores[n:]), (name, scores)
        info = out["reward_extra_info"]
        assert list(info["coderl/pass"]) == [1.0] * n + [0.0] * n, (name, info)
        print(f"verl_check: {manager.__name__} with {name}: scores {scores}")
    import verl

    print(f"verl_check: ok (verl {verl.__version__})")


if __name__ == "__main__":
    main()
