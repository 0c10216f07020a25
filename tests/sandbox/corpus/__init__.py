"""The tagged verifier corpus: hostile programs that must fail and legitimate programs that must pass.

Every case goes through the same path as training and `coderl check`: a task (bundled HumanEval, the
easy set, or an inline HumanEval/MBPP/stdio row) builds the sandbox request for a completion, and the
sandbox judges it.  Each case carries

    tag      the class of the attack or legitimate pattern, named after the issue's bullets
             (`A.shadow_builtin`, `B1.copy_sibling`, `C.stdlib_subclass`, ...); see `TAGS`
    expect   "pass" (a correct program) or "fail" (a wrong one that tries to pass)
    tamper   for hostile cases the judge can see: a tamper name that must be reported
    before   the verdict the case got at the commit before the judge redesign (aabbb45), recorded
             with `python -m tests.sandbox.corpus --record` so the corpus shows what it closed (a case added
             later: its verdict at the commit before the change that closed it, named in its comment)

Cases with a `group` run concurrently with the other cases of that group (B1: a wrong program must
not find a correct sibling's code in its memory).

    python -m tests.sandbox.corpus            # run every case, print a table (any isolation level)
    python -m tests.sandbox.corpus --record   # the same, as `before=` lines to paste into the cases
"""

from __future__ import annotations

import dataclasses
import gzip
import json
import os
import tempfile
from dataclasses import dataclass, field
from typing import Any

