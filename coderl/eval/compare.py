"""`coderl compare RUN_DIR...`: seed 001's §4.1 table and a plot of pass@1 against length.

Reads each run's `summary.json` (written by `coderl eval`) and prints / writes:
  compare.md    | model / checkpoint | method | pass@1 | #passed / #tasks | avg. length |
  compare.png   pass@1 (with its 95% interval over tasks) against average generated tokens
Every number comes from a file in the run directories.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass

from coderl.base.config import ConfigError, option, require


@dataclass
class CompareConfig:
    """Compare evaluation runs: seed 001's table (pass@1, passed/tasks, average length) and a PNG."""

    runs: list[str] = option(help="run directories written by `coderl eval`", positional=True)
    out: str = option("compare", "output prefix: writes OUT.md and OUT.png")
    plot: bool = option(True, "write the PNG (needs matplotlib)")

    def __post_init__(self):
        require(len(self.runs) >= 1, "RUN_DIR", self.runs, "one or more run directories")


def load_summary(run_dir: str) -> dict:
    path = os.path.join(run_dir, "summary.json")
    try:
        with open(path, encoding="utf-8") as f:
            summary = json.load(f)
    except FileNotFoundError:
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
    lines = ["| model / checkpoint | method | pass@1 | #passed / #tasks | avg. length |",
             "|---|---|:---:|:---:|:---:|"]
    for s in summaries:
        lo, hi = s.get("pass_at_k_ci95", {}).get("pass@1", (None, None))
        ci = f" [{lo:.3f}, {hi:.3f}]" if lo is not None else ""
        passed = round(s["pass_at_k"]["pass@1"] * s["num_tasks"]) if s.get("samples_per_task", 1) > 1 \
            else s["tasks_all_passed"]
        lines.append(f"| `{s['label']}` | {s['method']} | {s['pass_at_k']['pass@1']:.3f}{ci} | "
                     f"{passed} / {s['num_tasks']} | {s['avg_gen_tokens']:.2f} |")
    return "\n".join(lines) + "\n"


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
    ax.set_ylabel("pass@1 (95% CI over tasks)")
    ax.set_title("pass@1 against completion length")
    ax.grid(alpha=0.3)
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.14), fontsize=8, frameon=False)
    fig.tight_layout()
    fig.savefig(path, bbox_inches="tight")
    plt.close(fig)


def run_compare(cfg: CompareConfig) -> str:
    summaries = [load_summary(d) for d in cfg.runs]
    text = table(summaries)
    if os.path.dirname(cfg.out):
        os.makedirs(os.path.dirname(cfg.out), exist_ok=True)
    with open(cfg.out + ".md", "w", encoding="utf-8") as f:
        f.write(text)
    if cfg.plot:
        plot(summaries, cfg.out + ".png")
    return text
