"""The pipeline report drawn from its data (`report.json`, which `report.py` builds): markdown and terminal (with
sparklines of the training curves).  Nothing here reads a run's files, only the report's own figures."""

from __future__ import annotations

import os


def over(summary: dict) -> str:
    """What an interval resamples, printed beside it: "256 clusters of 400 tasks" (a summary written before
    clusters existed: one task a cluster, as its interval was)."""
    return f"{summary.get('clusters', summary['num_tasks'])} clusters of {summary['num_tasks']} tasks"


def format_ci(ci) -> str:
    return f"[{ci[0]:.3f}, {ci[1]:.3f}]" if ci and ci[0] is not None else ""


def pass_at_k_text(pass_at_k: dict) -> str:
    """The pass@k beside pass@1 (k > 1, unbiased: `coderl.eval.passk`), "-" with one sample a task."""
    return "; ".join(f"{k} {v:.3f}" for k, v in pass_at_k.items() if k != "pass@1") or "-"


def _table(rows: list[dict]) -> tuple[list[str], list[list[str]]]:
    # a column per test group (EvalPlus's base and plus pass@1, `coderl.eval.groups`) where a row has them
    groups = list(dict.fromkeys(name for r in rows for name in r.get("by_group") or {}))
    header = ["model / checkpoint", "method", "pass@1 [95% CI]", *(f"{name} pass@1" for name in groups),
              "clusters / tasks", "pass@k", "without tamper", "#passed / #tasks", "avg. length", "source"]
    body = [[r["checkpoint"], r["method"], f"{r['pass@1']:.3f} {format_ci(r['ci95'])}".strip(),
             *(_group_cell(r, name) for name in groups),
             f"{r['clusters']} / {r['tasks']}", pass_at_k_text(r["pass_at_k"]),
             # pass@1 with judge-observed tamper counted as failure ("-" for a summary written before it existed)
             "-" if r.get("pass@1_without_tamper") is None else f"{r['pass@1_without_tamper']:.3f}",
             f"{r['passed']} / {r['tasks']}", f"{r['avg_gen_tokens']:.2f}", r["source"]] for r in rows]
    return header, body


def _group_cell(row: dict, name: str) -> str:
    value = (row.get("by_group") or {}).get(name)
    return "-" if value is None else f"{value:.3f}"


def comparison(d: dict) -> str:
    """"eval/grpo vs eval/sft", and which tasks when a subset was left out."""
    name = f"{d['after']} vs {d['before']}"
    n = d.get("excluded")
    return name + (f", without the {n} task{'s' if n > 1 else ''} a training reference solves" if n else "")


def diff_table(diffs: list[dict]) -> tuple[list[str], list[list[str]]]:
    """Paired differences (`coderl.eval.compare.paired` rows with before, after, sources): one row each."""
    header = ["comparison", "clusters / tasks", "pass@1", "Δ pass@1 [95% CI]", "CI excludes 0",
              "tasks better / worse / same", "pass@k", "avg. length", "Δ length [95% CI]", "sources"]
    body = []
    for d in diffs:
        if "error" in d:
            body.append([comparison(d), "-", "-", d["error"], "-", "-", "-", "-", "-", ", ".join(d["sources"])])
            continue
        lo, hi = d["ci95"]
        before, after = d["pass_at_k"]
        passk = "; ".join(f"{k} {before[k]:.3f} → {after[k]:.3f}" for k in before if k != "pass@1") or "-"
        body.append([comparison(d), f"{d['clusters']} / {d['tasks']}", "{:.3f} → {:.3f}".format(*d["pass@1"]),
                     f"{d['delta']:+.3f} [{lo:+.3f}, {hi:+.3f}]", "yes" if lo > 0 or hi < 0 else "no",
                     f"{d['better']} / {d['worse']} / {d['same']}", passk,
                     "{:.1f} → {:.1f}".format(*d["avg_gen_tokens"]),
                     "{:+.1f} [{:+.1f}, {:+.1f}]".format(d["length_delta"], *d["length_ci95"]),
                     ", ".join(d["sources"])])
    return header, body


