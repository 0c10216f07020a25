"""Asynchronous rollouts on a tiny model: with --async-max-age 0 the run is the synchronous one (same tokens,
same update, every step sampled from the weights the trainer just published); ages never exceed the bound
and reach it when the trainer is the slow side; weights that did not arrive are caught; failures are one
line; resume works."""

import json
import os
import time

import pytest

torch = pytest.importorskip("torch")

import coderl.train.rl.policy_gradient as pg_loop  # noqa: E402
import coderl.train.rl.ppo as ppo_loop  # noqa: E402
from coderl.base.config import ConfigError  # noqa: E402
from coderl.train import run_training  # noqa: E402
from coderl.train.memory import MemoryBudget  # noqa: E402
from coderl.train.updater import Updater  # noqa: E402
from tests.models.tiny import tiny_llama  # noqa: E402
from tests.train.helpers import base_config, learning_metrics, varied_reward  # noqa: E402


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory):
    return tiny_llama(tmp_path_factory.mktemp("model"))


def staleness(out):
    return [json.loads(line) for line in open(os.path.join(out, "staleness.jsonl"))]


def metrics(out):
    return [json.loads(line) for line in open(os.path.join(out, "metrics.jsonl"))]


def recording(monkeypatch, loop):
    """Record, in the trainer, every step's rollout tokens and sampling log-probs as the loop receives them."""
    seen = []
    optimise = loop._optimise

    def wrapper(cfg, run, *args):
        batch = args[0].batch if loop is pg_loop else args[0]  # PPO: _optimise(cfg, run, batch, targets, ...)
        seen.append((batch.completion_ids.clone(), batch.logprobs.clone(), batch.group_ids.clone()))
        return optimise(cfg, run, *args)

    monkeypatch.setattr(loop, "_optimise", wrapper)
    return seen


def adapter(out, step):
    from safetensors.torch import load_file

    return load_file(os.path.join(out, "checkpoints", f"step-{step}", "adapter_model.safetensors"))


def half_flat(results, samples, tasks):
    from tests.train.ddp_runner import half_flat_reward

    return half_flat_reward(results, samples, tasks)


CASES = {
    "grpo_kl": (dict(algo="grpo", kl_beta=0.1, epochs=2, minibatch_size=3), varied_reward),
    "ppo": (dict(algo="ppo"), varied_reward),
    "dynamic_curriculum": (dict(algo="grpo", dynamic_sampling=2, curriculum_floor=0.1), half_flat),
}
SLOW = pytest.mark.slow  # make test-slow: the default suite keeps one case of each kind


@pytest.mark.parametrize("case", ["grpo_kl", pytest.param("ppo", marks=SLOW),
                                  pytest.param("dynamic_curriculum", marks=SLOW)])
def test_max_age_0_is_the_synchronous_run(model_dir, tmp_path, monkeypatch, case):
    fields, reward = CASES[case]
    loop = ppo_loop if fields["algo"] == "ppo" else pg_loop
    runs = {}
    for name, extra in (("sync", {}), ("async", {"async_max_age": 0})):
        seen = recording(monkeypatch, loop)
        cfg = base_config(model_dir, tmp_path / name, steps=3, **fields, **extra)
        run_training(cfg, log=lambda m: None, reward_override=reward)
        runs[name] = seen
        monkeypatch.undo()
    assert len(runs["sync"]) == len(runs["async"]) == 3
    for (ids_s, lp_s, g_s), (ids_a, lp_a, g_a) in zip(runs["sync"], runs["async"]):
        assert torch.equal(ids_s, ids_a) and torch.equal(g_s, g_a)  # the same tokens
        assert torch.equal(lp_s, lp_a)  # sampled by the same weights
    for step in (1, 2, 3):  # the same update, step after step
        a, b = adapter(tmp_path / "sync", step), adapter(tmp_path / "async", step)
        assert a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)
    rows = staleness(tmp_path / "async")
    assert [r["step"] for r in rows] == [1, 2, 3]
    # every step was sampled from the weights the trainer published after the previous update
    assert [r["weights_version"] for r in rows] == [0, 1, 2]
    assert all(set(r["ages"]) == {0} for r in rows)
    sync_m, async_m = metrics(tmp_path / "sync"), metrics(tmp_path / "async")
    for s, a in zip(sync_m, async_m):
        assert a["is/stale_fraction"] == 0.0 and a["async/age_max"] == 0.0
        want = learning_metrics(s)
        assert {k: a[k] for k in want} == want  # the asynchronous run adds its async/* and is/* figures


