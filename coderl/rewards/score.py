"""`score()`: weight the registered components into one reward per sample, and the step's metrics.

    total[i] = sum over components c with weight w_c != 0 of  w_c * c(results[i], samples[i], tasks[i])
    total[i] = min(total[i], tamper_cap)   when the judge caught sample i tampering (`result.caught`)

A caught hack never pays: the cap (default 0.0; None = off) applies after the weighted sum, and what it
took off is logged as `reward/tamper_cap` (so the weighted components and it sum to `reward/total`).

Rewards are plain floats; the trainer turns them into tensors.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from coderl.base.config import option
from coderl.rewards.components import FRACTION_TESTS, LENGTH_PENALTY_ON, REWARDS
from coderl.rewards.learned import RewardModelSettings
from coderl.rollout.types import Sample
from coderl.sandbox.types import ExecutionResult, Status
from coderl.tasks.types import Task


@dataclass
class RewardConfig(RewardModelSettings):
    """How samples are rewarded: weights of the components in `REWARDS` and their parameters."""

    weights: dict[str, float] = option({"pass": 1.0}, "component name -> weight; total = sum of weight * component; "
                                       "weight 0 = not computed")
    length_alpha: float = option(0.01, "length_penalty: alpha of -alpha * generated_tokens / 100 (seed 001)")
    length_penalty_on: str = option("all", "length_penalty: charge 'all' samples (seed 001) or only 'passed' ones",
                                    choices=LENGTH_PENALTY_ON)
    fraction_tests: str = option("all", "fraction: count 'all', 'hidden' or 'visible' tests",
                                 choices=FRACTION_TESTS)
    quality_scale: float = option(1.0, "quality: reward = max(0, 1 - scale * lint findings per line)")
    quality_select: tuple[str, ...] = option(("E", "F", "W"), "quality: ruff rules counted (pyflakes F, "
                                             "pycodestyle E/W)")
    # E402 (import not at top): a chat completion's imports land after the prompt's stub;
    # W292 (no newline at end): assembly artefact; E501 (line length): taste, not a defect.
    quality_ignore: tuple[str, ...] = option(("E402", "E501", "W292"), "quality: ruff rules not counted")
    quality_timeout_seconds: float = option(60.0, "quality: deadline of the one ruff run per score() call")
    tamper_cap: float | None = option(0.0, "a sample the judge caught tampering (a judge-observed note: "
                                      "docs/sandbox.md) earns at most this total reward (none: off)")
    def __post_init__(self):
        self.validate()

    def validate(self) -> RewardConfig:
        unknown = [name for name in self.weights if name not in REWARDS]
        if unknown:
            raise ValueError(f"unknown reward component(s) {', '.join(map(repr, unknown))} in weights; "
                             f"known: {', '.join(REWARDS)}")
        for name, w in self.weights.items():
            if isinstance(w, bool) or not isinstance(w, (int, float)) or not math.isfinite(w):
                raise ValueError(f"weights[{name!r}]={w!r}: expected a finite number")
        if self.length_penalty_on not in LENGTH_PENALTY_ON:
            raise ValueError(f"length_penalty_on={self.length_penalty_on!r}: expected one of "
                             f"{', '.join(LENGTH_PENALTY_ON)}")
        if self.fraction_tests not in FRACTION_TESTS:
            raise ValueError(f"fraction_tests={self.fraction_tests!r}: expected one of {', '.join(FRACTION_TESTS)}")
        if not self.quality_scale >= 0:
            raise ValueError(f"quality_scale={self.quality_scale!r}: expected a number >= 0")
        if self.tamper_cap is not None and not math.isfinite(self.tamper_cap):
            raise ValueError(f"tamper_cap={self.tamper_cap!r}: expected a finite number, or none (off)")
        if not self.quality_timeout_seconds > 0:
            raise ValueError(f"quality_timeout_seconds={self.quality_timeout_seconds!r}: expected a number > 0")
        self.validate_reward_model(bool(self.weights.get("reward_model")))
        return self


def _mean(values) -> float:
    values = list(values)
    return sum(values) / len(values) if values else math.nan


@dataclass
class RewardBatch:
    """Rewards of N samples (row i = samples[i]) and what the step logs about them."""

    total: list[float]  # [N] sum of weight * component
    components: dict[str, list[float]]  # name -> [N] unweighted values, components with weight != 0
    weights: dict[str, float]  # name -> weight, the components computed
    empty: list[bool]  # [N] completion is empty or whitespace
    truncated: list[bool]  # [N] generation hit max_new_tokens
    tampered: list[bool]  # [N] any tamper note, courtesy reports included (`result.tamper` non-empty)
    passed: list[bool]  # [N] result.passed
    timed_out: list[bool]  # [N] result.status is TIMEOUT
    sandbox_error: list[bool]  # [N] an infrastructure failure (status SANDBOX_ERROR): its 0 was not earned, and
    # no mean below counts it (the trainer gives it advantage 0: docs/training.md, "When a run goes wrong")
    caught: list[bool] = field(default_factory=list)  # [N] a judge-observed tamper note (`result.caught`)
    capped: list[float] = field(default_factory=list)  # [N] what the tamper cap took off the total (<= 0)
    scorer_error: list[str] = field(default_factory=list)  # [N] a scorer's infrastructure failure (the reward
    # model's), "" where none: like `sandbox_error`, no reward was earned

    @property
    def infra(self) -> list[bool]:
        """[N] infrastructure failures: the sandbox's or a scorer's (no reward earned; advantage 0)."""
        errors = self.scorer_error or [""] * len(self.total)
        return [bad or bool(e) for bad, e in zip(self.sandbox_error, errors)]

    def __len__(self) -> int:
        return len(self.total)

    def select(self, rows: list[int]) -> RewardBatch:
        """The rewards of the samples at `rows`, in that order (no component is computed again)."""
        def pick(values: list) -> list:
            return [values[i] for i in rows]

        return RewardBatch(pick(self.total), {k: pick(v) for k, v in self.components.items()}, dict(self.weights),
                           pick(self.empty), pick(self.truncated), pick(self.tampered), pick(self.passed),
                           pick(self.timed_out), pick(self.sandbox_error), pick(self.caught), pick(self.capped),
                           pick(self.scorer_error) if self.scorer_error else [])

    def metrics(self) -> dict[str, float]:
        """Batch means, namespaced (NaN for an empty batch), over the rows that are no infrastructure failure
        (`infra`: no reward was earned), but for sandbox/sandbox_error_rate, over every row.

        reward/total             mean total reward
        reward/<name>            mean *unweighted* value of the component (a rate for 0/1 components)
        reward/weighted/<name>   mean of weight * value; with reward/tamper_cap these sum to reward/total
        reward/tamper_cap        mean of what the tamper cap took off (0 or negative)
        rollout/empty_rate, rollout/truncated_rate
        sandbox/pass_rate, sandbox/timeout_rate, sandbox/tamper_rate (any note), sandbox/caught_rate
        (judge-observed notes: the capped samples), sandbox/sandbox_error_rate
        """
        def mean(values: list) -> float:
            return _mean(v for v, bad in zip(values, self.infra) if not bad)

        out = {"reward/total": mean(self.total)}
        for name, values in self.components.items():
            out[f"reward/{name}"] = mean(values)
        for name, values in self.components.items():
            out[f"reward/weighted/{name}"] = self.weights[name] * mean(values)
        out["reward/tamper_cap"] = mean(self.capped)
        out.update({
            "rollout/empty_rate": _mean(self.empty),
            "rollout/truncated_rate": _mean(self.truncated),
            "sandbox/pass_rate": mean(self.passed),
            "sandbox/timeout_rate": mean(self.timed_out),
            "sandbox/tamper_rate": mean(self.tampered),
            "sandbox/caught_rate": mean(self.caught),
            "sandbox/sandbox_error_rate": _mean(self.sandbox_error),
        })
        return out


def score(config: RewardConfig, results: list[ExecutionResult], samples: list[Sample],
          tasks: list[Task]) -> RewardBatch:
    """Reward each sample: `results[i]` is the run of `tasks[i].build_program(samples[i].completion)`."""
    config.validate()
    n = len(samples)
    if len(results) != n or len(tasks) != n:
        raise ValueError(f"score: got {len(results)} results, {n} samples and {len(tasks)} tasks; "
                         "expected one of each per sample")
    for i, (sample, task) in enumerate(zip(samples, tasks)):
        if sample.task_id != task.task_id:
            raise ValueError(f"score: sample {i} is of task {sample.task_id!r} but tasks[{i}] is {task.task_id!r}")

    weights = {name: float(w) for name, w in config.weights.items() if w != 0}
    components: dict[str, list[float]] = {}
    total = [0.0] * n
    scorer_error = [""] * n
    for name, weight in weights.items():
        component = REWARDS[name]
        params = {p: getattr(config, p) for p in component.params}
        extra = component.prepare(samples, tasks, **params) if component.prepare else [{}] * n
        values = []
        for i, (r, s, t, e) in enumerate(zip(results, samples, tasks, extra)):
            if e.get("infra_error"):  # the scorer failed on this row (`learned.scores_as_kwargs`): nothing earned
                scorer_error[i] = scorer_error[i] or e["infra_error"]
                values.append(0.0)
            else:
                values.append(float(component.fn(r, s, t, **params, **e)))
        components[name] = values
        total = [acc + weight * v for acc, v in zip(total, values)]
    caught = [bool(r.caught) for r in results]
    capped = [min(t, config.tamper_cap) - t if c and config.tamper_cap is not None else 0.0
              for t, c in zip(total, caught)]
    total = [t + c for t, c in zip(total, capped)]

    return RewardBatch(
        total=total,
        components=components,
        weights=weights,
        empty=[not s.completion.strip() for s in samples],
        truncated=[s.truncated for s in samples],
        tampered=[bool(r.tamper) for r in results],
        passed=[r.passed for r in results],
        timed_out=[r.status is Status.TIMEOUT for r in results],
        sandbox_error=[r.status is Status.SANDBOX_ERROR for r in results],
        caught=caught,
        capped=capped,
        scorer_error=scorer_error if any(scorer_error) else [],
    )
