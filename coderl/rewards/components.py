"""Reward components: one float per sample from its execution result, sample and task.

Every component has the shared signature `(result, sample, task, **params) -> float` and is
registered by name in `REWARDS`.  Its keyword-only parameters without a default are fields of
`RewardConfig` with the same name, which `score()` passes in; nothing else about a component is
known to the caller.  A component that is cheaper for a whole batch at once (the linter) also
registers a `prepare` hook that `score()` runs once per call; it returns per-sample keyword
arguments for the component.

Outcome components read the sandbox's verdict:
  `pass`, `fraction`, `perfect_bonus`, `length_penalty`.
Shaping components look at the program itself:
  `syntax`, `format`, `quality`.
A learned component scores the reply with a reward model (`coderl.rewards.learned`):
  `reward_model`.
Shaping components pay only when the completion *defines the entry point* (see
`defines_entry_point`): otherwise an empty answer would earn them (the prompt alone compiles, is
lint-clean and, in the completion format, counts as well formatted), and a policy would learn that
saying nothing is worth more than a wrong attempt.
"""

from __future__ import annotations

import ast
import functools
import inspect
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from coderl.base.registry import register_once
from coderl.languages import get_language
from coderl.languages.python import parse_module
from coderl.rewards.learned import reward_model_scores, scores_as_kwargs
from coderl.rewards.lint import Finding, run_ruff
from coderl.rollout.types import Sample
from coderl.sandbox.types import ExecutionResult
from coderl.tasks.kinds import get_kind
from coderl.tasks.repository.grade import verdict
from coderl.tasks.types import Task

RewardFn = Callable[..., float]  # (result, sample, task, **params) -> float
PrepareFn = Callable[..., list]  # (samples, tasks, **params) -> [dict of extra kwargs per sample]

FRACTION_TESTS = ("all", "hidden", "visible")  # choices of RewardConfig.fraction_tests
LINTED_LANGUAGES = ("python", "verilog")  # the `quality` component's: ruff and verilator
LENGTH_PENALTY_ON = ("all", "passed")  # choices of RewardConfig.length_penalty_on


@dataclass(frozen=True)
class Component:
    name: str
    fn: RewardFn
    params: tuple[str, ...]  # RewardConfig fields passed to `fn` (and `prepare`) as keyword arguments
    prepare: PrepareFn | None = None  # once per batch; its per-sample dicts are extra kwargs of `fn`


REWARDS: dict[str, Component] = {}


def reward(name: str, *, prepare: PrepareFn | None = None) -> Callable[[RewardFn], RewardFn]:
    """Register `fn` in `REWARDS` as `name`."""

    def register(fn: RewardFn) -> RewardFn:
        if not (fn.__doc__ or "").strip():
            raise ValueError(f"reward component {name!r} needs a docstring saying what it pays")
        params = tuple(p.name for p in inspect.signature(fn).parameters.values()
                       if p.kind is inspect.Parameter.KEYWORD_ONLY and p.default is inspect.Parameter.empty)
        register_once(REWARDS, name, Component(name, fn, params, prepare), "reward component")
        return fn

    return register


# ---------------------------------------------------------------------------------------------
# What the program is: does it compile, does the completion define the entry point?


def compiles(program: str, language: str = "python") -> bool:
    """The program compiles in its language (Python: `compile()`, which parses and generates byte code;
    nothing runs, and it catches more than `ast.parse`: `return` outside a function, ...)."""
    return get_language(language).compiles(program)


@functools.lru_cache(maxsize=4096)
def _defines(language: str, kind: str, entry_point: str | None, program: str, completion: str) -> bool:
    if not completion.strip():
        return False
    check = get_language(language).implements
    if check is None:  # a language without an implementation check: any non-blank completion counts
        return True
    return check(program, entry_point if get_kind(kind).prompt_is_code else None)


