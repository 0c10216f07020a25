"""The memory budget (`--memory-budget`): how many rows a training pass runs at once.

Policy-gradient and PPO updates, and the no-grad passes before them (reference log-probs, PPO's old
values), run their rows in micro-batches whose size comes from a measurement, not a guess:

1. Before the first pass of a kind (`grad`: forward and backward of the loss; `no_grad`: a forward), one
   row, the batch's widest, is run alone and the process's peak memory over it is measured
   (`PeakMeter`: the GPU allocator's peak on CUDA; on the CPU the kernel's resident-set high-water mark,
   VmHWM, reset before the probe).
2. The micro-batch is `floor(free / (SAFETY x probe peak))`, at most the rows there are, where free is
   the budget less what is in use, or what the machine (the GPU) still has available if that is less
   (a generation worker or another job holds memory too).  A pass of k rows is taken to cost k times one
   row's peak above what was in use before it (the one-row peak includes the pass's fixed costs, so the
   rule errs on the small side), with the `SAFETY` factor of 1.5 for what varies between rows and for
   allocator slack.
3. A wider batch than the one probed (longer prompts or completions) is probed again.  Several processes
   take the smallest update size of any rank, so their micro-batch counts agree (DDP needs every rank's
   backward); a no-grad pass's pieces are each process's own.
4. A row that alone exceeds the budget is a one-line error naming the budget, the measured peak and what
   to change (on every process: they decide on the gathered number).

`--memory-budget auto` (the default) is 80% of the GPU's memory, or on the CPU 80% of the machine's
(its cgroup limit where lower) shared by the processes on it; `none` turns the budget off (whole
minibatches, or `--micro-batch-size`, which always wins when given).  The budget also sizes the chunks
of the log-probs' logits (`logprobs.token_logprobs`: `chunk_bytes`).  An impossible budget (below the
model's weights and the runtime) is one line before the model loads (`check_budget`).
"""

from __future__ import annotations

import contextlib
import ctypes
import math
import os
import re
from collections.abc import Callable

from coderl.base.config import ConfigError

SAFETY = 1.5  # measured one-row peak x this x rows must fit the budget's free part
AUTO_FRACTION = 0.8  # of the device's or machine's memory
RUNTIME_BYTES = 1 << 30  # on the CPU: Python, torch, the tokenizer and the sandbox client, before any weight
LOGIT_CHUNK_CAP = 256 << 20  # the log-probs' chunks never hold more float32 logits than this
_UNITS = {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40}


def parse_size(text: str) -> int | None:
    """'8G', '512M', '1.5g', '2048' (bytes) -> bytes; 'auto' and 'none' -> None (the caller tells them
    apart).  Anything else is a one-line ConfigError naming --memory-budget."""
    value = str(text).strip().lower()
    if value in ("auto", "none"):
        return None
    match = re.fullmatch(r"(\d+(?:\.\d+)?)\s*([kmgt]?)(?:i?b)?", value)
    if not match or float(match.group(1)) <= 0:
        raise ConfigError(f"--memory-budget {text!r}: expected a size such as 8G, 512M or 1.5G (bytes without a unit), "
                          "auto or none")
    return int(float(match.group(1)) * _UNITS[match.group(2)])


def machine_bytes(proc_cgroup: str = "/proc/self/cgroup", root: str = "/sys/fs/cgroup") -> int:
    """Physical memory of this machine, or the memory limit of this process's cgroup where that is lower
    (a container, a Slurm job, `systemd-run -p MemoryMax=`): the lowest limit on the cgroup's path up to
    the root, cgroup v2 (`memory.max`) or v1 (`memory.limit_in_bytes`)."""
    from coderl.sandbox.client import total_memory_bytes

    total = total_memory_bytes()
    for path in _limit_files(proc_cgroup, root):
        try:
            with open(path) as f:
                limit = f.read().strip()
        except OSError:
            continue
        if limit.isdigit():
            total = min(total, int(limit))
    return total


def _limit_files(proc_cgroup: str, root: str) -> list[str]:
    """The memory-limit files of this process's cgroup and its ancestors (and the mount's root: inside a
    container the process's own cgroup is mounted there)."""
    files = [os.path.join(root, "memory.max"), os.path.join(root, "memory", "memory.limit_in_bytes")]
    try:
        with open(proc_cgroup) as f:
            lines = f.read().splitlines()
    except OSError:
        return files
    for line in lines:
        parts = line.split(":", 2)
        if len(parts) != 3:
            continue
        _, controllers, path = parts
        if controllers == "":  # v2: one unified hierarchy
            base, name = root, "memory.max"
        elif "memory" in controllers.split(","):  # v1: the memory controller's hierarchy
            base, name = os.path.join(root, controllers), "memory.limit_in_bytes"
        else:
            continue
        parts = [p for p in path.split("/") if p]
        files += [os.path.join(base, *parts[:depth], name) for depth in range(len(parts), 0, -1)]
    return files


