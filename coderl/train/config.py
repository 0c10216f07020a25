"""`TrainConfig`: every field of `coderl train`, documented where it is defined (the docs are --help).

The config is composed of sections (`coderl.base.config.section`), each a dataclass of its own:
optimisation, advantage options, loss options, KL, value head, reward, evaluation, LoRA (shared with
`coderl sft`) and sandbox (shared with `coderl check` and `coderl eval`).  Flags and YAML keys keep
their flat names (`--learning-rate`, `timeout: 3`); code reads `cfg.optim.learning_rate`.  Advanced
settings are YAML-only (`option(cli=False)`): `coderl train --help` lists them at its end.

Over 400 lines: the sections, the presets and the cross-field checks of one command are one file, so
every setting of `coderl train` and every rule between settings is read in one place (the sandbox's,
rollout's and LoRA's sections, shared with other commands, live with those commands).

`--algo` is a preset: it only sets the fields in its row of ALGO_PRESETS that were left unset (a
flag or a YAML field always wins):

    reinforce        advantage reinforce (running-mean baseline), loss pg, 1 epoch        (seed 001 REINFORCE)
    rloo             advantage rloo (divided by the group std), loss pg, 1 epoch           (seed 002's leave-one-out)
    grpo             advantage grpo (group mean/std), loss ppo_clip (token ratio), 1 epoch (seed 002 GRPO)
    ppo_critic_free  advantage batch_norm ((r - mean) / (std + eps) over the batch), loss ppo_clip with
                     a sequence ratio exp(sum logp_new - sum logp_old), per-sequence loss averaged over
                     sequences (sequence_mean), 4 epochs                                   (seed 001 PPO)
    ppo              a value head on the policy (critic), advantage gae (gamma 1, lambda 0.95) on
                     per-token rewards (terminal reward + per-token k1 KL penalty when --kl-beta > 0),
                     loss ppo_clip (token ratio) + 0.5 * clipped value loss - 0.01 * entropy, clip 0.2,
                     max grad norm 0.5, LoRA r 16, 4 epochs                                 (seed 003 table)

Estimator and loss options (`normalize_std`, `--baseline`, `--clip-eps`, `ratio_level`, ...) are
validated by name against the chosen function's signature: one that the function does not take is a
one-line error when set explicitly, and None when it only comes from a default or preset (config.yaml
records null, so a run's own config.yaml reads back through `--config` unchanged).  The same holds for
the value head's options without a value head, and for --length-alpha / --length-penalty-on without a
length_penalty reward component.

`value_head` picks the loop: off -> `train/rl/policy_gradient.py` (every preset but ppo), on ->
`train/rl/ppo.py` (`coderl.train.run_training` dispatches on it).
"""

from __future__ import annotations

import inspect
import math
from dataclasses import dataclass

from coderl.base.config import (
    DEVICES,
    ConfigError,
    LazyHelp,
    flatten,
    leaves,
    option,
    require,
    section,
    setting_name,
)
from coderl.models.lora import LoraConfig
from coderl.rewards.learned import RewardModelSettings
from coderl.rewards.presets import ALIASES as REWARD_ALIASES
from coderl.rewards.presets import PRESETS as REWARD_PRESETS
from coderl.rewards.presets import presets_help
from coderl.rollout.collect import AgentConfig, RepairConfig
from coderl.rollout.engine import ENGINES
from coderl.sandbox.config import SandboxConfig
from coderl.train.rollout_config import AsyncSettings, RolloutSelection

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
# Option field -> the keyword of the estimator / loss that takes it.
ADVANTAGE_KEYWORDS = {"normalize_std": "normalize_std", "baseline": "baseline",
                      "baseline_momentum": "baseline_momentum", "gae_gamma": "gamma", "gae_lambda": "lam"}
LOSS_KEYWORDS = {"clip_eps": "eps", "clip_eps_high": "eps_high", "ratio_level": "ratio_level"}
# coderl's defaults of the options a function takes (where they differ from, or pin, the function's own).
OPTION_DEFAULTS = {"normalize_std": True, "baseline": "running_mean", "baseline_momentum": 0.9, "gae_gamma": 1.0,
                   "gae_lambda": 0.95, "clip_eps": 0.2}