def defines_entry_point(task: Task, completion: str) -> bool:
    """The completion contributes an implementation (the gate of every shaping component).

    Function tasks: the program `task.build_program(completion)` parses and the entry point's last
    module-level binding is a `def` whose body holds a statement other than a docstring, `pass`,
    `...` or `raise NotImplementedError` (the prompt's own stub has only a docstring), or a
    non-`def` binding (an assignment or import).  Bindings nested under `if`/`try` are not seen.
    stdio tasks: the completion is the program; it is not blank, parses, and holds a statement
    other than those placeholders.
    """
    return _defines(task.language, task.kind, task.entry_point, task.build_program(completion), completion)


# ---------------------------------------------------------------------------------------------
# Outcome components


@reward("pass")
def pass_reward(result: ExecutionResult, sample: Sample, task: Task) -> float:
    """1.0 if the program passed every test (`result.passed`), else 0.0.

    Seed 001's `r` ("1.0 if all unit tests pass, 0.0 otherwise")."""
    return 1.0 if result.passed else 0.0


@reward("fraction")
def fraction(result: ExecutionResult, sample: Sample, task: Task, *, fraction_tests: str) -> float:
    """Fraction of the tests that passed (seed 002's "% tests passed"; seed 004's base reward,
    `passed_tests / total_tests`; seed 003's functional score).

    `fraction_tests` selects the tests counted: "all", "hidden" or "visible" (`TestOutcome.hidden`).
    A result without tests of that kind falls back to `result.fraction_passed` (over all tests;
    1.0/0.0 by `result.passed` when there are none).  Tests that never ran (syntax error, a crash
    before them) count as failed.
    """
    if fraction_tests not in FRACTION_TESTS:
        raise ValueError(f"fraction_tests={fraction_tests!r}: expected one of {', '.join(FRACTION_TESTS)}")
    tests = [t for t in result.tests
             if fraction_tests == "all" or t.hidden == (fraction_tests == "hidden")]
    if not tests:
        return result.fraction_passed
    return sum(t.passed for t in tests) / len(tests)


# Seed 004's "perfect bonus" (`perfect_bonus if passed_tests == total_tests`, paid on top of its fractional base
# reward) is `pass` itself: the sandbox's `passed` already means "all tests of the request passed", and seed 004's
# `max_tests_per_problem` cap is applied when the request is built (`task.build_request(..., max_tests=)`), so both
# see the same tests.  It is registered under seed 004's name so its config ports 1:1 (`base_reward_weight` ->
# weight of `fraction`, `perfect_reward_weight * perfect_bonus` -> weight of `perfect_bonus`).
reward("perfect_bonus")(pass_reward)


@reward("length_penalty")
def length_penalty(result: ExecutionResult, sample: Sample, task: Task, *, length_alpha: float,
                   length_penalty_on: str) -> float:
    """`-length_alpha * generated_tokens / 100` (seed 001: `reward = r - alpha * (generated_length /
    100)`, alpha 0.01 or 0.03).  Keep its weight at 1.0 and tune `length_alpha`.

    `length_penalty_on="all"` (seed 001) charges every sample; `"passed"` charges only passing
    samples, so that among failing samples a short answer (or an empty one) is not preferred over
    a long attempt; the policy is still pushed towards short *correct* code.
    """
    if length_penalty_on not in LENGTH_PENALTY_ON:
        raise ValueError(f"length_penalty_on={length_penalty_on!r}: expected one of "
                         f"{', '.join(LENGTH_PENALTY_ON)}")
    if length_penalty_on == "passed" and not result.passed:
        return 0.0
    return -length_alpha * len(sample.gen_tokens) / 100.0


# ---------------------------------------------------------------------------------------------
# Shaping components (gated by `defines_entry_point`)


@reward("syntax")
def syntax(result: ExecutionResult, sample: Sample, task: Task) -> float:
    """1.0 if the program `task.build_program(completion)` compiles (seed 003's "compilation"
    score; seed 002's "compilation/syntax check"), else 0.0.  Checked with `compile()` in this
    process: compiling parses, it runs nothing.  0.0 unless the completion defines the entry point.
    """
    if not defines_entry_point(task, sample.completion):
        return 0.0
    return 1.0 if compiles(task.build_program(sample.completion), task.language) else 0.0


