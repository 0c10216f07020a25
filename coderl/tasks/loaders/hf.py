"""Tasks from Hugging Face `datasets`: `hf:PATH[:k=v,...]` (issue 41).

PATH is, in the order tried:
- a folder written by `Dataset.save_to_disk` / `DatasetDict.save_to_disk` (read with `load_from_disk`);
- a parquet, arrow, JSON/JSONL or CSV file, or a folder of them (read as a stream: rows are turned into
  tasks as they are read, never all held as a table);
- the name of a dataset already in the local Hugging Face cache (`openai/openai_humaneval`), read
  offline: nothing is downloaded, and a dataset that is not there is one line naming what was looked for.

Options (after the last ':', comma-separated):
- `split=NAME`: the dataset's split (train, test, validation, prompt, ...); needed when it has several.
  coderl's own `@train/@valid/@test` still applies after it, to the tasks read.
- `name=NAME`: the dataset's configuration (`sanitized` for MBPP, `main` for GSM8K) when read from the cache.
- `preset=NAME`: the layout of the rows (`PRESETS`); without it the layout is told from the first row's
  columns, as for a JSONL file.
- `columns=KEY=COLUMN;KEY=COLUMN`: the dataset's own column for each of coderl's keys (`FIELDS`): `id`,
  `prompt`, `tests`, `solution`, and per layout `entry_point`, `hidden_tests`, `setup`, `imports`,
  `language`, `answer`.
- `compare=upstream|strict|tokens`: the comparison rule (docs/data.md, "Comparison rules"): the preset's grader's,
  it without its unsound fallbacks, or coderl's token rule; without it evaluation takes the grader's and training
  (`types.for_training`) the strict form.
- `several_answers=judge|refuse`: a Nemotron row whose statement allows several answers is judged (the default, as
  NeMo Gym does) or refused.

Every row goes through the same checks as a row of a JSONL file in that layout (`coderl.tasks.loaders.humaneval`,
`mbpp`, `stdio`, `math_tasks`); a bad row stops the load with one line naming the dataset, the row and
the column.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable, Iterator
from typing import Any

from coderl.tasks.loaders.hf_layouts import COMPARE_OPTIONS, FIELDS, LAYOUT_KEY, PREFIX_KEY, PRESETS
from coderl.tasks.loaders.hf_open import (  # noqa: F401 -- ParquetFiles, hidden_paths: read from here too
    STREAMED,
    ParquetFiles,
    dataset_rows,
    hidden_paths,
    open_dataset,
    read_error,
)
from coderl.tasks.rows import Rows, TaskIds, file_stem, skipped_rows
from coderl.tasks.types import Task, TaskFormatError

_OPTIONS = ("split", "name", "preset", "columns", "compare", "several_answers")


def parse_hf(rest: str, spec: str, parse_options: Callable[[str, str], dict[str, str]]) -> tuple[str, dict[str, str]]:
    """(PATH, options) of `hf:REST`; bad options are one-line `TaskFormatError`s naming the spec.  `parse_options(spec,
    text)` reads a spec's `k=v,...` (`coderl.tasks.spec`'s, passed in: spec imports this module)."""
    rest = rest.strip()
    path, options_text = rest, ""
    if not os.path.exists(rest) and ":" in rest:
        head, _, tail = rest.rpartition(":")
        if "=" in tail:
            path, options_text = head.strip(), tail
    if not path:
        raise TaskFormatError(f"task spec {spec!r}: missing the dataset after 'hf:' (a folder, a file or a cached "
                              "dataset name)")
    options = parse_options(spec, options_text)
    unknown = next((f"{k}={v}" for k, v in options.items() if k not in _OPTIONS), None)
    if unknown is not None:
        raise TaskFormatError(f"task spec {spec!r}: option {unknown!r}: expected one of "
                              f"{', '.join(k + '=...' for k in _OPTIONS)}")
    preset = options.get("preset")
    if preset is not None and preset not in PRESETS:
        raise TaskFormatError(f"task spec {spec!r}: preset {preset!r}: expected one of {', '.join(PRESETS)}")
    compare = options.get("compare")
    if compare is not None and compare not in COMPARE_OPTIONS:
        raise TaskFormatError(f"task spec {spec!r}: compare={compare}: expected one of "
                              f"{', '.join(COMPARE_OPTIONS)} (the preset's grader's rule, it without its unsound "
                              "fallbacks, coderl's token rule)")
    if options.get("several_answers", "judge") not in ("judge", "refuse"):
        raise TaskFormatError(f"task spec {spec!r}: several_answers={options['several_answers']}: expected judge "
                              "(compare with the one expected output, as NeMo Gym does) or refuse")
    renaming = [name for name, p in PRESETS.items() if p.layout in FIELDS and p.convert is None]
    if "columns" in options and preset and preset not in renaming:
        raise TaskFormatError(f"task spec {spec!r}: preset {preset} converts its rows itself; columns= applies to "
                              f"{', '.join(renaming)} and to no preset")
    if "columns" in options:
        column_mapping(options["columns"], PRESETS[preset].layout if preset else None, spec)
    return path, options


def column_mapping(text: str, layout: str | None, spec: str) -> dict[str, str]:
    """`KEY=COLUMN;KEY=COLUMN` -> {key: column}, each key one of the layout's (any layout's when not known
    yet)."""
    known = FIELDS[layout] if layout else {k: k for fields in FIELDS.values() for k in fields}
    mapping: dict[str, str] = {}
    for item in filter(None, (part.strip() for part in text.split(";"))):
        key, eq, column = item.partition("=")
        key, column = key.strip(), column.strip()
        if not eq or not column:
            raise TaskFormatError(f"task spec {spec!r}: columns item {item!r} is not KEY=COLUMN")
        if key not in known:
            where = f"the {layout} layout's keys" if layout else "coderl's keys"
            raise TaskFormatError(f"task spec {spec!r}: columns key {key!r}: expected one of {where}: "
                                  f"{', '.join(known)}")
        if key in mapping:
            raise TaskFormatError(f"task spec {spec!r}: columns key {key!r} given twice")
        mapping[key] = column
    return mapping


def load_hf(path: str, options: dict[str, str], spec: str, load_tasks: Callable | None = None) -> list[Task]:
    """The tasks of `hf:PATH:options` (module docstring); `load_tasks(spec)`: what the `verl` preset's rows
    name their tasks in (`coderl.tasks.spec.load_tasks`, passed in: spec imports this module)."""
    from coderl.tasks.math_tasks import gsm8k_tasks

    dataset, label = open_dataset(path, options, spec)
    rows = dataset_rows(dataset)
    try:
        first = next(rows)
    except StopIteration:
        raise TaskFormatError(f"{label}: no rows") from None
    except Exception as exc:  # noqa: BLE001 -- a library's reading error, as one line
        raise TaskFormatError(f"{label}: cannot read ({read_error(exc)})") from None
    preset = PRESETS[options["preset"]] if "preset" in options else None
    # `data/train.parquet` -> `train`; `a.test.jsonl.gz` -> `a.test`; a folder or a cached name: its last part
    stem = (file_stem(path, tuple(STREAMED)) or "hf") + (f"-{options['split']}" if "split" in options else "")
    skipped = skipped_rows()
    renames: dict[str, str] = {}  # the dataset's column -> coderl's field, where columns= or a preset renames
    if preset is not None and preset.layout == "verl-export":
        return _exported(Rows(label, _chain(first, rows, label), "row", stem, skipped), load_tasks)
    if preset is not None and preset.convert is not None:
        lacking = [column for column in preset.hidden if column not in first]
        if lacking:  # every row would be graded on its visible tests alone
            raise TaskFormatError(f"{label}: no column {lacking[0]!r} (named by preset {options['preset']}: its hidden "
                                  f"tests; the dataset has: {', '.join(sorted(first)) or 'none'})")
        layout, prepare = preset.layout, preset.convert
    elif (preset.layout if preset else _layout_of(first, label)) == "coderl":
        if "columns" in options:
            raise TaskFormatError(f"{label}: the rows are in coderl's own layout (coderl tasks export), whose "
                                  "columns are not renamed; drop columns=")
        layout, prepare = "coderl", None
    else:
        layout, defaults = (preset.layout, preset.columns) if preset else (_layout_of(first, label), {})
        mapping = {**defaults, **column_mapping(options.get("columns", ""), layout, spec)}
        renames = {column: FIELDS[layout][key] for key, column in mapping.items()}
        missing = [column for column in renames if column not in first]
        if missing:
            by = f"preset {options['preset']}" if preset and missing[0] in defaults.values() else "columns="
            raise TaskFormatError(f"{label}: no column {missing[0]!r} (named by {by}; the dataset has: "
                                  f"{', '.join(sorted(first)) or 'none'})")
        prepare = (lambda row, where: _rename(row, renames)) if renames else None
    source = Rows(label, _chain(first, rows, label), "row", stem, skipped, prepare)
    if layout == "gsm8k":
        return gsm8k_tasks(source)
    build = _per_row_layout(source, layout)
    build = _in_their_columns(build, renames) if renames else build
    build = _judged_as(build, preset.compare if preset else "", options.get("compare"))
    return source.collect(_refusing_several_answers(build, source) if options.get("several_answers") == "refuse"
                          else build)


def _refusing_several_answers(build: Callable[[int, dict[str, Any]], Task], rows: Rows):
    """`build`, refusing a row whose statement says several outputs are right (`metadata["several_answers"]`,
    `hf_contest_sets.SEVERAL_ANSWERS`): `several_answers=refuse`."""
    def one(n: int, row: dict[str, Any]) -> Task:
        task = build(n, row)
        if task.metadata.get("several_answers"):
            raise TaskFormatError(f"{rows.where(n)}: the problem says several outputs are right "
                                  f"({task.metadata['several_answers']!r}) and is judged against one "
                                  "(several_answers=refuse)")
        return task

    return one


def _judged_as(build: Callable[[int, dict[str, Any]], Task], upstream: str, choice: str | None):
    """`build`, whose tasks carry the comparison rule they are judged by (`metadata["compare"]`): the preset's
    grader's (`upstream`; else the one the row's layout gave, NeMo Gym's), unless `compare=` chose one; where that
    rule is unsound (APPS's, TACO's token sets) and nothing was chosen, training takes its strict form
    (`metadata["compare_train"]`, `types.for_training`).  Call-based tasks keep their grader's value rule whatever
    is chosen (the datasets wrap their answers: `coderl.tasks.loaders.call_based`)."""
    from coderl.sandbox.rules import rule

    def one(n: int, row: dict[str, Any]) -> Task:
        task = build(n, row)
        if task.kind not in ("stdio", "function") or (task.kind == "function" and "compare" in task.metadata):
            return task
        name = upstream or task.metadata.get("compare", "")
        task.metadata.pop("compare_train", None)
        if choice == "tokens" or not name:
            task.metadata.pop("compare", None)
            return task
        strict = rule(name).strict
        if choice == "strict":
            name, strict = strict or name, ""
        elif choice == "upstream":
            strict = ""
        task.metadata["compare"] = name
        if strict:
            task.metadata["compare_train"] = strict
        return task

    return one


def _in_their_columns(build: Callable[[int, dict[str, Any]], Task], renames: dict[str, str]):
    """`build`, whose errors name the dataset's own column where a field was read from one (columns=, a preset)."""
    def one(n: int, row: dict[str, Any]) -> Task:
        try:
            return build(n, row)
        except TaskFormatError as exc:
            text = str(exc)
            for column, field in renames.items():
                if column != field and f"field '{field}" in text:
                    text = text.replace(f"field '{field}", f"column '{column}") + f" (read as '{field}')"
            raise TaskFormatError(text) from None

    return one


