"""An exact digest of a policy's weights, the same on both sides of a sync: the trainer hashes the tensors it
sends, the receiver (the asynchronous worker's model, the vLLM engine's loaded files) hashes what it holds, and
the two must be equal (`train/sources/async_rollouts.py`, `train/sources/engine_weights.py`).

Only torch and safetensors: the vLLM engine's process (another Python, `rollout/vllm_server.py`) imports it.
"""

from __future__ import annotations

import hashlib
import os


def fingerprint(state: dict) -> str:
    """sha256 over the names and bytes of `state`'s tensors: equal exactly when the weights are equal."""
    import torch

    digest = hashlib.sha256()
    for name in sorted(state):
        t = state[name].detach().to("cpu").contiguous().reshape(-1)
        digest.update(name.encode())
        digest.update(t.view(torch.uint8).numpy().tobytes())
    return digest.hexdigest()


def safetensors_files(folder: str) -> list[str]:
    """The *.safetensors files directly in `folder`, sorted (an adapter's one, a model's one or its shards)."""
    return sorted(os.path.join(folder, n) for n in os.listdir(folder) if n.endswith(".safetensors"))


def files_digest(folder: str) -> str:
    """`fingerprint` of every tensor in the safetensors files of `folder`, as loaded from them."""
    from safetensors.torch import load_file

    state: dict = {}
    for path in safetensors_files(folder):
        state.update(load_file(path))
    return fingerprint(state)


def tensor_names(folder: str) -> list[str]:
    """The names of the tensors in the safetensors files of `folder` (their headers only)."""
    from safetensors import safe_open

    names: list[str] = []
    for path in safetensors_files(folder):
        with safe_open(path, "pt") as f:
            names += list(f.keys())
    return names