@reward("format")
def format_reward(result: ExecutionResult, sample: Sample, task: Task) -> float:
    """1.0 if the output followed the prompt format's layout (`sample.format_ok`; seed 004's
    `<reasoning>...</reasoning><answer>...</answer>` format, a closed code fence for `chat`), else
    0.0.  Formats without a layout (`completion`) always set `format_ok`, so there it pays for any
    extracted code.  0.0 unless the completion defines the entry point -- except on a repository task,
    where a sample is an agent episode's last reply (docs/agents.md): 1.0 when it held one tool call (a
    command or the submit), whatever ended the episode (one ended by malformed replies scores 0).
    """
    if task.kind == "repository":
        return 1.0 if sample.format_ok else 0.0
    if not defines_entry_point(task, sample.completion):
        return 0.0
    return 1.0 if sample.format_ok else 0.0


@dataclass(frozen=True)
class LintReport:
    """Ruff findings in the part of a program the completion wrote."""

    findings: int
    lines: int  # non-blank lines of that part (at least 1)


@functools.lru_cache(maxsize=1024)
def _prompt_names(prompt: str) -> frozenset[str]:
    """Names bound at module level by a function task's prompt (its imports, helpers, the stub)."""
    module = parse_module(prompt)
    if module is None:
        return frozenset()
    names: set[str] = set()
    for stmt in module.body:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(stmt.name)
        elif isinstance(stmt, (ast.Import, ast.ImportFrom)):
            names.update(a.asname or a.name.split(".")[0] for a in stmt.names)
        elif isinstance(stmt, (ast.Assign, ast.AnnAssign)):
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            names.update(n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name))
    return frozenset(names)


def lint_report(task: Task, completion: str, findings: list[Finding]) -> LintReport:
    """Keep the findings on the completion's lines, minus artefacts of assembling the program.

    Findings in the prompt (an import the prompt makes and the model does not use) are not the
    model's.  In the chat formats the model's function redefines the prompt's stub (and often its
    helpers and imports): ruff's F811 "redefinition of unused `name`" on a name the prompt binds is
    how the program is assembled, not the model's style.
    """
    code_prompt = get_kind(task.kind).prompt_is_code
    first = task.prompt.count("\n") + 1 if code_prompt else 1  # 1-based line of the program where the completion starts
    program = task.build_program(completion)
    lines = sum(1 for line in program.split("\n")[first - 1:] if line.strip())
    prompt_names = _prompt_names(task.prompt) if code_prompt else frozenset()
    kept = [f for f in findings if f.row >= first and not (
        f.code == "F811" and any(f"`{name}`" in f.message.split(" from ")[0] for name in prompt_names))]
    return LintReport(len(kept), max(lines, 1))


def _lint_batch(samples: list[Sample], tasks: list[Task], *, quality_scale: float,
                quality_select: tuple[str, ...], quality_ignore: tuple[str, ...],
                quality_timeout_seconds: float) -> list[dict[str, Any]]:
    """One ruff process for every Python sample whose completion defines the entry point."""
    todo = [i for i, (s, t) in enumerate(zip(samples, tasks))
            if t.language == "python" and defines_entry_point(t, s.completion)]
    found = run_ruff([tasks[i].build_program(samples[i].completion) for i in todo],
                     quality_select, quality_ignore, quality_timeout_seconds)
    extra: list[dict[str, Any]] = [{"lint": None} for _ in samples]
    for i, findings in zip(todo, found):
        extra[i] = {"lint": lint_report(tasks[i], samples[i].completion, findings)}
    return extra


