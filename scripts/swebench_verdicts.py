"""Record SWE-bench's own verdicts on generated test outcomes, as a fixture coderl's grader is tested against.

For a seeded set of cases (FAIL_TO_PASS and PASS_TO_PASS lists, each test's status after the submission: passed,
failed, error, skipped, xfailed, or missing from the log), runs `swebench.harness.grading`'s `get_eval_tests_report`
and `get_resolution_status` -- SWE-bench's code itself, installed from the registry (`pip install --no-deps --target
DIR swebench`; its Docker client is never used: a stand-in module satisfies the import) -- and writes each case with
SWE-bench's verdict to tests/fixtures/repository/swebench_verdicts.json.  `tests/tasks/repository/test_swebench.py`
holds coderl's verdict to them, with the documented differences (docs/tasks.md).

    python scripts/swebench_verdicts.py --swebench DIR [--cases 400] [--seed 0]
"""

from __future__ import annotations

import argparse
import importlib.abc
import importlib.machinery
import json
import random
import sys
import types
from pathlib import Path

STATUSES = ("passed", "failed", "error", "skipped", "xfailed", "missing")
SWE = {"passed": "PASSED", "failed": "FAILED", "error": "ERROR", "skipped": "SKIPPED", "xfailed": "XFAIL"}
OUT = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "repository" / "swebench_verdicts.json"


class _Permissive(type):
    def __getattr__(cls, name):
        return cls


class _Anything(Exception, metaclass=_Permissive):
    """What a stand-in module hands out: any attribute, call, subclass or decoration of it is itself again."""

    def __init__(self, *args, **kwargs):
        pass

    def __getattr__(self, name):
        return self

    def __call__(self, *args, **kwargs):
        return self


class _Stubs(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Empty stand-ins for the packages `swebench.harness` imports to run evaluations in containers or in the cloud:
    grading needs none of them."""

    def __init__(self, names):
        self.names = names

    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in self.names:
            return importlib.machinery.ModuleSpec(name, self, is_package=True)
        return None

    def create_module(self, spec):
        module = types.ModuleType(spec.name)
        module.__path__ = []
        module.__getattr__ = lambda attr: _Anything
        return module

    def exec_module(self, module):
        pass


def cases(n: int, seed: int) -> list[dict]:
    rng = random.Random(seed)
    out = []
    for i in range(n):
        f2p = [f"tests/test_a.py::test_f{j}" for j in range(rng.randint(1, 4))]
        p2p = [f"tests/test_b.py::test_p{j}" for j in range(rng.randint(0, 4))]
        bias = rng.random()  # some cases mostly passing, so FULL and PARTIAL come up
        status = {t: ("passed" if rng.random() < bias else rng.choice(STATUSES)) for t in f2p + p2p}
        out.append({"fail_to_pass": f2p, "pass_to_pass": p2p, "status": status})
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--swebench", required=True, help="a folder swebench is installed in (pip --target)")
    ap.add_argument("--cases", type=int, default=400)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    # clients of containers, clouds and hubs the grading functions never call
    sys.meta_path.insert(0, _Stubs(("docker", "modal", "tenacity", "datasets", "ghapi", "fastcore", "git")))
    sys.path.insert(0, args.swebench)
    from importlib.metadata import version

    from swebench.harness.constants import FAIL_TO_PASS, PASS_TO_PASS
    from swebench.harness.grading import get_eval_tests_report, get_resolution_status

    rows = []
    for case in cases(args.cases, args.seed):
        eval_sm = {t: SWE[s] for t, s in case["status"].items() if s != "missing"}
        gold = {FAIL_TO_PASS: case["fail_to_pass"], PASS_TO_PASS: case["pass_to_pass"]}
        report = get_eval_tests_report(eval_sm, gold)
        rows.append({**case, "swebench": get_resolution_status(report).replace("RESOLVED_", "")})
    OUT.write_text(json.dumps({"swebench": version("swebench"), "seed": args.seed, "cases": rows}, indent=1) + "\n")
    counts: dict[str, int] = {}
    for row in rows:
        counts[row["swebench"]] = counts.get(row["swebench"], 0) + 1
    print(f"{len(rows)} cases, SWE-bench {version('swebench')}: {counts} -> {OUT}")


if __name__ == "__main__":
    main()
