"""Zero-variance groups and overlong filtering against hand-made cases."""

import pytest
import torch

from coderl.algorithms.sampling import overlong_mask, zero_variance_fraction, zero_variance_groups


def test_groups_with_equal_rewards_are_found_whatever_their_mean():
    # group 7: all fail; group 2: all pass; group 5: mixed; group 9: 0.5 and 0.5 (equal, not all-pass)
    ids = torch.tensor([7, 2, 5, 7, 2, 5, 9, 9])
    rewards = torch.tensor([0.0, 1.0, 1.0, 0.0, 1.0, 0.0, 0.5, 0.5])
    assert zero_variance_groups(rewards, ids).tolist() == [True, True, False, True, True, False, True, True]
    assert zero_variance_fraction(rewards, ids) == pytest.approx(3 / 4)  # 3 of the 4 groups


def test_float_noise_is_not_variation_but_a_small_real_difference_is():
    ids = torch.tensor([0, 0, 1, 1])
    noisy = torch.tensor([0.1 + 0.2, 0.3, 0.0, 0.01], dtype=torch.float64)  # 0.30000000000000004 vs 0.3
    assert zero_variance_groups(noisy, ids).tolist() == [True, True, False, False]
    big = torch.tensor([1e6, 1e6 + 0.5, 3.0, 3.0])  # tolerance scales with magnitude: 0.5 on 1e6 is noise
    assert zero_variance_groups(big, ids).tolist() == [True, True, True, True]


def test_a_group_of_one_is_zero_variance_and_shapes_are_checked():
    assert zero_variance_groups(torch.tensor([0.3]), torch.tensor([4])).tolist() == [True]
    with pytest.raises(ValueError, match="must be \\[B\\]"):
        zero_variance_groups(torch.zeros(2, 2), torch.zeros(2, 2))


def test_overlong_rows_leave_the_loss():
    mask = torch.tensor([[1.0, 1.0, 0.0], [1.0, 1.0, 1.0], [1.0, 0.0, 0.0]])
    out = overlong_mask(mask, torch.tensor([False, True, False]))
    torch.testing.assert_close(out, torch.tensor([[1.0, 1.0, 0.0], [0.0, 0.0, 0.0], [1.0, 0.0, 0.0]]))
    with pytest.raises(ValueError, match="must be \\[B\\]"):
        overlong_mask(mask, torch.tensor([True]))
