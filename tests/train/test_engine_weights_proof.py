"""`--engine vllm`'s weights proven after every sync (`train/sources/engine_weights.py`), with a fake engine that
loads and digests the saved files as the real engine's process does (`rollout/vllm_server.py`:
`weights_digest.files_digest`); the real engine's check runs in tests/rollout/test_vllm_engine.py (make test-vllm).
Faults injected: a sync the engine skips (once, always), a tensor corrupted between save and load, an update that
never reaches the engine."""

import os
from types import SimpleNamespace

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("peft")

from coderl.rollout.weights_digest import files_digest  # noqa: E402
from coderl.train.sources import engine_weights  # noqa: E402
from coderl.train.sources.engine_weights import WeightsProof, WeightsSyncError, serve_policy  # noqa: E402
from tests.models.tiny import tiny_llama  # noqa: E402
from tests.train.helpers import lora_over  # noqa: E402


class FakeEngine:
    """Loads what it is sent as the engine's process does (the digest of the files at load time); `skip`: how many
    loads it ignores (a sync that never reached it), `corrupt`: flip a value in the file before loading."""

    def __init__(self, skip: int = 0, corrupt: int = 0):
        self.skip, self.corrupt, self.digest, self.loads = skip, corrupt, None, 0

    def _load(self, folder):
        self.loads += 1
        if self.skip:
            self.skip -= 1
            return
        if self.corrupt:
            self.corrupt -= 1
            from safetensors.torch import load_file, save_file

            for name in sorted(os.listdir(folder)):
                if name.endswith(".safetensors"):
                    state = load_file(os.path.join(folder, name))
                    key = sorted(state)[0]
                    state[key] = state[key].clone()
                    state[key].view(-1)[0] += 1.0  # one value off: a torn or stale copy
                    save_file(state, os.path.join(folder, name))
        self.digest = files_digest(folder)

    def set_adapter(self, path):
        self._load(path)

    def reload_weights(self, folder):
        self._load(folder)
        return 0.0

    def loaded_digest(self):
        return self.digest


@pytest.fixture(scope="module")
def policy(tmp_path_factory):
    model, tokenizer = lora_over(tiny_llama(tmp_path_factory.mktemp("model")))
    return SimpleNamespace(model=model, tokenizer=tokenizer, full=False, base="tiny-llama")


@pytest.fixture(params=["merged", "adapter"])
def mode(request, monkeypatch):
    monkeypatch.setattr(engine_weights, "sync_mode", lambda policy: request.param)
    return request.param


def test_a_faithful_sync_passes_and_a_skipped_one_is_synced_again(policy, mode, tmp_path):
    lines = []
    serve_policy(FakeEngine(), policy, str(tmp_path), 1, log=lines.append)
    assert lines == []
    engine = FakeEngine(skip=1)  # the first load never reached the engine
    serve_policy(engine, policy, str(tmp_path), 2, log=lines.append)
    assert engine.loads == 2 and len(lines) == 1 and "syncing once more" in lines[0]


@pytest.mark.parametrize("fault", [{"skip": 2}, {"corrupt": 2}])
def test_a_sync_that_fails_twice_stops_the_step_in_one_line(policy, mode, tmp_path, fault):
    with pytest.raises(WeightsSyncError) as e:
        serve_policy(FakeEngine(**fault), policy, str(tmp_path), 3, log=lambda line: None)
    assert "\n" not in str(e.value) and "weights sync v3" in str(e.value) and e.value.exit_code == 5


def test_a_corrupted_tensor_once_is_synced_again(policy, mode, tmp_path):
    engine = FakeEngine(corrupt=1)
    serve_policy(engine, policy, str(tmp_path), 4, log=lambda line: None)
    assert engine.loads == 2


def test_after_a_non_zero_update_the_engine_weights_must_have_changed(policy, tmp_path, monkeypatch):
    monkeypatch.setattr(engine_weights, "sync_mode", lambda policy: "adapter")
    engine = FakeEngine()
    serve_policy(engine, policy, str(tmp_path), 0)
    proof = WeightsProof(engine.loaded_digest)
    proof.check(1, 0.0)  # no gradient: nothing need change
    proof.check(1, float("nan"))  # a skipped (non-finite) update: neither
    with pytest.raises(WeightsSyncError, match="still the ones it started with"):
        proof.check(1, 0.5)  # an update whose weights never reached the engine (the sync re-sent the old ones)
    with torch.no_grad():
        for name, p in policy.model.named_parameters():
            if "lora_B" in name:
                p.add_(0.01)
                break
    serve_policy(engine, policy, str(tmp_path), 1)
    proof.check(1, 0.5)  # changed: proven, and the digests check every later sync
    with torch.no_grad():
        p.sub_(0.01)


