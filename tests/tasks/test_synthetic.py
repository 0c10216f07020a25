"""The synthetic generator: primitives, determinism, held-out splits, task quality, spec options.

References and degenerate solutions run in-process (exec of generated code); the sandbox is not used.
"""

import ast
import doctest
import itertools
import random
from string import Template

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from coderl.sandbox.types import CheckKind
from coderl.tasks import TaskFormatError, load_tasks, parse_task_spec
from coderl.tasks.generators.synthetic import (
    BY_NAME,
    HELD_OUT,
    PRIMITIVES,
    SPLITS,
    SyntheticConfig,
    composition_split,
    compositions,
    generate,
    pair_split,
    primitive_split,
)


def _gen(levels=(1,), n=30, seed=0, split="train", tries=20):
    return generate(SyntheticConfig(levels=levels, n=n, seed=seed, tries=tries), split)[0]


@pytest.fixture(scope="module")
def all_tasks():
    """40 tasks per split and level: 360 tasks."""
    return [t for level in (1, 2, 3) for t in _gen((level,), n=40, split="all")]


def _compile(task):
    ns: dict = {}
    exec(compile(task.prompt + task.reference_solution, task.task_id, "exec"), ns)  # noqa: S102
    return ns[task.entry_point]


def _passes(task, fn) -> bool:
    for t in task.tests:
        try:
            if eval(t.source, {"candidate": fn}) != t.expected:
                return False
        except Exception:  # noqa: BLE001 - any error fails the test
            return False
    return True


# ---------------------------------------------------------------- primitives


def test_primitive_source_agrees_with_callable():
    rng = random.Random(1)
    assert len(PRIMITIVES) >= 30
    types = {p.ty_in for p in PRIMITIVES} | {p.ty_out for p in PRIMITIVES}
    assert {"int", "str", "list[int]", "dict[str,int]"} <= types
    for p in PRIMITIVES:
        names = sorted(p.params(rng))
        src = Template(p.expr).substitute(x="x", **{k: k for k in names})
        ns: dict = {}
        exec(f"def f(x, {', '.join(names)}):\n    return {src}\n", ns)  # noqa: S102 - once per primitive
        for _ in range(40):
            params = p.params(rng)
            x = p.sampler()(rng)
            assert ns["f"](x, **params) == p.fn(x, **params), (p.name, x, params)
            # the rendered, literal-substituted source is the same function
            rendered = p.source("x", params)
            assert eval(rendered, {"x": x}) == p.fn(x, **params)


def test_every_primitive_has_a_phrase_and_param_placeholders_resolve():
    rng = random.Random(0)
    for p in PRIMITIVES:
        params = p.params(rng)
        assert "$" not in p.describe(params) and "$" not in p.source("v", params)


# ---------------------------------------------------------------- determinism


def test_same_seed_same_tasks_different_seed_different():
    a, b = _gen((2,), n=15, seed=3), _gen((2,), n=15, seed=3)
    def key(ts):
        return [(t.task_id, t.prompt, t.reference_solution, t.tests) for t in ts]

    assert key(a) == key(b)
    c = _gen((2,), n=15, seed=4)
    assert [t.prompt for t in a] != [t.prompt for t in c]


def test_smaller_n_is_a_prefix():
    small, big = _gen((3,), n=10, seed=5), _gen((3,), n=25, seed=5)
    assert [t.prompt for t in small] == [t.prompt for t in big[:10]]


# ---------------------------------------------------------------- held-out compositions


def test_primitive_held_out_sets():
    held = [n for names in HELD_OUT.values() for n in names]
    assert len(held) == len(set(held)) and 0.15 <= len(held) / len(PRIMITIVES) <= 0.3
    assert {c[0] for c in compositions(1, "test")} == set(HELD_OUT["test"])
    assert {c[0] for c in compositions(1, "valid")} == set(HELD_OUT["valid"])


@pytest.mark.parametrize("level", [1, 2, 3])
def test_composition_pools_are_disjoint(level):
    pools = {s: set(compositions(level, s)) for s in SPLITS}
    assert all(pools.values())
    for a, b in itertools.combinations(SPLITS, 2):
        assert not pools[a] & pools[b]


