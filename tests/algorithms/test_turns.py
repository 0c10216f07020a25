"""Credit across repair turns (`coderl.algorithms.turns`), against hand-computed numbers."""

import pytest

torch = pytest.importorskip("torch")

from coderl.algorithms import ADVANTAGES  # noqa: E402
from coderl.algorithms.turns import expand_turns, fold_turns, previous_rewards, turn_advantages  # noqa: E402


def _two_rows():
    # Row a (group 0): turn 0 on tokens 0-1, feedback on 2-3, turn 1 on 4-5; scores 0.2 then 1.0.
    # Row b (group 0): turn 0 on tokens 0-2, no repair; score 1.0.  Padding is 0 in mask, -1 in turns.
    mask = torch.tensor([[1, 1, 0, 0, 1, 1], [1, 1, 1, 0, 0, 0]], dtype=torch.float32)
    turns = torch.tensor([[0, 0, -1, -1, 1, 1], [0, 0, 0, -1, -1, -1]])
    turn_rewards = torch.tensor([[0.2, 1.0], [1.0, 0.0]])
    used = torch.tensor([2, 1])
    final = torch.tensor([1.0, 1.0])
    token_rewards = torch.zeros(2, 6)
    token_rewards[0, 5] = final[0]  # the final reward on each row's last valid token
    token_rewards[1, 2] = final[1]
    return mask, turns, turn_rewards, used, token_rewards


def test_previous_rewards_shift_by_one_turn_and_zero_the_first_and_untaken():
    previous = previous_rewards(torch.tensor([[0.2, 1.0, 0.5], [1.0, 0.0, 0.0]]), torch.tensor([3, 1]))
    # row 0: [0, r0, r1] = [0, 0.2, 1.0]; row 1 took one turn: [0, 0, 0]
    assert torch.allclose(previous, torch.tensor([[0.0, 0.2, 1.0], [0.0, 0.0, 0.0]]))


def test_expand_turns_worked_example():
    mask, turns, turn_rewards, used, token_rewards = _two_rows()
    rewards, groups, entry_mask, rows = expand_turns(token_rewards, torch.tensor([0, 0]), mask, turns,
                                                     previous_rewards(turn_rewards, used))
    assert rows.tolist() == [0, 0, 1]  # (a, 0), (a, 1), (b, 0)
    assert groups.tolist() == [0, 1, 0]  # group * K + turn, K = 2
    # (a, 0): its last token (1) gets the later rewards (1.0 on token 5) minus r_{-1} = 0 -> 1.0
    # (a, 1): 1.0 on token 5 minus r_0 = 0.2 -> 0.8;  (b, 0): 1.0 - 0 -> 1.0
    assert rewards.sum(1).tolist() == pytest.approx([1.0, 0.8, 1.0])
    assert rewards[0, 1] == pytest.approx(1.0) and rewards[1, 5] == pytest.approx(0.8)
    assert entry_mask.tolist() == [[1, 1, 0, 0, 0, 0], [0, 0, 0, 0, 1, 1], [1, 1, 1, 0, 0, 0]]


def test_per_token_kl_stays_on_its_turn_and_later_kl_is_charged_to_earlier_turns():
    mask, turns, turn_rewards, used, token_rewards = _two_rows()
    token_rewards = token_rewards.clone()
    token_rewards[0, 0] -= 0.1  # KL on turn 0's first token
    token_rewards[0, 4] -= 0.3  # KL on turn 1's first token
    rewards, _, _, _ = expand_turns(token_rewards, torch.tensor([0, 0]), mask, turns,
                                    previous_rewards(turn_rewards, used))
    # (a, 0): -0.1 (own) + (1.0 - 0.3) later - 0 = 0.6;  (a, 1): -0.3 + 1.0 - 0.2 = 0.5
    assert rewards[0].sum().item() == pytest.approx(0.6)
    assert rewards[0, 0].item() == pytest.approx(-0.1)
    assert rewards[1].sum().item() == pytest.approx(0.5)
    assert rewards[1, 4].item() == pytest.approx(-0.3)


