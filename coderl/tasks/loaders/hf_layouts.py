"""The dataset layouts `hf:` task specs read (`coderl.tasks.loaders.hf`): coderl's keys, and the presets.

A preset is either a renaming onto one of coderl's row layouts (HumanEval, MBPP, stdio, GSM8K: the
loaders in `coderl.tasks.loaders.humaneval`, `mbpp`, `stdio`, `math_tasks`) or a conversion of a row into one.
Each follows a dataset card or loader code, named in its `source`; the fixtures of
tests/tasks/test_hf_datasets.py are written in those layouts, without downloads.

Private tests become hidden tests (kept out of multi-turn feedback: docs/repair.md); a dataset that has
only private tests shows them.  No conversion ever unpickles data: LiveCodeBench's private tests, when
stored as base64(zlib(pickle(JSON text))), are read by `data_only_unpickle`, which admits no global at all
and nothing but the text (decompressed to at most 256 MB), or the row is refused in one line.
"""

from __future__ import annotations

import base64
import binascii
import io
import json
import pickle
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from coderl.tasks.loaders.evalplus import humanevalplus, mbppplus
from coderl.tasks.loaders.hf_contest_sets import (
    CODEFORCES_HIDDEN,
    deepcoder,
    nemotron_rl,
    open_r1_codeforces,
    primeintellect,
)
from coderl.tasks.loaders.kodcode import SOURCE as KODCODE_SOURCE
from coderl.tasks.loaders.kodcode import kodcode_row
from coderl.tasks.loaders.multipl_e import multipl_e_row
from coderl.tasks.loaders.stdio import CALL_READING
from coderl.tasks.rows import require
from coderl.tasks.types import TaskFormatError

# coderl's key -> the field of each layout's loader it fills
FIELDS: dict[str, dict[str, str]] = {
    "humaneval": {"id": "task_id", "prompt": "prompt", "tests": "test", "entry_point": "entry_point",
                  "solution": "canonical_solution"},
    "mbpp": {"id": "task_id", "prompt": "text", "tests": "test_list", "hidden_tests": "challenge_test_list",
             "setup": "test_setup_code", "imports": "test_imports", "solution": "code"},
    "stdio": {"id": "hash_id", "prompt": "question", "tests": "input_output", "hidden_tests": "hidden_input_output",
              "solution": "solutions", "language": "language"},
    "gsm8k": {"id": "task_id", "prompt": "question", "answer": "answer"},
}



def _io_lists(tests: Any, where: str, label: str) -> tuple[list, list]:
    """(inputs, outputs) of a {input: [...], output: [...]} column (CodeContests); empty when absent."""
    if tests is None:
        return [], []
    if not isinstance(tests, dict):
        raise TaskFormatError(f"{where}: field '{label}' is not an object (expected {{input: [...], output: [...]}})")
    inputs = require(tests, "input", list, where, label=f"{label}.input")
    outputs = require(tests, "output", list, where, label=f"{label}.output")
    if len(inputs) != len(outputs):
        raise TaskFormatError(f"{where}: fields '{label}.input' and '{label}.output' differ in length "
                              f"({len(inputs)} inputs, {len(outputs)} outputs)")
    return inputs, outputs


def _stdio_row(task_id: Any, prompt: str, visible: tuple[list, list], hidden: tuple[list, list],
               solution: str | None, where: str, what: str) -> dict[str, Any]:
    """A row of the stdio layout; with no visible test the hidden ones are shown (the task needs one)."""
    if not visible[0]:
        visible, hidden = hidden, ([], [])
    if not visible[0]:
        raise TaskFormatError(f"{where}: no tests in {what}")
    row = {"task_id": task_id, "question": prompt, "input_output": {"inputs": visible[0], "outputs": visible[1]}}
    if hidden[0]:
        row["hidden_input_output"] = {"inputs": hidden[0], "outputs": hidden[1]}
    if solution is not None:
        row["solutions"] = [solution]
    return row


def _require_hidden(hidden: list, where: str, fields: str, visible: str) -> None:
    """A row of a preset that names hidden tests is refused without any: graded on its visible tests alone, a
    program printing their answers would pass (issue 102)."""
    if not hidden:
        raise TaskFormatError(f"{where}: no hidden test: field{'s' if ' and ' in fields else ''} '{fields}' "
                              f"missing or empty (graded on its {visible} alone, a program printing their answers "
                              "would pass)")


CODECONTESTS_PYTHON3 = 3  # the dataset's Language enum: UNKNOWN_LANGUAGE 0, PYTHON 1 (2.x), CPP 2, PYTHON3 3, JAVA 4


