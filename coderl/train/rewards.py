"""The training reward: `TrainConfig.rewards` (a preset, its parameters, hand-set weights) -> `RewardConfig`.

    pass                     1 if every test passes
    fraction                 fraction of tests passed                            (seed 002)
    pass_minus_length        pass - alpha * generated tokens / 100                (seed 001; alias seed001)
    syntax_fraction_quality  0.4 syntax + 0.5 fraction + 0.5 quality (ruff)      (seed 003; alias seed003)
    fraction_plus_perfect    fraction + 1 if every test passes                   (seed 004; alias seed004)
    compile_functional_synthesis_quality
                             0.4 compile + 0.5 functional + 0.3 synthesis + 0.5 quality (verilator)
                                                                                 (seed 003 on Verilog; alias verilog)

`--reward-weights name=w,...` then sets any component's weight (0 removes it).  Every problem is one
ConfigError line at configuration time: an unknown component, a bad weight, no component left, or
the quality component without ruff installed.
"""

from __future__ import annotations

from coderl.base.config import ConfigError
from coderl.rewards import PRESETS, RewardConfig
from coderl.rewards.lint import LinterMissing, find_ruff

REWARD_ALIASES = {"seed001": "pass_minus_length", "seed003": "syntax_fraction_quality",
                  "seed004": "fraction_plus_perfect", "verilog": "compile_functional_synthesis_quality"}


def _preset(name: str, alpha: float) -> RewardConfig:
    if name == "pass":
        return RewardConfig(weights={"pass": 1.0})
    if name == "fraction":
        return PRESETS["fraction_passed"]()
    if name == "pass_minus_length":
        return PRESETS["pass_minus_length"](alpha=alpha)
    if name == "syntax_fraction_quality":
        return PRESETS["weighted_sum"]()
    if name == "fraction_plus_perfect":
        return PRESETS["fraction_plus_perfect"]()
    if name == "compile_functional_synthesis_quality":
        return PRESETS["verilog"]()
    raise ConfigError(f"--reward {name!r}: expected one of pass, fraction, pass_minus_length, "
                      f"syntax_fraction_quality, fraction_plus_perfect, compile_functional_synthesis_quality "
                      f"(or {', '.join(REWARD_ALIASES)})")


LENGTH_DEFAULTS = {"length_alpha": 0.01, "length_penalty_on": "all"}  # seed 001


def _weights(rs) -> dict[str, float]:
    """The component weights of a `RewardSettings`: its preset's, then --reward-weights (0 removes one)."""
    name = REWARD_ALIASES.get(rs.reward, rs.reward)
    weights = {**_preset(name, LENGTH_DEFAULTS["length_alpha"]).weights, **rs.reward_weights}
    return {k: w for k, w in weights.items() if w != 0}


def settle_length_options(rs) -> None:
    """--length-alpha / --length-penalty-on: filled with their defaults when the reward has a length_penalty
    component; set explicitly without one, a one-line error (they would change nothing)."""
    has_length = "length_penalty" in _weights(rs)
    for name, default in LENGTH_DEFAULTS.items():
        if has_length and getattr(rs, name) is None:
            setattr(rs, name, default)
        elif not has_length and getattr(rs, name) is not None:
            raise ConfigError(f"--{name.replace('_', '-')}: not an option of --reward {rs.reward} (it has no "
                              "length_penalty component; add one with --reward-weights length_penalty=1)")


def reward_config(cfg) -> RewardConfig:
    """The `RewardConfig` of a TrainConfig's `rewards` section."""
    rs = cfg.rewards
    alpha = LENGTH_DEFAULTS["length_alpha"] if rs.length_alpha is None else rs.length_alpha
    rc = _preset(REWARD_ALIASES.get(rs.reward, rs.reward), alpha)
    weights = {**rc.weights, **rs.reward_weights}
    rc.weights = {name: w for name, w in weights.items() if w != 0}
    for name, default in LENGTH_DEFAULTS.items():  # None without a length_penalty component: unused
        setattr(rc, name, default if getattr(rs, name) is None else getattr(rs, name))
    try:
        rc.validate()
    except ValueError as exc:
        raise ConfigError(f"--reward-weights {rs.reward_weights}: {exc}") from None
    if not rc.weights:
        raise ConfigError(f"--reward-weights {rs.reward_weights}: expected at least one component with a "
                          f"weight other than 0 (--reward {rs.reward} has {weights})")
    if rc.weights.get("quality"):
        try:
            find_ruff()
        except LinterMissing:
            raise ConfigError(f"--reward {rs.reward}: its quality component needs the ruff linter, which is not "
                              "installed: pip install ruff (it comes with coderl[train])") from None
    return rc