# The value head's options: filled when the head is on, an error when set explicitly without it.
VALUE_HEAD_DEFAULTS = {"value_coef": 0.5, "value_clip": 0.2, "whiten_advantages": True}


@dataclass
class RepairTraining(RepairConfig):
    """Multi-turn repair (docs/repair.md): feedback from the visible tests, reward from the hidden ones."""

    credit: str = option("final", "repair: what each turn is credited with: final (the episode's reward on every "
                         "turn) or improvement (turn k: the final reward minus turn k-1's)",
                         choices=["final", "improvement"])


@dataclass
class OptimConfig:
    """Optimisation: AdamW on the trained (LoRA or all) and value head parameters."""

    learning_rate: float = option(2e-5, "AdamW learning rate of the trained parameters")
    lr_schedule: str = option("constant", "constant, linear or cosine decay after warmup",
                              choices=["constant", "linear", "cosine"], cli=False)
    warmup_steps: int = option(0, "linear warmup steps", cli=False)
    weight_decay: float = option(0.0, "AdamW weight decay", cli=False)
    epochs: int | None = option(None, "optimisation epochs over each batch (default: the algo preset; seed 001 PPO: 4)")
    minibatch_size: int | None = option(None, "sequences per optimiser step (default: the whole batch)")
    micro_batch_size: int | None = option(None, "sequences per forward/backward inside an optimiser step, per "
                                          "process (gradient accumulation: the same update in less memory)")
    max_grad_norm: float | None = option(None, "gradient clipping (0 = off, the norm is logged either way; "
                                         "default: 1.0, ppo 0.5)")
    gradient_checkpointing: bool = option(False, "recompute each decoder layer's activations in backward instead of "
                                          "keeping them: less memory for one more forward of each layer")
    memory_budget: str = option("auto", "memory a process may use: micro-batches (and log-prob chunks) sized from a "
                                "one-row probe's measured peak x 1.5, e.g. 8G; auto = 0.8 of the GPU's or the "
                                "machine's (its cgroup limit where lower); none = whole minibatches; a micro-batch "
                                "size given wins")


@dataclass
class AdvantageOptions:
    """Advantage estimator options; each is an error with an estimator that does not take it."""

    normalize_std: bool | None = option(None, "grpo/rloo: divide by the group std (default: yes)", cli=False)
    baseline: str | None = option(None, "reinforce: baseline subtracted from rewards (default: running_mean)",
                                  choices=["none", "running_mean"])
    baseline_momentum: float | None = option(None, "reinforce: momentum of the running-mean baseline (default: 0.9)",
                                             cli=False)
    gae_gamma: float | None = option(None, "gae: discount per token (default: 1, the completion is the episode)",
                                     cli=False)
    gae_lambda: float | None = option(None, "gae: lambda, bias/variance trade-off of the advantage (default: 0.95)",
                                      cli=False)


@dataclass
class LossOptions:
    """Policy-loss options; each is an error with a loss that does not take it."""

    clip_eps: float | None = option(None, "ppo_clip: clip range (default: 0.2)")
    clip_eps_high: float | None = option(None, "ppo_clip: upper clip (clip-higher; default: = clip_eps)", cli=False)
    ratio_level: str | None = option(None, "ppo_clip: ratio per token, per sequence (product of the token ratios; "
                                     "ppo_critic_free's, seed 001) or sequence_mean (GSPO's length-normalised "
                                     "sequence ratio) (default: token)",
                                     choices=["token", "sequence", "sequence_mean"], cli=False)


