"""Data-parallel training through accelerate on CPU: 2 processes over gloo against 1 process.

The same config runs as one process and under `accelerate launch` with 2 processes
(configs/accelerate/ddp.yaml); the rollouts are the same tokens (chunk-aligned shards, the same seeds),
every minibatch's LoRA gradient after DDP's average equals the one-process gradient, and so do the
adapters written at each step.  A checkpoint written by 2 processes resumes on 1 and the other way
round, landing on the same adapter.  In `make test`: the equivalence and resume 2 -> 1; PPO, SFT,
micro-batches, dynamic sampling and resume 1 -> 2 are marked slow (`make test-slow`).  Tolerance: 1e-5 absolute + 1e-4 relative on gradients and
weights (float32; the ranks' forward passes see fewer rows, so matmul blocking, and the last bits, differ).
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("accelerate")

from tests.models.tiny import tiny_llama  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RUNNER = os.path.join(ROOT, "tests", "train", "ddp_runner.py")
ATOL, RTOL = 1e-5, 1e-4
# 4 prompts x 2 samples, generated 2 prompts per chunk: rank 0 generates prompts 0-1, rank 1 prompts 2-3;
# 2 epochs over minibatches of 4 rows (2 per rank), KL in the loss, so the reference pass is shared too.
FIELDS = dict(algo="grpo", steps=2, prompts_per_step=4, samples_per_prompt=2, generation_batch_size=4,
              minibatch_size=4, epochs=2, kl_beta=0.05, temperature=1.0, max_new_tokens=6, save_steps=1)


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory):
    return tiny_llama(tmp_path_factory.mktemp("model"))


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run(model_dir, out, processes: int, *, launch: str = "ddp", base: dict | None = None, **fields):
    """Train in `processes` processes (2+: `accelerate launch` with configs/accelerate/`launch`.yaml); `base`:
    the RL fields the `fields` override (default FIELDS)."""
    loop, reward = fields.pop("loop", "policy_gradient"), fields.pop("reward", "varied")
    spec = json.dumps({"model": str(model_dir), "out": str(out), "loop": loop, "reward": reward,
                       "fields": fields if loop == "sft" else {**(FIELDS if base is None else base), **fields}})
    env = {**os.environ, "OMP_NUM_THREADS": "1", "PYTHONPATH": os.pathsep.join(filter(None, [ROOT, os.environ.get("PYTHONPATH")]))}  # the same threads in every process
    if processes == 1:
        cmd = [sys.executable, RUNNER, spec]
    else:
        cmd = [os.path.join(os.path.dirname(sys.executable), "accelerate"), "launch", "--config_file",
               os.path.join(ROOT, "configs", "accelerate", f"{launch}.yaml"), "--num_processes", str(processes),
               "--main_process_port", str(_free_port()), RUNNER, spec]
    done = subprocess.run(cmd, env=env, cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return out


def adapter(out, step):
    from safetensors.torch import load_file

    return load_file(os.path.join(out, "checkpoints", f"step-{step}", "adapter_model.safetensors"))


def metrics(out):
    return [json.loads(line) for line in open(os.path.join(out, "metrics.jsonl"))]


def assert_close_dicts(a: dict, b: dict):
    assert a.keys() == b.keys()
    for k in a:
        torch.testing.assert_close(a[k], b[k], atol=ATOL, rtol=RTOL, msg=lambda m, k=k: f"{k}: {m}")


@pytest.fixture(scope="module")
def one_process(model_dir, tmp_path_factory):
    return run(model_dir, tmp_path_factory.mktemp("one") / "run", 1)


def test_two_processes_equal_one_process(model_dir, one_process, tmp_path):
    two = run(model_dir, tmp_path / "two", 2)
    single, ranks = (torch.load(os.path.join(one_process, "grads-rank0.pt")),
                     [torch.load(os.path.join(two, f"grads-rank{r}.pt")) for r in (0, 1)])
    assert len(single) == len(ranks[0]) == len(ranks[1]) == 2 * 2 * 2  # steps x epochs x minibatches
    for update, (want, got0, got1) in enumerate(zip(single, *ranks)):
        assert len(want) == len(got0) > 0
        for w, g0, g1 in zip(want, got0, got1):
            torch.testing.assert_close(g0, g1, atol=0, rtol=0)  # DDP: every rank holds the same average
            torch.testing.assert_close(g0, w, atol=ATOL, rtol=RTOL, msg=lambda m, u=update: f"update {u}: {m}")
        assert any(float(w.abs().max()) > 0 for w in want)  # a gradient that carries signal
    for step in (1, 2):
        assert_close_dicts(adapter(one_process, step), adapter(two, step))
    m1, m2 = metrics(one_process), metrics(two)  # rank 0 alone logs: one row per step
    assert [m["step"] for m in m2] == [1, 2]
    for a, b in zip(m1, m2):  # the same rollouts (tokens and rewards), the same loss over ranks
        for key in ("reward/total", "rollout/gen_tokens", "rollout/zero_variance_groups", "sandbox/pass_rate"):
            assert a[key] == b[key], key
        assert b["loss/total"] == pytest.approx(a["loss/total"], abs=1e-5)
        assert b["train/grad_norm"] == pytest.approx(a["train/grad_norm"], rel=1e-4)
    assert not os.path.exists(os.path.join(two, "grads-rank2.pt"))


@pytest.mark.parametrize("first,then", [(2, 1), pytest.param(1, 2, marks=pytest.mark.slow)])
def test_resume_on_another_number_of_processes(model_dir, one_process, tmp_path, first, then):
    out = tmp_path / "run"
    run(model_dir, out, first, steps=1)
    run(model_dir, out, then, steps=2, resume=True)
    assert_close_dicts(adapter(one_process, 2), adapter(out, 2))
    assert [m["step"] for m in metrics(out)] == [1, 2]


@pytest.mark.slow
def test_ppo_with_a_value_head_on_two_processes_equals_one(model_dir, tmp_path):
    """The value head is a second DDP module; its gradients and checkpoints match one process too."""
    fields = dict(loop="ppo", algo="ppo", value_head=True, steps=1, kl_beta=0.0)
    one, two = run(model_dir, tmp_path / "one", 1, **fields), run(model_dir, tmp_path / "two", 2, **fields)
    single, ranked = (torch.load(os.path.join(out, "grads-rank0.pt")) for out in (one, two))
    assert len(single) == len(ranked) == 2 * 2
    for want, got in zip(single, ranked):
        for w, g in zip(want, got):
            torch.testing.assert_close(g, w, atol=ATOL, rtol=RTOL)
    assert_close_dicts(adapter(one, 1), adapter(two, 1))
    heads = [torch.load(os.path.join(out, "checkpoints", "step-1", "value_head.pt")) for out in (one, two)]
    assert_close_dicts(*heads)


@pytest.mark.slow
def test_sft_on_two_processes_equals_one(model_dir, tmp_path):
    """The fixture's 3 usable examples x 3.34 epochs = 10 micro-batches in windows of 3, 3, 3, 1: a window's micro-batches are shared 2/1 between the
    ranks (rank 1 pads with a 0-weighted one; in the last window it has only that), and the window's
    token mean, so the update, is the one-process one.  LoRA dropout is off: on, the ranks' masks differ."""
    fields = dict(loop="sft", batch_size=1, gradient_accumulation=3, epochs=3.34, lora_dropout=0.0, save_steps=1)
    one, two = run(model_dir, tmp_path / "one", 1, **fields), run(model_dir, tmp_path / "two", 2, **fields)
    single, ranked = (torch.load(os.path.join(out, "grads-rank0.pt")) for out in (one, two))
    assert len(single) == len(ranked) == 4
    for want, got in zip(single, ranked):
        for w, g in zip(want, got):
            torch.testing.assert_close(g, w, atol=ATOL, rtol=RTOL)
    steps = len(single)
    assert_close_dicts(adapter(one, steps), adapter(two, steps))
    losses = [[m["sft/loss"] for m in metrics(out)] for out in (one, two)]
    assert losses[1] == pytest.approx(losses[0], abs=1e-5)
    assert os.path.exists(os.path.join(two, "adapter", "adapter_model.safetensors"))


