"""Recompute a sample of RESULTS.md's tables from what results/ keeps, and compare them with RESULTS.md.

    python scripts/check_results_tables.py            # exit 0 when every figure matches
    python scripts/check_results_tables.py --list     # the tables it checks, one a line
    python scripts/check_results_tables.py --only check_math

Reads only tracked files: RESULTS.md and results/ (summary.json, each evaluation's results.md with its per-task
table, report/report.json, and the samples.jsonl.gz a figure needs; results/README.md says what a folder keeps).
Each check rebuilds a table's cells the way the run's command wrote them and compares them with the cells of the
table in its RESULTS.md section (bold, `\\*` and the typographic minus do not count).  One line per mismatch, exit 1.
Intervals use `coderl.eval.stats` (pure Python, seeded), as `coderl compare`, the pipeline's report and
scripts/learning_report.py do; the math table is scripts/math_table.py's own.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import re
import sys
from decimal import ROUND_HALF_UP, Decimal

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path[:0] = [REPO, os.path.join(REPO, "scripts")]

from coderl.eval.stats import paired_bootstrap_ci  # noqa: E402

# ---- RESULTS.md ---------------------------------------------------------------------------------------------------

def sections(text: str) -> dict[str, list[str]]:
    """{heading text: its lines up to the next heading}; lines in ``` blocks are never headings."""
    out: dict[str, list[str]] = {}
    current, fenced = "", False
    for line in text.splitlines():
        if line.startswith("```"):
            fenced = not fenced
        elif not fenced and re.match(r"#{1,4} ", line):
            current = line.lstrip("#").strip()
            out[current] = []
            continue
        out.setdefault(current, []).append(line)
    return out


def norm(cell: str) -> str:
    return re.sub(r"\s+", " ", cell.replace("**", "").replace("\\*", "").replace("\u2212", "-")).strip()


def tables(lines: list[str]) -> list[list[list[str]]]:
    """The section's Markdown tables: rows of normalised cells, the header row first, the |---| row left out."""
    found: list[list[list[str]]] = []
    previous = False
    for line in lines:
        row = line.strip()
        if row.startswith("|") and row.endswith("|"):
            cells = [norm(c) for c in row[1:-1].split("|")]
            if all(re.fullmatch(r":?-+:?", c) for c in cells):
                continue
            if not previous:
                found.append([])
            found[-1].append(cells)
            previous = True
        else:
            previous = False
    return found


class Results:
    def __init__(self, path: str):
        with open(path, encoding="utf-8") as f:
            self.text = f.read()
        self.sections = sections(self.text)

    def section(self, heading: str) -> list[str]:
        for name, lines in self.sections.items():
            if name.startswith(heading):
                return lines
        raise LookupError(f"RESULTS.md has no section starting {heading!r}")

    def table(self, heading: str, header_start: str) -> list[list[str]]:
        for t in tables(self.section(heading)):
            if " | ".join(t[0]).startswith(header_start):
                return t
        raise LookupError(f"section {heading!r}: no table whose header starts {header_start!r}")


# ---- what results/ keeps -------------------------------------------------------------------------------------------

def path(*parts: str) -> str:
    return os.path.join(REPO, "results", *parts)


def summary(*parts: str) -> dict:
    with open(path(*parts, "summary.json"), encoding="utf-8") as f:
        return json.load(f)


def report(*parts: str) -> dict:
    """A pipeline's report.json, or its report.json.gz where the folder keeps it compressed."""
    where = path(*parts)
    if not os.path.exists(where) and os.path.exists(where + ".gz"):
        with gzip.open(where + ".gz", "rt", encoding="utf-8") as f:
            return json.load(f)
    with open(where, encoding="utf-8") as f:
        return json.load(f)


