"""Advantage estimators against hand-computed numbers (arithmetic in the comments)."""

import math

import pytest
import torch

from coderl.algorithms.advantages import ADVANTAGES, sequence_rewards, terminal_rewards

# 8 completions of 2 prompts, interleaved ids (3 and 1) to check grouping does not assume order.
GROUP_IDS = torch.tensor([3, 1, 3, 1, 3, 1, 3, 1])
# prompt 3: rewards [1, 0, 1, 0]; prompt 1: rewards [2, 0, 0, 0]
REWARDS = torch.tensor([1.0, 2.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0])
LENGTHS = [3, 1, 2, 3, 1, 2, 3, 1]
MASK = torch.tensor([[1.0] * n + [0.0] * (3 - n) for n in LENGTHS])


def per_sequence(advantages: torch.Tensor) -> torch.Tensor:
    """The advantage each row carries on its tokens, after checking it is constant and masked."""
    first = advantages[:, 0]
    torch.testing.assert_close(advantages, first[:, None] * MASK)
    return first


def by_group(values):
    """Interleave [prompt 3 values] and [prompt 1 values] back into batch order."""
    g3, g1 = values
    return torch.tensor([x for pair in zip(g3, g1) for x in pair])


def test_grpo_by_hand():
    advantages, state = ADVANTAGES["grpo"](REWARDS, GROUP_IDS, MASK)
    # prompt 3 [1, 0, 1, 0]: mean 0.5, std 0.5 -> (1-0.5)/0.5 = 1, (0-0.5)/0.5 = -1
    # prompt 1 [2, 0, 0, 0]: mean 0.5, deviations [1.5, -.5, -.5, -.5], var (2.25 + 3*.25)/4 = .75,
    #   std sqrt(.75) -> 1.5/sqrt(.75) = sqrt(3), -0.5/sqrt(.75) = -1/sqrt(3)
    s3 = math.sqrt(3)
    expected = by_group(([1, -1, 1, -1], [s3, -1 / s3, -1 / s3, -1 / s3]))
    torch.testing.assert_close(per_sequence(advantages), expected)
    assert state == {}


def test_dr_grpo_is_grpo_without_std():
    advantages, _ = ADVANTAGES["dr_grpo"](REWARDS, GROUP_IDS, MASK)
    # prompt 3: r - 0.5 -> [.5, -.5, .5, -.5]; prompt 1: r - 0.5 -> [1.5, -.5, -.5, -.5]
    expected = by_group(([0.5, -0.5, 0.5, -0.5], [1.5, -0.5, -0.5, -0.5]))
    torch.testing.assert_close(per_sequence(advantages), expected)
    same, _ = ADVANTAGES["grpo"](REWARDS, GROUP_IDS, MASK, normalize_std=False)
    torch.testing.assert_close(same, advantages)


def test_rloo_group_of_four_by_hand():
    advantages, _ = ADVANTAGES["rloo"](REWARDS, GROUP_IDS, MASK)
    # prompt 3 [1, 0, 1, 0]: 1 - mean(0, 1, 0) = 2/3; 0 - mean(1, 1, 0) = -2/3
    #   (= 4/3 * (r - 0.5) = +-2/3)
    # prompt 1 [2, 0, 0, 0]: 2 - mean(0, 0, 0) = 2; 0 - mean(2, 0, 0) = -2/3
    expected = by_group(([2 / 3, -2 / 3, 2 / 3, -2 / 3], [2.0, -2 / 3, -2 / 3, -2 / 3]))
    torch.testing.assert_close(per_sequence(advantages), expected)


def test_rloo_normalized_by_group_std():
    advantages, _ = ADVANTAGES["rloo"](REWARDS, GROUP_IDS, MASK, normalize_std=True)
    # prompt 3: std 0.5 -> (2/3)/0.5 = 4/3; prompt 1: std sqrt(.75) -> 2/sqrt(.75), (-2/3)/sqrt(.75)
    s = math.sqrt(0.75)
    expected = by_group(([4 / 3, -4 / 3, 4 / 3, -4 / 3], [2 / s, -2 / 3 / s, -2 / 3 / s, -2 / 3 / s]))
    torch.testing.assert_close(per_sequence(advantages), expected)