def resolve_budget(value: str, device: str, local_processes: int = 1) -> int | None:
    """Bytes this process may use for training passes; None without a budget (`none`)."""
    if str(value).strip().lower() == "none":
        return None
    size = parse_size(value)
    if size is not None:
        return size
    if device.startswith("cuda"):
        import torch

        return int(AUTO_FRACTION * torch.cuda.get_device_properties(torch.device(device)).total_memory)
    return int(AUTO_FRACTION * machine_bytes() / max(1, local_processes))


def chunk_bytes(budget: int | None) -> int:
    """Float32 logits per chunk of the log-probs: 1/64 of the budget, at most `LOGIT_CHUNK_CAP`."""
    return LOGIT_CHUNK_CAP if budget is None else max(1 << 20, min(LOGIT_CHUNK_CAP, budget // 64))


def check_weights(cfg, budget: int | None, device: str) -> None:
    """`check_budget` of what a training process of `cfg` holds before any pass, from the model's weights: the
    weights alone under LoRA (the adapter and its optimiser state are small; the reference is the base itself);
    with full fine-tuning the weights, their gradients and AdamW's two moments, all in the weights' dtype (4x),
    plus the frozen reference copy when one is used (5x).  Nothing under QLoRA (4-bit weights: the safetensors'
    sizes say nothing of them)."""
    if cfg.lora.qlora:
        return
    held, what, factor = weight_bytes(cfg.model, cfg.dtype), "the model's weights", 1
    if cfg.lora.full:
        reference = cfg.kl.reference
        what = "full fine-tuning's weights, gradients and AdamW moments" + (" and reference copy" if reference else "")
        factor = 5 if reference else 4
    check_budget(budget, None if held is None else held * factor, device, what=what)


def check_budget(budget: int | None, weight_bytes: int | None, device: str, what: str = "the model's weights") -> None:
    """One line, before the model loads, when `budget` cannot hold the model's weights (or `what` the
    `weight_bytes` are: `resident`) and on the CPU the runtime besides; nothing when either is unknown."""
    if budget is None or weight_bytes is None:
        return
    floor = weight_bytes + (0 if device.startswith("cuda") else RUNTIME_BYTES)
    if budget < floor:
        raise ConfigError(f"--memory-budget {gigabytes(budget)}: {what} take {gigabytes(weight_bytes)}"
                          + ("" if device.startswith("cuda") else " and the runtime about 1 GB")
                          + f"; expected at least {gigabytes(floor)}")


_DTYPE_BYTES = {"F64": 8, "I64": 8, "F32": 4, "I32": 4, "F16": 2, "BF16": 2, "I16": 2, "I8": 1, "U8": 1, "BOOL": 1,
                "F8_E4M3": 1, "F8_E5M2": 1}


def weight_bytes(spec: str, dtype: str | None = None) -> int | None:
    """Bytes of a model's weights once loaded in `dtype` (float32, bfloat16, float16; auto or None: as stored),
    read from its safetensors headers without loading them; an adapter counts its base.  None when the
    weights are not on disk as safetensors yet (a hub id, a built-in model not converted)."""
    from pathlib import Path

    from safetensors import SafetensorError, safe_open

    from coderl.models.spec import adapter_base, builtin_dir, resolve_spec

    try:
        resolved = resolve_spec(spec)
        if resolved.kind == "adapter":
            resolved = resolve_spec(adapter_base(resolved.path))
    except Exception:  # noqa: BLE001 -- an unusable spec is reported where the model loads
        return None
    folder = builtin_dir(resolved.spec) / "hf" if resolved.kind == "builtin" else resolved.path
    files = sorted(Path(folder).glob("*.safetensors")) if resolved.kind in ("builtin", "hf") and folder else []
    per = {"float32": 4, "bfloat16": 2, "float16": 2}.get(dtype or "")
    total = 0
    for file in files:
        try:
            with safe_open(file, framework="numpy") as f:  # the header only: no tensor is read
                for name in f.keys():
                    entry = f.get_slice(name)
                    total += math.prod(entry.get_shape()) * (per or _DTYPE_BYTES.get(entry.get_dtype(), 4))
        except (OSError, SafetensorError):
            return None
    return total or None


def gigabytes(n: float) -> str:
    return f"{n / (1 << 30):.2f} GB"


# ---------------------------------------------------------------------------------------------------
# Measuring


class PeakMeter:
    """Peak memory of this process over a block: `with meter: ...`, then `meter.peak` and `meter.before`
    (bytes).  CUDA: the allocator's counters.  CPU: VmHWM after resetting it (/proc/self/clear_refs); freed
    heap is handed back first (malloc_trim) so the resident set before the block is what is live."""

    def __init__(self, device: str = "cpu"):
        self.cuda = device.startswith("cuda")
        self.device = device
        self.before = self.peak = 0

    def __enter__(self):
        self.exact = True
        if self.cuda:
            import torch

            torch.cuda.synchronize(self.device)
            torch.cuda.reset_peak_memory_stats(self.device)
            self.before = torch.cuda.memory_allocated(self.device)
        else:
            _trim()
            self.exact = _reset_high_water_mark()
            self.before = status_bytes("VmRSS")
        return self

    def __exit__(self, *exc):
        if self.cuda:
            import torch

            torch.cuda.synchronize(self.device)
            self.peak = torch.cuda.max_memory_allocated(self.device)
        else:
            self.peak = max(status_bytes("VmHWM"), self.before)
        return False

    def in_use(self) -> int:
        """Memory held now (allocated on CUDA, resident on the CPU)."""
        if self.cuda:
            import torch

            return torch.cuda.memory_allocated(self.device)
        _trim()
        return status_bytes("VmRSS")

    def available(self) -> int:
        """What this process could still take, whoever else holds memory (a generation worker, another
        job): the driver's free memory plus this process's cached blocks on CUDA, MemAvailable on the CPU."""
        if self.cuda:
            import torch

            free, _ = torch.cuda.mem_get_info(self.device)
            return free + torch.cuda.memory_reserved(self.device) - torch.cuda.memory_allocated(self.device)
        try:
            with open("/proc/meminfo") as f:
                return next(int(line.split()[1]) * 1024 for line in f if line.startswith("MemAvailable:"))
        except (OSError, StopIteration):
            return 1 << 62


def status_bytes(key: str, pid: int | str = "self") -> int:
    """A size line of /proc/PID/status (VmRSS, VmHWM) in bytes; 0 when absent."""
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1]) * 1024
    return 0


