"""Sharded training (FSDP2) through accelerate on CPU: 2 processes over gloo against 1 process.

`accelerate launch --config_file configs/accelerate/fsdp.yaml` with 2 processes shards the policy (LoRA or every
weight), the value head and full fine-tuning's reference copy with torch's `fully_shard`
(`train/distributed.py`); the ranks generate in lockstep (`rollout.hf.Lockstep`).  Against one process on the
same config: the same rollouts, every minibatch's gradient (gathered whole from the ranks' shards) within
1e-5 absolute + 1e-4 relative, and the same weights at each checkpoint, which hold full state dicts (one
process's format), so a run resumes across process counts.

The configs make the ranks' work uneven: 3 prompts in generation chunks of 1 prompt (rank 0 generates one chunk,
rank 1 two: rank 0 steps with a dummy call), minibatches of 4 and 2 rows (one rank pads an update with a
0-weighted row).  In `make test`: the LoRA equivalence and resume 2 -> 1 (about 35 s); the rest is slow (about 2.5 min).

The one-process reference runs the same code unsharded; the differences are float rounding (the ranks' forward
passes see fewer rows).  Adam normalises each gradient element by its own size, so an element whose gradient is
noise (~1e-9) amplifies its rounding: the PPO test, whose lr 1e-2 turns such an element's 7e-11 difference into
2e-5 in a weight, trains at lr 1e-3.
"""

from __future__ import annotations

import json
import os

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("accelerate")

from tests.models.tiny import tiny_llama  # noqa: E402
from tests.train.test_distributed import ATOL, FIELDS, RTOL, adapter, assert_close_dicts, metrics, run  # noqa: E402

BASE = dict(FIELDS, prompts_per_step=3, generation_batch_size=2, minibatch_size=4)  # 6 rows: updates of 4 + 2


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory):
    return tiny_llama(tmp_path_factory.mktemp("model"))


def sharded(model_dir, out, processes, **fields):
    """A run of BASE + `fields`: 2+ processes under configs/accelerate/fsdp.yaml, 1 process unsharded."""
    return run(model_dir, out, processes, launch="fsdp", base=BASE, **fields)


@pytest.fixture(scope="module")
def one_process(model_dir, tmp_path_factory):
    return sharded(model_dir, tmp_path_factory.mktemp("one") / "run", 1)


def grads(out, rank=0):
    return torch.load(os.path.join(out, f"grads-rank{rank}.pt"))


def assert_same_gradients(one, two, updates):
    single, ranks = grads(one), [grads(two, r) for r in (0, 1)]
    assert len(single) == len(ranks[0]) == len(ranks[1]) == updates
    for update, (want, got0, got1) in enumerate(zip(single, *ranks)):
        assert len(want) == len(got0) > 0
        for w, g0, g1 in zip(want, got0, got1):
            torch.testing.assert_close(g0, g1, atol=0, rtol=0)  # every rank gathers the same whole gradient
            torch.testing.assert_close(g0, w, atol=ATOL, rtol=RTOL, msg=lambda m, u=update: f"update {u}: {m}")
        assert any(float(w.abs().max()) > 0 for w in want)


def shards(out) -> list[list]:
    """Per rank: [module class, parameters the rank holds, parameters in all] of each module it sharded."""
    return [json.load(open(os.path.join(out, f"sharded-rank{r}.json"))) for r in (0, 1)]


def assert_sharded(out, classes):
    """Every module in `classes` was sharded: the two ranks' parts add up to the whole, and no rank holds it all
    (a module of one row, the value head, is held by rank 0)."""
    got = shards(out)
    assert [c for c, _, _ in got[0]] == [c for c, _, _ in got[1]] == classes
    for (_, held0, total), (_, held1, _) in zip(*got):
        assert held0 + held1 == total
        assert held0 < total or total < 100


def weights(out, step, name="model.safetensors"):
    from safetensors.torch import load_file

    return load_file(os.path.join(out, "checkpoints", f"step-{step}", name))


