"""Checkpoints of an RL run side by side on evaluation sets (issue 103's step study, RESULTS.md): for each row, a
greedy and a sampled `coderl eval` run of one checkpoint; the first row is the baseline (the SFT adapter) of the
paired differences.

    python scripts/step_study.py --row "0 (SFT)" EVALS/sft/greedy EVALS/sft/sampled \\
        --row 10 EVALS/run/step-10/greedy EVALS/run/step-10/sampled ... [--entropy] [--out TABLE.md]

Columns, for each of the two runs: pass@1; its paired difference from the baseline with the 95% bootstrap interval
over the compositions (`coderl compare`'s `paired`: the same figures) and the tasks better / worse; the mean
generated tokens; "one line": the share of answers whose function body is one statement (a docstring and imports
aside; a program with more than one top-level function, or that does not parse, is not one); "errors": the share
whose status is a runtime or syntax error.  `--entropy`: the policy's mean entropy per generated token over its own
sampled answers, at the temperature they were sampled at (each checkpoint loaded from its run's summary; the
answers re-tokenized from their text, their end-of-turn token appended where they ended: the ids as generated are
not kept by `coderl eval`).
"""

from __future__ import annotations

import argparse
import ast
import os
import sys

ERRORS = {"runtime_error", "syntax_error"}


def one_statement(code: str) -> bool:
    """Whether `code` is one top-level function whose body, less its docstring and imports, is one statement."""
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError):
        return False
    functions = [node for node in tree.body if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))]
    if len(functions) != 1:
        return False
    body = functions[0].body
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
            and isinstance(body[0].value.value, str):
        body = body[1:]
    return len([s for s in body if not isinstance(s, (ast.Import, ast.ImportFrom))]) == 1


def read_run(run_dir: str) -> tuple[dict, list[dict]]:
    """(summary.json, the rows of samples.jsonl) of a `coderl eval` run; ConfigError (one line) where either is
    missing or unreadable."""
    from coderl.eval.compare import load_summary
    from coderl.tasks.rows import iter_jsonl, plain_or_gzip

    summary = load_summary(run_dir)
    return summary, [row for _, row in iter_jsonl(plain_or_gzip(os.path.join(run_dir, "samples.jsonl")))]


def answers(rows: list[dict]) -> dict:
    """The shares of one-statement answers and of errors among `rows`."""
    n = max(len(rows), 1)
    return {"one_line": sum(one_statement(r["completion"]) for r in rows) / n,
            "errors": sum(r["status"] in ERRORS for r in rows) / n}


def policy_entropy(model_spec: str, rows: list[dict], temperature: float, *, dtype: str = "float32",
                   batch: int = 16) -> float:
    """Mean entropy (nats) per generated token of `model_spec` over `rows`' answers, at `temperature` (0: 1)."""
    import torch

    from coderl.models import load_model
    from coderl.train.logprobs import Sequences, token_logprobs

    loaded = load_model(model_spec, dtype=dtype)
    model, tok = loaded.model, loaded.tokenizer
    model.eval()
    end = tok.eos_token_id
    total = count = 0.0
    for start in range(0, len(rows), batch):
        chunk = rows[start:start + batch]
        prompts = [tok(r["prompt"], add_special_tokens=False)["input_ids"] for r in chunk]
        outs = [tok(r["raw_output"], add_special_tokens=False)["input_ids"] + ([] if r["truncated"] else [end])
                for r in chunk]
        width, length = max(map(len, prompts)), max(max(map(len, outs)), 1)
        pad = tok.pad_token_id if tok.pad_token_id is not None else end
        ids = torch.full((len(chunk), width + length), pad, dtype=torch.long)
        attention = torch.zeros_like(ids)
        mask = torch.zeros(len(chunk), length)
        for i, (p, o) in enumerate(zip(prompts, outs)):
            ids[i, width - len(p):width] = torch.tensor(p)
            ids[i, width:width + len(o)] = torch.tensor(o, dtype=torch.long)
            attention[i, width - len(p):width + len(o)] = 1
            mask[i, :len(o)] = 1
        positions = (attention.cumsum(dim=1) - 1).clamp(min=0) * attention
        seqs = Sequences(ids, attention, positions, ids[:, width:], mask)
        with torch.no_grad():
            _, entropy = token_logprobs(model, seqs, temperature or 1.0, with_entropy=True)
        total += float((entropy * mask).sum())
        count += float(mask.sum())
    return total / max(count, 1.0)


