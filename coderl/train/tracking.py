"""Metrics: always `metrics.jsonl` in the run directory; optionally one tracker beside it (`--log-with`):
- tensorboard: event files in RUN/tensorboard;
- wandb: an offline run in RUN/wandb (WANDB_MODE=offline unless set; `wandb sync` uploads it later);
- trackio: trackio's local database (TRACKIO_DIR, default ~/.cache/huggingface/trackio), project coderl;
- mlflow: an MLflow run in experiment coderl, stored in RUN/mlruns (a local file store) unless
  MLFLOW_TRACKING_URI points elsewhere (a server, a database).
Each tracker gets every numeric metric of each step under the same name and step as metrics.jsonl
(tests/train/test_trackers.py reads them back).  Packages: `pip install 'coderl[trackers]'`.

`Progress`: the progress of a run's optimizer steps, as a plain line in the log and, on a terminal, a bar.
"""

from __future__ import annotations

import json
import os

PACKAGES = {"tensorboard": "tensorboard", "wandb": "wandb", "trackio": "trackio", "mlflow": "mlflow-skinny"}


def _need(module: str, flag: str):
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError:
        from coderl.base.config import ConfigError

        raise ConfigError(f"--log-with {flag}: the '{module}' package is not installed (pip install "
                          f"'coderl[trackers]', or pip install {PACKAGES.get(flag, module)})") from None


def missing_packages(log_with: str = "none", engine: str = "hf") -> list[str]:
    """One line for each optional package the settings need and this machine lacks (`--log-with`'s tracker,
    `--engine vllm`'s vLLM), found without importing any: checked before a model loads, and said by --dry-run."""
    import importlib.util

    lines = []
    if log_with in PACKAGES and importlib.util.find_spec(log_with) is None:
        lines.append(f"--log-with {log_with}: the '{log_with}' package is not installed (pip install "
                     f"'coderl[trackers]', or pip install {PACKAGES[log_with]})")
    if engine == "vllm":
        from coderl.base.config import ConfigError
        from coderl.rollout.vllm_engine import engine_python

        try:
            engine_python()
        except ConfigError as exc:
            lines.append(str(exc))
    return lines


def require_packages(log_with: str = "none", engine: str = "hf") -> None:
    """`missing_packages`' first line as the run's one-line error (exit 2), before anything loads."""
    from coderl.base.config import ConfigError

    missing = missing_packages(log_with, engine)
    if missing:
        raise ConfigError(missing[0])


def _mlflow_params(config: dict | None, prefix: str = "") -> dict:
    """The run's config as MLflow params: flattened keys, values as text cut to MLflow's 500 characters."""
    out: dict = {}
    for key, value in (config or {}).items():
        if isinstance(value, dict):
            out.update(_mlflow_params(value, f"{prefix}{key}."))
        else:
            out[f"{prefix}{key}"] = str(value)[:500]
    return out


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
        elif log_with == "mlflow":
            mlflow = _need("mlflow", "mlflow")
            if not os.environ.get("MLFLOW_TRACKING_URI"):
                from pathlib import Path

                os.environ.setdefault("MLFLOW_ALLOW_FILE_STORE", "true")  # a local store needs no server
                mlflow.set_tracking_uri(Path(run_dir, "mlruns").resolve().as_uri())
            mlflow.set_experiment("coderl")
            self.backend = mlflow.start_run(run_name=os.path.basename(os.path.normpath(run_dir)))
            mlflow.log_params(_mlflow_params(config))

    def log(self, step: int, metrics: dict) -> None:
        self.file.write(json.dumps({"step": step, **metrics}) + "\n")
        self.file.flush()
        if self.kind == "tensorboard":
            for k, v in metrics.items():
                if isinstance(v, (int, float)):
                    self.backend.add_scalar(k, v, step)
        elif self.kind in ("wandb", "trackio"):
            self.backend.log({k: v for k, v in metrics.items() if isinstance(v, (int, float))}, step=step)
        elif self.kind == "mlflow":
            import mlflow

            mlflow.log_metrics({k: float(v) for k, v in metrics.items() if isinstance(v, (int, float))}, step=step)

    def close(self) -> None:
        self.file.close()
        if self.kind == "tensorboard":
            self.backend.close()
        elif self.kind == "wandb":
            self.backend.finish()
        elif self.kind == "trackio":
            import trackio

            trackio.finish()
        elif self.kind == "mlflow":
            import mlflow

            mlflow.end_run()


class SilentTracker:
    """The tracker of ranks other than 0 under several training processes: rank 0 logs for all."""

    def log(self, step: int, metrics: dict) -> None:
        pass

    def close(self) -> None:
        pass


def read_metrics(run_dir: str) -> list[dict]:
    """Rows of a training run's `metrics.jsonl` (the `Tracker` writes it; SFT's resume and the
    pipeline's report read it); a torn last line (a run killed mid-write) is ignored."""
    rows = []
    with open(os.path.join(run_dir, "metrics.jsonl"), encoding="utf-8") as f:
        for line in f:
            try:
                rows.append(json.loads(line))
            except ValueError:
                continue
    return rows


class Progress:
    """The progress of optimizer steps: the plain line (`coderl.base.progress`) through `log` every `every` seconds
    and at the last step, always (a log has it, with or without a terminal); with `bar`, on a terminal, a rich bar
    on stderr as well (`--no-progress`: no bar).  `describe(metrics)` is the text of both."""

    def __init__(self, label: str, total: int, start: int, describe, *, bar: bool = True, log=print,
                 every: float = 30.0):
        import sys

        from coderl.base.progress import ProgressLine

        self.describe = describe
        self.line = ProgressLine(label, total, start, log=log, every=every)
        self.bar = None
        if bar and sys.stderr.isatty():
            from rich.console import Console
            from rich.progress import BarColumn, TextColumn, TimeRemainingColumn
            from rich.progress import Progress as Bar

            self.bar = Bar(TextColumn(label + " {task.completed}/{task.total}"), BarColumn(),
                           TextColumn("{task.fields[info]}"), TimeRemainingColumn(), transient=False,
                           console=Console(stderr=True))
            self.task = self.bar.add_task(label, total=total, completed=start, info="")
            self.bar.start()

    def update(self, step: int, metrics: dict) -> None:
        if self.bar is not None:
            self.bar.update(self.task, completed=step, info=self.describe(metrics))
        self.line.update(step, self.describe(metrics))

    def close(self) -> None:
        if self.bar is not None:
            self.bar.stop()