@dataclass
class KLConfig:
    """KL to the reference (starting) policy."""

    kl_beta: float = option(0.0, "KL-to-reference coefficient (0 = no reference forward pass)")
    log_kl: bool = option(False, "log kl/mean (KL to the reference) every step even with --kl-beta 0: one more "
                          "no-grad forward, nothing added to the loss", cli=False)
    kl_estimator: str | None = option(None, "k1, k2 or k3 (k1 only with --kl-in reward; default: k3, ppo k1)",
                                      choices=["k1", "k2", "k3"], cli=False)
    kl_in: str | None = option(None, "where the KL goes: loss or reward (default: loss; ppo: reward, per token)",
                               choices=["loss", "reward"])

    @property
    def reference(self) -> bool:
        """The run computes reference log-probs (`common.reference_logprobs`): a KL term, or log_kl's curve."""
        return self.kl_beta > 0 or self.log_kl


@dataclass
class ValueHeadConfig:
    """PPO with a value head (train/rl/ppo.py; seed 003: value coefficient 0.5); its options are an error without
    one."""

    value_head: bool | None = option(None, "train a scalar value head (critic) on the policy's last hidden state "
                                     "with GAE advantages, in the PPO loop (default: on for --algo ppo only)")
    value_coef: float | None = option(None, "value head: weight of the clipped value loss (default: 0.5)", cli=False)
    value_clip: float | None = option(None, "value head: the value loss clips new values to old +- this (0 = "
                                      "unclipped; default: 0.2)", cli=False)
    whiten_advantages: bool | None = option(None, "value head: normalise the GAE advantages to mean 0, std 1 over "
                                            "the batch's valid tokens before the policy loss (returns stay raw; "
                                            "default: on)", cli=False)


@dataclass
class RewardSettings(RewardModelSettings):
    """Reward: a preset, its parameters, and any component weight set by hand (and the reward model's
    settings: `coderl.rewards.learned.RewardModelSettings`)."""

    reward: str = option("pass", "reward preset: " + presets_help(), choices=[*REWARD_PRESETS, *REWARD_ALIASES])
    reward_weights: dict[str, float] = option({}, "component weights over the preset's, name=weight,...: pass, "
                                              "fraction, perfect_bonus, length_penalty, format, syntax, quality, "
                                              "compile, functional, synthesis, reward_model "
                                              "(0 removes one; YAML: a mapping)")
    length_alpha: float | None = option(None, "length_penalty: alpha of -alpha * generated tokens / 100 (seed 001; "
                                        "default: 0.01); an error without a length_penalty component")
    length_penalty_on: str | None = option(None, "length_penalty on all samples or only passed ones (default: all); "
                                           "an error without a length_penalty component", choices=["all", "passed"])
    tamper_cap: float | None = option(0.0, "a sample the judge caught tampering (judge-observed notes, "
                                      "docs/sandbox.md) earns at most this total reward, applied after the "
                                      "weighted sum (none: off)")


@dataclass
class EvalSchedule:
    """Held-out evaluation during training."""

    eval_tasks: str | None = option("corpus@valid",
                                    "held-out task spec for eval_steps (none: off)")
    eval_steps: int = option(0, "evaluate on --eval-tasks every N steps and at the end (0 = off)")
    eval_problems: int | None = option(None, "held-out problems per evaluation (seed 004 simple_eval_problems)",
                                       cli=False)
    repeat_eval: int = option(1, "samples per held-out problem for pass@k (seed 004 repeat_eval_problems)", cli=False)
    early_stop: int = option(0, "with eval_steps: stop when no evaluation has beaten the best (eval/pass@1, ties "
                             "broken by eval/fraction_passed) for this many evaluations (0 = never); the best "
                             "checkpoint, possibly the start, is always kept in OUT/best")
    check_overlap: bool = option(True, "with eval_steps: refuse to start when a training task is an eval task or its "
                                 "reference passes an eval task's tests (run in the sandbox at start-up, cached; "
                                 "coderl decontaminate shows the pairs)", cli=False)

    @property
    def on(self) -> bool:
        """Held-out evaluations during training, and with them the selection into OUT/best, are on."""
        return bool(self.eval_steps and self.eval_tasks)


