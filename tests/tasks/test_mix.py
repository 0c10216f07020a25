"""`mix:` specs: weighted, seeded, disjoint ids; and `SPEC@SPLIT`."""

import pytest

from coderl.tasks import TaskFormatError, load_tasks


def test_weights_set_the_share_of_each_part_and_the_seed_fixes_the_draw():
    ts = load_tasks("mix:humaneval@train*3+easy*1+n=100", seed=1)
    ids = [t.task_id for t in ts.tasks]
    assert len(ids) == 100 == len(set(ids))
    assert sum(i.startswith("HumanEval/") for i in ids) == 75 and sum(i.startswith("easy/") for i in ids) == 25
    test_ids = {t.task_id for t in load_tasks("humaneval@test").tasks}
    assert not test_ids & set(ids)  # the part's own split holds
    assert ids == [t.task_id for t in load_tasks("mix:humaneval@train*3+easy*1+n=100", seed=1).tasks]
    assert ids != [t.task_id for t in load_tasks("mix:humaneval@train*3+easy*1+n=100", seed=2).tasks]
    assert ts.describe()["mix"] == [
        {"spec": "humaneval@train", "weight": 3.0, "available": 131, "drawn": 75},
        {"spec": "easy", "weight": 1.0, "available": 76, "drawn": 25}]


def test_a_part_smaller_than_its_share_is_repeated_with_renamed_ids():
    ts = load_tasks("mix:easy@test*1+humaneval@test*1+n=60")  # 15 easy test tasks for a share of 30
    easy = [t.task_id for t in ts.tasks if t.task_id.startswith("easy/")]
    assert len(easy) == 30 and len({i.split("#")[0] for i in easy}) == 15
    assert sum("#2" in i for i in easy) == 15
    assert len({t.task_id for t in ts.tasks}) == 60


def test_default_size_is_every_task_and_load_split_applies_to_parts_without_one():
    assert len(load_tasks("mix:easy+humaneval")) == 76 + 164
    assert len(load_tasks("mix:easy+humaneval", split="test")) == 15 + 33


@pytest.mark.parametrize("spec,message", [
    ("mix:", "an empty part"),
    ("mix:easy*x", "weight 'x' is not a number"),
    ("mix:easy*0", "weight must be a finite number > 0"),
    ("mix:easy*inf+humaneval", "weight must be a finite number > 0"),
    ("mix:easy+n=3+n=4", "n= given twice"),
    ("mix:easy*1+humaneval*1+n=1", "part 'humaneval' gets no task of n=1"),
    ("mix:easy+n=0", "expected n=<positive integer>"),
    ("mix:nope", "part 'nope'"),
    ("mix:easy+easy", "is in parts 'easy' and 'easy'"),
    ("mix:easy+easy@train+n=10", "is in parts"),
    ("easy@test@train", "two @splits"),
])
def test_bad_mix_specs_are_one_line_errors(spec, message):
    with pytest.raises(TaskFormatError, match=message) as e:
        load_tasks(spec)
    assert "\n" not in str(e.value)


def test_shares_round_by_largest_remainder():
    from coderl.tasks.mix import shares

    assert shares(10, [1] * 6) == [2, 2, 2, 2, 1, 1]  # 10/6 = 1.67 each: four parts get the extra one
    assert shares(100, [3, 1]) == [75, 25]
    assert shares(7, [1, 1]) == [4, 3]


def test_spec_split_conflicts_with_a_different_load_split():
    assert len(load_tasks("humaneval@test", split="test")) == 33
    with pytest.raises(TaskFormatError, match="conflicts"):
        load_tasks("humaneval@test", split="train")


def test_valid_split_of_a_file_source_is_a_one_line_error():
    with pytest.raises(TaskFormatError, match="split 'valid': a humaneval source has splits all, train, test"):
        load_tasks("humaneval@valid")


def test_a_prefixed_path_containing_at_is_a_path(tmp_path):
    import shutil

    from coderl.tasks.loaders.easy import easy_path

    path = tmp_path / "data@test"
    shutil.copy(easy_path(), path)
    assert len(load_tasks(f"humaneval:{path}")) == 76
