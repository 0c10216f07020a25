"""Executions per second per language runner: coderl's sandbox vs the same commands run bare.

Workloads: the reference solutions of the bundled sets, each as one request (all of its tests):

  python-stdio   stdio-basics, Python references              (python_script mode: one process per test)
  node-stdio     stdio-basics, JavaScript references          (node main.js per test)
  node-values    tests/fixtures/tasks/js_functions.jsonl, hand-written bodies (the values harness, node per test)
  lua-stdio      stdio-basics, Lua references                 (examples/lua/lua.yaml: lua5.4 per test)
  verilog        the 49 Verilog references                    (iverilog once; vvp, yosys, verilator per program)

  sandbox  this checkout: a fresh `Sandbox(workers=W)` per round in a child process, warmed up with one
           program; all requests of a workload submitted at once; exec/s = programs / wall time until the
           last result.
  before   with `--before CHECKOUT`: the coderl of another checkout (a git worktree), the same way.
  bare     the anchor: the same files and argv run with `subprocess.run`, the build once per program and
           each test in a fresh copy of what the build left (as the sandbox gives every test its own work
           dir), on a thread pool of W, with no isolation, limits or judging beyond the exit status; what
           any runner costs before coderl adds anything.

The sides alternate for --rounds rounds (the order rotates); the table shows medians and passed counts
(bare: exit 0 of every process), and per round the load average and the foreign CPU (bench/sandbox.py).
`python bench/runners.py [--rounds 3] [--workers 2] [--only verilog,lua-stdio] [--before /tmp/before]`.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
os.environ.setdefault("CODERL_RUNNERS", os.path.join(ROOT, "examples", "lua", "lua.yaml"))

# Hand-written JavaScript bodies for some JavaScript function tasks (HumanEval problems in JavaScript,
# tests/fixtures/tasks/js_functions.jsonl): the completion after the open header.
JS_BODIES = {
    "HumanEval-js/23": "  return string.length;\n}\n",
    "HumanEval-js/13": "  while (b !== 0) { const t = a % b; a = b; b = t; }\n  return Math.abs(a);\n}\n",
    "HumanEval-js/45": "  return a * h / 2;\n}\n",
    "HumanEval-js/52": "  return l.every(x => x < t);\n}\n",
    "HumanEval-js/60": "  return n * (n + 1) / 2;\n}\n",
}


def workloads() -> dict[str, list[tuple]]:
    """name -> [(task, completion)]."""
    from coderl.tasks.spec import load_tasks

    out: dict[str, list[tuple]] = {}
    for name, language in (("python-stdio", "python"), ("node-stdio", "javascript"), ("lua-stdio", "lua")):
        tasks = load_tasks(f"stdio-basics:language={language}").tasks
        out[name] = [(t, t.reference_solution) for t in tasks]
    js = load_tasks(os.path.join(ROOT, "tests", "fixtures", "tasks", "js_functions.jsonl")).by_id
    out["node-values"] = [(js[k], body) for k, body in JS_BODIES.items() if k in js] * 4
    out["verilog"] = [(t, t.reference_solution) for t in load_tasks("verilog").tasks]
    return out


def run_sandbox(sandbox, items) -> tuple[float, int]:
    requests = [task.build_request(code) for task, code in items]
    start = time.perf_counter()
    results = sandbox.run_many(requests)
    return time.perf_counter() - start, sum(r.passed for r in results)


def _bare_one(request) -> bool:
    """Build once, then each test's argv with its stdin, in fresh temp dirs; True when every exit is 0."""
    with tempfile.TemporaryDirectory(prefix="coderl-bench-") as build_dir:
        for name, text in request.files.items():
            with open(os.path.join(build_dir, name), "w", encoding="utf-8") as f:
                f.write(text)
        if request.mode.value == "python_script":
            with open(os.path.join(build_dir, "main.py"), "w", encoding="utf-8") as f:
                f.write(request.program)
        if request.build_argv and subprocess.run(list(request.build_argv), cwd=build_dir,
                                                 capture_output=True).returncode != 0:
            return False
        ok = True
        for test in request.tests:  # each in a fresh copy of what the build left, as the sandbox runs it
            argv = list(test.argv or request.argv) if request.mode.value == "command" else [sys.executable, "main.py"]
            with tempfile.TemporaryDirectory(prefix="coderl-bench-") as test_dir:
                shutil.copytree(build_dir, test_dir, dirs_exist_ok=True)
                proc = subprocess.run(argv, cwd=test_dir, input=test.source.encode(), capture_output=True, timeout=30)
            ok = ok and proc.returncode == 0
        return ok


