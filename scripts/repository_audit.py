"""Audit a pool of repository tasks in the sandbox: every reference grades FULL and every base NO, and nothing of a
task's fix is readable from its episode (the original function and each hunk of the fix searched for in the working
copy, the environment, the private temp places and every folder of the interpreter's sys.path the view shows).

    python scripts/repository_audit.py POOL [--sample N] [--seed S]

Prints the counts; exit 1 when a reference is not FULL, a base is not NO, a fix is found, or a graded test the base
lacks is not hidden (`node_ids.unhidden_gone`: an issue that may name a test the agent cannot run). The same searches as
tests/tasks/repository/test_repository_tasks.py, on a generated pool's tasks (issue 97, item 4).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from coderl.sandbox import Sandbox  # noqa: E402
from coderl.sandbox.types import ExecutionRequest, Limits, Mode  # noqa: E402
from coderl.tasks.repository.grade import verdict  # noqa: E402
from coderl.tasks.repository.node_ids import unhidden_gone  # noqa: E402
from coderl.tasks.repository.task import load_repository_tasks, repository_of  # noqa: E402
from coderl.tasks.spec import task_files  # noqa: E402
from tests.tasks.repository.test_repository_tasks import SEARCH, _needles  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("pool")
    ap.add_argument("--sample", type=int, default=0, help="tasks drawn (0: all)")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    tasks = load_repository_tasks(args.pool)
    if args.sample:
        tasks = random.Random(args.seed).sample(tasks, min(args.sample, len(tasks)))
    tops = sorted({p for p in sys.path if Path(p).is_dir() and not p.startswith(str(ROOT))})
    counts = {"tasks": len(tasks), "reference_full": 0, "base_no": 0, "fix_found": 0, "files_searched": 0,
              "unhidden_gone": 0}
    found = []
    for task in tasks:
        gone = unhidden_gone(repository_of(task))
        counts["unhidden_gone"] += bool(gone)
        found += [(task.task_id, f"not hidden, not in the base: {gone[:3]}")] if gone else []
    # as every command opens it: the pool and the repositories' installed copies hidden (`spec.task_files`)
    with Sandbox(workers=2, isolation="full", hide=task_files(f"repo:{args.pool}")) as sb:
        futures = [(t, sb.submit(t.build_request(t.reference_solution)), sb.submit(t.build_request("")))
                   for t in tasks]
        for task, ref, base in futures:
            repo = repository_of(task)
            counts["reference_full"] += verdict(repo, ref.result())["status"] == "FULL"
            counts["base_no"] += verdict(repo, base.result())["status"] == "NO"
        for i, task in enumerate(tasks):
            repo = repository_of(task)
            overlay = {p: ({"delete": True} if t is None else t) for p, t in repo.overlay.items()}
            where = ["/sandbox", "/env", "/tmp", "/var/tmp", "/dev/shm", *(tops if i == 0 else [])]
            result = sb.run(ExecutionRequest(
                Mode.COMMAND, argv=(sys.executable, "-I", "-c", SEARCH, *where), tree=repo.tree,
                environment=repo.environment, limits=Limits(cpu_seconds=300),
                files={**overlay, "needles.json": json.dumps([n.hex() for n in _needles(task)])}))
            report = json.loads(result.stdout)
            counts["files_searched"] += report["files"]
            if report["found"]:
                counts["fix_found"] += 1
                found.append((task.task_id, report["found"][:3]))
    print(json.dumps(counts))
    for item in found:
        print("found:", item)
    ok = counts["reference_full"] == counts["base_no"] == len(tasks) and not found
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
