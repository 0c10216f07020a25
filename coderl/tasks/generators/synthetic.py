"""Procedurally generated function tasks: chains of small primitives, in HumanEval layout.

A *primitive* is one step over a typed value (``add $k to each element``: list[int] -> list[int]).
It carries a natural-language phrase, its reference implementation as Python expression SOURCE
(``[v + $k for v in $x]``), an equivalent Python callable (used to compute the expected outputs
in-process), its input/output types, a parameter sampler and an input sampler.  A task of level L
is a chain of L primitives whose types line up; its prompt is a typed signature named after the
chain (``def add_each_then_reverse(xs: list[int]) -> list[int]:``) with a docstring giving the
steps in order and 1-2 ``>>>`` examples; its reference solution is the chain's sources composed
into a body; its tests are 5-8 ``assert candidate(INPUT) == EXPECTED`` (EQUALS tests, judged in the
parent).

Every task is checked before it is kept: the test outputs are not all equal (a constant solution
fails), at least one output differs from its input (the identity fails), no output is None
(``pass`` fails), no step of the chain is a no-op on every test input, nothing raises and nothing
grows huge.  A rejected draw is resampled (new parameters and inputs) up to ``tries`` times, then
its composition is dropped for the rest of the run; both are counted in `GenerationStats`, which the
loader records in every task's ``metadata["generator"]`` and in ``TaskSet.describe()``.

Held-out splits are made of unseen compositions.  Each primitive is in a split by a fixed list
(`HELD_OUT`, ~10% valid + ~10% test) and each ordered pair of adjacent primitives by a fixed hash
(70% train, 15% valid, 15% test).  A chain is *train* when all its primitives and adjacent pairs are
train, *valid* when they are all train or valid with at least one valid, *test* likewise with test;
chains mixing valid and test atoms are never used.  So every valid/test task contains a primitive
or a pair that no train task of any level contains, and valid and test share no composition.

Spec options (``synthetic:k=v,...``; every key is optional):

    level=1      chain length: 1, 2, 3, or a range such as 1-3 (n is shared evenly over the levels)
    n=100        tasks per split
    seed=0       generation seed (same seed, same tasks; per level, n=100 is a prefix of n=200)
    split=       train | valid | test | all (all = the three splits concatenated, 3n tasks).
                 When the spec does not fix it, `load_tasks(..., split=)` picks it: train -> train,
                 test -> test, valid -> valid, all -> all.  When it does, a `load_tasks` split other
                 than all must agree with it.  The generic seeded split (`coderl.tasks.split`) is
                 never applied to synthetic tasks; `load_tasks`'s seed does not change them either.
    tries=20     draws per composition before it is dropped

Task ids: ``synthetic/L2/add_each_then_reverse/17`` (17 = index within its split and level).

The primitives table (types, samplers, `Primitive`, `PRIMITIVES`) is in `coderl.tasks.generators.synthetic_primitives`;
its public names are re-exported here.
"""

from __future__ import annotations

import functools
import hashlib
import itertools
import math
import random
import textwrap
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from coderl.sandbox.types import CheckKind, TestCase
from coderl.tasks.generators.synthetic_primitives import *  # noqa: F403 - re-export the primitives table's public names
from coderl.tasks.generators.synthetic_primitives import BY_NAME, PRIMITIVES, TYPES, Primitive, Rng, too_large
from coderl.tasks.loaders.humaneval import classify_statement
from coderl.tasks.types import Task

# ---------------------------------------------------------------- held-out compositions

SPLITS = ("train", "valid", "test")
HELD_OUT: dict[str, tuple[str, ...]] = {  # fixed primitive splits (~10% each); the rest is train
    "valid": ("subtract", "is_multiple", "remove_vowels", "count_vowels", "keep_odd", "last",
              "total_chars", "max_value"),
    "test": ("digit_sum", "capitalize_words", "is_palindrome", "running_sum", "unique", "longest_word",
             "values_sum", "square_each"),
}
_PRIM_SPLIT = {name: split for split, names in HELD_OUT.items() for name in names}
if not set(_PRIM_SPLIT) <= set(BY_NAME):
    raise ImportError(f"HELD_OUT names unknown primitives: {sorted(set(_PRIM_SPLIT) - set(BY_NAME))}")


