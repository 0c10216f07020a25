"""Measured pass rates that start the curriculum (`coderl.train.sources.pass_rates`): read from a `coderl eval` run's
samples.jsonl; bad files are one-line errors naming --pass-rates."""

import json

import pytest

from coderl.base.config import ConfigError
from coderl.train.sources.pass_rates import describe_rates, measured_rates


def write(path, rows):
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_rates_are_each_tasks_fraction_of_passing_samples(tmp_path):
    rows = [{"task_id": "a", "passed": ok} for ok in (True, False, False, False)]
    rows += [{"task_id": "b", "passed": False}] * 3 + [{"task_id": "c", "passed": True}] * 2
    rows += [{"task_id": "elsewhere", "passed": True}] * 2  # not a training task: ignored
    write(tmp_path / "samples.jsonl", rows)
    rates = measured_rates(str(tmp_path), ["c", "a", "b", "unmeasured"])  # a run directory
    assert rates == [1.0, 0.25, 0.0, None]
    assert measured_rates(str(tmp_path / "samples.jsonl"), ["a"]) == [0.25]  # or the file itself
    assert describe_rates(rates) == ("3 tasks measured: 1 never passed, 1 sometimes (the frontier), 1 always; "
                                     "1 unseen")


@pytest.mark.parametrize("rows,message", [
    (None, "no such file"),
    (["{not json"], "line 1 is not a `coderl eval` sample row"),
    ([{"task_id": "a"}], "line 1 is not a `coderl eval` sample row"),
    ([{"task_id": "a", "passed": "yes"}], r"line 1: passed 'yes' \(expected true or false\)"),
    ([{"task_id": "x", "passed": True}] * 2, "none of its 1 tasks is a training task"),
    ([{"task_id": "a", "passed": True}], "task a has one sample"),
])
def test_bad_pass_rate_files_are_one_line_errors(tmp_path, rows, message):
    path = tmp_path / "samples.jsonl"
    if rows is not None:
        path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows))
    with pytest.raises(ConfigError, match=message) as e:
        measured_rates(str(path), ["a", "b"])
    assert "\n" not in str(e.value) and str(e.value).startswith("--pass-rates")


def test_a_results_folder_keeps_its_samples_compressed(tmp_path):
    """results/ keeps samples.jsonl.gz (results/README.md): a run directory with only that reads the same; a cut
    .gz file is one line."""
    import gzip

    from coderl.eval.compare import task_samples

    rows = [{"task_id": "a", "passed": ok, "gen_tokens": 3} for ok in (True, False, False, False)]
    with gzip.open(tmp_path / "samples.jsonl.gz", "wt", encoding="utf-8") as f:
        f.writelines(json.dumps(r) + "\n" for r in rows)
    assert measured_rates(str(tmp_path), ["a"]) == [0.25]
    assert measured_rates(str(tmp_path / "samples.jsonl.gz"), ["a"]) == [0.25]
    assert task_samples(str(tmp_path)) == {"a": [4, 1, 12]}  # coderl compare, the report, interval_budget.py
    cut = tmp_path / "cut.jsonl.gz"
    cut.write_bytes((tmp_path / "samples.jsonl.gz").read_bytes()[:20])
    with pytest.raises(ConfigError, match="cannot read") as e:
        measured_rates(str(cut), ["a"])
    assert "\n" not in str(e.value)
