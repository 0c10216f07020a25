"""Loaders on small hand-written fixtures: HumanEval layout, MBPP, stdio; and their error messages."""

import ast
import gzip
import json
import shutil
from pathlib import Path

import pytest

from coderl.sandbox.types import CheckKind
from coderl.tasks import TaskFormatError
from coderl.tasks.loaders.humaneval import load_humaneval
from coderl.tasks.loaders.mbpp import docstring_header, find_entry_point, load_mbpp
from coderl.tasks.loaders.stdio import load_stdio
from coderl.tasks.rows import iter_jsonl, require

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "tasks"


def fx(name: str) -> str:
    return str(FIXTURES / name)


# ---------------------------------------------------------------- jsonl


def test_iter_jsonl_skips_blank_lines_and_keeps_line_numbers():
    assert [n for n, _ in iter_jsonl(fx("humaneval_small.jsonl"))] == [1, 3, 5]


def test_gzip_is_read_and_detected_by_content(tmp_path):
    gz = tmp_path / "tasks.data"  # no .gz suffix on purpose
    gz.write_bytes(gzip.compress((FIXTURES / "humaneval_small.jsonl").read_bytes()))
    assert [t.task_id for t in load_humaneval(gz)] == ["Toy/0", "Toy/1", "Toy/2"]


def test_bad_json_line_is_one_line_with_file_and_line():
    with pytest.raises(TaskFormatError) as e:
        list(iter_jsonl(fx("humaneval_bad_json.jsonl")))
    msg = str(e.value)
    assert msg == f"{fx('humaneval_bad_json.jsonl')}:2: invalid JSON (Expecting ',' delimiter)"
    assert "\n" not in msg


def test_non_object_line():
    with pytest.raises(
        TaskFormatError, match=r"not_object\.jsonl:2: expected a JSON object per line, got list"
    ):
        list(iter_jsonl(fx("not_object.jsonl")))


def test_missing_and_unreadable_files(tmp_path):
    with pytest.raises(TaskFormatError, match=r"nope\.jsonl: cannot read \(No such file or directory\)"):
        list(iter_jsonl(tmp_path / "nope.jsonl"))
    bad_gz = tmp_path / "bad.jsonl.gz"
    bad_gz.write_bytes(gzip.compress(b'{"a": 1}\n' * 100)[:-12])  # truncated stream
    with pytest.raises(TaskFormatError, match=r"bad\.jsonl\.gz.*cannot read"):
        list(iter_jsonl(bad_gz))
    latin = tmp_path / "latin.jsonl"
    latin.write_bytes(b'{"a": 1}\n{"a": "\xe9"}\n')
    with pytest.raises(TaskFormatError, match=r"latin\.jsonl:2: not UTF-8 text"):
        list(iter_jsonl(latin))


def test_require_messages():
    assert require({"x": "s"}, "x", str, "f.jsonl:3") == "s"
    with pytest.raises(TaskFormatError) as e:
        require({}, "entry_point", str, "f.jsonl:3")
    assert str(e.value) == "f.jsonl:3: field 'entry_point' missing (expected a string)"
    with pytest.raises(TaskFormatError) as e:
        require({"task_id": True}, "task_id", (int, str), "f.jsonl:4")
    assert str(e.value) == "f.jsonl:4: field 'task_id' is boolean (expected an integer or a string)"


# ---------------------------------------------------------------- HumanEval layout


def test_humaneval_fixture():
    tasks = load_humaneval(fx("humaneval_small.jsonl"))
    t0, t1, t2 = tasks
    assert t0.source == f"{fx('humaneval_small.jsonl')}:1" and t2.source.endswith(":5")
    assert t0.test_preamble == "METADATA = {'author': 'x'}\n"
    assert [(c.check, c.source, c.expected, c.setup) for c in t0.tests] == [
        (CheckKind.EQUALS, "candidate(1, 2)", 3, ""),
        (CheckKind.EQUALS, "candidate(-2, 1)", -1, ""),
        (CheckKind.EQUALS, "candidate(x, 1)", 6, "x = 5\n"),
    ]
    assert t0.build_program(t0.reference_solution) == t0.prompt + "    return a + b\n"
    assert [c.check for c in t1.tests] == [CheckKind.TRUTHY, CheckKind.FALSY, CheckKind.IS, CheckKind.ASSERT]
    assert [c.id for c in t2.tests] == ["check"] and t2.test_preamble == "import math\n"
    assert t2.tests[0].source.endswith("\ncheck(candidate)\n")


