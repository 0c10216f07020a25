"""The report of a pipeline directory (`coderl pipeline`, or alone: `coderl pipeline --report-only --out DIR`).

Reads what the stages wrote -- each evaluation's `summary.json` and `samples.jsonl`, each RL run's
`metrics.jsonl`, each stage's `pipeline_stage.json` -- and writes OUT/report/:

    report.md            seed 001's §4.1 table (model / checkpoint, method, pass@1 with its 95% bootstrap
                         interval over tasks, #passed / #tasks, average generated tokens), each row citing
                         the summary.json it came from; the paired difference in pass@1 of every stage vs
                         the base (and every RL run vs SFT) with a 95% paired-bootstrap interval over tasks
                         (per-task pass rates from the two samples.jsonl files, which it cites); the figures;
                         stage timings
    report.html          the same tables and figures in one self-contained page (PNGs inlined; no JS)
    report.json          every number above with the file it came from
    pass1_vs_length.png  pass@1 against average length (`coderl.eval.compare.plot`)
    curves-<run>.png     per RL run: reward, pass rate (and held-out pass@1 if logged) and length per step

The stages come from OUT/plan.json (written by the pipeline); without it, from the layout (base-eval/,
eval/sft/, eval/<run>/ with rl/<run>/).  Evaluations not run yet are listed, not guessed.
"""

from __future__ import annotations

import base64
import datetime
import html
import json
import math
import os
from dataclasses import dataclass

from coderl.base.config import ConfigError
from coderl.eval.compare import load_summary, plot
from coderl.eval.stats import paired_bootstrap_ci

RESAMPLES = 2000


@dataclass
class Entry:
    """One evaluated checkpoint of the pipeline."""

    stage: str  # base-eval, eval/sft, eval/<run>
    role: str  # base | sft | rl
    dir: str  # relative to OUT
    method: str
    rl_dir: str | None = None  # relative to OUT
    summary: dict | None = None  # None: not evaluated (yet)


def discover(out: str) -> tuple[str, list[Entry]]:
    """(title, evaluation entries in pipeline order) of a pipeline directory."""
    plan_path = os.path.join(out, "plan.json")
    if os.path.isfile(plan_path):
        with open(plan_path, encoding="utf-8") as f:
            plan = json.load(f)
        entries = [Entry(s["name"], s["role"], s["dir"], s["method"], s.get("rl_dir"))
                   for s in plan["stages"] if s["kind"] == "eval"]
        title = plan.get("title") or "coderl pipeline"
    else:
        entries = []
        if os.path.isdir(os.path.join(out, "base-eval")):
            entries.append(Entry("base-eval", "base", "base-eval", "Base"))
        if os.path.isdir(os.path.join(out, "eval", "sft")):
            entries.append(Entry("eval/sft", "sft", os.path.join("eval", "sft"), "SFT"))
        eval_root = os.path.join(out, "eval")
        for name in sorted(os.listdir(eval_root)) if os.path.isdir(eval_root) else []:
            if name != "sft" and os.path.isdir(os.path.join(eval_root, name)):
                entries.append(Entry(f"eval/{name}", "rl", os.path.join("eval", name), name,
                                     os.path.join("rl", name)))
        title = "coderl pipeline"
    if not entries:
        raise ConfigError(f"{out}: no pipeline output here (no plan.json, base-eval/ or eval/)")
    for e in entries:
        if os.path.isfile(os.path.join(out, e.dir, "summary.json")):
            e.summary = load_summary(os.path.join(out, e.dir))
    return title, entries


def task_pass_rates(run_dir: str) -> dict[str, float]:
    """Per task: the fraction of its samples that passed (samples.jsonl of a `coderl eval` run)."""
    counts: dict[str, list[int]] = {}
    path = os.path.join(run_dir, "samples.jsonl")
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.strip():
                row = json.loads(line)
                n, c = counts.setdefault(row["task_id"], [0, 0])
                counts[row["task_id"]] = [n + 1, c + bool(row["passed"])]
    return {t: c / n for t, (n, c) in counts.items()}