# Every class of the issues' bullets; a test checks each has at least 2 cases.
TAGS = {
    # A: wrong programs passing child-judged asserts
    "A.shadow_builtin": "a top-level rebinding of a builtin the assert calls (abs, tuple, range, set)",
    "A.builtins_dict": "`__builtins__ = dict(...)` or edits of the builtins module",
    "A.fullwidth_name": "a full-width identifier (NFKC-normalised to a builtin or helper name)",
    "A.prompt_helper": "redefining a prompt helper the test uses (encode_cyclic, poly)",
    "A.caller_frame": "reading or editing the caller's frame (sys._getframe(n).f_locals)",
    "A.patch_harness": "patching harness functions and classes reached through frames or gc",
    "A.forged_records": "reading the nonce and writing forged records first",
    "A.dup2_result_fd": "dup2 of a pipe over the result fd, rewriting records",
    "A.trace_hooks": "sys.settrace / sys.setprofile / sys.addaudithook hooks",
    "A.meta_path": "sys.meta_path or sys.modules changed in place",
    "A.mbpp_second_function": "an MBPP test's second tested function returning an always-equal object",
    "A.always_equal": "objects whose __eq__ (or __bool__) lies, at any depth of the return",
    "A.exit_tricks": "os._exit / sys.exit / atexit / excepthook to end before the verdict",
    # B1: copying a sibling
    "B1.copy_sibling": "a wrong program finding a concurrent correct program's code in memory",
    # N: the judge design's own surfaces (proxies, handles, callbacks, the zygote)
    "N.forged_reply": "the program-side runtime rewritten to answer calls with forged handles, values, references",
    "N.protocol_abuse": "malformed, oversized or unexpected frames on the judge channel",
    "N.zygote_reach": "reaching the zygote or a neighbour process (fds, /proc)",
    "N.exception_identity": "raising another class with the name of the exception class a test catches",
    "N.unsendable_value": "a value that cannot cross (a cycle, too deep) returned where the test expects an exception",
    "N.yielded_copies": "a generator yielding one object it keeps changing, read whole by the test (copies passed it)",
    "N.task_class_name": "a program class named like the task's class, whose methods the task's __eq__/__lt__ would call",
    # the judge's written rules (rules.py)
    "A.program_names": "a name the test reads but the task does not bind, bound by the program (pi = 0, Fraction)",
    "A.program_comparison": "two program objects compared with each other (==, !=, ordering)",
    "A.control_exceptions": "StopIteration ending the judge's loops; a class named like a builtin exception",
    "A.fork_reply": "a forked child returning into the runtime and answering the judge for its parent",
    # B2, C2, D: containment (the program's view of the machine, `python main.py` semantics, robustness)
    "B2.answer_keys": "finding a task file on disk and running its reference solution",
    "C2.stdio_semantics": "stdin/stdout programs correct under `python main.py` (threads, atexit, exit codes)",
    "C2.never_exits": "stdin/stdout programs `python main.py` would never let exit",
    "D.deep_tree": "thousands of nested directories, files, symlink loops, fifos or unreadable dirs left behind",
    "D.left_running": "processes, daemons, shared memory or sockets a program leaves running",
    # C: correct programs that must pass
    "C.stdlib_subclass": "Counter, defaultdict, namedtuple, OrderedDict returns",
    "C.numpy": "numpy scalar and array returns",
    "C.third_party_import": "a top-level third-party import (numpy), never tamper",
    "C.value_types": "Decimal, Fraction, datetime values",
    "C.iteration": "generator, map, filter, dict-view returns",
    "C.mutation": "in-place mutation tests",
    "C.small_classes": "class tasks: s = Stack(); s.push(1); assert s.pop() == 1",
    "C.mbpp_fixtures": "MBPP class arguments (Pair) and setup-built trees (Node)",
    "C.exceptions": "tests that expect the program to raise (pytest.raises / try-except)",
    "C.callbacks": "test callables (lambdas, keys) passed to the program",
    "C.name_resolution": "tests reading math's pi, Fraction or a program class they construct, without binding it",
    "C.fork_in_function": "a function that forks a child (which waits, or raises) and answers right",
    "C.deep_values": "return values nested to the 1,000-level limit",
    # M: final answers of math replies (answers.py)
    "M.answer_operand": "a marked answer that is an operand of what stands beside it (\\boxed{18}^2, twice the answer)",
    "M.answer_words": "words beside the number that are no unit (about, more, nearly)",
    "V.tool_views": "a Verilog design that synthesis reads otherwise than the simulation (unique/priority case)",
    "C.answer_units": "units in their LaTeX spellings, and a generated task's counted noun",
    "C.hand_made_module": "a module object made by hand and registered in sys.modules under a real module's name",
    # issue 73: the verdict's fifth pass
    "C.shared_files": "a test and its program reading and writing the same files (work dir, /tmp, paths passed)",
    "C.tests_own_work": "tests that do real work of their own under a task's time limit (not the program's)",
    # issue 74: a program can never make itself an infrastructure failure
    "I.infra_provoked": "a program that kills the server, ends its judge or sleeps past the backstop: its own failure",
    # E: limits of the whole run and a fresh file system per program (issue 73; limits.py)
    "E.cpu_tree": "work spread over processes the program starts (alive or not at exit) on a task whose limit it "
                  "exceeds in one process",
    "E.fresh_fs": "a program reading the superblock state (inodes, free counts) an earlier program left",
    # issue 77: test-file tasks (KodCode's pytest files), judged by coderl's own runner in the judge (test_files.py)
    "C.test_files": "correct solution modules judged by pytest-style files (fixtures, parametrize, raises, approx)",
    "T.patch_runner": "a solution module patching the runner or its pytest stand-in (sys.modules, gc, builtins)",
    "T.skip_or_exit": "a skip, a Skipped/Exit-like exception, sys.exit or os._exit during a test-file task's test",
    "T.read_test_file": "a solution module looking for its test file's text (files, memory, environment)",
    # issue 97: repository tasks, a patch graded by `coderl.tasks.repository.grade` (repository.py)
    "R.tests_and_configuration": "a patch editing, deleting or linking away the tests, or adding configuration and "
                                 "conftest.py files that deselect tests or rewrite their reports",
    "R.interpreter_start": "sitecustomize, usercustomize, a .pth or a standard module of the tree's loading a plugin",
    "R.exit_and_collection": "the package ending the process with status 0, breaking or skipping collection",
    "R.forged_records": "records written on the report channel by the code under test",
    "R.git_and_links": "git attributes and configuration that would run a filter or a hook while the patch applies",
    "C.repository_fixes": "correct patches of a repository task: the gold one and others written differently",
}


@dataclass(frozen=True)
class Case:
    """One program for one task, with the verdict it must get."""

    name: str
    tag: str
    completion: str
    expect: str  # "pass" | "fail"
    task_id: str | None = None  # a bundled task: "HumanEval/38", "easy/3"
    row: dict[str, Any] | None = None  # or an inline row in `fmt`'s layout
    fmt: str = "humaneval"  # layout of `row`: "humaneval" | "mbpp" | "stdio" | "gsm8k" | "coderl" (one with a time_limit)
    # | "kodcode" (a test-file task) | "repository" (a repository row: isolation `full` only)
    tamper: str | None = None  # a tamper name the judge must report (prefix match)
    group: str | None = None  # run concurrently with the group's other cases
    before: str | None = None  # status at the commit before the redesign
    time_limit: float | None = None  # the task's own time limit (`Task.time_limit`), if any
    note: str = field(default="", compare=False)


