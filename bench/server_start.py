"""The sandbox server's start-up, this checkout against an earlier one, in one run.

Per sample, in a child process of its own: a fresh `Sandbox(workers=W)` entered (the exec, the server package's
load, the slots, the zygote, the hello), then its first program (a one-line function task).  The sides alternate
sample by sample (the order flips every round); medians and minima per side.  Issue 76 used it to show that loading
the server as one package (`coderl/sandbox/server/__main__.py`) costs nothing over the 16 loads by path before it.

    python bench/server_start.py --before b590319            # 12 rounds, W = 2
    python bench/server_start.py --before /path/to/checkout --rounds 20 --workers 1
"""

from __future__ import annotations

import argparse
import contextlib
import os
import statistics
import subprocess
import sys

from sandbox import checkout  # bench/sandbox.py: an earlier commit as a temporary worktree

HERE = os.path.dirname(os.path.abspath(__file__))
CHILD = r'''
import sys, time
sys.path.insert(0, sys.argv[1])
from coderl.sandbox import Sandbox
from coderl.sandbox.types import CheckKind, ExecutionRequest, Mode, TestCase
request = ExecutionRequest(Mode.PYTHON_TESTS, program="def f():\n    return 1\n", entry_point="f",
                           tests=(TestCase("0", "candidate()", CheckKind.EQUALS, 1),))
t0 = time.perf_counter()
with Sandbox(workers=int(sys.argv[2])) as sandbox:
    t1 = time.perf_counter()
    result = sandbox.run(request)
    t2 = time.perf_counter()
assert result.status.value == "passed", result
print(t1 - t0, t2 - t1)
'''


def sample(root: str, workers: int) -> tuple[float, float]:
    out = subprocess.run([sys.executable, "-c", CHILD, root, str(workers)], capture_output=True, text=True,
                         cwd="/", check=True)
    start, first = map(float, out.stdout.split())
    return start, first


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--before", required=True, metavar="COMMIT", help="a commit of this repository or a checkout")
    ap.add_argument("--rounds", type=int, default=12)
    ap.add_argument("--workers", type=int, default=2)
    args = ap.parse_args()
    with contextlib.ExitStack() as stack:
        before = args.before if os.path.isdir(args.before) else stack.enter_context(checkout(args.before))
        sides = {"now": os.path.dirname(HERE), "before": before}
        got: dict[str, list[tuple[float, float]]] = {side: [] for side in sides}
        for i in range(args.rounds):
            for side in list(sides)[:: 1 if i % 2 == 0 else -1]:
                got[side].append(sample(sides[side], args.workers))
    print(f"| side | start-up ms, median (min) | first program ms, median | rounds {args.rounds}, W = {args.workers} |")
    print("|---|---|---|---|")
    for side, xs in got.items():
        starts, firsts = [1000 * x[0] for x in xs], [1000 * x[1] for x in xs]
        print(f"| {side} | {statistics.median(starts):.1f} ({min(starts):.1f}) | {statistics.median(firsts):.1f} | |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
