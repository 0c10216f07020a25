"""aggregate() on a 2x3 example by hand, and the per-token weights that are each mode's length bias."""

import math

import pytest
import torch

from coderl.algorithms.aggregation import AGGREGATIONS, aggregate

# row 0 has 3 valid tokens, row 1 has 1 (right padding)
PER_TOKEN = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
MASK = torch.tensor([[1.0, 1.0, 1.0], [1.0, 0.0, 0.0]])


@pytest.mark.parametrize("mode, expected", [
    ("token_mean", 2.5),          # (1 + 2 + 3 + 4) / 4 valid tokens = 10 / 4
    ("sequence_mean", 3.0),       # row means 6/3 = 2 and 4/1 = 4 -> (2 + 4) / 2
    ("token_sum", 5.0),           # row sums 6 and 4 -> (6 + 4) / 2 rows
    ("token_sum_const", 10 / 6),  # 10 / (B * max_tokens) = 10 / (2 * 3)
])
def test_modes_by_hand(mode, expected):
    assert aggregate(PER_TOKEN, MASK, mode, max_tokens=3).item() == pytest.approx(expected)


@pytest.mark.parametrize("mode, row0_weight, row1_weight", [
    ("token_mean", 1 / 4, 1 / 4),          # every valid token 1/N, N = 4
    ("sequence_mean", 1 / 6, 1 / 2),       # 1/(B * len): 1/(2*3) for the long row, 1/(2*1) for the short
    ("token_sum", 1 / 2, 1 / 2),           # 1/B per token, whatever the length
    ("token_sum_const", 1 / 8, 1 / 8),     # 1/(B * max_tokens) = 1/(2*4)
])
def test_per_token_weights_show_the_length_bias(mode, row0_weight, row1_weight):
    x = PER_TOKEN.clone().requires_grad_(True)
    aggregate(x, MASK, mode, max_tokens=4).backward()
    expected = torch.tensor([[row0_weight] * 3, [row1_weight, 0.0, 0.0]])
    torch.testing.assert_close(x.grad, expected)


@pytest.mark.parametrize("mode", AGGREGATIONS)
def test_padding_values_never_leak_even_if_inf_or_nan(mode):
    dirty = PER_TOKEN.clone()
    dirty[1, 1], dirty[1, 2] = math.inf, math.nan
    clean = aggregate(PER_TOKEN, MASK, mode, max_tokens=3)
    assert aggregate(dirty, MASK, mode, max_tokens=3).item() == pytest.approx(clean.item())


def test_empty_row_counts_in_sums_but_not_in_the_sequence_mean():
    mask = torch.tensor([[1.0, 1.0, 1.0], [0.0, 0.0, 0.0]])
    # sequence_mean: only row 0 has a mean, 6/3 = 2; token_sum: (6 + 0) / 2 rows = 3
    assert aggregate(PER_TOKEN, mask, "sequence_mean").item() == pytest.approx(2.0)
    assert aggregate(PER_TOKEN, mask, "token_sum").item() == pytest.approx(3.0)
    assert aggregate(PER_TOKEN, mask, "token_mean").item() == pytest.approx(2.0)  # 6 / 3


@pytest.mark.parametrize("mode", AGGREGATIONS)
def test_all_padding_is_zero(mode):
    assert aggregate(PER_TOKEN, torch.zeros_like(MASK), mode, max_tokens=3).item() == 0.0


def test_bool_mask_works():
    assert aggregate(PER_TOKEN, MASK.bool(), "token_mean").item() == pytest.approx(2.5)


def test_token_sum_const_needs_max_tokens():
    with pytest.raises(ValueError, match="max_tokens"):
        aggregate(PER_TOKEN, MASK, "token_sum_const")


def test_unknown_mode_raises():
    with pytest.raises(ValueError, match="unknown aggregation"):
        aggregate(PER_TOKEN, MASK, "mean")