def _per_row_layout(rows: Rows, layout: str) -> Callable[[int, dict[str, Any]], Task]:
    """`(n, row) -> Task` in `layout`, or in the one a converted row names (`LAYOUT_KEY`: LiveCodeBench's
    functional problems among its stdin ones), its prompt after the code the row gives (`PREFIX_KEY`)."""
    from coderl.tasks.loaders.humaneval import humaneval_builder
    from coderl.tasks.loaders.mbpp import mbpp_builder
    from coderl.tasks.loaders.stdio import stdio_builder
    from coderl.tasks.loaders.task_rows import task_builder

    makers = {"humaneval": humaneval_builder, "mbpp": mbpp_builder, "stdio": stdio_builder, "coderl": task_builder}
    builders: dict[str, Callable[[int, dict[str, Any]], Task]] = {}

    def one(n: int, row: dict[str, Any]) -> Task:
        name = row.pop(LAYOUT_KEY, layout)
        if name not in builders:
            builders[name] = makers[name](rows)
        prefix = row.pop(PREFIX_KEY, "")
        task = builders[name](n, row)
        return dataclasses.replace(task, prompt=prefix + task.prompt) if prefix else task

    return one


def _exported(rows: Rows, load_tasks: Callable) -> list[Task]:
    """coderl's own verl rows (`verl_rows`): each names its task by id in the task spec it carries, which
    must load here."""
    tables: dict[str, dict[str, Task]] = {}
    ids = TaskIds(rows)

    def one(n: int, row: dict[str, Any]) -> Task:
        where = rows.where(n)
        task_id, spec = exported_row(row, where)
        if spec not in tables:
            tables[spec] = {t.task_id: t for t in load_tasks(spec).tasks}
        if task_id not in tables[spec]:
            raise TaskFormatError(f"{where}: task {task_id!r} is not in {spec!r} here")
        ids.take(task_id, n, "task")
        return tables[spec][task_id]

    return rows.collect(one)


