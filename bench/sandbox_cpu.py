"""Where a function task's CPU goes in coderl's sandbox: per program, by process.

Runs the 164 HumanEval references (twice: the second pass is timed) on `Sandbox(workers=W, isolation=LEVEL)` and
reads, from /proc, the CPU time each of the sandbox's processes used during the timed pass:

  server    the fork server's own
  zygote    the zygote's own (forking, reaping, reporting)
  programs  the processes it forked and reaped: programs and their judges
  caller    this process (building requests, reading results, judging values)

and the minor page faults per program of the zygote (its own: after every fork each page it writes is
copy-on-write again) and of its children (a forked CPython writes a refcount on every object it touches).

    python bench/sandbox_cpu.py [--isolation full] [--workers 1]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import time


def _cpu(pid: int) -> tuple[float, float, int, int]:
    """(own, reaped children's) CPU seconds of `pid`, then (own, reaped children's) minor page faults."""
    with open(f"/proc/{pid}/stat") as f:
        fields = [int(x) for x in f.read().rsplit(")", 1)[1].split()[7:15]]
    hz = os.sysconf("SC_CLK_TCK")
    return (fields[4] + fields[5]) / hz, (fields[6] + fields[7]) / hz, fields[0], fields[1]


def _children(pid: int) -> list[int]:
    out = []
    for tid in os.listdir(f"/proc/{pid}/task"):
        with open(f"/proc/{pid}/task/{tid}/children") as f:
            out += [int(x) for x in f.read().split()]
    return out


def _own() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--isolation", default="auto")
    ap.add_argument("--workers", type=int, default=1)
    args = ap.parse_args()
    from coderl.sandbox import Sandbox
    from coderl.tasks import load_tasks

    requests = [t.build_request(t.reference_solution) for t in load_tasks("humaneval")]
    with Sandbox(workers=args.workers, isolation=args.isolation) as sandbox:
        sandbox.run_many(requests)  # the server up and warm
        server = sandbox.server_info["pid"]
        zygotes = [p for p in _children(server) if os.getsid(p) != p]  # not the watchdog (a session of its own)
        watched = {"server": [server], "zygotes": zygotes}
        before = {k: [_cpu(p) for p in pids] for k, pids in watched.items()}
        own, t0 = _own(), time.perf_counter()
        results = sandbox.run_many(requests)
        wall = time.perf_counter() - t0
        after = {k: [_cpu(p) for p in pids] for k, pids in watched.items()}
        own = _own() - own
        isolation = sandbox.isolation
    n = len(requests)
    ms = {k: 1000 * sum(a[0] - b[0] for a, b in zip(after[k], before[k])) / n for k in watched}
    programs = 1000 * sum(a[1] - b[1] for a, b in zip(after["zygotes"], before["zygotes"])) / n
    faults = {i: sum(a[i] - b[i] for a, b in zip(after["zygotes"], before["zygotes"])) / n for i in (2, 3)}
    row = {"isolation": isolation, "workers": args.workers, "passed": sum(r.passed for r in results), "n": n,
           "wall_ms_per_program": round(1000 * wall / n, 2), "server_ms": round(ms["server"], 2),
           "zygotes_ms": round(ms["zygotes"], 2), "programs_ms": round(programs, 2),
           "caller_ms": round(1000 * own / n, 2)}
    parts = ("server_ms", "zygotes_ms", "programs_ms", "caller_ms")
    row["total_ms"] = round(sum(row[k] for k in parts), 2)
    row["zygote_faults"], row["program_faults"] = round(faults[2]), round(faults[3])
    print(json.dumps(row))


if __name__ == "__main__":
    main()