def primitive_split(name: str) -> str:
    return _PRIM_SPLIT.get(name, "train")


def pair_split(a: str, b: str) -> str:
    """Split of the ordered pair a -> b by a fixed hash: 70% train, 15% valid, 15% test."""
    bucket = int.from_bytes(hashlib.sha256(f"{a}>{b}".encode()).digest()[:8], "big") % 100
    return "train" if bucket < 70 else "valid" if bucket < 85 else "test"


def composition_split(names: tuple[str, ...]) -> str | None:
    """train / valid / test for a chain of primitive names, None if it mixes valid and test atoms."""
    atoms = {primitive_split(n) for n in names} | {pair_split(a, b) for a, b in itertools.pairwise(names)}
    if atoms == {"train"}:
        return "train"
    if "valid" in atoms and "test" in atoms:
        return None
    return "valid" if "valid" in atoms else "test"


def _chains(level: int) -> list[tuple[str, ...]]:
    chains: list[tuple[str, ...]] = [(p.name,) for p in PRIMITIVES]
    for _ in range(level - 1):
        chains = [
            c + (p.name,)
            for c in chains
            for p in PRIMITIVES
            if not p.first_only and p.name != c[-1] and p.ty_in == BY_NAME[c[-1]].ty_out
        ]
    return chains


@functools.cache
def _pool(level: int, split: str) -> tuple[tuple[str, ...], ...]:
    return tuple(sorted(c for c in _chains(level) if composition_split(c) == split))


def compositions(level: int, split: str) -> list[tuple[str, ...]]:
    """All chains of `level` primitives in `split`, sorted (a fresh list; computed once)."""
    return list(_pool(level, split))


# ---------------------------------------------------------------- one task


def composition_name(names: tuple[str, ...]) -> str:
    return "_then_".join(names)


def run_chain(chain: list[Primitive], params: list[dict[str, Any]], x: Any) -> list[Any]:
    """The value after each step (the generator's own pure functions; no exec)."""
    trace = []
    for p, prm in zip(chain, params):
        x = p.fn(x, **prm)
        trace.append(x)
    return trace


def reference_body(chain: list[Primitive], params: list[dict[str, Any]]) -> str:
    """The composed sources as a function body (4-space indent), ending in `return`."""
    var = TYPES[chain[0].ty_in][0]
    lines = []
    for i, (p, prm) in enumerate(zip(chain, params)):
        expr = p.source(var, prm)
        if i == len(chain) - 1:
            lines.append(f"    return {expr}\n")
        else:
            var_out = TYPES[p.ty_out][0]
            lines.append(f"    {var_out} = {expr}\n")
            var = var_out
    return "".join(lines)


def build_prompt(name: str, chain: list[Primitive], params: list[dict[str, Any]], examples) -> str:
    arg, ann_in, desc_in = TYPES[chain[0].ty_in]
    _, ann_out, desc_out = TYPES[chain[-1].ty_out]
    steps = [p.describe(prm) for p, prm in zip(chain, params)]
    if len(steps) == 1:
        head = f"Given {arg} ({desc_in}), {steps[0]} and return the result ({desc_out})."
        lines = textwrap.wrap(head, 88)
    else:
        head = f"Given {arg} ({desc_in}), do these steps in order and return the result ({desc_out}):"
        lines = textwrap.wrap(head, 88)
        lines += [f"{i}. {step}" for i, step in enumerate(steps, 1)]
    lines.append("")
    for x, y in examples:
        lines += [f">>> {name}({x!r})", repr(y)]
    doc = "".join(f"    {line}\n" if line else "\n" for line in lines)
    return f'def {name}({arg}: {ann_in}) -> {ann_out}:\n    """{doc.lstrip()}    """\n'


