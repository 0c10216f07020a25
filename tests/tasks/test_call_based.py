"""Call-based rows (issue 100, item 2): APPS/TACO `fn_name`, NeMo Gym `unit_tests.fn_name`, PrimeIntellect
`function_call`, loaded as function tasks and judged as each dataset's grader judges them.

Fixtures, and where each comes from:
- LCB_FUNCTIONAL: the LiveCodeBench functional test of rLLM's own reward test (agentica-project/rllm
  tests/rewards/test_code_reward.py, `test_reward_livecodebench`, commit 874daa4), with that file's right program;
  the NeMo Gym row is made from it as NeMo Gym's own converter makes one (NVIDIA-NeMo/Gym
  benchmarks/livecodebench/prepare_utils.py, `prepare_from_hf_raw`: `unit_tests {inputs, outputs, fn_name}`).
- FIND_NUMBER: a TACO-layout call-based ground truth (`{"fn_name": "findNumber", "inputs": [[1], ...], "outputs":
  [["1"], ...]}`, a Codewars problem) as quoted verbatim in a verl data-preparation script's docstring (found by the
  code search tool; not the producer's own file: the TACO and APPS parquet files cannot be fetched here).
- tests/fixtures/tasks/apps_call_based.jsonl line 2: coderl's own minimal row in APPS's layout.
"""

from __future__ import annotations

import json

import pytest

from coderl.sandbox.types import CheckKind
from coderl.tasks.loaders.stdio import load_stdio
from coderl.tasks.types import TaskFormatError

LCB_FUNCTIONAL = {"input": "[5, 3, 10, 8, 2]\n5", "output": "3", "fn_name": "numberOfEmployeesWhoMetTarget"}
LCB_RIGHT = ("class Solution:\n    def numberOfEmployeesWhoMetTarget(self, hours: List[int], target: int) -> int:\n"
             "        count = 0\n        for hour in hours:\n            if hour >= target:\n                count += 1\n"
             "        return count\n")
FIND_NUMBER = {"fn_name": "findNumber", "inputs": [[1], [5], [10], [9], [7], [1], [2], [3], [4], [11], [1000000000000],
                                                   [999999999999]],
               "outputs": [["1"], ["9"], ["19"], ["17"], ["13"], ["1"], ["3"], ["5"], ["7"], ["31"],
                           ["113559777777777779"], ["113559777777777777"]]}
# The n-th number whose digits are all odd, as a string
FIND_RIGHT = ("def findNumber(n):\n    d = []\n    while n:\n        n -= 1\n        d.append('13579'[n % 5])\n"
              "        n //= 5\n    return ''.join(reversed(d))\n")


def _jsonl(tmp_path, rows, name="rows.jsonl"):
    path = tmp_path / name
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def _nemo_row(prompt: str, tests: dict) -> dict:
    return {"responses_create_params": {"input": [{"role": "user", "content": prompt}]},
            "verifier_metadata": {"unit_tests": tests}, "hash_id": "lcb-3166"}


def test_apps_fn_name_rows_are_function_tasks_judged_by_the_apps_rule(tmp_path, sandbox):
    row = {"problem_id": 7, "question": "Find the n-th number with only odd digits.", "starter_code": "def findNumber(n):",
           "input_output": json.dumps(FIND_NUMBER)}
    (task,) = load_stdio(_jsonl(tmp_path, [row]))
    assert task.kind == "function" and task.entry_point == "findNumber" and task.metadata["compare"] == "apps"
    assert task.tests[0].check is CheckKind.EQUALS and task.tests[0].source == "findNumber(1)"
    assert task.tests[0].expected == ["1"]  # the dataset's wrapping: the grader unwraps it
    assert "def findNumber(n):" in task.prompt
    assert sandbox.run(task.build_request(FIND_RIGHT)).passed
    wrong = FIND_RIGHT.replace("'13579'", "'02468'")
    assert not sandbox.run(task.build_request(wrong)).passed
    as_list = FIND_RIGHT.replace("return ''.join(reversed(d))", "return [''.join(reversed(d))]")
    assert sandbox.run(task.build_request(as_list)).passed  # the wrapped answer itself: APPS passes it too


def test_apps_fixture_row_and_its_integer_keys(tmp_path, sandbox):
    tasks = load_stdio("tests/fixtures/tasks/apps_call_based.jsonl")
    assert [t.kind for t in tasks] == ["stdio", "function"]
    assert sandbox.run(tasks[1].build_request("def f(x):\n    return x + 1\n")).passed
    row = {"problem_id": 8, "question": "q", "input_output": json.dumps(
        {"fn_name": "g", "inputs": [[{"1": "a", "2": "b"}]], "outputs": [{"1": 2}]})}
    (task,) = load_stdio(_jsonl(tmp_path, [row]))
    assert task.tests[0].source == "g({1: 'a', 2: 'b'})" and task.tests[0].expected == [{1: 2}]
    assert sandbox.run(task.build_request("def g(d):\n    return {k: len(d) for k in (1,)}\n")).passed


def test_a_class_solution_starter_calls_the_method(tmp_path, sandbox):
    row = {"problem_id": 9, "question": "q", "starter_code": "class Solution:\n    def add(self, a, b):\n",
           "input_output": json.dumps({"fn_name": "add", "inputs": [[1, 2]], "outputs": [3]})}
    (task,) = load_stdio(_jsonl(tmp_path, [row]))
    assert task.entry_point == "Solution" and task.tests[0].source == "Solution().add(1, 2)"
    assert sandbox.run(task.build_request("class Solution:\n    def add(self, a, b):\n        return a + b\n")).passed


