"""Two sections of `TrainConfig` about rollouts: which ones a step trains on (`RolloutSelection`), and
whether a generation worker process produces them asynchronously (`AsyncSettings`, docs/async.md)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from coderl.base.config import option, require


@dataclass
class RolloutSelection:
    """What a step trains on: which prompts (curriculum), which groups (dynamic sampling), which completions."""

    curriculum_floor: float | None = option(None, "online curriculum: draw each step's prompts with weight 1 for tasks "
                                            "unseen or with a running pass rate strictly between 0 and 1, and this "
                                            "weight (e.g. 0.1) for the others; 0 = the frontier pool: those only, "
                                            "while there are enough (none: a seeded pass over the tasks)")
    pass_rates: str | None = option(None, "a `coderl eval` run of the policy being trained on the training tasks "
                                    "(its directory or samples.jsonl, n > 1 samples a task): each task's measured pass "
                                    "rate starts the curriculum's running rate (docs/training.md, the frontier pool)")
    canary_fraction: float = option(0.0, "share of a step's prompts that are canary tasks, rewarded by the strict "
                                    "judge, whose weak harness measures hack attempts (hack/canary_attempt_rate; "
                                    "coderl/train/canary.py); 0 = off")
    canary_beside: int = option(0, "canary prompts sampled beside each step's training prompts, in a generation "
                                "call of their own, only to measure hack attempts (hack/canary_attempt_rate): kept "
                                "out of the update, the rewards and the curriculum, so the run trains on what it "
                                "would without them; 0 = off")
    dynamic_sampling: int = option(0, "DAPO dynamic sampling: drop prompts whose completions all got the same reward "
                                   "and refill from up to this many extra rounds of prompts_per_step further prompts "
                                   "(0 = off)")
    overlong_filter: bool = option(False, "leave completions cut at max_new_tokens out of the loss (DAPO's overlong "
                                   "filtering); their rewards still count in the group baselines")

    def __post_init__(self):
        require(self.curriculum_floor is None or 0 <= self.curriculum_floor <= 1, "--curriculum-floor",
                self.curriculum_floor, "a weight in [0, 1] (0: the frontier pool)")
        require(0 <= self.canary_fraction < 1, "--canary-fraction", self.canary_fraction, "a share in [0, 1)")
        require(self.canary_beside >= 0, "--canary-beside", self.canary_beside, "an integer >= 0")
        require(not (self.canary_beside and self.canary_fraction), "--canary-beside", self.canary_beside,
                "0 with --canary-fraction (each would log the step's hack/canary_attempt_rate; choose one)")
        require(self.dynamic_sampling >= 0, "--dynamic-sampling", self.dynamic_sampling, "an integer >= 0")


@dataclass
class AsyncSettings:
    """Asynchronous rollouts: a generation worker process samples the next steps while the trainer updates."""

    async_max_age: int | None = option(None, "asynchronous rollouts (seed 002's max_trajectory_age_steps): a "
                                       "generation worker process samples and scores step k+1.. from a snapshot of "
                                       "the weights while the trainer updates on step k; every sample's weights are "
                                       "at most this many steps old (0: the worker waits for each step's update, "
                                       "the synchronous run in another process; none: rollouts in the training "
                                       "process)")
    tis_cap: float = option(2.0, "asynchronous rollouts and --engine vllm: truncated importance sampling of stale or "
                            "engine samples: each loss term is weighted by min(pi_prox / pi_behaviour, cap), pi_prox "
                            "being the weights at the step's start and pi_behaviour the sampling log-probs the worker "
                            "or engine recorded", cli=False)
    async_worker_device: str | None = option(None, "asynchronous rollouts: where the worker's copy of the model "
                                             "runs: cpu, cuda or cuda:N, a GPU of its own (default: --device)",
                                             cli=False)

    def __post_init__(self):
        require(self.async_max_age is None or self.async_max_age >= 0, "--async-max-age", self.async_max_age,
                "an integer >= 0 (or none: no generation worker)")
        require(self.tis_cap >= 1, "tis_cap", self.tis_cap, "a number >= 1 (pi_prox / pi_behaviour's truncation)")
        require(self.async_worker_device is None or re.fullmatch(r"cpu|cuda(:\d+)?", self.async_worker_device),
                "async_worker_device", self.async_worker_device, "cpu, cuda or cuda:N")

    @property
    def on(self) -> bool:
        """Rollouts come from the generation worker process."""
        return self.async_max_age is not None
