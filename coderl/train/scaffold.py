"""Loop scaffolding shared by SFT and the RL loops: learning-rate schedule, progress bar, the count of
what trains, and the refusal to write into another run's directory."""

from __future__ import annotations

import math
import os

from coderl.base.config import ConfigError


def lr_factor(schedule: str, warmup_steps: int, total_steps: int):
    """step (0-based) -> learning-rate multiplier: linear warmup over `warmup_steps`, then constant,
    linear or cosine decay over the remaining steps."""
    def factor(step: int) -> float:
        if warmup_steps and step < warmup_steps:
            return (step + 1) / warmup_steps
        if schedule == "constant":
            return 1.0
        progress = (step - warmup_steps) / max(1, total_steps - warmup_steps)
        if schedule == "linear":
            return max(0.0, 1.0 - progress)
        return 0.5 * (1.0 + math.cos(math.pi * min(1.0, progress)))

    return factor


def refuse_existing_run(out: str) -> None:
    """A fresh run never writes into another run's directory (its checkpoints would be mixed with ours)."""
    held = [name for name in ("checkpoints", "metrics.jsonl")
            if os.path.exists(os.path.join(out, name)) and (name != "metrics.jsonl"
                                                            or os.path.getsize(os.path.join(out, name)) > 0)]
    if held:
        raise ConfigError(f"--out {out}: already holds a run ({', '.join(held)}); pass --resume to continue it, "
                          "or choose another --out")


def log_trainable(modules: list, log) -> None:
    total = sum(p.numel() for m in modules for p in m.parameters())
    n_train = sum(p.numel() for m in modules for p in m.parameters() if p.requires_grad)
    log(f"trainable parameters: {n_train:,} / {total:,} ({100 * n_train / total:.2f}%)")


class Progress:
    """A rich progress bar of optimizer steps; `describe(metrics)` is the text beside it."""

    def __init__(self, label: str, total: int, start: int, describe):
        from rich.progress import BarColumn, TextColumn, TimeRemainingColumn
        from rich.progress import Progress as Bar

        self.describe = describe
        self.bar = Bar(TextColumn(label + " {task.completed}/{task.total}"), BarColumn(),
                       TextColumn("{task.fields[info]}"), TimeRemainingColumn(), transient=False)
        self.task = self.bar.add_task(label, total=total, completed=start, info="")
        self.bar.start()

    def update(self, step: int, metrics: dict) -> None:
        self.bar.update(self.task, completed=step, info=self.describe(metrics))

    def close(self) -> None:
        self.bar.stop()
