"""One training run for the data-parallel tests, as a script: `python tests/train/ddp_runner.py SPEC` or
`accelerate launch ... tests/train/ddp_runner.py SPEC`.  SPEC is JSON: {"model", "out", "fields": {...},
"loop": "policy_gradient" | "ppo" | "sft"}.  Every rank writes `grads-rank{R}.pt` in `out`: the LoRA (and value
head) gradient of every minibatch update, as every rank holds it after DDP's average (under FSDP each rank holds
a shard: the whole gradient is gathered, every rank calling together), and `sharded-rank{R}.json`: what it sharded
(module class, parameters it holds, parameters in all).  A launched process ends as `coderl`'s do
(`distributed.exit_process`)."""

from __future__ import annotations

import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", ".."))  # `tests` importable as a script


def half_flat_reward(results, samples, tasks):
    """Flat (zero-variance groups) on tasks with an even number, varied on the others: dynamic sampling
    drops and refills."""
    from tests.train.helpers import varied_reward

    varied = varied_reward(results, samples, tasks)
    return [1.0 if int(t.task_id.split("/")[-1]) % 2 == 0 else v for v, t in zip(varied, tasks)]


def main(spec: dict) -> None:
    import importlib

    import torch

    import coderl.train.updater as updater
    from tests.train.helpers import TASKS, base_config, varied_reward

    recorded = []
    apply = updater.apply_gradients

    def whole(grad):
        from torch.distributed.tensor import DTensor

        return grad.full_tensor() if isinstance(grad, DTensor) else grad.detach().clone()

    def recording(params, optimizer, max_grad_norm, *, loss):
        recorded.append([whole(p.grad) if p.grad is not None else None for p in params])
        return apply(params, optimizer, max_grad_norm, loss=loss)

    import coderl.train.distributed as distributed

    sharded = []  # under FSDP: (module class, parameters this rank holds, parameters in all) per sharded module
    shard = distributed.Ranks.fully_shard

    def recording_shards(ranks, module):
        out = shard(ranks, module)
        if ranks.sharded:
            from torch.distributed.tensor import DTensor

            params = list(module.parameters())
            sharded.append((type(module).__name__, sum((p.to_local() if isinstance(p, DTensor) else p).numel()
                                                       for p in params), sum(p.numel() for p in params)))
        return out

    distributed.Ranks.fully_shard = recording_shards
    if spec.get("loop") == "sft":
        import coderl.train.sft.run as loop
        from coderl.base.config import build

        updater.apply_gradients = recording  # the updater calls its own, by its module's name
        fields = dict(out=spec["out"], model=spec["model"], data=TASKS, split="all", format="completion",
                      progress=False, device="cpu", learning_rate=1e-2, max_length=256)
        cfg = build(loop.SFTConfig, {**fields, **spec["fields"]})
        loop.sft(cfg, log=lambda m: None)
    else:
        loop = importlib.import_module(f"coderl.train.rl.{spec.get('loop', 'policy_gradient')}")
        updater.apply_gradients = recording  # the updater calls its own, by its module's name
        cfg = base_config(spec["model"], spec["out"], **spec["fields"])
        reward = half_flat_reward if spec.get("reward") == "half_flat" else varied_reward
        loop.train(cfg, log=lambda m: None, reward_override=reward)
    torch.save(recorded, os.path.join(cfg.out, f"grads-rank{os.environ.get('RANK', '0')}.pt"))
    with open(os.path.join(cfg.out, f"sharded-rank{os.environ.get('RANK', '0')}.json"), "w") as f:
        json.dump(sharded, f)


if __name__ == "__main__":
    main(json.loads(sys.argv[1]))
    if int(os.environ.get("WORLD_SIZE", "1")) > 1:
        from coderl.train.distributed import exit_process

        exit_process(0)
