"""Regenerate MBPP+ rows in the layout Hugging Face publishes (evalplus/mbppplus, `MbppPlus-OriginFmt`) with
EvalPlus's own code, inside coderl's sandbox (issue 100, items 3 and 6).

    python scripts/evalplus_regenerate.py --evalplus /work/.mirror/evalplus+evalplus/repo --out mbppplus.jsonl
    coderl check --tasks "mbppplus.jsonl" ... (read with preset=mbppplus: see docs/data.md)

What it takes from EvalPlus's repository (a clone: the `fetch` tool's mirror), each read with `git show`, never
copied into coderl:
- the release rows: `MbppPlus.jsonl` as last committed (767efcc, 2023-11-16: 399 rows, the v0.1.0 layout with
  `Mbpp/N` ids), evolved to v0.2.0 by `tools/mbpp/fix_v010.py`'s `fix` (its index checks pass on that file: the
  rows line up with the release it was written for);
- `evalplus/data/mbpp.py`'s `mbpp_deserialize_inputs` (tuples and sets the JSON rows cannot carry),
  `evalplus/gen/util/__init__.py`'s `trusted_exec` (the expected outputs: the reference run on each input),
  `evalplus/eval/_special_oracle.py` and `is_floats`, and `tools/mbpp/to_original_fmt.py`'s
  `synthesize_test_code` and `deduplicate` (the `test` text Hugging Face's rows carry), all run in the sandbox
  (the reference is executed; nothing runs on this machine's bare interpreter).

What differs from the published rows, because the sanitized MBPP file (`sanitized-mbpp.json`, where
`to_original_fmt.py` reads `prompt`, `source_file`, `test_imports` and `test_list`) cannot be brought here:
`test_list` is the release row's own `assertion` (EvalPlus's copy of MBPP's asserts) less its import lines, which
are `test_imports` (as the sanitized file splits them); `prompt` is the release prompt's text; `source_file` is
empty.  `code` and `test` are EvalPlus's.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path[:0] = [REPO]

MARK = "\x1eevalplus-row "
RELEASE_COMMIT = "767efcc368e0ef16568bba4ee2f1b005e849e8a6"  # MbppPlus.jsonl's last committed version (v0.1.0)
TOOLS_COMMIT = "26d6d00bb1fd0fa37f39c99d5290da67891d1c5e"  # EvalPlus's code read (its HEAD on 2026-11-29)
FILES = {  # where the driver writes it: its path in EvalPlus's repository (at --rev)
    "mbpp.py": "evalplus/data/mbpp.py",
    "gen_util.py": "evalplus/gen/util/__init__.py",
    "_special_oracle.py": "evalplus/eval/_special_oracle.py",
    "eval_init.py": "evalplus/eval/__init__.py",
    "to_original_fmt.py": "tools/mbpp/to_original_fmt.py",
    "fix_v010.py": "tools/mbpp/fix_v010.py",
}

# The driver: the upstream functions are taken out of their files by name (ast), so that their modules' other
# imports (wget, rich, tqdm, the evaluator's process pool) are not needed; `is_floats` and the special oracles are
# written to files of their own, as to_original_fmt.py reads their source with `inspect.getsource`.
DRIVER = r'''
import ast, copy, inspect, json, os, sys, time
FILES = json.loads(%(files)r)
MODE = %(mode)r
DATA = json.loads(%(data)r)
if hasattr(sys, "set_int_max_str_digits"):
    sys.set_int_max_str_digits(int(10e8))   # as to_original_fmt.py's main does

def pick(text, names):
    tree = ast.parse(text)
    keep = [n for n in tree.body if (isinstance(n, (ast.FunctionDef, ast.ClassDef)) and n.name in names)
            or (isinstance(n, ast.Assign) and any(getattr(t, "id", None) in names for t in n.targets))]
    return "\n\n".join(ast.get_source_segment(text, n) for n in keep)

os.makedirs("up", exist_ok=True)
sys.path.insert(0, os.path.abspath("up"))
with open("up/ep_floats.py", "w") as f:
    f.write("import numpy as np\n\n" + pick(FILES["eval_init.py"], {"is_floats"}) + "\n")
with open("up/ep_oracle.py", "w") as f:
    f.write(FILES["_special_oracle.py"])
import ep_floats, ep_oracle

if MODE == "fix":
    ns = {}
    exec(pick(FILES["fix_v010.py"], {"check_id", "fix"}), ns)
    rows = ns["fix"](DATA)
    sys.stdout.write(%(mark)r + json.dumps(rows) + "\n")
    sys.stdout.flush()
    os._exit(0)

ns = {"deepcopy": copy.deepcopy, "time": time, "inspect": inspect, "is_floats": ep_floats.is_floats,
      "MBPP_OUTPUT_NOT_NONE_TASKS": ep_oracle.MBPP_OUTPUT_NOT_NONE_TASKS,
      "MBPP_OUTPUT_SET_EQ_TASKS": ep_oracle.MBPP_OUTPUT_SET_EQ_TASKS,
      "_surface_Area": ep_oracle._surface_Area, "_digit_distance_nums": ep_oracle._digit_distance_nums}
exec(pick(FILES["mbpp.py"], {"mbpp_deserialize_inputs"}), ns)
exec(pick(FILES["gen_util.py"], {"trusted_exec"}), ns)
exec(pick(FILES["to_original_fmt.py"], {"MBPP_TEST_TEMPLATE", "MBPP_CROSSCHECK_TEMPLATE", "ASSERTION_FN",
                                        "synthesize_test_code", "deduplicate"}), ns)
task = DATA
tid = task["task_id"]
base_input = ns["mbpp_deserialize_inputs"](tid, task["base_input"])   # get_mbpp_plus
plus_input = ns["mbpp_deserialize_inputs"](tid, task["plus_input"])
not_none = task["entry_point"] in ep_oracle.MBPP_OUTPUT_NOT_NONE_TASKS
code = task["prompt"] + task["canonical_solution"]
base, _ = ns["trusted_exec"](code, base_input, task["entry_point"], record_time=True, output_not_none=not_none)
plus, _ = ns["trusted_exec"](code, plus_input, task["entry_point"], record_time=True, output_not_none=not_none)
inputs = base_input + plus_input if len(plus_input) > 0 else base_input     # to_original_fmt.py's main
results = base + plus
inputs, results = ns["deduplicate"](inputs, results)
n = int(tid.split("/")[-1])
_, test = ns["synthesize_test_code"](n, task["entry_point"], inputs, results, task["canonical_solution"],
                                     task["atol"])
ast.parse(test)
sys.stdout.write(%(mark)r + json.dumps({"task_id": n, "test": test}) + "\n")
sys.stdout.flush()
os._exit(0)
'''


def _git(gitdir: str, *args: str) -> str:
    """`git -C gitdir ARGS`'s output; a one-line ConfigError naming --evalplus when git fails."""
    from coderl.base.config import ConfigError

    done = subprocess.run(["git", "-C", gitdir, *args], capture_output=True, text=True)
    if done.returncode != 0:
        why = (done.stderr.strip().splitlines() or [f"exit {done.returncode}"])[-1]
        raise ConfigError(f"--evalplus {gitdir}: git {' '.join(args)}: {why} (expected a clone of "
                          "github.com/evalplus/evalplus holding that commit)")
    return done.stdout


