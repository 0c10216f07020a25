"""The seed projects' rewards, each literally one `RewardConfig` away, against hand-computed totals."""

import pytest

from coderl.rewards import PRESETS, RewardConfig, score
from coderl.rewards.presets import (
    ALIASES,
    fraction,
    fraction_plus_perfect,
    pass_minus_length,
    preset,
    presets_help,
    syntax_fraction_quality,
)
from tests.rewards.helpers import BODY, CHAT, TASK, result, sample


def test_presets_are_plain_configs():
    assert set(PRESETS) == {"pass", "fraction", "pass_minus_length", "syntax_fraction_quality", "fraction_plus_perfect",
                            "compile_functional_synthesis_quality"}
    assert PRESETS["pass"]() == RewardConfig(weights={"pass": 1.0})
    assert pass_minus_length() == RewardConfig(weights={"pass": 1.0, "length_penalty": 1.0}, length_alpha=0.01)
    assert fraction() == RewardConfig(weights={"fraction": 1.0})
    assert syntax_fraction_quality() == RewardConfig(weights={"syntax": 0.4, "fraction": 0.5, "quality": 0.5})
    assert fraction_plus_perfect() == RewardConfig(weights={"fraction": 1.0, "perfect_bonus": 1.0})


@pytest.mark.parametrize("alpha", [0.01, 0.03])
def test_seed_001_is_r_minus_alpha_length(alpha):
    config = RewardConfig(weights={"pass": 1.0, "length_penalty": 1.0}, length_alpha=alpha)
    lengths = [0, 37, 108, 177, 256]
    passed = [True, False, True, False, True]
    samples = [sample(BODY, tokens=n) for n in lengths]
    out = score(config, [result(p) for p in passed], samples, [TASK] * len(samples))
    expected = [(1.0 if p else 0.0) - alpha * (n / 100) for p, n in zip(passed, lengths)]
    assert out.total == pytest.approx(expected, abs=1e-15)
    # alpha 0.01, 108 tokens, passed: 1 - 0.01 * 1.08 = 0.9892
    assert score(pass_minus_length(0.01), [result(True)], [sample(BODY, tokens=108)], [TASK]).total == \
        pytest.approx([0.9892])


def test_seed_002_fraction():
    out = score(fraction(), [result(True, False, False, True, True)], [sample(BODY)], [TASK])
    assert out.total == [0.6]


def test_seed_003_weighted_sum():
    config = RewardConfig(weights={"syntax": 0.4, "fraction": 0.5, "quality": 0.5})
    assert config == syntax_fraction_quality()
    messy = "    import os\n    import sys\n    return a + b\n"  # 2 findings / 3 lines: quality 1/3
    samples = [sample(BODY), sample(messy), sample(""), sample("    return a +\n"), sample(CHAT)]
    results = [result(True, True), result(True, False), result(False, False), result(False, False),
               result(False, True, True, True)]
    out = score(config, results, samples, [TASK] * 5)
    assert out.total == pytest.approx([
        0.4 * 1 + 0.5 * 1.0 + 0.5 * 1,  # 1.4: compiles, all tests, clean
        0.4 * 1 + 0.5 * 0.5 + 0.5 * (1 / 3),  # 0.8167
        0.0,  # empty: no shaping, no tests
        0.0,  # broken syntax: nothing
        0.4 * 1 + 0.5 * 0.75 + 0.5 * 1,  # 1.275
    ])


def test_seed_004_fraction_plus_perfect_bonus():
    results = [result(True, True, True), result(True, True, False), result(False, False, False)]
    samples = [sample(CHAT, format_ok=True), sample(CHAT, format_ok=False), sample(CHAT, format_ok=True)]
    out = score(fraction_plus_perfect(), results, samples, [TASK] * 3)
    assert out.total == pytest.approx([1.0 + 1.0, 2 / 3, 0.0])
    # the seed's knobs: base 1.0, perfect_bonus 2.0 (its helper's default) -> 1 + 2 = 3 for a perfect run
    assert score(fraction_plus_perfect(perfect_bonus=2.0), results, samples, [TASK] * 3).total == \
        pytest.approx([3.0, 2 / 3, 0.0])
    # with the reasoning format paid for: + 0.5 * format_ok
    with_format = fraction_plus_perfect(format_weight=0.5)
    assert with_format == RewardConfig(weights={"fraction": 1.0, "perfect_bonus": 1.0, "format": 0.5})
    assert score(with_format, results, samples, [TASK] * 3).total == pytest.approx([2.5, 2 / 3, 0.5])


def test_one_table_names_each_preset_once_and_every_alias_points_into_it():
    """`--reward` takes the table's names and aliases, its help lists each with its summary, and the
    training config builds exactly the preset's weights (tests/train covers --reward-weights on top)."""
    from coderl.base.config import build
    from coderl.train.config import TrainConfig
    from coderl.train.rewards import reward_config

    assert set(ALIASES.values()) <= set(PRESETS) and not set(ALIASES) & set(PRESETS)
    for name, entry in PRESETS.items():
        assert f"{name} ({entry.summary})" in presets_help()
    for name in [*PRESETS, *ALIASES]:
        if name in ("syntax_fraction_quality", "seed003"):
            continue  # needs ruff on PATH: the reward checks its linter at configuration time
        cfg = build(TrainConfig, {"out": "/tmp/unused", "reward": name})
        assert reward_config(cfg).weights == preset(name)().weights, name
    with pytest.raises(KeyError, match="reward preset 'seed002': expected one of pass, fraction"):
        preset("seed002")