def test_group_of_one_gets_zero_advantage():
    mask = torch.ones(3, 2)
    rewards = torch.tensor([1.0, 0.0, 5.0])
    group_ids = torch.tensor([0, 0, 9])  # the reward 5 is alone in group 9
    for name, options in [("rloo", {}), ("rloo", {"normalize_std": True}), ("grpo", {}), ("dr_grpo", {})]:
        advantages, _ = ADVANTAGES[name](rewards, group_ids, mask, **options)
        assert advantages[2].tolist() == [0.0, 0.0], name


def test_batch_norm_uses_population_std():
    mask = torch.ones(3, 2)
    advantages, _ = ADVANTAGES["batch_norm"](torch.tensor([0.0, 1.0, 2.0]), torch.tensor([0, 0, 1]), mask)
    # mean 1, population var (1 + 0 + 1)/3 = 2/3 -> std 0.8165; (0-1)/0.8165 = -1.2247
    # (Bessel's std would be 1 and give [-1, 0, 1]); group ids are ignored
    z = 1 / math.sqrt(2 / 3)
    torch.testing.assert_close(advantages[:, 0], torch.tensor([-z, 0.0, z]))


def test_batch_norm_seed_001_example():
    advantages, _ = ADVANTAGES["batch_norm"](REWARDS[:4], GROUP_IDS[:4], MASK[:4])
    # [1, 2, 0, 0]: mean 0.75, var (.0625 + 1.5625 + .5625 + .5625)/4 = 0.6875
    std = math.sqrt(0.6875)
    expected = torch.tensor([0.25, 1.25, -0.75, -0.75]) / std
    torch.testing.assert_close(advantages[:, 0], expected)


def test_reinforce_without_baseline_is_the_reward():
    advantages, state = ADVANTAGES["reinforce"](REWARDS, GROUP_IDS, MASK, state={"keep": 1})
    torch.testing.assert_close(per_sequence(advantages), REWARDS)
    assert state == {"keep": 1}


def test_reinforce_running_mean_across_two_calls():
    mask = torch.ones(4, 2)
    group_ids = torch.zeros(4, dtype=torch.long)
    options = {"baseline": "running_mean", "baseline_momentum": 0.9}
    # call 1: no history -> baseline 0, advantage = reward; running mean starts at the batch mean 0.75
    first, state = ADVANTAGES["reinforce"](torch.tensor([1.0, 0.0, 1.0, 1.0]), group_ids, mask, **options)
    torch.testing.assert_close(first[:, 0], torch.tensor([1.0, 0.0, 1.0, 1.0]))
    assert state == {"running_mean": pytest.approx(0.75), "count": 1}
    # call 2: baseline = 0.75 (before this batch's update): [0, 0, 1, 0] - 0.75
    #   then running mean = 0.9 * 0.75 + 0.1 * mean([0, 0, 1, 0]) = 0.675 + 0.025 = 0.7
    passed_in = dict(state)
    second, state2 = ADVANTAGES["reinforce"](torch.tensor([0.0, 0.0, 1.0, 0.0]), group_ids, mask,
                                             state=state, **options)
    torch.testing.assert_close(second[:, 0], torch.tensor([-0.75, -0.75, 0.25, -0.75]))
    assert state2 == {"running_mean": pytest.approx(0.7), "count": 2}
    assert state == passed_in  # the caller's dict is not mutated


def test_reinforce_rejects_unknown_baseline():
    with pytest.raises(ValueError, match="baseline"):
        ADVANTAGES["reinforce"](REWARDS, GROUP_IDS, MASK, baseline="mean")


def test_misspelt_option_raises_instead_of_being_ignored():
    with pytest.raises(TypeError):
        ADVANTAGES["grpo"](REWARDS, GROUP_IDS, MASK, normalise_std=False)


def test_token_level_rewards_are_summed_over_valid_tokens_for_sequence_estimators():
    # a [B, T] reward (e.g. terminal reward + per-token KL penalty); padding entries must be dropped
    token_rewards = torch.zeros(8, 3)
    token_rewards[:, 0] = REWARDS
    token_rewards[2, 1] = -0.5   # row 2 has 2 valid tokens: counts
    token_rewards[1, 2] = 100.0  # row 1 has 1 valid token: padding, dropped
    expected_sums = REWARDS.clone()
    expected_sums[2] -= 0.5
    torch.testing.assert_close(sequence_rewards(token_rewards, MASK), expected_sums)
    for name in ("reinforce", "batch_norm", "grpo", "dr_grpo", "rloo"):
        from_tokens, _ = ADVANTAGES[name](token_rewards, GROUP_IDS, MASK)
        from_sums, _ = ADVANTAGES[name](expected_sums, GROUP_IDS, MASK)
        torch.testing.assert_close(from_tokens, from_sums)