def run_bare(items, workers: int) -> tuple[float, int]:
    requests = [task.build_request(code) for task, code in items]
    start = time.perf_counter()
    with ThreadPoolExecutor(max_workers=workers) as pool:
        passed = sum(pool.map(_bare_one, requests))
    return time.perf_counter() - start, passed


def run_sandbox_child(name: str, workers: int, pythonpath: str) -> tuple[float, int]:
    """One round of workload `name` on a fresh sandbox of the checkout at `pythonpath`, in a child process."""
    cmd = [sys.executable, os.path.abspath(__file__), "--child", name, "--workers", str(workers)]
    env = dict(os.environ, PYTHONPATH=pythonpath)
    out = subprocess.run(cmd, check=True, stdout=subprocess.PIPE, text=True, env=env).stdout
    wall, passed = json.loads(out.strip().splitlines()[-1])
    return wall, passed


def child(name: str, workers: int) -> None:
    from coderl.sandbox import Sandbox

    items = workloads()[name]
    with Sandbox(workers=workers) as sandbox:
        run_sandbox(sandbox, items[:1])  # warm-up: the server's start is not timed
        print(json.dumps(run_sandbox(sandbox, items)))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--only", default="", help="comma-separated workloads")
    ap.add_argument("--before", metavar="CHECKOUT", help="also run the coderl of another checkout, alternating")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        child(args.child, args.workers)
        return
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from sandbox import Machine

    loads = workloads()
    if args.only:
        loads = {k: v for k, v in loads.items() if k in args.only.split(",")}
    sides = ["sandbox", "bare"] + (["before"] if args.before else [])
    paths = {"sandbox": ROOT, "before": os.path.abspath(args.before) if args.before else None}
    rows = []
    for name, items in loads.items():
        times = {s: [] for s in sides}
        passed, machine = {}, []
        for r in range(args.rounds):
            with Machine() as m:
                for side in sides[r % len(sides):] + sides[: r % len(sides)]:
                    if side == "bare":
                        wall, ok = run_bare(items, args.workers)
                    else:
                        wall, ok = run_sandbox_child(name, args.workers, paths[side])
                    times[side].append(wall)
                    passed[side] = ok
            machine.append(f"{m.load:.1f}/{m.foreign:.2f}")
            print(f"# {name} round {r + 1}: load {m.load:.2f}, foreign CPU {m.foreign:.2f} | "
                  + ", ".join(f"{s} {len(items) / times[s][-1]:.1f}/s" for s in sides), flush=True)
        tests = sum(len(t.build_request(c).tests) for t, c in items)
        rows.append((name, len(items), tests, {s: statistics.median(times[s]) for s in sides}, passed, machine))
    print(f"# bench/runners.py  {datetime.date.today()}  {platform.processor() or platform.machine()}  "
          f"{os.cpu_count()} CPUs  workers {args.workers}  rounds {args.rounds}  isolation full")
    print("| workload | programs | processes/program | sandbox exec/s | bare exec/s | sandbox / bare | "
          + ("before exec/s | before / bare | " if args.before else "")
          + "passed (sandbox, bare) | load/foreign per round |")
    print("|---|---|---|---|---|---|" + ("---|---|" if args.before else "") + "---|---|")
    for name, n, tests, med, ok, machine in rows:
        before = (f"{n / med['before']:.1f} | {med['bare'] / med['before']:.2f}x | " if args.before else "")
        print(f"| {name} | {n} | {tests / n:.1f} | {n / med['sandbox']:.1f} | {n / med['bare']:.1f} | "
              f"{med['bare'] / med['sandbox']:.2f}x | {before}{ok['sandbox']}, {ok['bare']} of {n} | "
              f"{' '.join(machine)} |")


if __name__ == "__main__":
    main()