def test_full_fine_tuning_weights_are_proven_by_the_names_saved(tmp_path):
    from coderl.models import load_model

    loaded = load_model(str(tiny_llama(tmp_path / "model")))
    full = SimpleNamespace(model=loaded.model, tokenizer=loaded.tokenizer, full=True, base="tiny-llama")
    serve_policy(FakeEngine(), full, str(tmp_path), 1)
    with pytest.raises(WeightsSyncError):
        serve_policy(FakeEngine(corrupt=2), full, str(tmp_path), 2)
    names = engine_weights.tensor_names
    engine = FakeEngine()
    with pytest.MonkeyPatch.context() as mp, pytest.raises(WeightsSyncError, match="ghost.weight") as e:
        mp.setattr(engine_weights, "tensor_names", lambda path: [*names(path), "ghost.weight"])
        serve_policy(engine, full, str(tmp_path), 3)  # files naming a tensor the model lacks: no retry, one line
    assert engine.loads == 0 and "\n" not in str(e.value) and e.value.exit_code == 5


def test_the_trainers_cached_digest_of_frozen_weights_still_sees_them_change_in_place(policy):
    from coderl.models.merge import merged_state_dict
    from coderl.rollout.weights_digest import fingerprint

    def digest():
        state = merged_state_dict(policy.model)
        return fingerprint(state, engine_weights._frozen_digests(policy.model, state)), fingerprint(state)

    cached, fresh = digest()
    assert cached == fresh
    frozen = next(p for n, p in policy.model.named_parameters() if not p.requires_grad and "embed" in n)
    with torch.no_grad():
        frozen[0, 0] += 1.0  # a base weight changed in place (its version counter moves)
    try:
        changed, fresh = digest()
        assert changed == fresh != cached
    finally:
        with torch.no_grad():
            frozen[0, 0] -= 1.0


def test_the_asynchronous_workers_stop_keeps_its_exit_code():
    """A weights sync that fails in the asynchronous worker (its own engine) stops the trainer with the worker's
    line and exit code 5, not the input's 2."""
    import queue

    from coderl.train.sources.async_rollouts import AsyncRollouts

    inbox = queue.Queue()
    inbox.put(("error", ("config", "weights sync v3: the engine loaded weights whose digest ...", 5)))
    source = object.__new__(AsyncRollouts)
    source.channel = SimpleNamespace(get=lambda timeout: inbox.get(timeout=timeout))
    with pytest.raises(Exception, match="weights sync v3") as e:
        source._receive()
    assert e.value.exit_code == 5


def test_the_engine_source_proves_every_publish(policy, tmp_path, monkeypatch):
    """`EngineSource` (what `--engine vllm` trains with) syncs through the proof at its start and at every publish,
    and stops when a non-zero update leaves the engine's weights as they started."""
    from coderl.train.sources import engine_source
    from coderl.train.sources.rounds import RolloutContext

    monkeypatch.setattr(engine_weights, "sync_mode", lambda policy: "adapter")
    engine = FakeEngine()
    monkeypatch.setattr(engine_source, "start_engine", lambda cfg, policy, log: engine)
    lines = []
    ctx = RolloutContext(SimpleNamespace(out=str(tmp_path)), lines.append, [], policy, None, None, None)
    source = engine_source.EngineSource(ctx, 0)
    assert engine.loads == 1 and source.proof.start == engine.digest
    with pytest.raises(WeightsSyncError, match="did not reach the engine"):
        source.publish(1, grad_norm=0.3)  # a non-zero update, but the weights saved did not move
    b = next(p for n, p in policy.model.named_parameters() if "lora_B" in n)
    with torch.no_grad():
        b.add_(0.01)  # the update
    try:
        engine.skip = 1  # its sync never reaches the engine: synced again, said, and then proven changed
        source.publish(2, grad_norm=0.3)
        assert engine.loads == 4 and any("syncing once more" in line for line in lines) and source.proof.start is None
    finally:
        with torch.no_grad():
            b.sub_(0.01)


def test_the_asynchronous_worker_is_sent_weights_that_changed(policy):
    """`--async-max-age`: the worker proves it holds each version the trainer sends (its fingerprint, `get`); the
    trainer proves the first version after a non-zero update differs from the one the worker started with."""
    from coderl.train.sources.async_rollouts import AsyncRollouts

    source = AsyncRollouts.__new__(AsyncRollouts)  # its publish alone: no worker process
    sent = []
    source.ctx, source.fingerprints, source.proof, source._send = SimpleNamespace(policy=policy), {}, None, sent.append
    source.publish(0)
    source.publish(1, grad_norm=0.0)  # no gradient: nothing need change
    with pytest.raises(WeightsSyncError, match="did not reach the generation worker") as e:
        source.publish(2, grad_norm=0.4)  # an update that left the adapter as it was
    assert e.value.exit_code == 5 and "\n" not in str(e.value) and len(sent) == 2
    b = next(p for n, p in policy.model.named_parameters() if "lora_B" in n)
    with torch.no_grad():
        b.add_(0.01)  # the update
    try:
        source.publish(2, grad_norm=0.4)
        assert source.proof.start is None and len(sent) == 3 and sent[-1][0] == 2
    finally:
        with torch.no_grad():
            b.sub_(0.01)

