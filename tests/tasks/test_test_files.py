"""The test-file task kind and the KodCode preset (issue 77): what a pytest file becomes at load (its tests, its
preamble, the names it takes from the solution), what is refused there in one line, and what the runner does in the
judge (fixtures, parametrised cases, raises, approx, classes, skips) on real sandbox runs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from coderl.sandbox.client import Sandbox
from coderl.tasks.loaders.kodcode import kodcode_row, load_kodcode, prompt_of
from coderl.tasks.loaders.task_rows import load_task_rows, task_row
from coderl.tasks.pytest_files import TestFileError, convert
from coderl.tasks.test_files import file_tests
from coderl.tasks.types import TaskFormatError

FIXTURE = Path("tests/fixtures/tasks/kodcode_small.jsonl")

FILE = '''import pytest
import solution
from solution import add, Box as B


@pytest.fixture
def base():
    return 10


@pytest.fixture
def path(base, tmp_path):
    p = tmp_path / "n.txt"
    p.write_text(str(base))
    yield p
    p.unlink()


@pytest.mark.parametrize("a", [1, 2])
@pytest.mark.parametrize("b, total", [(0, None), pytest.param(5, None, id="five")])
def test_grid(a, b, total):
    assert solution.add(a, b) == a + b


def test_raises_and_approx(base):
    with pytest.raises(ValueError, match="neg"):
        add(-1, base)
    info = pytest.raises(ValueError, add, base, -1)
    assert "neg" in str(info.value)
    assert add(0.1, 0.2) == pytest.approx(0.3)
    assert [add(0.1, 0.2), 1.0] == pytest.approx([0.3, 1.0])


def test_files(path):
    assert add(int(path.read_text()), 1) == 11


class TestBox:
    def setup_method(self, method):
        self.box = B(3)

    def test_value(self):
        assert self.box.value == 3
'''
MODULE = '''class Box:
    def __init__(self, value):
        self.value = value


def add(a, b):
    if a < 0 or b < 0:
        raise ValueError("negative")
    return a + b
'''


def test_parametrize_by_keyword_and_a_test_defined_twice():
    text = ("import pytest\n\n@pytest.mark.parametrize(argvalues=[1, 2], argnames='a')\ndef test_a(a):\n    pass\n\n"
            "def test_a():\n    pass\n\n@pytest.mark.parametrize(['x', 'y'], [(1, 2)])\ndef test_b(x, y):\n    pass\n"
            "\n\nclass TestC(object):\n    def test_c(self):\n        pass\n")
    assert [t[0] for t in convert(text).tests] == ["test_a", "test_b", "TestC::test_c"]  # the later test_a wins


def test_a_file_becomes_one_test_per_function_case_and_method():
    converted = convert(FILE)
    assert [t[0] for t in converted.tests] == ["test_grid[0]", "test_grid[1]", "test_grid[2]", "test_grid[3]",
                                               "test_raises_and_approx", "test_files", "TestBox::test_value"]
    assert converted.tests[2] == ("test_grid[2]", "test_grid", 2, 4)
    assert converted.names == ("add", "Box")
    assert "from solution" not in converted.preamble and "import solution" not in converted.preamble
    assert "solution.add" not in converted.preamble and "B = Box" in converted.preamble
    assert "class TestBox" in converted.preamble and "\nclass TestBox" not in converted.preamble  # never top-level
    assert file_tests(FILE)[0].source == "__coderl_pytest__.run('test_grid', 0, 4)"


@pytest.mark.parametrize("text, message", [
    ("def test_a(:\n", "not valid Python (line 1"),
    ("x = 1\n", "no test functions"),
    ("def test_a(monkeypatch):\n    pass\n", "fixture 'monkeypatch' (not supported)"),
    ("def test_a(capsys):\n    pass\n", "fixture 'capsys' (not supported)"),
    ("def test_a(db):\n    pass\n", "fixture 'db' (not a fixture of this file)"),
    ("import pytest\n@pytest.fixture\ndef f(monkeypatch):\n    return 1\ndef test_a(f):\n    pass\n",
     "fixture 'f' asks for fixture 'monkeypatch'"),
    ("from unittest.mock import patch\ndef test_a():\n    pass\n", "mock cannot reach the program's process"),
    ("from unittest import mock\ndef test_a():\n    pass\n", "mock cannot reach the program's process"),
    ("import solution\ndef test_a():\n    assert solution\n", "the module object 'solution' is used other than"),
    ("import pytest\n@pytest.mark.skip\ndef test_a():\n    pass\n", "pytest.mark.skip is not supported"),
    ("import pytest\n@pytest.mark.xfail(reason='x')\ndef test_a():\n    pass\n", "pytest.mark.xfail is not supported"),
    ("import pytest\ndef test_a():\n    pytest.skip('later')\n", "test test_a skips unconditionally"),
    ("import pytest\nC = [1]\n@pytest.mark.parametrize('a', C)\ndef test_a(a):\n    pass\n", "not a literal list"),
    ("import pytest\n@pytest.mark.parametrize('a', [pytest.param(1, marks=pytest.mark.slow)])\ndef test_a(a):\n"
     "    pass\n", "pytest.param with marks="),
    ("import pytest\ndef test_a():\n    with pytest.warns(UserWarning):\n        pass\n",
     "pytest.warns is not supported"),
    ("import unittest\nclass TestA(unittest.TestCase):\n    def test_a(self):\n        pass\n", "unittest.TestCase"),
    ("import pytest\n@pytest.fixture(scope='module')\ndef f():\n    return 1\ndef test_a(f):\n    pass\n",
     "scope other than 'function'"),
    ("async def test_a():\n    pass\n", "coroutine or generator"),
    ("import pytest\n@pytest.mark.parametrize('a', [1])\nclass TestA:\n    def test_a(self, a):\n        pass\n",
     "test class TestA is decorated"),
    ("def setup_module():\n    pass\ndef test_a():\n    pass\n", "setup_module is not supported"),
    ("import pytest\n@pytest.mark.parametrize('a')\ndef test_a(a):\n    pass\n",
     "without its argument names and values"),
    ("import pytest\n@pytest.mark.parametrize(5, [1])\ndef test_a(a):\n    pass\n", "argument names 5 (expected"),
    ("def test_a():\n    x = " + "-" * 200_000 + "1\n", "nested too deeply to read"),
    ("from .solution import add\ndef test_a():\n    pass\n", "'from .solution import ...' (not supported)"),
    ("import io, contextlib\ndef test_a():\n    with contextlib.redirect_stdout(io.StringIO()):\n        add(1, 2)\n",
     "the test captures standard output or error"),
    ("import io, sys\ndef test_a():\n    sys.stdout = io.StringIO()\n", "the test sets sys.stdout"),
    # issue 77: where the judge imports from (a program's files would run in the judge)
    ("import sys\nsys.path.insert(0, '.')\ndef test_a():\n    pass\n", "sys.path.insert is not supported"),
    ("import sys as s\ndef test_a():\n    s.path.append('.')\n", "sys.path.append is not supported"),
    ("from sys import path\ndef test_a():\n    pass\n", "'from sys import path'"),
    ("import os\ndef test_a():\n    os.sys.meta_path.clear()\n", ".meta_path is not supported"),
    ("import sys\ndef test_a():\n    getattr(sys, 'pa' + 'th')\n", "getattr(sys, ...) is not supported"),
    ("import sys\ndef test_a():\n    use(sys)\n", "the sys module object is not supported"),
    ("import site\ndef test_a():\n    site.addsitedir('.')\n", "'import site'"),
    ("from importlib import import_module\ndef test_a():\n    pass\n", "'from importlib import import_module'"),
    ("def test_a():\n    __import__('colorsys')\n", "__import__ is not supported"),
    ("def test_a():\n    exec('import sys')\n", "exec is not supported"),
    ("import runpy\ndef test_a():\n    pass\n", "'import runpy'"),
    ("import os\ndef test_a():\n    os.environ['PYTHONPATH'] = '.'\n", "the test sets os.environ"),
    ("from os import environ as e\ndef test_a():\n    e.update(PYTHONPATH='.')\n", "os.environ used other than read"),
    # solution.X other than called: a snapshot, never the module's live attribute
    ("import solution\ndef test_a():\n    solution.inc()\n    assert solution.counter == 1\n",
     "solution.counter used other than as the callee of a call"),
    ("import solution as s\ndef test_a():\n    s.FACTOR = 3\n    assert s.scale(2) == 6\n",
     "s.FACTOR used other than as the callee"),
    # tests pytest would not collect
    ("import sys\ndef test_a():\n    pass\nif sys.version_info >= (3, 0):\n    def test_real():\n        pass\n",
     "test test_real is defined inside a compound statement"),
    ("try:\n    import numpy\nexcept ImportError:\n    pass\nelse:\n    class TestN:\n        def test_a(self):\n"
     "            pass\ndef test_b():\n    pass\n", "test TestN is defined inside a compound statement"),
    ("class TestA:\n    if True:\n        def test_a(self):\n            pass\n", "test test_a is defined inside"),
    # captures, by any alias
    ("from contextlib import redirect_stdout as capture\nimport io\ndef test_a():\n    with capture(io.StringIO()):"
     "\n        pass\n", "contextlib.redirect_stdout (the test captures"),
    ("import warnings as w\ndef test_a():\n    with w.catch_warnings(record=True) as got:\n        pass\n",
     "warnings.catch_warnings(record=True)"),
    # state set in the judge for the program, which never reaches it
    ("import os\ndef test_a(tmp_path):\n    os.chdir(tmp_path)\n", "os.chdir (changes the judge's working"),
    ("from os import putenv\ndef test_a():\n    pass\n", "'from os import putenv'"),
    ("import random\ndef test_a():\n    random.seed(1)\n", "random.seed (seeds the judge's random"),
    ("import numpy as np\ndef test_a():\n    np.random.seed(1)\n", "numpy.random.seed"),
    ("import io, sys\ndef test_a():\n    setattr(sys, 'stdin', io.StringIO('x'))\n", "setattr(sys, ...)"),
    ("import sys, io\ndef test_a():\n    sys.stdin = io.StringIO('x')\n", "the test sets sys.stdin"),
    ("import builtins\ndef test_a():\n    builtins.input = lambda: 'x'\n", "the test sets builtins.input"),
    ("input = lambda *a: 'x'\ndef test_a():\n    pass\n", "the file binds input"),
    ("import unittest\ndef test_a():\n    with unittest.mock.patch('builtins.input'):\n        pass\n",
     "unittest.mock.patch (mock cannot reach"),
    # the same through a module's dictionary, getattr, another module's import of sys or importlib, a frame
    ("import os\ndef test_a():\n    os.__dict__['sys'].path.insert(0, '.')\n", ".__dict__ is not supported"),
    ("import os\ndef test_a():\n    getattr(os, 's' + 'ys')\n", "getattr(os, ...) is not supported"),
    ("import inspect\ndef test_a():\n    inspect.importlib.import_module('x')\n", ".importlib is not supported"),
    ("import inspect\ndef test_a():\n    inspect.currentframe().f_globals['add'] = 1\n", ".f_globals is not"),
    ("import sys\ndef test_a():\n    sys.modules['colorsys'] = None\n", "sys.modules is not supported"),
    # a process run from the judge
    ("import subprocess\ndef test_a():\n    subprocess.run(['python', 'x.py'])\n", "'import subprocess'"),
    ("import os\ndef test_a():\n    os.system('python x.py')\n", "os.system (a test may not run processes"),
])
def test_what_the_runner_cannot_run_is_refused_at_load_in_one_line(text, message):
    with pytest.raises(TestFileError) as info:
        convert(text)
    assert message in str(info.value) and "\n" not in str(info.value)


def _task(test_file: str, reference: str, **extra):
    row = kodcode_row({"question_id": "T/0", "question": "Write add.", "solution": reference, "test": test_file,
                       **extra}, "row 0")
    from coderl.tasks.loaders.task_rows import task_builder
    from coderl.tasks.rows import Rows

    rows = Rows("mem", [(0, row)], "row")
    return rows.collect(task_builder(rows))[0]


@pytest.fixture(scope="module")
def sandbox():
    with Sandbox(workers=2) as sb:
        yield sb


def test_the_runner_in_the_judge_passes_a_correct_module_test_by_test(sandbox):
    task = _task(FILE, MODULE)
    good = sandbox.run(task.build_request(MODULE))
    assert good.passed and good.tamper == [], good.message
    assert [t.id for t in good.tests] == [t.id for t in task.tests]
    wrong = sandbox.run(task.build_request(MODULE.replace("return a + b", "return a + b + (a == 2)")))
    failed = [t.id for t in wrong.tests if not t.passed]
    assert failed == ["test_grid[2]", "test_grid[3]"], wrong.tests  # a = 2 only: per-test outcomes


@pytest.mark.parametrize("test_file, why", [
    ("import pytest\nfrom solution import add\n\ndef test_a():\n    if add(1, 1) == 2:\n        pytest.skip('x')\n",
     "skipped itself at run time"),
    ("import pytest\n\ndef test_a():\n    pytest.importorskip('no_such_module_anywhere')\n    assert add(1, 1) == 2\n",
     "skipped itself at run time"),
    ("import pytest\n\ndef test_a():\n    with pytest.raises(ValueError):\n        add(1, 1)\n", "DID NOT RAISE"),
    ("import pytest\n\ndef test_a():\n    pytest.fail('because')\n", "because"),
    ("import pytest\n\n@pytest.fixture\ndef f():\n    yield 1\n    raise RuntimeError('teardown')\n\n"
     "def test_a(f):\n    assert add(f, 1) == 2\n", "teardown"),
])
def test_skips_failed_raises_and_teardown_errors_fail_the_test(sandbox, test_file, why):
    task = _task(test_file, MODULE)
    result = sandbox.run(task.build_request(MODULE))
    assert not result.passed and why in result.tests[0].message, result.tests


def test_approx_is_pytests_on_numbers_lists_and_dicts(sandbox):
    test_file = ("import pytest\n\ndef test_a():\n    assert 1.0 + 1e-7 == pytest.approx(1.0)\n"
                 "    assert 1.0 + 1e-5 != pytest.approx(1.0)\n    assert 1.1 == pytest.approx(1.0, abs=0.2)\n"
                 "    assert {'a': 0.3} == pytest.approx({'a': add(0.1, 0.2)})\n"
                 "    assert [0.3] != pytest.approx([0.3, 0.3])\n"
                 "    assert float('inf') == pytest.approx(float('inf'))\n"
                 "    assert float('nan') != pytest.approx(float('nan'))\n")
    result = sandbox.run(_task(test_file, MODULE).build_request(MODULE))
    assert result.passed, result.tests


def test_kodcode_fixture_references_pass_and_wrong_modules_fail(sandbox):
    tasks = load_kodcode(str(FIXTURE))
    assert [t.task_id for t in tasks] == ["Algorithm_00000004_I", "Algorithm_00000052_I", "Leetcode_00000021_I",
                                          "Prefill_00000044_I"]
    assert {t.kind for t in tasks} == {"test_file"}
    assert tasks[0].prompt.endswith("Note that the function declaration is def optimized_integer_square_root(num):")
    assert tasks[0].metadata["functions"] == ["optimized_integer_square_root"]
    results = sandbox.run_many([t.build_request(t.reference_solution) for t in tasks])
    assert all(r.passed and r.tamper == [] for r in results), [(r.status, r.message) for r in results]
    wrong = {"Algorithm_00000004_I": "def optimized_integer_square_root(num):\n    return int(abs(num) ** 0.5)\n",
             "Algorithm_00000052_I": "def find_next_power_of_two(n):\n    return n * 2\n",
             "Leetcode_00000021_I": tasks[2].reference_solution.replace("[k-1]", "[k]"),
             "Prefill_00000044_I": "def binomial_coefficient(n, k):\n    return n * k\n"}
    results = sandbox.run_many([t.build_request(wrong[t.task_id]) for t in tasks])
    assert not any(r.passed for r in results), [(r.status, r.message) for r in results]


def test_the_preset_reads_both_column_names_and_refuses_bad_rows_in_one_line():
    row = json.loads(FIXTURE.read_text().splitlines()[0])
    renamed = {("test_code" if k == "test" else k): v for k, v in row.items()}
    assert kodcode_row(renamed, "r")["tests"] == kodcode_row(row, "r")["tests"]
    for change, message in [({"test": None}, "r: field 'test' is null (expected a string)"),
                            ({"test": "def test_a(:\n"}, "r: field 'test': not valid Python (line 1"),
                            ({"test": "def test_a(monkeypatch):\n    pass\n"}, "fixture 'monkeypatch' (not supported)"),
                            ({"test_info": "f"}, "r: field 'test_info' is not a list"),
                            ({"test": "def optimized_integer_square_root(n):\n    return 0\n\ndef test_a():\n"
                                      "    assert optimized_integer_square_root(4) == 0\n"},
                             "r: field 'test' defines optimized_integer_square_root itself (its tests would never "
                             "call the program's"),
                            ({"test_info": None, "test": "def optimized_integer_square_root(n):\n    return 0\n\n"
                              "def test_a():\n    assert optimized_integer_square_root(4) == 0\n"},
                             "defines optimized_integer_square_root itself")]:
        with pytest.raises(TaskFormatError, match=None) as info:
            kodcode_row({**row, **change}, "r")
        assert message in str(info.value) and "\n" not in str(info.value)
    missing = {k: v for k, v in row.items() if k != "test"}
    with pytest.raises(TaskFormatError, match="field 'test' missing"):
        kodcode_row(missing, "r")


def test_the_prompt_gives_the_declarations():
    assert prompt_of(" Q ", []) == "Q"
    assert prompt_of("Q", [{"name": "f", "declaration": "def f(a):"}]) == \
        "Q\n\nNote that the function declaration is def f(a):"
    assert prompt_of("Q", [{"name": "f", "declaration": "def f():"}, {"name": "g", "declaration": "def g():"}]) == \
        "Q\n\nNote that the function declarations are:\ndef f():\ndef g():"


def test_a_test_file_task_round_trips_through_coderls_own_layout(tmp_path):
    tasks = load_kodcode(str(FIXTURE))
    path = tmp_path / "out.jsonl"
    path.write_text("".join(json.dumps(task_row(t)) + "\n" for t in tasks))
    back = load_task_rows(path)
    assert [(t.task_id, t.kind, t.prompt, t.test_preamble, t.tests, t.reference_solution) for t in back] == \
        [(t.task_id, t.kind, t.prompt, t.test_preamble, t.tests, t.reference_solution) for t in tasks]
    assert back[0].build_request("x").test_preamble == tasks[0].build_request("x").test_preamble


def test_the_kodcode_preset_reads_parquet_as_the_hub_serves_it(tmp_path, sandbox):
    pq = pytest.importorskip("pyarrow.parquet")
    pa = pytest.importorskip("pyarrow")
    from coderl.tasks.spec import load_tasks

    rows = [json.loads(line) for line in FIXTURE.read_text().splitlines()]
    pq.write_table(pa.Table.from_pylist(rows), tmp_path / "train.parquet")  # test_info: list<struct>, one null
    tasks = load_tasks(f"hf:{tmp_path / 'train.parquet'}:preset=kodcode").tasks
    assert [t.task_id for t in tasks] == [r["question_id"] for r in rows]
    def fields(t):
        return t.task_id, t.kind, t.prompt, t.tests, t.test_preamble, t.reference_solution, t.metadata

    assert [fields(t) for t in tasks] == [fields(t) for t in load_kodcode(str(FIXTURE))]
    results = sandbox.run_many([t.build_request(t.reference_solution) for t in tasks])
    assert all(r.passed for r in results), [(r.status, r.message) for r in results]


def test_repair_feedback_shows_the_tests_function_not_the_runners_call():
    from coderl.rollout.feedback import show_test
    from coderl.tasks.test_files import test_source

    assert test_source(FILE, "test_grid[2]").splitlines()[-2:] == ["    assert solution.add(a, b) == a + b", "# case 2"]
    assert test_source(FILE, "TestBox::test_value") == "def test_value(self):\n    assert self.box.value == 3"
    assert test_source(FILE, "test_gone") == "test_gone" and test_source("def (", "test_a") == "test_a"
    task = _task(FILE, MODULE)
    assert show_test(task, task.tests[-1]) == ">>> def test_value(self):\n...     assert self.box.value == 3"


def test_the_chat_prompt_asks_for_a_module_named_solution():
    from coderl.rollout.formats import assemble, user_message

    task = load_kodcode(str(FIXTURE))[3]
    message = user_message(task)
    assert "complete Python module" in message and "`solution`" in message and message.endswith(
        "Note that the function declaration is def binomial_coefficient(n, k):")
    assert assemble(task, "    def binomial_coefficient(n, k):\n        return 1\n") == \
        "def binomial_coefficient(n, k):\n    return 1\n"


def test_the_corpus_search_for_the_test_file_finds_what_the_program_is_given(sandbox):
    """The positive control of the corpus's T.read_test_file case that searches what the judge sent: the same module
    finds the marker once a test hands it to the program, so its failing there means the text never reached it."""
    from tests.sandbox.corpus import test_files as corpus

    given = corpus.MIRROR_TESTS.replace("Box(note[:3])", "Box(note)")
    assert given != corpus.MIRROR_TESTS
    hidden = sandbox.run(_task(corpus.MIRROR_TESTS, corpus.LEAK_REFERENCE).build_request(corpus.SEARCH_SENT))
    shown = sandbox.run(_task(given, corpus.LEAK_REFERENCE).build_request(corpus.SEARCH_SENT))
    assert not hidden.passed and shown.passed, (hidden.tests, shown.tests)


@pytest.mark.parametrize("change, name", [
    ({"solution": "class Stack:\n    pass\n", "test": "from solution import *\n\nclass Stack:\n    pass\n\n"
      "def test_a():\n    assert Stack()\n"}, "Stack"),  # a class, every definition of the reference pasted in
    ({"test_info": [{"function_name": "count_even"}, {"function_name": "is_even"}],
      "test": "from solution import *\n\ndef is_even(n):\n    return n % 2 == 0\n\ndef test_a():\n    assert is_even(2)\n"},
     "is_even"),  # test_info's second name
    ({"test": "from solution import *\nif True:\n    def add(a, b):\n        return a + b\n\ndef test_a():\n"
      "    assert add(1, 2) == 3\n", "test_info": [{"function_name": "add"}]}, "add"),  # under an `if`
    ({"test": "try:\n    from solution import add\nexcept ImportError:\n    def add(a, b):\n        return a + b\n\n"
      "def test_a():\n    assert add(1, 2) == 3\n"}, "add"),  # a fallback definition of an imported name
    ({"test": "from solution import add as plus\n\nplus = lambda a, b: a + b\n\ndef test_a():\n"
      "    assert plus(1, 2) == 3\n"}, "plus"),  # a rebinding of the name the import binds
    ({"test": "from solution import add\n\ndef setup():\n    global add\n    add = lambda a, b: a + b\n\n"
      "def test_a():\n    assert add(1, 2) == 3\n"}, "add"),  # a function's `global`
    ({"test": "from solution import add\nif (add := lambda a, b: a + b):\n    pass\n\ndef test_a():\n"
      "    assert add(1, 2) == 3\n"}, "add"),  # an assignment expression at the module level
    ({"test": "import solution\n\nclass Box:\n    pass\n\ndef test_a():\n    assert solution.Box()\n"}, "Box"),
])
def test_a_file_that_defines_a_name_the_solution_provides_is_refused_in_any_layout(tmp_path, change, name):
    row = {"question_id": "T/0", "question": "Q", "solution": MODULE, "test": "def test_a():\n    pass\n", **change}
    with pytest.raises(TaskFormatError, match=f"defines {name} itself") as info:
        kodcode_row(row, "r")
    assert "\n" not in str(info.value)
    own = {**kodcode_row({**row, "test": "def test_a():\n    pass\n"}, "r"), "test_preamble": change["test"]}
    own["tests"] = [{"id": t.id, "source": t.source, "check": "assert"} for t in file_tests(change["test"])]
    path = tmp_path / "own.jsonl"
    path.write_text(json.dumps(own) + "\n")
    with pytest.raises(TaskFormatError, match=f"defines {name} itself"):  # coderl's own layout: the same refusal
        load_task_rows(path)


def test_a_helper_class_both_define_stays_the_tests_own():
    test = ("from solution import *\n\nclass TreeNode:\n    def __init__(self, v):\n        self.v = v\n\n"
            "def test_a():\n    assert depth(TreeNode(1)) == 1\n")
    reference = "class TreeNode:\n    def __init__(self, v):\n        self.v = v\n\ndef depth(root):\n    return 1\n"
    row = kodcode_row({"question_id": "T/0", "question": "Q", "solution": reference, "test": test,
                       "test_info": [{"function_name": "depth"}]}, "r")
    assert row["tests"][0]["id"] == "test_a"


def test_coderls_own_rows_must_list_the_tests_their_file_gives(tmp_path):
    row = kodcode_row({"question_id": "T/0", "question": "Q", "solution": MODULE, "test": FILE}, "r")
    path = tmp_path / "own.jsonl"
    path.write_text(json.dumps(row) + "\n")
    assert [t.id for t in load_task_rows(path)[0].tests] == [t["id"] for t in row["tests"]]
    for tests in (row["tests"][:1], row["tests"] + [{"id": "extra", "source": "assert True", "check": "assert"}]):
        path.write_text(json.dumps({**row, "tests": tests}) + "\n")
        with pytest.raises(TaskFormatError, match="field 'tests' is not what the test file gives") as info:
            load_task_rows(path)
        assert "\n" not in str(info.value)


def test_common_pytest_spellings_run(sandbox):
    """`import pytest as pt`, setup_method/teardown_method without the method argument, `@pytest.fixture(name=)`,
    parametrize with a list of one name (each case a 1-tuple, as pytest)."""
    test_file = ("import pytest as pt\nfrom solution import add, Box\n\n@pt.fixture(name='base')\ndef make_base():\n"
                 "    return 10\n\n@pt.mark.parametrize(['n'], [(1,), (2,)])\ndef test_a(n, base):\n"
                 "    assert add(n, base) == n + 10\n    with pt.raises(ValueError):\n        add(-1, 1)\n\n"
                 "class TestBox:\n    def setup_method(self):\n        self.box = Box(3)\n\n"
                 "    def teardown_method(self):\n        self.box = None\n\n    def test_value(self):\n"
                 "        assert self.box.value == 3\n")
    task = _task(test_file, MODULE)
    assert [t.id for t in task.tests] == ["test_a[0]", "test_a[1]", "TestBox::test_value"]
    result = sandbox.run(task.build_request(MODULE))
    assert result.passed, result.tests