def _codecontests(row: dict[str, Any], where: str) -> dict[str, Any]:
    """deepmind/code_contests: public tests visible; private and generated tests hidden; the first Python 3
    solution is the reference."""
    name = require(row, "name", str, where)
    prompt = require(row, "description", str, where)
    public = _io_lists(row.get("public_tests"), where, "public_tests")
    private = _io_lists(row.get("private_tests"), where, "private_tests")
    generated = _io_lists(row.get("generated_tests"), where, "generated_tests")
    hidden = (private[0] + generated[0], private[1] + generated[1])
    _require_hidden(hidden[0], where, "private_tests' and 'generated_tests", "public_tests")
    solution = None
    solutions = row.get("solutions")
    if isinstance(solutions, dict):
        languages, texts = solutions.get("language") or [], solutions.get("solution") or []
        solution = next((t for lang, t in zip(languages, texts) if lang == CODECONTESTS_PYTHON3), None)
    return _stdio_row(name, prompt, public, hidden, solution, where,
                      "public_tests, private_tests or generated_tests")


PICKLE_CAP = 256 << 20  # the most a private-tests blob may decompress to


def data_only_unpickle(blob: bytes, where: str, field: str) -> str:
    """The text a pickle holds (LiveCodeBench pickles JSON text).  Any global (a class, a function: what code
    execution needs) is refused, and so is anything but a string, with the row, in one line."""

    class DataOnly(pickle.Unpickler):
        def find_class(self, module, name):
            raise pickle.UnpicklingError(f"a pickled global {module}.{name}")

        def persistent_load(self, pid):
            raise pickle.UnpicklingError("a persistent id")

    try:
        value = DataOnly(io.BytesIO(blob)).load()
    except (pickle.UnpicklingError, EOFError, ValueError, TypeError, AttributeError, IndexError,
            KeyError, OverflowError, MemoryError) as e:
        raise TaskFormatError(f"{where}: field '{field}': refused to unpickle ({e}); only plain data is read")
    if not isinstance(value, str):
        raise TaskFormatError(f"{where}: field '{field}': the pickle holds {type(value).__name__} values "
                              "(expected JSON text)")
    return value


def _inflate(data: bytes, where: str, field: str) -> bytes:
    """zlib-decompressed `data`, at most `PICKLE_CAP` bytes (a small blob can expand a thousandfold)."""
    inflater = zlib.decompressobj()
    try:
        out = inflater.decompress(data, PICKLE_CAP)
    except zlib.error as e:
        raise TaskFormatError(f"{where}: field '{field}' is neither JSON nor base64 zlib pickle ({e})") from None
    if inflater.unconsumed_tail:
        raise TaskFormatError(f"{where}: field '{field}' decompresses to more than {PICKLE_CAP >> 20} MB")
    return out


def _lcb_cases(text: Any, where: str, field: str) -> list:
    """LiveCodeBench's test cases: JSON text, or base64(zlib(pickle(JSON text))) (its loader's encoding)."""
    if isinstance(text, list):
        return text
    if not isinstance(text, str):
        raise TaskFormatError(f"{where}: field '{field}' is not a string (expected JSON text)")
    if not text.strip():
        return []
    try:
        cases = json.loads(text)
    except json.JSONDecodeError:
        try:
            packed = base64.b64decode(text.encode("utf-8"), validate=True)
        except (binascii.Error, ValueError) as e:
            raise TaskFormatError(f"{where}: field '{field}' is neither JSON nor base64 zlib pickle ({e})") from None
        blob = _inflate(packed, where, field)
        try:
            cases = json.loads(data_only_unpickle(blob, where, field))
        except json.JSONDecodeError as e:
            raise TaskFormatError(f"{where}: field '{field}': the unpickled text is not JSON ({e.msg})") from None
    if not isinstance(cases, list):
        raise TaskFormatError(f"{where}: field '{field}' is not a list of test cases")
    return cases


def _lcb_pairs(cases: list, where: str, field: str) -> tuple[list, list]:
    """(inputs, outputs) of test cases as LiveCodeBench writes them (`input`, `output` text)."""
    inputs, outputs = [], []
    for i, case in enumerate(cases):
        inputs.append(require(case, "input", str, where, label=f"{field}[{i}].input"))
        outputs.append(require(case, "output", str, where, label=f"{field}[{i}].output"))
    return inputs, outputs