def test_terminal_rewards_go_on_the_last_valid_token():
    mask = torch.tensor([[1, 1, 1], [1, 0, 0], [0, 0, 0], [1, 1, 0]])
    out = terminal_rewards(torch.tensor([1.0, 2.0, 3.0, 4.0]), mask)
    # lengths 3, 1, 0, 2 -> positions 2, 0, none, 1; the empty row has nowhere to put its reward
    expected = torch.tensor([[0, 0, 1.0], [2.0, 0, 0], [0, 0, 0], [0, 4.0, 0]])
    torch.testing.assert_close(out, expected)


# ---------------------------------------------------------------------------------------------------
# GAE


def test_gae_short_and_long_sequence_by_hand():
    # row 0: 2 valid tokens, V = [0.5, 0.8], terminal reward 1 (padding values 9 must be ignored)
    # row 1: 4 valid tokens, V = [0.2, 0.4, 0.1, 0.3], terminal reward 0
    mask = torch.tensor([[1.0, 1.0, 0.0, 0.0], [1.0, 1.0, 1.0, 1.0]])
    values = torch.tensor([[0.5, 0.8, 9.0, 9.0], [0.2, 0.4, 0.1, 0.3]])
    rewards = torch.tensor([1.0, 0.0])
    advantages, state = ADVANTAGES["gae"](rewards, torch.tensor([0, 0]), mask, values=values,
                                          gamma=1.0, lam=0.95)
    # delta_t = r_t + gamma V_{t+1} - V_t (V after the last valid token = 0); A_t = delta_t + gamma lam A_{t+1}
    # row 0: t=1: delta = 1 + 0 - 0.8 = 0.2,   A1 = 0.2
    #        t=0: delta = 0 + 0.8 - 0.5 = 0.3, A0 = 0.3 + 0.95 * 0.2 = 0.49
    # row 1: t=3: delta = 0 + 0 - 0.3 = -0.3,  A3 = -0.3
    #        t=2: delta = 0.3 - 0.1 = 0.2,     A2 = 0.2 + 0.95 * -0.3 = -0.085
    #        t=1: delta = 0.1 - 0.4 = -0.3,    A1 = -0.3 + 0.95 * -0.085 = -0.38075
    #        t=0: delta = 0.4 - 0.2 = 0.2,     A0 = 0.2 + 0.95 * -0.38075 = -0.1617125
    expected = torch.tensor([[0.49, 0.2, 0.0, 0.0], [-0.1617125, -0.38075, -0.085, -0.3]])
    torch.testing.assert_close(advantages, expected)
    # returns = A + V on valid tokens: row 0 [0.99, 1.0]; row 1 [0.0382875, 0.01925, 0.015, 0.0]
    expected_returns = torch.tensor([[0.99, 1.0, 0.0, 0.0], [0.0382875, 0.01925, 0.015, 0.0]])
    torch.testing.assert_close(state["returns"], expected_returns)


def test_gae_discount():
    # one row of 2 tokens, V = 0, terminal reward 1, gamma 0.9, lam 0.95:
    # A1 = 1; A0 = 0 + 0.9 * 0 - 0 + 0.9 * 0.95 * 1 = 0.855
    advantages, _ = ADVANTAGES["gae"](torch.tensor([1.0]), torch.tensor([0]), torch.ones(1, 2),
                                      values=torch.zeros(1, 2), gamma=0.9, lam=0.95)
    torch.testing.assert_close(advantages, torch.tensor([[0.855, 1.0]]))


def test_gae_token_level_rewards_with_lambda_one_is_reward_to_go_minus_value():
    # rewards [0, -0.1, 0, 1] (a KL penalty on token 1, the outcome on token 3), V = 0, gamma = lam = 1:
    # A_t = sum_{t' >= t} r_t' -> [0.9, 0.9, 1.0, 1.0]
    rewards = torch.tensor([[0.0, -0.1, 0.0, 1.0]])
    advantages, state = ADVANTAGES["gae"](rewards, torch.tensor([0]), torch.ones(1, 4),
                                          values=torch.zeros(1, 4), gamma=1.0, lam=1.0)
    torch.testing.assert_close(advantages, torch.tensor([[0.9, 0.9, 1.0, 1.0]]))
    torch.testing.assert_close(state["returns"], advantages)


