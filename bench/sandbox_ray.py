"""The Ray sandbox backend against the local one: executions per second on the same programs.

The 164 HumanEval reference solutions (prompt + solution + tests), run through `Sandbox` (local: one fork
server with W program slots) and through `RaySandbox` (R Ray workers on a local Ray instance, each an
actor holding a `Sandbox` of 1 slot), one configuration after the other, `--rounds` times with the
order rotating; the same limits and isolation.  Ray's start-up (~10 s) is outside the timing: each side
runs one warm-up batch first.  Median executions/s over the rounds.

    python bench/sandbox_ray.py                   # local 1 and 2 slots, Ray 1 and 2 workers
    python bench/sandbox_ray.py --rounds 1        # quicker

Needs ray (pip install 'coderl[ray]').
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time


def requests():
    from coderl.tasks import load_tasks

    return [t.build_request(t.reference_solution) for t in load_tasks("humaneval").tasks]


def measure(make, batch) -> tuple[float, str, int]:
    """(executions/s of one timed batch after a warm-up batch, isolation, passed)"""
    with make() as sandbox:
        sandbox.run_many(batch[:8])
        start = time.perf_counter()
        results = sandbox.run_many(batch)
        seconds = time.perf_counter() - start
        return len(batch) / seconds, sandbox.isolation, sum(r.status.value == "passed" for r in results)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--timeout", type=float, default=3.0)
    args = ap.parse_args()
    try:
        import ray  # noqa: F401
    except ImportError:
        print("bench/sandbox_ray.py: ray is not installed (pip install 'coderl[ray]')")
        return 2
    from coderl.sandbox import Limits, Sandbox
    from coderl.sandbox.ray_backend import RaySandbox

    limits = Limits(cpu_seconds=args.timeout)
    batch = requests()
    sides = {
        "local, 1 slot": lambda: Sandbox(workers=1, limits=limits),
        "local, 2 slots": lambda: Sandbox(workers=2, limits=limits),
        "ray, 1 worker x 1 slot": lambda: RaySandbox(ray_workers=1, workers=1, limits=limits),
        "ray, 2 workers x 1 slot": lambda: RaySandbox(ray_workers=2, workers=1, limits=limits),
    }
    rates: dict[str, list[float]] = {name: [] for name in sides}
    notes: dict[str, tuple] = {}
    names = list(sides)
    for r in range(args.rounds):
        for name in names[r % len(names):] + names[: r % len(names)]:
            rate, isolation, passed = measure(sides[name], batch)
            rates[name].append(rate)
            notes[name] = (isolation, passed)
    import os
    import platform

    print(f"machine: nproc {len(os.sched_getaffinity(0))} | Python {platform.python_version()} | "
          f"{len(batch)} HumanEval references, timeout {args.timeout} s, {args.rounds} rounds (median)")
    print("| backend | executions/s | isolation | passed |")
    print("|---|---|---|---|")
    for name in names:
        isolation, passed = notes[name]
        print(f"| {name} | {statistics.median(rates[name]):.1f} | {isolation} | {passed}/{len(batch)} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