# In `make test-slow`: the 2-process run of 2 steps beside resume 2 -> 1 (make test), whose sharded first step and
# unsharded second must land on this same one-process adapter, and which checks its first run sharded the policy.
@pytest.mark.slow
def test_lora_grpo_with_kl_on_two_sharded_processes_equals_one(model_dir, one_process, tmp_path):
    two = sharded(model_dir, tmp_path / "two", 2)
    assert_sharded(two, ["PeftModelForCausalLM"])  # the LoRA policy: base and adapter sharded together
    assert_same_gradients(one_process, two, 2 * 2 * 2)  # steps x epochs x minibatches
    for step in (1, 2):  # the checkpoints hold the whole adapter, as one process writes it
        assert_close_dicts(adapter(one_process, step), adapter(two, step))
    m1, m2 = metrics(one_process), metrics(two)
    assert [m["step"] for m in m2] == [1, 2]
    for a, b in zip(m1, m2):  # the same rollouts (lockstep generation samples each rank's own), the same loss
        for key in ("reward/total", "rollout/gen_tokens", "rollout/zero_variance_groups", "sandbox/pass_rate"):
            assert a[key] == b[key], key
        assert b["loss/total"] == pytest.approx(a["loss/total"], abs=1e-5)
        assert b["train/grad_norm"] == pytest.approx(a["train/grad_norm"], rel=1e-4)


@pytest.mark.parametrize("first,then", [(2, 1), pytest.param(1, 2, marks=pytest.mark.slow)])
def test_sharded_checkpoints_resume_on_another_number_of_processes(model_dir, one_process, tmp_path, first, then):
    """2 -> 1: a checkpoint of sharded weights and optimiser moments is one process's; 1 -> 2: a one-process
    checkpoint is sharded on load.  Both land on the uninterrupted run's adapter."""
    out = tmp_path / "run"
    sharded(model_dir, out, first, steps=1)
    if first == 2:
        assert_sharded(out, ["PeftModelForCausalLM"])  # the LoRA policy: base and adapter sharded together
    sharded(model_dir, out, then, steps=2, resume=True)
    assert_close_dicts(adapter(one_process, 2), adapter(out, 2))
    assert [m["step"] for m in metrics(out)] == [1, 2]


@pytest.mark.slow
@pytest.mark.parametrize("checkpointing", [False, True], ids=["", "gradient-checkpointing"])
def test_full_fine_tuning_with_a_sharded_reference_copy_equals_one(model_dir, tmp_path, checkpointing):
    """--finetune full with KL: the model and its frozen reference copy are both sharded; the checkpoints are
    whole Hugging Face folders (the tied embedding written once, as one process writes it).  With
    --gradient-checkpointing the sharded layers are recomputed in backward (on both sides)."""
    fields = dict(finetune="full", kl_beta=0.1, learning_rate=1e-3, gradient_checkpointing=checkpointing)
    one, two = sharded(model_dir, tmp_path / "one", 1, **fields), sharded(model_dir, tmp_path / "two", 2, **fields)
    assert_sharded(two, ["FSDPLlamaForCausalLM"] * 2)  # the policy, then the reference copy (fully_shard names)
    assert_same_gradients(one, two, 2 * 2 * 2)
    for step in (1, 2):
        assert_close_dicts(weights(one, step), weights(two, step))
    assert sorted(os.listdir(os.path.join(two, "checkpoints", "step-2"))) == sorted(
        os.listdir(os.path.join(one, "checkpoints", "step-2")))


@pytest.mark.slow
def test_ppo_with_a_sharded_value_head_equals_one(model_dir, tmp_path):
    fields = dict(loop="ppo", algo="ppo", value_head=True, steps=1, kl_beta=0.0, learning_rate=1e-3)
    one, two = sharded(model_dir, tmp_path / "one", 1, **fields), sharded(model_dir, tmp_path / "two", 2, **fields)
    assert_sharded(two, ["PeftModelForCausalLM", "FSDPValueHead"])
    assert_same_gradients(one, two, 2 * 2)  # epochs x minibatches; the value head's gradient included
    assert_close_dicts(adapter(one, 1), adapter(two, 1))
    heads = [torch.load(os.path.join(out, "checkpoints", "step-1", "value_head.pt")) for out in (one, two)]
    assert_close_dicts(*heads)


