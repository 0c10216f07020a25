"""Math tasks: the generated set (answers, splits, held-out templates), the GSM8K loader, the specs."""

from __future__ import annotations

import gzip
import json
import re
from fractions import Fraction

import pytest

from coderl.eval.check import CheckConfig, run_check
from coderl.sandbox.answers import judge_answer, parse_number
from coderl.tasks import load_tasks
from coderl.tasks.generators.math_gen import (
    SIZES,
    TEST_TEMPLATES,
    TRAIN_TEMPLATES,
    MathConfig,
    generate_math,
    number,
    problem_key,
)
from coderl.tasks.math_tasks import canonical_answer, load_gsm8k, math_task
from coderl.tasks.spec import detect_format, parse_task_spec
from coderl.tasks.types import TaskFormatError


@pytest.fixture(scope="module")
def all_math():
    return load_tasks("math").tasks


def test_sizes_ids_and_kind(all_math):
    by_split = {s: [t for t in all_math if t.metadata["split"] == s] for s in SIZES}
    assert {s: len(v) for s, v in by_split.items()} == SIZES
    assert len({t.task_id for t in all_math}) == len(all_math)
    assert all(t.kind == "math" and t.language == "math" and len(t.tests) == 1 for t in all_math)


def test_every_reference_states_its_answer_and_passes(all_math):
    for task in all_math:
        assert task.reference_solution.endswith(f"#### {task.metadata['answer']}")
        assert judge_answer(task.build_request(task.reference_solution)).passed, task.task_id


def exact(expression: str) -> Fraction:
    """An arithmetic expression of the worked steps, evaluated in exact fractions."""
    return eval(re.sub(r"\d+(?:\.\d+)?", lambda m: f"Fraction('{m.group()}')", expression))


def test_every_worked_step_is_right_and_the_last_one_is_the_answer(all_math):
    """Each `... <arithmetic> = <number> ...` in a worked solution holds, and its last result is the answer."""
    for task in all_math:
        results = []
        for line in task.metadata["worked"].splitlines():
            left, right = line.split(" = ", 1)
            expression = re.search(r"[\d.+\-*/() ]+$", left).group().strip()
            result = re.match(r"-?[\d./]+", right).group().rstrip(".")
            assert exact(expression) == parse_number(result), (task.task_id, line)
            results.append(result)
        assert parse_number(results[-1]) == parse_number(task.metadata["answer"]), task.task_id


def test_the_answers_include_decimals_fractions_and_negatives(all_math):
    answers = [t.metadata["answer"] for t in all_math]
    assert any("." in a for a in answers) and any("/" in a for a in answers) and any(a.startswith("-") for a in answers)


def test_test_templates_are_held_out(all_math):
    assert not set(TRAIN_TEMPLATES) & set(TEST_TEMPLATES)
    used = {s: {t.metadata["template"] for t in all_math if t.metadata["split"] == s} for s in SIZES}
    assert used["test"] == set(TEST_TEMPLATES)
    assert used["train"] == used["valid"] == set(TRAIN_TEMPLATES)


def test_no_valid_problem_is_a_train_problem_even_renamed_whatever_the_sizes_and_seeds():
    def keys(tasks):
        return {problem_key(t.metadata["template"], t.prompt) for t in tasks}

    train = keys([t for seed in (0, 1, 2, 3) for t in generate_math(MathConfig(n=1000, seed=seed), "train")])
    valid = keys([t for seed in (0, 1, 2) for t in generate_math(MathConfig(seed=seed), "valid")])
    assert not train & valid
    one_split = generate_math(MathConfig(), "train")
    assert len(keys(one_split)) == len(one_split)  # no problem twice within a split, even renamed


def test_generation_is_deterministic_and_seeded():
    a = [t.prompt for t in generate_math(MathConfig(n=20), "test")]
    assert a == [t.prompt for t in generate_math(MathConfig(n=20), "test")]
    assert a != [t.prompt for t in generate_math(MathConfig(n=20, seed=1), "test")]
    assert a == [t.prompt for t in generate_math(MathConfig(n=40), "test")][:20]  # a prefix of a larger draw


def test_number_formats_answers_as_written():
    assert [number(Fraction(x)) for x in ("12", "-3", "5/2", "3/8", "1/3")] == ["12", "-3", "2.5", "0.375", "1/3"]


def test_specs_and_their_errors():
    assert len(load_tasks("math:n=12,split=test")) == 12
    assert len(load_tasks("math@valid")) == SIZES["valid"]
    assert load_tasks("math", split="train").split == "train"
    for spec, words in [("math:n=0", "n=0"), ("math:level=2", "unknown option 'level'"),
                        ("math:split=dev", "split='dev'"), ("math:n=x", "n='x'")]:
        with pytest.raises(TaskFormatError, match=words):
            load_tasks(spec)
    with pytest.raises(TaskFormatError, match="conflicts"):
        load_tasks("math:split=test", split="train")


