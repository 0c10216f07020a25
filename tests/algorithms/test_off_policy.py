"""Truncated importance sampling against hand-computed numbers, and the identity the loops rely on: the
policy loss of w * A is the w-weighted loss of A, for pg and ppo_clip, on both clip branches."""

import math

import pytest
import torch

from coderl.algorithms.losses import POLICY_LOSSES
from coderl.algorithms.off_policy import truncated_is_weights, weighted_advantages

MASK = torch.tensor([[1.0, 1.0, 0.0], [1.0, 1.0, 1.0]])  # row 0 has 2 tokens, row 1 has 3
L = math.log
# pi_prox / mu per token: row 0: 2.0, 0.5, (pad); row 1: 4.0, 1.0, 0.25
PROX = torch.tensor([[L(0.5), L(0.2), -7.0], [L(0.8), L(0.3), L(0.1)]])
MU = torch.tensor([[L(0.25), L(0.4), -1.0], [L(0.2), L(0.3), L(0.4)]])


def test_token_level_weights_are_the_ratio_cut_at_the_cap():
    w, stats = truncated_is_weights(PROX, MU, MASK, cap=3.0, level="token")
    torch.testing.assert_close(w, torch.tensor([[2.0, 0.5, 0.0], [3.0, 1.0, 0.25]]))
    assert stats["is/truncated_fraction"] == pytest.approx(1 / 5)  # only 4.0 exceeds 3
    assert stats["is/weight_mean"] == pytest.approx((2.0 + 0.5 + 3.0 + 1.0 + 0.25) / 5)
    assert stats["is/max_abs_log_ratio"] == pytest.approx(math.log(4.0))  # padding's -6 is ignored
    # |log ratio| per valid token: ln 2, ln 2, ln 4, 0, ln 4 -> mean (2 ln 2 + 2 ln 4) / 5 = 6 ln 2 / 5
    assert stats["is/mean_abs_log_ratio"] == pytest.approx(6 * math.log(2) / 5)


def test_sequence_levels_use_the_product_or_its_geometric_mean():
    # row 0: product 2 * 0.5 = 1; row 1: 4 * 1 * 0.25 = 1 -> both 1 (no truncation)
    w, stats = truncated_is_weights(PROX, MU, MASK, cap=2.0, level="sequence")
    torch.testing.assert_close(w, MASK)
    assert stats["is/truncated_fraction"] == 0.0
    prox = PROX.clone()
    prox[1, 2] = L(0.4)  # row 1's ratios 4, 1, 1: product 4 -> cut at 2; geometric mean 4^(1/3)
    w, stats = truncated_is_weights(prox, MU, MASK, cap=2.0, level="sequence")
    torch.testing.assert_close(w, torch.tensor([[1.0, 1.0, 0.0], [2.0, 2.0, 2.0]]))
    assert stats["is/truncated_fraction"] == pytest.approx(1 / 2)  # one row of two
    w, _ = truncated_is_weights(prox, MU, MASK, cap=2.0, level="sequence_mean")
    g = 4.0 ** (1 / 3)
    torch.testing.assert_close(w, torch.tensor([[1.0, 1.0, 0.0], [g, g, g]]))


def test_fresh_samples_weigh_one_and_bad_arguments_are_refused():
    w, stats = truncated_is_weights(MU, MU, MASK, cap=2.0)
    torch.testing.assert_close(w, MASK)
    assert stats["is/max_abs_log_ratio"] == 0.0 and stats["is/truncated_fraction"] == 0.0
    with pytest.raises(ValueError, match="level"):
        truncated_is_weights(PROX, MU, MASK, cap=2.0, level="row")
    with pytest.raises(ValueError, match="cap"):
        truncated_is_weights(PROX, MU, MASK, cap=0.5)
    with pytest.raises(ValueError, match=r"\[B, T\]"):
        truncated_is_weights(PROX[:, :2], MU, MASK, cap=2.0)


def test_huge_ratios_do_not_overflow():
    w, _ = truncated_is_weights(torch.tensor([[200.0]]), torch.tensor([[-200.0]]), torch.ones(1, 1), cap=2.0)
    assert w.item() == 2.0


@pytest.mark.parametrize("name", ["pg", "ppo_clip"])
def test_the_loss_of_weighted_advantages_is_the_weighted_loss(name):
    """sum_t w_t * loss_t(A_t) computed by hand per token == the loss of (w * A), token_sum aggregation."""
    loss_fn = POLICY_LOSSES[name]
    old = torch.tensor([[-1.0, -1.0, -1.0], [-1.0, -1.0, -1.0]])
    # ratios e^0.5 (clipped for A > 0), e^-0.5 (clipped for A < 0), 1, ...
    new = old + torch.tensor([[0.5, -0.5, 0.0], [0.1, 0.5, -0.5]])
    adv = torch.tensor([[1.0, -1.0, 2.0], [-2.0, 1.0, -1.0]])
    w = torch.tensor([[2.0, 0.5, 0.0], [1.5, 1.0, 0.25]]) * MASK
    loss, _ = loss_fn(new, old, weighted_advantages(adv, w), MASK, aggregation="token_sum")
    ratio = (new - old).exp()
    if name == "pg":
        per_token = -adv * new
    else:
        per_token = -torch.min(ratio * adv, ratio.clamp(0.8, 1.2) * adv)
    expected = (w * per_token * MASK).sum() / 2  # token_sum: the sum over tokens, averaged over the 2 rows
    assert loss.item() == pytest.approx(expected.item(), rel=1e-6)
    assert weighted_advantages(adv, None) is adv