def test_fold_turns_puts_each_entry_back_on_its_row():
    per_entry = torch.tensor([[1.0, 1.0, 0, 0, 0, 0], [0, 0, 0, 0, 2.0, 2.0], [3.0, 3.0, 3.0, 0, 0, 0]])
    folded = fold_turns(per_entry, torch.tensor([0, 0, 1]), 2)
    assert folded.tolist() == [[1.0, 1.0, 0, 0, 2.0, 2.0], [3.0, 3.0, 3.0, 0, 0, 0]]


def test_grpo_under_improvement_credit_compares_repairs_of_the_same_turn():
    mask, turns, turn_rewards, used, token_rewards = _two_rows()
    # A third row of the group: turn 0 scores 0, turn 1 scores 0 (the repair failed).
    mask = torch.cat([mask, torch.tensor([[1, 0, 0, 1, 1, 0]], dtype=torch.float32)])
    turns = torch.cat([turns, torch.tensor([[0, -1, -1, 1, 1, -1]])])
    turn_rewards = torch.cat([turn_rewards, torch.tensor([[0.0, 0.0]])])
    used = torch.tensor([2, 1, 2])
    token_rewards = torch.cat([token_rewards, torch.zeros(1, 6)])
    advantages, _ = turn_advantages(ADVANTAGES["grpo"], token_rewards, torch.tensor([0, 0, 0]), mask, turns,
                                    previous_rewards(turn_rewards, used))
    # Turn 0 entries: a 1.0, b 1.0, c 0.0 -> mean 2/3, population std sqrt(2/9) = 0.4714
    #   a, b: (1 - 2/3) / 0.4714 = +0.7071;  c: (0 - 2/3) / 0.4714 = -1.4142
    # Turn 1 entries: a 0.8, c 0.0 -> mean 0.4, std 0.4: a +1, c -1
    assert advantages[0, :2].tolist() == pytest.approx([0.7071, 0.7071], abs=1e-4)
    assert advantages[2, 0].item() == pytest.approx(-1.4142, abs=1e-4)
    assert advantages[0, 4:].tolist() == pytest.approx([1.0, 1.0], abs=1e-4)
    assert advantages[2, 3:5].tolist() == pytest.approx([-1.0, -1.0], abs=1e-4)
    assert advantages[0, 2:4].tolist() == [0.0, 0.0]  # feedback tokens: no advantage


def test_gae_under_improvement_credit_returns_fold_back_with_the_rows_shape():
    mask, turns, turn_rewards, used, token_rewards = _two_rows()
    values = torch.zeros(2, 6)
    advantages, state = turn_advantages(ADVANTAGES["gae"], token_rewards, torch.tensor([0, 0]), mask, turns,
                                        previous_rewards(turn_rewards, used), values=values, gamma=1.0, lam=1.0)
    # Values 0, gamma = lambda = 1: every token's advantage is its entry's return: turn 0 of a 1.0, turn 1 0.8.
    assert advantages[0].tolist() == pytest.approx([1.0, 1.0, 0.0, 0.0, 0.8, 0.8])
    assert advantages[1].tolist() == pytest.approx([1.0, 1.0, 1.0, 0.0, 0.0, 0.0])
    assert state["returns"].shape == (2, 6)


def test_no_policy_token_at_all_gives_zero_advantages_and_zero_returns():
    mask = torch.zeros(2, 4)
    turns = torch.full((2, 4), -1)
    advantages, state = turn_advantages(ADVANTAGES["gae"], torch.zeros(2, 4), torch.tensor([0, 0]), mask, turns,
                                        torch.zeros(2, 1), values=torch.zeros(2, 4))
    assert advantages.abs().sum() == 0 and state["returns"].shape == (2, 4)
