"""The comparison rules of the datasets' own graders (issue 100, `coderl.sandbox.rules.RULES`): each case is a
verdict the upstream code gives, read from its source (named on each rule); the differential against the graders
themselves is tests/sandbox/test_upstream_verdicts.py."""

from __future__ import annotations

import json

import pytest

from coderl.sandbox.judge import judge
from coderl.sandbox.outputs import stdout_match
from coderl.sandbox.rules import (
    RULES,
    apps_match,
    apps_value_match,
    lcb_match,
    lcb_value_match,
    nemo_gym_value_match,
    rule,
    taco_match,
)
from coderl.sandbox.types import CheckKind, ExecutionRequest, Mode, TestCase


@pytest.mark.parametrize("actual, expected, match", [
    ("0.500000\n", "0.5", True),  # numbers as decimals
    ("0.5 1.00\n2\n", "0.50 1\n2.0", True),
    ("1 2\n3\n", "1 2 3", False),  # line by line: the right tokens on other lines fail
    ("1 2 3\n", "1\n2\n3", False),
    ("  3  \n\n", "3", True),  # the whole text and each line stripped
    ("3\n\n4", "3\n4", False),  # an inner blank line is a line
    ("1  2", "1 2", True),  # items of a line split on any white space once decimals are read
    ("a  b", "a b", False),  # ... but words must be equal as whole lines
    ("1e3", "1000", True),
    ("nan", "nan", True),  # equal as text
    ("nan", "NaN", False),  # as decimals NaN equals nothing
    ("inf", "Infinity", True),  # Decimal reads both as infinity: upstream's own leniency
    ("", "0", False),  # no output is one empty line
    ("", "", True),
    ("0.30000000000000004", "0.3", False),  # decimals are exact: no tolerance
    ("sNaN", "sNaN", True),  # equal as text
    ("sNaN 1", "sNaN 1.0", False),  # a signalling NaN raises when compared: upstream's test errs
])
def test_livecodebench_grade_stdio(actual, expected, match):
    assert lcb_match(actual, expected) is match
    assert stdout_match(actual, expected, None, "livecodebench") is match
    assert stdout_match(actual, expected, None, "nemo-gym") is match


@pytest.mark.parametrize("actual, expected, strict, upstream", [
    ("3\n", "3", True, True),
    ("  3  \n", "3\n", True, True),  # stripped
    ("1 2\n\n3\n", "1 2\n3", True, True),  # empty printed lines dropped
    ("1.0000001\n", "1.0", True, True),  # each line a float: numpy.allclose
    ("0.5\n0.25\n", "0.50000\n0.25", True, True),
    ("1.1\n", "1.0", False, False),
    ("nan\n", "nan", True, True),  # equal as text
    ("nan\n", "NaN", False, False),  # allclose: NaN equals nothing
    ("1 2.0\n", "1 2", False, True),  # a line of several numbers is no float (strict); rounded token sets pass
    ("2 1\n", "1 2", False, True),  # token sets: order within a line
    ("3\n1 2\n", "1 2\n3", False, True),  # ... line order
    ("1 2\n1 2\n", "1 2", False, True),  # ... repeated lines
    ("1.0004 2\n", "2 1", False, True),  # rounded to 3 decimals
    ("1.0006\n", "1", False, False),
    ("", "3", False, False),  # no output
    ("3 4\n", "3", False, False),
])
def test_apps_testing_util(actual, expected, strict, upstream):
    assert apps_match(actual, expected, sets=False) is strict
    assert apps_match(actual, expected) is upstream
    assert stdout_match(actual, expected, None, "apps") is upstream
    assert stdout_match(actual, expected, None, "apps-strict") is strict


@pytest.mark.parametrize("actual, expected, strict, upstream", [
    ("3\n", "3", True, True),
    ("1 2\n\n3\n", "1 2\n3", False, False),  # TACO gets stdout as one string: an inner blank line counts
    ("5", "5.000", True, True),  # one character read as a float
    ("0.5\n", "0.50", False, False),  # several characters: no float reading ('\n', '.')
    ("2 1", "1\n2", False, True),  # each token's characters as a set, against each line's token set
    ("1 2", "2 1", False, False),
    ("", "3", False, False),
])
def test_taco_compare_std_results(actual, expected, strict, upstream):
    assert taco_match(actual, expected, sets=False) is strict
    assert taco_match(actual, expected) is upstream