def slow_trainer(monkeypatch, seconds):
    """The trainer takes `seconds` longer per step, so the worker runs ahead as far as the bound lets it."""
    optimise = pg_loop._optimise

    def slow(*args):
        time.sleep(seconds)
        return optimise(*args)

    monkeypatch.setattr(pg_loop, "_optimise", slow)


@pytest.mark.parametrize("max_age,updates", [pytest.param(1, {}, marks=SLOW), (2, dict(epochs=2, minibatch_size=3))])
def test_ages_never_exceed_the_bound_and_reach_it_when_the_trainer_is_slow(model_dir, tmp_path, monkeypatch,
                                                                             max_age, updates):
    """max age 1: one update per step (pi_prox is the update's own pass); 2: four updates (pi_prox first)."""
    slow_trainer(monkeypatch, 0.6)
    cfg = base_config(model_dir, tmp_path / "run", steps=5, async_max_age=max_age, **updates)
    last = pg_loop.train(cfg, log=lambda m: None, reward_override=varied_reward)
    rows = staleness(cfg.out)
    assert [r["step"] for r in rows] == [1, 2, 3, 4, 5]
    for r in rows:
        assert len(r["ages"]) == 6 and len(r["task_ids"]) == 6  # one per sample
        assert all(0 <= a <= max_age for a in r["ages"])
        assert r["weights_version"] == r["step"] - 1 - r["ages"][0]
    # the worker, far faster than this trainer, always runs max_age steps ahead once it can
    assert [r["ages"][0] for r in rows] == [min(s, max_age) for s in range(5)]
    m = metrics(cfg.out)
    assert max(row["async/age_max"] for row in m) == max_age
    stale = [row for row in m if row["async/age_max"] > 0]
    # stale rows are corrected against pi_prox, recomputed by the same function that is differentiated
    assert all(row["is/stale_fraction"] == 1.0 and row["first_minibatch/max_abs_log_ratio"] == 0.0
               for row in stale)
    assert all(0 < row["is/weight_mean"] <= 2.0 for row in stale)
    assert last["time/rollout_wait"] >= 0 and "time/sandbox_wait" not in last


class _OneRowBudget(MemoryBudget):
    """A memory budget whose probe always allows one row."""

    calls = 0

    def rows(self, kind, count, width, probe, *, agree=True):
        probe()
        self.calls += 1
        self.used[kind] = 1
        return 1


def test_pi_prox_from_the_update_pass_equals_a_separate_pass(model_dir, tmp_path):
    """One update per step takes pi_prox from the update's own forward pass; several updates run a pass
    first.  Both give the same old log-probs and IS weights on stale rows, and fresh rows keep mu."""

    from coderl.rollout.generation import generate
    from coderl.tasks import load_tasks
    from coderl.train.logprobs import build_sequences, token_logprobs
    from coderl.train.policy import build_policy
    from coderl.train.sources.off_policy import behaviour_correction
    from tests.train.helpers import TASKS

    one = base_config(model_dir, tmp_path / "a", async_max_age=1, tis_cap=1.5)
    several = base_config(model_dir, tmp_path / "b", async_max_age=1, tis_cap=1.5, epochs=2)
    torch.manual_seed(0)
    policy = build_policy(one)
    batch = generate(policy.model, policy.tokenizer, load_tasks(TASKS).tasks[:2], samples_per_prompt=3,
                     max_new_tokens=6, temperature=1.0, seed=3)
    with torch.no_grad():  # the trainer's weights have moved on since the worker sampled
        for name, p in policy.model.named_parameters():
            if "lora_B" in name:
                p.add_(0.5 * torch.randn_like(p))
    policy.model.eval()  # as the loops run every pass (generate leaves the model as it found it)
    ages = torch.tensor([1, 0, 2, 0, 1, 1])
    rows = torch.arange(len(batch))
    with torch.no_grad():
        logprobs = token_logprobs(policy.model, build_sequences(batch, rows), 1.0)
    advantages = torch.ones_like(batch.mask)
    lazy = behaviour_correction(one, policy.model, batch, ages)
    old_lazy, adv_lazy = lazy.for_rows(rows, logprobs, batch.mask, advantages)
    first = behaviour_correction(several, policy.model, batch, ages)
    old_first, adv_first = first.for_rows(rows, logprobs, batch.mask, advantages)
    torch.testing.assert_close(old_lazy, old_first, rtol=0, atol=1e-6)
    torch.testing.assert_close(adv_lazy, adv_first, rtol=0, atol=1e-6)
    fresh = ages == 0
    assert torch.equal(old_lazy[fresh], batch.logprobs[fresh]) and torch.equal(adv_lazy[fresh], batch.mask[fresh])
    stale = ~fresh
    assert not torch.allclose(old_lazy[stale], batch.logprobs[stale])  # pi_prox, not mu
    assert float(adv_lazy[stale].max()) <= 1.5 and float(adv_lazy[stale].min()) > 0
    pieces = _OneRowBudget(8 << 30)  # a memory budget that allows one row at a time
    cut = behaviour_correction(several, policy.model, batch, ages, updater=Updater([policy.model], None, None,
                                                                                   memory=pieces))
    old_cut, adv_cut = cut.for_rows(rows, logprobs, batch.mask, advantages)
    assert pieces.calls == 1 and pieces.used == {"no_grad": 1}  # the pass went through the budget, row by row
    torch.testing.assert_close(old_cut, old_first, rtol=0, atol=1e-6)
    torch.testing.assert_close(adv_cut, adv_first, rtol=0, atol=1e-6)
    given = behaviour_correction(several, policy.model, batch, ages, prox=logprobs)  # PPO: its old-values pass's
    old_given, adv_given = given.for_rows(rows, logprobs, batch.mask, advantages)
    assert torch.equal(old_given, old_lazy) and torch.equal(adv_given, adv_lazy)
    stats = lazy.stats(batch.mask)
    assert stats["is/stale_fraction"] == pytest.approx(4 / 6) and stats["is/max_abs_log_ratio"] > 0


