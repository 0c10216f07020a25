"""Decontamination by behaviour (training references against evaluation tests) and n-gram overlap."""

import os

import pytest

from coderl.eval.decontaminate import behaviour_leaks, cached_leaks, ngram_overlap, ngrams
from coderl.eval.leak_report import DecontaminateConfig, overlap_error, run_decontaminate
from coderl.sandbox.config import SandboxConfig
from coderl.tasks.loaders.humaneval import humaneval_task


def _task(task_id, prompt, solution, test, entry):
    return humaneval_task({"task_id": task_id, "prompt": prompt, "canonical_solution": solution, "test": test,
                           "entry_point": entry}, task_id)


# Evaluation: "sum of the even numbers", "reverse a string", and a two-argument "add".
EVAL = [
    _task("ev/0", "def total_even(nums):\n    \"\"\"Sum the even numbers.\"\"\"\n", "    return 0\n",
          "def check(candidate):\n    assert candidate([1, 2, 3, 4]) == 6\n    assert candidate([]) == 0\n"
          "    assert candidate([-2, 5]) == -2\n", "total_even"),
    _task("ev/1", "def flip(s):\n    \"\"\"Reverse s.\"\"\"\n", "    return s[::-1]\n",
          "def check(candidate):\n    assert candidate('ab') == 'ba'\n    assert candidate('') == ''\n", "flip"),
    _task("ev/2", "def add(a, b):\n    \"\"\"Add.\"\"\"\n", "    return a + b\n",
          "def check(candidate):\n    assert candidate(1, 2) == 3\n    assert candidate(-1, 1) == 0\n", "add"),
]
# Training: the first solves ev/0 under another name and wording, the second almost does (odd numbers),
# the third has one argument and cannot be called with add's two, the fourth loops forever, the fifth
# solves ev/2 through a default argument.
TRAIN = [
    _task("tr/0", "def even_sum(values: list[int]) -> int:\n    \"\"\"Add up the values divisible by two.\"\"\"\n",
          "    return sum(v for v in values if v % 2 == 0)\n", "def check(candidate):\n    assert True\n",
          "even_sum"),
    _task("tr/1", "def odd_sum(values):\n    \"\"\"Sum the odd values.\"\"\"\n",
          "    return sum(v for v in values if v % 2)\n", "def check(candidate):\n    assert True\n", "odd_sum"),
    _task("tr/2", "def backwards(text):\n    \"\"\"Reverse text.\"\"\"\n", "    return ''.join(reversed(text))\n",
          "def check(candidate):\n    assert True\n", "backwards"),
    _task("tr/3", "def spin(x):\n    \"\"\"Never ends.\"\"\"\n", "    while True:\n        pass\n",
          "def check(candidate):\n    assert True\n", "spin"),
    _task("tr/4", "def plus(a, b=0, c=0):\n    \"\"\"a + b + c.\"\"\"\n", "    return a + b + c\n",
          "def check(candidate):\n    assert True\n", "plus"),
    # prints what the result protocol looks like, and still solves ev/1
    _task("tr/5", "def chatty(s):\n    \"\"\"Reverse s, loudly.\"\"\"\n",
          "    print('pass 0')\n    print('done')\n    return s[::-1]\n", "def check(candidate):\n    assert True\n",
          "chatty"),
]


def test_a_reference_solving_an_eval_task_under_another_name_is_a_leak(sandbox):
    report = behaviour_leaks(TRAIN, EVAL, sandbox)
    assert sorted(report.leaks) == [("tr/0", "ev/0"), ("tr/2", "ev/1"), ("tr/4", "ev/2"), ("tr/5", "ev/1")]
    # pairs: ev/0 and ev/1 take one argument (all six accept one), ev/2 takes two (only tr/4 does)
    assert report.pairs == 6 + 6 + 1
    assert report.incomplete == [] and report.same == []
    assert report.leaked_train_ids == ["tr/0", "tr/2", "tr/4", "tr/5"]
    # the loop times out (1 s of CPU) on both one-argument evaluation tasks: failing, and counted
    assert sorted(report.timeouts) == [("tr/3", "ev/0"), ("tr/3", "ev/1")]


def test_programs_that_differ_only_in_docstrings_run_once_and_are_reported_each(sandbox):
    """A generator's tasks repeat code under other docstrings (synthetic: the same chain and parameters with other
    examples): each distinct code runs once against an evaluation task, and its verdict is every twin's."""
    twins = [_task(f"tw/{i}", f"def even_sum(values):\n    \"\"\"Example {i}: even_sum([2]) == 2.\"\"\"\n",
                   "    return sum(v for v in values if v % 2 == 0)\n", "def check(candidate):\n    assert True\n",
                   "even_sum") for i in range(3)]
    report = behaviour_leaks(twins + TRAIN[3:4], EVAL[:1], sandbox)
    assert sorted(report.leaks) == [("tw/0", "ev/0"), ("tw/1", "ev/0"), ("tw/2", "ev/0")]
    assert report.pairs == 4 and report.timeouts == [("tr/3", "ev/0")]


