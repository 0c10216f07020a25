"""Measure the references of the bundled and generated task sets (`coderl.tasks.time_limits.BUNDLED`) and write
their CPU seconds by task content to `coderl/tasks/data/time_limits.json`, from which those sets take their time
limits (docs/tasks.md, "Time limits"): `python scripts/time_limits.py` (about 6 minutes on 2 busy cores).  Each limit
is confirmed before it is written (`time_limits.settle`: every reference run again under its limit, one more program
at once than the measuring workers); a raised one is recorded as the CPU seconds it derives from, and a task whose
reference needs `--timeout` is not recorded."""

import dataclasses
import json
import os
import sys
from collections.abc import Sequence

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # this checkout's coderl

from coderl.sandbox.config import SandboxConfig  # noqa: E402
from coderl.tasks import load_tasks  # noqa: E402
from coderl.tasks.spec import open_sandbox  # noqa: E402
from coderl.tasks.time_limits import (  # noqa: E402
    BUNDLED,
    FACTOR,
    RECORDED,
    derive,
    machine_seconds,
    measured,
    settle,
    task_key,
)


def record(specs: Sequence[str] = BUNDLED, path: str = RECORDED, workers: int = 2, repeats: int = 3) -> dict:
    """Measure the references of `specs` in a sandbox (each `repeats` times, the most CPU kept) and write their CPU
    seconds by content to `path`, with this machine's seconds for the calibration workload (`machine_seconds`)."""
    table: dict[str, float] = {}
    config = SandboxConfig(workers=workers)
    busier = SandboxConfig(workers=workers + 1)
    for spec in specs:
        tasks = [dataclasses.replace(t, time_limit=None) for t in load_tasks(spec).tasks
                 if t.reference_solution is not None]
        with open_sandbox(config, spec) as sandbox:
            runs = []
            for _ in range(repeats):
                futures = [sandbox.submit(t.build_request(t.reference_solution, config.limits())) for t in tasks]
                runs.append(measured(tasks, [f.result() for f in futures]))
        by_id = {t.task_id: max(run[t.task_id] for run in runs) for t in tasks}
        with open_sandbox(busier, spec) as sandbox:
            def again(batch):
                return [f.result() for f in [sandbox.submit(t.build_request(t.reference_solution, config.limits()))
                                             for t in batch]]
            limits = settle(tasks, by_id, again, config.timeout)
        for t in tasks:
            limit = limits[t.task_id]
            if limit is not None:
                table[task_key(t)] = by_id[t.task_id] if limit == derive(by_id[t.task_id]) else limit / FACTOR
        print(f"{spec}: {len(tasks)} references, CPU {min(by_id.values()):.4f}-{max(by_id.values()):.4f} s",
              file=sys.stderr)
    with open(path, "w", encoding="utf-8") as f:
        json.dump({"calibration_seconds": round(machine_seconds(), 4),
                   "references": {k: round(v, 4) for k, v in sorted(table.items())}}, f, indent=0)
        f.write("\n")
    return table


if __name__ == "__main__":
    record()
