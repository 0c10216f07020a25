"""`TrainConfig`: every field of `coderl train`, documented where it is defined (the docs are --help).

`--algo` picks the estimator/loss defaults (a preset only sets fields; any flag overrides it):

    reinforce  advantage reinforce (running-mean baseline), loss pg, 1 epoch     (seed 001 REINFORCE)
    rloo       advantage rloo, loss pg, 1 epoch                                   (seed 002's leave-one-out)
    grpo       advantage grpo (group mean/std), loss ppo_clip (token ratio), 1 epoch (seed 002 GRPO)

A YAML file (`--config FILE`) sets fields by name; flags given on the command line win.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from coderl.config import ConfigError, option, require

ALGO_PRESETS = {
    "reinforce": {"advantage": "reinforce", "loss": "pg", "epochs": 1, "aggregation": "token_sum"},
    "rloo": {"advantage": "rloo", "loss": "pg", "epochs": 1, "aggregation": "token_mean"},
    "grpo": {"advantage": "grpo", "loss": "ppo_clip", "epochs": 1, "aggregation": "token_mean"},
}
REWARD_PRESETS = ("pass", "fraction", "seed001", "seed003", "seed004")


@dataclass
class TrainConfig:
    """Train a policy with RL from unit-test rewards (REINFORCE, RLOO, GRPO) with LoRA."""

    out: str | None = option(None, "run directory: config.yaml, metrics.jsonl, checkpoints/, eval/ (required)")
    algo: str = option("grpo", "algorithm preset: reinforce, rloo, grpo", choices=sorted(ALGO_PRESETS))
    config: str | None = option(None, "YAML file of fields (flags given on the command line override it)")
    resume: bool = option(False, "continue the run in --out from its latest checkpoint, exactly")
    model: str = option("smollm2-135m-instruct", "starting policy: alias, HF folder, GGUF, or an SFT adapter folder")
    tasks: str = option("synthetic:level=1,split=train,n=200", "training task spec")
    eval_tasks: str | None = option("synthetic:level=1,split=valid,n=50", "held-out task spec for eval_steps (none: off)")
    format: str = option("chat", "prompt format (completion, chat, reasoning)")
    seed: int = option(0, "seed of data order, sampling and initialisation")
    steps: int = option(20, "optimisation steps (each = one batch of rollouts)")
    prompts_per_step: int = option(4, "prompts per step (seed 002: 16)")
    samples_per_prompt: int = option(4, "completions per prompt (seed 002: 8)")
    max_new_tokens: int = option(128, "generation budget per completion")
    min_new_tokens: int | None = option(None, "forbid EOS before this many tokens (benchmarks: = max_new_tokens)")
    max_total_sequence_length: int = option(1024, "prompt + completion tokens; longer prompts are skipped and counted")
    temperature: float = option(1.0, "sampling temperature (top-p/top-k are not offered: they make rollouts off-policy)")
    # ---- optimisation
    learning_rate: float = option(2e-5, "AdamW learning rate for the LoRA parameters")
    lr_schedule: str = option("constant", "constant, linear or cosine decay after warmup",
                              choices=["constant", "linear", "cosine"])
    warmup_steps: int = option(0, "linear warmup steps")
    weight_decay: float = option(0.0, "AdamW weight decay")
    epochs: int | None = option(None, "optimisation epochs over each batch (default: the algo preset; seed 001 PPO: 4)")
    minibatch_size: int | None = option(None, "sequences per optimiser step (default: the whole batch)")
    max_grad_norm: float = option(1.0, "gradient clipping (0 = off)")
    advantage: str | None = option(None, "advantage estimator (default: the algo preset)")
    normalize_std: bool = option(True, "grpo/rloo: divide by the group std")
    baseline: str = option("running_mean", "reinforce: baseline subtracted from rewards", choices=["none", "running_mean"])
    baseline_momentum: float = option(0.9, "reinforce: momentum of the running-mean baseline")
    loss: str | None = option(None, "policy loss: pg or ppo_clip (default: the algo preset)")
    aggregation: str | None = option(None, "token_mean, sequence_mean, token_sum, token_sum_const (default: preset)")
    clip_eps: float = option(0.2, "PPO clip range")
    clip_eps_high: float | None = option(None, "upper clip (clip-higher); default = clip_eps")
    ratio_level: str = option("token", "PPO ratio per token or per sequence (seed 001)", choices=["token", "sequence"])
    kl_beta: float = option(0.0, "KL-to-reference coefficient (0 = no reference forward pass)")
    kl_estimator: str = option("k3", "k1, k2 or k3 (k1 only with --kl-in reward)", choices=["k1", "k2", "k3"])
    kl_in: str = option("loss", "where the KL goes: loss or reward", choices=["loss", "reward"])
    entropy_coef: float = option(0.0, "entropy bonus coefficient")
    # ---- rewards
    reward: str = option("pass", "reward preset: pass, fraction, seed001 (pass - alpha*len/100), seed003, seed004",
                         choices=list(REWARD_PRESETS))
    length_alpha: float = option(0.01, "seed 001 length penalty alpha (reward - alpha * tokens / 100)")
    length_penalty_on: str = option("all", "length penalty on all samples or only passed ones", choices=["all", "passed"])
    # ---- LoRA (seed 001: r=8, alpha=16, dropout=0.05)
    lora_r: int = option(8, "LoRA rank")
    lora_alpha: int = option(16, "LoRA alpha")
    lora_dropout: float = option(0.05, "LoRA dropout (off during RL passes: ratios need the sampling function)")
    # ---- evaluation, checkpoints, logging
    eval_steps: int = option(0, "evaluate on --eval-tasks every N steps and at the end (0 = off)")
    eval_problems: int | None = option(None, "held-out problems per evaluation (seed 004 simple_eval_problems)")
    repeat_eval: int = option(1, "samples per held-out problem for pass@k (seed 004 repeat_eval_problems)")
    max_tests_per_problem: int | None = option(None, "use at most this many tests per problem in training (seed 004)")
    save_steps: int = option(10, "checkpoint every N steps (and at the end)")
    log_with: str = option("none", "extra tracker: none, tensorboard, wandb (offline), trackio",
                           choices=["none", "tensorboard", "wandb", "trackio"])
    timeout: float = option(3.0, "sandbox CPU-time limit per program, seconds")
    workers: int | None = option(None, "sandbox workers (default: usable CPUs)")
    isolation: str = option("auto", "sandbox isolation level", choices=["auto", "full", "uid", "rlimits"])
    generation_batch_size: int = option(16, "sequences per generate call")
    progress: bool = option(True, "progress bar")

    def __post_init__(self):
        require(self.out is not None, "--out", self.out, "a run directory")
        require(self.steps >= 1, "--steps", self.steps, "an integer >= 1")
        require(self.prompts_per_step >= 1, "--prompts-per-step", self.prompts_per_step, "an integer >= 1")
        require(self.samples_per_prompt >= 1, "--samples-per-prompt", self.samples_per_prompt, "an integer >= 1")
        require(self.temperature > 0, "--temperature", self.temperature, "a number > 0 (RL samples)")
        require(self.learning_rate > 0, "--learning-rate", self.learning_rate, "a positive number")
        require(self.max_new_tokens >= 1, "--max-new-tokens", self.max_new_tokens, "an integer >= 1")
        require(self.lora_r >= 1, "--lora-r", self.lora_r, "an integer >= 1")
        require(0 <= self.lora_dropout < 1, "--lora-dropout", self.lora_dropout, "a number in [0, 1)")
        require(self.clip_eps > 0, "--clip-eps", self.clip_eps, "a positive number")
        require(self.kl_beta >= 0, "--kl-beta", self.kl_beta, "a number >= 0")
        require(not (self.kl_estimator == "k1" and self.kl_in == "loss" and self.kl_beta > 0), "--kl-estimator",
                self.kl_estimator, "k2 or k3 with --kl-in loss (k1 as a loss has zero expected gradient)")
        require(self.repeat_eval >= 1, "--repeat-eval", self.repeat_eval, "an integer >= 1")
        require(self.save_steps >= 1, "--save-steps", self.save_steps, "an integer >= 1")
        require(self.eval_steps >= 0, "--eval-steps", self.eval_steps, "an integer >= 0")
        require(self.max_total_sequence_length > self.max_new_tokens, "--max-total-sequence-length",
                self.max_total_sequence_length, f"more than --max-new-tokens ({self.max_new_tokens})")
        preset = ALGO_PRESETS[self.algo]
        for name in ("advantage", "loss", "epochs", "aggregation"):
            if getattr(self, name) is None:
                setattr(self, name, preset[name])
        require(self.epochs >= 1, "--epochs", self.epochs, "an integer >= 1")
        from coderl.algorithms import ADVANTAGES, AGGREGATIONS, POLICY_LOSSES  # torch: only when training
        from coderl.rollout.formats import FORMATS

        require(self.advantage in ADVANTAGES, "--advantage", self.advantage, "one of " + ", ".join(ADVANTAGES))
        require(self.advantage != "gae", "--advantage", self.advantage,
                "an estimator that needs no value head here (gae comes with --algo ppo)")
        require(self.loss in POLICY_LOSSES, "--loss", self.loss, "one of " + ", ".join(POLICY_LOSSES))
        require(self.aggregation in AGGREGATIONS, "--aggregation", self.aggregation,
                "one of " + ", ".join(AGGREGATIONS))
        require(self.format in FORMATS, "--format", self.format, "one of " + ", ".join(FORMATS))
        require(self.minibatch_size is None or self.minibatch_size >= 1, "--minibatch-size", self.minibatch_size,
                "an integer >= 1")

    def advantage_options(self) -> dict:
        """Every estimator option; each estimator takes the ones in its signature."""
        return {"normalize_std": self.normalize_std, "baseline": self.baseline,
                "baseline_momentum": self.baseline_momentum}

    def loss_options(self) -> dict:
        return {"eps": self.clip_eps, "eps_high": self.clip_eps_high, "ratio_level": self.ratio_level}

    @property
    def batch_size(self) -> int:
        return self.prompts_per_step * self.samples_per_prompt

    def to_dict(self) -> dict:
        return dataclasses.asdict(self)


def load_yaml_fields(path: str) -> dict:
    import yaml

    try:
        with open(path, encoding="utf-8") as f:
            data = yaml.safe_load(f) or {}
    except FileNotFoundError:
        raise ConfigError(f"--config {path}: no such file") from None
    except yaml.YAMLError as exc:
        raise ConfigError(f"--config {path}: invalid YAML ({str(exc).splitlines()[0]})") from None
    if not isinstance(data, dict):
        raise ConfigError(f"--config {path}: expected a mapping of field: value")
    known = {f.name for f in dataclasses.fields(TrainConfig)}
    for key in data:
        if key not in known:
            raise ConfigError(f"{path}: unknown field '{key}' (see `coderl train --help`)")
    return data


