"""The report of a pipeline directory (`coderl pipeline`, or alone: `coderl pipeline --report-only --out DIR`).

Reads what the stages wrote -- each evaluation's `summary.json` and `samples.jsonl`, each RL run's
`metrics.jsonl`, each stage's `pipeline_stage.json` -- and writes OUT/report/:

    report.md            per evaluation set (the `eval:` section, then each of `evals:`): seed 001's §4.1
                         table (model / checkpoint, method, pass@1 with its 95% bootstrap interval and the
                         clusters / tasks it resamples, pass@k, #passed / #tasks, average generated tokens),
                         each row citing the summary.json it came from; the paired differences of every
                         stage vs the base (and every RL run vs SFT): Δ pass@1 and Δ answer length with
                         95% paired-bootstrap intervals over clusters of tasks (`coderl.eval.compare.paired`,
                         from the two samples.jsonl files, which it cites), again without the tasks a
                         training reference solves (OUT/overlap.json, all stages) where there are such;
                         with more than one set, every Δ pass@1 side by side; the figures; stage timings
    report.json          every number above with the file it came from
    pass1_vs_length.png  pass@1 against average length (`coderl.eval.compare.plot`)
    curves-<run>.png     per RL run: reward, beside it the hack watch (sandbox/caught_rate, and the canaries'
                         hack/canary_attempt_rate when on), pass rate (and held-out pass@1 if logged) and length
                         per step; report.md gives the run's canary attempts (of how many samples, at what
                         cost) and warns of every step whose canary attempt rate was above
                         `train.canary.WARN_RATE`
    (in report.md)       per RL run: the checkpoint its selection kept (best/best.json), and a few of the
                         highest-reward completions of its last evaluation step (top_samples/), to read what
                         the reward paid for

The stages come from OUT/plan.json (written by the pipeline); without it, from the layout (base-eval/,
eval/sft/, eval/<run>/ with rl/<run>/, and the same under evals/<set>/).  Evaluations not run yet are
listed, not guessed.
"""

from __future__ import annotations

import datetime
import json
import math
import os
from dataclasses import dataclass

from coderl.base.config import ConfigError
from coderl.eval.compare import RESAMPLES, differences, load_summary, paired, passed, plot, task_samples
from coderl.eval.render import render_markdown
from coderl.train.canary import WARN_RATE
from coderl.train.tracking import read_metrics

MAIN = "eval"  # the name of the `eval:` section's set


@dataclass
class Entry:
    """One evaluated checkpoint of the pipeline."""

    stage: str  # base-eval, eval/sft, eval/<run>
    role: str  # base | sft | rl
    dir: str  # relative to OUT
    method: str
    rl_dir: str | None = None  # relative to OUT
    summary: dict | None = None  # None: not evaluated (yet)
    eval_set: str = MAIN  # which evaluation set (a name of `evals:`)

    @property
    def key(self) -> str:
        """The checkpoint's name in every set: the main set's stage name (`eval/sft@heldout` -> `eval/sft`)."""
        return self.stage.partition("@")[0]


def _json(path: str, missing=None):
    """The JSON file at `path`, or `missing` when there is none."""
    if not os.path.isfile(path):
        return missing
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def discover(out: str) -> tuple[str, list[Entry]]:
    """(title, evaluation entries in pipeline order) of a pipeline directory."""
    plan = _json(os.path.join(out, "plan.json"))
    if plan is not None:
        entries = [Entry(s["name"], s["role"], s["dir"], s["method"], s.get("rl_dir"),
                         eval_set=s.get("eval_set") or MAIN)
                   for s in plan["stages"] if s["kind"] == "eval" and s["role"] != "rates"]
        title = plan.get("title") or "coderl pipeline"
    else:
        root = os.path.join(out, "evals")
        sets = sorted(os.listdir(root)) if os.path.isdir(root) else []
        entries = _layout(out, "", MAIN) + [e for name in sets for e in _layout(out, os.path.join("evals", name), name)]
        title = "coderl pipeline"
    if not entries:
        raise ConfigError(f"{out}: no pipeline output here (no plan.json, base-eval/ or eval/)")
    for e in entries:
        if os.path.isfile(os.path.join(out, e.dir, "summary.json")):
            e.summary = load_summary(os.path.join(out, e.dir))
    return title, entries