@pytest.mark.slow
@pytest.mark.parametrize("processes", [1, 2])
def test_micro_batches_give_the_same_updates(model_dir, one_process, tmp_path, processes):
    """--micro-batch-size 1: every row of an update is its own forward/backward (gradient accumulation; with
    2 ranks, DDP synchronises only the last), and the updates are the whole minibatches' updates."""
    out = run(model_dir, tmp_path / "micro", processes, micro_batch_size=1)
    for want, got in zip(torch.load(os.path.join(one_process, "grads-rank0.pt")),
                         torch.load(os.path.join(out, "grads-rank0.pt"))):
        for w, g in zip(want, got):
            torch.testing.assert_close(g, w, atol=ATOL, rtol=RTOL)
    assert_close_dicts(adapter(one_process, 2), adapter(out, 2))
    assert [m["loss/total"] for m in metrics(out)] == pytest.approx([m["loss/total"] for m in metrics(one_process)],
                                                                     abs=1e-5)


@pytest.mark.slow
def test_dynamic_sampling_and_curriculum_decide_alike(model_dir, tmp_path):
    """Half the tasks get a flat reward: dynamic sampling drops their groups and refills from further
    prompts (generated on both ranks), and the curriculum draws from running pass rates; every rank
    decides on the gathered rewards, so 2 processes keep the groups and reach the update of 1 process."""
    fields = dict(reward="half_flat", dynamic_sampling=2, curriculum_floor=0.5, steps=2, kl_beta=0.0)
    one, two = run(model_dir, tmp_path / "one", 1, **fields), run(model_dir, tmp_path / "two", 2, **fields)
    m1, m2 = metrics(one), metrics(two)
    assert any(m["sampling/extra_rounds"] > 0 for m in m1)  # the refill ran
    for a, b in zip(m1, m2):
        for key in ("sampling/extra_rounds", "sampling/kept_groups", "curriculum/seen", "reward/total"):
            assert a[key] == b[key], key
    assert_close_dicts(adapter(one, 2), adapter(two, 2))
