"""`coderl compare BASELINE RUN_DIR...`: seed 001's §4.1 table, paired differences against the first run, and
a plot of pass@1 against length.

Reads each run's `summary.json` and `samples.jsonl` (written by `coderl eval`) and prints / writes:
  compare.md    | model / checkpoint | method | pass@1 [95% CI] | clusters / tasks | pass@k | #passed / #tasks |
                avg. length |, then every later run against the first over the same tasks: pass@1 and pass@k
                of both, Δ pass@1 with its 95% paired-bootstrap interval over clusters (a synthetic task's
                composition, else the task: `coderl.eval.stats`), tasks better / worse / same, and the
                average answer length of both with its paired difference.  With `--exclude FILE`, each
                pair again without those tasks (e.g. the evaluation tasks a training reference solves).
  compare.png   pass@1 (with its 95% interval) against average generated tokens
Every number comes from a file in the run directories.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass

from coderl.base.config import ConfigError, option, require
from coderl.base.outputs import finished, refuse_existing, refuse_inputs
from coderl.eval.passk import summarize
from coderl.eval.render import diff_table, format_ci, md_table, pass_at_k_text
from coderl.eval.stats import paired_bootstrap_ci

RESAMPLES = 2000


@dataclass
class CompareConfig:
    """Compare evaluation runs: seed 001's table (pass@1, passed/tasks, average length), every run against the
    first with paired intervals over clusters of tasks (pass@1, answer length), and a PNG."""

    runs: list[str] = option(help="run directories written by `coderl eval`; the first is the baseline of the "
                             "paired differences", positional=True)
    out: str = option("compare", "output prefix: writes OUT.md and OUT.png")
    overwrite: bool = option(False, "replace an earlier comparison's OUT.md and OUT.png (refused without it)")
    plot: bool = option(True, "write the PNG (needs matplotlib)")
    exclude: str | None = option(None, "file of task ids (one a line, # comments) to leave out of a second set of "
                                 "paired differences, e.g. the tasks a training reference solves; a pipeline's "
                                 "overlap.json gives the union of its `solved` lists")

    def __post_init__(self):
        require(len(self.runs) >= 1, "RUN_DIR", self.runs, "one or more run directories")


def load_summary(run_dir: str) -> dict:
    path = os.path.join(run_dir, "summary.json")
    try:
        with open(path, encoding="utf-8") as f:
            summary = json.load(f)
    except (FileNotFoundError, NotADirectoryError):
        raise ConfigError(f"{path}: not found (expected a run directory written by `coderl eval`)") from None
    except ValueError as exc:
        raise ConfigError(f"{path}: invalid JSON ({exc})") from None
    for key in ("label", "method", "pass_at_k", "tasks_all_passed", "num_tasks", "avg_gen_tokens"):
        if key not in summary:
            raise ConfigError(f"{path}: field '{key}' missing (expected a `coderl eval` summary)")
    if "pass@1" not in summary["pass_at_k"]:
        raise ConfigError(f"{path}: no pass@1 in 'pass_at_k'")
    summary["run_dir"] = run_dir
    return summary


def table(summaries: list[dict]) -> str:
    return "\n".join(md_table(
        ["model / checkpoint", "method", "pass@1 [95% CI]", "clusters / tasks", "pass@k", "#passed / #tasks",
         "avg. length"],
        [[f"`{s['label']}`", s["method"],
          f"{s['pass_at_k']['pass@1']:.3f} {format_ci(s.get('pass_at_k_ci95', {}).get('pass@1'))}".strip(),
          f"{s.get('clusters', s['num_tasks'])} / {s['num_tasks']}", pass_at_k_text(s["pass_at_k"]),
          f"{passed(s)} / {s['num_tasks']}", f"{s['avg_gen_tokens']:.2f}"] for s in summaries])) + "\n"


def passed(s: dict) -> int:
    """Tasks passed; with n > 1 samples a task, pass@1 x tasks."""
    return round(s["pass_at_k"]["pass@1"] * s["num_tasks"]) if s.get("samples_per_task", 1) > 1 \
        else s["tasks_all_passed"]


def task_samples(run_dir: str) -> dict[str, list[int]]:
    """Per task of a `coderl eval` run's samples.jsonl: [samples, samples passed, generated tokens in all]."""
    from coderl.tasks.rows import iter_jsonl, plain_or_gzip
    from coderl.tasks.rows import require as field

    counts: dict[str, list[int]] = {}
    path = plain_or_gzip(os.path.join(run_dir, "samples.jsonl"))  # or a results/ folder's samples.jsonl.gz
    for lineno, row in iter_jsonl(path):  # a missing or bad file, a row without its fields: one line
        where = f"{path}:{lineno}"
        n, c, tokens = counts.setdefault(field(row, "task_id", str, where), [0, 0, 0])
        passed, generated = field(row, "passed", bool, where), field(row, "gen_tokens", int, where)
        counts[row["task_id"]] = [n + 1, c + passed, tokens + generated]
    return counts