@pytest.mark.slow
def test_sft_on_two_sharded_processes_equals_one(model_dir, tmp_path):
    """The DDP test's SFT (test_distributed.py): 10 micro-batches in windows of 3, shared 2/1 with 0-weighted
    padding, under FSDP."""
    fields = dict(loop="sft", batch_size=1, gradient_accumulation=3, epochs=3.34, lora_dropout=0.0, save_steps=1)
    one, two = sharded(model_dir, tmp_path / "one", 1, **fields), sharded(model_dir, tmp_path / "two", 2, **fields)
    assert_sharded(two, ["PeftModelForCausalLM"])
    assert_same_gradients(one, two, 4)
    for step in range(1, 5):
        assert_close_dicts(adapter(one, step), adapter(two, step))
    losses = [[m["sft/loss"] for m in metrics(out)] for out in (one, two)]
    assert losses[1] == pytest.approx(losses[0], abs=1e-5)
    assert os.path.exists(os.path.join(two, "adapter", "adapter_model.safetensors"))


@pytest.mark.slow
def test_rank_zero_evaluates_while_the_other_ranks_step_with_it(model_dir, tmp_path):
    """Evaluation runs on rank 0 alone; on sharded weights the other rank runs dummy lockstep calls for every
    one of rank 0's generation calls (2 problems x 2 samples at steps 0, 1, 2), then the best adapter is gathered
    and kept.  The evaluations and the selection are one process's."""
    from tests.train.helpers import TASKS

    fields = dict(steps=2, eval_steps=1, eval_tasks=TASKS, eval_problems=2, repeat_eval=2, check_overlap=False)
    one, two = sharded(model_dir, tmp_path / "one", 1, **fields), sharded(model_dir, tmp_path / "two", 2, **fields)
    m1, m2 = metrics(one), metrics(two)
    assert [m["step"] for m in m2] == [0, 1, 2]
    for a, b in zip(m1, m2):
        evals = sorted(k for k in a if k.startswith(("eval/", "select/")))
        assert evals and [a[k] for k in evals] == [b[k] for k in evals]
    best = [json.load(open(os.path.join(out, "best", "best.json"))) for out in (one, two)]
    assert best[0]["step"] == best[1]["step"]
    from safetensors.torch import load_file

    assert_close_dicts(*(load_file(os.path.join(out, "best", "adapter", "adapter_model.safetensors"))
                         for out in (one, two)))


@pytest.mark.slow
def test_training_on_from_an_sft_adapter_on_two_sharded_processes_equals_one(model_dir, tmp_path):
    """--model an SFT adapter: it is loaded twice, as the trained `default` and the frozen `reference` of the
    KL; under FSDP both sit in the sharded model and the reference pass switches adapters on every rank."""
    sft = run(model_dir, tmp_path / "sft", 1, loop="sft", batch_size=1, gradient_accumulation=2, epochs=1.0)
    start = os.path.join(sft, "adapter")
    one, two = sharded(start, tmp_path / "one", 1), sharded(start, tmp_path / "two", 2)
    assert_same_gradients(one, two, 2 * 2 * 2)
    for step in (1, 2):
        assert_close_dicts(adapter(one, step), adapter(two, step))


@pytest.mark.slow
def test_dynamic_sampling_refills_in_lockstep(model_dir, tmp_path):
    """Dynamic sampling drops the flat groups and generates further rounds (each round in lockstep, its own
    shards), and the curriculum draws from running pass rates: the refill decisions and the update are one
    process's."""
    fields = dict(reward="half_flat", dynamic_sampling=2, curriculum_floor=0.5, kl_beta=0.0)
    one, two = sharded(model_dir, tmp_path / "one", 1, **fields), sharded(model_dir, tmp_path / "two", 2, **fields)
    m1, m2 = metrics(one), metrics(two)
    assert any(m["sampling/extra_rounds"] > 0 for m in m1)  # the refill ran
    for a, b in zip(m1, m2):
        for key in ("sampling/extra_rounds", "sampling/kept_groups", "curriculum/seen", "reward/total"):
            assert a[key] == b[key], key
    assert_close_dicts(adapter(one, 2), adapter(two, 2))


@pytest.mark.slow
def test_micro_batches_on_two_sharded_processes_give_the_same_updates(model_dir, one_process, tmp_path):
    """--micro-batch-size 1: every row is its own forward and backward (each backward reduce-scatters: FSDP has
    no no_sync here), padded to the same count on both ranks; the updates are the whole minibatches'."""
    out = sharded(model_dir, tmp_path / "micro", 2, micro_batch_size=1)
    assert_same_gradients(one_process, out, 2 * 2 * 2)
    assert_close_dicts(adapter(one_process, 2), adapter(out, 2))
