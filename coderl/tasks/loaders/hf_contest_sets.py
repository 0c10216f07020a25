"""Competitive-programming sets read through `hf:` presets (issue 77): each row becomes a stdin/stdout row of
`coderl.tasks.loaders.stdio` (DeepCoder's LiveCodeBench functional rows: an MBPP-layout row, as the `livecodebench`
preset makes them), or is refused in one line naming the row and the field that rules it out.

- `nemotron-rl` (nvidia/Nemotron-RL-coding-competitive_coding, seed 002's set; NeMo Gym's layout: its
  `resources_servers/code_gen` server and `scripts/preprocess_train_dataset.py`): the problem is the user
  message of `responses_create_params.input`, the tests `verifier_metadata.unit_tests.{inputs, outputs}`, the id
  `hash_id`.  NeMo Gym scores a program on every test and marks none public, so every test is visible.
- `primeintellect` (PrimeIntellect/verifiable-coding-problems, and open-r1's verifiable-coding-problems-python
  copies of it): `verification_info` (JSON text in PrimeIntellect's own files, an object in open-r1's) holds
  `language` and `test_cases`, each `{type, input, output, fn_name}`: `stdin_stdout` tests, or `function_call` ones
  read as rLLM's reward reads them (TACO's call-based layout: `coderl.tasks.loaders.call_based`).  The problem is
  `prompt` (PrimeIntellect), `problem_statement` or `problem` (open-r1's copies); `gold_standard_solution` is the
  reference, the code of its last fenced block when it has one (open-r1's code reward reads it so).
- `open-r1-codeforces` (open-r1/codeforces): `examples` are the visible tests, `official_tests` the hidden
  ones.  Interactive problems (`interaction_format`), file input (`input_mode` other than stdio), problems judged
  by a checker (`generated_checker`: several answers are right, coderl compares output), problems the set marks
  not `executable`, and official tests the set marks incomplete (`official_tests_complete` false: the generated
  tests that stand in for them are separate files) are refused; so are rows whose official tests are missing or
  empty, or whose completeness is unknown (`official_tests_complete` null), since graded on its examples alone a
  program printing their answers would pass, and a dataset without those columns (`CODEFORCES_HIDDEN`).
- `deepcoder` (agentica-org/DeepCoder-Preview-Dataset, rLLM's: its `examples/deepcoder/prepare_deepcoder_data.py`
  and `rllm/rewards/code_reward.py`): `problem`, `tests` (JSON text) and `metadata` (JSON text), `starter_code`.
  `tests` is TACO's `{inputs, outputs}` (the taco subset) or a list of `{input, output}` (codeforces,
  primeintellect), with `testtype` `stdin` or `functional` (lcbv5: LiveCodeBench's, read as the `livecodebench`
  preset reads it, `metadata.func_name` naming the method).  All tests are visible (none is marked public); the
  rows carry no reference and no id (`STEM/ROW`).  Call-based TACO rows (`fn_name`) and PrimeIntellect function-call
  tests become function tasks (`coderl.tasks.loaders.call_based`); rows mixing kinds of tests are refused.

Time limits: none of these rows gets a time limit from the dataset.  open-r1's `time_limit` and PrimeIntellect's
`metadata.time_limit` are the contest's, for its judge's machine and languages; coderl's limits are measured from a
reference on the machine that runs it (docs/tasks.md, "Time limits"), so they are ignored.  Rows with no reference
(Nemotron, open-r1 Codeforces, DeepCoder, PrimeIntellect rows without `gold_standard_solution`) keep `--timeout`
only.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from coderl.tasks.rows import file_stem, require
from coderl.tasks.types import TaskFormatError


def _stdio(task_id: Any, prompt: str, visible: list[tuple[str, str]], hidden: list[tuple[str, str]],
           solution: str | None, where: str, what: str, language: str | None = None) -> dict[str, Any]:
    """A row of the stdio layout; with no visible test the hidden ones are shown (a task needs one)."""
    if not visible:
        visible, hidden = hidden, []
    if not visible:
        raise TaskFormatError(f"{where}: no tests in {what}")
    row: dict[str, Any] = {"task_id": task_id, "question": prompt,
                           "input_output": {"inputs": [i for i, _ in visible], "outputs": [o for _, o in visible]}}
    if hidden:
        row["hidden_input_output"] = {"inputs": [i for i, _ in hidden], "outputs": [o for _, o in hidden]}
    if solution is not None:
        row["solutions"] = [solution]
    if language is not None:
        row["language"] = language
    return row


def _pairs(cases: Any, where: str, field: str) -> list[tuple[str, str]]:
    """[(input, output)] of a list of {input, output} objects (None: no tests)."""
    if cases is None:
        return []
    if not isinstance(cases, list):
        raise TaskFormatError(f"{where}: field '{field}' is not a list (expected a list of {{input, output}})")
    out = []
    for i, case in enumerate(cases):
        if not isinstance(case, dict):
            raise TaskFormatError(f"{where}: field '{field}[{i}]' is not an object (expected {{input, output}})")
        out.append((require(case, "input", str, where, label=f"{field}[{i}].input"),
                    require(case, "output", str, where, label=f"{field}[{i}].output")))
    return out


def nemotron_rl(row: dict[str, Any], where: str) -> dict[str, Any]:
    """A NeMo Gym row, checked to be one; the stdio loader reads it as it reads a JSONL file of them."""
    if "responses_create_params" not in row or "verifier_metadata" not in row:
        have = ", ".join(sorted(row)) or "none"
        raise TaskFormatError(f"{where}: not a NeMo Gym row: fields 'responses_create_params' and "
                              f"'verifier_metadata' expected (the row has: {have})")
    return row


# Issue 100, item 4: a problem whose statement says several outputs are right (Codeforces' and AtCoder's wording),
# which a comparison with one expected output judges wrongly.  Nemotron-RL (NeMo Gym's layout) does not mark its
# checker-judged problems; NeMo Gym compares their output all the same.  This is coderl's stated detection rule.
SEVERAL_ANSWERS = re.compile(
    r"\b(?:multiple|several|many|more than one)\s+(?:possible\s+|valid\s+|correct\s+|optimal\s+)?"
    r"(?:answers|solutions)\b|\b(?:print|output)\s+any\b|\bany\s+of\s+them\b", re.IGNORECASE)


def several_answers(text: str) -> str | None:
    """The words of `text` that say several outputs are right (`SEVERAL_ANSWERS`), or None."""
    match = SEVERAL_ANSWERS.search(text)
    return match.group(0) if match else None


FENCE = re.compile(r"```[\w+-]*[ \t]*\n(.*?)```", re.DOTALL)


def fenced_code(text: str) -> str:
    """The code of the last fenced block of `text`, or `text` itself when it has none."""
    blocks = FENCE.findall(text)
    return blocks[-1] if blocks else text


def _json_object(value: Any, where: str, field: str) -> dict[str, Any]:
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except json.JSONDecodeError as e:
            raise TaskFormatError(f"{where}: field '{field}' is not JSON text ({e.msg})") from None
    if not isinstance(value, dict):
        raise TaskFormatError(f"{where}: field '{field}' is not an object (expected {{language, test_cases}})")
    return value


PRIME_PROMPTS = ("prompt", "problem_statement", "problem")  # PrimeIntellect's column, then open-r1's copies'


def primeintellect(row: dict[str, Any], where: str) -> dict[str, Any]:
    """PrimeIntellect/verifiable-coding-problems: stdin_stdout tests, all visible (none is marked public)."""
    column = next((c for c in PRIME_PROMPTS if isinstance(row.get(c), str)), None)
    if column is None:
        raise TaskFormatError(f"{where}: no problem text: fields {', '.join(map(repr, PRIME_PROMPTS))} missing "
                              "or not strings")
    info = _json_object(require(row, "verification_info", (str, dict), where), where, "verification_info")
    cases = require(info, "test_cases", list, where, label="verification_info.test_cases")
    kinds = set()
    for i, case in enumerate(cases):
        kind = case.get("type") if isinstance(case, dict) else None
        if kind not in ("stdin_stdout", "function_call"):
            raise TaskFormatError(f"{where}: field 'verification_info.test_cases[{i}].type' is {kind!r} (expected "
                                  "stdin_stdout or function_call)")
        kinds.add(kind)
    if len(kinds) > 1:
        raise TaskFormatError(f"{where}: field 'verification_info.test_cases' mixes stdin_stdout and function_call "
                              "tests (expected one kind)")
    if kinds == {"function_call"}:
        return _prime_calls(row, column, cases, where, "verification_info.test_cases")
    language = info.get("language", "python")
    if not isinstance(language, str):
        raise TaskFormatError(f"{where}: field 'verification_info.language' is not a string")
    gold = row.get("gold_standard_solution")
    solution = fenced_code(gold) if isinstance(gold, str) and gold.strip() else None
    task_id = next((row[c] for c in ("problem_id", "in_source_id") if isinstance(row.get(c), (str, int))
                    and not isinstance(row.get(c), bool)), None)
    return _stdio(task_id, row[column], _pairs(cases, where, "verification_info.test_cases"), [], solution, where,
                  "verification_info.test_cases", language)  # no id: its row number names it


def _prime_calls(row: dict[str, Any], column: str, cases: list, where: str, field: str) -> dict[str, Any]:
    """PrimeIntellect's function_call tests as rLLM's reward reads them (rllm/rewards/code_reward.py,
    `primeintellect_check_correctness`): TACO's call-based `{fn_name, inputs, outputs}`, the function named by the
    first test, each `input` the list of arguments, judged by TACO's grader; an APPS-layout row of
    `coderl.tasks.loaders.stdio` (`call_based`)."""
    names = {case.get("fn_name") for case in cases}
    if len(names) != 1:
        raise TaskFormatError(f"{where}: field '{field}[*].fn_name' names several functions "
                              f"({', '.join(sorted(map(repr, names)))}; expected one)")
    if not isinstance(cases[0].get("fn_name"), str) or not cases[0]["fn_name"].isidentifier():
        raise TaskFormatError(f"{where}: field '{field}[0].fn_name' is {cases[0].get('fn_name')!r}: a "
                              "function_call test names the function it calls")
    for i, case in enumerate(cases):
        if not isinstance(case.get("input"), list):
            raise TaskFormatError(f"{where}: field '{field}[{i}].input' is {type(case.get('input')).__name__}: a "
                                  "function_call test's input is the list of arguments (rLLM calls fn(*input))")
    gold = row.get("gold_standard_solution")
    out: dict[str, Any] = {"question": row[column], "input_output": {
        "fn_name": cases[0].get("fn_name"), "inputs": [c.get("input") for c in cases],
        "outputs": [c.get("output") for c in cases]}}
    if isinstance(gold, str) and gold.strip():
        out["solutions"] = [fenced_code(gold)]
    task_id = next((row[c] for c in ("problem_id", "in_source_id") if isinstance(row.get(c), (str, int))
                    and not isinstance(row.get(c), bool)), None)
    if task_id is not None:
        out["problem_id"] = task_id
    return out


def _refused_codeforces(row: dict[str, Any], where: str) -> str | None:
    """Why an open-r1/codeforces row cannot be judged by comparing stdout, or None."""
    if isinstance(row.get("interaction_format"), str) and row["interaction_format"].strip():
        return "an interactive problem (field 'interaction_format' is set): coderl has no interactor"
    mode = row.get("input_mode") or "stdio"
    if mode != "stdio":
        return f"field 'input_mode' is {mode!r}: only stdio problems are read (not input.txt/output.txt)"
    if isinstance(row.get("generated_checker"), str) and row["generated_checker"].strip():
        return ("judged by a checker (field 'generated_checker' is set): several outputs are right, and coderl "
                "compares the output with one")
    if row.get("executable") is False:
        return "field 'executable' is false (the dataset marks the problem as not runnable)"
    if row.get("official_tests_complete") is False:
        return ("field 'official_tests_complete' is false: its official tests are incomplete (the generated "
                "tests of the 'verifiable' subset are separate files, not read)")
    return None


def _codeforces_prompt(row: dict[str, Any], where: str) -> str:
    parts = [require(row, "description", str, where)]
    for field, title in (("input_format", "Input"), ("output_format", "Output")):
        if isinstance(row.get(field), str) and row[field].strip():
            parts.append(f"{title}\n\n{row[field].strip()}")
    for i, (stdin, stdout) in enumerate(_pairs(row.get("examples"), where, "examples"), 1):
        parts.append(f"Example {i}\n\nInput\n{stdin.rstrip()}\n\nOutput\n{stdout.rstrip()}")
    if isinstance(row.get("note"), str) and row["note"].strip():
        parts.append(f"Note\n\n{row['note'].strip()}")
    title = row.get("title")
    head = f"{title}\n\n" if isinstance(title, str) and title.strip() else ""
    return head + "\n\n".join(p.strip() for p in parts)


CODEFORCES_HIDDEN = ("official_tests", "official_tests_complete")  # a dataset without them is refused (hf.py)


def _official_tests(row: dict[str, Any], where: str, task_id: str) -> list[tuple[str, str]]:
    """The official (hidden) tests of an open-r1/codeforces row, refused unless the row has some and marks them
    complete: graded on its examples alone, a program printing the examples' answers would pass."""
    complete = row.get("official_tests_complete")
    if complete is not True:  # false: _refused_codeforces; null or missing: nobody says the tests are all there
        said = "missing" if "official_tests_complete" not in row else f"is {json.dumps(complete, default=str)}"
        raise TaskFormatError(f"{where}: problem {task_id!r}: field 'official_tests_complete' {said}: whether its "
                              "official tests are all there is unknown (expected true)")
    if row.get("official_tests") is None:
        raise TaskFormatError(f"{where}: problem {task_id!r}: field 'official_tests' missing (expected its hidden "
                              "tests: graded on its examples alone, a program printing their answers would pass)")
    hidden = _pairs(row["official_tests"], where, "official_tests")
    if not hidden:
        raise TaskFormatError(f"{where}: problem {task_id!r}: field 'official_tests' is empty though "
                              "'official_tests_complete' is true (expected its hidden tests: graded on its examples "
                              "alone, a program printing their answers would pass)")
    return hidden