def test_held_out_atoms_never_appear_in_train_at_any_level():
    train_atoms = set()
    for level in (1, 2, 3):
        for c in compositions(level, "train"):
            train_atoms |= set(c) | set(itertools.pairwise(c))
    for split in ("valid", "test"):
        for level in (1, 2, 3):
            for c in compositions(level, split):
                atoms = set(c) | set(itertools.pairwise(c))
                assert atoms - train_atoms, (split, c)  # something unseen in train
    other = {"valid": "test", "test": "valid"}
    for split in ("valid", "test"):
        for level in (2, 3):
            for c in compositions(level, split):
                assert all(primitive_split(n) != other[split] for n in c)
                assert all(pair_split(a, b) != other[split] for a, b in itertools.pairwise(c))


def test_generated_splits_use_disjoint_compositions(all_tasks):
    by_split: dict[str, set] = {s: set() for s in SPLITS}
    for t in all_tasks:
        comp = tuple(t.metadata["composition"])
        assert composition_split(comp) == t.metadata["split"]
        by_split[t.metadata["split"]].add(comp)
    for a, b in itertools.combinations(SPLITS, 2):
        assert not by_split[a] & by_split[b]


# ---------------------------------------------------------------- task quality


def test_layout_ids_and_test_kinds(all_tasks):
    ids = [t.task_id for t in all_tasks]
    assert len(ids) == len(set(ids)) == 360
    for t in all_tasks:
        level = t.metadata["level"]
        assert t.task_id.startswith(f"synthetic/L{level}/{t.entry_point}/")
        assert t.entry_point == "_then_".join(t.metadata["composition"])
        assert t.kind == "function" and t.test_preamble == ""
        assert 5 <= len(t.tests) <= 8
        assert all(c.check is CheckKind.EQUALS and c.source.startswith("candidate(") for c in t.tests)
        assert t.prompt.startswith(f"def {t.entry_point}(") and 1 <= t.prompt.count(">>> ") <= 2
        assert t.reference_solution.startswith("    ") and t.reference_solution.count("\n") == level
        module = ast.parse(t.prompt + t.reference_solution)
        (fn,) = module.body
        assert isinstance(fn, ast.FunctionDef) and ast.get_docstring(fn)


def test_every_reference_passes_its_tests_and_docstring_examples(all_tasks):
    for t in all_tasks:
        fn = _compile(t)
        assert _passes(t, fn), t.task_id
        finder = doctest.DocTestFinder(verbose=False)
        runner = doctest.DocTestRunner(verbose=False)
        for dt in finder.find(fn, t.entry_point, globs={t.entry_point: fn}):
            runner.run(dt, out=lambda s: None)
        assert runner.failures == 0 and runner.tries >= 1, t.task_id


def test_constant_identity_and_empty_solutions_fail_every_task(all_tasks):
    for t in all_tasks:
        expected = [c.expected for c in t.tests]
        assert None not in expected
        for value in expected:  # the best constant guesses
            assert not _passes(t, lambda *a, v=value: v), t.task_id
        assert not _passes(t, lambda x: x), t.task_id
        assert not _passes(t, lambda x: None), t.task_id
        ns: dict = {}
        exec(t.prompt + "    pass\n", ns)  # noqa: S102
        assert not _passes(t, ns[t.entry_point]), t.task_id


def test_rejections_and_drops_are_counted():
    tasks, stats = generate(SyntheticConfig(levels=(2,), n=80, tries=1), "train")
    d = stats.to_dict()
    assert d["generated"] == len(tasks) == d["requested"] == 80
    assert sum(d["rejected_draws"].values()) > 0
    assert d["dropped_compositions"] == len(d["dropped"]) > 0
    assert all(x.startswith("L2/train/") for x in d["dropped"])
    assert tasks[0].metadata["generator"] == d
    # a degenerate chain (second step never changes anything) is dropped, never emitted
    tasks, stats = generate(SyntheticConfig(levels=(2,), n=len(compositions(2, "train"))), "train")
    assert "L2/train/to_str_then_strip" in stats.dropped
    emitted = {f"L2/train/{t.entry_point}" for t in tasks}
    assert not emitted & set(stats.dropped)


