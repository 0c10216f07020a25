"""The shipped record of the overlap checks (coderl/tasks/data/overlap_verdicts.json, scripts/overlap_record.py):
it holds every check the shipped configs' pipelines run, so a fresh machine's `make demo` runs none, and a check it
holds is taken from it without the sandbox."""

import json

import pytest

from coderl.eval import decontaminate
from coderl.eval.decontaminate import VERDICTS, cached_leaks, overlap_key
from coderl.pipeline.plan import load_plan
from coderl.pipeline.run import evaluation_tasks, overlap_checks


def _checks(config: str, out: str) -> list:
    plan = load_plan(config, out=out, check_tasks=False)
    sets = [(s, evaluation_tasks(plan, s)) for s in plan.stages if s.kind == "eval" and s.role == "base"]
    return [(stage.name, spec, train, list(against.values()))
            for stage, spec, _split, train, against, _held, _selection in overlap_checks(plan, sets)]


@pytest.fixture(scope="module")
def demo_checks(tmp_path_factory):
    return _checks("configs/cpu-demo.yaml", str(tmp_path_factory.mktemp("demo") / "run"))


def _assert_recorded(config: str, checks: list) -> None:
    with open(VERDICTS, encoding="utf-8") as f:
        record = json.load(f)
    assert config in record["configs"]
    for name, spec, train, against in checks:
        key, _ = overlap_key(train, against, spec)
        assert key in record["verdicts"], (
            f"{config}: {name}'s overlap check is not in {VERDICTS} (a task set, a rule or a config changed): "
            "run python scripts/overlap_record.py")
        assert not record["verdicts"][key]["incomplete"]


def test_the_record_holds_every_check_of_the_demo(demo_checks):
    _assert_recorded("configs/cpu-demo.yaml", demo_checks)


@pytest.mark.slow
def test_the_record_holds_every_check_of_the_recipe(tmp_path):
    _assert_recorded("configs/cpu-recipe.yaml", _checks("configs/cpu-recipe.yaml", str(tmp_path / "run")))


def test_a_recorded_check_runs_nothing(tmp_path, monkeypatch, demo_checks):
    def run(*args, **kwargs):
        raise AssertionError("the sandbox ran a check the record holds")

    monkeypatch.setattr(decontaminate, "behaviour_leaks", run)
    name, spec, train, against = next(c for c in demo_checks if c[0] == "sft")
    report = cached_leaks(train, against, None, str(tmp_path / "cache"), spec)
    assert report.train_tasks == len(train) and report.pairs > 0 and not report.incomplete
    with pytest.raises(AssertionError, match="ran a check"):  # what is not recorded still runs
        cached_leaks(train[:5], against, None, str(tmp_path / "cache"), spec)