def _run(sandbox, programs: list[str], cpu: float) -> list:
    """Per program: the value its driver printed after MARK, or the tail of its error (`sandboxed_driver`)."""
    from sandboxed_driver import run_marked

    from coderl.sandbox.types import Limits

    limits = Limits(cpu_seconds=cpu, wall_seconds=3 * cpu + 10, memory_bytes=6 << 30, output_bytes=64 << 20)
    return [value if found else error for found, value, error in run_marked(sandbox, programs, MARK, limits)]


def prompt_text(prompt: str) -> str:
    """The release prompt's text: its docstring quotes removed."""
    return prompt.strip().strip("'\"").strip()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--evalplus", required=True, help="a clone of github.com/evalplus/evalplus")
    parser.add_argument("--out", required=True, help="the JSONL file to write (evalplus/mbppplus's layout)")
    parser.add_argument("--version", choices=["v0.1.0", "v0.2.0"], default="v0.2.0",
                        help="v0.1.0: the release rows as committed (399); v0.2.0: after fix_v010 (378; default)")
    parser.add_argument("--rev", default=TOOLS_COMMIT, help="the commit of EvalPlus's code to read (default: the one "
                        "the committed fixture and RESULTS.md were made with)")
    parser.add_argument("--limit", type=int, default=None, help="only the first N tasks")
    args = parser.parse_args()

    from coderl.base.config import ConfigError

    try:
        return _regenerate(args)
    except ConfigError as exc:
        print(f"evalplus_regenerate: {exc}", file=sys.stderr)
        return 2


def _regenerate(args) -> int:
    """Every row regenerated in the sandbox, then written under --out in one piece (`outputs.atomic`, the output
    held against a second command: `ownership.owned`); a row that failed leaves --out unwritten (exit 1)."""
    from coderl.base.outputs import atomic, writable
    from coderl.base.ownership import owned
    from coderl.sandbox import Sandbox

    writable("--out", args.out)
    files = {name: _git(args.evalplus, "show", f"{args.rev}:{path}") for name, path in FILES.items()}
    head = _git(args.evalplus, "rev-parse", args.rev).strip()
    release = [json.loads(line) for line in _git(args.evalplus, "show", f"{RELEASE_COMMIT}:MbppPlus.jsonl")
               .splitlines() if line.strip()]
    with owned(("--out", args.out)), Sandbox(workers=2) as sandbox:
        fixed = release if args.version == "v0.1.0" else _run(sandbox, [DRIVER % {
            "files": json.dumps(files), "mode": "fix", "data": json.dumps(release), "mark": MARK}], cpu=60)[0]
        if not isinstance(fixed, list):
            print(f"fix_v010 failed: {fixed}", file=sys.stderr)
            return 1
        print(f"release rows {len(release)} -> {args.version} rows {len(fixed)} (EvalPlus {head[:7]})", flush=True)
        rows = fixed[:args.limit] if args.limit else fixed
        tests = _run(sandbox, [DRIVER % {"files": json.dumps(files), "mode": "row", "data": json.dumps(r),
                                         "mark": MARK} for r in rows], cpu=120)
        failed = [f"{row['task_id']}: {got.strip().splitlines()[-1] if got.strip() else got}"
                  for row, got in zip(rows, tests) if not isinstance(got, dict)]
        if failed:
            print(f"{len(failed)} of {len(rows)} rows failed; nothing written to {args.out}", file=sys.stderr)
            for line in failed:
                print("  " + line, file=sys.stderr)
            return 1
        with atomic(args.out) as f:
            for row, got in zip(rows, tests):
                lines = [a.strip() for a in row["assertion"].split("\n") if a.strip()]
                imports = [a for a in lines if a.startswith(("import ", "from "))]  # sanitized MBPP's test_imports
                f.write(json.dumps({"task_id": got["task_id"], "code": row["canonical_solution"],
                                    "prompt": prompt_text(row["prompt"]), "source_file": "", "test_imports": imports,
                                    "test_list": [a for a in lines if a not in imports], "test": got["test"]}) + "\n")
    print(f"wrote {len(rows)} rows to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
