"""Throw-away: the demo's GRPO stage for 13 steps (fresh72g's SFT adapter); step 13's programs judged again 6 times."""
import json, pickle, sys
from coderl.base.config import build
from coderl.train.config import TrainConfig
from coderl.train.rl.policy_gradient import train
import yaml
cfg_fields = yaml.safe_load(open("/tmp/fresh72g/runs/pipeline/cpu-demo/rl/grpo/config.yaml"))
cfg_fields.update(out="/tmp/v13/run", overwrite=True, steps=13, model="/tmp/fresh72g/runs/pipeline/cpu-demo/sft/adapter")
cfg = build(TrainConfig, cfg_fields)
calls = []
def reward(results, samples, tasks):
    calls.append(1)
    if len(calls) == 13:
        pickle.dump([(t, s.completion, r.passed, r.status.value) for r, s, t in zip(results, samples, tasks)], open("/tmp/v13/step13.pkl", "wb"))
    return [1.0 if r.passed else 0.0 for r in results]
train(cfg, log=lambda m: None, reward_override=reward)
