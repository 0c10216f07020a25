"""Opening a Hugging Face dataset for `hf:PATH` (`coderl.tasks.loaders.hf`): a save_to_disk folder, parquet / arrow /
JSON / CSV files (streamed: rows read in bounded batches, never held as a table), or a dataset in the local cache, read
offline; the paths a run must hide from programs."""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

from coderl.base.offline import offline_flags
from coderl.tasks.types import TaskFormatError

_OFFLINE = ("HF_DATASETS_OFFLINE", "HF_HUB_OFFLINE")  # environment variables and datasets.config flags
STREAMED = {".parquet": "parquet", ".arrow": "arrow", ".json": "json", ".jsonl": "json", ".csv": "csv"}


def dataset_rows(dataset, batch: int = 1024) -> Iterator[dict[str, Any]]:
    """The rows as dicts, read a batch of columns at a time (much faster than the datasets' row iterator)."""
    for columns in dataset.iter(batch_size=batch):
        names = list(columns)
        for values in zip(*(columns[name] for name in names)):
            yield dict(zip(names, values))


def read_error(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0]}" if text else type(exc).__name__


def _datasets():
    try:
        import datasets
    except ImportError:
        raise TaskFormatError("hf: task specs need the datasets library: pip install 'coderl[data]' "
                              "(or pip install datasets)") from None
    datasets.disable_progress_bars()
    datasets.logging.set_verbosity_error()
    return datasets


def open_dataset(path: str, options: dict[str, str], spec: str):
    """(the dataset's one split, to iterate; the label messages give it)."""
    split = options.get("split")
    label = f"hf:{path}" + (f" ({split})" if split else "")
    if "name" in options and os.path.exists(path):
        raise TaskFormatError(f"task spec {spec!r}: name= chooses a cached dataset's configuration; {path} is a "
                              "folder or file here")
    if os.path.isfile(path) and path.lower().endswith(".parquet"):  # one split, as the datasets library names it
        return _one_split({"train": ParquetFiles([path])}, split, spec), label
    datasets = _datasets()
    try:  # nothing is downloaded: the datasets library (and the hub client under it) read only local files; the
        # process's own settings are restored after (a model may still be fetched)
        with offline_flags(_OFFLINE, datasets.config, _OFFLINE):
            data = _load(datasets, path, options, spec)
    except TaskFormatError:
        raise
    except Exception as exc:  # noqa: BLE001 -- every library failure is one line naming what was looked for
        if not os.path.exists(path):
            cache = datasets.config.HF_DATASETS_CACHE
            raise TaskFormatError(f"task spec {spec!r}: {path!r} is no folder or file here, and no dataset of that "
                                  f"name{' and configuration' if 'name' in options else ''} is in the local Hugging "
                                  f"Face cache ({cache}; offline: nothing is downloaded): {read_error(exc)}") from None
        raise TaskFormatError(f"task spec {spec!r}: cannot read {path} with the datasets library "
                              f"({read_error(exc)})") from None
    return _one_split(data, split, spec), label


def _load(datasets, path: str, options: dict[str, str], spec: str):
    """The dataset (or its splits) at `path`: a save_to_disk folder, data files (streamed), or a cached name."""
    if os.path.isdir(path) and _saved_to_disk(path):
        return datasets.load_from_disk(path)
    if os.path.isfile(path):
        builder = STREAMED.get(_suffix(path))
        if builder is None:
            raise TaskFormatError(f"task spec {spec!r}: {path}: expected a parquet, arrow, JSON, JSONL or CSV "
                                  "file, or a save_to_disk folder")
        return datasets.load_dataset(builder, data_files=path, streaming=True)
    if os.path.isdir(path):
        found = datasets.load_dataset_builder(path)  # its data files and splits, read by name: nothing is loaded
        if found.name == "parquet":
            return {str(split): ParquetFiles(list(files)) for split, files in found.config.data_files.items()}
        return datasets.load_dataset(path, streaming=True)
    return datasets.load_dataset(path, **({"name": options["name"]} if "name" in options else {}))


class ParquetFiles:
    """Parquet files read a batch at a time in the calling thread (`iter`, as a streamed dataset's), each opened
    by pyarrow itself by its path.  A streamed `datasets` parquet split decodes the next row group on arrow's
    thread pool, through a Python file object: a read left in its middle (a refused row, a layout not told) left
    that decode running, and when it ended after the interpreter had begun to exit, releasing the file object
    could not take the GIL and the process aborted ("terminate called without an active exception", exit 134)
    instead of exiting 2 with its one line.  Here nothing runs once `iter` is no longer being read."""

    BATCH_BYTES = 32 << 20  # a batch's rows hold at most about this much, uncompressed (Nemotron's are 330 KB)

    def __init__(self, files: list[str]):
        self.files = files

    def iter(self, batch_size: int) -> Iterator[dict[str, list]]:
        import pyarrow.parquet as pq  # the datasets library's own reader

        for path in self.files:
            with pq.ParquetFile(path) as f:  # closed when the read ends, read whole or not
                for batch in f.iter_batches(batch_size=self.rows_per_batch(f.metadata, batch_size),
                                            use_threads=False):
                    yield batch.to_pydict()

    @classmethod
    def rows_per_batch(cls, metadata, batch_size: int) -> int:
        """`batch_size` rows, or fewer where the file's rows are large: about `BATCH_BYTES` a batch."""
        size = sum(metadata.row_group(i).total_byte_size for i in range(metadata.num_row_groups))
        per_row = size / metadata.num_rows if metadata.num_rows else 0
        return max(1, min(batch_size, int(cls.BATCH_BYTES // per_row) if per_row else batch_size))


def _one_split(data, split: str | None, spec: str):
    if not hasattr(data, "keys"):  # one split already
        return data
    names = list(data.keys())
    if split is None:
        if len(names) == 1:
            return data[names[0]]
        raise TaskFormatError(f"task spec {spec!r}: the dataset has splits {', '.join(names)}; choose one with "
                              f":split=NAME")
    if split not in names:
        raise TaskFormatError(f"task spec {spec!r}: split {split!r}: the dataset has {', '.join(names)}")
    return data[split]


def _saved_to_disk(path: str) -> bool:
    return any(os.path.exists(os.path.join(path, name)) for name in ("dataset_dict.json", "state.json"))


def _suffix(path: str) -> str:
    name = os.path.basename(path).lower()
    for suffix in STREAMED:
        if name.endswith(suffix) or name.endswith(suffix + ".gz"):
            return suffix
    return ""


def hidden_paths(path: str) -> list[str]:
    """What a program must not read for `hf:PATH`: the folder or file, or for a cached dataset the
    datasets and hub caches (the tests are in there)."""
    if os.path.exists(path):
        return [os.path.abspath(path)]
    out = []
    try:
        import datasets.config as config

        out.append(str(config.HF_DATASETS_CACHE))
    except ImportError:
        pass
    try:
        from huggingface_hub import constants

        out.append(str(constants.HF_HUB_CACHE))
    except ImportError:
        pass
    return [p for p in out if os.path.exists(p)]
