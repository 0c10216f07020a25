"""No corpus reference passes the tests of an evaluation task (about 2 minutes on 2 cores: slow)."""

import pytest

from coderl.eval.decontaminate import behaviour_leaks
from coderl.eval.leak_report import EVAL_SETS
from coderl.tasks import load_tasks


@pytest.mark.slow
def test_corpus_is_clean_against_every_evaluation_set(sandbox):
    evals = [t for spec in EVAL_SETS.split() for t in load_tasks(spec).tasks]
    report = behaviour_leaks(load_tasks("corpus").tasks, evals, sandbox)
    assert report.incomplete == []
    assert sorted(set(report.leaks)) == [] and report.same == []
    assert report.pairs > 50_000  # every evaluation task met most of the corpus