def test_weights_that_did_not_reach_the_worker_are_caught(model_dir, tmp_path, monkeypatch):
    """The worker reports the sha256 of the adapter its model held; a publish that sends other weights
    than the trainer's (here: perturbed in transit) stops the run at the next step."""
    from coderl.train.sources import async_rollouts

    send = async_rollouts.Channel.send

    def corrupting(self, message):
        if isinstance(message, tuple) and len(message) == 2 and isinstance(message[1], dict) and message[0] >= 1:
            message = (message[0], {k: v + 1e-3 for k, v in message[1].items()})
        return send(self, message)

    monkeypatch.setattr(async_rollouts.Channel, "send", corrupting)
    cfg = base_config(model_dir, tmp_path / "run", steps=3, async_max_age=0)
    with pytest.raises(RuntimeError, match="step 2 was sampled from weights that differ from the version 1"):
        pg_loop.train(cfg, log=lambda m: None, reward_override=varied_reward)


def crashing_reward(results, samples, tasks):
    raise ValueError("reward exploded")


@SLOW
def test_a_worker_crash_reaches_the_trainer_waiting_for_rollouts(model_dir, tmp_path):
    with pytest.raises(RuntimeError, match="(?s)generation worker failed.*ValueError: reward exploded"):
        pg_loop.train(base_config(model_dir, tmp_path / "crash", async_max_age=1), log=lambda m: None,
                      reward_override=crashing_reward)


def test_one_line_errors_stay_one_line(model_dir, tmp_path):
    # a configuration problem found in the worker is the synchronous run's one-line error
    cfg = base_config(model_dir, tmp_path / "long", async_max_age=0, max_new_tokens=6, max_total_sequence_length=8)
    with pytest.raises(ConfigError, match="every prompt is longer than --max-total-sequence-length 8"):
        pg_loop.train(cfg, log=lambda m: None, reward_override=varied_reward)
    with pytest.raises(ConfigError, match="reward_override must be a module-level function"):
        pg_loop.train(base_config(model_dir, tmp_path / "lambda", async_max_age=0), log=lambda m: None,
                      reward_override=lambda r, s, t: [0.0] * len(s))


CALLS = []


def second_call_crashes(results, samples, tasks):
    """Fine for step 1; raises on step 2, which the worker samples while the trainer still trains step 1."""
    CALLS.append(1)
    if len(CALLS) > 1:
        raise ValueError("reward exploded at step 2")
    return varied_reward(results, samples, tasks)


