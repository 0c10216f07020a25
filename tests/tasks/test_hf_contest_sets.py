"""The stdin/stdout contest sets read through `hf:` presets (issue 77; coderl.tasks.loaders.hf_contest_sets).

Fixtures, each from a published row (no download is possible here):
- nemotron-rl: tests/fixtures/tasks/nemotron_small.jsonl, two rows of NeMo Gym's code_gen example file
  (its README next to it says which, and what was cut);
- primeintellect: the example row that modelscope/ms-swift's "Code Training with GRPO" guide prints for
  open-r1/verifiable-coding-problems-python-10k (open-r1's copy of PrimeIntellect/verifiable-coding-problems:
  `problem`, `verification_info` as an object), transcribed below; and the same row in PrimeIntellect's own
  column form (`prompt`, `verification_info` as JSON text: open-r1's card says it only turned those into objects);
- open-r1-codeforces: no published row of open-r1/codeforces could be read here, so its row is built in the
  columns its card lists (id, title, description, input_format, output_format, note, examples, official_tests,
  official_tests_complete, input_mode, interaction_format, generated_checker, executable, time_limit, ...) from
  a published Codeforces problem: 1265B's statement and tests as NeMo Gym's example file gives them.
None of these rows carries a reference the loader reads (open-r1's copy prints none), so each runs a
hand-written correct program (it passes) and a wrong one (it fails).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

datasets = pytest.importorskip("datasets")

from coderl.tasks.loaders.hf_contest_sets import fenced_code  # noqa: E402
from coderl.tasks.rows import skipping_bad_rows  # noqa: E402
from coderl.tasks.spec import load_tasks  # noqa: E402
from coderl.tasks.types import TaskFormatError  # noqa: E402

NEMOTRON = [json.loads(line) for line in Path("tests/fixtures/tasks/nemotron_small.jsonl").read_text().splitlines()]

DIAGONAL = """q = int(input())
for _ in range(q):
    n, m, k = map(int, input().split())
    if max(n, m) > k:
        print(-1)
    elif n % 2 != m % 2:
        print(k - 1)
    elif n % 2 != k % 2:
        print(k - 2)
    else:
        print(k)
"""
BEAUTIFUL = """t = int(input())
for _ in range(t):
    n = int(input())
    pos = [0] * (n + 1)
    for i, v in enumerate(map(int, input().split())):
        pos[v] = i
    lo, hi, out = n, -1, []
    for m in range(1, n + 1):
        lo, hi = min(lo, pos[m]), max(hi, pos[m])
        out.append("1" if hi - lo + 1 == m else "0")
    print("".join(out))
"""
# Codeforces 1259D: words by first and last letter; reverse the lowest-numbered words of the larger of the
# 0...1 / 1...0 groups whose reversal is not in the set until the two differ by at most one.
REVERSALS = """t = int(input())
for _ in range(t):
    n = int(input())
    words = [input().strip() for _ in range(n)]
    have = set(words)
    kinds = {"01": [], "10": [], "00": [], "11": []}
    for i, w in enumerate(words, 1):
        kinds[w[0] + w[-1]].append(i)
    a, b = kinds["01"], kinds["10"]
    if not a and not b and kinds["00"] and kinds["11"]:
        print(-1)
        continue
    big = a if len(a) > len(b) else b
    need = abs(len(a) - len(b)) // 2
    picked = [i for i in big if words[i - 1][::-1] not in have][:need]
    if len(picked) < need:
        print(-1)
        continue
    print(len(picked))
    print("".join(f"{i} " for i in picked))