def per_task(*parts: str) -> dict[str, tuple[int, int, float]]:
    """{task: (passed, samples, mean tokens)} from an evaluation's results.md (`coderl eval`'s per-task table)."""
    out = {}
    with open(path(*parts, "results.md"), encoding="utf-8") as f:
        for line in f:
            m = re.match(r"\| (\S+) \| (\d+)/(\d+) \| ([\d.]+) \|$", line.rstrip("\n"))
            if m:
                out[m[1]] = (int(m[2]), int(m[3]), float(m[4]))
    if not out:
        raise LookupError(f"{path(*parts, 'results.md')}: no per-task table")
    return out


def paired(before: dict, after: dict) -> tuple[str, int, int, int]:
    """`+0.080 [+0.020, +0.160]` (per-task pass rates, 95% paired bootstrap over tasks, seed 0) and the tasks better,
    worse and the same, as scripts/learning_report.py prints them."""
    if set(before) != set(after):
        raise LookupError("two evaluations of different tasks")
    ids = sorted(before)
    b = [before[t][0] / before[t][1] for t in ids]
    a = [after[t][0] / after[t][1] for t in ids]
    mean, lo, hi = paired_bootstrap_ci(b, a)
    better, worse = sum(y > x for x, y in zip(b, a)), sum(y < x for x, y in zip(b, a))
    return f"{mean:+.3f} [{lo:+.3f}, {hi:+.3f}]", better, worse, len(ids) - better - worse


def interval(mean: float, ci) -> str:
    return f"{mean:+.3f} [{ci[0]:+.3f}, {ci[1]:+.3f}]"


def half_up(value: float) -> str:
    """Three decimals, a half rounded up, as the issue-6 table was written: 115 / 400 = 0.2875 is 0.288 there (the
    run's own results.md, formatted by Python, prints 0.287)."""
    return str(Decimal(repr(value)).quantize(Decimal("0.001"), rounding=ROUND_HALF_UP))


def ci_cell(value: float, ci) -> str:
    return f"{value:.3f} [{ci[0]:.3f}, {ci[1]:.3f}]"


# ---- the checks: each yields (where, RESULTS.md's cell, the recomputed one) ---------------------------------------

def check_baseline(res: Results):
    """Baseline: pass@1 [CI], passed / tasks, tokens and truncation of each `coderl eval` (summary.json)."""
    t = res.table("Baseline: the bundled", "tasks | split | format")
    runs = {("`humaneval`", "train (131)", "completion"): "humaneval-train-completion",
            ("`humaneval`", "train (131)", "chat"): "humaneval-train-chat",
            ("`humaneval`", "test (33)", "completion"): "humaneval-test-completion",
            ("`humaneval`", "test (33)", "chat"): "humaneval-test-chat",
            ("`synthetic:level=1,n=50,split=test`", "held-out compositions", "chat"): "synthetic-L1-chat",
            ("`synthetic:level=2,n=50,split=test`", "held-out compositions", "chat"): "synthetic-L2-chat",
            ("`synthetic:level=3,n=50,split=test`", "held-out compositions", "chat"): "synthetic-L3-chat",
            ("`easy` (hand-written, never tuned on)", "all 76", "chat"): "easy-chat"}
    rows = {tuple(r[:3]): r for r in t[1:]}
    for key, run in runs.items():
        s = summary("baseline", run)
        want = [ci_cell(s["pass_at_k"]["pass@1"], s["pass_at_k_ci95"]["pass@1"]),
                f"{s['tasks_all_passed']} / {s['num_tasks']}", f"{s['avg_gen_tokens']:.1f}",
                f"{round(100 * s['truncated_rate'])}%"]
        yield from zip([f"baseline {run} col {i}" for i in range(4, 8)], rows[key][3:7], want)
    for fmt in ("completion", "chat"):  # all 164: the train and test runs together
        a, b = summary("baseline", f"humaneval-train-{fmt}"), summary("baseline", f"humaneval-test-{fmt}")
        n, k = a["num_tasks"] + b["num_tasks"], a["tasks_all_passed"] + b["tasks_all_passed"]
        tokens = (a["avg_gen_tokens"] * a["num_tasks"] + b["avg_gen_tokens"] * b["num_tasks"]) / n
        row = rows[("`humaneval`", "all 164 (train + test)", fmt)]
        yield from zip([f"baseline all-164 {fmt} col {i}" for i in (4, 5, 6)], row[3:6],
                       [f"{k / n:.3f}", f"{k} / {n}", f"{tokens:.1f}"])


