"""One signature per registry: every registered estimator and loss is called from the same call site."""

import pytest
import torch

from coderl.algorithms import (
    ADVANTAGES,
    AGGREGATIONS,
    POLICY_LOSSES,
    register_advantage,
    register_policy_loss,
)

B, T = 6, 4
LENGTHS = [4, 1, 3, 2, 4, 1]
MASK = torch.tensor([[1.0] * n + [0.0] * (T - n) for n in LENGTHS])
GROUP_IDS = torch.tensor([0, 0, 0, 1, 1, 1])
STATS_KEYS = {"clip_fraction", "approx_kl", "ratio_mean", "ratio_max"}


def test_registries_hold_the_expected_names():
    assert set(ADVANTAGES) == {"reinforce", "batch_norm", "grpo", "dr_grpo", "rloo", "gae", "reinforce_pp"}
    assert set(POLICY_LOSSES) == {"pg", "ppo_clip"}


@pytest.mark.parametrize("name", sorted(ADVANTAGES))
@pytest.mark.parametrize("token_level", [False, True])
def test_every_estimator_through_one_call_site(name, token_level):
    generator = torch.Generator().manual_seed(1)
    rewards = torch.rand(B, T, generator=generator, dtype=torch.float64) if token_level else \
        torch.tensor([1.0, 0.0, 1.0, 0.5, 0.0, 1.0], dtype=torch.float64)
    rewards.requires_grad_(True)
    values = torch.rand(B, T, generator=generator, requires_grad=True)
    state = {"from_before": 1}

    advantages, new_state = ADVANTAGES[name](rewards, GROUP_IDS, MASK.bool(), values=values, state=state)

    assert advantages.shape == (B, T) and advantages.dtype == torch.float32
    assert not advantages.requires_grad
    assert (advantages[MASK == 0] == 0).all()
    assert torch.isfinite(advantages).all()
    assert new_state["from_before"] == 1 and state == {"from_before": 1}


@pytest.mark.parametrize("name", sorted(POLICY_LOSSES))
@pytest.mark.parametrize("aggregation", AGGREGATIONS)
def test_every_loss_through_one_call_site(name, aggregation):
    generator = torch.Generator().manual_seed(2)
    old_logprobs = -torch.rand(B, T, generator=generator)
    logprobs = (old_logprobs + 0.3 * torch.randn(B, T, generator=generator)).requires_grad_(True)
    advantages = torch.randn(B, T, generator=generator) * MASK

    loss, stats = POLICY_LOSSES[name](logprobs, old_logprobs, advantages, MASK,
                                      aggregation=aggregation, max_tokens=T)

    assert loss.dim() == 0 and torch.isfinite(loss)
    loss.backward()
    assert (logprobs.grad[MASK == 0] == 0).all() and logprobs.grad.abs().sum() > 0
    assert set(stats) == STATS_KEYS and all(isinstance(v, float) for v in stats.values())


def test_a_name_registers_once():
    with pytest.raises(ValueError, match="registered twice"):
        register_advantage("grpo")(lambda *a, **k: None)
    with pytest.raises(ValueError, match="registered twice"):
        register_policy_loss("pg")(lambda *a, **k: None)