def paired(before_dir: str, after_dir: str, *, exclude=frozenset()) -> dict:
    """`after` against `before` over the same tasks, less `exclude`: pass@1 and pass@k of both, Δ pass@1 (per-task
    pass rates) and Δ average generated tokens (per-task means), each with its 95% paired-bootstrap interval over
    the clusters of `before`'s summary (seed 0).  {"error": ...} when the runs hold different tasks."""
    a, b = task_samples(before_dir), task_samples(after_dir)
    if set(a) != set(b):
        return {"error": f"different task sets ({len(a)} vs {len(b)} tasks, {len(set(a) ^ set(b))} differ)"}
    tasks = sorted(t for t in a if t not in exclude)
    if not tasks:
        return {"error": "no task left"}
    grouped = load_summary(before_dir).get("task_clusters", {})
    clusters = [grouped.get(t, t) for t in tasks]
    rate, after_rate = ({t: c / n for t, (n, c, _) in s.items()} for s in (a, b))
    delta, lo, hi = paired_bootstrap_ci([rate[t] for t in tasks], [after_rate[t] for t in tasks], clusters=clusters,
                                        resamples=RESAMPLES, seed=0)
    length = [[s[t][2] / s[t][0] for t in tasks] for s in (a, b)]
    dl, llo, lhi = paired_bootstrap_ci(*length, clusters=clusters, resamples=RESAMPLES, seed=0)
    passk = [summarize({t: tuple(s[t][:2]) for t in tasks}).to_dict()["pass_at_k"] for s in (a, b)]
    return {"tasks": len(tasks), "clusters": len(set(clusters)), "excluded": len(a) - len(tasks),
            "pass@1": [p["pass@1"] for p in passk], "delta": delta, "ci95": [lo, hi],
            "better": sum(after_rate[t] > rate[t] for t in tasks), "worse": sum(after_rate[t] < rate[t] for t in tasks),
            "same": sum(after_rate[t] == rate[t] for t in tasks), "pass_at_k": passk,
            "avg_gen_tokens": [sum(x) / len(x) for x in length], "length_delta": dl, "length_ci95": [llo, lhi]}


def read_task_ids(path: str) -> set[str]:
    """Task ids to leave out: one a line (blank lines and # comments skipped), or a pipeline's overlap.json (the
    union of its rows' `solved`)."""
    try:
        with open(path, encoding="utf-8") as f:
            if path.endswith(".json"):
                return {t for row in json.load(f) for t in row["solved"]}
            return {line.strip() for line in f if line.strip() and not line.lstrip().startswith("#")}
    except FileNotFoundError:
        raise ConfigError(f"--exclude {path}: not found") from None
    except (ValueError, TypeError, KeyError) as exc:
        raise ConfigError(f"--exclude {path}: expected an overlap.json (a list of rows with `solved`) ({exc})"
                          ) from None