def check_math(res: Results):
    """Math: both tables, from the six evaluations' samples.jsonl.gz by scripts/math_table.py (marked answers and
    the paired difference need the samples)."""
    from math_table import table

    math_tables = [t for t in tables(res.section("Math: the base model")) if t[0][0] == "tasks"]
    runs = [[("math-cpu/base-eval", "math-cpu/eval/grpo"), ("math-cpu/valid-base", "math-cpu/valid-grpo")],
            [("math-cpu/base-eval", "math-sft/eval-test"), ("math-cpu/valid-base", "math-sft/eval-valid")]]
    for t, pairs in zip(math_tables, runs):
        text = table([(name, path(b), path(a)) for name, (b, a) in zip(("math@test", "math@valid"), pairs)])
        computed = [[norm(c) for c in line.strip()[1:-1].split("|")] for line in text.splitlines()[2:]]
        for row, want in zip(t[1:], computed):
            yield from zip([f"math {pairs[0][1]} {want[0]} col {i}" for i in range(2, 7)], row[1:], want[1:])


def check_grpo_cpu(res: Results):
    """GRPO on CPU (issue 6): pass@1 (and pass@5) before -> after, the paired difference, tokens; summaries and the
    per-task tables of the ten evaluations."""
    t = res.table("GRPO on CPU: a 14-minute run", "held-out set")
    for row, run in zip(t[1:], ("greedy-valid", "greedy-test", "n8-test", "greedy-easy", "n8-easy")):
        b, a = summary("grpo-cpu", "base", run), summary("grpo-cpu", "eval", run)
        cell = f"{half_up(b['pass_at_k']['pass@1'])} -> {half_up(a['pass_at_k']['pass@1'])}"
        if "pass@5" in a["pass_at_k"]:
            cell += f" (pass@5 {half_up(b['pass_at_k']['pass@5'])} -> {half_up(a['pass_at_k']['pass@5'])})"
        diff = paired(per_task("grpo-cpu", "base", run), per_task("grpo-cpu", "eval", run))[0]
        tokens = f"{b['avg_gen_tokens']:.1f} -> {a['avg_gen_tokens']:.1f}"
        yield from zip([f"grpo-cpu {run} col {i}" for i in (3, 4, 5)],
                       [c.replace("\u2192", "->") for c in row[2:5]], [cell, diff, tokens])


def check_cpu_recipe(res: Results):
    """The longer CPU recipe (issue 17): the easy comparisons (report.json) and HumanEval test at n = 8 (summaries;
    tasks with any pass and the paired differences from the per-task tables)."""
    heading = "The longer CPU recipe (issue 17)"
    diffs = {(d["before"], d["after"]): d for d in report("cpu-recipe", "report", "report.json")["paired_differences"]}
    t = res.table(heading, "comparison (easy, greedy)")
    for row, key in zip(t[1:], [("base-eval", "eval/sft"), ("base-eval", "eval/grpo"), ("eval/sft", "eval/grpo")]):
        d = diffs[key]
        yield from zip([f"cpu-recipe easy {key[1]} vs {key[0]}"] * 2, row[1:3],
                       [interval(d["delta"], d["ci95"]), f"{d['better']} / {d['worse']} / {d['same']}"])
    t = res.table(heading, "checkpoint | pass@1 | pass@5")
    tasks = {name: per_task("cpu-recipe", "humaneval-test-n8", name) for name in ("base", "sft", "grpo")}
    for row, name in zip(t[1:], ("base", "sft", "grpo")):
        s = summary("cpu-recipe", "humaneval-test-n8", name)
        any_pass = sum(passed > 0 for passed, _, _ in tasks[name].values())
        want = [f"{s['pass_at_k']['pass@1']:.3f}", f"{s['pass_at_k']['pass@5']:.3f}",
                f"{s['samples_passed']} / {s['num_samples']}", f"{any_pass} / {len(tasks[name])}",
                f"{s['avg_gen_tokens']:.1f}"]  # truncation: RESULTS.md's 24% is 23.5% rounded twice (62 of 264)
        yield from zip([f"cpu-recipe humaneval-n8 {name} col {i}" for i in range(2, 7)], row[1:6], want)
    lines = res.section(heading)
    for label, b, a in (("SFT vs base", "base", "sft"), ("GRPO vs base", "base", "grpo"),
                        ("GRPO vs SFT", "sft", "grpo")):
        diff, better, worse, _ = paired(tasks[b], tasks[a])
        found = next((norm(x) for x in lines if x.startswith(f"- {label}: ")), "")
        m = re.match(r"- .*?: (.*\]), with (\d+) (?:tasks )?better and (\d+) worse", found)
        got = f"{m[1]}, {m[2]} better, {m[3]} worse" if m else found or "(no such line)"
        yield f"cpu-recipe humaneval-n8 {label}", got, f"{diff}, {better} better, {worse} worse"


