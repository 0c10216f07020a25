"""Policy losses against hand-computed numbers: pg, PPO clip (both branches, clip-higher, sequence ratio)."""

import math

import pytest
import torch

from coderl.algorithms.losses import POLICY_LOSSES

pg = POLICY_LOSSES["pg"]
ppo_clip = POLICY_LOSSES["ppo_clip"]

MASK = torch.tensor([[1.0, 1.0, 1.0], [1.0, 0.0, 0.0]])  # lengths 3 and 1


def test_pg_token_sum_is_seed_001_reinforce():
    logprobs = torch.tensor([[-1.0, -2.0, -3.0], [-0.5, -9.0, -9.0]], requires_grad=True)
    advantages = torch.tensor([[1.0, 1.0, 1.0], [-2.0, -2.0, -2.0]])  # R = 1 and R = -2
    loss, stats = pg(logprobs, logprobs.detach(), advantages, MASK, aggregation="token_sum")
    # seed 001: -R * sum_t log p: -1 * (-6) = 6 and -(-2) * (-0.5) = -1 -> mean over 2 = 2.5
    assert loss.item() == pytest.approx(2.5)
    loss.backward()
    # d/dlogp = -A / B: row 0 -1/2 each; row 1 +2/2 = 1; padding 0
    torch.testing.assert_close(logprobs.grad, torch.tensor([[-0.5, -0.5, -0.5], [1.0, 0.0, 0.0]]))
    assert stats == {"clip_fraction": 0.0, "approx_kl": 0.0, "ratio_mean": 1.0, "ratio_max": 1.0}


def test_pg_token_mean():
    logprobs = torch.tensor([[-1.0, -2.0, -3.0], [-0.5, -9.0, -9.0]])
    advantages = torch.tensor([[1.0, 1.0, 1.0], [-2.0, 0.0, 0.0]])
    loss, _ = pg(logprobs, logprobs, advantages, MASK, aggregation="token_mean")
    # per token -A * logp: [1, 2, 3] and [-1] -> 5 / 4 valid tokens
    assert loss.item() == pytest.approx(1.25)


def test_ppo_ratio_one_is_minus_advantage_aggregated():
    logprobs = torch.tensor([[-1.0, -2.0, -3.0], [-0.5, -9.0, -9.0]], requires_grad=True)
    advantages = torch.tensor([[1.0, 1.0, 1.0], [-2.0, 0.0, 0.0]])
    loss, stats = ppo_clip(logprobs, logprobs.detach(), advantages, MASK, aggregation="token_mean")
    # ratio 1 everywhere: loss = -mean(A) over valid tokens = -(1 + 1 + 1 - 2) / 4 = -0.25
    assert loss.item() == pytest.approx(-0.25)
    loss.backward()
    # d/dlogp = -A * ratio / 4: row 0 -0.25 each, row 1 +0.5
    torch.testing.assert_close(logprobs.grad, torch.tensor([[-0.25, -0.25, -0.25], [0.5, 0.0, 0.0]]))
    assert stats == {"clip_fraction": 0.0, "approx_kl": 0.0, "ratio_mean": 1.0, "ratio_max": 1.0}