def test_humaneval_missing_field_names_file_line_and_field():
    with pytest.raises(TaskFormatError) as e:
        load_humaneval(fx("humaneval_missing_field.jsonl"))
    assert (
        str(e.value)
        == f"{fx('humaneval_missing_field.jsonl')}:3: field 'entry_point' missing (expected a string)"
    )


def test_humaneval_duplicate_id():
    with pytest.raises(TaskFormatError) as e:
        load_humaneval(fx("humaneval_duplicate.jsonl"))
    assert str(e.value) == f"{fx('humaneval_duplicate.jsonl')}:3: field 'task_id' 'Toy/0' duplicates line 1"


def test_humaneval_test_without_check(tmp_path):
    p = tmp_path / "he.jsonl"
    row = json.loads((FIXTURES / "humaneval_small.jsonl").read_text().splitlines()[0])
    p.write_text(json.dumps(dict(row, test="def test(candidate):\n    assert candidate(1)\n")) + "\n")
    with pytest.raises(TaskFormatError, match=r"he\.jsonl:1: field 'test' defines no check\(candidate\)"):
        load_humaneval(p)
    p.write_text(json.dumps(dict(row, test="def check(candidate):\n    assert (\n")) + "\n")
    with pytest.raises(TaskFormatError, match=r"he\.jsonl:1: field 'test' is not valid Python"):
        load_humaneval(p)


def test_empty_file(tmp_path):
    p = tmp_path / "empty.jsonl"
    p.write_text("\n\n")
    with pytest.raises(TaskFormatError, match=r"empty\.jsonl: no rows"):
        load_humaneval(p)


# ---------------------------------------------------------------- MBPP


def test_mbpp_fixture():
    t0, t1 = load_mbpp(fx("mbpp_small.jsonl"))
    assert t0.task_id == "mbpp/2" and t1.task_id == "Mbpp/3"
    assert t0.entry_point == "similar_elements"  # not `set`, the first call of the first assert
    assert t1.entry_point == "is_not_prime"
    module = ast.parse(t0.prompt)
    doc = ast.get_docstring(module, clean=False)
    assert 'say """hi""" and C:\\path\\ too.' in doc  # escaped in the source, intact in the docstring
    assert "similar_elements((3, 4, 5, 6),(5, 7, 4, 10))" in doc
    ast.parse(t0.build_program(t0.reference_solution))
    assert t0.reference_solution.endswith("set(b)) ")  # never stripped
    assert t0.test_preamble == "def frozen(x):\n    return (x,)\n"
    assert t1.test_preamble == "import math\n"
    assert [(c.check, c.source, c.expected, c.hidden) for c in t0.tests] == [
        (
            CheckKind.ASSERT,
            "assert set(similar_elements((3, 4, 5, 6),(5, 7, 4, 10))) == set((4, 5))\n",
            None,
            False,
        ),
        (CheckKind.EQUALS, "similar_elements((1, 2), (2, 3))", (2,), False),
        (CheckKind.ASSERT, "assert similar_elements((1,), (1,)) == frozen(1)\n", None, False),
        (CheckKind.EQUALS, "similar_elements((), ())", (), True),
    ]
    assert [c.id for c in t0.tests] == ["0", "1", "2", "3"]
    assert [(c.check, c.expected) for c in t1.tests] == [
        (CheckKind.EQUALS, False),
        (CheckKind.EQUALS, True),
        (CheckKind.FALSY, None),
    ]
    assert t0.metadata == {"format": "mbpp"}


@pytest.mark.parametrize(
    "text", ['"""', '""""', 'ends with a quote"', "back\\slash\\", '\\"""', "nul\x00byte", '"' * 7]
)
def test_docstring_header_is_safe(text):
    doc = ast.get_docstring(ast.parse(docstring_header(text, "assert f(1) == 2")), clean=False)
    assert doc == "\n" + text + "\nassert f(1) == 2\n"


def test_find_entry_point():
    assert find_entry_point("assert set(f(1)) == set(g(2))") == "f"
    assert find_entry_point("assert math.isclose(area(2), 4.0)") == "area"
    assert find_entry_point("assert sorted(h(1)) == [1]", code="def h(x):\n    return [x]\n") == "h"
    assert find_entry_point("assert len(list(range(3))) == 3") is None