def paired_difference(out: str, before: Entry, after: Entry) -> dict:
    """pass@1 of `after` minus `before` over the same tasks, with a paired-bootstrap 95% interval."""
    a = task_pass_rates(os.path.join(out, before.dir))
    b = task_pass_rates(os.path.join(out, after.dir))
    row = {"before": before.stage, "after": after.stage,
           "sources": [os.path.join(before.dir, "samples.jsonl"), os.path.join(after.dir, "samples.jsonl")]}
    if set(a) != set(b):
        return {**row, "error": f"different task sets ({len(a)} vs {len(b)} tasks, {len(set(a) ^ set(b))} differ)"}
    tasks = sorted(a)
    delta, lo, hi = paired_bootstrap_ci([a[t] for t in tasks], [b[t] for t in tasks], resamples=RESAMPLES, seed=0)
    return {**row, "tasks": len(tasks), "delta": delta, "ci95": [lo, hi],
            "better": sum(b[t] > a[t] for t in tasks), "worse": sum(b[t] < a[t] for t in tasks),
            "same": sum(b[t] == a[t] for t in tasks)}


def read_metrics(run_dir: str) -> list[dict]:
    """Rows of `metrics.jsonl`; a torn last line (a run killed mid-write) is ignored.

    (The same file `coderl.train.tracking.read_metrics` reads; eval/ does not import train/.)
    """
    rows = []
    with open(os.path.join(run_dir, "metrics.jsonl"), encoding="utf-8") as f:
        for line in f:
            try:
                rows.append(json.loads(line))
            except ValueError:
                continue
    return rows


CURVES = (  # panel title, [(metric, legend)]
    ("reward", [("reward/total", "reward/total")]),
    ("pass rate", [("sandbox/pass_rate", "training samples"), ("eval/pass@1", "held-out pass@1")]),
    ("length (generated tokens)", [("rollout/gen_tokens", "rollout/gen_tokens")]),
)