def test_ppo_ratio_outside_the_clip_range_with_both_advantage_signs():
    # four one-token completions, eps 0.2 -> clip range [0.8, 1.2]
    ratios = torch.tensor([1.5, 1.5, 0.5, 0.5])
    advantages = torch.tensor([[1.0], [-1.0], [1.0], [-1.0]])
    old = torch.zeros(4, 1)
    logprobs = ratios.log()[:, None].clone().requires_grad_(True)
    loss, stats = ppo_clip(logprobs, old, advantages, torch.ones(4, 1), aggregation="token_mean", eps=0.2)
    # row 0: r 1.5, A +1: min(1.5, 1.2) = 1.2   -> loss -1.2, clipped branch (grad 0)
    # row 1: r 1.5, A -1: min(-1.5, -1.2) = -1.5 -> loss 1.5, unclipped, grad -A * r = 1.5
    # row 2: r 0.5, A +1: min(0.5, 0.8) = 0.5   -> loss -0.5, unclipped, grad -A * r = -0.5
    # row 3: r 0.5, A -1: min(-0.5, -0.8) = -0.8 -> loss 0.8, clipped branch (grad 0)
    # token_mean: (-1.2 + 1.5 - 0.5 + 0.8) / 4 = 0.15
    assert loss.item() == pytest.approx(0.15)
    loss.backward()
    torch.testing.assert_close(logprobs.grad, torch.tensor([[0.0], [1.5 / 4], [-0.5 / 4], [0.0]]))
    # k3 per token (r - 1) - log r: 1.5 -> 0.5 - 0.405465 = 0.094535; 0.5 -> -0.5 + 0.693147 = 0.193147
    k3 = (0.5 - math.log(1.5), -0.5 - math.log(0.5))
    assert stats["clip_fraction"] == pytest.approx(0.5)  # rows 0 and 3 of 4
    assert stats["approx_kl"] == pytest.approx((k3[0] + k3[1]) / 2, rel=1e-5)
    assert stats["ratio_mean"] == pytest.approx(1.0)      # (1.5 + 1.5 + 0.5 + 0.5) / 4
    assert stats["ratio_max"] == pytest.approx(1.5)


def test_ppo_clip_higher():
    # r 1.25 with A +1 is clipped at 1 + 0.2 = 1.2 but not at 1 + eps_high = 1.28;
    # r 0.7 with A -1 is clipped at the lower bound 1 - eps = 0.8 either way (eps_high is upper only)
    logprobs = torch.tensor([[math.log(1.25)], [math.log(0.7)]])
    advantages = torch.tensor([[1.0], [-1.0]])
    old, mask = torch.zeros(2, 1), torch.ones(2, 1)
    loss, stats = ppo_clip(logprobs, old, advantages, mask, aggregation="token_mean", eps=0.2)
    # symmetric: row 0 -min(1.25, 1.2) = -1.2; row 1 -min(-0.7, -0.8) = 0.8 -> (-1.2 + 0.8) / 2 = -0.2
    assert loss.item() == pytest.approx(-0.2)
    assert stats["clip_fraction"] == pytest.approx(1.0)
    loss, stats = ppo_clip(logprobs, old, advantages, mask, aggregation="token_mean", eps=0.2, eps_high=0.28)
    # clip-higher: row 0 -min(1.25, 1.28) = -1.25; row 1 still 0.8 -> (-1.25 + 0.8) / 2 = -0.225
    assert loss.item() == pytest.approx(-0.225)
    assert stats["clip_fraction"] == pytest.approx(0.5)


def test_ppo_sequence_ratio_vs_token_ratio():
    # row 0: two tokens, each with ratio 1.1; row 1: one token with ratio 0.9, then padding whose
    # log-probs (5.0 vs 0.0) must not enter the sequence sum.  A = +1 everywhere, eps 0.2.
    logprobs = torch.tensor([[math.log(1.1), math.log(1.1)], [math.log(0.9), 5.0]], requires_grad=True)
    old = torch.zeros(2, 2)
    advantages = torch.ones(2, 2)
    mask = torch.tensor([[1.0, 1.0], [1.0, 0.0]])

    loss, stats = ppo_clip(logprobs, old, advantages, mask, aggregation="sequence_mean", ratio_level="token")
    # token ratios 1.1, 1.1, 0.9 all inside [0.8, 1.2]: row means -1.1 and -0.9 -> (-1.1 - 0.9) / 2 = -1.0
    assert loss.item() == pytest.approx(-1.0)
    assert stats["clip_fraction"] == 0.0

    loss, stats = ppo_clip(logprobs, old, advantages, mask, aggregation="sequence_mean",
                           ratio_level="sequence")
    # sequence ratios: row 0 exp(2 log 1.1) = 1.21 > 1.2 -> clipped, -1.2; row 1 0.9 -> -0.9
    # sequence_mean = seed 001's per-sequence PPO loss: (-1.2 - 0.9) / 2 = -1.05
    assert loss.item() == pytest.approx(-1.05)
    assert stats["clip_fraction"] == pytest.approx(0.5)   # one of two sequences
    assert stats["ratio_mean"] == pytest.approx((1.21 + 0.9) / 2)
    assert stats["ratio_max"] == pytest.approx(1.21)
    loss.backward()
    # row 0 clipped -> 0; row 1: d/dlogp of -ratio_seq * A = -0.9, times 1/B = 1/2 -> -0.45
    torch.testing.assert_close(logprobs.grad, torch.tensor([[0.0, 0.0], [-0.45, 0.0]]))


