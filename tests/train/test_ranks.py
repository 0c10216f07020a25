"""The pure parts of data-parallel training: how a step's prompts, rows and micro-batches are shared."""

import pytest

torch = pytest.importorskip("torch")

from coderl.algorithms import aggregate, denominator_share  # noqa: E402
from coderl.train.distributed import Ranks  # noqa: E402


def test_shards_are_contiguous_chunk_aligned_balanced_and_cover_everything():
    # 7 prompts in chunks of 2 -> chunks [0,2) [2,4) [4,6) [6,7); 2 ranks take 2 chunks each
    assert [Ranks(r, 2).shard(7, 2) for r in range(2)] == [(0, 4), (4, 7)]
    # 3 ranks over 4 chunks: 1, 1, 2 chunks (rank r starts at chunk r * 4 // 3)
    assert [Ranks(r, 3).shard(7, 2) for r in range(3)] == [(0, 2), (2, 4), (4, 7)]
    # fewer chunks (2 of 8 prompts) than ranks (4): per prompt, 2 each
    assert [Ranks(r, 4).shard(8, 4) for r in range(4)] == [(0, 2), (2, 4), (4, 6), (6, 8)]
    assert [Ranks(r, 4).shard(3, 4) for r in range(4)] == [(0, 0), (0, 1), (1, 2), (2, 3)]
    for world in range(1, 6):
        for count in range(0, 12):
            for chunk in (1, 2, 3):
                parts = [Ranks(r, world).shard(count, chunk) for r in range(world)]
                assert parts[0][0] == 0 and parts[-1][1] == count
                assert all(a[1] == b[0] for a, b in zip(parts, parts[1:]))
                sizes = [end - start for start, end in parts]
                if -(-count // chunk) >= world:  # aligned: whole chunks, no rank more than one chunk ahead
                    assert all(start % chunk == 0 for start, end in parts if start < count)
                    assert max(sizes) - min(sizes) <= 2 * chunk
                else:
                    assert max(sizes) - min(sizes) <= 1


def test_slots_pad_every_rank_to_the_same_count_with_zero_weight():
    items = ["a", "b", "c"]
    assert Ranks().slots(items) == [("a", 1.0), ("b", 1.0), ("c", 1.0)]
    assert Ranks(0, 2).slots(items) == [("a", 2.0), ("c", 2.0)]
    assert Ranks(1, 2).slots(items) == [("b", 2.0), ("a", 0.0)]
    assert Ranks(2, 4).slots(["a"]) == [("a", 0.0)]


@pytest.mark.parametrize("mode", ["token_mean", "sequence_mean", "token_sum", "token_sum_const"])
def test_shares_make_the_ranks_losses_sum_to_the_whole_minibatch_loss(mode):
    torch.manual_seed(0)
    x = torch.randn(5, 4)
    mask = torch.tensor([[1, 1, 1, 0], [1, 0, 0, 0], [0, 0, 0, 0], [1, 1, 1, 1], [1, 1, 0, 0]], dtype=torch.float32)
    whole = aggregate(x, mask, mode, max_tokens=4)
    for world in (2, 3):
        parts = [torch.arange(5)[r::world] for r in range(world)]
        total = sum(denominator_share(mask[p], mask, mode) * aggregate(x[p], mask[p], mode, max_tokens=4)
                    for p in parts)
        torch.testing.assert_close(total, whole)


def test_share_by_hand():
    mask = torch.tensor([[1, 1, 0], [1, 0, 0], [0, 0, 0]], dtype=torch.float32)
    part = mask[[0]]
    assert denominator_share(part, mask, "token_mean") == 2 / 3  # 2 of the 3 valid tokens
    assert denominator_share(part, mask, "sequence_mean") == 1 / 2  # 1 of the 2 rows with a valid token
    assert denominator_share(part, mask, "token_sum") == 1 / 3  # 1 of 3 rows
    assert denominator_share(mask[[2]], mask[[2]], "token_mean") == 0.0  # nothing valid: 0, not 0/0
    with pytest.raises(ValueError, match="unknown aggregation"):
        denominator_share(part, mask, "median")


def test_deepspeed_launches_are_one_line(monkeypatch):
    from coderl.base.config import ConfigError

    monkeypatch.setenv("WORLD_SIZE", "2")
    monkeypatch.setenv("ACCELERATE_USE_DEEPSPEED", "true")
    with pytest.raises(ConfigError, match="DeepSpeed is not wired into its loops .*docs/scaling.md"):
        Ranks.start("cpu")


@pytest.mark.parametrize("variable,value,refused", [
    ("FSDP_VERSION", "1", "fsdp_version 1: coderl shards with FSDP2"),
    ("FSDP_CPU_RAM_EFFICIENT_LOADING", "true", "fsdp_cpu_ram_efficient_loading: true: every rank loads"),
    ("FSDP_OFFLOAD_PARAMS", "true", "fsdp_offload_params: true: parameters offloaded"),
    ("FSDP_ACTIVATION_CHECKPOINTING", "true", "fsdp_activation_checkpointing: true: use coderl's --gradient-ch"),
])
def test_fsdp_settings_coderl_does_not_shard_with_are_one_line(monkeypatch, variable, value, refused):
    """What accelerate launch sets from configs/accelerate/fsdp.yaml, each setting coderl does not support
    changed: one line before any process group starts (the supported launch: tests/train/test_fsdp.py)."""
    from coderl.base.config import ConfigError

    for name, default in (("WORLD_SIZE", "2"), ("ACCELERATE_USE_FSDP", "true"), ("FSDP_VERSION", "2"),
                          ("FSDP_CPU_RAM_EFFICIENT_LOADING", "false"), ("FSDP_OFFLOAD_PARAMS", "false"),
                          ("FSDP_ACTIVATION_CHECKPOINTING", "false"), ("FSDP_RESHARD_AFTER_FORWARD", "true")):
        monkeypatch.setenv(name, default)
    monkeypatch.setenv(variable, value)
    with pytest.raises(ConfigError, match=f"accelerate launch with FSDP, {refused}.*configs/accelerate/fsdp.yaml"):
        Ranks.start("cpu")


def test_one_process_creates_no_accelerate_state(monkeypatch):
    monkeypatch.delenv("WORLD_SIZE", raising=False)
    ranks = Ranks.start("cpu")
    assert (ranks.rank, ranks.world, ranks.accelerator, ranks.is_main, ranks.on) == (0, 1, None, True, False)
    assert ranks.gather({"a": 1}) == [{"a": 1}] and ranks.mean({"a": 1.5}) == {"a": 1.5}


def test_commands_that_run_on_one_process_refuse_a_launch(monkeypatch, capsys):
    from coderl.cli import main

    monkeypatch.setenv("WORLD_SIZE", "2")
    assert main(["eval", "--out", "x"]) == 2
    assert capsys.readouterr().err == ("coderl eval: error: runs on one process (WORLD_SIZE is 2); under accelerate "
                                       "launch only `coderl train` and `coderl sft` share work across processes "
                                       "(docs/scaling.md)\n")


def test_update_rows_are_cut_at_groups_and_every_rank_runs_as_many_pieces():
    from coderl.train.microbatch import pieces

    minibatch, mask = torch.arange(6), torch.ones(6, 3)
    # 3 groups of 2 over 2 ranks: rank 0 gets groups 0 (rows 0-1), rank 1 groups 1-2 (rows 2-5)
    assert Ranks(0, 2).rows(minibatch, 2).tolist() == [0, 1] and Ranks(1, 2).rows(minibatch, 2).tolist() == [2, 3, 4, 5]
    got = [pieces(Ranks(r, 2), minibatch, mask, size=2, group=2, aggregation="token_sum") for r in range(2)]
    assert [len(p) for p in got] == [2, 2]  # rank 0 pads its one piece with a 0-weighted row
    assert [(rows.tolist(), w) for rows, w in got[0]] == [([0, 1], 2 * 2 / 6), ([0], 0.0)]
    assert [(rows.tolist(), w) for rows, w in got[1]] == [([2, 3], 2 * 2 / 6), ([4, 5], 2 * 2 / 6)]
    assert sum(w for p in got for _, w in p) == pytest.approx(2.0)  # world x the whole denominator


@pytest.mark.parametrize("field,value,flag", [("micro_batch_size", 0, "--micro-batch-size"),
                                              ("ray_workers", 0, "--ray-workers"),
                                              ("backend", "kubernetes", "--backend")])
def test_new_options_reject_bad_values_in_one_line(field, value, flag):
    from coderl.base.config import ConfigError, build
    from coderl.train.config import TrainConfig

    with pytest.raises(ConfigError) as info:
        build(TrainConfig, {"out": "x", field: value})
    assert flag in str(info.value) and "\n" not in str(info.value)