def exported_row(row: dict[str, Any], where: str) -> tuple[str, str]:
    """(task id, task spec) of one of coderl's verl rows."""
    reward = row.get("reward_model")
    task_id = reward.get("ground_truth") if isinstance(reward, dict) else None
    extra = row.get("extra_info")
    spec = extra.get("tasks") if isinstance(extra, dict) else None
    if not isinstance(task_id, str) or not isinstance(spec, str):
        raise TaskFormatError(f"{where}: expected coderl's verl row (reward_model.ground_truth = a task id, "
                              "extra_info.tasks = its task spec: coderl.integrations.verl.verl_rows)")
    return task_id, spec


def exported_specs(path: str, options: dict[str, str], spec: str) -> list[str]:
    """The task specs the `verl` preset's rows of `hf:PATH` name (their files are hidden from programs too)."""
    dataset, _ = open_dataset(path, options, spec)
    specs: dict[str, None] = {}
    for row in dataset_rows(dataset):
        extra = row.get("extra_info")
        if isinstance(extra, dict) and isinstance(extra.get("tasks"), str):
            specs[extra["tasks"]] = None
    return list(specs)


def _rename(row: dict[str, Any], renames: dict[str, str]) -> dict[str, Any]:
    """The row with each mapped column under its layout field (a column already named so gives way)."""
    out = {k: v for k, v in row.items() if k not in renames}
    out.update({field: row.get(column) for column, field in renames.items()})  # absent: the layout names it
    return out


def _chain(first: dict, rows: Iterator[dict], label: str) -> Iterator[tuple[int, dict[str, Any]]]:
    yield 0, first
    n = 0
    while True:
        try:
            row = next(rows)
        except StopIteration:
            return
        except Exception as exc:  # noqa: BLE001 -- rows are read in batches: the bad one is at or after this
            raise TaskFormatError(f"{label}: cannot read the rows after row {n} ({read_error(exc)})") from None
        n += 1
        yield n, row


def _layout_of(row: dict[str, Any], label: str) -> str:
    from coderl.tasks.loaders.task_rows import layout_of

    layout = layout_of(row)
    if layout is not None:
        return layout
    raise TaskFormatError(f"{label}: cannot tell the layout from columns {', '.join(sorted(row)) or '(none)'}; "
                          f"give preset= ({', '.join(PRESETS)}) and columns= for the ones named otherwise")