def load_task(case: Case):
    """The `Task` a case runs against."""
    from coderl.tasks.loaders.easy import load_easy
    from coderl.tasks.loaders.humaneval import load_humaneval
    from coderl.tasks.loaders.mbpp import load_mbpp
    from coderl.tasks.loaders.stdio import load_stdio
    from coderl.tasks.loaders.task_rows import load_task_rows

    if case.task_id is not None and case.task_id.startswith("verilog/"):  # the bundled Verilog set
        from coderl.tasks.spec import load_tasks

        (task,) = [t for t in load_tasks("verilog") if t.task_id == case.task_id]
        return task
    if case.task_id is not None and case.task_id.startswith("math/"):  # the generated math set
        from coderl.tasks.generators.math_gen import MathConfig, generate_math

        (task,) = [t for t in generate_math(MathConfig(), case.task_id.split("/")[1]) if t.task_id == case.task_id]
        return task
    if case.task_id is not None:
        tasks = load_easy() if case.task_id.startswith("easy/") else load_humaneval()
        (task,) = [t for t in tasks if t.task_id == case.task_id]
        return task if case.time_limit is None else dataclasses.replace(task, time_limit=case.time_limit)
    if case.fmt == "repository":
        from coderl.tasks.repository.task import load_repository_tasks

        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "tasks.jsonl")
            with open(path, "w", encoding="utf-8") as f:
                f.write(json.dumps(case.row) + "\n")
            (task,) = load_repository_tasks(path)
        return task
    from coderl.tasks.loaders.kodcode import load_kodcode
    from coderl.tasks.math_tasks import load_gsm8k

    loader = {"humaneval": load_humaneval, "mbpp": load_mbpp, "stdio": load_stdio, "gsm8k": load_gsm8k,
              "coderl": load_task_rows, "kodcode": load_kodcode}[case.fmt]
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "row.jsonl.gz")
        with gzip.open(path, "wt", encoding="utf-8") as f:
            f.write(json.dumps(case.row) + "\n")
        (task,) = loader(path)
    return task if case.time_limit is None else dataclasses.replace(task, time_limit=case.time_limit)


def all_cases() -> list[Case]:
    from . import (
        answers,
        containment,
        hostile,
        hostile_judge,
        infra,
        legitimate,
        limits,
        ordinary,
        repository,
        rules,
        shared_work,
        test_files,
        tool_views,
    )

    return [*hostile.CASES, *hostile_judge.CASES, *legitimate.CASES, *ordinary.CASES, *containment.CASES,
            *rules.CASES, *answers.CASES, *tool_views.CASES, *shared_work.CASES, *infra.CASES, *limits.CASES,
            *test_files.CASES, *repository.CASES]


def runs_at(case: Case, isolation: str) -> bool:
    """Whether the case can run at this isolation level (repository tasks: `full` only)."""
    return case.fmt != "repository" or isolation == "full"


def run_cases(sandbox, cases: list[Case]) -> list:
    """Results in case order (None for a case the sandbox's isolation cannot run); the cases of a group are submitted
    together, everything at once."""
    futures = [sandbox.submit(load_task(c).build_request(c.completion)) if runs_at(c, sandbox.isolation) else None
               for c in cases]
    results = [None if f is None else f.result() for f in futures]
    try:  # the server killer's marker (infra.py), named for this process
        os.unlink(f"/tmp/coderl-corpus-server-killed-{os.getpid()}")
    except OSError:
        pass
    return results


def verdict_ok(case: Case, result) -> bool:
    return result.passed == (case.expect == "pass")


def _main() -> None:
    import argparse

    from coderl.sandbox import Sandbox

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--record", action="store_true", help="print `before=` values per case")
    ap.add_argument("--isolation", default="auto")
    ap.add_argument("--workers", type=int, default=2)
    args = ap.parse_args()
    cases = all_cases()
    with Sandbox(workers=args.workers, isolation=args.isolation) as sandbox:
        results = run_cases(sandbox, cases)
    wrong = 0
    for case, result in zip(cases, results):
        if result is None:
            print(f"--  {case.tag:24} {case.name:40} not run at isolation {args.isolation!r}")
            continue
        ok = verdict_ok(case, result)
        wrong += not ok
        if args.record:
            print(f"{case.name}: before={result.status.value!r}")
        else:
            print(f"{'ok ' if ok else 'BAD'} {case.tag:24} {case.name:40} {result.status.value:15} "
                  f"tamper={result.tamper} {result.message[:80]!r}")
    print(f"{len(cases) - wrong} right, {wrong} wrong of {len(cases)} cases")


if __name__ == "__main__":
    _main()