"""
WRONG = "import sys\nsys.stdin.read()\nprint(0)\n"

# ms-swift's "Code Training with GRPO" guide: its `dataset example` of open-r1/verifiable-coding-problems-python-10k
POLYCARP = (
    "Solve the following coding problem using the programming language python: Polycarp has $n$ different binary "
    "words. A word called binary if it contains only characters '0' and '1'. For example, these words are binary: "
    "\"0001\", \"11\", \"0\" and \"0011100\". Polycarp wants to offer his set of $n$ binary words to play a game "
    "\"words\". In this game, players name words and each next word (starting from the second) must start with the "
    "last character of the previous word. The first word can be any. For example, these sequence of words can be "
    "named during the game: \"0101\", \"1\", \"10\", \"00\", \"00001\". Word reversal is the operation of reversing "
    "the order of the characters. For example, the word \"0111\" after the reversal becomes \"1110\", the word "
    "\"11010\" after the reversal becomes \"01011\". Probably, Polycarp has such a set of words that there is no "
    "way to put them in the order correspondent to the game rules. In this situation, he wants to reverse some "
    "words from his set so that: the final set of $n$ words still contains different words (i.e. all words are "
    "unique); there is a way to put all words of the final set of words in the order so that the final sequence "
    "of $n$ words is consistent with the game rules. Polycarp wants to reverse minimal number of words. Please, "
    "help him. -----Input----- The first line of the input contains one integer $t$ ($1 \\le t \\le 10^4$) — the "
    "number of test cases in the input. Then $t$ test cases follow. The first line of a test case contains one "
    "integer $n$ ($1 \\le n \\le 2\\cdot10^5$) — the number of words in the Polycarp's set. Next $n$ lines "
    "contain these words. All of $n$ words aren't empty and contains only characters '0' and '1'. The sum of word "
    "lengths doesn't exceed $4\\cdot10^6$. All words are different. Guaranteed, that the sum of $n$ for all test "
    "cases in the input doesn't exceed $2\\cdot10^5$. Also, guaranteed that the sum of word lengths for all test "
    "cases in the input doesn't exceed $4\\cdot10^6$. -----Output----- Print answer for all of $t$ test cases in "
    "the order they appear. If there is no answer for the test case, print -1. Otherwise, the first line of the "
    "output should contain $k$ ($0 \\le k \\le n$) — the minimal number of words in the set which should be "
    "reversed. The second line of the output should contain $k$ distinct integers — the indexes of the words in "
    "the set which should be reversed. Words are numerated from $1$ to $n$ in the order they appear. If $k=0$ you "
    "can skip this line (or you can print an empty line). If there are many answers you can print any of them. "
    "-----Example----- Input 4 4 0001 1000 0011 0111 3 010 101 0 2 00000 00001 4 01 001 0001 00001 Output 1 3 -1 "
    "0 2 1 2 The input will be stdin and you should print your solution to stdout Now solve the problem and "
    "return the code.")
PRIME_TESTS = [{"input": "4\n4\n0001\n1000\n0011\n0111\n3\n010\n101\n0\n2\n00000\n00001\n4\n01\n001\n0001\n00001\n",
                "output": "1\n3 \n-1\n0\n\n2\n1 2 \n", "type": "stdin_stdout"}]
PRIME_OPEN_R1 = {"problem": POLYCARP, "verification_info": {"language": "python", "test_cases": PRIME_TESTS}}
PRIME_OWN = {"problem_id": "vfc_example", "prompt": POLYCARP,  # PrimeIntellect's columns; the id is ours
             "verification_info": json.dumps({"language": "python", "test_cases": PRIME_TESTS})}


def _codeforces_row(nemo: dict) -> dict:
    """open-r1/codeforces's columns, filled from Codeforces 1265B as NeMo Gym's row gives it."""
    text = nemo["responses_create_params"]["input"][0]["content"]
    statement = text[text.index("You are given a permutation"):]
    description, rest = statement.split("\n\n\n-----Input-----\n\n")
    input_format, rest = rest.split("\n\n\n-----Output-----\n\n")
    output_format, rest = rest.split("\n\n\n-----Example-----\n")
    note = rest.split("-----Note-----\n\n")[1]
    tests = nemo["verifier_metadata"]["unit_tests"]
    official = [{"input": i, "output": o} for i, o in zip(tests["inputs"], tests["outputs"])]
    return {"id": "1265/B", "aliases": None, "contest_id": "1265", "contest_name": "Codeforces Round 604 (Div. 2)",
            "contest_type": "CF", "contest_start": 1575038100, "contest_start_year": 2019, "index": "B",
            "time_limit": 1.0, "memory_limit": 256.0, "title": "Beautiful Numbers", "description": description,
            "input_format": input_format, "output_format": output_format, "interaction_format": None,
            "note": note, "examples": official[:1], "editorial": None, "rating": 1300, "tags": ["data structures"],
            "testset_size": 3, "official_tests": official, "official_tests_complete": True, "input_mode": "stdio",
            "generated_checker": None, "executable": True, "generated_tests": 0}


CODEFORCES = _codeforces_row(NEMOTRON[1])


def parquet(tmp_path, rows, name="data.parquet") -> str:
    path = tmp_path / name
    datasets.Dataset.from_list(rows).to_parquet(str(path))
    return str(path)


def _verdicts(sandbox, tasks, programs) -> list[bool]:
    return [sandbox.submit(t.build_request(p)).result().passed for t, p in zip(tasks, programs)]


def test_nemotron_rl_streams_its_rows_and_judges_a_correct_and_a_wrong_program(tmp_path, sandbox):
    tasks = load_tasks(f"hf:{parquet(tmp_path, NEMOTRON)}:preset=nemotron-rl").tasks
    assert [t.task_id for t in tasks] == [r["hash_id"] for r in NEMOTRON]
    assert [len(t.tests) for t in tasks] == [8, 3] and not any(c.hidden for t in tasks for c in t.tests)
    assert all(t.reference_solution is None and t.time_limit is None for t in tasks)  # --timeout only
    assert _verdicts(sandbox, tasks, [DIAGONAL, BEAUTIFUL]) == [True, True]
    assert _verdicts(sandbox, tasks, [WRONG, DIAGONAL]) == [False, False]
    jsonl = load_tasks("hf:tests/fixtures/tasks/nemotron_small.jsonl:preset=nemotron-rl").tasks
    assert [t.tests for t in jsonl] == [t.tests for t in tasks]  # the same rows as JSON lines


def test_nemotron_rl_refuses_a_row_of_another_layout(tmp_path):
    path = parquet(tmp_path, [{"question": "q", "input_output": json.dumps({"inputs": ["1"], "outputs": ["1"]})}])
    with pytest.raises(TaskFormatError, match=r"row 0: not a NeMo Gym row: fields 'responses_create_params' and "
                                              r"'verifier_metadata' expected \(the row has: input_output, question\)"):
        load_tasks(f"hf:{path}:preset=nemotron-rl")


@pytest.mark.parametrize("row", [PRIME_OPEN_R1, PRIME_OWN], ids=["open-r1 copy", "PrimeIntellect's columns"])
def test_primeintellect_reads_stdin_stdout_tests(tmp_path, sandbox, row):
    (task,) = load_tasks(f"hf:{parquet(tmp_path, [row])}:preset=primeintellect").tasks
    assert task.prompt == POLYCARP and task.reference_solution is None and task.language == "python"
    assert [(c.source, c.expected, c.hidden) for c in task.tests] == [
        (PRIME_TESTS[0]["input"], PRIME_TESTS[0]["output"], False)]
    assert task.task_id == ("vfc_example" if "problem_id" in row else "data/0")
    assert _verdicts(sandbox, [task, task], [REVERSALS, WRONG]) == [True, False]


def test_primeintellect_takes_the_gold_solution_out_of_its_fence(tmp_path, sandbox):
    gold = f"Some words first.\n\n```python\n{REVERSALS}```\n"
    (task,) = load_tasks(f"hf:{parquet(tmp_path, [{**PRIME_OWN, 'gold_standard_solution': gold}])}"
                         ":preset=primeintellect").tasks
    assert task.reference_solution == REVERSALS
    assert sandbox.submit(task.build_request(task.reference_solution)).result().passed
    assert fenced_code("```\nprint(1)\n```\n```py\nprint(2)\n```") == "print(2)\n"
    assert fenced_code("print(3)\n") == "print(3)\n"


def test_primeintellect_refuses_a_function_call_row_it_cannot_call_in_one_line_and_skipping_lists_it(tmp_path):
    call = {**PRIME_OWN, "problem_id": "vfc_call", "verification_info": json.dumps({"language": "python",
            "test_cases": [{"type": "function_call", "fn_name": "f", "input": "[1]", "output": "[2]"}]})}
    path = parquet(tmp_path, [PRIME_OWN, call])
    said = ("row 1: field 'verification_info.test_cases[0].input' is str: a function_call test's input is the list of "
            "arguments (rLLM calls fn(*input))")  # function_call rows: tests/tasks/test_call_based.py
    with pytest.raises(TaskFormatError, match=re.escape(said)):
        load_tasks(f"hf:{path}:preset=primeintellect")
    with skipping_bad_rows() as skipped:
        tasks = load_tasks(f"hf:{path}:preset=primeintellect").tasks
    assert [t.task_id for t in tasks] == ["vfc_example"] and len(skipped) == 1 and said in skipped[0]


def test_open_r1_codeforces_shows_its_examples_and_hides_its_official_tests(tmp_path, sandbox):
    (task,) = load_tasks(f"hf:{parquet(tmp_path, [CODEFORCES])}:preset=open-r1-codeforces").tasks
    assert task.task_id == "1265/B" and task.prompt.startswith("Beautiful Numbers\n\nYou are given a permutation")
    assert "Input\n\nThe first line contains" in task.prompt and "Example 1\n\nInput\n3\n6\n" in task.prompt
    assert [c.hidden for c in task.tests] == [False, True, True, True]
    assert task.time_limit is None  # the contest's 1 s is not coderl's limit
    assert _verdicts(sandbox, [task, task], [BEAUTIFUL, WRONG]) == [True, False]


@pytest.mark.parametrize("change, said", [
    ({"interaction_format": "Interact with the jury."}, "an interactive problem (field 'interaction_format' is set)"),
    ({"input_mode": "file"}, "field 'input_mode' is 'file': only stdio problems are read"),
    ({"generated_checker": "def check(): ..."}, "judged by a checker (field 'generated_checker' is set)"),
    ({"executable": False}, "field 'executable' is false"),
    ({"official_tests_complete": False}, "field 'official_tests_complete' is false"),
    ({"examples": [], "official_tests": []}, "field 'official_tests' is empty though 'official_tests_complete' is true"),
    ({"official_tests": []}, "field 'official_tests' is empty though 'official_tests_complete' is true (expected its "
                             "hidden tests: graded on its examples alone"),  # issue 102: the example alone passed
    ({"official_tests": None}, "field 'official_tests' missing (expected its hidden tests"),
    ({"official_tests_complete": None}, "field 'official_tests_complete' is null: whether its official tests are "
                                        "all there is unknown (expected true)"),
])
def test_open_r1_codeforces_refuses_what_comparing_stdout_cannot_judge(tmp_path, change, said):
    path = parquet(tmp_path, [CODEFORCES, {**CODEFORCES, "id": "1/A", **change}])
    with pytest.raises(TaskFormatError) as e:
        load_tasks(f"hf:{path}:preset=open-r1-codeforces")
    assert "data.parquet row 1:" in str(e.value) and said in str(e.value) and "\n" not in str(e.value)
    with skipping_bad_rows() as skipped:
        assert [t.task_id for t in load_tasks(f"hf:{path}:preset=open-r1-codeforces").tasks] == ["1265/B"]
    assert len(skipped) == 1 and said in skipped[0]


@pytest.mark.parametrize("column", ["official_tests", "official_tests_complete"])
def test_open_r1_codeforces_refuses_a_dataset_without_its_hidden_tests_columns(tmp_path, column):
    """issue 102: without official_tests every row was graded on its examples alone (a program printing the
    example's answer passed); one line naming the column and listing those the dataset has."""
    path = parquet(tmp_path, [{k: v for k, v in CODEFORCES.items() if k != column}])
    with pytest.raises(TaskFormatError) as e:
        load_tasks(f"hf:{path}:preset=open-r1-codeforces")
    said = str(e.value)
    assert f"no column '{column}' (named by preset open-r1-codeforces: its hidden tests; the dataset has: " in said
    assert "description, editorial, examples" in said and "\n" not in said
    with skipping_bad_rows():  # not a bad row: the whole dataset
        with pytest.raises(TaskFormatError, match=f"no column '{column}'"):
            load_tasks(f"hf:{path}:preset=open-r1-codeforces")


def test_a_parquet_batch_of_large_rows_holds_about_32_mb():
    """Nemotron's 330 KB rows come 99 to a batch, not 1,024 (338 MB held at once); small rows keep the 1,024."""
    from types import SimpleNamespace

    from coderl.tasks.loaders.hf import ParquetFiles

    def meta(rows_per_group: list[int], bytes_per_row: int):
        groups = [SimpleNamespace(total_byte_size=n * bytes_per_row, num_rows=n) for n in rows_per_group]
        return SimpleNamespace(num_row_groups=len(groups), row_group=groups.__getitem__, num_rows=sum(rows_per_group))

    assert ParquetFiles.rows_per_batch(meta([50] * 24, 330 * 1024), 1024) == 99
    assert ParquetFiles.rows_per_batch(meta([10_000], 200), 1024) == 1024
    assert ParquetFiles.rows_per_batch(meta([3], 64 << 20), 1024) == 1  # a row over the bound: one at a time
    assert ParquetFiles.rows_per_batch(meta([], 0), 1024) == 1024  # an empty file


# deepcoder: rLLM's own reward tests (rllm-org/rllm tests/rewards/test_code_reward.py, commit 552ca2e) give each of
# DeepCoder's test layouts with a program that passes it; the problem texts are ours (those tests leave them
# empty), the `tests` and `metadata` columns JSON text as rLLM's prepare_deepcoder_data.py reads them.
TRAVEL = """import sys
from itertools import permutations
def main():
    N, M, R = map(int, sys.stdin.readline().split())
    r = list(map(int, sys.stdin.readline().split()))
    INF = float('inf')
    dist = [[INF] * (N + 1) for _ in range(N + 1)]
    for i in range(1, N + 1):
        dist[i][i] = 0
    for _ in range(M):
        a, b, c = map(int, sys.stdin.readline().split())
        dist[a][b] = dist[b][a] = c
    for k in range(1, N + 1):
        for i in range(1, N + 1):
            for j in range(1, N + 1):
                if dist[i][k] != INF and dist[k][j] != INF:
                    dist[i][j] = min(dist[i][j], dist[i][k] + dist[k][j])
    print(min(sum(dist[p[i]][p[i + 1]] for i in range(R - 1)) for p in permutations(r)))
if __name__ == "__main__":
    main()
"""
BREAKS = """def main():
    n, m = map(int, input().split())
    a = sum(list(map(int, input().split())))
    if a + (n - 1) * 10 <= m:
        print((m - a) // 5)
    else:
        print(-1)
if __name__ == "__main__":
    main()
"""
DUPLICATES = "n = input()\nnumbers = input().strip().split()\nprint(len(set(x for x in numbers if numbers.count(x) > 1)) + 1)\n"
EMPLOYEES = ("class Solution:\n    def numberOfEmployeesWhoMetTarget(self, hours: List[int], target: int) -> int:\n"
             "        return sum(1 for h in hours if h >= target)\n")
DEEPCODER = [
    {"problem": "Visit the R towns in the best order; print the shortest road distance.", "tests": json.dumps(
        {"inputs": ["4 3 3\n1 2 3\n1 2 3\n2 3 2\n3 4 4\n",
                    "5 10 4\n1 2 3 4\n1 2 5\n1 3 5\n1 4 5\n1 5 5\n2 3 5\n2 4 5\n2 5 5\n3 4 5\n3 5 5\n4 5 5\n",
                    "7 21 4\n1 3 5 7\n1 2 4\n1 3 8\n1 4 1\n1 5 7\n1 6 3\n1 7 9\n2 3 5\n2 4 2\n2 5 6\n2 6 8\n2 7 4\n"
                    "3 4 7\n3 5 9\n3 6 1\n3 7 6\n4 5 3\n4 6 5\n4 7 8\n5 6 2\n5 7 4\n6 7 7\n"],
         "outputs": ["5\n", "15\n", "11\n"]}), "metadata": "{}", "starter_code": ""},
    {"problem": "n songs of a_i minutes, 10 minutes after each but the last, m minutes in all: the most 5-minute "
                "jokes, or -1.", "tests": json.dumps([
        {"input": "3 30\n2 2 1", "output": "5"}, {"input": "3 20\n2 1 1", "output": "-1"},
        {"input": "4 45\n5 5 5 5", "output": "-1"}, {"input": "5 100\n10 10 10 10 10", "output": "10"},
        {"input": "1 20\n5", "output": "3"}, {"input": "2 100\n1 1", "output": "19"},
        {"input": "3 35\n5 5 5", "output": "4"}]), "metadata": "{}", "starter_code": ""},
    {"problem": "Print the number of distinct repeated phone numbers plus one.", "tests": json.dumps(
        [{"input": "3\n12345 530391 12345\n", "output": "2\n", "testtype": "stdin"}]), "metadata": "{}",
     "starter_code": ""},
    {"problem": "Count the employees who worked at least target hours.", "tests": json.dumps(
        [{"input": "[5, 3, 10, 8, 2]\n5", "output": "3", "testtype": "functional",
          "metadata": {"func_name": "numberOfEmployeesWhoMetTarget"}}]), "metadata": "{}", "starter_code": ""},
]


def test_deepcoder_reads_each_subsets_tests_and_judges_a_correct_and_a_wrong_program(tmp_path, sandbox):
    tasks = load_tasks(f"hf:{parquet(tmp_path, DEEPCODER, 'deep.parquet')}:preset=deepcoder").tasks
    assert [t.task_id for t in tasks] == ["deep/0", "deep/1", "deep/2", "deep/3"]
    assert [(t.kind, len(t.tests)) for t in tasks] == [("stdio", 3), ("stdio", 7), ("stdio", 1), ("function", 1)]
    # rLLM judges TACO rows with its taco.py and LiveCodeBench rows with LiveCodeBench's own code; the Codeforces row
    # carries no subset name, so coderl's token rule (docs/data.md, "Comparison rules")
    assert [t.metadata.get("compare") for t in tasks] == ["rllm-taco", None, "livecodebench", "livecodebench"]
    assert (tasks[3].tests[0].source, tasks[3].tests[0].expected) == (
        "Solution().numberOfEmployeesWhoMetTarget([5, 3, 10, 8, 2], 5)", 3)
    assert not any(c.hidden for t in tasks for c in t.tests) and all(t.reference_solution is None for t in tasks)
    assert _verdicts(sandbox, tasks, [TRAVEL, BREAKS, DUPLICATES, EMPLOYEES]) == [True] * 4
    empty_fn = {**DEEPCODER[0], "tests": json.dumps({**json.loads(DEEPCODER[0]["tests"]), "fn_name": None})}
    (taco,) = load_tasks(f"hf:{parquet(tmp_path, [empty_fn], 'taco.parquet')}:preset=deepcoder").tasks
    assert taco.tests == tasks[0].tests  # an empty fn_name is a stdin problem's
    anagram = {**DEEPCODER[0], "tests": json.dumps({"fn_name": "is_anagram", "inputs": [["foefet", "toffee"]],
                                                     "outputs": [[True]]})}  # rLLM's call-based TACO test
    (call,) = load_tasks(f"hf:{parquet(tmp_path, [anagram], 'call.parquet')}:preset=deepcoder").tasks
    assert call.kind == "function" and call.tests[0].source == "is_anagram('foefet', 'toffee')"
    assert sandbox.submit(call.build_request("def is_anagram(a, b):\n    return sorted(a) == sorted(b)\n")).result().passed
    wrong = ("class Solution:\n    def numberOfEmployeesWhoMetTarget(self, hours, target):\n        return 0\n")
    assert _verdicts(sandbox, tasks, [WRONG, WRONG, WRONG, wrong]) == [False] * 4


@pytest.mark.parametrize("tests, said", [
    ({"fn_name": "is_anagram", "inputs": ["foefet"], "outputs": [[True]]},  # call-based: loaded when it can be called
     "field 'input_output[0]' is not a list"),
    ([{"input": "[1]", "output": "[2]", "type": "function_call", "fn_name": "f"}],
     "field 'tests[0].input' is str: a function_call test's input is the list of arguments"),
    ([{"input": "1", "output": "1", "testtype": "stdin"}, {"input": "[1]", "output": "1", "testtype": "functional"}],
     "field 'tests' mixes stdin, functional and function-call tests"),
    ([], "no tests in tests"),
])
def test_deepcoder_refuses_what_it_cannot_map_in_one_line(tmp_path, tests, said):
    path = parquet(tmp_path, [DEEPCODER[2], {**DEEPCODER[2], "tests": json.dumps(tests)}])
    with pytest.raises(TaskFormatError) as e:
        load_tasks(f"hf:{path}:preset=deepcoder")
    assert "data.parquet row 1:" in str(e.value) and said in str(e.value) and "\n" not in str(e.value)
    with skipping_bad_rows() as skipped:
        assert len(load_tasks(f"hf:{path}:preset=deepcoder").tasks) == 1
    assert len(skipped) == 1 and said in skipped[0]