# ---------------------------------------------------------------- spec and load_tasks


def test_spec_counts_and_split_mapping():
    s = load_tasks("synthetic:level=2,n=7,seed=1,split=valid")
    assert len(s) == 7 and s.split == "valid" and {t.metadata["split"] for t in s} == {"valid"}
    assert s.describe()["generator"]["generated"] == 7
    assert load_tasks("synthetic:n=5", split="test").split == "test"
    assert {t.metadata["split"] for t in load_tasks("synthetic:n=5", split="train")} == {"train"}
    both = load_tasks("synthetic:n=4")
    assert both.split == "all" and len(both) == 12
    assert load_tasks("synthetic:n=4,split=test", split="test").split == "test"
    mixed = load_tasks("synthetic:level=1-3,n=7,split=train")
    assert [t.metadata["level"] for t in mixed] == [1, 1, 1, 2, 2, 3, 3]
    assert [t.task_id for t in load_tasks("synthetic", split="train")][:1] == [
        t.task_id for t in load_tasks("synthetic:level=1,n=100,seed=0,split=train")
    ][:1]


def test_spec_split_conflict_is_one_line():
    with pytest.raises(TaskFormatError) as e:
        load_tasks("synthetic:split=valid", split="train")
    assert "split='valid' conflicts with split 'train'" in str(e.value) and "\n" not in str(e.value)


@pytest.mark.parametrize(
    "spec, message",
    [
        ("synthetic:size=3", "unknown option 'size' (known: level, n, seed, split, tries)"),
        ("synthetic:level=4", "option level='4': expected 1, 2, 3 or a range like 1-3"),
        ("synthetic:level=3-1", "option level='3-1'"),
        ("synthetic:n=0", "option n='0': expected an integer >= 1"),
        ("synthetic:n=ten", "option n='ten'"),
        ("synthetic:seed=-1", "option seed='-1'"),
        ("synthetic:split=dev", "option split='dev': expected train, valid, test or all"),
        ("synthetic:tries=x", "option tries='x'"),
    ],
)
def test_bad_options_are_one_line_errors_at_parse_time(spec, message):
    with pytest.raises(TaskFormatError) as e:
        parse_task_spec(spec)
    assert message in str(e.value) and "\n" not in str(e.value) and spec in str(e.value)


def test_primitive_names_are_valid_function_names():
    for name in BY_NAME:
        assert name.isidentifier()


# A generated test's check is made without parsing `assert candidate(x) == y` when x and y are plain literals
# (`equality_check`): it must be what `classify_statement` reads from that statement, for any values.
_scalars = (st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=5) | st.binary(max_size=3)
            | st.complex_numbers(max_magnitude=10))
_values = st.recursive(_scalars, lambda inner: st.lists(inner, max_size=3) | st.tuples(inner, inner)
                       | st.frozensets(st.integers(), max_size=2) | st.sets(st.text(max_size=2), max_size=2)
                       | st.dictionaries(st.integers(), inner, max_size=2), max_leaves=8)


@settings(max_examples=400, deadline=None)
@given(x=_values, y=_values)
@example(x=1, y=float("nan")).via("not a literal")
@example(x=[0.5], y=float("-inf")).via("not a literal")
@example(x=(), y=[[float("nan")]]).via("not a literal, inside")
@example(x="a", y=-0.0).via("a signed zero")
@example(x=True, y=[1, True, 1.0]).via("three types that compare equal")
@example(x=None, y=set()).via("an empty set is no literal")
@example(x=[[1], ("x",)], y={1: 2}).via("a dict")
def test_a_generated_equality_check_is_the_one_the_statement_gives(x, y):
    from coderl.tasks.generators.synthetic import equality_check
    from coderl.tasks.loaders.humaneval import classify_statement

    fast, parsed = equality_check(x, y), classify_statement(f"assert candidate({x!r}) == {y!r}", "candidate")
    assert fast[:2] == parsed[:2]
    # the same value of the same types all the way down (repr tells 1 from True and 1.0, -0.0 from 0.0)
    assert repr(fast[2]) == repr(parsed[2]) and type(fast[2]) is type(parsed[2])