@pytest.mark.parametrize("value, expected, lcb, nemo, apps", [
    ([1, 2], [1, 2], True, True, True),
    ((1, 2), [1, 2], True, True, True),  # a returned tuple is a list
    ([(1, 2)], [[1, 2]], False, True, False),  # nested tuples: NeMo Gym's json.dumps
    ([(1, 2)], [[[1, 2]]], False, False, True),  # APPS: items as lists against the wrapped answer
    (3, [3], False, False, True),  # APPS/TACO wrap each answer in a list
    ("3", 3, False, True, False),  # NeMo Gym: float() of both
    (0.1 + 0.2, 0.3, False, True, False),  # NeMo Gym: allclose
    (float("nan"), float("nan"), False, True, False),  # NeMo Gym: json.dumps writes NaN
    (True, 1, True, True, True),  # Python's ==
    ([1, 2], [2, 1], False, False, False),
    (None, [None], False, False, True),
])
def test_call_based_values(value, expected, lcb, nemo, apps):
    assert lcb_value_match(value, expected) is lcb
    assert nemo_gym_value_match(value, expected) is nemo
    assert apps_value_match(value, expected) is apps


def test_unsound_rules_name_their_strict_form():
    for r in RULES.values():
        assert r.sound or rule(r.strict).sound
    with pytest.raises(ValueError, match="comparison rule 'nope'"):
        rule("nope")


def _run(stdout: str, exit_code: int = 0) -> dict:
    return {"cpu_seconds": 0.01, "wall_seconds": 0.01, "max_rss_bytes": 0, "exit_code": exit_code, "signal": None,
            "stdout": stdout, "stderr": "", "stdout_total": len(stdout.encode()), "stderr_total": 0, "killed": None}


@pytest.mark.parametrize("compare, passed", [("", False), ("livecodebench", True), ("apps", True)])
def test_the_request_rule_judges_stdout(compare, passed):
    request = ExecutionRequest(mode=Mode.PYTHON_SCRIPT, tests=(TestCase("0", "", CheckKind.STDOUT, "0.5"),),
                               compare=compare)
    assert judge(request, [_run("0.500000\n")]).passed is passed


def test_a_failed_run_fails_under_every_rule():
    request = ExecutionRequest(mode=Mode.PYTHON_SCRIPT, tests=(TestCase("0", "", CheckKind.STDOUT, "3"),),
                               compare="apps")
    assert not judge(request, [_run("3\n", exit_code=1)]).passed


def test_presets_carry_their_upstream_rule(tmp_path):
    datasets = pytest.importorskip("datasets")
    from coderl.tasks import load_tasks
    from coderl.tasks.types import for_training

    row = {"problem_id": 1, "question": "q", "solutions": json.dumps(["print(3)"]),
           "input_output": json.dumps({"inputs": [""], "outputs": ["3"]})}
    path = tmp_path / "a.parquet"
    datasets.Dataset.from_list([row]).to_parquet(str(path))
    for preset, upstream, train in (("apps", "apps", "apps-strict"), ("taco", "taco", "taco-strict")):
        task, = load_tasks(f"hf:{path}:preset={preset}").tasks
        assert (task.metadata["compare"], task.metadata["compare_train"]) == (upstream, train)
        assert task.build_request("print(3)").compare == upstream
        assert for_training([task])[0].build_request("print(3)").compare == train
    task, = load_tasks(f"hf:{path}:preset=apps,compare=strict").tasks
    assert task.metadata["compare"] == "apps-strict" and "compare_train" not in task.metadata
    task, = load_tasks(f"hf:{path}:preset=apps,compare=upstream").tasks
    assert for_training([task])[0].build_request("x").compare == "apps"
    task, = load_tasks(f"hf:{path}:preset=apps,compare=tokens").tasks
    assert task.build_request("x").compare == ""
    from coderl.tasks.types import TaskFormatError
    with pytest.raises(TaskFormatError, match=r"compare=loose: expected one of upstream, strict, tokens"):
        load_tasks(f"hf:{path}:preset=apps,compare=loose")
    prime = tmp_path / "p.parquet"
    datasets.Dataset.from_list([{"problem_id": "p1", "prompt": "q", "verification_info": json.dumps(
        {"language": "python", "test_cases": [{"type": "stdin_stdout", "input": "", "output": "3\n"}]})}]).to_parquet(
        str(prime))
    task, = load_tasks(f"hf:{prime}:preset=primeintellect").tasks
    assert (task.metadata["compare"], task.metadata["compare_train"]) == ("open-r1", "open-r1-strict")