def test_nemo_gym_fn_name_rows_are_judged_as_its_grade_call_based(tmp_path, sandbox):
    tests = {"inputs": [LCB_FUNCTIONAL["input"]], "outputs": [LCB_FUNCTIONAL["output"]],
             "fn_name": LCB_FUNCTIONAL["fn_name"]}
    prompt = "Count employees.\n```python\nclass Solution:\n    def numberOfEmployeesWhoMetTarget(self, hours, target):\n```"
    for given in (tests, json.dumps(tests)):  # an object, or that as JSON text: NeMo Gym's model reads both
        (task,) = load_stdio(_jsonl(tmp_path, [_nemo_row(prompt, given)]))
        assert task.kind == "function" and task.metadata["compare"] == "nemo-gym"
        assert task.tests[0].source == "Solution().numberOfEmployeesWhoMetTarget([5, 3, 10, 8, 2], 5)"
    assert sandbox.run(task.build_request("from typing import List\n" + LCB_RIGHT)).passed
    as_text = LCB_RIGHT.replace("return count", "return str(count)")  # NeMo Gym's float() fallback passes "3"
    assert sandbox.run(task.build_request("from typing import List\n" + as_text)).passed
    off = LCB_RIGHT.replace("return count", "return count + 1")
    assert not sandbox.run(task.build_request("from typing import List\n" + off)).passed


def test_nemo_gym_stdin_rows_stay_stdin_and_bad_call_rows_are_one_line(tmp_path):
    (task,) = load_stdio(_jsonl(tmp_path, [_nemo_row("p", {"inputs": ["1\n"], "outputs": ["1\n"], "fn_name": None})]))
    assert task.kind == "stdio"
    bad = _nemo_row("p", {"inputs": ["1\n\n"], "outputs": ["1"], "fn_name": "f"})
    with pytest.raises(TaskFormatError, match=r"rows.jsonl:1: field 'verifier_metadata.unit_tests\[0\].input': a line "
                                              r"is not a JSON value"):
        load_stdio(_jsonl(tmp_path, [bad]))
    with pytest.raises(TaskFormatError, match=r"field 'verifier_metadata.unit_tests' is text but not JSON"):
        load_stdio(_jsonl(tmp_path, [_nemo_row("p", "eJzLSM3JyVcozy/KSQEAGgQEXQ==")]))
    with pytest.raises(TaskFormatError, match=r"field 'input_output.fn_name' is ''"):
        load_stdio(_jsonl(tmp_path, [{"question": "q", "input_output": {"fn_name": "", "inputs": [[1]],
                                                                         "outputs": [1]}}]))
    with pytest.raises(TaskFormatError, match=r"field 'input_output\[0\]' is not a list"):
        load_stdio(_jsonl(tmp_path, [{"question": "q", "input_output": {"fn_name": "f", "inputs": ["1"],
                                                                         "outputs": [1]}}]))


def test_primeintellect_function_call_rows_read_as_rllm_reads_them(tmp_path, sandbox):
    datasets = pytest.importorskip("datasets")
    from coderl.tasks import load_tasks

    cases = [{"type": "function_call", "fn_name": "findNumber", "input": i, "output": o}
             for i, o in zip(FIND_NUMBER["inputs"], FIND_NUMBER["outputs"])]
    row = {"problem_id": "vfc_1", "prompt": "Find the n-th number with only odd digits.",
           "verification_info": json.dumps({"language": "python", "test_cases": cases}),
           "gold_standard_solution": f"```python\n{FIND_RIGHT}```"}
    path = tmp_path / "p.parquet"
    datasets.Dataset.from_list([row]).to_parquet(str(path))
    (task,) = load_tasks(f"hf:{path}:preset=primeintellect").tasks
    assert task.kind == "function" and task.task_id == "vfc_1" and task.reference_solution == FIND_RIGHT
    assert sandbox.run(task.build_request(task.reference_solution)).passed
    mixed = dict(row, verification_info=json.dumps({"test_cases": cases[:1] + [
        {"type": "stdin_stdout", "input": "1\n", "output": "1\n"}]}))
    datasets.Dataset.from_list([mixed]).to_parquet(str(path))
    with pytest.raises(TaskFormatError, match="mixes stdin_stdout and function_call tests"):
        load_tasks(f"hf:{path}:preset=primeintellect")


def test_verl_code_call_based_rows_read_json_lines(tmp_path, sandbox):
    datasets = pytest.importorskip("datasets")
    from coderl.tasks import load_tasks

    truth = json.dumps({"fn_name": "findNumber", "inputs": [json.dumps(a[0]) for a in FIND_NUMBER["inputs"]],
                        "outputs": [json.dumps(o) for o in FIND_NUMBER["outputs"]]})  # verl's prime_code layout
    row = {"data_source": "codewars", "prompt": [{"role": "user", "content": "Find the n-th odd-digit number."}],
           "ability": "code", "reward_model": {"style": "rule", "ground_truth": truth}, "extra_info": {"index": 3}}
    path = tmp_path / "v.parquet"
    datasets.Dataset.from_list([row]).to_parquet(str(path))
    (task,) = load_tasks(f"hf:{path}:preset=verl-code").tasks
    assert task.kind == "function" and task.metadata["compare"] == "verl-prime"
    assert task.tests[0].source == "findNumber(1)" and task.tests[0].expected == ["1"]
    assert sandbox.run(task.build_request(FIND_RIGHT)).passed