def _lcb_testtype(cases: list, where: str, field: str) -> set[str]:
    kinds = set()
    for i, case in enumerate(cases):
        if not isinstance(case, dict):
            raise TaskFormatError(f"{where}: field '{field}[{i}]' is not an object")
        kind = case.get("testtype", "stdin")
        if kind not in ("stdin", "functional"):
            raise TaskFormatError(f"{where}: field '{field}[{i}].testtype' is {kind!r} (expected stdin or functional)")
        kinds.add(kind)
    return kinds


# What a LeetCode solution may use without importing it: the names LeetCode's Python puts in scope (a
# shorter list than the one LiveCodeBench's grader prepends to every solution: its star imports of string,
# re, datetime, copy, random, statistics, operator, io, sys and json are left out, as they shadow builtins).
LEETCODE_PRELUDE = ("from typing import *\nfrom collections import *\nfrom functools import *\n"
                    "from itertools import *\nfrom heapq import *\nfrom bisect import *\nfrom math import *\n"
                    "import bisect, collections, functools, heapq, itertools, math, re, string\n")
COMPARE_OPTIONS = ("upstream", "strict", "tokens")  # hf specs' compare=: the preset's rule, it without unsound
# fallbacks, coderl's own token rule
LAYOUT_KEY = "__layout__"  # a converted row in another layout than its preset's names it here
PREFIX_KEY = "__prompt_prefix__"  # ... and code the task's prompt starts with (the prelude above)


def _lcb_functional(row: dict[str, Any], where: str, task_id: Any, prompt: str, public: list,
                    private: list) -> dict[str, Any]:
    """A LeetCode problem as a function task (`call_based`: `class Solution` the entry point, each test an EQUALS
    check of `Solution().FUNC(*inputs)`, inputs one JSON value per line, the output one JSON value, judged as
    LiveCodeBench's `grade_call_based` judges: a returned tuple is a list); public tests visible, private ones
    hidden.  Returned as a row of coderl's own layout, its prompt after LeetCode's names (`PREFIX_KEY`)."""
    from coderl.tasks.loaders.call_based import call_task, lcb_case
    from coderl.tasks.loaders.task_rows import task_row

    meta = row.get("metadata")
    if isinstance(meta, str):
        try:
            meta = json.loads(meta or "{}")
        except json.JSONDecodeError as e:
            raise TaskFormatError(f"{where}: field 'metadata' is not JSON text ({e.msg})") from None
    func = meta.get("func_name") if isinstance(meta, dict) else None
    if not isinstance(func, str) or not func.isidentifier():
        raise TaskFormatError(f"{where}: field 'metadata.func_name' missing or not a name (a functional problem "
                              "names the Solution method its tests call)")
    cases = []
    for field, tests, hidden in (("public_test_cases", public, False), ("private_test_cases", private, True)):
        for i, case in enumerate(tests):
            label = f"{field}[{i}]"
            cases.append((*lcb_case(case.get("input"), case.get("output"), where, label), hidden))
    if not cases:
        raise TaskFormatError(f"{where}: no tests in public_test_cases or private_test_cases")
    starter = row.get("starter_code") if isinstance(row.get("starter_code"), str) else ""
    task = call_task(task_id=str(task_id), question=prompt, code=starter or "class Solution", fn_name=func,
                     cases=cases, solution=None, where=where, field="metadata.func_name", compare="livecodebench",
                     layout="livecodebench")
    return {LAYOUT_KEY: "coderl", PREFIX_KEY: LEETCODE_PRELUDE, **task_row(task)}


def _livecodebench(row: dict[str, Any], where: str) -> dict[str, Any]:
    """livecodebench/code_generation_lite: stdin problems as stdio rows, functional (LeetCode) ones as function
    tasks (`_lcb_functional`); public tests visible, private tests hidden."""
    task_id = require(row, "question_id", (str, int), where)
    prompt = require(row, "question_content", str, where)
    public = _lcb_cases(row.get("public_test_cases", ""), where, "public_test_cases")
    private = _lcb_cases(row.get("private_test_cases", ""), where, "private_test_cases")
    kinds = _lcb_testtype(public, where, "public_test_cases") | _lcb_testtype(private, where, "private_test_cases")
    _require_hidden(private, where, "private_test_cases", "public_test_cases")
    if kinds == {"functional"}:
        return _lcb_functional(row, where, task_id, prompt, public, private)
    if len(kinds) > 1:
        raise TaskFormatError(f"{where}: fields 'public_test_cases' and 'private_test_cases' mix stdin and "
                              "functional tests (expected one kind per problem)")
    return _stdio_row(task_id, prompt, _lcb_pairs(public, where, "public_test_cases"),
                      _lcb_pairs(private, where, "private_test_cases"), None, where,
                      "public_test_cases or private_test_cases")


