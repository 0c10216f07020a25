"""Entropy from logits and the clipped value loss / explained variance, by hand."""

import math

import pytest
import torch

from coderl.algorithms.entropy import entropy_from_logits
from coderl.algorithms.value import clipped_value_loss, explained_variance


def test_entropy_by_hand():
    logits = torch.tensor([[[0.0, 0.0, 0.0, 0.0], [5.0, 5.0, 5.0, 5.0]],   # uniform over 4: log 4
                           [[0.0, -math.inf, 0.0, -math.inf], [1000.0, 0.0, 0.0, 0.0]]])  # log 2; ~0
    entropy = entropy_from_logits(logits)
    expected = torch.tensor([[math.log(4), math.log(4)], [math.log(2), 0.0]])
    torch.testing.assert_close(entropy, expected)


def test_entropy_matches_torch_categorical_and_has_finite_gradients_with_masked_vocab():
    logits = torch.randn(2, 3, 7, generator=torch.Generator().manual_seed(0))
    torch.testing.assert_close(entropy_from_logits(logits),
                               torch.distributions.Categorical(logits=logits).entropy())
    masked = logits.clone()
    masked[..., :3] = -math.inf
    masked.requires_grad_(True)
    entropy_from_logits(masked).sum().backward()
    assert torch.isfinite(masked.grad).all()


# values, old values and returns for 3 valid tokens and one padding token (value 9, ignored)
VALUES = torch.tensor([[1.0, 0.3, 0.5, 9.0]])
OLD_VALUES = torch.tensor([[0.8, 0.5, 0.5, 0.0]])
RETURNS = torch.tensor([[0.0, 0.0, 1.0, 0.0]])
MASK = torch.tensor([[1.0, 1.0, 1.0, 0.0]])


def test_clipped_value_loss_by_hand():
    values = VALUES.clone().requires_grad_(True)
    loss, stats = clipped_value_loss(values, OLD_VALUES, RETURNS, MASK, clip=0.1, aggregation="token_mean")
    # token 0: v 1.0, old 0.8 -> clipped v 0.9; (1 - 0)^2 = 1 vs (0.9 - 0)^2 = 0.81 -> max 1, 0.5 * 1 = 0.5
    # token 1: v 0.3, old 0.5 -> clipped v 0.4; 0.09 vs 0.16 -> max 0.16 (clipped), 0.5 * 0.16 = 0.08
    # token 2: v 0.5 = old -> (0.5 - 1)^2 = 0.25 both, 0.5 * 0.25 = 0.125
    # token_mean: (0.5 + 0.08 + 0.125) / 3 = 0.235
    assert loss.item() == pytest.approx(0.235)
    assert stats["clip_fraction"] == pytest.approx(1 / 3)
    loss.backward()
    # d/dv: token 0: (v - R) / 3 = 1/3; token 1: clipped branch, v outside the band -> 0;
    # token 2: (0.5 - 1) / 3 = -1/6; padding 0
    torch.testing.assert_close(values.grad, torch.tensor([[1 / 3, 0.0, -1 / 6, 0.0]]))


def test_unclipped_value_loss():
    loss, stats = clipped_value_loss(VALUES, OLD_VALUES, RETURNS, MASK, clip=None, aggregation="token_mean")
    # 0.5 * (1 + 0.09 + 0.25) / 3 = 0.67 / 3
    assert loss.item() == pytest.approx(0.67 / 3)
    assert stats == {"clip_fraction": 0.0}


def test_explained_variance_by_hand():
    returns = torch.tensor([[1.0, 2.0, 3.0, 4.0, 100.0]])
    mask = torch.tensor([[1.0, 1.0, 1.0, 1.0, 0.0]])  # the 100 is padding
    assert explained_variance(returns, returns, mask) == pytest.approx(1.0)
    assert explained_variance(torch.full_like(returns, 2.5), returns, mask) == pytest.approx(0.0)
    # residuals R - V = [-1, 1, -1, 1]: var 1; var(R) = 1.25 -> 1 - 1 / 1.25 = 0.2
    values = torch.tensor([[2.0, 1.0, 4.0, 3.0, 0.0]])
    assert explained_variance(values, returns, mask) == pytest.approx(0.2)
    assert math.isnan(explained_variance(values, torch.ones_like(returns), mask))