def plot_curves(rows: list[dict], title: str, path: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import MaxNLocator

    fig, axes = plt.subplots(1, len(CURVES), figsize=(12, 3.4), dpi=110)
    for ax, (panel, series) in zip(axes, CURVES):
        for key, legend in series:
            points = [(r["step"], r[key]) for r in rows if isinstance(r.get(key), (int, float))
                      and not math.isnan(r[key])]
            if points:
                xs, ys = zip(*points)
                ax.plot(xs, ys, marker="o", markersize=3, label=legend)
        ax.set_title(panel, fontsize=10)
        ax.set_xlabel("step")
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.grid(alpha=0.3)
        if len(series) > 1:
            ax.legend(fontsize=7)
    fig.suptitle(title, fontsize=11)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def _checkpoint(summary: dict, out: str) -> str:
    model = summary["model"]
    path = os.path.abspath(model)
    root = os.path.abspath(out)
    return os.path.relpath(path, root) if path.startswith(root + os.sep) else model


def table_rows(out: str, entries: list[Entry]) -> list[dict]:
    rows = []
    for e in entries:
        s = e.summary
        if s is None:
            continue
        lo, hi = s.get("pass_at_k_ci95", {}).get("pass@1", (None, None))
        # as `coderl.eval.compare.table`: with n > 1 samples, "#passed" is pass@1 x tasks
        passed = round(s["pass_at_k"]["pass@1"] * s["num_tasks"]) if s.get("samples_per_task", 1) > 1 \
            else s["tasks_all_passed"]
        rows.append({"stage": e.stage, "checkpoint": _checkpoint(s, out), "label": s["label"],
                     "method": s["method"], "pass@1": s["pass_at_k"]["pass@1"], "ci95": [lo, hi],
                     "passed": passed, "tasks": s["num_tasks"], "avg_gen_tokens": s["avg_gen_tokens"],
                     "source": os.path.join(e.dir, "summary.json")})
    return rows


def _stamps(out: str) -> list[dict]:
    plan_path = os.path.join(out, "plan.json")
    if not os.path.isfile(plan_path):
        return []
    with open(plan_path, encoding="utf-8") as f:
        stages = json.load(f)["stages"]
    result = []
    for s in stages:
        path = os.path.join(out, s["dir"], "pipeline_stage.json")
        if os.path.isfile(path):
            with open(path, encoding="utf-8") as f:
                stamp = json.load(f)
            result.append({"stage": s["name"], "seconds": stamp.get("seconds"), "finished": stamp.get("finished")})
        else:
            result.append({"stage": s["name"], "seconds": None, "finished": None})
    return result


def _fmt_ci(ci) -> str:
    return f"[{ci[0]:.3f}, {ci[1]:.3f}]" if ci and ci[0] is not None else ""


def build_report(out: str, *, log=print) -> str:
    """Write OUT/report/ (see the module docstring); returns the path of report.md."""
    title, entries = discover(out)
    report_dir = os.path.join(out, "report")
    os.makedirs(report_dir, exist_ok=True)
    done = [e for e in entries if e.summary is not None]
    missing = [e.stage for e in entries if e.summary is None]
    rows = table_rows(out, entries)

    base = next((e for e in done if e.role == "base"), None)
    sft = next((e for e in done if e.role == "sft"), None)
    pairs = [(base, e) for e in done if base and e is not base]
    pairs += [(sft, e) for e in done if sft and e.role == "rl"]
    diffs = [paired_difference(out, a, b) for a, b in pairs]

    figures = []  # (file, caption, source)
    if done:
        plot([e.summary for e in done], os.path.join(report_dir, "pass1_vs_length.png"))
        figures.append(("pass1_vs_length.png", "pass@1 (95% CI over tasks) against average generated tokens",
                        ", ".join(os.path.join(e.dir, "summary.json") for e in done)))
    for e in entries:
        metrics = os.path.join(out, e.rl_dir, "metrics.jsonl") if e.rl_dir else None
        if metrics and os.path.isfile(metrics):
            name = os.path.basename(e.rl_dir)
            rows_m = read_metrics(os.path.join(out, e.rl_dir))
            if rows_m:
                plot_curves(rows_m, f"{name}: {e.method}", os.path.join(report_dir, f"curves-{name}.png"))
                figures.append((f"curves-{name}.png", f"{name} ({e.method}): training curves, {len(rows_m)} step"
                                + ("s" if len(rows_m) != 1 else ""),
                                os.path.join(e.rl_dir, "metrics.jsonl")))

    tasks = _task_sets(done)
    stamps = _stamps(out)
    data = {"title": title, "generated": datetime.datetime.now().isoformat(timespec="seconds"), "out": out,
            "evaluation": tasks, "table": rows, "paired_differences": diffs,
            "figures": [{"file": f, "caption": c, "source": s} for f, c, s in figures],
            "stages": stamps, "not_evaluated": missing}
    with open(os.path.join(report_dir, "report.json"), "w", encoding="utf-8") as f:
        json.dump(data, f, indent=2)
    md = render_markdown(data)
    with open(os.path.join(report_dir, "report.md"), "w", encoding="utf-8") as f:
        f.write(md)
    with open(os.path.join(report_dir, "report.html"), "w", encoding="utf-8") as f:
        f.write(render_html(data, report_dir))
    log(f"report: {len(rows)} evaluated checkpoints, {len(diffs)} paired differences, {len(figures)} figures "
        f"-> {report_dir}")
    return os.path.join(report_dir, "report.md")


def _task_sets(done: list[Entry]) -> dict:
    """The evaluation set of the rows, and whether every row used the same one (it should)."""
    keys = []
    for e in done:
        s = e.summary
        t = s.get("tasks", {})
        keys.append((t.get("spec"), t.get("split"), t.get("seed"), s["num_tasks"], s.get("samples_per_task"),
                     s.get("temperature"), s.get("config", {}).get("max_new_tokens"), s.get("format")))
    if not keys:
        return {}
    spec, split, seed, n, samples, temperature, max_new, fmt = keys[0]
    return {"spec": spec, "split": split, "seed": seed, "tasks": n, "samples_per_task": samples,
            "temperature": temperature, "max_new_tokens": max_new, "format": fmt,
            "same_for_every_row": all(k == keys[0] for k in keys)}


def _table(data: dict) -> tuple[list[str], list[list[str]]]:
    header = ["model / checkpoint", "method", "pass@1 [95% CI]", "#passed / #tasks", "avg. length", "source"]
    body = [[r["checkpoint"], r["method"], f"{r['pass@1']:.3f} {_fmt_ci(r['ci95'])}".strip(),
             f"{r['passed']} / {r['tasks']}", f"{r['avg_gen_tokens']:.2f}", r["source"]] for r in data["table"]]
    return header, body


def _diff_table(data: dict) -> tuple[list[str], list[list[str]]]:
    header = ["comparison", "Δ pass@1", "95% paired-bootstrap CI", "tasks better / worse / same", "CI excludes 0",
              "sources"]
    body = []
    for d in data["paired_differences"]:
        name = f"{d['after']} vs {d['before']}"
        if "error" in d:
            body.append([name, "-", d["error"], "-", "-", ", ".join(d["sources"])])
            continue
        lo, hi = d["ci95"]
        body.append([name, f"{d['delta']:+.3f}", f"[{lo:+.3f}, {hi:+.3f}]",
                     f"{d['better']} / {d['worse']} / {d['same']}", "yes" if lo > 0 or hi < 0 else "no",
                     ", ".join(d["sources"])])
    return header, body


def _eval_line(data: dict) -> str:
    t = data["evaluation"]
    if not t:
        return "No evaluation has finished yet."
    sampling = "greedy" if not t["temperature"] else f"temperature {t['temperature']}"
    line = (f"Evaluation: `{t['spec']}` split `{t['split']}` (seed {t['seed']}), {t['tasks']} tasks x "
            f"{t['samples_per_task']} sample(s), {sampling}, max_new_tokens {t['max_new_tokens']}, format "
            f"`{t['format']}`.")
    if not t["same_for_every_row"]:
        line += " **Warning: the rows were not all evaluated on the same tasks/settings; compare with care.**"
    return line


NOTES = ("pass@1 brackets: 95% percentile-bootstrap interval over tasks (from each summary.json). Paired "
         f"differences: per-task pass rates (fraction of a task's samples that passed) from the two samples.jsonl "
         f"files, the mean difference over the same tasks and its 95% percentile-bootstrap interval "
         f"({RESAMPLES} resamples of tasks, seed 0; `coderl.eval.stats.paired_bootstrap_ci`). Length: average "
         "generated tokens per completion (seed 001's 'Avg. length').")


def _md_table(header, body, *, sources_last: bool = False) -> list[str]:
    """`sources_last`: the last column holds ", "-separated paths relative to OUT, linked from report/."""
    esc = lambda c: str(c).replace("|", "\\|")  # noqa: E731

    def cells(row):
        if not sources_last:
            return [esc(c) for c in row]
        links = ", ".join(f"[{p}](../{p})" for p in row[-1].split(", ") if p)
        return [esc(c) for c in row[:-1]] + [links]

    return ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)] + \
        ["| " + " | ".join(cells(row)) + " |" for row in body]


