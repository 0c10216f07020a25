"""`TrainConfig`: every field of `coderl train`, documented where it is defined (the docs are --help).

`--algo` is a preset: it only sets the fields in its row of ALGO_PRESETS that were left unset (a
flag or a YAML field always wins):

    reinforce        advantage reinforce (running-mean baseline), loss pg, 1 epoch        (seed 001 REINFORCE)
    rloo             advantage rloo, loss pg, 1 epoch                                      (seed 002's leave-one-out)
    grpo             advantage grpo (group mean/std), loss ppo_clip (token ratio), 1 epoch (seed 002 GRPO)
    ppo_critic_free  advantage batch_norm ((r - mean) / (std + eps) over the batch), loss ppo_clip with
                     a sequence ratio exp(sum logp_new - sum logp_old), per-sequence loss averaged over
                     sequences (sequence_mean), 4 epochs                                   (seed 001 PPO)
    ppo              a value head on the policy (critic), advantage gae (gamma 1, lambda 0.95) on
                     per-token rewards (terminal reward + per-token k1 KL penalty when --kl-beta > 0),
                     loss ppo_clip (token ratio) + 0.5 * clipped value loss - 0.01 * entropy, clip 0.2,
                     max grad norm 0.5, LoRA r 16, 4 epochs                                 (seed 003 table)

`value_head` picks the loop: off -> `train/policy_gradient.py` (every preset but ppo), on ->
`train/ppo.py` (`coderl.train.run_training` dispatches on it).

A YAML file (`--config FILE`) sets fields by name; flags given on the command line win.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from coderl.config import DEVICES, ConfigError, option, read_yaml_mapping, require

# Every preset sets the same fields (each field's default is None = "the preset's"), so a row reads as
# the whole recipe.  _COMMON holds the values most presets share.
_COMMON = {"value_head": False, "ratio_level": "token", "lora_r": 8, "max_grad_norm": 1.0, "entropy_coef": 0.0,
           "kl_in": "loss", "kl_estimator": "k3"}
ALGO_PRESETS = {
    "reinforce": {**_COMMON, "advantage": "reinforce", "loss": "pg", "epochs": 1, "aggregation": "token_sum"},
    "rloo": {**_COMMON, "advantage": "rloo", "loss": "pg", "epochs": 1, "aggregation": "token_mean"},
    "grpo": {**_COMMON, "advantage": "grpo", "loss": "ppo_clip", "epochs": 1, "aggregation": "token_mean"},
    "ppo_critic_free": {**_COMMON, "advantage": "batch_norm", "loss": "ppo_clip", "ratio_level": "sequence",
                        "epochs": 4, "aggregation": "sequence_mean"},
    "ppo": {**_COMMON, "value_head": True, "advantage": "gae", "loss": "ppo_clip", "epochs": 4,
            "aggregation": "token_mean", "lora_r": 16, "max_grad_norm": 0.5, "entropy_coef": 0.01,
            "kl_in": "reward", "kl_estimator": "k1"},
}
REWARD_PRESETS = ("pass", "fraction", "seed001", "seed003", "seed004")


@dataclass
class TrainConfig:
    """Train a policy with RL from unit-test rewards (REINFORCE, RLOO, GRPO, PPO with or without a critic) with LoRA."""

    out: str | None = option(None, "run directory: config.yaml, metrics.jsonl, checkpoints/, eval/ (required)")
    algo: str = option("grpo", "algorithm preset: reinforce, rloo, grpo, ppo_critic_free (seed 001), ppo (value head, "
                       "seed 003)", choices=sorted(ALGO_PRESETS))
    config: str | None = option(None, "YAML file of fields (flags given on the command line override it)")
    resume: bool = option(False, "continue the run in --out from its latest checkpoint, exactly")
    model: str = option("smollm2-135m-instruct", "starting policy: alias, HF folder, GGUF, or an SFT adapter folder")
    tasks: str = option("synthetic:level=1,split=train,n=200", "training task spec")
    eval_tasks: str | None = option("synthetic:level=1,split=valid,n=50",
                                    "held-out task spec for eval_steps (none: off)")
    format: str = option("chat", "prompt format (completion, chat, reasoning)")
    dtype: str = option("float32", "weights of the base model: float32, or bfloat16 (LoRA weights, optimiser and "
                        "log-softmax stay float32; ~1.3x faster generation and ~2x faster forward/backward on "
                        "CPUs with AVX-512 BF16/AMX)", choices=["float32", "bfloat16"])
    device: str = option("auto", "where the model runs: auto (CUDA if present), cpu or cuda; rollouts, rewards "
                         "and the loss math stay on the CPU (only [N, T] log-probs move)", choices=list(DEVICES))
    seed: int = option(0, "seed of data order, sampling and initialisation")
    steps: int = option(20, "optimisation steps (each = one batch of rollouts)")
    prompts_per_step: int = option(4, "prompts per step (seed 002: 16)")
    samples_per_prompt: int = option(4, "completions per prompt (seed 002: 8)")
    max_new_tokens: int = option(128, "generation budget per completion")
    min_new_tokens: int | None = option(None, "forbid EOS before this many tokens (benchmarks: = max_new_tokens)")
    max_total_sequence_length: int = option(1024, "prompt + completion tokens; longer prompts are skipped and counted")
    temperature: float = option(1.0, "sampling temperature (top-p/top-k are not offered: they make rollouts "
                                     "off-policy)")
    # ---- optimisation
    learning_rate: float = option(2e-5, "AdamW learning rate for the LoRA parameters")
    lr_schedule: str = option("constant", "constant, linear or cosine decay after warmup",
                              choices=["constant", "linear", "cosine"])
    warmup_steps: int = option(0, "linear warmup steps")
    weight_decay: float = option(0.0, "AdamW weight decay")
    epochs: int | None = option(None, "optimisation epochs over each batch (default: the algo preset; seed 001 PPO: 4)")
    minibatch_size: int | None = option(None, "sequences per optimiser step (default: the whole batch)")
    shared_prompt: bool = option(True, "rows that repeat a prompt share its computation: one prefill in generation, "
                                 "one prompt pass in the log-prob passes, its KV cache gathered to the rows (same "
                                 "values; off: every row runs prompt + completion)")
    max_grad_norm: float | None = option(None, "gradient clipping (0 = off; default: 1.0, ppo 0.5)")
    advantage: str | None = option(None, "advantage estimator (default: the algo preset)")
    normalize_std: bool = option(True, "grpo/rloo: divide by the group std")
    baseline: str = option("running_mean", "reinforce: baseline subtracted from rewards",
                           choices=["none", "running_mean"])
    baseline_momentum: float = option(0.9, "reinforce: momentum of the running-mean baseline")
    loss: str | None = option(None, "policy loss: pg or ppo_clip (default: the algo preset)")
    aggregation: str | None = option(None, "token_mean, sequence_mean, token_sum, token_sum_const (default: preset)")
    clip_eps: float = option(0.2, "PPO clip range")
    clip_eps_high: float | None = option(None, "upper clip (clip-higher); default = clip_eps")
    ratio_level: str | None = option(None, "PPO ratio per token or per sequence (default: token; ppo_critic_free: "
                                     "sequence, seed 001)", choices=["token", "sequence"])
    kl_beta: float = option(0.0, "KL-to-reference coefficient (0 = no reference forward pass)")
    log_kl: bool = option(False, "log kl/mean (KL to the reference) every step even with --kl-beta 0: one more "
                          "no-grad forward, nothing added to the loss")
    kl_estimator: str | None = option(None, "k1, k2 or k3 (k1 only with --kl-in reward; default: k3, ppo k1)",
                                      choices=["k1", "k2", "k3"])
    kl_in: str | None = option(None, "where the KL goes: loss or reward (default: loss; ppo: reward, per token)",
                               choices=["loss", "reward"])
    entropy_coef: float | None = option(None, "entropy bonus coefficient (default: 0; ppo 0.01)")
    # ---- PPO with a value head (train/ppo.py; seed 003: value coefficient 0.5)
    value_head: bool | None = option(None, "train a scalar value head (critic) on the policy's last hidden state "
                                     "with GAE advantages, in the PPO loop (default: on for --algo ppo only)")
    value_coef: float = option(0.5, "value head: weight of the clipped value loss")
    value_clip: float = option(0.2, "value head: the value loss clips new values to old +- this (0 = unclipped)")
    gae_gamma: float = option(1.0, "gae: discount per token (1 = undiscounted, the completion is the episode)")
    gae_lambda: float = option(0.95, "gae: lambda, bias/variance trade-off of the advantage")
    whiten_advantages: bool = option(True, "value head: normalise the GAE advantages to mean 0, std 1 over the "
                                     "batch's valid tokens before the policy loss (returns stay raw)")
    # ---- rewards
    reward: str = option("pass", "reward preset: pass, fraction, seed001 (pass - alpha*len/100), seed003, seed004",
                         choices=list(REWARD_PRESETS))
    length_alpha: float = option(0.01, "seed 001 length penalty alpha (reward - alpha * tokens / 100)")
    length_penalty_on: str = option("all", "length penalty on all samples or only passed ones",
                                    choices=["all", "passed"])
    # ---- LoRA (seed 001: r=8, alpha=16, dropout=0.05; seed 003: r=16)
    lora_r: int | None = option(None, "LoRA rank of a fresh adapter (default: 8; ppo 16); an SFT adapter given as "
                                          "--model keeps its own shape")
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
        require(self.algo in ALGO_PRESETS, "--algo", self.algo, "one of " + ", ".join(ALGO_PRESETS))
        for name, value in ALGO_PRESETS[self.algo].items():
            if getattr(self, name) is None:
                setattr(self, name, value)
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
        require(self.max_grad_norm >= 0, "--max-grad-norm", self.max_grad_norm, "a number >= 0")
        require(self.entropy_coef >= 0, "--entropy-coef", self.entropy_coef, "a number >= 0")
        require(self.value_coef > 0, "--value-coef", self.value_coef, "a positive number")
        require(self.value_clip >= 0, "--value-clip", self.value_clip, "a number >= 0 (0 = unclipped)")
        require(0 <= self.gae_gamma <= 1, "--gae-gamma", self.gae_gamma, "a number in [0, 1]")
        require(0 <= self.gae_lambda <= 1, "--gae-lambda", self.gae_lambda, "a number in [0, 1]")
        require(self.epochs >= 1, "--epochs", self.epochs, "an integer >= 1")
        from coderl.algorithms import ADVANTAGES, AGGREGATIONS, POLICY_LOSSES  # torch: only when training
        from coderl.rollout.formats import FORMATS

        require(self.advantage in ADVANTAGES, "--advantage", self.advantage, "one of " + ", ".join(ADVANTAGES))
        # gae is the one estimator that reads values; the value head learns its returns.
        require(self.advantage != "gae" or self.value_head, "--advantage", self.advantage,
                "an estimator that needs no value head (gae needs --value-head, e.g. --algo ppo)")
        require(self.advantage == "gae" or not self.value_head, "--value-head", self.value_head,
                f"--advantage gae (the value head learns GAE returns; got --advantage {self.advantage})")
        require(self.loss in POLICY_LOSSES, "--loss", self.loss, "one of " + ", ".join(POLICY_LOSSES))
        require(self.aggregation in AGGREGATIONS, "--aggregation", self.aggregation,
                "one of " + ", ".join(AGGREGATIONS))
        require(self.format in FORMATS, "--format", self.format, "one of " + ", ".join(FORMATS))
        require(self.minibatch_size is None or self.minibatch_size >= 1, "--minibatch-size", self.minibatch_size,
                "an integer >= 1")

    def advantage_options(self) -> dict:
        """Every estimator option; each estimator takes the ones in its signature."""
        return {"normalize_std": self.normalize_std, "baseline": self.baseline,
                "baseline_momentum": self.baseline_momentum, "gamma": self.gae_gamma, "lam": self.gae_lambda}

    def loss_options(self) -> dict:
        return {"eps": self.clip_eps, "eps_high": self.clip_eps_high, "ratio_level": self.ratio_level}

    @property
    def batch_size(self) -> int:
        return self.prompts_per_step * self.samples_per_prompt

    def to_dict(self) -> dict:
        return dataclasses.asdict(self)


def load_yaml_fields(path: str) -> dict:
    data = read_yaml_mapping(path, empty={}, expected="a mapping of field: value")
    known = {f.name for f in dataclasses.fields(TrainConfig)}
    for key in data:
        if key not in known:
            raise ConfigError(f"{path}: unknown field '{key}' (see `coderl train --help`)")
    return data


