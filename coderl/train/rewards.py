"""The training reward: `TrainConfig.rewards` (a preset, its parameters, hand-set weights) -> `RewardConfig`.

    pass                     1 if every test passes
    fraction                 fraction of tests passed                            (seed 002)
    pass_minus_length        pass - alpha * generated tokens / 100                (seed 001; alias seed001)
    syntax_fraction_quality  0.4 syntax + 0.5 fraction + 0.5 quality (ruff)      (seed 003; alias seed003)
    fraction_plus_perfect    fraction + 1 if every test passes                   (seed 004; alias seed004)

`--reward-weights name=w,...` then sets any component's weight (0 removes it).  Every problem is one
ConfigError line at configuration time: an unknown component, a bad weight, no component left, or
the quality component without ruff installed.
"""

from __future__ import annotations

from coderl.base.config import ConfigError
from coderl.rewards import PRESETS, RewardConfig
from coderl.rewards.lint import LinterMissing, find_ruff

REWARD_ALIASES = {"seed001": "pass_minus_length", "seed003": "syntax_fraction_quality",
                  "seed004": "fraction_plus_perfect"}


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
    raise ConfigError(f"--reward {name!r}: expected one of pass, fraction, pass_minus_length, "
                      f"syntax_fraction_quality, fraction_plus_perfect (or {', '.join(REWARD_ALIASES)})")


def reward_config(cfg) -> RewardConfig:
    """The `RewardConfig` of a TrainConfig's `rewards` section."""
    rs = cfg.rewards
    rc = _preset(REWARD_ALIASES.get(rs.reward, rs.reward), rs.length_alpha)
    weights = {**rc.weights, **rs.reward_weights}
    rc.weights = {name: w for name, w in weights.items() if w != 0}
    rc.length_alpha = rs.length_alpha
    rc.length_penalty_on = rs.length_penalty_on
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
