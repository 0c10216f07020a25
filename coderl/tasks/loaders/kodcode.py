"""KodCode's rows (`preset=kodcode`) as test-file tasks (`coderl.tasks.test_files`).

KodCode/KodCode-V1 and KodCode/KodCode-Light-RL-10K (dataset cards): `version`, `style`, `subset`, `question_id`,
`question`, `solution` (the verified reference module), `test` (a pytest file, run against the reply saved as
`solution.py`), `test_info` (a list of {function_name, function_declaration, parameter_list, docstring}, null for
class problems), `gpt_pass_sequence`, `gpt_pass_trial_num`, `gpt_difficulty`, `gpt_pass_percentage`, ...  The
producer's own pipeline (KodCode-AI/kodcode, pipeline/step3.2_combine_kodcode.py) writes the test as `test_code`;
both names are read.  KodCode runs each file as `from solution import *` + the file (pipeline/step2.2 and its RL
trainer's examples/data_preprocess/kodcode.py, KodCode-AI/code-r1): so a file that imports nothing from the solution
still reads its names, which here come from the program where the reference (or `test_info`) defines them.

The prompt is the question, then the function declarations `test_info` gives, as KodCode's RL trainer adds the first
("Note that the function declaration is ..."); the reference is `solution`, so its measured time limit applies
(docs/tasks.md, "Time limits").  A row whose test file the runner cannot run is refused in one line naming the row,
the field and the construct (`--skip-bad-rows` lists them).
"""

from __future__ import annotations

from typing import Any

from coderl.tasks.pytest_files import TestFileError
from coderl.tasks.rows import require
from coderl.tasks.test_files import KIND, file_tests, shadowed
from coderl.tasks.types import TaskFormatError

SOURCE = ("KodCode/KodCode-V1, KodCode/KodCode-Light-RL-10K: question_id, question, solution, test (pytest file, "
          "`from solution import ...`), test_info [{function_name, function_declaration}], style, subset, gpt_*")
_KEPT = ("style", "subset", "version", "gpt_difficulty", "gpt_pass_percentage", "gpt_pass_trial_num")


def _declarations(info: Any, where: str) -> list[dict[str, str]]:
    """test_info's entries with a function name (null for a class problem: none)."""
    if info is None:
        return []
    if not isinstance(info, list):
        raise TaskFormatError(f"{where}: field 'test_info' is not a list (expected [{{function_name, "
                              "function_declaration}}, ...] or null)")
    out = []
    for i, item in enumerate(info):
        if not isinstance(item, dict):
            raise TaskFormatError(f"{where}: field 'test_info[{i}]' is not an object")
        name, declaration = item.get("function_name"), item.get("function_declaration")
        if isinstance(name, str) and name.isidentifier():
            out.append({"name": name, "declaration": declaration.strip() if isinstance(declaration, str) else ""})
    return out


def prompt_of(question: str, declarations: list[dict[str, str]]) -> str:
    """The question, then the declarations (KodCode's RL trainer: "Note that the function declaration is ...")."""
    shown = [d["declaration"] for d in declarations if d["declaration"]]
    if not shown:
        return question.strip()
    if len(shown) == 1:
        return f"{question.strip()}\n\nNote that the function declaration is {shown[0]}"
    return question.strip() + "\n\nNote that the function declarations are:\n" + "\n".join(shown)


def kodcode_row(row: dict[str, Any], where: str) -> dict[str, Any]:
    """A KodCode row as a row of coderl's own layout (`coderl.tasks.loaders.task_rows`), kind `test_file`."""
    task_id = require(row, "question_id", str, where)
    question = require(row, "question", str, where)
    field = "test" if "test" in row or "test_code" not in row else "test_code"
    test = require(row, field, str, where)
    solution = row.get("solution")
    if solution is not None and not isinstance(solution, str):
        raise TaskFormatError(f"{where}: field 'solution' is not a string (expected the reference module)")
    declarations = _declarations(row.get("test_info"), where)
    try:
        tests = file_tests(test)
    except TestFileError as e:
        raise TaskFormatError(f"{where}: field '{field}': {e}") from None
    name = shadowed(test, [d["name"] for d in declarations], solution)
    if name:  # KodCode's trials sometimes pasted the solution into the test file
        raise TaskFormatError(f"{where}: field '{field}' defines {name} itself (its tests would never call the "
                              "program's: any reply would pass)")
    metadata = {key: row[key] for key in _KEPT if isinstance(row.get(key), (str, int, float))}
    metadata["functions"] = [d["name"] for d in declarations]
    return {"task_id": task_id, "kind": KIND, "language": "python", "prompt": prompt_of(question, declarations),
            "test_preamble": test, "reference_solution": solution or None, "metadata": metadata,
            "tests": [{"id": t.id, "source": t.source, "check": t.check.value} for t in tests]}


def load_kodcode(path: str) -> list:
    """The tasks of a JSONL(.gz) file of KodCode rows (what `hf:PATH:preset=kodcode` reads, without the datasets
    library)."""
    from coderl.tasks.loaders.task_rows import task_builder
    from coderl.tasks.rows import Rows, jsonl_rows

    rows = jsonl_rows(path)
    rows = Rows(rows.name, rows.rows, rows.unit, rows.stem, rows.skipped, kodcode_row)
    return rows.collect(task_builder(rows))