def study(rows: list[tuple[str, str, str]], *, entropy: bool = False) -> list[dict]:
    """One record per (label, greedy run, sampled run); differences against the first."""
    from coderl.base.config import ConfigError
    from coderl.eval.compare import paired

    base = rows[0]
    out = []
    for label, greedy, sampled in rows:
        record = {"label": label}
        for kind, run, first in (("greedy", greedy, base[1]), ("sampled", sampled, base[2])):
            summary, samples = read_run(run)
            record[kind] = {"pass@1": summary["pass_at_k"]["pass@1"], "length": summary["avg_gen_tokens"],
                            **answers(samples)}
            if run != first:
                record[kind]["paired"] = paired(first, run)
                if "error" in record[kind]["paired"]:
                    raise ConfigError(f"--row {label}: {run} against {first}: {record[kind]['paired']['error']} "
                                      "(expected the same evaluation set)")
            if entropy and kind == "sampled":
                record[kind]["entropy"] = policy_entropy(summary["config"]["model"], samples,
                                                         summary["temperature"], dtype=summary["config"]["dtype"])
        out.append(record)
    return out


def _diff(p: dict | None) -> str:
    if not p:
        return ""
    lo, hi = p["ci95"]
    bold = "**" if lo > 0 or hi < 0 else ""
    return f"{bold}{p['delta']:+.3f} [{lo:+.3f}, {hi:+.3f}]{bold} ({p['better']} / {p['worse']})"


def table(records: list[dict]) -> str:
    entropy = any("entropy" in r["sampled"] for r in records)
    head = ["step", "greedy pass@1", "greedy - first [95% CI] (better / worse)", "greedy length", "greedy one line",
            "greedy errors", "sampled pass@1", "sampled - first [95% CI] (better / worse)", "sampled length",
            "sampled one line", *(["sampled entropy (nats/token)"] if entropy else [])]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in records:
        g, s = r["greedy"], r["sampled"]
        cells = [r["label"], f"{g['pass@1']:.3f}", _diff(g.get("paired")), f"{g['length']:.1f}",
                 f"{g['one_line']:.3f}", f"{g['errors']:.3f}", f"{s['pass@1']:.3f}", _diff(s.get("paired")),
                 f"{s['length']:.1f}", f"{s['one_line']:.3f}", *([f"{s['entropy']:.3f}"] if entropy else [])]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--row", nargs=3, action="append", required=True, metavar=("LABEL", "GREEDY_RUN", "SAMPLED_RUN"),
                    help="a checkpoint's two `coderl eval` runs; the first --row is the baseline")
    ap.add_argument("--entropy", action="store_true", help="load each checkpoint and measure its sampled entropy")
    ap.add_argument("--json", help="also write the records to this JSON file")
    args = ap.parse_args(argv)
    from coderl.base.config import ConfigError
    from coderl.tasks.types import TaskFormatError

    try:
        records = study([tuple(r) for r in args.row], entropy=args.entropy)
    except (ConfigError, TaskFormatError, OSError) as exc:  # a run missing, unreadable, or of another task set
        print(f"step_study: {exc}", file=sys.stderr)
        return 2
    if args.json:
        from coderl.base.outputs import write_json

        write_json(args.json, records)
    print(table(records), end="")
    return 0


if __name__ == "__main__":
    sys.exit(main())
