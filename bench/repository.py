"""Repository tasks: what a grading run, an episode's set-up and a whole episode cost, against plain pytest on the
same tests in a copied tree (issue 97).

Sides, per task and round, alternating (the order rotates every round), in one process:
  pytest (host)     the anchor: the task's base with the gold patch's files, copied into a fresh temp folder
                    (shutil.copytree), then `python -m pytest -q -p no:cacheprovider IDS` in it (plugin autoload off,
                    the source root on PYTHONPATH): what a user runs by hand, without a sandbox
  pytest (sandbox)  the same command in coderl's sandbox (a COMMAND request with the tree and the environment; no
                    restoration, reporter or tripwire): what the sandbox alone adds
  grade             coderl's grading run of the gold patch (`grade.grading_request`): restoration, coderl's
                    configuration, the reporter on its channel, the tripwire
  episode set-up    the first request of an episode (its working copy made from the tree, `true` run in it)
  episode           set-up, one edit command (the gold patch applied with git apply in the working copy), the
                    snapshot, the submission's files, their grading run, the episode closed

Wall seconds per side (median over rounds and tasks), and the grade / pytest (host) ratio (the goal: <= 1.5).
Episodes per second per core: 1 / (the episode's median wall x the cores it kept busy, measured as the sandbox
programs' CPU over the wall).  Run it alone: timings beside other jobs measure the other jobs.

    python bench/repository.py                      # the fixture repository's pool, 3 rounds
    python bench/repository.py --pool DIR --tasks 8 # a generated pool (coderl tasks repos)
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from coderl.sandbox import Sandbox  # noqa: E402
from coderl.sandbox.types import ExecutionRequest, Limits, Mode, file_bytes  # noqa: E402
from coderl.tasks.repository.grade import base_files, grading_request, submission_files  # noqa: E402
from coderl.tasks.repository.task import load_repository_tasks, repository_of  # noqa: E402


def fixed_tree(repo, gold: str, where: Path) -> Path:
    """The base with the fix, written out: the tree and overlay, then the gold patch applied by git apply."""
    for rel, (data, mode) in base_files(repo).items():
        path = where / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        os.chmod(path, mode)
    for rel, text in repo.test_patch.items():
        if text is not None:
            (where / rel).write_text(text)
    subprocess.run(["git", "apply", "-"], input=gold, text=True, cwd=where, check=True,
                   env={"PATH": "/usr/bin:/bin", "GIT_CONFIG_NOSYSTEM": "1", "HOME": str(where)})
    return where


def pytest_host(repo, gold: str) -> float:
    start = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        tree = fixed_tree(repo, gold, Path(tmp) / "base")
        copy = shutil.copytree(tree, Path(tmp) / "copy")
        env = {"PATH": os.environ["PATH"], "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1",
               "PYTHONPATH": os.pathsep.join(str(copy / r) for r in repo.roots), "PYTHONDONTWRITEBYTECODE": "1"}
        start = time.perf_counter()  # the copy and the run, as a user's
        shutil.rmtree(copy)
        shutil.copytree(tree, copy)
        subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                        *repo.fail_to_pass, *repo.pass_to_pass], cwd=copy, env=env, capture_output=True)
        return time.perf_counter() - start


def pytest_sandbox(sb, repo, fixed: dict) -> float:
    ids = [*repo.fail_to_pass, *repo.pass_to_pass]
    code = (f"import sys; sys.path[:0] = ['/env/site'] + ['/sandbox/' + r for r in {list(repo.roots)!r}]; "
            "import pytest; "
            f"sys.exit(pytest.main(['-q', '-p', 'no:cacheprovider', *{ids!r}]))")
    request = ExecutionRequest(Mode.COMMAND, argv=(os.path.realpath(sys.executable), "-I", "-S", "-B", "-c", code),
                               tree=repo.tree, environment=repo.environment, files=fixed,
                               limits=Limits(cpu_seconds=repo.cpu_seconds, disk_bytes=512 * 2**20))
    start = time.perf_counter()
    sb.run(request)
    return time.perf_counter() - start


def grade(sb, repo, gold: str) -> tuple[float, float]:
    start = time.perf_counter()
    result = sb.run(grading_request(repo, patch=gold))
    assert result.passed, (result.status, result.message)
    return time.perf_counter() - start, result.cpu_seconds


def episode(sb, repo, gold: str, name: str) -> tuple[float, float, float]:
    """(set-up wall, whole episode wall, CPU of its programs)."""
    overlay = {p: ({"delete": True} if t is None else t) for p, t in repo.overlay.items()}
    start = time.perf_counter()
    first = sb.run(ExecutionRequest(Mode.COMMAND, argv=("true",), tree=repo.tree, files=overlay, episode=name))
    setup = time.perf_counter() - start
    edit = sb.run(ExecutionRequest(Mode.COMMAND, argv=("git", "apply", "fix.patch"), episode=name,
                                   files={"fix.patch": file_bytes(gold.encode())}))
    snapshot = sb.snapshot_episode(name)
    snapshot.pop("fix.patch", None)
    result = sb.run(grading_request(repo, files=submission_files(repo, snapshot)))
    sb.close_episode(name)
    assert edit.exit_code == 0 and result.passed, (edit.stderr, result.status, result.message)
    return setup, time.perf_counter() - start, first.cpu_seconds + edit.cpu_seconds + result.cpu_seconds


def cpu_name() -> str:
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pool", help="a generated pool (default: one generated now from the fixture repository)")
    ap.add_argument("--tasks", type=int, default=6, help="tasks of the pool timed")
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    pool = args.pool
    if pool is None:
        from coderl.tasks.repository.generate import RepoInput, generate

        pool = tempfile.mkdtemp(prefix="coderl-bench-pool-")
        with Sandbox(workers=2, isolation="full") as sb:
            generate(sb, [RepoInput("minilib", ROOT / "tests/fixtures/repository/minilib", "minilib")], pool,
                     per_function=1, max_tasks=args.tasks, log=lambda line: None)
    tasks = load_repository_tasks(pool)[: args.tasks]
    print(f"{len(tasks)} tasks of {pool}; CPU: {cpu_name()}, {os.cpu_count()} cores; load {os.getloadavg()[0]:.2f}")
    times: dict[str, list[float]] = {k: [] for k in ("pytest (host)", "pytest (sandbox)", "grade", "episode set-up",
                                                     "episode")}
    busy: list[float] = []
    with Sandbox(workers=1, isolation="full") as sb:
        sb.run(ExecutionRequest(Mode.COMMAND, argv=("true",)))  # the server's start is not timed
        for round_ in range(args.rounds):
            for i, task in enumerate(tasks):
                repo, gold = repository_of(task), task.reference_solution
                with tempfile.TemporaryDirectory() as tmp:
                    fixed = {rel: file_bytes(data, mode) for rel, (data, mode) in
                             ((str(p.relative_to(tmp)), (p.read_bytes(), p.stat().st_mode & 0o755))
                              for p in fixed_tree(repo, gold, Path(tmp)).rglob("*") if p.is_file())}
                sides = ["host", "sandbox", "grade", "episode"]
                shift = (round_ + i) % len(sides)
                for side in sides[shift:] + sides[:shift]:
                    if side == "host":
                        times["pytest (host)"].append(pytest_host(repo, gold))
                    elif side == "sandbox":
                        times["pytest (sandbox)"].append(pytest_sandbox(sb, repo, fixed))
                    elif side == "grade":
                        times["grade"].append(grade(sb, repo, gold)[0])
                    else:
                        setup, whole, cpu = episode(sb, repo, gold, f"bench-{round_}-{i}")
                        times["episode set-up"].append(setup)
                        times["episode"].append(whole)
                        busy.append(cpu / whole)
    print("| side | wall s (median) | min | max |")
    print("|---|---|---|---|")
    for side, values in times.items():
        print(f"| {side} | {statistics.median(values):.3f} | {min(values):.3f} | {max(values):.3f} |")
    ratio = statistics.median(times["grade"]) / statistics.median(times["pytest (host)"])
    cores = max(statistics.median(busy), 1e-9)
    print(f"grade / pytest (host): {ratio:.2f}x (goal <= 1.5x); episodes per second per core: "
          f"{1 / (statistics.median(times['episode']) * cores):.2f} (an episode keeps {cores:.2f} cores busy)")


if __name__ == "__main__":
    main()