def render_markdown(data: dict) -> str:
    lines = [f"# {data['title']}", "", f"Pipeline directory `{data['out']}`, report generated {data['generated']}. "
             "Every number below comes from the file named next to it (paths relative to the pipeline directory; "
             "all numbers also in `report.json`).", "", _eval_line(data), "",
             "## Results (seed 001 §4.1)", ""]
    header, body = _table(data)
    lines += _md_table(header, body, sources_last=True) if body else ["(no evaluation finished yet)"]
    lines += ["", "## Paired differences in pass@1", ""]
    header, body = _diff_table(data)
    lines += _md_table(header, body, sources_last=True) if body else ["(needs the base evaluation and another)"]
    lines += ["", NOTES, "", "## Figures", ""]
    for f in data["figures"]:
        lines += [f"![{f['caption']}]({f['file']})", "", f"*{f['caption']}* (from `{f['source']}`)", ""]
    if data["stages"]:
        lines += ["## Stages", "", "| stage | seconds | finished |", "|---|---|---|"]
        lines += [f"| {s['stage']} | {s['seconds'] if s['seconds'] is not None else '-'} | "
                  f"{s['finished'] or 'not finished'} |" for s in data["stages"]]
        lines.append("")
    if data["not_evaluated"]:
        lines += ["Not evaluated yet: " + ", ".join(data["not_evaluated"]), ""]
    return "\n".join(lines)


SPARK = "▁▂▃▄▅▆▇█"


def sparkline(values: list[float]) -> str:
    """One character per value, scaled between the series' min and max (a flat series is all ▄)."""
    if not values:
        return ""
    lo, hi = min(values), max(values)
    if hi - lo < 1e-12:
        return SPARK[3] * len(values)
    return "".join(SPARK[min(len(SPARK) - 1, int((v - lo) / (hi - lo) * len(SPARK)))] for v in values)