@dataclass
class TrainConfig:
    """Train a policy with RL from unit-test rewards (REINFORCE, RLOO, GRPO, PPO with or without a critic), with LoRA
    or full fine-tuning."""

    out: str | None = option(None, "run directory: config.yaml, metrics.jsonl, checkpoints/, eval/ (required)")
    algo: str = option("grpo", "algorithm preset: reinforce, rloo, grpo, ppo_critic_free (seed 001), ppo (value head, "
                       "seed 003)", choices=sorted(ALGO_PRESETS))
    config: str | None = option(None, "YAML file of fields (flags given on the command line override it)")
    resume: bool = option(False, "continue the run in --out from its latest checkpoint, exactly")
    overwrite: bool = option(False, "replace the run already in --out (refused without it, or --resume)")
    model: str = option("smollm2-135m-instruct", "starting policy: alias, HF folder, GGUF, or an SFT adapter folder")
    tasks: str = option("corpus@train", "training task spec (default: the training corpus, docs/tasks.md)")
    format: str = option("chat", "prompt format (completion, chat, reasoning)")
    dtype: str = option("float32", "weights of the base model: float32, or bfloat16 (LoRA weights, optimiser and "
                        "log-softmax stay float32; --finetune full trains the bf16 weights themselves; ~1.3x faster "
                        "generation and ~2x faster forward/backward on CPUs with AVX-512 BF16/AMX)",
                        choices=["float32", "bfloat16"])
    device: str = option("auto", "where the model runs: auto (CUDA if present), cpu or cuda; rollouts, rewards "
                         "and the loss math stay on the CPU (only [N, T] log-probs move)", choices=list(DEVICES))
    seed: int = option(0, "seed of data order, sampling and initialisation")
    deterministic: bool = option(False, "deterministic kernels (torch.use_deterministic_algorithms, "
                                 "CUBLAS_WORKSPACE_CONFIG=:4096:8 unless set): on a GPU, a resumed run then equals "
                                 "the uninterrupted one; slower")
    steps: int = option(20, "optimisation steps (each = one batch of rollouts)")
    prompts_per_step: int = option(4, "prompts per step (seed 002: 16)")
    samples_per_prompt: int = option(4, "completions per prompt (seed 002: 8)")
    max_new_tokens: int = option(128, "generation budget per completion")
    min_new_tokens: int | None = option(None, "forbid EOS before this many tokens (benchmarks: = max_new_tokens)",
                                        cli=False)
    max_total_sequence_length: int = option(1024, "prompt + completion tokens; longer prompts are skipped and counted")
    max_tests_per_problem: int | None = option(None, "use at most this many tests per problem in training (seed 004)",
                                               cli=False)
    temperature: float = option(1.0, "sampling temperature (top-p/top-k are not offered: they make rollouts "
                                     "off-policy)")
    generation_batch_size: int | None = option(None, "sequences per generate call (default: 16 on CPU; on a GPU every "
                                                "row of the step up to 256 that fits in half its free memory)")
    engine: str = option("hf", "what samples the rollouts: hf (transformers generate, with the trained weights) or "
                         "vllm (vLLM in a process of its own, sent the adapter after every update; its rows are "
                         "corrected off-policy: docs/engines.md)", choices=list(ENGINES))
    advantage: str | None = option(None, LazyHelp(lambda: _advantage_help()))
    loss: str | None = option(None, "policy loss: pg or ppo_clip (default: the algo preset)")
    aggregation: str | None = option(None, "token_mean, sequence_mean, token_sum, token_sum_const (default: preset)")
    entropy_coef: float | None = option(None, "entropy bonus coefficient (default: 0; ppo 0.01)")
    save_steps: int = option(10, "checkpoint every N steps (and at the end)")
    log_with: str = option("none", "extra tracker: none, tensorboard, wandb (offline), trackio, mlflow",
                           choices=["none", "tensorboard", "wandb", "trackio", "mlflow"])
    progress: bool = option(True, "a progress bar on a terminal (stderr); off or on, a plain line per step goes to the "
                            "log: step, reward, pass rate, tokens/s, time left")
    optim: OptimConfig = section(OptimConfig)
    advantage_options: AdvantageOptions = section(AdvantageOptions)
    loss_options: LossOptions = section(LossOptions)
    kl: KLConfig = section(KLConfig)
    value: ValueHeadConfig = section(ValueHeadConfig)
    rewards: RewardSettings = section(RewardSettings)
    eval: EvalSchedule = section(EvalSchedule)
    lora: LoraConfig = section(LoraConfig)
    sandbox: SandboxConfig = section(SandboxConfig)
    repair: RepairTraining = section(RepairTraining)
    agent: AgentConfig = section(AgentConfig)
    sampling: RolloutSelection = section(RolloutSelection)
    asynchronous: AsyncSettings = section(AsyncSettings)
    # Removed settings: the value that is now always the behaviour (a YAML holding it, such as an older run's
    # config.yaml, reads as before) and, for any other value, what replaces the setting (`flat_values`).
    REMOVED = {"shared_prompt": (True, "rows that repeat a prompt always share its computation (the same values)"),
               "async_worker_threads": (None, "a generation worker beside the trainer on a CPU takes half the cores "
                                              "(--async-max-age 0: the trainer's count)"),
               "group_sizes": ("fixed", "every prompt gets samples_per_prompt completions (adaptive group sizes were "
                                        "removed: no measurement showed they paid)"),
               "max_group_size": (32, "every prompt gets samples_per_prompt completions (adaptive group sizes were "
                                      "removed)"),
               "engine_sync": ("auto", "--engine vllm is sent the LoRA adapter merged into the base weights when the "
                                       "trainer runs on CPU, the adapter itself on a GPU (docs/engines.md)"),
               **RepairConfig.REMOVED}

    def __post_init__(self):
        require(self.out is not None, "--out", self.out, "a run directory")
        require(not (self.resume and self.overwrite), "--overwrite", True, "not both --resume and --overwrite")
        require(self.steps >= 1, "--steps", self.steps, "an integer >= 1")
        require(self.prompts_per_step >= 1, "--prompts-per-step", self.prompts_per_step, "an integer >= 1")
        require(self.eval.early_stop >= 0, "--early-stop", self.eval.early_stop, "an integer >= 0")
        require(self.eval.early_stop == 0 or self.eval.eval_steps > 0, "--early-stop", self.eval.early_stop,
                "--eval-steps N as well (it counts evaluations)")
        require(self.samples_per_prompt >= 1, "--samples-per-prompt", self.samples_per_prompt, "an integer >= 1")
        require(self.temperature > 0, "--temperature", self.temperature, "a number > 0 (RL samples)")
        require(self.engine == "hf" or not self.lora.qlora, "--engine", self.engine,
                "hf with --qlora (vLLM would serve the base in its own precision, not the 4-bit one trained on)")
        require(self.optim.learning_rate > 0, "--learning-rate", self.optim.learning_rate, "a positive number")
        require(self.max_new_tokens >= 1, "--max-new-tokens", self.max_new_tokens, "an integer >= 1")
        from coderl.algorithms import ADVANTAGES, AGGREGATIONS, POLICY_LOSSES  # torch: only when training
        from coderl.rollout.formats import FORMATS

        # Options the user set (before the preset fills its own): checked by name against the functions.
        explicit_adv = {k for k in ADVANTAGE_KEYWORDS if getattr(self.advantage_options, k) is not None}
        explicit_loss = {k for k in LOSS_KEYWORDS if getattr(self.loss_options, k) is not None}
        self._apply_preset(ALGO_PRESETS[self.algo])
        if self.lora.full:  # the preset's LoRA rank means nothing when every weight trains
            self.lora.lora_r = None
        require(self.advantage in ADVANTAGES, "--advantage", self.advantage, "one of " + ", ".join(ADVANTAGES))
        require(self.loss in POLICY_LOSSES, "--loss", self.loss, "one of " + ", ".join(POLICY_LOSSES))
        # What the chosen functions will use, written down (config.yaml shows it): their own defaults.  What
        # they do not take stays None (a preset's shared value included), so config.yaml reads back as it is.
        _settle("--advantage", self.advantage, ADVANTAGES[self.advantage], self.advantage_options, explicit_adv,
                ADVANTAGE_KEYWORDS)
        _settle("--loss", self.loss, POLICY_LOSSES[self.loss], self.loss_options, explicit_loss, LOSS_KEYWORDS)
        o, k, v = self.optim, self.kl, self.value
        for name, default in VALUE_HEAD_DEFAULTS.items():
            if v.value_head and getattr(v, name) is None:
                setattr(v, name, default)
            elif not v.value_head and getattr(v, name) is not None:
                raise ConfigError(f"{setting_name(TrainConfig, name)}: only with a value head (--algo ppo or "
                                  "--value-head); "
                                  f"--algo {self.algo} has none")
        require(self.loss_options.clip_eps is None or self.loss_options.clip_eps > 0, "--clip-eps",
                self.loss_options.clip_eps, "a positive number")
        require(k.kl_beta >= 0, "--kl-beta", k.kl_beta, "a number >= 0")
        require(not (k.kl_estimator == "k1" and k.kl_in == "loss" and k.kl_beta > 0), "kl_estimator",
                k.kl_estimator, "k2 or k3 with --kl-in loss (k1 as a loss has zero expected gradient)")
        require(self.eval.repeat_eval >= 1, "repeat_eval", self.eval.repeat_eval, "an integer >= 1")
        require(self.save_steps >= 1, "--save-steps", self.save_steps, "an integer >= 1")
        require(self.eval.eval_steps >= 0, "--eval-steps", self.eval.eval_steps, "an integer >= 0")
        require(self.max_total_sequence_length > self.max_new_tokens, "--max-total-sequence-length",
                self.max_total_sequence_length, f"more than --max-new-tokens ({self.max_new_tokens})")
        require(o.max_grad_norm >= 0, "--max-grad-norm", o.max_grad_norm, "a number >= 0")
        require(self.entropy_coef >= 0, "--entropy-coef", self.entropy_coef, "a number >= 0")
        cap = self.rewards.tamper_cap
        require(cap is None or math.isfinite(cap), "--tamper-cap", cap, "a finite number, or none (off)")
        require(v.value_coef is None or v.value_coef > 0, "value_coef", v.value_coef, "a positive number")
        require(v.value_clip is None or v.value_clip >= 0, "value_clip", v.value_clip,
                "a number >= 0 (0 = unclipped)")
        for name in ("gae_gamma", "gae_lambda"):
            value = getattr(self.advantage_options, name)
            require(value is None or 0 <= value <= 1, setting_name(TrainConfig, name), value, "a number in [0, 1]")
        require(o.epochs >= 1, "--epochs", o.epochs, "an integer >= 1")
        # An estimator that reads values needs the value head, which learns the returns it gives back.
        needs_values = ADVANTAGES[self.advantage].needs_values
        value_based = ", ".join(name for name, fn in ADVANTAGES.items() if fn.needs_values)
        require(not needs_values or v.value_head, "--advantage", self.advantage,
                f"an estimator that needs no value head ({self.advantage} needs --value-head, e.g. --algo ppo)")
        require(needs_values or not v.value_head, "--value-head", v.value_head,
                f"an estimator that reads values, {value_based} (the value head learns its returns; got "
                f"--advantage {self.advantage})")
        require(self.aggregation in AGGREGATIONS, "--aggregation", self.aggregation,
                "one of " + ", ".join(AGGREGATIONS))
        require(self.format in FORMATS, "--format", self.format, "one of " + ", ".join(FORMATS))
        require(not self.repair.on or self.format != "completion", "--format", self.format,
                "a chat format (chat or reasoning) with --turns > 1: feedback is a user message")
        require(not self.repair.on or not self.sampling.canary_beside, "--canary-beside",
                self.sampling.canary_beside, "0 with --turns > 1 (a repair episode needs hidden tests, which the "
                "canaries do not have)")
        if self.agent.on:  # agent episodes (docs/agents.md): GRPO / RLOO / REINFORCE groups of episodes
            require(not self.repair.on, "--turns", self.repair.turns, "1 with --agent (an agent's turns are "
                    "--agent-turns)")
            require(not v.value_head, "--value-head", v.value_head, "off with --agent (episodes train with a "
                    "critic-free estimator: --algo grpo, rloo or reinforce)")
            require(not self.sampling.dynamic_sampling, "--dynamic-sampling", self.sampling.dynamic_sampling,
                    "0 with --agent (refill rounds of episodes are not built)")
            for flag, value in (("--canary-fraction", self.sampling.canary_fraction),
                                ("--canary-beside", self.sampling.canary_beside)):
                require(not value, flag, value, "0 with --agent (the canaries are single-answer function tasks)")
            require(self.sandbox.isolation in ("auto", "full"), "--isolation", self.sandbox.isolation,
                    "full (or auto) with --agent: an episode's working copy is the full sandbox's")
        for flag, value in (("--minibatch-size", o.minibatch_size), ("--micro-batch-size", o.micro_batch_size)):
            require(value is None or value >= 1, flag, value, "an integer >= 1")
        from coderl.train.memory import parse_size

        parse_size(o.memory_budget)  # a bad size is one line now
        from coderl.train.rewards import reward_config, settle_length_options

        settle_length_options(self.rewards)  # filled with a length_penalty component, an error without one
        reward_config(self)  # a bad preset, weight or missing linter is one line now, not at step 1

    def _apply_preset(self, preset: dict) -> None:
        table = leaves(type(self))
        for name, value in preset.items():
            path = table[name][0]
            owner = self
            for part in path[:-1]:
                owner = getattr(owner, part)
            if getattr(owner, path[-1]) is None:
                setattr(owner, path[-1], value)

    def advantage_kwargs(self, fn) -> dict:
        """The options `fn` (an estimator) takes, under its own keyword names; unset ones are left out."""
        return _taken(fn, self.advantage_options, ADVANTAGE_KEYWORDS)

    def loss_kwargs(self, fn) -> dict:
        return _taken(fn, self.loss_options, LOSS_KEYWORDS)

    @property
    def batch_size(self) -> int:
        """A step's sample budget: rows per round, and what refill fills."""
        return self.prompts_per_step * self.samples_per_prompt

    @property
    def aggregation_kwargs(self) -> dict:
        """What `aggregate` needs beside the mode: a row's most policy tokens (`token_sum_const` divides by
        it; every turn of a repair or agent episode can write --max-new-tokens)."""
        return {"max_tokens": self.max_new_tokens * (self.agent.agent_turns if self.agent.on else self.repair.turns)}

    def to_dict(self) -> dict:
        """Flat field -> value (the YAML layout `--config` reads back)."""
        return flatten(self)


