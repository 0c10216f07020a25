"""Decontamination by behaviour: does a training task's reference pass an evaluation task's tests?

Names and wording can differ while the problem is the same; behaviour cannot.  For every evaluation
task (function kind) and every training task whose reference is a module-level function with a
compatible signature (the evaluation's tests call it with a number of positional arguments it
accepts), the training reference is bound to the evaluation's entry point (`candidate` and its own
name) and the evaluation's tests run against it.  All tests passing is a *leak*: the training task
teaches the evaluation task's answer.  Identical prompts are leaks too.  Compatibility is decided on
the signatures (positional parameter counts), so an evaluation test that calls by keyword finds only
references whose parameter has that name.

The pairs run in the sandbox, batched: one script program per evaluation task and chunk of
candidates, which execs each candidate in a fresh namespace under a 1 s CPU-time alarm (10 s wall),
with its output captured, and reports the ones that pass or time out on lines marked with a per-run
random token (it judges trusted code with trusted tests, so no verdict of an untrusted program is
read).  A pair that times out counts as failing, as the judge would fail a program over its CPU
limit (3 s by default, for all the tests; every reference here runs its own tests in milliseconds,
so a timeout is a reference looping on inputs outside its domain); timeouts are counted in the
report.  A run that does not finish leaves its evaluation task undecided.
Tests are judged as the judge does: statements for `assert` tests, `==`/truthiness/`is` on the
expression's value for the parent-judged kinds (`coderl.sandbox.judge.values_match`).

`ngram_overlap` is the classic text measure beside it: the share of an evaluation prompt's word
n-grams found anywhere in the training prompts, and the training task sharing the most.
"""

from __future__ import annotations

import ast
import base64
import hashlib
import inspect
import json
import math
import os
import pickle
import re
import secrets
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field

from coderl.base.outputs import write_json
from coderl.sandbox.types import CheckKind, ExecutionRequest, Limits, Mode, TestCase
from coderl.tasks.prompt_code import parse_prompt, trusted_code
from coderl.tasks.types import Task, digest

CHUNK = 300  # candidates per sandbox program
CANDIDATE_SECONDS = 1.0  # CPU seconds per (reference, evaluation task); wall clock: 10x

_SCRIPT = r'''
import base64, contextlib, io, os, pickle, signal
data = pickle.loads(base64.b64decode(DATA))
TOKEN = data["token"]  # result lines carry it: a candidate's own output never reads as a verdict

class _Timeout(BaseException):
    pass

def _alarm(*_):
    raise _Timeout()

signal.signal(signal.SIGPROF, _alarm)  # CPU time: a slow machine does not turn a leak into a timeout
signal.signal(signal.SIGALRM, _alarm)  # wall clock, for a candidate that sleeps

def _passes(program, name):
    ns = {"__name__": "__candidate__"}
    exec(program, ns)
    fn = ns[name]
    env = {"__name__": "__test__"}
    exec(data["trusted"], env)
    env[data["entry_point"]] = fn
    exec(data["preamble"], env)
    env["candidate"] = fn
    for kind, setup, source, expected in data["tests"]:
        if setup:
            exec(setup, env)
        if kind == "assert":
            exec(source, env)
            continue
        value = eval(source, env)
        if kind == "equals":
            good = value == expected
        elif kind == "truthy":
            good = bool(value)
        elif kind == "falsy":
            good = not value
        else:
            good = value is expected
        if not good:
            return False
    return True

def _say(*words):
    os.write(1, (" ".join([TOKEN, *map(str, words)]) + "\n").encode())

for index, program, name in data["candidates"]:
    outcome = "fail"
    try:
        signal.setitimer(signal.ITIMER_PROF, data["seconds"])
        signal.setitimer(signal.ITIMER_REAL, 10 * data["seconds"])
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            outcome = "pass" if _passes(program, name) else "fail"
    except _Timeout:
        outcome = "timeout"
    except BaseException:
        outcome = "fail"
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.setitimer(signal.ITIMER_REAL, 0)
    if outcome != "fail":
        _say(outcome, index)
_say("done")
'''


@dataclass
class Decontamination:
    train_tasks: int = 0
    eval_tasks: int = 0
    pairs: int = 0  # (training reference, evaluation task) pairs run
    leaks: list[tuple[str, str]] = field(default_factory=list)  # (train id, eval id)
    same: list[tuple[str, str]] = field(default_factory=list)  # identical id or prompt
    skipped_eval: list[str] = field(default_factory=list)  # not a function task
    skipped_train: list[str] = field(default_factory=list)  # no reference, or not a module-level function
    incomplete: list[str] = field(default_factory=list)  # eval tasks whose runs did not finish
    timeouts: list[tuple[str, str]] = field(default_factory=list)  # (train id, eval id): timed out = failed

    @property
    def leaked_train_ids(self) -> list[str]:
        return sorted({t for t, _ in self.leaks + self.same})