@reward("quality", prepare=_lint_batch)
def quality(result: ExecutionResult, sample: Sample, task: Task, *, quality_scale: float,
            quality_select: tuple[str, ...], quality_ignore: tuple[str, ...],
            quality_timeout_seconds: float, lint: LintReport | None = None) -> float:
    """`max(0, 1 - quality_scale * findings_per_line)`: lint findings (ruff, rules
    `quality_select` minus `quality_ignore`) per non-blank line of the completion's part of the
    program (seed 003's "code quality", there a hand-written Verilog lint).

    Linear and clipped rather than `1 / (1 + x)`: one scale with a plain reading ("zero once
    there is one finding per 1/scale lines"), and each finding costs the same, where `1/(1+x)`
    pays ever less for removing further findings.  0.0 unless the completion defines the entry
    point.  `score()` passes `lint` from one batched ruff run; called alone, it runs ruff itself.

    Verilog: the findings are verilator's `-Wall` warnings (the request's `lint` analysis, seed 003's
    "code quality"), over the completion's non-blank lines; 0.0 when the design did not build or
    verilator stopped on an error.  Other languages have no linter: a one-line error.
    """
    if not defines_entry_point(task, sample.completion):
        return 0.0
    if task.language != "python":
        return _verilator_quality(result, task, sample.completion, quality_scale)
    if lint is None:
        program = task.build_program(sample.completion)
        lint = lint_report(task, sample.completion,
                           run_ruff([program], quality_select, quality_ignore, quality_timeout_seconds)[0])
    return max(0.0, 1.0 - quality_scale * lint.findings / lint.lines)


def _verilator_quality(result: ExecutionResult, task: Task, completion: str, scale: float) -> float:
    if task.language not in LINTED_LANGUAGES:
        raise ValueError(f"reward 'quality': no linter for language {task.language!r} (Python: ruff; Verilog: "
                         f"verilator) -- give it weight 0 for task {task.task_id}")
    report = result.reports.get("lint")
    if report is None or result.status.value in ("build_error", "syntax_error"):
        return 0.0  # the design did not build (or was rejected): nothing was linted
    warnings = report.get("stderr", "").count("%Warning")
    if report.get("exit_code") != 0 and not warnings:
        return 0.0  # verilator stopped on an error of its own
    lines = max(1, sum(1 for line in completion.split("\n") if line.strip()))
    return max(0.0, 1.0 - scale * warnings / lines)


# ---------------------------------------------------------------------------------------------
# A learned term


@reward("f2p_fraction")
def f2p_fraction(result: ExecutionResult, sample: Sample, task: Task) -> float:
    """A repository task's share of FAIL_TO_PASS tests passing when every PASS_TO_PASS test passes, else 0 (and 0 for
    a forged run: `coderl.tasks.repository.grade.verdict`); `pass` is 1 only for FULL (seed 002's Phase 2:
    SWE-style tasks, FAIL_TO_PASS and PASS_TO_PASS tests).  For other kinds, `pass`'s value: they have no
    FAIL_TO_PASS tests."""
    repo = task.metadata.get("repository") if task.kind == "repository" else None
    if repo is None:
        return 1.0 if result.passed else 0.0
    return verdict(repo, result)["f2p_fraction"]


@reward("reward_model", prepare=scores_as_kwargs)
def reward_model_reward(result: ExecutionResult, sample: Sample, task: Task, *, reward_model: str | None,
                        reward_model_normalize: str, reward_model_batch_size: int, reward_model_device: str,
                        reward_model_max_tokens: int, rm_score: float | None = None) -> float:
    """A learned reward model's score of the task's prompt and the reply (`coderl.rewards.learned`: a local
    sequence-classification folder, `reward_model`), normalised by `reward_model_normalize` (default sigmoid,
    in (0, 1)).  Seed 002 mixes it with test rewards: `0.5 * test + 0.5 * rm`.  Ungated: it judges every
    reply, which is why a large weight invites the policy to please the model instead of passing the tests
    (docs/training.md).  `score()` passes `rm_score` from one batched pass; called alone it scores the one
    sample (under "batch" normalisation a batch of one scores 0)."""
    if rm_score is None:
        rm_score = reward_model_scores([sample], [task], reward_model=reward_model,
                                       reward_model_normalize=reward_model_normalize,
                                       reward_model_batch_size=reward_model_batch_size,
                                       reward_model_device=reward_model_device,
                                       reward_model_max_tokens=reward_model_max_tokens)[0]
    return float(rm_score)
