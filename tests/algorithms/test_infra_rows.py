"""Infrastructure failures in the advantages: left out of their group's mean and std, advantage exactly 0, a
group left with fewer than 2 rows all 0 (`scored_rows`, `on_rows`); hand-computed numbers."""

import math

import pytest

torch = pytest.importorskip("torch")

from coderl.algorithms import ADVANTAGES  # noqa: E402
from coderl.algorithms.advantages import on_rows, scored_rows  # noqa: E402

# three groups of three: group 0 lost one row (a third of it), group 1 none, group 2 two (one row left)
GROUPS = torch.tensor([0, 0, 0, 1, 1, 1, 2, 2, 2])
FAILED = torch.tensor([False, False, True, False, False, False, True, False, True])
REWARDS = torch.tensor([1.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0])  # the failures' 0s were not earned
MASK = torch.ones(9, 4)


def advantages(name, rewards=REWARDS, failed=FAILED, **kwargs):
    estimator = ADVANTAGES[name]

    def estimate(rows):
        return estimator(rewards[rows], GROUPS[rows], MASK[rows], state=kwargs.pop("state", None), **kwargs)

    out, state = on_rows(estimate, scored_rows(failed, GROUPS), MASK)
    return out[:, 0].tolist(), state


def test_scored_rows_leave_out_failures_and_groups_left_with_one_row():
    assert scored_rows(FAILED, GROUPS).tolist() == [True, True, False, True, True, True, False, False, False]
    lone = torch.tensor([0, 1, 1])  # a group of one without a failure keeps its row (reinforce's groups of 1)
    assert scored_rows(torch.tensor([False, False, False]), lone).tolist() == [True, True, True]


def test_grpo_is_computed_on_the_remaining_rows_by_hand():
    got, _ = advantages("grpo")
    # group 0 without its failure: [1, 0], mean 1/2, population std 1/2 -> [+1, -1]; the failure 0
    # group 1 untouched: [1, 0, 0], mean 1/3, std sqrt(2)/3 -> [sqrt(2), -1/sqrt(2), -1/sqrt(2)]
    # group 2 has one row left: no baseline, all 0
    s = math.sqrt(2)
    want = [1.0, -1.0, 0.0, s, -1 / s, -1 / s, 0.0, 0.0, 0.0]
    assert got == pytest.approx(want, abs=1e-6)
    assert got[2] == 0.0 and got[6:] == [0.0, 0.0, 0.0]  # exactly


def test_a_failure_does_not_move_the_baseline_whatever_reward_it_carries():
    other = REWARDS.clone()
    other[[2, 6, 8]] = torch.tensor([5.0, -3.0, 7.0])  # whatever the failed rows hold
    assert advantages("grpo", other)[0] == advantages("grpo")[0]


def test_rloo_by_hand():
    got, _ = advantages("rloo")
    # group 0: [1, 0], G = 2: 2/1 * (r - 1/2) -> [1, -1]; group 1: 3/2 * (r - 1/3) -> [1, -1/2, -1/2]
    assert got == pytest.approx([1.0, -1.0, 0.0, 1.0, -0.5, -0.5, 0.0, 0.0, 0.0], abs=1e-6)


def test_reinforce_running_baseline_folds_in_only_the_remaining_rows():
    got, state = advantages("reinforce", baseline="running_mean")
    assert got == [1.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0]  # first batch: baseline 0
    assert state["running_mean"] == pytest.approx(2 / 5)  # rows 0, 1, 3, 4, 5 (group 2 has no baseline)


def test_gae_returns_are_spread_back_to_their_rows():
    values = torch.full((9, 4), 0.5)

    def estimate(rows):
        return ADVANTAGES["gae"](REWARDS[rows], GROUPS[rows], MASK[rows], values=values[rows])

    out, state = on_rows(estimate, scored_rows(FAILED, GROUPS), MASK)
    assert state["returns"].shape == (9, 4) and out.shape == (9, 4)
    assert (out[[2, 6, 7, 8]] == 0).all() and (state["returns"][[2, 6, 7, 8]] == 0).all()
    full, full_state = ADVANTAGES["gae"](REWARDS, GROUPS, MASK, values=values)
    assert torch.equal(out[0], full[0]) and torch.equal(state["returns"][3], full_state["returns"][3])


def test_without_a_failure_the_estimator_sees_the_whole_batch():
    none = torch.zeros(9, dtype=torch.bool)
    whole, _ = ADVANTAGES["grpo"](REWARDS, GROUPS, MASK)
    assert advantages("grpo", failed=none)[0] == whole[:, 0].tolist()