def plot(summaries: list[dict], path: str) -> None:
    """pass@1 (with its CI) against average length, one marker per run and a legend below the axes
    (labels written next to the points collide as soon as two runs land close together)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    markers = "osD^vP*Xh<>p"
    fig, ax = plt.subplots(figsize=(7, 4.2 + 0.24 * len(summaries)), dpi=120)
    for i, s in enumerate(summaries):
        x, y = s["avg_gen_tokens"], s["pass_at_k"]["pass@1"]
        lo, hi = s.get("pass_at_k_ci95", {}).get("pass@1", (y, y))
        ax.errorbar([x], [y], yerr=[[y - lo], [hi - y]], fmt=markers[i % len(markers)], markersize=7, capsize=3,
                    alpha=0.85, label=f"{s['method']}: {s['label']} ({y:.3f}, {x:.1f} tokens)")
    ax.set_xlabel("average generated tokens")
    ax.set_ylabel("pass@1 (95% CI over clusters of tasks)")
    ax.set_ylim(-0.03, 1.03)
    ax.set_title("pass@1 against completion length")
    ax.grid(alpha=0.3)
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.14), fontsize=8, frameon=False)
    fig.tight_layout()
    fig.savefig(path, bbox_inches="tight", format="png")
    plt.close(fig)


# What a run was measured on and how (summary.json): runs that differ in any of these are not compared like for like.
MEASURED_ON = {"tasks": ("tasks", "spec"), "split": ("tasks", "split"), "split seed": ("tasks", "seed"),
               "tasks evaluated": ("tasks", "evaluated"), "samples per task": ("samples_per_task",),
               "temperature": ("temperature",), "format": ("format",),
               "max new tokens": ("config", "max_new_tokens"), "top-p": ("config", "top_p")}


def differences(summaries: list[dict]) -> list[str]:
    """`name (label value, ...)` for each of `MEASURED_ON` in which the runs differ (a value a summary lacks is not
    compared)."""
    found = []
    for name, keys in MEASURED_ON.items():
        values = []  # (label, value): two runs may share a label
        for s in summaries:
            value = s
            for key in keys:
                value = value.get(key) if isinstance(value, dict) else None
            if value is not None:
                values.append((s["label"], value))
        if len({str(v) for _, v in values}) > 1:
            found.append(f"{name} ({', '.join(f'{label} {v}' for label, v in values)})")
    return found


def told_apart(summaries: list[dict]) -> list[dict]:
    """The summaries, each run that shares its label with another labelled `LABEL (RUN_DIR)` (the table's rows, the
    paired differences and the plot would otherwise show two runs under one name), and `#N` after a run given
    twice."""
    from collections import Counter

    shared = Counter(s["label"] for s in summaries)
    out = [{**s, "label": f"{s['label']} ({s['run_dir']})"} if shared[s["label"]] > 1 else s for s in summaries]
    seen: Counter = Counter()
    for i, s in enumerate(out):
        seen[s["label"]] += 1
        if seen[s["label"]] > 1:
            out[i] = {**s, "label": f"{s['label']} #{seen[s['label']]}"}
    return out


def run_compare(cfg: CompareConfig) -> str:
    """The comparison's Markdown, written to OUT.md (and the plot to OUT.png) whole, together, or not at all."""
    paths = [cfg.out + ".md", *([cfg.out + ".png"] if cfg.plot else [])]
    refuse_inputs({"--out": paths}, [("RUN_DIR", os.path.join(d, name)) for d in cfg.runs
                                     for name in ("summary.json", "samples.jsonl")] + [("--exclude", cfg.exclude)])
    refuse_existing("--out", cfg.out, [p for p in paths if os.path.exists(p)], overwrite=cfg.overwrite, kind="prefix")
    summaries = told_apart([load_summary(d) for d in cfg.runs])
    text = table(summaries)
    unlike = differences(summaries)
    if unlike:
        text = f"Warning: the runs differ in {'; '.join(unlike)}: their numbers are not measured alike.\n\n" + text
    exclude = read_task_ids(cfg.exclude) if cfg.exclude else None
    diffs = []
    for s in summaries[1:]:
        for left_out in ([frozenset(), exclude] if exclude else [frozenset()]):
            diffs.append({"before": summaries[0]["label"], "after": s["label"],
                          "sources": [os.path.join(d["run_dir"], "samples.jsonl") for d in (summaries[0], s)],
                          **paired(summaries[0]["run_dir"], s["run_dir"], exclude=left_out)})
    if diffs:
        text += (f"\nPaired differences against `{summaries[0]['label']}` (95% paired-bootstrap intervals over "
                 f"clusters of tasks, {RESAMPLES} resamples, seed 0):\n\n"
                 + "\n".join(md_table(*diff_table(diffs))) + "\n")
    with finished(*paths) as tmps:
        with open(tmps[0], "w", encoding="utf-8") as f:
            f.write(text)
        if cfg.plot:
            plot(summaries, tmps[1])
    return text
