"""Metrics: always `metrics.jsonl` in the run directory; optionally TensorBoard, W&B (offline) or trackio."""

from __future__ import annotations

import json
import os


def _need(module: str, flag: str):
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError:
        from coderl.base.config import ConfigError

        raise ConfigError(f"--log-with {flag}: the '{module}' package is not installed "
                          f"(pip install {module})") from None


class Tracker:
    def __init__(self, run_dir: str, log_with: str = "none", config: dict | None = None, resume: bool = False):
        self.path = os.path.join(run_dir, "metrics.jsonl")
        self.file = open(self.path, "a" if resume else "w", encoding="utf-8")
        self.backend = None
        self.kind = log_with
        if log_with == "tensorboard":
            _need("tensorboard", "tensorboard")
            from torch.utils.tensorboard import SummaryWriter

            self.backend = SummaryWriter(os.path.join(run_dir, "tensorboard"))
        elif log_with == "wandb":
            os.environ.setdefault("WANDB_MODE", "offline")
            self.backend = _need("wandb", "wandb").init(dir=run_dir, config=config, project="coderl", reinit=True)
        elif log_with == "trackio":
            self.backend = _need("trackio", "trackio").init(project="coderl", config=config)

    def log(self, step: int, metrics: dict) -> None:
        self.file.write(json.dumps({"step": step, **metrics}) + "\n")
        self.file.flush()
        if self.kind == "tensorboard":
            for k, v in metrics.items():
                if isinstance(v, (int, float)):
                    self.backend.add_scalar(k, v, step)
        elif self.kind in ("wandb", "trackio"):
            self.backend.log({k: v for k, v in metrics.items() if isinstance(v, (int, float))}, step=step)

    def close(self) -> None:
        self.file.close()
        if self.kind == "tensorboard":
            self.backend.close()
        elif self.kind == "wandb":
            self.backend.finish()
        elif self.kind == "trackio":
            import trackio

            trackio.finish()


class SilentTracker:
    """The tracker of ranks other than 0 under several training processes: rank 0 logs for all."""

    def log(self, step: int, metrics: dict) -> None:
        pass

    def close(self) -> None:
        pass


def read_metrics(run_dir: str) -> list[dict]:
    with open(os.path.join(run_dir, "metrics.jsonl"), encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]
