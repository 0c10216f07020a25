"""Reward presets: the rewards of the seed projects, each one `RewardConfig` away, in one table (`PRESETS`)
keyed by the name users type (`--reward NAME`; the seed names are `ALIASES`).

A preset is a function returning a `RewardConfig`; its keyword arguments are the seed's knobs.
Each docstring gives the seed's formula and how it maps onto components.  A new preset is a function
and a row of `PRESETS` (with the one-line summary `--reward`'s help shows), plus its test.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from coderl.rewards.score import RewardConfig


def pass_only() -> RewardConfig:
    """1 if every test passes, else 0: the plain verifiable reward."""
    return RewardConfig(weights={"pass": 1.0})


def pass_minus_length(alpha: float = 0.01) -> RewardConfig:
    """Seed 001 (REINFORCE/PPO on HumanEval): `reward = r - alpha * (generated_length / 100)`,
    r = 1 if all unit tests pass else 0; alpha 0.01 (best pass@1) or 0.03 in its runs."""
    return RewardConfig(weights={"pass": 1.0, "length_penalty": 1.0}, length_alpha=alpha)


def fraction(tests: str = "all") -> RewardConfig:
    """Seed 002 (GRPO on competitive coding): the fraction of unit tests passed, 0.0 to 1.0."""
    return RewardConfig(weights={"fraction": 1.0}, fraction_tests=tests)


def syntax_fraction_quality(compilation: float = 0.4, functional: float = 0.5,
                            code_quality: float = 0.5) -> RewardConfig:
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


def compile_functional_synthesis_quality(compile: float = 0.4, functional: float = 0.5, synthesis: float = 0.3,  # noqa: A002
            quality: float = 0.5) -> RewardConfig:
    """Seed 003 on Verilog tasks: `R = w_c*Compile + w_f*Functional + w_s*Synthesis + w_q*Quality`.

    The weights are the seed's `REWARD_WEIGHTS_CONFIG` (compilation 0.4, functional_correctness 0.5,
    synthesise 0.3, code_quality 0.5); its reasoning term (an LLM judge) has no counterpart.  Compile
    is Icarus Verilog's build, Functional the fraction of testbench checks matching the reference,
    Synthesis yosys without an unintended latch, Quality verilator's warnings per line."""
    return RewardConfig(weights={"compile": compile, "functional": functional, "synthesis": synthesis,
                                 "quality": quality})


@dataclass(frozen=True)
class Preset:
    make: Callable[..., RewardConfig]  # its keyword arguments: the seed's knobs
    summary: str  # what it computes, for --reward's help

    def __call__(self, **knobs) -> RewardConfig:
        return self.make(**knobs)


PRESETS: dict[str, Preset] = {
    "pass": Preset(pass_only, "1 if every test passes"),
    "fraction": Preset(fraction, "fraction of tests passed, seed 002"),
    "pass_minus_length": Preset(pass_minus_length, "pass - alpha*tokens/100, seed 001"),
    "syntax_fraction_quality": Preset(syntax_fraction_quality,
                                      "0.4 syntax + 0.5 fraction + 0.5 quality, seed 003; needs ruff"),
    "fraction_plus_perfect": Preset(fraction_plus_perfect, "fraction + 1 if all pass, seed 004"),
    "compile_functional_synthesis_quality": Preset(
        compile_functional_synthesis_quality,
        "0.4 compile + 0.5 functional + 0.3 synthesis + 0.5 quality by verilator: seed 003 on Verilog tasks"),
}
ALIASES = {"seed001": "pass_minus_length", "seed003": "syntax_fraction_quality",
           "seed004": "fraction_plus_perfect", "verilog": "compile_functional_synthesis_quality"}


def preset(name: str) -> Preset:
    """The preset `name` (or an alias of one); KeyError naming the choices."""
    try:
        return PRESETS[ALIASES.get(name, name)]
    except KeyError:
        raise KeyError(f"reward preset {name!r}: expected one of {', '.join([*PRESETS, *ALIASES])}") from None


def presets_help() -> str:
    """`--reward`'s help: every preset with its summary, then the aliases."""
    return (", ".join(f"{name} ({p.summary})" for name, p in PRESETS.items())
            + "; aliases " + ", ".join(ALIASES))
