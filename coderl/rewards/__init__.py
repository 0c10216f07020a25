"""Rewards: execution results + completions -> one reward per sample, plus its components.

    from coderl.rewards import RewardConfig, score
    batch = score(RewardConfig(weights={"pass": 1.0, "length_penalty": 1.0}), results, samples, tasks)
    batch.total                 # [N] floats for the trainer
    batch.components["pass"]    # [N] unweighted values
    batch.metrics()             # {"reward/total": ..., "sandbox/pass_rate": ..., ...}

Components (`REWARDS`, see `coderl.rewards.components`): `pass`, `fraction`, `perfect_bonus`,
`length_penalty` read the sandbox verdict; `syntax`, `format`, `quality` shape on the program and
pay only when the completion defines the entry point; seed 003's `compile`, `functional`,
`synthesis` (`coderl.rewards.hardware`) read the build, the checks and the hardware analyses.
Presets of the seed projects: `coderl.rewards.presets`.  This package does not import torch.
"""

from coderl.rewards import hardware  # noqa: F401  -- registers compile, functional, synthesis
from coderl.rewards.components import REWARDS, Component, LintReport, compiles, defines_entry_point, reward
from coderl.rewards.lint import LinterMissing
from coderl.rewards.presets import PRESETS
from coderl.rewards.score import RewardBatch, RewardConfig, score

__all__ = ["PRESETS", "REWARDS", "Component", "LintReport", "LinterMissing", "RewardBatch", "RewardConfig",
           "compiles", "defines_entry_point", "reward", "score"]