def check_rl_signal(res: Results):
    """RL that has a signal (issue 39): corpus@valid and HumanEval rows, from the summaries and per-task tables."""
    t = res.table("RL that has a signal", "set | base | SFT")
    rows = {r[0]: r for r in t[1:]}
    runs = {"corpus@valid (141, greedy)": "corpus-valid", "HumanEval test (33 x 8, T 0.8)": "humaneval-test-n8"}
    for label, folder in runs.items():
        row = rows[label.replace(" x ", " \u00d7 ")]
        base_dir = ("cpu-recipe", "humaneval-test-n8", "base") if folder == "humaneval-test-n8" else \
            ("cpu-rl-signal", folder, "base")  # HumanEval's base run is issue 17's (learning-report.txt)
        dirs = {"base": base_dir, "sft": ("cpu-rl-signal", folder, "sft"), "grpo": ("cpu-rl-signal", folder, "grpo")}
        cells = []
        for name in ("base", "sft", "grpo"):
            s = summary(*dirs[name])
            cells.append(f"{s['pass_at_k']['pass@1']:.3f} / {s['avg_gen_tokens']:.1f}" +
                         (" tok" if name == "base" else ""))
        per = {name: per_task(*d) for name, d in dirs.items()}
        for before, after in (("base", "sft"), ("sft", "grpo")):
            diff, better, worse, same = paired(per[before], per[after])
            cells.append(diff + (f", {better}/{worse}/{same}" if folder == "corpus-valid" else ""))
        yield from zip([f"rl-signal {folder} col {i}" for i in range(2, 7)], row[1:6], cells)