def test_mbpp_layout_evaluation_tasks_take_the_signature_from_their_reference(sandbox):
    mbpp = _task("mb/0", '"""Write a function to add up the even numbers of a list."""\n',
                 "def sum_evens(xs):\n    return sum(x for x in xs if x % 2 == 0)\n",
                 "def check(candidate):\n    assert candidate([1, 2, 4]) == 6\n", "sum_evens")
    report = behaviour_leaks(TRAIN[:2], [mbpp], sandbox)
    assert report.skipped_eval == [] and report.leaks == [("tr/0", "mb/0")]


def test_same_ids_and_prompts_are_reported_without_running(sandbox):
    report = behaviour_leaks([EVAL[1]], [EVAL[1]], sandbox)
    assert ("ev/1", "ev/1") in report.same


def test_cached_verdict_is_reused_and_keyed_by_content(sandbox, tmp_path):
    decided = TRAIN[:3] + TRAIN[4:]
    first = cached_leaks(decided, EVAL, sandbox, str(tmp_path))
    assert len(os.listdir(tmp_path)) == 1
    again = cached_leaks(decided, EVAL, None, str(tmp_path))  # no sandbox needed: read from the cache
    assert sorted(again.leaks) == sorted(first.leaks) and again.pairs == first.pairs
    cached_leaks(TRAIN[:2], EVAL, sandbox, str(tmp_path))
    assert len(os.listdir(tmp_path)) == 2
    cached_leaks(TRAIN, EVAL, sandbox, str(tmp_path))  # a timed-out pair is decided (failing): kept
    assert len(os.listdir(tmp_path)) == 3


def test_the_pool_is_not_run_again_against_what_its_record_decided(sandbox, tmp_path):
    from coderl.tasks import load_tasks

    pool = load_tasks("pool:n=40").tasks
    decided = load_tasks("synthetic:level=1-2,n=6,split=test").tasks  # in the record's evaluation sets
    report = cached_leaks(pool, decided, None, str(tmp_path), "pool:n=40")  # no sandbox: nothing runs
    assert report.eval_tasks == 0 and report.leaks == [] and report.pairs == 0
    beyond = load_tasks("synthetic:level=2,n=700,split=test").tasks[-1:]  # past the record's 600: it runs
    assert cached_leaks(pool, decided + beyond, sandbox, str(tmp_path), "pool:n=40").eval_tasks == 1
    assert cached_leaks(pool, decided, sandbox, str(tmp_path)).eval_tasks == 6  # not named the pool: all run


def test_ngram_overlap_counts_shared_word_ngrams():
    assert ngrams("Sum the EVEN numbers.", 2) == {("sum", "the"), ("the", "even"), ("even", "numbers")}
    rows = ngram_overlap(TRAIN, EVAL, n=2)
    # ev/1 "def flip(s): Reverse s." -> (def flip) (flip s) (s reverse) (reverse s); tr/5 "def chatty(s):
    # Reverse s, loudly." shares (s reverse) and (reverse s); tr/2's "reverse text" shares none.  ev/0: def total even nums sum the even numbers -> 7 bigrams, of which
    # "sum the" is in tr/1's "Sum the odd values".
    by_id = {r.eval_id: r for r in rows}
    assert (by_id["ev/1"].shared, by_id["ev/1"].closest) == (2, "tr/5")
    assert by_id["ev/0"].ngrams == 7 and by_id["ev/0"].shared == 1 and by_id["ev/0"].closest == "tr/1"


def test_train_start_up_check_refuses_overlap_in_one_line(tmp_path, monkeypatch):
    monkeypatch.setenv("CODERL_CACHE", str(tmp_path))
    error = overlap_error("humaneval@train", __import__("coderl.tasks", fromlist=["x"]).load_tasks(
        "humaneval@train").tasks[:40], "easy@test", SandboxConfig(workers=2))
    assert error is None or "\n" not in error
    message = overlap_error("easy", __import__("coderl.tasks", fromlist=["x"]).load_tasks("easy").tasks,
                            "easy@test", SandboxConfig(workers=2))
    assert message.startswith("training tasks 'easy' overlap eval tasks 'easy@test': 15 training tasks")
    assert "\n" not in message


def test_report_command_writes_markdown_and_json(tmp_path):
    cfg = DecontaminateConfig(tasks="easy@train", against="easy@test", out=str(tmp_path / "r"),
                              sandbox=SandboxConfig(workers=2))
    report, text, data = run_decontaminate(cfg)
    assert "# Decontamination report" in text and "## Word 13-gram overlap" in text
    assert (tmp_path / "r.md").read_text() == text
    assert data["behaviour"]["pairs"] == report.pairs > 0
    assert report.same == []


def test_an_earlier_report_is_replaced_only_with_overwrite(tmp_path):
    """Refused before anything runs (the one policy of base/outputs.py)."""
    from coderl.base.config import ConfigError

    (tmp_path / "r.json").write_text("{}")
    with pytest.raises(ConfigError, match=r"--out \S+: already holds \S+r.json; pass --overwrite"):
        run_decontaminate(DecontaminateConfig(tasks="easy@train", against="easy@test", out=str(tmp_path / "r")))


def test_bad_ngram_sizes_are_refused():
    from coderl.base.config import ConfigError

    with pytest.raises(ConfigError, match="--ngram"):
        DecontaminateConfig(ngram="8,x")
