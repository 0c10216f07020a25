"""The training corpus as a whole: size, breadth, tests that reject mutants, clean splits.

The mutant audit runs every reference and its mutants through the sandbox (issue 16's quality bar:
each task's tests reject at least two mutants of its reference)."""

import collections

import pytest

from coderl.eval.decontaminate import behaviour_leaks
from coderl.eval.mutation import audit_mutants, format_audit
from coderl.sandbox.types import Limits
from coderl.tasks import load_tasks
from coderl.tasks.corpus import families, problems, valid_names


@pytest.fixture(scope="module")
def corpus():
    return load_tasks("corpus").tasks


def test_size_breadth_and_tests_per_task(corpus):
    per_family = collections.Counter(t.metadata["family"] for t in corpus)
    assert len(corpus) >= 400 and len(per_family) >= 25, per_family
    assert min(per_family.values()) >= 10, per_family
    assert all(len(t.tests) >= 4 for t in corpus)
    assert all(t.reference_solution for t in corpus)
    assert len({t.task_id for t in corpus}) == len(corpus)


def test_every_problem_has_varied_phrasing_and_examples(corpus):
    assert all(len(p.phrasings) >= 2 for p in problems()), [p.name for p in problems() if len(p.phrasings) < 2]
    styles = collections.Counter()
    for t in corpus:
        styles[">>>" if ">>>" in t.prompt else "Examples:" if "Examples:" in t.prompt else
               "For example:" if "For example:" in t.prompt else "none"] += 1
    assert styles["none"] == 0 and min(styles[s] for s in (">>>", "Examples:", "For example:")) > len(corpus) // 10


def test_train_valid_split_is_per_family_and_fixed(corpus):
    valid = [t for t in corpus if t.metadata["split"] == "valid"]
    assert {t.task_id for t in load_tasks("corpus@valid").tasks} == {t.task_id for t in valid}
    assert len(load_tasks("corpus@train")) + len(valid) == len(corpus)
    assert 0.15 <= len(valid) / len(corpus) <= 0.25
    for family in families():  # every family in both splits
        assert 1 <= len(valid_names(family)) < len(family.problems), family.name


@pytest.mark.slow  # the bundled corpus re-checked whole (~20 s alone): make test-slow, beside its leak sweeps
def test_every_reference_passes_and_its_tests_reject_two_mutants(corpus, sandbox):
    audits = audit_mutants(corpus, sandbox, Limits(), need=2)
    families_of = {t.task_id: t.metadata["family"] for t in corpus}
    assert all(a.ok(2) for a in audits), format_audit(audits, 2, families_of)


# A sweep of bundled data (every train reference against every valid task's tests in the sandbox), slow like its
# sibling tests/tasks/test_corpus_decontamination.py; behaviour_leaks itself is tested in tests/eval/test_decontaminate.py.
@pytest.mark.slow
def test_no_valid_task_is_solved_by_a_train_reference(sandbox):
    report = behaviour_leaks(load_tasks("corpus@train").tasks, load_tasks("corpus@valid").tasks, sandbox)
    assert report.leaks == [] and report.same == [] and report.incomplete == []


@pytest.mark.parametrize("spec,message", [
    ("corpus@test", "no test split"),
    ("corpus:level=3", r"expected 1 \(warm-up\) or 2 \(standard\)"),
    ("corpus:family=nope", "no such family"),
    ("corpus:colour=red", "unknown option 'colour'"),
    ("corpus:split=test", "expected train, valid or all"),
])
def test_bad_corpus_specs_are_one_line_errors(spec, message):
    from coderl.tasks import TaskFormatError

    with pytest.raises(TaskFormatError, match=message) as e:
        load_tasks(spec)
    assert "\n" not in str(e.value)


def test_corpus_options_select_family_level_and_split(corpus):
    graphs = load_tasks("corpus:family=graphs").tasks
    assert graphs and {t.metadata["family"] for t in graphs} == {"graphs"}
    assert len(load_tasks("corpus:level=1")) + len(load_tasks("corpus:level=2")) == len(corpus)
    assert {t.task_id for t in load_tasks("corpus:split=valid", split="valid").tasks} == \
        {t.task_id for t in corpus if t.metadata["split"] == "valid"}
    with pytest.raises(Exception, match="conflicts"):
        load_tasks("corpus:split=valid", split="train")