def check_maps_n16(res: Results):
    """Difficulty maps at n = 16 (issue 39): every map's row, from its summary.json."""
    t = res.table("Difficulty maps at n = 16", "pool | policy | tasks")
    folders = ["corpus-warmups", "synthetic-l1", "synthetic-l2", "synthetic-l3", "humaneval-train", "corpus-standard"]
    for i, row in enumerate(t[1:]):
        s = summary("maps-n16", folders[i // 2], row[1].lower())
        d = s.get("difficulty") or {"never": 1.0, "sometimes": 0.0, "always": 0.0}
        n = s["num_tasks"]
        ci = s["pass_at_k_ci95"]["pass@1"]
        p1 = s["pass_at_k"]["pass@1"]
        pct = [f"{100 * d[k]:.1f}% ({round(d[k] * n)})" for k in ("never", "sometimes")]
        if folders[i // 2] == "corpus-standard":  # no sample passed: RESULTS.md writes it shorter
            want = ["0.000", f"{s['pass_at_k']['pass@10']:.3f}", f"100% ({n})", "0%", "0%"]
        else:
            want = [ci_cell(p1, ci), f"{s['pass_at_k']['pass@10']:.3f}", *pct, "0%"]
        want += [f"{s['samples_passed']} / {s['num_samples']:,}", f"{s['avg_gen_tokens']:.1f}",
                 f"{100 * s['truncated_rate']:.1f}%"]
        yield from zip([f"maps-n16 {folders[i // 2]} {row[1]} col {c}" for c in range(4, 12)], row[3:11], want)


def check_demo_7d0aec7(res: Results):
    """`make demo` at 7d0aec7 (issue 72, sixth session): the three sets' table, from its report.json."""
    data = report("i72-demo-s6", "report.json")
    t = res.table("`make demo` from a fresh clone at 7d0aec7", "set | base | SFT | GRPO (step 40)")
    for row, s in zip(t[1:], data["sets"]):
        pass1 = {r["stage"].split("@")[0]: r["pass@1"] for r in s["table"]}
        d = next(x for x in s["paired_differences"] if (x["before"], x["after"]) == ("eval/sft", "eval/grpo")
                 and not x.get("excluded"))
        lengths = (f"{d['avg_gen_tokens'][0]:.1f} -> {d['avg_gen_tokens'][1]:.1f}, "
                   f"{d['length_delta']:.1f} [{d['length_ci95'][0]:.1f}, {d['length_ci95'][1]:.1f}]")
        want = [f"{pass1['base-eval']:.3f}", f"{pass1['eval/sft']:.3f}", f"{pass1['eval/grpo']:.3f}",
                f"{interval(d['delta'], d['ci95'])}, {d['better']}/{d['worse']}", lengths]
        yield from zip([f"i72-demo-s6 {s['name']} col {c}" for c in range(2, 7)],
                       [c.replace("\u2192", "->") for c in row[1:6]], want)


def check_reproduce_cpu(res: Results):
    """`make reproduce-cpu` (seed 001's comparison): the checkpoints and the comparisons with SFT, from report.json."""
    data = report("pipeline-cpu-full", "report", "report.json")
    heading = "`make reproduce-cpu`"
    t = res.table(heading, "checkpoint | method | pass@1")
    for row, r in zip(t[1:], data["table"]):
        yield from zip([f"reproduce-cpu {r['stage']} col {c}" for c in (3, 4, 5)], row[2:5],
                       [ci_cell(r["pass@1"], r["ci95"]), f"{r['passed']} / {r['tasks']}", f"{r['avg_gen_tokens']:.1f}"])
    t = res.table(heading, "comparison (easy set")
    diffs = [d for d in data["paired_differences"] if d["before"] == "eval/sft" or d["after"] == "eval/sft"]
    for row, d in zip(t[1:], diffs):
        yield from zip([f"reproduce-cpu {d['after']} vs {d['before']}"] * 2, row[1:3],
                       [interval(d["delta"], d["ci95"]), f"{d['better']} / {d['worse']} / {d['same']}"])


CHECKS = [check_baseline, check_math, check_grpo_cpu, check_cpu_recipe, check_rl_signal, check_maps_n16,
          check_demo_7d0aec7, check_reproduce_cpu]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--list", action="store_true", help="name the tables checked and exit")
    ap.add_argument("--results", default=os.path.join(REPO, "RESULTS.md"), help="the RESULTS.md to compare with")
    ap.add_argument("--only", action="append", choices=[c.__name__ for c in CHECKS], help="run this check only")
    args = ap.parse_args(argv)
    if args.list:
        for check in CHECKS:
            print(f"{check.__name__}: {' '.join(check.__doc__.split())}")
        return 0
    res = Results(args.results)
    bad = cells = 0
    checks = [c for c in CHECKS if not args.only or c.__name__ in args.only]
    for check in checks:
        try:
            for where, got, want in check(res):
                cells += 1
                if norm(got) != norm(want):
                    bad += 1
                    print(f"{where}: RESULTS.md has {got!r}, the kept files give {want!r}")
        except (OSError, LookupError, KeyError, ValueError, EOFError, SystemExit) as e:  # math_table.py: SystemExit
            bad += 1
            print(f"{check.__name__}: cannot recompute ({type(e).__name__}: {e})")
    print(f"{cells} cells of {len(checks)} sections' tables checked, {bad} mismatches", file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