def test_mbpp_bad_test_names_field():
    with pytest.raises(TaskFormatError) as e:
        load_mbpp(fx("mbpp_bad_test.jsonl"))
    assert str(e.value).startswith(f"{fx('mbpp_bad_test.jsonl')}:1: field 'test_list[0]' is not valid Python")


# ---------------------------------------------------------------- stdio


def test_apps_fixture():
    t0, t1 = load_stdio(fx("apps_small.jsonl"))
    assert (t0.task_id, t0.kind, t0.entry_point) == ("10", "stdio", None)
    assert t0.prompt == "Read a and b, print a+b."
    assert [(c.id, c.check, c.source, c.expected) for c in t0.tests] == [
        ("0", CheckKind.STDOUT, "1 2\n", "3\n"),
        ("1", CheckKind.STDOUT, "3 4\n", "7\n"),
    ]
    assert t0.reference_solution == "a, b = map(int, input().split())\nprint(a + b)\n"
    assert [(c.source, c.expected) for c in t1.tests] == [("x\ny", "x\ny")]  # lists of lines joined
    assert t1.reference_solution is None
    assert t0.build_program("print(1)") == "print(1)"


def test_nemotron_fixture(tmp_path):
    """Two rows of NeMo Gym's published example file (tests/fixtures/tasks/nemotron_small.md)."""
    t0, t1 = load_stdio(fx("nemotron_small.jsonl"))
    assert (t0.task_id, t1.task_id) == ("570676e22bd21c28e452486b0668ec74", "1a54a91d7294e33bed666e3bc94148fd")
    assert t0.prompt.startswith("You are a helpful and harmless assistant.") and "Mikhail walks" in t0.prompt
    assert [c.expected for c in t0.tests[:3]] == ["1\n6\n-1\n", "1\n6\n9\n", "1\n8\n9\n"] and len(t0.tests) == 8
    assert not any(c.hidden for c in t0.tests + t1.tests)  # NeMo Gym marks no test public: all are shown
    assert t0.float_tolerance is None and t0.metadata["layout"] == "nemotron" and t0.reference_solution is None
    row = {"responses_create_params": {"input": [{"role": "system", "content": "Be brief."},
                                                 {"role": "user", "content": "Print hello."}]},
           "verifier_metadata": {"unit_tests": {"inputs": [""], "outputs": ["hello\n"]}}}
    (tmp_path / "n.jsonl").write_text(json.dumps(row) + "\n")
    (task,) = load_stdio(tmp_path / "n.jsonl")
    assert task.task_id == "n/1" and task.prompt == "Print hello."  # no hash_id: the line; the user's message


def test_call_based_apps_is_a_function_task():  # judged: tests/tasks/test_call_based.py
    stdin, call = load_stdio(fx("apps_call_based.jsonl"))
    assert (stdin.kind, call.kind, call.entry_point, call.tests[0].source) == ("stdio", "function", "f", "f(1)")


def test_mismatched_and_empty_tests():
    with pytest.raises(TaskFormatError) as e:
        load_stdio(fx("stdio_mismatched.jsonl"))
    assert str(e.value) == (
        f"{fx('stdio_mismatched.jsonl')}:1: fields 'input_output.inputs' and 'input_output.outputs' "
        "differ in length (2 inputs, 1 outputs)"
    )
    with pytest.raises(TaskFormatError) as e:
        load_stdio(fx("stdio_empty_tests.jsonl"))
    assert str(e.value) == (
        f"{fx('stdio_empty_tests.jsonl')}:2: field 'verifier_metadata.unit_tests.inputs' is empty "
        "(expected at least one test)"
    )


def test_stdio_nested_missing_field_and_duplicate_id(tmp_path):
    p = tmp_path / "s.jsonl"
    p.write_text(json.dumps({"responses_create_params": {"input": [{"role": "user"}]}}) + "\n")
    with pytest.raises(
        TaskFormatError, match=r"s\.jsonl:1: field 'responses_create_params\.input\[0\]\.content' missing"
    ):
        load_stdio(p)
    shutil.copy(fx("apps_small.jsonl"), p)
    p.write_text(p.read_text() + (FIXTURES / "apps_small.jsonl").read_text().splitlines()[0] + "\n")
    with pytest.raises(TaskFormatError, match=r"s\.jsonl:3: field 'problem_id' '10' duplicates line 1"):
        load_stdio(p)
