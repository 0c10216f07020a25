"""Reward presets: the rewards of the seed projects, each one `RewardConfig` away.

A preset is a function returning a `RewardConfig`; its keyword arguments are the seed's knobs.
Each docstring gives the seed's formula and how it maps onto components.
"""

from __future__ import annotations

from coderl.rewards.score import RewardConfig


def pass_minus_length(alpha: float = 0.01) -> RewardConfig:
    """Seed 001 (REINFORCE/PPO on HumanEval): `reward = r - alpha * (generated_length / 100)`,
    r = 1 if all unit tests pass else 0; alpha 0.01 (best pass@1) or 0.03 in its runs."""
    return RewardConfig(weights={"pass": 1.0, "length_penalty": 1.0}, length_alpha=alpha)


def fraction_passed(tests: str = "all") -> RewardConfig:
    """Seed 002 (GRPO on competitive coding): the fraction of unit tests passed, 0.0 to 1.0."""
    return RewardConfig(weights={"fraction": 1.0}, fraction_tests=tests)


def weighted_sum(compilation: float = 0.4, functional: float = 0.5, code_quality: float = 0.5) -> RewardConfig:
    """Seed 003: `R = w_c*Compilation + w_f*Functional + w_s*Synthesise + w_r*Reasoning + w_q*Quality`.

    Defaults are the seed's `REWARD_WEIGHTS_CONFIG` (compilation 0.4, functional_correctness 0.5,
    code_quality 0.5).  Functional is its `tests_passed / tests_total`, our `fraction`.  Its
    "synthesise" (Yosys synthesis, 0.3) and "reasoning" (a GPT-4o judge of reasoning vs code, 0.6)
    are specific to Verilog and to an LLM judge: there is no counterpart here.  Its scores go down
    to -1 on failure; ours are 0..1, which shifts the total but not the ranking of samples.
    """
    return RewardConfig(weights={"syntax": compilation, "fraction": functional, "quality": code_quality})


def fraction_plus_perfect(base_reward_weight: float = 1.0, perfect_bonus: float = 1.0,
                          perfect_reward_weight: float = 1.0, format_weight: float = 0.0) -> RewardConfig:
    """Seed 004 (GRPO with TRL): `base_reward_weight * passed_tests / total_tests
    + perfect_reward_weight * (perfect_bonus if all passed else 0)`, over the first
    `max_tests_per_problem` tests (a sandbox request setting: `task.build_request(max_tests=)`).

    The seed's defaults are all 1.0.  Its reasoning format (`<reasoning>`/`<answer>`) only changes
    where the code is read from; it pays nothing for the layout.  `format_weight > 0` adds our
    `format` component for that (not part of the seed).
    """
    weights = {"fraction": base_reward_weight, "perfect_bonus": perfect_reward_weight * perfect_bonus}
    if format_weight:
        weights["format"] = format_weight
    return RewardConfig(weights=weights)


def verilog(compile: float = 0.4, functional: float = 0.5, synthesis: float = 0.3,  # noqa: A002
            quality: float = 0.5) -> RewardConfig:
    """Seed 003 on Verilog tasks: `R = w_c*Compile + w_f*Functional + w_s*Synthesis + w_q*Quality`.

    The weights are the seed's `REWARD_WEIGHTS_CONFIG` (compilation 0.4, functional_correctness 0.5,
    synthesise 0.3, code_quality 0.5); its reasoning term (an LLM judge) has no counterpart.  Compile
    is Icarus Verilog's build, Functional the fraction of testbench checks matching the reference,
    Synthesis yosys without an unintended latch, Quality verilator's warnings per line."""
    return RewardConfig(weights={"compile": compile, "functional": functional, "synthesis": synthesis,
                                 "quality": quality})


PRESETS = {
    "pass_minus_length": pass_minus_length,  # seed 001
    "fraction_passed": fraction_passed,  # seed 002
    "weighted_sum": weighted_sum,  # seed 003
    "fraction_plus_perfect": fraction_plus_perfect,  # seed 004
    "verilog": verilog,  # seed 003 on hardware tasks
}
