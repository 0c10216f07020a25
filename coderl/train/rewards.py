"""The training reward: `TrainConfig.rewards` (a preset, its parameters, hand-set weights) -> `RewardConfig`.

The presets (`--reward NAME`) are `coderl.rewards.presets.PRESETS`.
`--reward-weights name=w,...` then sets any component's weight (0 removes it); `reward_model=w` with
`--reward-model DIR` adds a learned reward model's score (seed 002: `pass=0.5,reward_model=0.5`).  Every problem is one
ConfigError line at configuration time: an unknown component, a bad weight, no component left, or
the quality component without ruff installed.
"""

from __future__ import annotations

from coderl.base.config import ConfigError
from coderl.rewards import RewardConfig
from coderl.rewards.components import LINTED_LANGUAGES
from coderl.rewards.lint import LinterMissing, find_ruff
from coderl.rewards.presets import preset


def _preset(name: str) -> RewardConfig:
    """The preset's config at its seed's knobs (the length options are the `rewards` section's)."""
    try:
        return preset(name)()
    except KeyError as exc:
        raise ConfigError(f"--reward: {exc.args[0]}") from None


LENGTH_DEFAULTS = {"length_alpha": 0.01, "length_penalty_on": "all"}  # seed 001


def _weights(preset_weights: dict, rs) -> dict[str, float]:
    """The component weights of a `RewardSettings`: its preset's, then --reward-weights (0 removes one)."""
    weights = {**preset_weights, **rs.reward_weights}
    return {k: w for k, w in weights.items() if w != 0}


def settle_length_options(rs) -> None:
    """--length-alpha / --length-penalty-on: filled with their defaults when the reward has a length_penalty
    component; set explicitly without one, a one-line error (they would change nothing)."""
    has_length = "length_penalty" in _weights(_preset(rs.reward).weights, rs)
    for name, default in LENGTH_DEFAULTS.items():
        if has_length and getattr(rs, name) is None:
            setattr(rs, name, default)
        elif not has_length and getattr(rs, name) is not None:
            raise ConfigError(f"--{name.replace('_', '-')}: not an option of --reward {rs.reward} (it has no "
                              "length_penalty component; add one with --reward-weights length_penalty=1)")


def reward_config(cfg) -> RewardConfig:
    """The `RewardConfig` of a TrainConfig's `rewards` section."""
    rs = cfg.rewards
    rc = _preset(rs.reward)
    preset_weights, rc.weights = rc.weights, _weights(rc.weights, rs)
    for name, default in LENGTH_DEFAULTS.items():  # None without a length_penalty component: unused
        setattr(rc, name, default if getattr(rs, name) is None else getattr(rs, name))
    if rs.reward_model and not rc.weights.get("reward_model"):
        raise ConfigError(f"--reward-model {rs.reward_model!r}: no reward_model component to use it (add one with "
                          "--reward-weights reward_model=W, e.g. pass=0.5,reward_model=0.5 as seed 002)")
    rc.tamper_cap = rs.tamper_cap
    for name, value in rs.reward_model_settings().items():  # the section RewardConfig and RewardSettings share
        setattr(rc, name, value)
    # auto: where the policy trains (`--device`), so `--device cpu` on a GPU machine keeps the RM on the CPU too
    rc.reward_model_device = cfg.device if rs.reward_model_device == "auto" else rs.reward_model_device
    try:
        rc.validate()
    except ValueError as exc:  # a bad weight; a ConfigError (the reward model's folder) names its flag already
        if isinstance(exc, ConfigError):
            raise
        raise ConfigError(f"--reward-weights {rs.reward_weights}: {exc}") from None
    if not rc.weights:
        raise ConfigError(f"--reward-weights {rs.reward_weights}: expected at least one component with a "
                          f"weight other than 0 (--reward {rs.reward} has {preset_weights})")
    if rc.weights.get("quality"):
        try:
            find_ruff()
        except LinterMissing:
            raise ConfigError(f"--reward {rs.reward}: its quality component needs the ruff linter, which is not "
                              "installed: pip install ruff (it comes with coderl[train])") from None
    return rc


def check_rewards_fit_tasks(rc: RewardConfig, tasks: list) -> None:
    """One-line errors before the policy loads: a component the tasks cannot be scored by (`quality` on a
    language without a linter, such as math or JavaScript), or a reward model that does not load (it is
    loaded here, once per process); otherwise step 1 would stop."""
    if rc.weights.get("reward_model"):
        import os

        from coderl.rewards.learned import load_scorer

        load_scorer(os.path.abspath(rc.reward_model), rc.reward_model_device, rc.reward_model_max_tokens)
    if not rc.weights.get("quality"):
        return
    bad = next((t for t in tasks if t.language not in LINTED_LANGUAGES), None)
    if bad is not None:
        raise ConfigError(f"--reward-weights quality={rc.weights['quality']}: no linter for language "
                          f"{bad.language!r} (task {bad.task_id}; Python has ruff, Verilog verilator): give quality "
                          "weight 0 for these tasks")