def test_gae_skips_an_interior_masked_token():
    # mask [1, 1, 0, 1]: the masked position's reward (5) and value (7) are ignored, the recursion
    # carries V and A across it.  V = [0.1, 0.2, -, 0.4], rewards [0, 0, -, 1], gamma 1, lam 0.5:
    # t=3: delta = 1 - 0.4 = 0.6, A3 = 0.6
    # t=1: delta = 0 + 0.4 - 0.2 = 0.2, A1 = 0.2 + 0.5 * 0.6 = 0.5
    # t=0: delta = 0 + 0.2 - 0.1 = 0.1, A0 = 0.1 + 0.5 * 0.5 = 0.35
    mask = torch.tensor([[1.0, 1.0, 0.0, 1.0]])
    advantages, _ = ADVANTAGES["gae"](torch.tensor([[0.0, 0.0, 5.0, 1.0]]), torch.tensor([0]), mask,
                                      values=torch.tensor([[0.1, 0.2, 7.0, 0.4]]), gamma=1.0, lam=0.5)
    torch.testing.assert_close(advantages, torch.tensor([[0.35, 0.5, 0.0, 0.6]]))


def test_gae_needs_values():
    with pytest.raises(ValueError, match="values"):
        ADVANTAGES["gae"](REWARDS, GROUP_IDS, MASK)


def test_gae_does_not_backpropagate_into_values():
    values = torch.zeros(2, 3, requires_grad=True)
    advantages, state = ADVANTAGES["gae"](torch.ones(2), torch.tensor([0, 1]), torch.ones(2, 3),
                                          values=values)
    assert not advantages.requires_grad and not state["returns"].requires_grad


def test_reinforce_pp_group_baseline_then_global_normalisation():
    adv, _ = ADVANTAGES["reinforce_pp"](REWARDS, GROUP_IDS, MASK)
    # centred: prompt 3 (mean 0.5) -> [0.5, -0.5, 0.5, -0.5]; prompt 1 (mean 0.5) -> [1.5, -0.5, -0.5, -0.5]
    # batch of the 8: mean 0, population variance (4 * 0.25 + 2.25 + 3 * 0.25) / 8 = 4 / 8 = 0.5
    centred = by_group(([0.5, -0.5, 0.5, -0.5], [1.5, -0.5, -0.5, -0.5]))
    torch.testing.assert_close(per_sequence(adv), centred / math.sqrt(0.5))
    # unlike GRPO, prompt 3's +-0.5 is not scaled to +-1 by its own std: one scale for the batch
    grpo, _ = ADVANTAGES["grpo"](REWARDS, GROUP_IDS, MASK)
    assert per_sequence(grpo)[0].item() == pytest.approx(1.0)
    assert per_sequence(adv)[0].item() == pytest.approx(0.5 / math.sqrt(0.5))


def test_reinforce_pp_equal_rewards_give_zero():
    adv, _ = ADVANTAGES["reinforce_pp"](torch.ones(8), GROUP_IDS, MASK)
    assert per_sequence(adv).abs().max().item() == 0.0


@pytest.mark.parametrize("name", ["grpo", "dr_grpo", "rloo", "reinforce_pp"])
def test_float_noise_in_a_flat_group_is_no_signal(name):
    """Eight rewards of 0.1 (float32) sum to 0.8000001, so the group mean differs from each reward by ~1.5e-9;
    GRPO divided that by (std ~1e-9 + 1e-8) and paid -0.427 to every row of a group that carries no signal.
    A flat group (`zero_variance_groups`) gets exactly 0; the varied group beside it keeps its advantage:
    rewards 0 and 1, mean 0.5, std 0.5 -> GRPO -1 and +1 (up to eps), RLOO 2 * (-0.5, 0.5) = -1, +1."""
    rewards = torch.tensor([0.1] * 8 + [0.0, 1.0])
    groups = torch.tensor([0] * 8 + [1, 1])
    adv, _ = ADVANTAGES[name](rewards, groups, torch.ones(10, 3))
    assert torch.equal(adv[:8], torch.zeros(8, 3))
    if name != "reinforce_pp":  # its batch normalisation rescales the varied group
        expected = {"dr_grpo": 0.5}.get(name, 1.0)
        assert adv[8:, 0].tolist() == pytest.approx([-expected, expected], abs=1e-6)