def test_a_worker_that_fails_while_the_trainer_updates_is_reported(model_dir, tmp_path, monkeypatch):
    """The trainer then meets a closed socket when it publishes; it reads what the worker said before it went."""
    slow_trainer(monkeypatch, 2.0)
    with pytest.raises(RuntimeError, match="(?s)generation worker failed.*reward exploded at step 2"):
        pg_loop.train(base_config(model_dir, tmp_path / "run", steps=3, async_max_age=1), log=lambda m: None,
                      reward_override=second_call_crashes)


@SLOW
def test_resume_continues_an_asynchronous_run(model_dir, tmp_path):
    cfg = base_config(model_dir, tmp_path / "run", steps=2, async_max_age=1)
    pg_loop.train(cfg, log=lambda m: None, reward_override=varied_reward)
    cfg = base_config(model_dir, tmp_path / "run", steps=4, async_max_age=1, resume=True)
    pg_loop.train(cfg, log=lambda m: None, reward_override=varied_reward)
    rows = staleness(cfg.out)
    assert [r["step"] for r in rows] == [1, 2, 3, 4]
    assert rows[2]["ages"][0] == 0  # the resumed worker starts from the checkpoint's weights
    assert [m["step"] for m in metrics(cfg.out)] == [1, 2, 3, 4]


@pytest.mark.parametrize("flag,value,expected", [
    ("async_max_age", -1, "--async-max-age=-1: expected an integer >= 0"),
    ("tis_cap", 0.5, "tis_cap=0.5: expected a number >= 1"),
    ("async_worker_device", "gpu", "async_worker_device='gpu': expected cpu, cuda or cuda:N"),
])
def test_bad_settings_are_one_line(tmp_path, flag, value, expected):
    with pytest.raises(ConfigError) as e:
        base_config("m", tmp_path, **{flag: value})
    assert str(e.value).startswith(expected) and "\n" not in str(e.value)


def test_threads_are_split_only_when_the_two_overlap_on_a_cpu(tmp_path):
    from coderl.train.sources.async_rollouts import split_threads

    def split(**kw):
        return split_threads(base_config("m", tmp_path, **kw), 8)

    assert split(async_max_age=0) == (None, 8)  # never side by side: the trainer's count, its numerics
    assert split(async_max_age=1) == (4, 4)
    assert split(async_max_age=2) == (4, 4)


def test_dry_run_says_what_the_settings_do(tmp_path):
    from coderl.train.dry_run import dry_run_report

    report = dry_run_report(base_config("m", tmp_path, async_max_age=2, tis_cap=3.0))
    assert "asynchronous rollouts: a generation worker process" in report
    assert "at most 2 step(s) old, truncated IS cap 3.0" in report and "async_max_age: 2" in report
    assert "asynchronous rollouts" not in dry_run_report(base_config("m", tmp_path))


def test_a_program_cannot_write_to_the_channel_that_carries_rewards():
    """Attack: rollouts (rewards included) and weights travel as pickles over the worker's socket, so a
    program that could write to it would forge its rewards, or run code in the trainer.  The program
    runs in the worker's sandbox, opened in a process that holds that socket as an inheritable fd (as
    `pass_fds` leaves it): it tries every fd it might have inherited and every /proc/*/fd/* it can see."""
    import socket

    from coderl.sandbox.config import SandboxConfig
    from coderl.sandbox.types import Status
    from tests.sandbox.helpers import make_script_request

    ours, theirs = socket.socketpair()
    theirs.set_inheritable(True)
    # only sockets count: the program's own stdin (fd 0, also /proc/1/fd/0 in its PID namespace) is its own
    attack = ("import glob, os, stat\nhits = []\n"
              "for fd in range(3, 1024):\n"
              "    try:\n        if stat.S_ISSOCK(os.fstat(fd).st_mode):\n"
              "            os.write(fd, b'forged'); hits.append(fd)\n    except OSError:\n        pass\n"
              "for path in glob.glob('/proc/*/fd/*'):\n"
              "    try:\n        if os.readlink(path).startswith('socket:'):\n"
              "            with open(path, 'wb') as f:\n                f.write(b'forged')\n"
              "            hits.append(path)\n    except OSError:\n        pass\n"
              "print('clean' if not hits else hits)\n")
    try:
        with SandboxConfig(workers=1).open() as sandbox:
            result = sandbox.run(make_script_request(attack, cases=(("", "clean"),)))
        assert result.status is Status.PASSED, (result.status, result.tests)
        ours.setblocking(False)
        with pytest.raises(BlockingIOError):  # nothing arrived on the trainer's end
            ours.recv(64)
    finally:
        ours.close()
        theirs.close()