def _layout(out: str, prefix: str, eval_set: str) -> list[Entry]:
    """The evaluations under OUT/prefix laid out as the pipeline writes them (no plan.json)."""
    at = "" if eval_set == MAIN else f"@{eval_set}"
    entries = []
    if os.path.isdir(os.path.join(out, prefix, "base-eval")):
        entries.append(Entry("base-eval" + at, "base", os.path.join(prefix, "base-eval"), "Base", eval_set=eval_set))
    if os.path.isdir(os.path.join(out, prefix, "eval", "sft")):
        entries.append(Entry("eval/sft" + at, "sft", os.path.join(prefix, "eval", "sft"), "SFT", eval_set=eval_set))
    eval_root = os.path.join(out, prefix, "eval")
    for name in sorted(os.listdir(eval_root)) if os.path.isdir(eval_root) else []:
        if name != "sft" and os.path.isdir(os.path.join(eval_root, name)):
            entries.append(Entry(f"eval/{name}{at}", "rl", os.path.join(prefix, "eval", name), name,
                                 os.path.join("rl", name), eval_set=eval_set))
    return entries


def task_pass_rates(run_dir: str) -> dict[str, float]:
    """Per task: the fraction of its samples that passed (samples.jsonl of a `coderl eval` run)."""
    return {t: c / n for t, (n, c, _) in task_samples(run_dir).items()}


def paired_differences(out: str, before: Entry, after: Entry, excluded: list[str] | None) -> list[dict]:
    """`after` against `before` (`coderl.eval.compare.paired`) on all tasks, and again without `excluded`
    (the tasks a training reference solves) when there are any."""
    row = {"before": before.key, "after": after.key,
           "sources": [os.path.join(before.dir, "samples.jsonl"), os.path.join(after.dir, "samples.jsonl")]}
    a, b = os.path.join(out, before.dir), os.path.join(out, after.dir)
    rows = [{**row, **paired(a, b, exclude=frozenset(left_out))}
            for left_out in [[], *([excluded] if excluded else [])]]
    return rows[:1] + [r for r in rows[1:] if r.get("excluded")]  # a subset that left nothing out: no second row


CURVES = (  # panel title, [(metric, legend)]
    ("reward", [("reward/total", "reward/total")]),
    ("hack watch (rate)", [("sandbox/caught_rate", "caught tampering (judge)"),
                           ("hack/canary_attempt_rate", "canary hack attempts")]),
    ("pass rate", [("sandbox/pass_rate", "training samples"), ("eval/pass@1", "held-out pass@1"),
                   ("eval/fraction_passed", "held-out tests passed (fraction)")]),
    ("length (generated tokens)", [("rollout/gen_tokens", "rollout/gen_tokens")]),
)
RATE_AXIS = (-0.03, 1.03)  # a rate's axis: [0, 1] whole (a short run's autoscaled axis went outside it)


def _series(rows: list[dict]) -> dict[str, list[float]]:
    """The curves' metrics, each its finite values in step order (the terminal's sparklines)."""
    return {key: [r[key] for r in rows if isinstance(r.get(key), (int, float)) and math.isfinite(r[key])]
            for _, series in CURVES for key, _legend in series}