def test_check_reference_passes_every_generated_task(tmp_path):
    summary = run_check(CheckConfig(tasks="math", reference=True, out=str(tmp_path / "r.jsonl"), quiet=True))
    assert summary["pass_at_k"]["pass@1"] == 1.0 and summary["tasks_checked"] == sum(SIZES.values())


# ---- GSM8K ------------------------------------------------------------------------------------


def write(path, rows, *, gz=False):
    text = "".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows)
    if gz:
        with gzip.open(path, "wt", encoding="utf-8") as f:
            f.write(text)
    else:
        path.write_text(text)
    return str(path)


GSM = [
    {"question": "Natalia sold clips to 48 of her friends in April, and then she sold half as many clips in May. "
                 "How many clips did Natalia sell altogether in April and May?",
     "answer": "Natalia sold 48/2 = <<48/2=24>>24 clips in May.\nNatalia sold 48+24 = <<48+24=72>>72 clips.\n#### 72"},
    {"question": "A shirt costs $1,000 after tax. What does it cost?", "answer": "It costs 1,000.\n#### 1,000"},
    {"question": "Half of 5?", "answer": "5 / 2 = 2.5\n#### 2.5"},
]


def test_gsm8k_rows_become_math_tasks(tmp_path):
    tasks = load_gsm8k(write(tmp_path / "gsm.jsonl.gz", GSM, gz=True))
    assert [t.metadata["answer"] for t in tasks] == ["72", "1000", "2.5"]
    assert [t.task_id for t in tasks] == ["gsm/0", "gsm/1", "gsm/2"]
    assert "<<" not in tasks[0].reference_solution and tasks[0].reference_solution.endswith("#### 72")
    assert tasks[0].source.endswith("gsm.jsonl.gz:1")
    assert all(judge_answer(t.build_request(t.reference_solution)).passed for t in tasks)


def test_gsm8k_is_detected_and_split(tmp_path):
    path = write(tmp_path / "g.jsonl", [dict(r, id=f"q{i}") for i, r in enumerate(GSM * 1)])
    assert detect_format(path) == "gsm8k" and parse_task_spec(f"gsm8k:{path}").source == "gsm8k"
    assert [t.task_id for t in load_tasks(path).tasks] == ["q0", "q1", "q2"]
    train, test = load_tasks(path, split="train"), load_tasks(path, split="test")
    assert len(train) + len(test) == 3 and not {t.task_id for t in train} & {t.task_id for t in test}


@pytest.mark.parametrize("row, words", [
    ({"question": "q?", "answer": "no final line"}, r":1: field 'answer' has no '#### <number>' line"),
    ({"question": "q?", "answer": "x\n#### twelve"}, r":1: field 'answer' after '####': expected one number"),
    ({"question": "q?", "answer": "x\n#### 3 or 4"}, r"expected one number as the final answer, got '3 or 4'"),
    ({"answer": "#### 1"}, r":1: field 'question' missing"),
    ({"question": 5, "answer": "#### 1"}, r":1: field 'question' is number"),
    ({"question": " ", "answer": "#### 1"}, r":1: field 'question' is empty"),
    ({"question": "q?", "answer": "#### 1", "id": [1]}, r":1: field 'task_id' is list"),
])
def test_gsm8k_errors_are_one_line_naming_file_line_and_field(tmp_path, row, words):
    with pytest.raises(TaskFormatError, match=words) as info:
        load_gsm8k(write(tmp_path / "bad.jsonl", [row]))
    assert "\n" not in str(info.value)


def test_gsm8k_duplicate_ids_and_empty_files(tmp_path):
    with pytest.raises(TaskFormatError, match=r":2: task id 'a' duplicates line 1$"):
        load_gsm8k(write(tmp_path / "dup.jsonl", [dict(GSM[0], id="a"), dict(GSM[1], id="a")]))
    with pytest.raises(TaskFormatError, match="no rows"):
        load_gsm8k(write(tmp_path / "empty.jsonl", []))


def test_canonical_answer():
    assert canonical_answer("$1,200") == "1200" and canonical_answer("\\frac{3}{4}") == "3/4"
    assert canonical_answer("-5 degrees") == "-5"
    with pytest.raises(TaskFormatError, match="where: expected one number"):
        canonical_answer("none", "where")


def test_a_decimal_tolerance_travels_with_the_task():
    task = math_task("t", "q?", "2.5", "", float_tolerance=0.1)
    assert judge_answer(task.build_request("#### 2.55")).passed
    assert not judge_answer(math_task("t", "q?", "2.5", "").build_request("#### 2.55")).passed


def test_mutants_are_refused_in_one_line_for_math_tasks():
    from coderl.eval.check import run_mutant_check

    with pytest.raises(TaskFormatError, match="task math/test/0000 \\(math, math\\) has no Python function to mutate"):
        run_mutant_check(CheckConfig(tasks="math:n=2,split=test", reference=True, mutants=1, quiet=True))
