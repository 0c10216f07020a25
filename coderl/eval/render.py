"""The pipeline report drawn from its data (`report.json`, which `report.py` builds): markdown, terminal (with
sparklines of the training curves) and HTML.  Nothing here reads a run's files, only the report's own figures."""

from __future__ import annotations

import base64
import html
import os


def format_ci(ci) -> str:
    return f"[{ci[0]:.3f}, {ci[1]:.3f}]" if ci and ci[0] is not None else ""


def _clean(row: dict) -> str:
    """pass@1 with judge-observed tamper counted as failure ("-" for a summary written before it existed)."""
    value = row.get("pass@1_without_tamper")
    return "-" if value is None else f"{value:.3f}"


def _table(data: dict) -> tuple[list[str], list[list[str]]]:
    header = ["model / checkpoint", "method", "pass@1 [95% CI]", "without tamper", "#passed / #tasks", "avg. length",
              "source"]
    body = [[r["checkpoint"], r["method"], f"{r['pass@1']:.3f} {format_ci(r['ci95'])}".strip(), _clean(r),
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


def overlap_lines(data: dict) -> list[str]:
    """One warning per training stage whose tasks solve evaluation tasks (OUT/overlap.json)."""
    lines = []
    for row in data.get("overlap", []):
        if row["solved"]:
            lines.append(f"Overlap: {row['stage']}'s training tasks (`{row['tasks']}`) solve {len(row['solved'])} of "
                         f"the {row['of']} evaluation tasks by behaviour ({', '.join(row['solved'][:6])}"
                         f"{', ...' if len(row['solved']) > 6 else ''}): on those, its row is not a held-out result "
                         "(from `overlap.json`; `coderl decontaminate` lists the pairs).")
        if row.get("undecided"):
            lines.append(f"Overlap not decided for {len(row['undecided'])} evaluation tasks of {row['stage']} "
                         f"({', '.join(row['undecided'][:6])}): a check that did not finish.")
    return lines


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


def _notes(data: dict) -> str:
    return ("pass@1 brackets: 95% percentile-bootstrap interval over tasks (from each summary.json). Paired "
            "differences: per-task pass rates (fraction of a task's samples that passed) from the two samples.jsonl "
            "files, the mean difference over the same tasks and its 95% percentile-bootstrap interval "
            f"({data['resamples']} resamples of tasks, seed 0; `coderl.eval.stats.paired_bootstrap_ci`). Length: "
            "average generated tokens per completion (seed 001's 'Avg. length').")


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
             "all numbers also in `report.json`).", "", _eval_line(data), ""]
    for line in overlap_lines(data):
        lines += [f"**{line}**", ""]
    lines += ["## Results (seed 001 §4.1)", ""]
    header, body = _table(data)
    lines += _md_table(header, body, sources_last=True) if body else ["(no evaluation finished yet)"]
    lines += ["", "## Paired differences in pass@1", ""]
    header, body = _diff_table(data)
    lines += _md_table(header, body, sources_last=True) if body else ["(needs the base evaluation and another)"]
    lines += ["", _notes(data), "", "## Figures", ""]
    for f in data["figures"]:
        lines += [f"![{f['caption']}]({f['file']})", "", f"*{f['caption']}* (from `{f['source']}`)", ""]
    for run in data.get("rl_runs", []):
        lines += _run_markdown(run)
    if data["stages"]:
        lines += ["## Stages", "", "| stage | seconds | finished |", "|---|---|---|"]
        lines += [f"| {s['stage']} | {s['seconds'] if s['seconds'] is not None else '-'} | "
                  f"{s['finished'] or 'not finished'} |" for s in data["stages"]]
        lines.append("")
    if data["not_evaluated"]:
        lines += ["Not evaluated yet: " + ", ".join(data["not_evaluated"]), ""]
    return "\n".join(lines)


def selection_line(run: dict) -> str | None:
    sel = run.get("selected")
    if not sel:
        return None
    start = " (the starting policy: no step beat it)" if sel.get("step") == 0 else ""
    frac = sel.get("eval/fraction_passed")
    return (f"{run['run']}: the evaluated checkpoint is the one its selection kept, step {sel['step']}{start}, "
            f"pass@1 {sel['eval/pass@1']:.3f}" + (f" and {frac:.3f} of the tests passed" if frac is not None else "")
            + f" on its own held-out `{sel.get('eval_tasks')}` (from `{sel['source']}`).")


def _run_markdown(run: dict) -> list[str]:
    lines = [f"## {run['run']}: what was selected, and what the reward paid for", ""]
    line = selection_line(run)
    if line:
        lines += [line, ""]
    if run["top_samples"]:
        lines += [f"The highest-reward completions of its last evaluation step (from `{run['top_source']}`):", ""]
        for t in run["top_samples"]:
            lines += [f"- `{t['task_id']}`, reward {t['reward']:.3f}, {t['gen_tokens']} tokens"
                      + (" (truncated)" if t.get("truncated") else "") + ":", "",
                      "  ```python", *("  " + x for x in (t["completion"] or "").strip("\n").splitlines()), "  ```", ""]
    elif not line:
        lines += ["(no held-out evaluation during training: nothing selected, no top samples written)", ""]
    return lines


def _run_html(run: dict) -> list[str]:
    e = html.escape
    parts = [f"<h2>{e(run['run'])}: what was selected, and what the reward paid for</h2>"]
    line = selection_line(run)
    if line:
        parts.append(f"<p>{e(line.replace('`', ''))}</p>")
    if run["top_samples"]:
        parts.append(f"<p>The highest-reward completions of its last evaluation step (from "
                     f"<code>{e(run['top_source'])}</code>):</p>")
        for t in run["top_samples"]:
            cut = " (truncated)" if t.get("truncated") else ""
            parts.append(f"<p><code>{e(t['task_id'])}</code>, reward {t['reward']:.3f}, {t['gen_tokens']} tokens{cut}"
                         f"</p><pre>{e(t['completion'] or '')}</pre>")
    return parts


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
    rows = [["checkpoint", "method", "pass@1 [95% CI]", "without tamper", "passed/tasks", "avg. length"]]
    rows += [[r["checkpoint"], r["method"], f"{r['pass@1']:.3f} {format_ci(r['ci95'])}".strip(), _clean(r),
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
        lines += ["", f"{f['caption']} ({os.path.join(data['out'], 'report', f['file'])}):"]
        for key, ys in f.get("series", {}).items():
            if ys:
                lines.append(f"  {key:<18} {sparkline(ys)}  {ys[0]:.3g} -> {ys[-1]:.3g} "
                             f"(min {min(ys):.3g}, max {max(ys):.3g})")
    selected = [selection_line(run) for run in data.get("rl_runs", [])]
    lines += [""] + [line.replace("`", "") for line in selected if line] if any(selected) else []
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
             f"<p>{e(_eval_line(data).replace('**', '').replace('`', ''))}</p>"]
    parts += [f"<p><b>{e(line.replace('`', ''))}</b></p>" for line in overlap_lines(data)]
    parts.append("<h2>Results (seed 001 §4.1)</h2>")
    header, body = _table(data)
    parts.append(_html_table(header, body, sources_last=True) if body else "<p>(no evaluation finished yet)</p>")
    parts.append("<h2>Paired differences in pass@1</h2>")
    header, body = _diff_table(data)
    parts.append(_html_table(header, body, sources_last=True) if body else
                 "<p>(needs the base evaluation and another)</p>")
    parts.append(f"<p>{e(_notes(data))}</p><h2>Figures</h2>")
    for f in data["figures"]:
        with open(os.path.join(report_dir, f["file"]), "rb") as fh:
            b64 = base64.b64encode(fh.read()).decode("ascii")
        parts.append(f"<figure><img alt='{e(f['caption'])}' src='data:image/png;base64,{b64}'>"
                     f"<figcaption>{e(f['caption'])} (from <code>{e(f['source'])}</code>)</figcaption></figure>")
    for run in data.get("rl_runs", []):
        parts += _run_html(run)
    if data["stages"]:
        parts.append("<h2>Stages</h2>")
        parts.append(_html_table(["stage", "seconds", "finished"],
                                 [[s["stage"], "-" if s["seconds"] is None else s["seconds"],
                                   s["finished"] or "not finished"] for s in data["stages"]]))
    if data["not_evaluated"]:
        parts.append(f"<p>Not evaluated yet: {e(', '.join(data['not_evaluated']))}</p>")
    parts.append("</body></html>\n")
    return "\n".join(parts)
