"""The evidence behind the time-limit rule's floor and factor (`coderl.tasks.time_limits`, docs/tasks.md, "Time
limits"): how far the references' measured CPU seconds spread across runs and under load, what a correct program's
fixed costs (an interpreter start, a numpy import) are under the same conditions, and which known-slow variants
each candidate rule still fails.

    nice -n 19 python scripts/time_limit_evidence.py [--repeats 3] [--out evidence.json]

Two conditions, each `--repeats` runs of every reference of humaneval, easy and stdio-basics: "as is" (2 programs
at once on whatever else the machine runs) and "loaded" (3 programs at once beside 2 busy loops of our own).  The
slow variants are stdin/stdout programs for stdio-basics tasks (brute force, quadratic): each is measured under
`--timeout` and said to fail a rule when its CPU seconds pass the limit the rule derives for its task.
"""

import argparse
import dataclasses
import json
import multiprocessing
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # this checkout's coderl

from coderl.sandbox.config import SandboxConfig  # noqa: E402
from coderl.tasks import load_tasks  # noqa: E402
from coderl.tasks.spec import open_sandbox  # noqa: E402
from coderl.tasks.time_limits import derive, reference_cpu  # noqa: E402

SETS = ("humaneval", "easy", "stdio-basics")
RULES = [(0.25, 4.0), (0.5, 4.0), (0.5, 8.0), (1.0, 4.0)]  # (floor, factor)
# Correct programs with a fixed cost the reference does not pay, for stdio-basics/sum_of_numbers.
FIXED = {
    "plain": "import sys\nd = sys.stdin.read().split()\nprint(sum(int(x) for x in d[1:1 + int(d[0])]))\n",
    "numpy": "import sys\nimport numpy as np\nd = sys.stdin.read().split()\n"
             "print(int(np.array([int(x) for x in d[1:1 + int(d[0])]], dtype=np.int64).sum()))\n",
}
SLOW = {  # task -> a correct but brute-force or quadratic program
    "prime_count": "import sys\nn = int(sys.stdin.read().split()[0])\nc = 0\nfor p in range(2, n + 1):\n"
                   "    d = 2\n    while d * d <= p:\n        if p % d == 0:\n            break\n        d += 1\n"
                   "    else:\n        c += 1\nprint(c)\n",
    "run_length_encoding": "import sys\ns = sys.stdin.read().split()[0]\nout = ''\nwhile s:\n    j = 0\n"
                           "    while j < len(s) and s[j] == s[0]:\n        j += 1\n    out += s[0] + str(j)\n"
                           "    s = s[j:]\nprint(out)\n",
    "running_sums": "import sys\nd = sys.stdin.read().split()\na = [int(x) for x in d[1:1 + int(d[0])]]\n"
                    "print(' '.join(str(sum(a[:i + 1])) for i in range(len(a))))\n",
    "second_largest_distinct": "import sys\nd = sys.stdin.read().split()\na = [int(x) for x in d[1:1 + int(d[0])]]\n"
                               "u = []\nfor x in a:\n    if x not in u:\n        u.append(x)\n"
                               "for i in range(len(u)):\n    for j in range(len(u) - 1 - i):\n"
                               "        if u[j] < u[j + 1]:\n            u[j], u[j + 1] = u[j + 1], u[j]\n"
                               "print(u[1] if len(u) >= 2 else 'NONE')\n",
    "word_frequency": "import sys\nw = sys.stdin.read().split()\nseen = []\nfor x in w:\n    if x not in seen:\n"
                      "        seen.append(x)\nfor x, n in sorted(((x, w.count(x)) for x in seen), key=lambda kv: "
                      "(-kv[1], kv[0])):\n    print(x, n)\n",
    "balanced_brackets": "import sys\nlines = sys.stdin.read().split('\\n')\nfor i in range(1, int(lines[0]) + 1):\n"
                         "    s = lines[i].strip() if i < len(lines) else ''\n    while True:\n"
                         "        t = s.replace('()', '').replace('[]', '').replace('{}', '')\n"
                         "        if t == s:\n            break\n        s = t\n    print('NO' if s else 'YES')\n",
    "max_of_list": "import sys\nd = sys.stdin.read().split()\na = [int(x) for x in d[1:1 + int(d[0])]]\n"
                   "print([x for x in a if all(x >= y for y in a)][0])\n",
}


def burn():
    while True:
        pass