def test_ppo_huge_log_ratio_stays_finite():
    logprobs = torch.tensor([[60.0, 60.0]], requires_grad=True)  # sequence log-ratio 120: exp overflows
    for advantage in (1.0, -1.0):
        loss, stats = ppo_clip(logprobs, torch.zeros(1, 2), torch.full((1, 2), advantage), torch.ones(1, 2),
                               aggregation="token_sum", ratio_level="sequence")
        loss.backward()
        assert math.isfinite(loss.item()) and torch.isfinite(logprobs.grad).all()
        assert all(math.isfinite(v) for v in stats.values())
        logprobs.grad = None


def test_ppo_rejects_unknown_ratio_level_and_options():
    args = (torch.zeros(1, 1), torch.zeros(1, 1), torch.ones(1, 1), torch.ones(1, 1))
    with pytest.raises(ValueError, match="ratio_level"):
        ppo_clip(*args, aggregation="token_mean", ratio_level="seq")
    with pytest.raises(TypeError):
        pg(*args, aggregation="token_mean", eps=0.2)  # pg has no clip: a stale option is an error
    with pytest.raises(TypeError):
        ppo_clip(*args)  # aggregation is required: no hidden default


def test_gspo_length_normalised_sequence_ratio():
    # The rows of the test above with GSPO's ratio s_i = exp(mean_t log ratio): row 0
    # exp((2 log 1.1) / 2) = 1.1, row 1 exp(log 0.9 / 1) = 0.9 (padding excluded from the mean).
    logprobs = torch.tensor([[math.log(1.1), math.log(1.1)], [math.log(0.9), 5.0]], requires_grad=True)
    old, advantages = torch.zeros(2, 2), torch.ones(2, 2)
    mask = torch.tensor([[1.0, 1.0], [1.0, 0.0]])
    loss, stats = ppo_clip(logprobs, old, advantages, mask, aggregation="sequence_mean",
                           ratio_level="sequence_mean", eps=0.2)
    # both inside [0.8, 1.2]: (-1.1 - 0.9) / 2 = -1.0 (where the sequence product 1.21 was clipped)
    assert loss.item() == pytest.approx(-1.0)
    assert stats["clip_fraction"] == 0.0 and stats["ratio_max"] == pytest.approx(1.1)
    loss.backward()
    # row 0: d/dlogp_t of -exp(mean log ratio) = -1.1 * (1/2) per token, times 1/B = 1/2 -> -0.275;
    # row 1: -0.9 * 1 * 1/2 = -0.45
    torch.testing.assert_close(logprobs.grad, torch.tensor([[-0.275, -0.275], [-0.45, 0.0]]))
    # GSPO's small eps: 1.1 is clipped at 1 + 3e-4 (gradient 0), 0.9 below 1 - 3e-4 with A > 0 is not
    loss, stats = ppo_clip(logprobs, old, advantages, mask, aggregation="sequence_mean",
                           ratio_level="sequence_mean", eps=3e-4)
    assert loss.item() == pytest.approx((-(1 + 3e-4) - 0.9) / 2)
    assert stats["clip_fraction"] == pytest.approx(0.5)
