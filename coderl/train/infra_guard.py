"""The RL loops' stop for a failing sandbox: infrastructure failures above `InfraGuard.rate` of a step's samples
for `InfraGuard.steps` steps in a row end the run in one line (exit 3, `InfraFailuresStop`).

An infrastructure failure (`sandbox_error`: a sandbox that failed where the program could not have caused it,
`coderl.sandbox.client`) was already run again by the sandbox; one that is still one earns no reward, its
advantage is 0 and it moves no group's baseline (`coderl.algorithms.advantages.scored_rows`), and the step
logs how many there were (`sandbox/infra_failures`).  A step or two of them costs a little signal; many
steps in a row mean the machine is failing, and training on what is left would be a run that went wrong in
silence.  docs/training.md, "When a run goes wrong".

A sandbox that stops altogether (its server killed before its hello, or dead and not restartable:
`coderl.sandbox.client.SandboxFailed`) ends the run at once, the same way: `sandbox_failed` names the newest
intact checkpoint (exit 3).
"""

from __future__ import annotations

from coderl.base.config import ConfigError
from coderl.train.checkpoint import latest_checkpoint


class InfraFailuresStop(ConfigError):
    """The sandbox failed too often for too long: one line, exit code 3 (`coderl train`)."""

    exit_code = 3


def newest(run_dir: str) -> str:
    checkpoint = latest_checkpoint(run_dir)
    return (f"newest intact checkpoint: {checkpoint} (continue with --resume once fixed)" if checkpoint
            else "newest intact checkpoint: none yet")


def sandbox_failed(exc: Exception, run_dir: str) -> InfraFailuresStop:
    """The stop of a run whose sandbox failed for good (`SandboxFailed`, or an asynchronous worker's exit 3): its
    cause, and the newest intact checkpoint."""
    return InfraFailuresStop(f"infrastructure failure: {exc}; {newest(run_dir)}")


class InfraGuard:
    """Counts the steps in a row whose infrastructure-failure rate is above `rate`; at `steps` of them it stops
    the run.  A resumed run counts afresh."""

    rate = 0.05  # of a step's samples
    steps = 3  # in a row

    def __init__(self, run_dir: str):
        self.run_dir = run_dir
        self.above: list[tuple[int, float]] = []  # (step, rate) of the current streak

    def stop_if_due(self, step: int, rolled) -> None:
        """Count step `step` (1-based) from its scored rollouts (`rolled.infra`: [N] bool or None); raise
        `InfraFailuresStop` naming the cause and the newest intact checkpoint when the streak is long enough."""
        if rolled is None or not len(rolled.rewards):
            return
        failed = int(rolled.infra.sum()) if getattr(rolled, "infra", None) is not None else 0
        rate = failed / len(rolled.rewards)
        self.above = [*self.above, (step, rate)] if rate > self.rate else []
        if len(self.above) < self.steps:
            return
        rates = ", ".join(f"{r:.0%}" for _, r in self.above)
        raise InfraFailuresStop(
            f"step {step}: infrastructure failures (sandbox_error) in more than {self.rate:.0%} of the samples for "
            f"{len(self.above)} steps in a row (steps {self.above[0][0]}-{step}: {rates}); the sandbox is failing, "
            f"not the programs (the latest: {getattr(rolled, 'infra_cause', '') or 'no message'}); "
            f"{newest(self.run_dir)}")