def open_r1_codeforces(row: dict[str, Any], where: str) -> dict[str, Any]:
    """open-r1/codeforces: the statement's examples visible, the official tests hidden (a row without them, or
    not marked complete, is refused); no reference."""
    task_id = require(row, "id", str, where)
    why = _refused_codeforces(row, where)
    if why is not None:
        raise TaskFormatError(f"{where}: problem {task_id!r}: {why}")
    prompt, visible = _codeforces_prompt(row, where), _pairs(row.get("examples"), where, "examples")
    return _stdio(task_id, prompt, visible, _official_tests(row, where, task_id), None, where,
                  "examples or official_tests")


def _json_value(value: Any, where: str, field: str) -> Any:
    if isinstance(value, str):
        try:
            return json.loads(value)
        except json.JSONDecodeError as e:
            raise TaskFormatError(f"{where}: field '{field}' is not JSON text ({e.msg})") from None
    return value


def deepcoder(row: dict[str, Any], where: str, functional: Callable[..., dict[str, Any]]) -> dict[str, Any]:
    """agentica-org/DeepCoder-Preview-Dataset: a TACO, Codeforces, PrimeIntellect or LiveCodeBench row by the
    shape of its `tests`; no reference.  `functional(row, where, task_id, prompt, public, private)`: the
    `livecodebench` preset's reading of functional tests (`hf_layouts`, which imports this module, passes it)."""
    problem = require(row, "problem", str, where)
    if row.get("tests") is None:
        raise TaskFormatError(f"{where}: field 'tests' missing (expected JSON text of the tests)")
    tests = _json_value(row["tests"], where, "tests")
    if isinstance(tests, dict):  # TACO's {inputs, outputs[, fn_name]}: the stdio loader reads it as TACO's own
        if "fn_name" in tests and tests["fn_name"] is None:  # a stdin problem's empty fn_name is no call
            tests = {k: v for k, v in tests.items() if k != "fn_name"}
        return {"question": problem, "input_output": tests, "__compare__": "rllm-taco"}  # rLLM's taco_run_test
    if not isinstance(tests, list):
        raise TaskFormatError(f"{where}: field 'tests' is neither {{inputs, outputs}} nor a list of {{input, output}}")
    kinds = set()
    for i, case in enumerate(tests):
        if not isinstance(case, dict):
            raise TaskFormatError(f"{where}: field 'tests[{i}]' is not an object (expected {{input, output}})")
        if case.get("fn_name") or case.get("type") == "function_call":
            kinds.add("call")
        else:
            kinds.add("functional" if case.get("testtype") == "functional" else "stdin")
    if kinds == {"call"}:  # PrimeIntellect's function_call tests, as rLLM's reward reads them
        return _prime_calls({"question": problem}, "question", tests, where, "tests")
    if kinds == {"functional"}:
        return _functional(row, tests, problem, where, functional)
    if len(kinds) > 1:
        raise TaskFormatError(f"{where}: field 'tests' mixes stdin, functional and function-call tests (expected one "
                              "kind)")
    row = _stdio(None, problem, _pairs(tests, where, "tests"), [], None, where, "tests")  # no id: its row number
    if tests and all(case.get("testtype") == "stdin" for case in tests):  # LiveCodeBench's rows: rLLM runs LCB's own
        row["__compare__"] = "livecodebench"
    return row


def _functional(row: dict[str, Any], tests: list, problem: str, where: str,
                functional: Callable[..., dict[str, Any]]) -> dict[str, Any]:
    """LiveCodeBench's functional tests as the `livecodebench` preset reads them (a `class Solution` method)."""
    meta = _json_value(row.get("metadata") or {}, where, "metadata")
    func = meta.get("func_name") if isinstance(meta, dict) else None
    if func is None:  # rLLM's own rows name it on each test
        test_meta = tests[0].get("metadata") if tests else None
        func = _json_value(test_meta, where, "tests[0].metadata").get("func_name") if test_meta else None
    name, _, n = where.rpartition(" row ")  # "hf:PATH (SPLIT) row N": named STEM/N as a stdin row is
    stem = file_stem(name.removeprefix("hf:").split(" (")[0], (".parquet", ".arrow", ".jsonl", ".json", ".csv"))
    return functional({"metadata": {"func_name": func}, "starter_code": row.get("starter_code")}, where,
                      f"{stem}/{n}", problem, tests, [])