def _signature(text: str, name: str | None) -> tuple[int, float] | None:
    """(required, maximum) positional arguments of the module-level function `name` in `text`."""
    parsed = parse_prompt(text)
    if parsed is None:
        return None
    for node in parsed[0].body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == name:
            args = node.args
            positional = len(args.posonlyargs) + len(args.args)
            required = positional - len(args.defaults)
            return required, math.inf if args.vararg else positional
    return None


def _code_of(program: str) -> str:
    """`program` without its docstrings, normalised (`ast.unparse`): two programs with the same code behave
    the same, so a generator's tasks that differ only in their docstrings' examples run once."""
    try:
        tree = ast.parse(program)
    except SyntaxError:
        return program
    for node in ast.walk(tree):
        if (isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
                and ast.get_docstring(node, clean=False) is not None):
            node.body = node.body[1:] or [ast.Pass()]
    return ast.unparse(tree)


def _requests(ev: Task, candidates: list[tuple[int, str, str]], token: str) -> list[ExecutionRequest]:
    out = []
    tests = [(t.check.value, t.setup, t.source, t.expected) for t in ev.tests]  # assert, equals, truthy, falsy, is
    for start in range(0, len(candidates), CHUNK):
        chunk = candidates[start : start + CHUNK]
        data = {"trusted": trusted_code(ev.prompt, ev.entry_point), "preamble": ev.test_preamble,
                "entry_point": ev.entry_point, "tests": tests, "candidates": chunk,
                "seconds": CANDIDATE_SECONDS, "token": token}
        program = f"DATA = {base64.b64encode(pickle.dumps(data)).decode()!r}\n" + _SCRIPT
        seconds = CANDIDATE_SECONDS * len(chunk) + 5
        out.append(ExecutionRequest(mode=Mode.PYTHON_SCRIPT, program=program,
                                    tests=(TestCase("run", "", CheckKind.STDOUT, ""),),
                                    limits=Limits(cpu_seconds=seconds, wall_seconds=10 * seconds,
                                                  output_bytes=1024 * 1024)))
    return out


def behaviour_leaks(train: list[Task], evals: list[Task], sandbox, progress=None) -> Decontamination:
    """Run every evaluation task's tests against every compatible training reference (module docstring).
    `progress(label, total)`: a `coderl.base.progress.ProgressLine` of the sandbox programs run, or None."""
    report = Decontamination(train_tasks=len(train), eval_tasks=len(evals))
    by_prompt = {" ".join(t.prompt.split()): t.task_id for t in train}
    token = secrets.token_hex(8)
    candidates: list[tuple[int, str, str, tuple[int, float]]] = []
    twins: dict[int, list[int]] = {}  # a candidate -> the training tasks with its code (`_code_of`; run once)
    first: dict[tuple[str, str], int] = {}
    for i, t in enumerate(train):
        program = t.prompt + t.reference_solution if t.reference_solution else None
        sig = _signature(program, t.entry_point) if program else None
        if t.kind != "function" or sig is None:
            report.skipped_train.append(t.task_id)
        elif (key := (_code_of(program), t.entry_point)) in first:  # a generator repeats code (chain, params)
            twins[first[key]].append(i)
        else:
            first[key] = i
            twins[i] = [i]
            candidates.append((i, program, t.entry_point, sig))
    jobs = []
    for ev in evals:
        same = by_prompt.get(" ".join(ev.prompt.split()))
        if same is not None:
            report.same.append((same, ev.task_id))
        # MBPP-layout prompts are prose: the signature is the reference's
        sig = _signature(ev.prompt, ev.entry_point) or _signature(ev.prompt + (ev.reference_solution or ""),
                                                                   ev.entry_point)
        if ev.kind != "function" or sig is None:
            report.skipped_eval.append(ev.task_id)
            continue
        # compatible: a number of positional arguments both accept
        chosen = [(i, program, name) for i, program, name, s in candidates if max(sig[0], s[0]) <= min(sig[1], s[1])]
        report.pairs += sum(len(twins[i]) for i, _, _ in chosen)
        jobs += [(ev, request) for request in _requests(ev, chosen, token)]
    futures = [sandbox.submit(request) for _, request in jobs]
    line = progress("decontaminate: programs run", len(jobs)) if progress and jobs else None
    for done, ((ev, _), fut) in enumerate(zip(jobs, futures), 1):
        result = fut.result()
        if line:
            line.update(done, f"(of {report.pairs} pairs)")
        words = [line.split() for line in result.stdout.split("\n") if line.startswith(token + " ")]
        if [token, "done"] not in words:
            report.incomplete.append(ev.task_id)
        for _, outcome, *index in (w for w in words if len(w) == 3):
            for i in twins[int(index[0])]:
                (report.leaks if outcome == "pass" else report.timeouts).append((train[i].task_id, ev.task_id))
    if line:
        line.close()
    report.incomplete = sorted(set(report.incomplete))
    return report