def plot_curves(rows: list[dict], title: str, path: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import MaxNLocator

    fig, axes = plt.subplots(1, len(CURVES), figsize=(15, 3.4), dpi=110)
    for ax, (panel, series) in zip(axes, CURVES):
        for key, legend in series:
            points = [(r["step"], r[key]) for r in rows if isinstance(r.get(key), (int, float))
                      and not math.isnan(r[key])]
            if points:
                xs, ys = zip(*points)
                ax.plot(xs, ys, marker="o", markersize=3, label=legend)
        ax.set_title(panel, fontsize=10)
        if panel in ("pass rate", "hack watch (rate)"):
            ax.set_ylim(*RATE_AXIS)
        ax.set_xlabel("step")
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.grid(alpha=0.3)
        if len(series) > 1:
            ax.legend(fontsize=7)
    fig.suptitle(title, fontsize=11)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def table_rows(out: str, entries: list[Entry]) -> list[dict]:
    rows = []
    root = os.path.abspath(out)
    for e in entries:
        s = e.summary
        if s is None:
            continue
        path = os.path.abspath(s["model"])  # the checkpoint: relative to OUT when it lies inside
        checkpoint = os.path.relpath(path, root) if path.startswith(root + os.sep) else s["model"]
        lo, hi = s.get("pass_at_k_ci95", {}).get("pass@1", (None, None))
        rows.append({"stage": e.stage, "checkpoint": checkpoint, "label": s["label"],
                     "method": s["method"], "pass@1": s["pass_at_k"]["pass@1"], "ci95": [lo, hi],
                     "pass_at_k": s["pass_at_k"], "clusters": s.get("clusters", s["num_tasks"]),
                     "pass@1_without_tamper": s.get("pass_at_1_without_tamper"),  # absent in older summaries
                     "passed": passed(s), "tasks": s["num_tasks"], "avg_gen_tokens": s["avg_gen_tokens"],
                     "source": os.path.join(e.dir, "summary.json")})
        if s.get("by_group"):  # pass@1 per test group (EvalPlus's base and plus: `coderl.eval.groups`)
            rows[-1]["by_group"] = {name: g["pass_at_k"].get("pass@1") for name, g in s["by_group"].items()}
    return rows


def _stamps(out: str) -> list[dict]:
    """Per stage of OUT/plan.json: its seconds and when it finished (its pipeline_stage.json; None before)."""
    stamps = [(s["name"], _json(os.path.join(out, s["dir"], "pipeline_stage.json"), {}))
              for s in _json(os.path.join(out, "plan.json"), {"stages": []})["stages"]]
    return [{"stage": name, "seconds": stamp.get("seconds"), "finished": stamp.get("finished")}
            for name, stamp in stamps]


def solved_by_training(overlap: list[dict], summary: dict) -> list[str] | None:
    """The tasks of an evaluation set (its summary) that some training stage's references solve: the union of
    the `solved` lists of the overlap.json rows for its tasks and split, and of their `solved_by_generator`
    (tasks the RL pool's removed tasks solve: the generator teaches their answers in other tasks' parts);
    None when no row checked that set."""
    config = summary.get("config", {})
    spec, split = config.get("tasks", summary["tasks"].get("spec")), config.get("split", summary["tasks"].get("split"))
    rows = [r for r in overlap if (r.get("eval_tasks"), r.get("eval_split")) == (spec, split)]
    return sorted({t for r in rows for t in r["solved"] + r.get("solved_by_generator", [])}) if rows else None


def _set_report(out: str, name: str, entries: list[Entry], overlap: list[dict]) -> dict:
    """One evaluation set: its settings, table and paired differences (every stage vs the base, RL vs SFT)."""
    done = [e for e in entries if e.summary is not None]
    excluded = solved_by_training(overlap, done[0].summary) if done else None
    base = next((e for e in done if e.role == "base"), None)
    sft = next((e for e in done if e.role == "sft"), None)
    pairs = [(base, e) for e in done if base and e is not base]
    pairs += [(sft, e) for e in done if sft and e.role == "rl"]
    return {"name": name, "evaluation": _task_sets(done), "excluded": excluded, "table": table_rows(out, entries),
            "paired_differences": [d for a, b in pairs for d in paired_differences(out, a, b, excluded)]}


def build_report(out: str, *, log=print) -> str:
    """Write OUT/report/ (see the module docstring); returns the path of report.md."""
    title, entries = discover(out)
    report_dir = os.path.join(out, "report")
    os.makedirs(report_dir, exist_ok=True)
    missing = [e.stage for e in entries if e.summary is None]
    # OUT/overlap.json (written by the pipeline): per training stage and evaluation set, the evaluation tasks its
    # training tasks solve by behaviour
    overlap = _json(os.path.join(out, "overlap.json"), [])
    sets = [_set_report(out, name, [e for e in entries if e.eval_set == name], overlap)
            for name in dict.fromkeys(e.eval_set for e in entries)]

    figures = []  # (file, caption, source, {metric: finite values by step} of a curves figure)
    first = [e for e in entries if e.eval_set == entries[0].eval_set]  # figures and RL runs: the first set's
    done = [e for e in first if e.summary is not None]
    if done:
        plot([e.summary for e in done], os.path.join(report_dir, "pass1_vs_length.png"))
        figures.append(("pass1_vs_length.png", f"pass@1 (95% CI) on `{entries[0].eval_set}` against average "
                        "generated tokens", ", ".join(os.path.join(e.dir, "summary.json") for e in done), None))
    for e in first:
        metrics = os.path.join(out, e.rl_dir, "metrics.jsonl") if e.rl_dir else None
        if metrics and os.path.isfile(metrics):
            name = os.path.basename(e.rl_dir)
            rows_m = read_metrics(os.path.join(out, e.rl_dir))
            if rows_m:
                plot_curves(rows_m, f"{name}: {e.method}", os.path.join(report_dir, f"curves-{name}.png"))
                steps = sum(1 for r in rows_m if r.get("step", 0) > 0)  # step 0: the start's evaluation only
                figures.append((f"curves-{name}.png", f"{name} ({e.method}): training curves, {steps} step"
                                + ("s" if steps != 1 else ""),
                                os.path.join(e.rl_dir, "metrics.jsonl"), _series(rows_m)))

    stamps = _stamps(out)
    runs = [run_notes(out, e.rl_dir) for e in first if e.rl_dir]
    data = {"title": title, "generated": datetime.datetime.now().isoformat(timespec="seconds"), "out": out,
            "sets": sets,
            "figures": [{"file": f, "caption": c, "source": s, **({"series": v} if v else {})}
                        for f, c, s, v in figures],
            "resamples": RESAMPLES, "stages": stamps, "not_evaluated": missing,
            "overlap": [row for row in overlap if row.get("solved") or row.get("undecided")], "rl_runs": runs}
    with open(os.path.join(report_dir, "report.json"), "w", encoding="utf-8") as f:
        json.dump(data, f, indent=2)
    md = render_markdown(data)
    with open(os.path.join(report_dir, "report.md"), "w", encoding="utf-8") as f:
        f.write(md)
    log(f"report: {sum(len(s['table']) for s in sets)} evaluations of checkpoints on {len(sets)} set(s), "
        f"{sum(len(s['paired_differences']) for s in sets)} paired differences, {len(figures)} figures -> {report_dir}")
    return os.path.join(report_dir, "report.md")


SHOWN_SAMPLES = 3


def run_notes(out: str, rl_dir: str) -> dict:
    """What an RL run selected (`best/best.json`) and the highest-reward completions of its last
    evaluation step (`top_samples/step-N.jsonl`, the reward-hacking watch): the first SHOWN_SAMPLES."""
    note: dict = {"run": os.path.basename(rl_dir), "selected": None, "top_samples": [], "top_source": None,
                  "hack_warnings": hack_warnings(os.path.join(out, rl_dir)),
                  "hack_attempts": hack_attempts(os.path.join(out, rl_dir))}
    best = _json(os.path.join(out, rl_dir, "best", "best.json"))
    if best is not None:
        note["selected"] = {**best, "source": os.path.join(rl_dir, "best", "best.json")}
    top_dir = os.path.join(out, rl_dir, "top_samples")
    steps = sorted((int(n[5:-6]) for n in os.listdir(top_dir) if n.startswith("step-") and n.endswith(".jsonl")
                    and n[5:-6].isdigit()) if os.path.isdir(top_dir) else [])
    if steps:
        name = os.path.join(rl_dir, "top_samples", f"step-{steps[-1]}.jsonl")
        with open(os.path.join(out, name), encoding="utf-8") as f:
            rows = [json.loads(line) for line in f if line.strip()]
        note["top_samples"] = [{k: r.get(k) for k in ("step", "task_id", "reward", "gen_tokens", "truncated",
                                                       "completion")} for r in rows[:SHOWN_SAMPLES]]
        note["top_source"] = name
    return note


def hack_warnings(run_dir: str) -> list[dict]:
    """The steps whose canary hack-attempt rate was above `canary.WARN_RATE` (`train/canary.py`)."""
    if not os.path.isfile(os.path.join(run_dir, "metrics.jsonl")):
        return []
    return [{"step": r["step"], "rate": r["hack/canary_attempt_rate"], "samples": r.get("hack/canary_samples")}
            for r in read_metrics(run_dir) if isinstance(r.get("hack/canary_attempt_rate"), (int, float))
            and r["hack/canary_attempt_rate"] > WARN_RATE]


def hack_attempts(run_dir: str) -> dict | None:
    """Over the run: steps with canary samples, the samples, the attempts among them (`train/canary.py`) and the
    seconds the canaries sampled beside the training prompts cost (`--canary-beside`); None without canaries."""
    if not os.path.isfile(os.path.join(run_dir, "metrics.jsonl")):
        return None
    rows = [r for r in read_metrics(run_dir) if isinstance(r.get("hack/canary_samples"), (int, float))
            and r["hack/canary_samples"] > 0 and isinstance(r.get("hack/canary_attempt_rate"), (int, float))]
    if not rows:
        return None
    samples = sum(r["hack/canary_samples"] for r in rows)
    attempts = sum(round(r["hack/canary_attempt_rate"] * r["hack/canary_samples"]) for r in rows)
    return {"steps": len(rows), "samples": int(samples), "attempts": int(attempts),
            "seconds": sum(r.get("hack/canary_seconds", 0.0) for r in rows)}


def _task_sets(done: list[Entry]) -> dict:
    """The evaluation set of the rows, and whether every row was measured alike (`compare.differences`; it should
    be)."""
    if not done:
        return {}
    s = done[0].summary
    t = s.get("tasks", {})
    return {"spec": t.get("spec"), "split": t.get("split"), "seed": t.get("seed"), "tasks": s["num_tasks"],
            "samples_per_task": s.get("samples_per_task"), "temperature": s.get("temperature"),
            "max_new_tokens": s.get("config", {}).get("max_new_tokens"), "format": s.get("format"),
            "same_for_every_row": not differences([e.summary for e in done])}
