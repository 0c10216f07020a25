"""The trackers behind `--log-with`, written through the real libraries and read back (issue 41; slow:
`make test-slow` installs the `[trackers]` extra).  A tiny training run logs through each; its local store
(TensorBoard's event files, W&B's offline run file, trackio's database, MLflow's file store) must hold every
numeric metric of `metrics.jsonl` at the same step with the same value."""

from __future__ import annotations

import glob
import json
import math
import os
import struct

import pytest

pytest.importorskip("torch")

from coderl.train import run_training  # noqa: E402
from tests.models.tiny import tiny_llama  # noqa: E402
from tests.train.helpers import base_config  # noqa: E402

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory):
    return tiny_llama(tmp_path_factory.mktemp("model"))


def _run(model_dir, out, tracker) -> dict[tuple[int, str], float]:
    """(step, metric) -> value of every numeric metric the run wrote to metrics.jsonl."""
    run_training(base_config(model_dir, out, log_with=tracker, steps=2, save_steps=2))
    rows = [json.loads(line) for line in open(os.path.join(out, "metrics.jsonl"))]
    assert len(rows) == 2
    return {(r["step"], k): float(v) for r in rows for k, v in r.items()
            if k != "step" and isinstance(v, (int, float)) and not isinstance(v, bool)}


def _same(logged: dict, read: dict) -> None:
    missing = [key for key in logged if key not in read]
    assert not missing, f"{len(missing)} of {len(logged)} metrics not read back, e.g. {missing[:5]}"
    wrong = [(key, logged[key], read[key]) for key in logged
             if not math.isclose(logged[key], read[key], rel_tol=1e-6, abs_tol=1e-9)]
    assert not wrong, wrong[:5]


def test_tensorboard(model_dir, tmp_path):
    pytest.importorskip("tensorboard")
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    logged = _run(model_dir, tmp_path / "run", "tensorboard")
    events = EventAccumulator(str(tmp_path / "run" / "tensorboard"), size_guidance={"scalars": 0})
    events.Reload()
    read = {(e.step, tag): e.value for tag in events.Tags()["scalars"] for e in events.Scalars(tag)}
    _same(logged, read)  # float32 in the event file: rel_tol 1e-6 covers it


def _wandb_records(path: str):
    """The protobuf records of a W&B run file: a 7-byte header (':W&B', magic, version), then LevelDB-log
    blocks of 32 KiB holding records of (crc32c, length, type: full / first / middle / last)."""
    from wandb.proto import wandb_internal_pb2

    data = open(path, "rb").read()
    assert data[:4] == b":W&B", data[:7]
    pos, block, parts = 7, 32768, b""
    while pos + 7 <= len(data):
        room = block - pos % block
        if room < 7:
            pos += room
            continue
        _, length, kind = struct.unpack("<IHB", data[pos:pos + 7])
        if kind == 0 and length == 0:
            pos += room  # the block's zero padding
            continue
        parts += data[pos + 7:pos + 7 + length]
        pos += 7 + length
        if kind in (1, 4):  # a whole record, or its last part
            record = wandb_internal_pb2.Record()
            record.ParseFromString(parts)
            parts = b""
            yield record


def test_wandb_offline(model_dir, tmp_path, monkeypatch):
    pytest.importorskip("wandb")
    monkeypatch.setenv("WANDB_MODE", "offline")
    monkeypatch.setenv("WANDB_SILENT", "true")
    logged = _run(model_dir, tmp_path / "run", "wandb")
    files = glob.glob(str(tmp_path / "run" / "wandb" / "offline-run-*" / "run-*.wandb"))
    assert len(files) == 1, files
    read = {}
    for record in _wandb_records(files[0]):
        if record.WhichOneof("record_type") != "history":
            continue
        items = {item.nested_key[0] if item.nested_key else item.key: json.loads(item.value_json)
                 for item in record.history.item}
        step = int(items.pop("_step", record.history.step.num))
        read.update({(step, k): float(v) for k, v in items.items()
                     if not k.startswith("_") and isinstance(v, (int, float))})
    _same(logged, read)


def test_trackio(model_dir, tmp_path, monkeypatch):
    pytest.importorskip("trackio")
    import sys
    from pathlib import Path

    import trackio  # noqa: F401  -- its modules read the storage folder once, at import: point them here
    from trackio.sqlite_storage import SQLiteStorage

    here = Path(tmp_path / "trackio")
    here.mkdir()
    monkeypatch.setenv("TRACKIO_DIR", str(here))
    for name, module in list(sys.modules.items()):
        if name.startswith("trackio") and hasattr(module, "TRACKIO_DIR"):
            monkeypatch.setattr(module, "TRACKIO_DIR", here)

    logged = _run(model_dir, tmp_path / "run", "trackio")
    runs = SQLiteStorage.get_runs("coderl")
    assert len(runs) == 1 and list(here.glob("coderl*.db")), runs  # in the test's folder, nowhere else
    read = {}
    for row in SQLiteStorage.get_logs("coderl", runs[0]):
        step = int(row["step"])
        read.update({(step, k): float(v) for k, v in row.items()
                     if k not in ("step", "timestamp") and isinstance(v, (int, float))})
    _same(logged, read)


def test_mlflow(model_dir, tmp_path, monkeypatch):
    pytest.importorskip("mlflow")
    monkeypatch.delenv("MLFLOW_TRACKING_URI", raising=False)
    from mlflow.tracking import MlflowClient

    logged = _run(model_dir, tmp_path / "run", "mlflow")
    client = MlflowClient((tmp_path / "run" / "mlruns").resolve().as_uri())
    runs = client.search_runs([client.get_experiment_by_name("coderl").experiment_id])
    assert len(runs) == 1
    run = runs[0]
    assert run.data.params["algo"] == "grpo"
    read = {(m.step, key): m.value for key in run.data.metrics for m in client.get_metric_history(run.info.run_id, key)}
    _same(logged, read)


def test_a_missing_tracker_package_is_one_line(model_dir, tmp_path, monkeypatch):
    import sys

    from coderl.base.config import ConfigError

    monkeypatch.setitem(sys.modules, "mlflow", None)  # an import of it now fails, as if not installed
    with pytest.raises(ConfigError, match=r"^--log-with mlflow: the 'mlflow' package is not installed \(pip install "
                                          r"'coderl\[trackers\]', or pip install mlflow-skinny\)$"):
        run_training(base_config(model_dir, tmp_path / "run", log_with="mlflow"))