def measure(config, tasks, completions, repeats):
    """[{task id: CPU seconds}] per repeat, every program of `completions` ({task id: code}) run once per repeat."""
    runs = []
    with open_sandbox(config, *SETS) as sandbox:
        for _ in range(repeats):
            futures = {tid: sandbox.submit(tasks[tid].build_request(code, config.limits()))
                       for tid, code in completions.items()}
            results = {tid: f.result() for tid, f in futures.items()}
            runs.append({tid: (reference_cpu(r) if r.passed else None) for tid, r in results.items()})
    return runs


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    tasks = {t.task_id: dataclasses.replace(t, time_limit=None) for spec in SETS for t in load_tasks(spec).tasks
             if t.reference_solution is not None and t.language == "python"}
    references = {tid: t.reference_solution for tid, t in tasks.items()}
    fixed = {f"{name}": code for name, code in FIXED.items()}
    report = {}
    for condition, workers, hogs in (("as is", 2, 0), ("loaded", 3, 2)):
        procs = [multiprocessing.Process(target=burn, daemon=True) for _ in range(hogs)]
        for p in procs:
            p.start()
        try:
            start = time.monotonic()
            config = SandboxConfig(workers=workers)
            runs = measure(config, tasks, references, args.repeats)
            fixed_runs = {name: [] for name in fixed}
            for name, code in fixed.items():
                for run in measure(config, tasks, {"stdio-basics/sum_of_numbers": code}, args.repeats + 2):
                    fixed_runs[name].append(run["stdio-basics/sum_of_numbers"])
            slow = measure(config, tasks, {f"stdio-basics/{k}": v for k, v in SLOW.items()}, 1)[0]
        finally:
            for p in procs:
                p.kill()
        with open("/proc/loadavg") as f:
            load = f.read().split()[0]
        report[condition] = {"runs": runs, "fixed": fixed_runs, "slow": slow, "seconds": time.monotonic() - start,
                             "load": load}
    summarize(report, tasks)
    if args.out:
        with open(args.out, "w") as f:
            json.dump(report, f, indent=1)


def summarize(report, tasks):
    every = [r for cond in report.values() for r in cond["runs"]]
    ids = [tid for tid in tasks if all(r.get(tid) is not None for r in every)]
    for name, cond in report.items():
        per = [max(r[tid] for r in cond["runs"]) for tid in ids]
        spread = sorted(max(r[tid] for r in cond["runs"]) / max(1e-4, min(r[tid] for r in cond["runs"])) for tid in ids)
        print(f"{name} (load {cond['load']}, {cond['seconds']:.0f} s): {len(ids)} references, CPU max "
              f"{max(per):.4f}, p99 {sorted(per)[int(0.99 * len(per))]:.4f}, median {sorted(per)[len(per) // 2]:.4f}; "
              f"max/min across runs median {spread[len(spread) // 2]:.2f}, p99 {spread[int(0.99 * len(spread))]:.2f}")
        for fname, values in cond["fixed"].items():
            print(f"  fixed cost {fname}: CPU {', '.join(f'{v:.3f}' if v is not None else 'fail' for v in values)}")
    quiet, loaded = report["as is"]["runs"], report["loaded"]["runs"]
    for floor, factor in RULES:
        limits = {tid: [derive(r[tid], factor, floor) for r in quiet + loaded] for tid in ids}
        moved = sum(len(set(v)) > 1 for v in limits.values())
        worst = {tid: max(r[tid] for r in loaded) for tid in ids}
        flips = sum(worst[tid] > min(v) for tid, v in limits.items())  # a reference over a limit another run gave
        numpy_worst = max(v for c in report.values() for v in c["fixed"]["numpy"] if v is not None)
        slow_failed = sum(1 for cond in report.values() for tid, cpu in cond["slow"].items() if cpu is None or cpu > (
            derive(max(r[tid] for r in quiet), factor, floor)))
        print(f"rule floor {floor} factor {factor}: limits that differ between runs {moved}/{len(ids)}; references "
              f"over the lowest limit any run gave {flips}; numpy fixed cost {numpy_worst:.3f} "
              f"{'passes' if numpy_worst <= floor else 'FAILS'}; slow variants failed {slow_failed}/"
              f"{sum(len(c['slow']) for c in report.values())}")
    for name, cond in report.items():
        print(f"  slow variants ({name}): " + ", ".join(f"{k.split('/')[1]} {v if v is None else round(v, 3)}"
                                                      for k, v in cond["slow"].items()))


if __name__ == "__main__":
    main()
