"""`SandboxConfig`: the sandbox flags shared by `coderl check`, `coderl eval` and `coderl train`.

    timeout     CPU seconds per program, at most (a task's measured `time_limit` lowers it; wall backstop 3x + 1 s)
    memory_mb   address space per program
    workers     programs run at once; default: usable CPUs, as many as 75% of RAM holds at memory_mb each
    isolation   auto (the strongest this machine allows), full, uid, rlimits (docs/sandbox.md)
    backend     local (one fork server here) or ray (`ray_workers` Ray actors of `workers` programs each,
                on a local Ray instance or the cluster at `ray_address`: `sandbox/ray_backend.py`)

Workers x memory over 75% of RAM is one ConfigError line at configuration time, before any model loads.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from coderl.base.config import ConfigError, option, require
from coderl.sandbox import client
from coderl.sandbox.client import ISOLATION_LEVELS, RAM_SHARE, Sandbox, default_workers
from coderl.sandbox.types import Limits


@dataclass
class SandboxConfig:
    """Sandbox: limits per program, parallel programs, isolation level."""

    timeout: float = option(3.0, "sandbox CPU-time limit per program, seconds; a task's lower time_limit (measured "
                            "from its reference: docs/tasks.md) wins (wall backstop: 3x + 1 s)")
    memory_mb: int = option(2048, "sandbox address-space limit per program, MiB")
    workers: int | None = option(None, "sandbox programs run in parallel (default: usable CPUs, at most as many as "
                                 "75%% of RAM holds at the memory limit each)")
    isolation: str = option("auto", "sandbox isolation level: auto (strongest available), full, uid, rlimits",
                            choices=list(ISOLATION_LEVELS))
    backend: str = option("local", "where programs run: local, or ray (spread over a Ray cluster's CPU workers, "
                          "each running the same sandbox: docs/sandbox.md)", choices=["local", "ray"])
    ray_workers: int = option(2, "ray backend: Ray workers (actors), each running --workers programs at once")
    ray_address: str | None = option(None, "ray backend: the cluster to join (auto, ray://host:port; default: "
                                     "start a local Ray instance on 127.0.0.1 and stop it after)")

    def __post_init__(self):
        """Each setting checked in one line naming the flag, the value and what was expected; workers x memory within
        the RAM budget."""
        require(self.timeout > 0, "--timeout", self.timeout, "a positive number of seconds")
        require(self.memory_mb > 0, "--memory-mb", self.memory_mb, "a positive number of MiB")
        require(self.workers is None or self.workers > 0, "--workers", self.workers, "a positive integer")
        require(self.isolation in ISOLATION_LEVELS, "--isolation", self.isolation,
                "one of " + ", ".join(ISOLATION_LEVELS))
        require(self.backend in ("local", "ray"), "--backend", self.backend, "local or ray")
        require(self.ray_workers >= 1, "--ray-workers", self.ray_workers, "a positive integer")
        total = client.total_memory_bytes()  # looked up here: tests stand in another machine
        if not total:
            return
        budget = RAM_SHARE * total
        if self.workers is None and self.memory_bytes > budget:
            raise ConfigError(f"--memory-mb {self.memory_mb}: expected at most {int(budget // 2**20)} MiB, "
                              f"{RAM_SHARE:.0%} of this machine's {total / 2**30:.1f} GiB RAM, for even one program")
        if self.workers is not None and self.workers * self.memory_bytes > budget:
            raise ConfigError(f"--workers {self.workers} x --memory-mb {self.memory_mb}: expected at most "
                              f"{RAM_SHARE:.0%} of this machine's {total / 2**30:.1f} GiB RAM; lower --workers or "
                              f"--memory-mb (unset, --workers is {default_workers(self.memory_bytes)} here)")

    @property
    def memory_bytes(self) -> int:
        return self.memory_mb * 1024**2

    def resolved_workers(self) -> int:
        """--workers, or usable CPUs capped by how many programs 75% of RAM holds at the memory limit."""
        return self.workers if self.workers is not None else default_workers(self.memory_bytes)

    def limits(self, **overrides) -> Limits:
        return Limits(cpu_seconds=self.timeout, memory_bytes=self.memory_bytes, **overrides)

    def open(self, hide: Iterable[str] = (), limits: Limits | None = None, expose: Iterable[str] = ()) -> Sandbox:
        """A started sandbox with these settings (use as a context manager); `hide`: paths no program
        may read (`coderl.tasks.spec.task_files(spec)`: the files a task spec names); `limits`: the
        default limits when not `self.limits()`; `expose`: toolchain directories programs may read
        (`coderl.languages.toolchain_paths()`: every runner's `paths`)."""
        limits = limits or self.limits()
        if self.backend == "ray":
            from coderl.sandbox.ray_backend import RaySandbox

            return RaySandbox(ray_workers=self.ray_workers, workers=self.resolved_workers(), limits=limits,
                              isolation=self.isolation, hide=hide, address=self.ray_address, expose=expose)
        return Sandbox(workers=self.resolved_workers(), limits=limits, isolation=self.isolation, hide=hide,
                       expose=expose)
