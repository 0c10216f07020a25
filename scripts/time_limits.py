"""Measure the references of the bundled and generated task sets (`coderl.tasks.time_limits.BUNDLED`) and write
their CPU seconds by task content to `coderl/tasks/data/time_limits.json`, from which those sets take their time
limits (docs/tasks.md, "Time limits"): `python scripts/time_limits.py` (about 4 minutes on 2 busy cores)."""

import dataclasses
import json
import os
import sys
from collections.abc import Sequence

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # this checkout's coderl

from coderl.sandbox.config import SandboxConfig  # noqa: E402
from coderl.tasks import load_tasks  # noqa: E402
from coderl.tasks.spec import open_sandbox  # noqa: E402
from coderl.tasks.time_limits import BUNDLED, RECORDED, measured, task_key  # noqa: E402


def record(specs: Sequence[str] = BUNDLED, path: str = RECORDED, workers: int = 2, repeats: int = 3) -> dict:
    """Measure the references of `specs` in a sandbox (each `repeats` times, the most CPU kept) and write their CPU
    seconds by content to `path`."""
    table: dict[str, float] = {}
    config = SandboxConfig(workers=workers)
    for spec in specs:
        tasks = [dataclasses.replace(t, time_limit=None) for t in load_tasks(spec).tasks
                 if t.reference_solution is not None]
        with open_sandbox(config, spec) as sandbox:
            runs = []
            for _ in range(repeats):
                futures = [sandbox.submit(t.build_request(t.reference_solution, config.limits())) for t in tasks]
                runs.append(measured(tasks, [f.result() for f in futures]))
        by_id = {t.task_id: max(run[t.task_id] for run in runs) for t in tasks}
        table.update({task_key(t): by_id[t.task_id] for t in tasks})
        print(f"{spec}: {len(tasks)} references, CPU {min(by_id.values()):.4f}-{max(by_id.values()):.4f} s",
              file=sys.stderr)
    with open(path, "w", encoding="utf-8") as f:
        json.dump({k: round(v, 4) for k, v in sorted(table.items())}, f, indent=0)
        f.write("\n")
    return table


if __name__ == "__main__":
    record()
