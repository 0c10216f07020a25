"""What coderl's sandbox adds to one short process: wall and CPU per process, against the process run bare.

Each workload is one request of N tests, every test one process that does almost nothing (~1 ms):

  true       `true` (command mode): exec of a tiny binary
  lua        `lua5.4 main.lua` printing one line (command mode, as the Lua runner runs it)
  python     a Python script printing one line (python_script mode: forked from the warm zygote, no exec)

Sides, one process per test, sequential (one worker, so a process's cost is not hidden behind another's):
  bare               `subprocess.run` of the same argv in a temp dir: what the process costs by itself
  coderl[LEVEL]      this checkout's `Sandbox(workers=1, isolation=LEVEL)` for each --levels level
  before[LEVEL]      with `--before CHECKOUT`: the coderl of another checkout, the same way (in a child process)

Per side: wall per process (the request's wall / N), CPU per process (the sandbox's server, zygotes and
programs, from their rusage; bare: the children's), and the overhead against bare.  Medians of --rounds
alternating rounds (bench/sandbox.py's `alternate`); the load and the foreign CPU are printed per round.

    python bench/process_cost.py --before /tmp/before --levels full,uid,rlimits --rounds 3
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from sandbox import alternate  # noqa: E402  (bench/sandbox.py)

LUA = shutil.which("lua5.4") or shutil.which("lua") or "lua5.4"
WORKLOADS = {
    "true": {"argv": ["true"], "files": {}},
    "lua": {"argv": [LUA, "main.lua"], "files": {"main.lua": "print(1)\n"}},
    "python": {"argv": None, "files": {}, "program": "print(1)\n"},
}


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_bare(name: str, n: int) -> dict:
    spec = WORKLOADS[name]
    argv = spec["argv"] or [sys.executable, "-I", "-S", "main.py"]
    files = dict(spec["files"], **({"main.py": spec["program"]} if spec.get("program") else {}))
    with tempfile.TemporaryDirectory(prefix="coderl-bench-") as d:
        for fname, text in files.items():
            with open(os.path.join(d, fname), "w", encoding="utf-8") as f:
                f.write(text)
        cpu0, t0 = _children_cpu(), time.perf_counter()
        ok = all(subprocess.run(argv, cwd=d, capture_output=True).returncode == 0 for _ in range(n))
        return {"wall": time.perf_counter() - t0, "cpu": _children_cpu() - cpu0, "n": n, "passed": ok}


def _tree_cpu(root: int) -> float:
    """CPU seconds of `root` and its live descendants, with what they reaped."""
    hz = os.sysconf("SC_CLK_TCK")
    stats = {}
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                with open(f"/proc/{name}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            stats[int(name)] = (int(fields[1]), sum(int(x) for x in fields[11:15]) / hz)
    tree, changed = {root}, True
    while changed:
        changed = False
        for pid, (ppid, _) in stats.items():
            if ppid in tree and pid not in tree:
                tree.add(pid)
                changed = True
    return sum(stats[p][1] for p in tree if p in stats)


def run_coderl_here(name: str, n: int, level: str) -> dict:
    """This process's coderl (PYTHONPATH picks the checkout)."""
    from coderl.sandbox import Sandbox
    from coderl.sandbox.types import CheckKind, ExecutionRequest, Limits, Mode, TestCase

    spec = WORKLOADS[name]
    tests = tuple(TestCase(str(i), "", CheckKind.STDOUT, "1" if name != "true" else "") for i in range(n))
    if spec.get("program"):
        request = ExecutionRequest(Mode.PYTHON_SCRIPT, program=spec["program"], tests=tests, limits=Limits())
    else:
        request = ExecutionRequest(Mode.COMMAND, argv=tuple(spec["argv"]), files=spec["files"], tests=tests,
                                   limits=Limits())
    with Sandbox(workers=1, isolation=level, expose=[os.path.dirname(LUA)]) as sandbox:
        sandbox.run(request)  # warm
        server = sandbox.server_info["pid"]
        cpu0, t0 = _tree_cpu(server), time.perf_counter()
        result = sandbox.run(request)
        wall, cpu = time.perf_counter() - t0, _tree_cpu(server) - cpu0
    return {"wall": wall, "cpu": cpu, "n": n, "passed": result.passed, "isolation": result.isolation}


def in_child(args, name: str, level: str, pythonpath: str) -> dict:
    cmd = [sys.executable, os.path.abspath(__file__), "--only", name, "--level", level, "--n", str(args.n)]
    env = dict(os.environ, PYTHONPATH=pythonpath)
    out = subprocess.run(cmd, check=True, stdout=subprocess.PIPE, text=True, env=env)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--workloads", default="true,lua,python")
    ap.add_argument("--levels", default="full", help="isolation levels of the coderl sides, comma-separated")
    ap.add_argument("--n", type=int, default=200, help="processes per request (one test each)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--before", metavar="CHECKOUT")
    ap.add_argument("--json", metavar="PATH")
    ap.add_argument("--only", help=argparse.SUPPRESS)
    ap.add_argument("--level", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.only:
        print(json.dumps(run_coderl_here(args.only, args.n, args.level)))
        return 0
    levels = args.levels.split(",")
    sides = ["bare"] + [f"coderl[{lv}]" for lv in levels] + ([f"before[{lv}]" for lv in levels] if args.before else [])
    raw: dict = {}
    for name in args.workloads.split(","):

        def run_side(side, name=name):
            if side == "bare":
                return run_bare(name, args.n)
            who, level = side[:-1].split("[")
            root = os.path.dirname(HERE) if who == "coderl" else os.path.abspath(args.before)
            return in_child(args, name, level, root)

        raw[name] = alternate(sides, args.rounds, run_side, name)
    print("| workload | side | wall ms/process | CPU ms/process | wall over bare | CPU over bare | passed | "
          "load/foreign per round |")
    print("|---|---|---|---|---|---|---|---|")
    for name, sides_raw in raw.items():
        med = {s: (statistics.median(1000 * x["wall"] / x["n"] for x in sides_raw[s]),
                   statistics.median(1000 * x["cpu"] / x["n"] for x in sides_raw[s])) for s in sides}
        for side in sides:
            wall, cpu = med[side]
            over = "" if side == "bare" else f"+{wall - med['bare'][0]:.2f}"
            over_cpu = "" if side == "bare" else f"+{cpu - med['bare'][1]:.2f}"
            rounds = sides_raw["rounds"]
            machine = " ".join(f"{x['load']:.1f}/{x['foreign']:.2f}" for x in rounds) if side == "bare" else ""
            print(f"| {name} | {side} | {wall:.2f} | {cpu:.2f} | {over} | {over_cpu} | "
                  f"{all(x['passed'] for x in sides_raw[side])} | {machine} |")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump({"args": vars(args), "raw": raw}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