def _reject_reason(
    chain: list[Primitive], inputs: list[Any], traces: list[list[Any]], n_tests: int
) -> str | None:
    outs = [t[-1] for t in traces]
    if any(o is None for o in outs):
        return "none_output"
    if any(too_large(v) for t in traces for v in t):
        return "too_large"
    tests_in, tests_out = inputs[:n_tests], outs[:n_tests]
    if all(o == tests_out[0] for o in tests_out):
        return "constant"
    if all(type(o) is type(x) and o == x for x, o in zip(tests_in, tests_out)):
        return "identity"
    for i, p in enumerate(chain):
        if p.ty_in == p.ty_out:
            before = [x if i == 0 else t[i - 1] for x, t in zip(tests_in, traces)]
            if all(b == t[i] for b, t in zip(before, traces[:n_tests])):
                return "noop_step"
    return None


@dataclass
class GenerationStats:
    """What the generator did; `to_dict()` goes into task metadata and `TaskSet.describe()`."""

    requested: int = 0
    generated: int = 0
    compositions: dict[str, int] = field(default_factory=dict)  # "L2/test" -> available chains
    rejected_draws: Counter = field(default_factory=Counter)  # reason -> draws resampled
    dropped: list[str] = field(default_factory=list)  # "L2/test/name" of dropped compositions

    def to_dict(self) -> dict[str, Any]:
        return {
            "requested": self.requested,
            "generated": self.generated,
            "compositions": dict(self.compositions),
            "rejected_draws": dict(sorted(self.rejected_draws.items())),
            "dropped_compositions": len(self.dropped),
            "dropped": list(self.dropped),
        }


def _draw(rng: Rng, chain: list[Primitive], stats: GenerationStats):
    """One attempt: (params, test pairs, example pairs) or None (counted in stats)."""
    params = [p.params(rng) for p in chain]
    samplers = [chain[0].sampler()] + [p.sampler() for p in chain[1:] if p.ty_in == chain[0].ty_in]
    n_tests, n_examples = rng.randint(5, 8), rng.randint(1, 2)
    inputs, seen = [], set()
    for _ in range(20 * (n_tests + n_examples)):
        x = rng.choice(samplers)(rng)
        if repr(x) not in seen:
            seen.add(repr(x))
            inputs.append(x)
            if len(inputs) == n_tests + n_examples:
                break
    else:
        stats.rejected_draws["few_inputs"] += 1
        return None
    try:
        traces = [run_chain(chain, params, x) for x in inputs]
    except Exception:  # noqa: BLE001 - a primitive rejected this input; resample
        stats.rejected_draws["error"] += 1
        return None
    reason = _reject_reason(chain, inputs, traces, n_tests)
    if reason:
        stats.rejected_draws[reason] += 1
        return None
    pairs = [(x, t[-1]) for x, t in zip(inputs, traces)]
    return params, pairs[:n_tests], pairs[n_tests:]


def equality_check(x: Any, y: Any) -> tuple[CheckKind, str, Any]:
    """What `classify_statement` makes of `assert candidate(x!r) == y!r`, without parsing that statement where both
    reprs are literals (the generator's values): an EQUALS check of `candidate(x!r)` against y's literal. Parsing and
    comparing each statement's tree was most of what generating the pool's 4,000 tasks cost (a profile)."""
    if not (_plain(x) and _plain(y)):
        return classify_statement(f"assert candidate({x!r}) == {y!r}", "candidate")
    return CheckKind.EQUALS, f"candidate({x!r})", y


def _plain(value: Any) -> bool:
    """Is `value` made of what the literal reader gives back as itself (`ast.literal_eval(repr(value))` equal, of
    the same types): None, bool, int, str, finite float, and lists and tuples of them."""
    kind = type(value)
    if kind in (list, tuple):
        return all(_plain(v) for v in value)
    return kind in (int, str, bool, type(None)) or (kind is float and math.isfinite(value))


def make_task(
    task_id: str, names: tuple[str, ...], params: list[dict[str, Any]], tests, examples, meta: dict[str, Any]
) -> Task:
    chain = [BY_NAME[n] for n in names]
    name = composition_name(names)
    cases = [TestCase(id=str(i), source=source, check=kind, expected=expected)
             for i, (x, y) in enumerate(tests) for kind, source, expected in [equality_check(x, y)]]
    return Task(
        task_id=task_id,
        kind="function",
        prompt=build_prompt(name, chain, params, examples),
        tests=tuple(cases),
        entry_point=name,
        reference_solution=reference_body(chain, params),
        source="synthetic",
        metadata={"format": "synthetic", "composition": list(names), "params": params, **meta},
    )


