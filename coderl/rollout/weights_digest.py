"""An exact digest of a policy's weights, the same on both sides of a sync: the trainer hashes the tensors it
sends, the receiver (the asynchronous worker's model, the vLLM engine's loaded files) hashes what it holds, and
the two must be equal (`train/sources/async_rollouts.py`, `train/sources/engine_weights.py`).

Only torch and safetensors: the vLLM engine's process (another Python, `rollout/vllm_server.py`) imports it.
"""

from __future__ import annotations

import hashlib
import json
import os


def tensor_digest(t) -> bytes:
    """sha256 of a tensor's bytes, hashed in place (no copy: a copy doubled the time)."""
    import torch

    t = t.detach().to("cpu").contiguous().reshape(-1)
    return hashlib.sha256(memoryview(t.view(torch.uint8).numpy())).digest()


def fingerprint(state: dict, known: dict[str, bytes] | None = None) -> str:
    """sha256 over the names of `state`'s tensors and the `tensor_digest` of each: equal exactly when the weights
    are equal.  `known`: name -> its `tensor_digest` already made (a tensor that has not changed since)."""
    known = known or {}
    digest = hashlib.sha256()
    for name in sorted(state):
        digest.update(name.encode())
        digest.update(known[name] if name in known else tensor_digest(state[name]))
    return digest.hexdigest()


def safetensors_files(folder: str) -> list[str]:
    """The *.safetensors files directly in `folder`, sorted (an adapter's one, a model's one or its shards)."""
    return sorted(os.path.join(folder, n) for n in os.listdir(folder) if n.endswith(".safetensors"))


def _header(data) -> tuple[dict, int]:
    """A safetensors file's header (name -> dtype, shape, data_offsets; `__metadata__` left out) and where its tensor
    bytes start; `data`: the file's bytes or a prefix holding the header."""
    size = int.from_bytes(data[:8], "little")
    header = json.loads(data[8:8 + size])
    header.pop("__metadata__", None)
    return header, 8 + size


def files_digest(folder: str) -> str:
    """`fingerprint` of every tensor in the safetensors files of `folder`, from the files' own bytes: each tensor's
    bytes hashed where they lie in the mapped file (its header's data_offsets), no tensor made (loading them as
    tensors first copied every byte: 0.4 s of a 540 MB merged model's 0.7 s, bench/guards.py)."""
    import mmap

    known: dict[str, bytes] = {}
    for path in safetensors_files(folder):
        with open(path, "rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as data:
            header, start = _header(data)
            with memoryview(data) as view:
                for name, entry in header.items():
                    begin, end = entry["data_offsets"]
                    known[name] = hashlib.sha256(view[start + begin:start + end]).digest()
    return fingerprint(dict.fromkeys(known), known)


def tensor_names(folder: str) -> list[str]:
    """The names of the tensors in the safetensors files of `folder` (their headers only)."""
    names: list[str] = []
    for path in safetensors_files(folder):
        with open(path, "rb") as f:
            prefix = f.read(8)
            names += list(_header(prefix + f.read(int.from_bytes(prefix, "little")))[0])
    return names
