"""The RL pool (issue 55): generated training tasks minus every task whose reference solves an evaluation task,
its decontamination record kept in step with the generator and the evaluation sets, and the held-out
synthetic splits pinned byte for byte (a new primitive joins the train split only)."""

import pytest

from coderl.eval.decontaminate import decided_by_record
from coderl.tasks import load_tasks
from coderl.tasks.generators.pool import AGAINST, POOL_SPEC, generated, read_record
from coderl.tasks.generators.synthetic import composition_split
from coderl.tasks.types import TaskFormatError, digest

# digest of each held-out split as the generator made it when the pool was decontaminated; a change to the
# generator that moves any valid or test task fails here (train-only changes remake the pool's record instead)
HELD_OUT = {
    "synthetic:level=1,split=valid,n=200": "633279e2dc9b7445dc0e1ac2796dde74553a22b75e8e530fb3697093006b4fde",
    "synthetic:level=2,split=valid,n=600": "99ac4b6351b048ccfa01fd979a820d7ab0875bc1e9c8975b9e74a9cca143690f",
    "synthetic:level=1,split=test,n=200": "ae7d3c0d1eefa4c6c028e15e1cdc8de9361f2838a0838f0c063a98c095600765",
    "synthetic:level=2,split=test,n=600": "4802d63a31eba5a1d5febc86cd8639232fa5f815c22607145363b385eac8763b",
    "synthetic:level=3,split=test": "9d1e30e04dce2d4befff096cc97f62ee8116ab3afa11efe3e3901b27891cc74a",
}


@pytest.mark.parametrize("spec", sorted(HELD_OUT))
def test_held_out_synthetic_tasks_are_byte_identical(spec):
    assert digest(load_tasks(spec).tasks) == HELD_OUT[spec]


def test_the_record_is_of_this_generator_and_these_evaluation_sets():
    record = read_record()
    assert record["pool"] == POOL_SPEC and record["against"] == AGAINST
    assert record["pool_digest"] == digest(generated())
    assert record["against_digest"] == digest([t for s in AGAINST.split() for t in load_tasks(s).tasks])
    assert len(record["leaked"]) == 1946 and record["pairs"] == 6_744_000  # 4,000 x 1,709 less the 2-argument calls


def test_the_record_decides_its_own_evaluation_tasks_and_no_other():
    import dataclasses

    held_out = load_tasks("synthetic:level=1-2,n=200,split=test").tasks  # a prefix of AGAINST's test splits
    easy = load_tasks("easy").tasks[:3]
    changed = dataclasses.replace(held_out[0], tests=held_out[0].tests[:1])  # same id, other tests
    other = load_tasks("synthetic:level=2,n=700,split=test").tasks[-1]  # beyond AGAINST's 600
    decided = decided_by_record(held_out[1:] + easy + [changed, other])
    assert decided == {t.task_id for t in held_out[1:] + easy}


def test_the_pool_is_train_compositions_minus_every_leak():
    pool = load_tasks("pool").tasks
    leaked = set(read_record()["leaked"])
    assert len(pool) == 4000 - len(leaked) == 2054 and not leaked & {t.task_id for t in pool}
    assert all(composition_split(tuple(t.metadata["composition"])) == "train" for t in pool)
    assert {t.metadata["level"] for t in pool} == {1, 2}
    assert len({tuple(t.metadata["composition"]) for t in pool}) == 348  # of 547: 199 leak with every task


def test_options_pick_a_level_and_a_prefix():
    two = load_tasks("pool:level=2,n=10").tasks
    assert len(two) == 10 and {t.metadata["level"] for t in two} == {2}
    both = load_tasks("pool:n=5").tasks
    assert [t.metadata["level"] for t in both] == [1, 1, 1, 2, 2]
    assert load_tasks("pool@train").tasks[:3] == load_tasks("pool").tasks[:3]


@pytest.mark.parametrize("spec, split, message", [
    ("pool:level=3", "all", "option level='3': expected 1, 2 or 1-2"),
    ("pool:n=0", "all", "option n='0': expected an integer >= 1"),
    ("pool:size=3", "all", "unknown option 'size' (known: level, n)"),
    ("pool", "test", "split 'test': the pool is training tasks only"),
])
def test_bad_pool_specs_are_one_line(spec, split, message):
    with pytest.raises(TaskFormatError) as exc:
        load_tasks(spec, split=split)
    assert message in str(exc.value) and "\n" not in str(exc.value)