def fingerprint(train: Iterable[Task], evals: Iterable[Task]) -> str:
    """A hash of everything `behaviour_leaks` reads, to cache its verdict."""
    h = hashlib.sha256()
    for group in (train, evals):
        h.update(digest(group).encode() + b"|")
    with open(__file__, "rb") as f:  # the script, the signature rules and the limits are this module
        h.update(f.read())
    h.update(inspect.getsource(trusted_code).encode() + inspect.getsource(parse_prompt).encode())
    return h.hexdigest()


def decided_by_record(evals: list[Task]) -> set[str]:
    """The ids of the tasks of `evals` the RL pool's record (`coderl.tasks.generators.pool`) has already decided:
    tasks of its `AGAINST` sets, unchanged (the same digest).  No kept pool task solves one of them (the record
    removed every task that did), so a check of the pool against them need not run again; the record's `solved`
    names those the removed tasks solve.  Empty when the record's evaluation tasks are no longer the ones `AGAINST`
    loads."""
    from coderl.tasks import load_tasks
    from coderl.tasks.generators.pool import AGAINST, read_record

    against = [t for s in AGAINST.split() for t in load_tasks(s).tasks]
    if digest(against) != read_record()["against_digest"]:
        return set()
    known = {t.task_id: digest([t]) for t in against}
    return {t.task_id for t in evals if known.get(t.task_id) == digest([t])}


# The verdicts of the shipped pipeline configs' checks (configs/cpu-demo.yaml, configs/cpu-recipe.yaml), by
# `fingerprint`: a fresh machine runs none of them again (`make demo` paid about 68 s for them).  Written by
# scripts/overlap_record.py; a changed task set, rule or limit is a new fingerprint, found in no record, so it runs.
VERDICTS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tasks", "data",
                        "overlap_verdicts.json")


def overlap_key(train: list[Task], evals: list[Task], train_spec: str = "") -> tuple[str, list[Task]]:
    """(the fingerprint `cached_leaks` keeps a verdict under, the evaluation tasks it runs).  When `train_spec` is
    the RL pool, the evaluation tasks its record decided are not run again (`decided_by_record`: no kept pool task
    solves one; the pool against them is 6.7 million pairs, run once offline)."""
    from coderl.tasks.spec import parse_task_spec

    if train_spec and parse_task_spec(train_spec).source == "pool":
        decided = decided_by_record(evals)
        evals = [t for t in evals if t.task_id not in decided]
    return fingerprint(train, evals), evals


def recorded_verdicts() -> dict:
    """fingerprint -> verdict of the shipped record (`VERDICTS`; empty where there is none)."""
    try:
        with open(VERDICTS, encoding="utf-8") as f:
            return json.load(f)["verdicts"]
    except FileNotFoundError:
        return {}


def cached_leaks(train: list[Task], evals: list[Task], sandbox, cache_dir: str,
                 train_spec: str = "", progress=None) -> Decontamination:
    """`behaviour_leaks`, remembered in `cache_dir` by `fingerprint` (a complete verdict only), or found in the
    shipped record (`VERDICTS`); the pool's evaluation tasks as `overlap_key` says."""
    key, evals = overlap_key(train, evals, train_spec)
    path = os.path.join(cache_dir, key + ".json")
    data = None
    if os.path.exists(path):
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
    data = data or recorded_verdicts().get(key)
    if data is not None:
        return Decontamination(**{k: [tuple(x) if isinstance(x, list) else x for x in v] if isinstance(v, list)
                                  else v for k, v in data.items()})
    report = behaviour_leaks(train, evals, sandbox, progress)
    if not report.incomplete:
        os.makedirs(cache_dir, exist_ok=True)
        write_json(path, asdict(report))
    return report


# ---------------------------------------------------------------- n-gram overlap

def _words(text: str) -> list[str]:
    return re.findall(r"[a-z0-9]+", text.lower())


def ngrams(text: str, n: int) -> set[tuple[str, ...]]:
    words = _words(text)
    return {tuple(words[i : i + n]) for i in range(len(words) - n + 1)}


@dataclass
class Overlap:
    eval_id: str
    ngrams: int  # the evaluation prompt's distinct n-grams
    shared: int  # of them, found in some training prompt
    closest: str | None  # the training task sharing the most
    closest_shared: int


def ngram_overlap(train: list[Task], evals: list[Task], n: int = 8) -> list[Overlap]:
    index: dict[tuple[str, ...], set[int]] = defaultdict(set)
    for i, t in enumerate(train):
        for g in ngrams(t.prompt, n):
            index[g].add(i)
    out = []
    for ev in evals:
        grams = ngrams(ev.prompt, n)
        per_train: dict[int, int] = defaultdict(int)
        shared = 0
        for g in grams:
            hits = index.get(g)
            if hits:
                shared += 1
                for i in hits:
                    per_train[i] += 1
        best = max(per_train.items(), key=lambda kv: (kv[1], -kv[0]), default=None)
        out.append(Overlap(ev.task_id, len(grams), shared, train[best[0]].task_id if best else None,
                           best[1] if best else 0))
    return out