# ---------------------------------------------------------------- options and generation


@dataclass(frozen=True)
class SyntheticConfig:
    levels: tuple[int, ...] = (1,)
    n: int = 100
    seed: int = 0
    split: str | None = None  # None: chosen by load_tasks
    tries: int = 20


OPTION_KEYS = ("level", "n", "seed", "split", "tries")
MAX_LEVEL = 3


def _int_option(key: str, value: str, lo: int) -> int:
    try:
        number = int(value)
    except ValueError:
        number = lo - 1
    if number < lo:
        raise ValueError(f"option {key}={value!r}: expected an integer >= {lo}")
    return number


def parse_options(options: dict[str, str]) -> SyntheticConfig:
    """Validate spec options (keys: `OPTION_KEYS`); raises a one-line `ValueError` naming the key and value."""
    kw: dict[str, Any] = {}
    if "level" in options:
        value = options["level"]
        lo, dash, hi = value.partition("-")
        try:
            a, b = int(lo), int(hi if dash else lo)
        except ValueError:
            a = b = 0
        if not 1 <= a <= b <= MAX_LEVEL:
            raise ValueError(f"option level={value!r}: expected 1, 2, 3 or a range like 1-3")
        kw["levels"] = tuple(range(a, b + 1))
    if "n" in options:
        kw["n"] = _int_option("n", options["n"], 1)
    if "seed" in options:
        kw["seed"] = _int_option("seed", options["seed"], 0)
    if "tries" in options:
        kw["tries"] = _int_option("tries", options["tries"], 1)
    if "split" in options:
        if options["split"] not in SPLITS + ("all",):
            raise ValueError(f"option split={options['split']!r}: expected train, valid, test or all")
        kw["split"] = options["split"]
    return SyntheticConfig(**kw)


def _generate_one(level: int, split: str, n: int, cfg: SyntheticConfig, stats: GenerationStats) -> list[Task]:
    pool = compositions(level, split)
    stats.compositions[f"L{level}/{split}"] = len(pool)
    rng = random.Random(f"coderl-synthetic/{cfg.seed}/{split}/L{level}")
    rng.shuffle(pool)
    tasks: list[Task] = []
    pos = 0
    while len(tasks) < n:
        if not pool:
            raise ValueError(f"every level-{level} {split} composition was dropped; no task can be made")
        names = pool[pos % len(pool)]
        chain = [BY_NAME[x] for x in names]
        for _ in range(cfg.tries):
            drawn = _draw(rng, chain, stats)
            if drawn:
                break
        if not drawn:
            stats.dropped.append(f"L{level}/{split}/{composition_name(names)}")
            pool.pop(pos % len(pool))
            continue
        params, tests, examples = drawn
        meta = {"level": level, "split": split, "seed": cfg.seed}
        task_id = f"synthetic/L{level}/{composition_name(names)}/{len(tasks)}"
        tasks.append(make_task(task_id, names, params, tests, examples, meta))
        pos += 1
    return tasks


def generate(cfg: SyntheticConfig, split: str) -> tuple[list[Task], GenerationStats]:
    """Tasks of `split` (train / valid / test / all) for `cfg`; deterministic from `cfg.seed`."""
    stats = GenerationStats()
    tasks: list[Task] = []
    for sp in SPLITS if split == "all" else (split,):
        share, extra = divmod(cfg.n, len(cfg.levels))
        for i, level in enumerate(cfg.levels):
            count = share + (i < extra)
            stats.requested += count
            if count:
                tasks.extend(_generate_one(level, sp, count, cfg, stats))
    stats.generated = len(tasks)
    summary = stats.to_dict()
    for t in tasks:
        t.metadata["generator"] = summary  # one shared dict
    return tasks, stats