def _advantage_help() -> str:
    """`--advantage`'s help, from the estimators' registry (what each needs included)."""
    from coderl.algorithms import ADVANTAGES

    names = [name + (" (with a value head)" if ADVANTAGES[name].needs_values else "") for name in ADVANTAGES]
    return f"advantage estimator: {', '.join(names)} (default: the algo preset)"


def _taken(fn, options, keywords: dict) -> dict:
    params = inspect.signature(fn).parameters
    return {kw: getattr(options, name) for name, kw in keywords.items()
            if kw in params and getattr(options, name) is not None}


def _settle(flag: str, name: str, fn, options, explicit: set[str], keywords: dict) -> None:
    """An option the user set (`explicit`) that `fn` does not take is one line; then options `fn` takes and
    nobody set get coderl's (or `fn`'s) default, and options it does not take None."""
    params = inspect.signature(fn).parameters
    takes = [o for o, kw in keywords.items() if kw in params]
    untaken = sorted(explicit - set(takes))
    if untaken:
        raise ConfigError(f"{setting_name(TrainConfig, untaken[0])}: not an option of {flag} {name} "
                          f"(it takes: {', '.join(setting_name(TrainConfig, t) for t in sorted(takes)) or 'none'})")
    for option_name, kw in keywords.items():
        if kw not in params:
            setattr(options, option_name, None)
        elif getattr(options, option_name) is None:
            default = OPTION_DEFAULTS.get(option_name, params[kw].default)
            if default is not inspect.Parameter.empty:
                setattr(options, option_name, default)


__all__ = ["ALGO_PRESETS", "REWARD_ALIASES", "REWARD_PRESETS", "TrainConfig"]