@pytest.mark.parametrize("actual, expected, match", [
    ("3\n", "3", True),
    ("03\n", "3", False),  # every pair of lines digits only: no float reading
    ("3.0\n", "3", True),  # ... else numpy.allclose
    ("-1.0\n", "-1", True),
    ("1 2\n", "2 1", False),  # no token-set fallback
    ("1\n2\n", "1\n\n2", True),  # empty lines dropped, as APPS
])
def test_verl_prime_code(actual, expected, match):
    from coderl.sandbox.rules import verl_match

    assert verl_match(actual, expected) is match


@pytest.mark.parametrize("actual, expected, upstream, strict", [
    ("1 2\n3 4\n", "1 2\n3 4\n", True, True),
    ("1 2\n", "1 2\n3 4\n", True, False),  # zip stops at the shorter: a prefix of the answer passes upstream
    ("1 2\n3 4\n", "1 2\n", False, False),  # the expected text is not stripped: its last "" meets "3 4"
    ("1 2\n3 4\n5\n", "1 2\n3 4", True, False),  # ... and without a final newline extra lines go unseen
    ("  1 2  \n", "1 2", True, True),
    ("1  2\n", "1 2", False, False),  # inner spacing counts
])
def test_open_r1_code_reward(actual, expected, upstream, strict):
    from coderl.sandbox.rules import open_r1_match

    assert open_r1_match(actual, expected) is upstream
    assert open_r1_match(actual, expected, strict=True) is strict


def test_a_task_file_naming_no_rule_is_one_line(tmp_path):
    from coderl.tasks.loaders.task_rows import load_task_rows
    from coderl.tasks.types import TaskFormatError

    row = {"task_id": "t", "kind": "stdio", "prompt": "p", "tests": [{"id": "0", "source": "", "check": "stdout",
                                                                      "expected": "3"}], "metadata": {"compare": "loose"}}
    path = tmp_path / "t.jsonl"
    path.write_text(json.dumps(row) + "\n")
    with pytest.raises(TaskFormatError, match=r"t.jsonl:1: not a runnable stdio task \(ValueError: comparison rule "
                                              r"'loose': expected one of tokens, livecodebench"):
        load_task_rows(path)


@pytest.mark.parametrize("actual, expected, upstream, strict", [
    ("3\n", "3", True, True),
    ("yes\n", "YES", True, False),  # two tokens that are not numbers count as equal upstream
    ("3.0000001\n", "3", True, True),  # one number each: numpy.isclose
    ("1 2.0000001\n", "1 2", True, True),  # numbers within isclose token by token
    ("1 2\n", "1 2 3", False, False),  # as many tokens
    ("2 1\n", "1\n2", True, False),  # TACO's token sets after it
])
def test_rllm_taco(actual, expected, upstream, strict):
    from coderl.sandbox.rules import rllm_taco_match

    assert rllm_taco_match(actual, expected) is upstream
    assert rllm_taco_match(actual, expected, sets=False) is strict


@pytest.mark.parametrize("value, expected, match", [
    (True, 1, True), ("9", 9, True), ("", 0, True), (" 12 ", 12, True), ("0x1A", 26, True), ("1e3", 1000, True),
    ([1, "2"], [1, 2], True), ({"a": True}, {"a": 1}, True), (None, None, True),
    (None, 0, False), ("true", True, False), ("abc", "abd", False), ([1], [1, 2], False), ([1], {"0": 1}, False),
    (0.1 + 0.2, 0.3, False), ("0x1A", "26", False),  # two strings compare as strings
])
def test_multipl_e_js_loose_deep_equal(value, expected, match):
    from coderl.sandbox.rules import js_loose_equal

    assert js_loose_equal(value, expected) is match