def diff_line(d: dict) -> str:
    """One paired difference on one line (the terminal)."""
    lo, hi = d["ci95"]
    return (f"{comparison(d)}: Δ pass@1 {d['delta']:+.3f} [{lo:+.3f}, {hi:+.3f}] over {d['clusters']} clusters of "
            f"{d['tasks']} tasks (tasks better/worse/same {d['better']}/{d['worse']}/{d['same']}); length "
            + "{:.1f} -> {:.1f} (Δ {:+.1f} [{:+.1f}, {:+.1f}])".format(*d["avg_gen_tokens"], d["length_delta"],
                                                                         *d["length_ci95"]))


def side_by_side(data: dict) -> tuple[list[str], list[list[str]]]:
    """Δ pass@1 of every comparison on every evaluation set (and its subset no training reference solves)."""
    columns: dict = {}  # (set, excluded?) -> {comparison: cell}
    for s in data["sets"]:
        for d in s["paired_differences"]:
            cell = "-" if "error" in d else "{:+.3f} [{:+.3f}, {:+.3f}] ({} / {})".format(
                d["delta"], *d["ci95"], d["clusters"], d["tasks"])
            key = (s["name"] + (", unsolved by training" if d.get("excluded") else ""))
            columns.setdefault(key, {})[f"{d['after']} vs {d['before']}"] = cell
    rows = list(dict.fromkeys(name for cells in columns.values() for name in cells))
    return (["comparison (Δ pass@1 [95% CI] (clusters / tasks))", *columns],
            [[name, *(cells.get(name, "-") for cells in columns.values())] for name in rows])


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


def _eval_line(s: dict) -> str:
    """The settings of one evaluation set."""
    t = s["evaluation"]
    if not t:
        return f"Evaluation `{s['name']}`: none has finished yet."
    sampling = "greedy" if not t["temperature"] else f"temperature {t['temperature']}"
    line = (f"Evaluation `{s['name']}`: `{t['spec']}` split `{t['split']}` (seed {t['seed']}), {t['tasks']} tasks x "
            f"{t['samples_per_task']} sample(s), {sampling}, max_new_tokens {t['max_new_tokens']}, format "
            f"`{t['format']}`.")
    if not t["same_for_every_row"]:
        line += " **Warning: the rows were not all evaluated on the same tasks/settings; compare with care.**"
    if s.get("excluded") is None:
        line += " No training stage was checked against it by behaviour (`overlap.json`)."
    elif s["excluded"]:
        line += (f" Training references solve {len(s['excluded'])} of its tasks (`overlap.json`, all stages): each "
                 "comparison is shown again without them.")
    else:
        line += " No training reference solves any of its tasks (`overlap.json`)."
    return line


def _notes(data: dict) -> str:
    return ("pass@1 brackets: 95% percentile-bootstrap interval over clusters of tasks (from each summary.json): a "
            "synthetic task's cluster is its composition, any other task is its own; the count of clusters and tasks "
            "stands beside every interval. pass@k: unbiased (Chen et al. 2021), k <= samples a task. Paired "
            "differences: per-task pass rates (fraction of a task's samples that passed) and per-task mean answer "
            "lengths from the two samples.jsonl files, the mean difference over the same tasks and its 95% "
            f"percentile-bootstrap interval ({data['resamples']} resamples of clusters, seed 0; "
            "`coderl.eval.stats.paired_bootstrap_ci`). Length: average generated tokens per completion (seed 001's "
            "'Avg. length').")


