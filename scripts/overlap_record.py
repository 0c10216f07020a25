"""Write the shipped record of the overlap checks (coderl/tasks/data/overlap_verdicts.json) that the pipeline runs for
the given configs (default: configs/cpu-demo.yaml and configs/cpu-recipe.yaml) before their first stage: which
evaluation and selection tasks each training stage's tasks solve by behaviour (`coderl.pipeline.run.record_overlap`).

Every check runs here, in the sandbox, with the record and the user's cache out of the way; the record then holds
each verdict under its fingerprint (the tasks on both sides, the rules, the limits), so a fresh machine's `make
demo` runs none of them again.  A check that did not finish is an error (run it again).  Run it after a change of
a bundled task set, of coderl/eval/decontaminate.py or of a shipped config's sets (tests/test_overlap_record.py
says when it is due).

    python scripts/overlap_record.py                       # the demo's and the recipe's checks
    python scripts/overlap_record.py configs/cpu-demo.yaml
"""

import glob
import json
import os
import sys
import tempfile

CONFIGS = ("configs/cpu-demo.yaml", "configs/cpu-recipe.yaml")


def main(configs: list[str]) -> None:
    from coderl.base.outputs import write_json
    from coderl.eval import decontaminate
    from coderl.pipeline.plan import load_plan
    from coderl.pipeline.run import record_overlap

    verdicts = {}
    with tempfile.TemporaryDirectory(prefix="coderl-overlap-record-") as tmp:
        os.environ["CODERL_CACHE"] = tmp
        record, decontaminate.VERDICTS = decontaminate.VERDICTS, os.path.join(tmp, "none.json")
        for config in configs:
            plan = load_plan(config, out=os.path.join(tmp, "run", os.path.basename(config)))
            os.makedirs(plan.out)
            rows = record_overlap(plan, log=lambda m: print(f"{config}: {m}", file=sys.stderr))
            undecided = [r for r in rows if r["undecided"]]
            if undecided:
                sys.exit(f"{config}: {undecided[0]['stage']} left {len(undecided[0]['undecided'])} tasks of "
                         f"{undecided[0]['eval_set']} undecided (a check that did not finish): run it again")
        for path in sorted(glob.glob(os.path.join(tmp, "decontamination", "*.json"))):
            with open(path, encoding="utf-8") as f:
                verdicts[os.path.basename(path)[: -len(".json")]] = json.load(f)
    write_json(record, {"configs": list(configs), "verdicts": verdicts})
    print(f"{record}: {len(verdicts)} verdicts of {', '.join(configs)}")


if __name__ == "__main__":
    main(sys.argv[1:] or list(CONFIGS))
