"""Run the upstream graders themselves on coderl/eval/upstream_cases.py's programs, inside coderl's sandbox, and
record their verdicts (issue 100, item 5).

    python scripts/upstream_verdicts.py --source lcb=/work/.mirror/LiveCodeBench+LiveCodeBench/repo \\
        --source nemo-gym=/work/.mirror/NVIDIA-NeMo+Gym/repo --source apps=/work/.mirror/hendrycks+apps/repo \\
        --source taco=/work/.mirror/FlagOpen+TACO/repo --out tests/fixtures/upstream/grader_verdicts.jsonl
    python scripts/upstream_verdicts.py --compare tests/fixtures/upstream/grader_verdicts.jsonl   # coderl vs them

Each `--source NAME=GITDIR` is a clone of the grader's repository (the `fetch` tool's mirror; `multipl-e-js=node`:
Node's own assert, no repository); its grader file is
read with `git show HEAD:PATH` and never copied into coderl: the file's text travels inside the sandbox request, a
driver writes it into the program's private work directory and calls its `run_test` on one case.  The graders execute
the programs they judge (`exec` in their own process, or `subprocess` for TACO), so they run only in the sandbox,
never on this machine's bare interpreter.  Two shims, both stated in each line's `setup`: APPS imports `pyext`
(`RuntimeModule.from_string`: a module made by exec'ing the text), which is given as that; TACO runs `python` from
PATH, which is pointed at the sandbox's interpreter.

`--compare FILE` judges every recorded case with coderl (the rule of each grader's preset, `coderl.sandbox.outputs`)
and prints the counts: programs, agreements, documented disagreements (`DISAGREEMENTS`), other disagreements;
exit 1 when there is any of the last.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path[:0] = [REPO]

from coderl.eval.upstream_cases import cases  # noqa: E402

MARK = "\x1eupstream-verdict "
# grader -> (its file(s) in its repository, the coderl rule of its preset)
GRADERS = {  # {where the driver writes it (under up/): its path in the repository}
    "lcb": ({"upstream/testing_util.py": "lcb_runner/evaluation/testing_util.py"}, "livecodebench"),
    "nemo-gym": ({"upstream/testing_util.py": "resources_servers/code_gen/lcb_integration/testing_util.py"},
                 "nemo-gym"),
    "apps": ({"upstream/testing_util.py": "eval/testing_util.py"}, "apps"),
    "taco": ({"upstream/testing_util.py": "metrics/testing_util.py", "upstream/pyext2.py": "metrics/pyext2.py"},
             "taco"),
    "verl": ({"upstream/testing_util.py": "verl/utils/reward_score/prime_code/testing_util.py"}, "verl-prime"),
    "open-r1": ({"upstream/rewards.py": "src/open_r1/rewards.py"}, "open-r1"),
    "rllm": ({f"rllm/rewards/code_utils/{name}": f"rllm/rewards/code_utils/{name}"
              for name in ("taco.py", "pyext2.py", "utils.py")}, "rllm-taco"),
}
MODULES = {"rllm": "rllm.rewards.code_utils.taco"}  # the grader's module (else upstream.testing_util)
# MultiPL-E's JavaScript grader is its test suite run by Node (its evaluation/src/containerized_eval.py hands a .js
# file of prompt + completion + tests to eval_javascript, whose verdict is node's exit status): no file to read
GRADERS["multipl-e-js"] = ({}, "multipl-e-js")
KINDS = {"multipl-e-js": {"js"}, "open-r1": {"stdio"}}  # the cases each grader takes (else stdio and call)

SETUP = {
    "apps": "pyext shim: RuntimeModule.from_string(name, doc, text) = a module made by exec(text)",
    "verl": "pyext shim, as for apps",
    "rllm": "its package's own files only (rllm/rewards/code_utils: taco.py, pyext2.py, utils.py; empty __init__.py "
            "files); inspect.getargspec as for taco; `python3` on PATH is the sandbox's interpreter (its `ulimit -v` "
            "fails there: the sandbox's own limit holds)",
    "multipl-e-js": "node main.js on prompt + completion + MultiPL-E's test suite, pass = exit status 0 (Node's own "
                    "assert.deepEqual; the Node of the machine that recorded it)",
    "open-r1": "code_reward's evaluation script taken from rewards.py's text (ast), dedented, formatted as code_reward "
               "formats it, exec'd, and its evaluate_code called (its e2b sandbox returns that value); `python3` on "
               "PATH is the sandbox's interpreter",
    "taco": "`python` on PATH is the sandbox's interpreter (TACO runs its programs with subprocess); "
            "inspect.getargspec = inspect.getfullargspec where Python (3.11+) lacks it (pyext2.py reads it)",
}
# (grader, case id) -> why coderl's verdict differs from the grader's, by design
DISAGREEMENTS = {
    ("lcb", "stdio/sum/crash-after-output"): "exit status: LiveCodeBench runs the program in its own process and "
    "catches SystemExit, so a program that prints the answer and exits 1 passes; coderl fails a run that exits "
    "non-zero",
    ("nemo-gym", "stdio/sum/crash-after-output"): "exit status (NeMo Gym's copy of LiveCodeBench's grader): as lcb",
    ("apps", "stdio/sum/crash-after-output"): "exit status: APPS's call_method catches SystemExit; coderl fails a "
    "run that exits non-zero",
    ("verl", "stdio/sum/crash-after-output"): "exit status (verl's copy of APPS's call_method): as apps",
    ("rllm", "stdio/sum/crash-after-output"): "exit status: rLLM's execute_std_code compares the stdout whatever the "
    "return code; coderl fails a run that exits non-zero",
    ("rllm", "stdio/sum/exception-after-output"): "exit status: as above, for a program that raises after printing "
    "the answer",
}


def tests_for(grader: str, case: dict) -> dict:
    """The case's tests in the grader's own input layout (a JavaScript case's are its suite's text)."""
    if case["kind"] == "js":
        return {"suite": case["tests"]}
    if case["kind"] == "stdio":
        return {"inputs": case["inputs"], "outputs": case["outputs"], "fn_name": None}
    if grader in ("lcb", "nemo-gym", "verl"):  # one JSON value per line, the output JSON text
        return {"inputs": ["\n".join(json.dumps(a) for a in args) for args in case["args"]],
                "outputs": [json.dumps(e) for e in case["expected"]], "fn_name": case["fn_name"]}
    return {"inputs": case["args"], "outputs": [[e] for e in case["expected"]],  # APPS/TACO wrap each answer
            "fn_name": case["fn_name"]}


DRIVER = r'''
import json, os, sys, types
FILES = json.loads(%(files)r)
GRADER = %(grader)r
TESTS = json.loads(%(tests)r)
PROGRAM = %(program)r
for name, text in FILES.items():
    folder = os.path.join("up", os.path.dirname(name))
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join("up", name), "w") as f:
        f.write(text)
    while folder != "up":  # each folder a package
        open(os.path.join(folder, "__init__.py"), "a").close()
        folder = os.path.dirname(folder)
sys.path.insert(0, os.path.abspath("up"))
import importlib, inspect
if not hasattr(inspect, "getargspec"):  # TACO's and rLLM's pyext2 predate Python 3.11, which removed it
    inspect.getargspec = inspect.getfullargspec
if GRADER in ("open-r1", "rllm", "taco"):  # they run `python3` / `python` from PATH
    os.makedirs("up/bin", exist_ok=True)
    for name in ("python", "python3"):  # a script, not a link: the venv is found from the interpreter's own path
        with open("up/bin/" + name, "w") as f:
            f.write("#!/bin/sh\nexec " + sys.executable + " \"$@\"\n")
        os.chmod("up/bin/" + name, 0o755)
    os.environ["PATH"] = os.path.abspath("up/bin") + os.pathsep + os.environ.get("PATH", "")
if GRADER in ("apps", "verl"):
    pyext = types.ModuleType("pyext")
    class RuntimeModule:
        @staticmethod
        def from_string(name, doc, text):
            module = types.ModuleType(name, doc)
            exec(text, module.__dict__)
            return module
    pyext.RuntimeModule = RuntimeModule
    sys.modules["pyext"] = pyext
if GRADER == "multipl-e-js":
    import subprocess
    with open("main.js", "w") as f:
        f.write(PROGRAM)
    done = subprocess.run(["node", "main.js"], capture_output=True, text=True, timeout=30)
    sys.stdout.write(%(mark)r + json.dumps([done.returncode == 0]) + "\n")
    sys.stdout.flush()
    os._exit(0)
if GRADER == "open-r1":
    import ast, textwrap
    tree = ast.parse(FILES["upstream/rewards.py"])
    fn = next(n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == "code_reward")
    template = next(n.value.value for n in fn.body if isinstance(n, ast.Assign)
                    and getattr(n.targets[0], "id", "") == "evaluation_script_template")
    cases = [{"input": i, "output": o} for i, o in zip(TESTS["inputs"], TESTS["outputs"])]
    script = textwrap.dedent(template).format(code=json.dumps(PROGRAM), test_cases=json.dumps(json.dumps(cases)))
    namespace = {}
    exec(script, namespace)
    rate = namespace["evaluate_code"](namespace["code_snippet"], namespace["test_cases"])
    sys.stdout.write(%(mark)r + json.dumps([rate]) + "\n")
    sys.stdout.flush()
    os._exit(0)
out = sys.stdout
tu = importlib.import_module(%(module)r)
if GRADER == "apps":  # eval/test_one_solution.py: problem["input_output"] = json.loads(the row's text)
    result = tu.run_test(problem={"input_output": TESTS}, test=PROGRAM)
elif GRADER == "nemo-gym":
    result = tu.run_test(TESTS, test=PROGRAM, timeout=6)
elif GRADER == "verl":  # prime_code/__init__.py: apps_check_correctness(in_outs=test_cases, ...)
    result = tu.run_test(TESTS, test=PROGRAM, timeout=5)
elif GRADER == "rllm":  # code_reward.py: check_correctness(tests, code, taco_run_test) calls it so
    result = tu.run_test(TESTS, test=PROGRAM, debug=False, timeout=12)
else:
    result = tu.run_test({"input_output": json.dumps(TESTS)}, test=PROGRAM)
if isinstance(result, tuple):
    result = result[0]
out.write(%(mark)r + json.dumps([r if isinstance(r, (bool, int)) else repr(r) for r in (result or [])]) + "\n")
out.flush()
os._exit(0)
'''


def run_graders(sources: dict[str, str], out_path: str) -> None:
    from sandboxed_driver import run_marked

    from coderl.sandbox import Sandbox
    from coderl.sandbox.types import Limits

    lines = []
    with Sandbox(workers=2) as sandbox:
        for grader, gitdir in sources.items():
            paths, _ = GRADERS[grader]
            commit = subprocess.run(["git", "-C", gitdir, "rev-parse", "HEAD"], capture_output=True, text=True,
                                    check=True).stdout.strip() if paths else None  # multipl-e-js: Node itself
            files = {name: subprocess.run(["git", "-C", gitdir, "show", f"HEAD:{path}"], capture_output=True,
                                          text=True, check=True).stdout for name, path in paths.items()}
            programs = []
            todo = [c for c in cases() if c["kind"] in KINDS.get(grader, {"stdio", "call"})]
            for case in todo:
                text = (case["prompt"] + case["program"] + "\n\n" + case["tests"]) if case["kind"] == "js" else \
                    case["program"]
                program = DRIVER % {"files": json.dumps(files), "grader": grader, "program": text,
                                    "module": MODULES.get(grader, "upstream.testing_util"),
                                    "tests": json.dumps(tests_for(grader, case)), "mark": MARK}
                programs.append(program)
            limits = Limits(cpu_seconds=60, wall_seconds=180, memory_bytes=6 << 30, output_bytes=1 << 20)
            for case, (found, verdicts, error) in zip(todo, run_marked(sandbox, programs, MARK, limits)):
                n = {"stdio": lambda: len(case["inputs"]), "call": lambda: len(case["args"]), "js": lambda: 1}[
                    case["kind"]]()
                if grader == "open-r1":  # its reward is the fraction of tests passed
                    passed = verdicts == [1.0]
                else:
                    passed = verdicts is not None and len(verdicts) == n and all(v is True for v in verdicts)
                lines.append({"grader": grader, "repository_commit": commit, "files": paths,
                              "setup": SETUP.get(grader, ""), "case": case["id"], "upstream_results": verdicts,
                              "upstream_pass": passed,
                              **({} if found else {"driver_error": error[-400:]})})
                print(f"{grader:9} {case['id']:40} {verdicts}", flush=True)
    with open(out_path, "w") as f:
        for line in lines:
            f.write(json.dumps(line) + "\n")
    print(f"wrote {len(lines)} verdicts to {out_path}")


def coderl_verdicts(records: list[dict], sandbox=None) -> list[bool]:
    """coderl's verdict on each recorded case, under the rule of its grader's preset (in `sandbox`, else one of its
    own)."""
    import tempfile

    from coderl.sandbox import Sandbox
    from coderl.sandbox.types import CheckKind, TestCase
    from coderl.tasks import load_tasks
    from coderl.tasks.loaders.call_based import apps_case, call_task, lcb_case, verl_case
    from coderl.tasks.types import Task

    by_id = {c["id"]: c for c in cases()}
    js = [by_id[r["case"]] for r in records if by_id[r["case"]]["kind"] == "js"]
    js_tasks = {}
    if js:  # MultiPL-E rows, loaded as the multipl-e preset loads them
        with tempfile.TemporaryDirectory() as folder:
            path = os.path.join(folder, "rows.jsonl")
            with open(path, "w") as f:
                for c in js:
                    f.write(json.dumps({"name": c["id"].replace("/", "_"), "language": "js", "prompt": c["prompt"],
                                        "tests": c["tests"]}) + "\n")
            js_tasks = {t.task_id: t for t in load_tasks(f"hf:{path}:preset=multipl-e").tasks}
    tasks, programs = [], []
    for rec in records:
        case, grader = by_id[rec["case"]], rec["grader"]
        rule = GRADERS[grader][1]
        tests = tests_for(grader, case)
        if case["kind"] == "js":
            task = js_tasks["js/" + case["id"].replace("/", "_")]
        elif case["kind"] == "stdio":
            task = Task(task_id=case["id"], kind="stdio", prompt="", metadata={"compare": rule},
                        tests=tuple(TestCase(str(i), stdin, CheckKind.STDOUT, stdout)
                                    for i, (stdin, stdout) in enumerate(zip(tests["inputs"], tests["outputs"]))))
        else:
            read = {"lcb": lcb_case, "nemo-gym": lcb_case, "verl": verl_case}.get(grader, apps_case)
            calls = [(*read(i, o, case["id"], "t"), False) for i, o in zip(tests["inputs"], tests["outputs"])]
            task = call_task(task_id=case["id"], question="", code="", fn_name=case["fn_name"], cases=calls,
                             solution=None, where=case["id"], field="fn_name", compare=rule, layout=grader)
        tasks.append(task)
        programs.append(case["program"])
    requests = [t.build_request(p) for t, p in zip(tasks, programs)]
    if sandbox is not None:
        return [r.passed for r in sandbox.run_many(requests)]
    with Sandbox(workers=2) as own:
        return [r.passed for r in own.run_many(requests)]


def compare(path: str) -> int:
    with open(path) as f:
        records = [json.loads(line) for line in f if line.strip()]
    ours = coderl_verdicts(records)
    agree = documented = 0
    other = []
    for rec, mine in zip(records, ours):
        if mine == rec["upstream_pass"]:
            agree += 1
        elif (rec["grader"], rec["case"]) in DISAGREEMENTS:
            documented += 1
        else:
            other.append(f"{rec['grader']} {rec['case']}: upstream {rec['upstream_pass']}, coderl {mine}")
    for grader in GRADERS:
        mine = [(r, m) for r, m in zip(records, ours) if r["grader"] == grader]
        if mine:
            same = sum(m == r["upstream_pass"] for r, m in mine)
            print(f"{grader}: {len(mine)} programs, {same} agree, {len(mine) - same} differ")
    print(f"all: {len(records)} programs, {agree} agreements, {documented} documented disagreements, "
          f"{len(other)} other")
    for line in other:
        print("  " + line)
    return 1 if other else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--source", action="append", default=[], help="NAME=GITDIR (" + ", ".join(GRADERS) + ")")
    parser.add_argument("--out", default=os.path.join(REPO, "tests", "fixtures", "upstream", "grader_verdicts.jsonl"))
    parser.add_argument("--compare", metavar="FILE", help="judge the recorded cases with coderl and count")
    args = parser.parse_args()
    if args.compare:
        return compare(args.compare)
    sources = dict(s.split("=", 1) for s in args.source)
    unknown = [name for name in sources if name not in GRADERS]
    if unknown or not sources:
        print(f"--source: expected NAME=GITDIR with NAME one of {', '.join(GRADERS)}", file=sys.stderr)
        return 2
    run_graders(sources, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