def _chat_text(row: dict[str, Any], where: str) -> str:
    """The last user message of a verl row's chat `prompt`."""
    messages = require(row, "prompt", list, where)
    users = [m for m in messages if isinstance(m, dict) and m.get("role") == "user"]
    if not users or not isinstance(users[-1].get("content"), str):
        raise TaskFormatError(f"{where}: field 'prompt' has no user message with text content")
    return users[-1]["content"]


def _extra(row: dict[str, Any], where: str) -> dict[str, Any]:
    extra = row.get("extra_info") or {}
    if not isinstance(extra, dict):
        raise TaskFormatError(f"{where}: field 'extra_info' is not an object")
    return extra


def _ground_truth(row: dict[str, Any], where: str) -> Any:
    reward = require(row, "reward_model", dict, where)
    if "ground_truth" not in reward:
        raise TaskFormatError(f"{where}: field 'reward_model.ground_truth' missing")
    return reward["ground_truth"]


def _verl_id(row: dict[str, Any], extra: dict[str, Any]) -> dict[str, str]:
    """{"task_id": DATA_SOURCE/SPLIT/INDEX} of a verl row with an index, else {} (its task id is its row number)."""
    index = extra.get("index")
    if index is None:
        return {}
    split = extra.get("split")
    return {"task_id": f"{row.get('data_source', 'verl')}/{split + '/' if isinstance(split, str) else ''}{index}"}


def _verl_gsm8k(row: dict[str, Any], where: str) -> dict[str, Any]:
    """verl's GSM8K rows: the question from extra_info (else the chat prompt, verl's instruction included),
    the answer from reward_model.ground_truth."""
    extra = _extra(row, where)
    question = extra.get("question") if isinstance(extra.get("question"), str) else _chat_text(row, where)
    truth = _ground_truth(row, where)
    if not isinstance(truth, (str, int, float)) or isinstance(truth, bool):
        raise TaskFormatError(f"{where}: field 'reward_model.ground_truth' is not a number or text")
    worked = extra.get("answer") if isinstance(extra.get("answer"), str) else ""
    answer = worked if "####" in worked else f"{worked}\n#### {truth}".lstrip("\n")
    return {"question": question, "answer": answer, **_verl_id(row, extra)}


def _verl_code(row: dict[str, Any], where: str) -> dict[str, Any]:
    """verl's code rows: the user message, and ground_truth's JSON {inputs, outputs} as stdin/stdout tests."""
    extra = _extra(row, where)
    truth = _ground_truth(row, where)
    return {"question": _chat_text(row, where), "input_output": truth, CALL_READING: "verl", **_verl_id(row, extra)}


def _deepcoder(row: dict[str, Any], where: str) -> dict[str, Any]:
    """DeepCoder's rows (`hf_contest_sets.deepcoder`), its LiveCodeBench functional ones read as `_livecodebench`
    reads them."""
    return deepcoder(row, where, _lcb_functional)


@dataclass(frozen=True)
class Preset:
    """A dataset layout coderl reads: the loader's layout, the columns that differ from that layout's field
    names (coderl key -> column), the dataset card or loader code it follows, and for layouts that are not
    a renaming, `convert(row, where) -> row in the layout` (then `columns=` does not apply)."""

    layout: str
    columns: dict[str, str]
    source: str
    convert: Callable[[dict[str, Any], str], dict[str, Any]] | None = None
    hidden: tuple[str, ...] = ()  # the columns its hidden tests are read from: a dataset without one is refused
    compare: str = ""  # the comparison rule of its dataset's own grader (`coderl.sandbox.rules.RULES`); "": coderl's


