"""How a vLLM engine gets the policy being trained (`--engine vllm`; docs/engines.md): started on the base
weights, then after every update sent the adapter (a new LoRARequest) or the whole weights, reloaded in place
(`sync_mode`).  The trainer's `EngineSource` and the asynchronous worker both serve it this way.
"""

from __future__ import annotations

import math
import os
import shutil
import weakref

from coderl.base.config import ConfigError
from coderl.rollout.engine import ENGINE_LOG
from coderl.rollout.weights_digest import fingerprint, tensor_digest, tensor_names

ADAPTERS = "engine-adapters"  # under the run directory: the adapter the engine serves (the newest only)
WEIGHTS = "engine-weights"  # full fine-tuning: the whole model the engine last reloaded (the newest only)


def sync_mode(policy) -> str:
    """How the engine gets the policy after an update: "full" (every weight trains: the whole model, reloaded
    in place), "merged" (the LoRA adapter merged into the base weights, reloaded in place) or "adapter" (served
    as a new LoRARequest).  It merges when the trainer runs on CPU, where vLLM's LoRA path decodes 2.5x slower
    than the base weights (docs/engines.md), and serves the adapter on a GPU."""
    if policy.full:
        return "full"
    return "adapter" if next(policy.model.parameters()).device.type == "cuda" else "merged"


def start_engine(cfg, policy, log, threads: int | None = None):
    """A vLLM engine for the policy being trained (LoRA up to its rank when it will be sent adapters), output in
    OUT/engine.log; `threads`: cores it binds (None: all this process may use)."""
    from coderl.rollout.vllm_engine import engine_for

    return engine_for(policy.model, policy.path, cfg.model, dtype=cfg.dtype, seed=cfg.seed,
                      max_model_len=cfg.max_total_sequence_length, threads=threads, log=log,
                      log_file=os.path.join(cfg.out, ENGINE_LOG), lora=sync_mode(policy) == "adapter")


class WeightsSyncError(ConfigError):
    """The engine did not load the trainer's weights, twice: one line, exit code 5 (`coderl train`)."""

    exit_code = 5


def serve_policy(engine, policy, out: str, version: int, log=None) -> str:
    """Have the engine sample with the policy's weights after `version` steps, as `sync_mode` says, saved under
    the run directory `out`: the adapter in OUT/engine-adapters/vVERSION, served as a new LoRARequest, or the
    whole weights in OUT/engine-weights/vVERSION (full fine-tuning: the model; LoRA: the adapter merged into the
    base, `models.merge`), which the engine reloads in place (`VLLMEngine.reload_weights`).  The older versions
    are removed; the folder served.

    Proven: the engine's digest of the tensors it loaded (`VLLMEngine.loaded_digest`) must equal the trainer's
    of the tensors it saved (`weights_digest.fingerprint`, the asynchronous worker's check); a mismatch syncs
    once more (`log` says so), a second one raises `WeightsSyncError`."""
    for attempt in (1, 2):
        path, want = _sync(engine, policy, out, version)
        got = engine.loaded_digest()
        if got == want:
            return path
        if attempt == 1 and log is not None:
            log(f"weights sync v{version}: the engine's digest {str(got)[:12]} differs from the trainer's {want[:12]};"
                " syncing once more")
    raise WeightsSyncError(f"weights sync v{version}: the engine loaded weights whose digest {str(got)[:12]} differs "
                           f"from the trainer's {want[:12]} twice ({path}); the engine is not sampling the policy "
                           "being trained, so the step is not run")