def _reset_high_water_mark() -> bool:
    """False when it cannot be reset (not Linux, or not allowed): the peak is then the process's so far."""
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        return True
    except OSError:
        return False


def _trim() -> None:
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL("libc.so.6").malloc_trim(0)


# ---------------------------------------------------------------------------------------------------
# Choosing


class MemoryBudget:
    """Rows per pass under a budget, by kind of pass ('grad', 'no_grad'), re-probed for wider batches.
    `gather_min(value) -> int` agrees one value among the processes (the smallest)."""

    def __init__(self, budget: int | None, device: str = "cpu", gather_min: Callable[[int], int] | None = None,
                 log: Callable[[str], None] | None = None):
        self.budget, self.device = budget, device
        self.gather_min = gather_min or (lambda value: value)
        self.log = log or (lambda line: None)
        self.probed: dict[str, tuple[int, int]] = {}  # kind -> (width probed, bytes per row)
        self.chosen: dict[str, int] = {}  # kind -> rows the budget allows
        self.used: dict[str, int] = {}  # kind -> rows its last pass ran at once
        self.chunk_bytes = chunk_bytes(budget)

    def rows(self, kind: str, count: int, width: int, probe: Callable[[], object], *, agree: bool = True) -> int:
        """Rows of a `kind` pass over `count` rows of `width` tokens to run at once; `probe()` runs one row.
        agree: every process calls this together and the smallest choice is taken (a `grad` pass, whose
        micro-batch counts DDP must match); a no-grad pass's pieces are each process's own."""
        if self.budget is None:
            return max(1, count)
        known = self.probed.get(kind)
        if known is None or width > known[0]:
            meter = PeakMeter(self.device)
            with meter:
                probe()
            per_row = max(1, meter.peak - meter.before)
            in_use = meter.in_use()
            free = min(self.budget - in_use, meter.available())
            fit = math.floor(free / (per_row * SAFETY)) if free > 0 else 0
            if not meter.exact:  # a lifetime peak, not the row's: never refuse on it
                fit = max(fit, 1)
            fit = self.gather_min(fit) if agree else fit  # every process decides on the same number
            if fit < 1:
                raise ConfigError(f"--memory-budget {gigabytes(self.budget)}: one row of {width} tokens needs "
                                  f"{gigabytes(per_row)} ({kind.replace('_', '-')} pass, measured) with "
                                  f"{gigabytes(in_use)} in use; raise the budget, or --gradient-checkpointing, "
                                  "or fewer --max-new-tokens")
            self.probed[kind] = (width, per_row)
            self.chosen[kind] = fit
            self.log(f"memory budget {gigabytes(self.budget)}: a {kind.replace('_', '-')} pass of one {width}-token "
                     f"row peaks {gigabytes(per_row)} above {gigabytes(in_use)} in use; {fit} rows at once "
                     f"(x{SAFETY} safety)")
        self.used[kind] = max(1, min(count, self.chosen[kind]))
        return self.used[kind]

    def metrics(self) -> dict:
        """`memory/<kind>_rows`: the rows the last pass of each kind ran at once."""
        return {f"memory/{kind}_rows": float(rows) for kind, rows in self.used.items()}
