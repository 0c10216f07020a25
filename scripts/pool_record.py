"""Write the RL pool's decontamination record (coderl/tasks/data/pool_leaks.json) from a `coderl decontaminate
--out` run of the pool against its evaluation sets (`coderl.tasks.generators.pool`'s docstring gives both commands)."""

import json
import os
import sys

from coderl.tasks import load_tasks
from coderl.tasks.generators.pool import AGAINST, POOL_SPEC, RECORD, generated
from coderl.tasks.types import digest


def write_record(run_json: str) -> dict:
    """The record from a `coderl decontaminate --out` run of `POOL_SPEC` against `AGAINST` (checked)."""
    with open(run_json, encoding="utf-8") as f:
        run = json.load(f)
    if run["tasks"] != POOL_SPEC or run["against"] != AGAINST.split():
        sys.exit(f"{run_json}: a run of {run['tasks']!r} against {run['against']}, not of the pool "
                 f"({POOL_SPEC!r} against {AGAINST.split()})")
    behaviour = run["behaviour"]
    if behaviour["incomplete"]:
        sys.exit(f"{run_json}: {len(behaviour['incomplete'])} evaluation tasks undecided; run it again")
    pairs = behaviour["leaks"] + behaviour["same"]
    evals = [t for s in AGAINST.split() for t in load_tasks(s).tasks]
    record = {"pool": POOL_SPEC, "against": AGAINST, "pool_digest": digest(generated()),
              "against_digest": digest(evals), "pairs": behaviour["pairs"], "timeouts": len(behaviour["timeouts"]),
              "leaked_pairs": len(pairs), "leaked": sorted({t for t, _ in pairs}),
              "solved": sorted({e for _, e in pairs})}
    with open(RECORD + ".tmp", "w", encoding="utf-8") as f:
        json.dump(record, f, indent=0)
        f.write("\n")
    os.replace(RECORD + ".tmp", RECORD)
    return record


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: python scripts/pool_record.py RUN.json   (the .json of `coderl decontaminate --out RUN`)")
    made = write_record(sys.argv[1])
    print(f"{RECORD}: {len(made['leaked'])} of the pool's tasks leak ({made['leaked_pairs']} pairs of "
          f"{made['pairs']}); {len(made['solved'])} evaluation tasks solved by them; {made['timeouts']} pairs timed "
          "out (counted as failing)")