def _sync(engine, policy, out: str, version: int) -> tuple[str, str]:
    """Save the weights as `serve_policy` says and have the engine load them; (the folder, the trainer's digest of
    the tensors it saved: `fingerprint` of them under the names the files give them)."""
    from coderl.models.load import save_adapter, save_model
    from coderl.models.merge import merged_state_dict, save_merged

    adapter = sync_mode(policy) == "adapter"
    folder = os.path.join(out, ADAPTERS if adapter else WEIGHTS)
    path = os.path.join(folder, f"v{version}")
    shutil.rmtree(path, ignore_errors=True)
    if adapter:
        from peft import get_peft_model_state_dict

        save_adapter(policy.model, path, policy.base, adapters=["default"])
        path = path if os.path.exists(os.path.join(path, "adapter_config.json")) else os.path.join(path, "default")
        want = fingerprint(get_peft_model_state_dict(policy.model, adapter_name="default",
                                                     save_embedding_layers=False))
        engine.set_adapter(path)
    else:
        if policy.full:
            save_model(policy.model, policy.tokenizer, path)
            want = _saved_model_digest(policy.model, path)
        else:
            state = merged_state_dict(policy.model)
            save_merged(policy.model, path, state=state)
            want = fingerprint(state, _frozen_digests(policy.model, state))
        engine.reload_weights(path)
    for old in os.listdir(folder):
        if old != f"v{version}":
            shutil.rmtree(os.path.join(folder, old), ignore_errors=True)
    return path, want


_FROZEN: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # model -> {tensor key: its tensor_digest}


def _frozen_digests(model, state: dict) -> dict[str, bytes]:
    """name -> `tensor_digest` of the tensors of `state` that are the model's own frozen weights (the base's, in
    a merged state: four fifths of its bytes), hashed once per run and again only if changed in place (the
    tensor's version counter): the trainer's half of a merged sync's proof costs the merged layers alone."""
    frozen = {p.untyped_storage().data_ptr() for p in model.parameters() if not p.requires_grad}
    cache = _FROZEN.setdefault(model, {})
    out = {}
    for name, t in state.items():
        if t.untyped_storage().data_ptr() not in frozen:
            continue
        key = (t.untyped_storage().data_ptr(), t.storage_offset(), t.numel(), t.dtype, t._version)
        if key not in cache:
            cache[key] = tensor_digest(t)
        out[name] = cache[key]
    return out


def _saved_model_digest(model, path: str) -> str:
    """The trainer's digest of a whole model saved in `path`: its own tensors under the names the files hold
    (`save_pretrained` leaves tied copies out); every trained weight must be among them (`WeightsSyncError`)."""
    names = tensor_names(path)
    state = model.state_dict()
    missing = [n for n in names if n not in state] + \
        [n for n, p in model.named_parameters() if p.requires_grad and n not in names]
    if missing:  # no sync can prove such weights: stop now, naming them, rather than retry
        raise WeightsSyncError(f"weights sync: the model saved in {path} and the one trained name different "
                               f"tensors ({', '.join(missing[:3])}{', ...' if len(missing) > 3 else ''}), so the "
                               "engine's weights cannot be proven to be the policy's")
    return fingerprint({n: state[n] for n in names})


class WeightsProof:
    """Across syncs: after the first update with a non-zero gradient, the weights a generator samples with must differ
    from the ones it started with.  Each sync's digests prove the generator holds what the trainer sent; this proves
    that what it sent moved (a trainer whose update never reached the sent weights passes every digest check).
    `digest()`: the digest of the weights the generator holds now (`--engine vllm`: the engine's loaded digest; the
    asynchronous worker: the fingerprint of the adapter last published, which the worker proves it held)."""

    def __init__(self, digest, generator: str = "the engine"):
        self.digest, self.generator = digest, generator
        self.start = digest()

    def check(self, version: int, grad_norm: float | None) -> None:
        if grad_norm is None or not math.isfinite(grad_norm) or grad_norm <= 0 or self.start is None:  # no update
            return
        if self.digest() == self.start:
            raise WeightsSyncError(f"weights sync v{version}: after an update with gradient norm {grad_norm:.3g} the "
                                   f"weights {self.generator} samples with are still the ones it started with (same "
                                   "digest, which is also the trainer's of the weights it sent): the update did not "
                                   f"reach {self.generator} (a learning rate of 0, updates lost to rounding in "
                                   "low-precision weights, or sent weights that are not the ones trained)")
        self.start = None  # proven once: later updates are checked by the digests alone