def md_table(header, body, *, sources_last: bool = False) -> list[str]:
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
             "all numbers also in `report.json`).", ""]
    for line in overlap_lines(data):
        lines += [f"**{line}**", ""]
    if len(data["sets"]) > 1:
        lines += ["## Δ pass@1 on every evaluation set", "", *md_table(*side_by_side(data)), ""]
    for s in data["sets"]:
        where = f" on `{s['name']}`" if len(data["sets"]) > 1 else ""
        lines += [f"## Results{where} (seed 001 §4.1)", "", _eval_line(s), ""]
        header, body = _table(s["table"])
        lines += md_table(header, body, sources_last=True) if body else ["(no evaluation finished yet)"]
        lines += ["", f"## Paired differences{where}", ""]
        header, body = diff_table(s["paired_differences"])
        lines += md_table(header, body, sources_last=True) if body else ["(needs the base evaluation and another)"]
        lines.append("")
    lines += [_notes(data), "", "## Figures", ""]
    for f in data["figures"]:
        lines += [f"![{f['caption']}]({f['file']})", "", f"*{f['caption']}* (from `{f['source']}`)", ""]
    for run in data.get("rl_runs", []):
        lines += _run_markdown(run)
    if data["stages"]:
        lines += ["## Stages", "", *md_table(["stage", "seconds", "finished"], [
            [s["stage"], "-" if s["seconds"] is None else s["seconds"], s["finished"] or "not finished"]
            for s in data["stages"]]), ""]
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
    seen = run.get("hack_attempts")
    if seen:
        cost = f"; the canaries sampled beside the training prompts cost {seen['seconds']:.0f} s" \
            if seen["seconds"] else ""
        lines += [f"Hack attempts (canary tasks' weak harness passed, strict judge failed): {seen['attempts']} of "
                  f"{seen['samples']} canary samples over {seen['steps']} steps{cost} (hack/canary_attempt_rate; "
                  "docs/training.md, \"When a run goes wrong\").", ""]
    if run.get("hack_warnings"):
        steps = ", ".join(f"{w['step']} ({w['rate']:.0%})" for w in run["hack_warnings"])
        lines += [f"**Warning: hack attempts.** The canary tasks' weak harness passed and the strict judge failed "
                  f"above the warning rate at steps {steps} (hack/canary_attempt_rate; docs/training.md, "
                  "\"When a run goes wrong\").", ""]
    if run["top_samples"]:
        lines += [f"The highest-reward completions of its last evaluation step (from `{run['top_source']}`):", ""]
        for t in run["top_samples"]:
            lines += [f"- `{t['task_id']}`, reward {t['reward']:.3f}, {t['gen_tokens']} tokens"
                      + (" (truncated)" if t.get("truncated") else "") + ":", "",
                      "  ```python", *("  " + x for x in (t["completion"] or "").strip("\n").splitlines()), "  ```", ""]
    elif not line:
        lines += ["(no held-out evaluation during training: nothing selected, no top samples written)", ""]
    return lines


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
    lines = [data["title"]]
    for s in data["sets"]:
        lines += ["", _eval_line(s).replace("`", "").replace("**", "")]
        header, body = _table(s["table"])
        rows = [row[:-1] for row in (header, *body)]  # the markdown table's columns but its sources
        widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
        lines += ["  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip() for row in rows]
        lines += [diff_line(d) for d in s["paired_differences"] if "error" not in d]
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


def infra_text(summary: dict) -> str:
    """The line on infrastructure failures: how many, that they are left out, and the tasks left incomplete."""
    infra = summary["infra_failures"]
    text = (f"infrastructure failures: {infra['samples']} sample(s) of {len(infra['by_task'])} task(s) failed in the "
            f"sandbox after {infra['retries']} re-runs; left out of every rate (no verdict on the program)")
    for name, tasks in summary.get("incomplete", {}).items():
        text += f"; incomplete for {name} (fewer samples than k, not scored): {', '.join(tasks[:10])}" + (
            f" and {len(tasks) - 10} more" if len(tasks) > 10 else "")
    return text