def render_terminal(data: dict) -> str:
    """The report for a terminal: the results table, the paired differences and each RL run's curves as
    sparklines (first -> last step, with the first, last and min..max values)."""
    lines = [data["title"], _eval_line(data).replace("`", ""), ""]
    rows = [["checkpoint", "method", "pass@1 [95% CI]", "passed/tasks", "avg. length"]]
    rows += [[r["checkpoint"], r["method"], f"{r['pass@1']:.3f} {_fmt_ci(r['ci95'])}".strip(),
              f"{r['passed']}/{r['tasks']}", f"{r['avg_gen_tokens']:.1f}"] for r in data["table"]]
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    lines += ["  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip() for row in rows]
    for d in data["paired_differences"]:
        if "error" not in d:
            lo, hi = d["ci95"]
            lines.append(f"{d['after']} vs {d['before']}: Δ pass@1 {d['delta']:+.3f} [{lo:+.3f}, {hi:+.3f}] "
                         f"(tasks better/worse/same {d['better']}/{d['worse']}/{d['same']})")
    for f in data["figures"]:
        if not f["file"].startswith("curves-"):
            continue
        metrics = read_metrics(os.path.join(data["out"], os.path.dirname(f["source"])))
        lines += ["", f"{f['caption']} ({os.path.join(data['out'], 'report', f['file'])}):"]
        for _, series in CURVES:
            for key, _legend in series:
                ys = [r[key] for r in metrics if isinstance(r.get(key), (int, float)) and math.isfinite(r[key])]
                if ys:
                    lines.append(f"  {key:<18} {sparkline(ys)}  {ys[0]:.3g} -> {ys[-1]:.3g} "
                                 f"(min {min(ys):.3g}, max {max(ys):.3g})")
    return "\n".join(lines)


def _html_table(header, body, *, sources_last: bool = False) -> str:
    head = "".join(f"<th>{html.escape(h)}</th>" for h in header)

    def cells(row):
        out = [html.escape(str(c)) for c in row]
        if sources_last:
            out[-1] = ", ".join(f"<a href='../{html.escape(p)}'>{html.escape(p)}</a>" for p in row[-1].split(", ") if p)
        return "".join(f"<td>{c}</td>" for c in out)

    rows = "".join(f"<tr>{cells(row)}</tr>" for row in body)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table>"


def render_html(data: dict, report_dir: str) -> str:
    e = html.escape
    parts = [f"<!doctype html><html><head><meta charset='utf-8'><title>{e(data['title'])}</title>",
             "<style>body{font-family:sans-serif;max-width:1100px;margin:2em auto;padding:0 1em}"
             "table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ccc;padding:4px 8px;"
             "text-align:left;font-size:14px}th{background:#f3f3f3}img{max-width:100%}"
             "figcaption{font-size:13px;color:#444}</style></head><body>",
             f"<h1>{e(data['title'])}</h1>",
             f"<p>Pipeline directory <code>{e(data['out'])}</code>, report generated {e(data['generated'])}. Every "
             "number comes from the file named next to it (paths relative to the pipeline directory).</p>",
             f"<p>{e(_eval_line(data).replace('**', '').replace('`', ''))}</p>",
             "<h2>Results (seed 001 §4.1)</h2>"]
    header, body = _table(data)
    parts.append(_html_table(header, body, sources_last=True) if body else "<p>(no evaluation finished yet)</p>")
    parts.append("<h2>Paired differences in pass@1</h2>")
    header, body = _diff_table(data)
    parts.append(_html_table(header, body, sources_last=True) if body else
                 "<p>(needs the base evaluation and another)</p>")
    parts.append(f"<p>{e(NOTES)}</p><h2>Figures</h2>")
    for f in data["figures"]:
        with open(os.path.join(report_dir, f["file"]), "rb") as fh:
            b64 = base64.b64encode(fh.read()).decode("ascii")
        parts.append(f"<figure><img alt='{e(f['caption'])}' src='data:image/png;base64,{b64}'>"
                     f"<figcaption>{e(f['caption'])} (from <code>{e(f['source'])}</code>)</figcaption></figure>")
    if data["stages"]:
        parts.append("<h2>Stages</h2>")
        parts.append(_html_table(["stage", "seconds", "finished"],
                                 [[s["stage"], "-" if s["seconds"] is None else s["seconds"],
                                   s["finished"] or "not finished"] for s in data["stages"]]))
    if data["not_evaluated"]:
        parts.append(f"<p>Not evaluated yet: {e(', '.join(data['not_evaluated']))}</p>")
    parts.append("</body></html>\n")
    return "\n".join(parts)
