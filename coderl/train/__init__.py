"""Training loops, one per algorithm family: `policy_gradient.py` (REINFORCE, RLOO, GRPO, critic-free
PPO) and `ppo.py` (PPO with a value head).  `run_training(cfg)` runs the loop `cfg` asks for.

Nothing is imported at package import time: `coderl.train.config` must stay importable without torch.
"""

from __future__ import annotations


def run_training(cfg, **kwargs) -> dict:
    """Run the loop of `cfg` (a `TrainConfig`); returns the last step's metrics.

    The loop follows `cfg.value.value_head`, which each `--algo` preset sets (on for `ppo` only): a critic
    needs GAE, old values and a value loss, which is the PPO loop; everything else is the
    policy-gradient loop.  `kwargs` go to the loop (`log=`, `reward_override=`).
    """
    from coderl.base.config import ConfigError
    from coderl.sandbox.client import SandboxFailed
    from coderl.train.distributed import is_main_process
    from coderl.train.infra_guard import InfraFailuresStop, sandbox_failed
    from coderl.train.run_dir import leave_no_run
    from coderl.train.tracking import require_packages

    require_packages(cfg.log_with, cfg.engine)  # a missing tracker or vLLM: one line before anything loads

    if cfg.value.value_head:
        from coderl.train.rl.ppo import train
    else:
        from coderl.train.rl.policy_gradient import train
    with leave_no_run(cfg.out, main=is_main_process()):  # a failed run leaves nothing it made, unless a run
        try:
            return train(cfg, **kwargs)
        except (SandboxFailed, ConfigError) as exc:  # a sandbox that failed for good (an async worker's: exit 3)
            if isinstance(exc, InfraFailuresStop) or getattr(exc, "exit_code", 2) != 3:
                raise
            raise sandbox_failed(exc, cfg.out) from None