PRESETS: dict[str, Preset] = {
    "humaneval": Preset("humaneval", {}, "openai/openai_humaneval: task_id, prompt, canonical_solution, test, "
                                         "entry_point"),
    "mbpp": Preset("mbpp", {}, "google-research-datasets/mbpp (full): task_id, text, code, test_list, "
                               "test_setup_code, challenge_test_list"),
    "mbpp-sanitized": Preset("mbpp", {"prompt": "prompt"},
                             "google-research-datasets/mbpp (sanitized): source_file, task_id, prompt, code, "
                             "test_imports, test_list"),
    "apps": Preset("stdio", {"id": "problem_id"}, "codeparrot/apps: problem_id, question, solutions (JSON), "
                                                   "input_output (JSON), difficulty, url, starter_code",
                   compare="apps"),
    "taco": Preset("stdio", {}, "BAAI/TACO: question, solutions (JSON), starter_code, input_output (JSON), "
                                "difficulty, raw_tags, name, source, ...",
                   compare="taco"),
    "codecontests": Preset("stdio", {}, "deepmind/code_contests: name, description, public_tests / private_tests / "
                                        "generated_tests {input, output}, solutions {language, solution}",
                           convert=_codecontests, hidden=("private_tests", "generated_tests")),
    "livecodebench": Preset("stdio", {}, "livecodebench/code_generation_lite: question_id, question_content, "
                                         "public_test_cases (JSON), private_test_cases (JSON, or base64 zlib "
                                         "pickle), metadata, starter_code", convert=_livecodebench,
                            hidden=("private_test_cases",), compare="livecodebench"),
    "multipl-e": Preset("coderl", {}, "nuprl/MultiPL-E (humaneval-js, mbpp-lua, ...): name, language (js or lua), "
                                      "prompt, tests (each a literal call, read as data; a row with any other "
                                      "statement is refused); no reference: no measured time limit",
                        convert=multipl_e_row),
    "humanevalplus": Preset("coderl", {}, "evalplus/humanevalplus (EvalPlus's HumanEvalPlus-OriginFmt): task_id, "
                                          "prompt, canonical_solution, entry_point, test (inputs, results); base "
                                          "tests: the bundled HumanEval's", convert=humanevalplus),
    "mbppplus": Preset("coderl", {}, "evalplus/mbppplus (EvalPlus's MbppPlus-OriginFmt): task_id, code, prompt, "
                                     "source_file, test_imports, test_list (base), test (inputs, results)",
                       convert=mbppplus),
    "gsm8k": Preset("gsm8k", {}, "openai/gsm8k (main): question, answer ('... #### 42')"),
    "verl-gsm8k": Preset("gsm8k", {}, "verl examples/data_preprocess/gsm8k.py: data_source, prompt (chat), "
                                      "ability, reward_model {style, ground_truth}, extra_info {split, index, "
                                      "question, answer}", convert=_verl_gsm8k),
    "verl-code": Preset("stdio", {}, "verl's code rows (prime_code reward): prompt (chat), reward_model "
                                     "{ground_truth: JSON {inputs, outputs}}, extra_info {index}",
                        convert=_verl_code, compare="verl-prime"),
    "nemotron-rl": Preset("stdio", {}, "nvidia/Nemotron-RL-coding-competitive_coding (NeMo Gym): "
                                       "responses_create_params {input: chat}, verifier_metadata {unit_tests "
                                       "{inputs, outputs}} (all visible), hash_id, dataset, source; no reference: "
                                       "no measured time limit, only --timeout", convert=nemotron_rl,
                          compare="nemo-gym"),
    "primeintellect": Preset("stdio", {}, "PrimeIntellect/verifiable-coding-problems: problem_id, prompt (or "
                                          "problem_statement / problem), gold_standard_solution, verification_info "
                                          "{language, test_cases [{type, input, output, fn_name}]}: stdin_stdout, "
                                          "or function_call as rLLM reads them", convert=primeintellect,
                             compare="open-r1"),
    "open-r1-codeforces": Preset("stdio", {}, "open-r1/codeforces: id, description, input_format, output_format, "
                                              "examples (visible), official_tests (hidden); interactive, file-input, "
                                              "checker-judged, not executable and incomplete-test rows are refused; "
                                              "no reference: no measured time limit, only --timeout",
                                 convert=open_r1_codeforces, hidden=CODEFORCES_HIDDEN),
    "deepcoder": Preset("stdio", {}, "agentica-org/DeepCoder-Preview-Dataset (rLLM): problem, tests (JSON: TACO's "
                                     "{inputs, outputs} or [{input, output, testtype}], all visible), metadata "
                                     "{func_name}, starter_code; call-based rows as TACO's; no reference: no measured "
                                     "time limit, only --timeout", convert=_deepcoder),
    "kodcode": Preset("coderl", {}, KODCODE_SOURCE, convert=kodcode_row),
    "coderl": Preset("coderl", {}, "coderl's own layout (coderl tasks export --format jsonl|parquet: "
                                   "coderl.tasks.loaders.task_rows): "
                                   "task_id, kind, language, prompt, tests, metadata, ..."),
    "verl": Preset("verl-export", {}, "coderl's own verl export (coderl.integrations.verl.verl_rows): reward_model "
                                 "{ground_truth: task id}, extra_info {tasks: the task spec}"),
}

