"""KL estimators: values by hand, and which divergence each one's gradient follows when used as a loss.

The gradient tests are exact, not sampled: for a categorical pi_theta over 5 outcomes, the expected
loss of a sampled estimator is E_{x ~ pi}[k(x)] with the sampling distribution held fixed (detached),
i.e. sum_x pi(x).detach() * k(x).  Its autograd gradient is what a sampled KL loss estimates.  We
compare it with closed-form gradients (w.r.t. the logits) of
    reverse KL(pi || ref): dKL/dtheta_j = pi_j * (d_j - E_pi[d]),  d = log pi - log ref
    forward KL(ref || pi): dKL/dtheta_j = pi_j - ref_j
"""

import math

import pytest
import torch

from coderl.algorithms.advantages import ADVANTAGES
from coderl.algorithms.aggregation import aggregate
from coderl.algorithms.kl import kl_estimator, kl_loss, kl_penalty_reward
from coderl.algorithms.losses import POLICY_LOSSES

LOGITS = [0.3, -1.2, 0.8, 0.0, -0.5]
REF_LOGITS = [-0.4, 0.9, 0.1, -1.0, 0.6]


def categorical():
    theta = torch.tensor(LOGITS, dtype=torch.float64, requires_grad=True)
    ref_logprobs = torch.log_softmax(torch.tensor(REF_LOGITS, dtype=torch.float64), dim=0)
    return theta, ref_logprobs


def expected_loss_gradient(kind: str) -> torch.Tensor:
    theta, ref_logprobs = categorical()
    logprobs = torch.log_softmax(theta, dim=0)
    sampling = logprobs.exp().detach()  # x ~ pi: the sampler is not differentiated
    (sampling * kl_estimator(logprobs, ref_logprobs, kind)).sum().backward()
    return theta.grad


def analytic_gradients():
    theta, ref_logprobs = categorical()
    with torch.no_grad():
        logprobs = torch.log_softmax(theta, dim=0)
        pi, ref = logprobs.exp(), ref_logprobs.exp()
        d = logprobs - ref_logprobs
        reverse = pi * (d - (pi * d).sum())
        forward = pi - ref
    return reverse, forward


def test_closed_form_gradients_match_autograd_of_the_exact_kls():
    reverse, forward = analytic_gradients()
    theta, ref_logprobs = categorical()
    logprobs = torch.log_softmax(theta, dim=0)
    (grad_reverse,) = torch.autograd.grad((logprobs.exp() * (logprobs - ref_logprobs)).sum(), theta,
                                          retain_graph=True)
    (grad_forward,) = torch.autograd.grad((ref_logprobs.exp() * (ref_logprobs - logprobs)).sum(), theta)
    torch.testing.assert_close(grad_reverse, reverse, atol=1e-12, rtol=0)
    torch.testing.assert_close(grad_forward, forward, atol=1e-12, rtol=0)


def test_k1_as_a_loss_has_zero_expected_gradient():
    # sum_x pi(x) grad log pi(x) = grad sum_x pi(x) = grad 1 = 0
    torch.testing.assert_close(expected_loss_gradient("k1"), torch.zeros(5, dtype=torch.float64),
                               atol=1e-6, rtol=0)


def test_k2_as_a_loss_follows_the_reverse_kl():
    # grad E[0.5 d^2] = E[d grad log pi] = grad KL(pi || ref)   (since E[grad log pi] = 0)
    reverse, forward = analytic_gradients()
    gradient = expected_loss_gradient("k2")
    torch.testing.assert_close(gradient, reverse, atol=1e-6, rtol=0)
    assert (gradient - forward).abs().max() > 1e-2  # and it is not the forward KL's


def test_k3_as_a_loss_follows_the_forward_kl():
    # grad k3 = (1 - ref/pi) grad log pi -> E_pi = sum_x (pi - ref) grad log pi = -sum_x ref grad log pi
    #         = grad KL(ref || pi)
    reverse, forward = analytic_gradients()
    gradient = expected_loss_gradient("k3")
    torch.testing.assert_close(gradient, forward, atol=1e-6, rtol=0)
    assert (gradient - reverse).abs().max() > 1e-2  # and it is not the reverse KL's


def test_estimator_values_k1_k3_unbiased_k2_biased():
    theta, ref_logprobs = categorical()
    with torch.no_grad():
        logprobs = torch.log_softmax(theta, dim=0)
        pi = logprobs.exp()
        kl = (pi * (logprobs - ref_logprobs)).sum()
        expectation = {kind: (pi * kl_estimator(logprobs, ref_logprobs, kind)).sum() for kind in ("k1", "k2", "k3")}
    assert expectation["k1"].item() == pytest.approx(kl.item(), abs=1e-12)
    # E[ref/pi - log(ref/pi) - 1] = sum ref + KL - 1 = KL
    assert expectation["k3"].item() == pytest.approx(kl.item(), abs=1e-12)
    assert abs(expectation["k2"].item() - kl.item()) > 1e-3  # biased
    # k2 and k3 are >= 0 sample by sample; k1 is not
    assert (kl_estimator(logprobs, ref_logprobs, "k1") < 0).any()
    assert (kl_estimator(logprobs, ref_logprobs, "k2") >= 0).all()
    assert (kl_estimator(logprobs, ref_logprobs, "k3") >= 0).all()


def test_estimator_values_by_hand():
    # pi = 0.5, ref = 0.25: k1 = log 2 = 0.693147; k2 = 0.5 * log(2)^2 = 0.240227;
    # k3 = ref/pi - log(ref/pi) - 1 = 0.5 + log 2 - 1 = 0.193147
    logprobs, ref = torch.tensor([[math.log(0.5)]]), torch.tensor([[math.log(0.25)]])
    assert kl_estimator(logprobs, ref, "k1").item() == pytest.approx(math.log(2))
    assert kl_estimator(logprobs, ref, "k2").item() == pytest.approx(0.5 * math.log(2) ** 2)
    assert kl_estimator(logprobs, ref, "k3").item() == pytest.approx(0.5 + math.log(2) - 1)
    with pytest.raises(ValueError, match="unknown KL estimator"):
        kl_estimator(logprobs, ref, "k4")


# ---------------------------------------------------------------------------------------------------
# sequences: two tokens, each from 3 options; the second token's distribution depends on the first


def two_token_policy():
    generator = torch.Generator().manual_seed(0)
    first = torch.randn(3, generator=generator, dtype=torch.float64).requires_grad_(True)
    second = torch.randn(3, 3, generator=generator, dtype=torch.float64).requires_grad_(True)
    ref_first = torch.log_softmax(torch.randn(3, generator=generator, dtype=torch.float64), 0)
    ref_second = torch.log_softmax(torch.randn(3, 3, generator=generator, dtype=torch.float64), -1)
    return first, second, ref_first, ref_second


def sequences(first, second, ref_first, ref_second):
    """Every (a, b) with its token log-probs [1, 2] under pi and under ref."""
    lp_first, lp_second = torch.log_softmax(first, 0), torch.log_softmax(second, -1)
    for a in range(3):
        for b in range(3):
            yield (torch.stack([lp_first[a], lp_second[a, b]])[None],
                   torch.stack([ref_first[a], ref_second[a, b]])[None])


def sequence_kl_gradient():
    first, second, *refs = two_token_policy()
    kl = sum(lp.sum().exp() * (lp.sum() - ref.sum()) for lp, ref in sequences(first, second, *refs))
    return torch.autograd.grad(kl, (first, second))


def test_k1_in_the_reward_gives_the_exact_sequence_kl_gradient():
    # The coderl pipeline: reward = 0 - beta * sum_t k1_t (detached), reinforce advantage, pg loss with
    # token_sum = -A * log pi(sequence).  Its expectation's gradient is E[(sum_t k1_t) grad log pi(seq)]
    # = grad KL(pi || ref) over whole sequences.
    first, second, *refs = two_token_policy()
    mask = torch.ones(1, 2)
    expected_loss = 0.0
    for logprobs, ref_logprobs in sequences(first, second, *refs):
        kl = kl_estimator(logprobs, ref_logprobs, "k1")
        rewards = kl_penalty_reward(torch.zeros(1, 2, dtype=torch.float64), kl, beta=1.0)
        advantages, _ = ADVANTAGES["reinforce"](rewards, torch.tensor([0]), mask)
        loss, _ = POLICY_LOSSES["pg"](logprobs, logprobs.detach(), advantages, mask, aggregation="token_sum")
        expected_loss = expected_loss + logprobs.sum().exp().detach() * loss
    gradient = torch.autograd.grad(expected_loss, (first, second))
    for got, want in zip(gradient, sequence_kl_gradient()):
        torch.testing.assert_close(got, want, atol=1e-6, rtol=0)


def test_per_token_k2_loss_is_not_the_sequence_kl_gradient():
    # sum_t k2_t as a loss gives E[sum_t d_t grad log pi_t]; the sequence KL's gradient also has the
    # cross terms E[d_2 grad log pi_1] (the first token changes which second-token KL is paid).
    first, second, *refs = two_token_policy()
    mask = torch.ones(1, 2)
    expected_loss = sum(lp.sum().exp().detach() * kl_loss(lp, ref, mask, "k2", "token_sum")
                        for lp, ref in sequences(first, second, *refs))
    gradient = torch.autograd.grad(expected_loss, (first, second))
    want = sequence_kl_gradient()
    assert (gradient[0] - want[0]).abs().max() > 1e-2      # first-token gradient misses the future KL
    torch.testing.assert_close(gradient[1], want[1], atol=1e-6, rtol=0)  # the last token has no future


# ---------------------------------------------------------------------------------------------------
# helpers


def test_kl_loss_refuses_k1():
    with pytest.raises(ValueError, match="k1 cannot be a KL loss"):
        kl_loss(torch.zeros(1, 1), torch.zeros(1, 1), torch.ones(1, 1), "k1", "token_mean")


def test_kl_loss_is_the_aggregated_estimate_and_leaves_ref_alone():
    logprobs = torch.tensor([[math.log(0.5), math.log(0.5)], [math.log(0.25), 0.0]], requires_grad=True)
    ref = torch.tensor([[math.log(0.25), math.log(0.5)], [math.log(0.5), 3.0]], requires_grad=True)
    mask = torch.tensor([[1.0, 1.0], [1.0, 0.0]])
    loss = kl_loss(logprobs, ref, mask, "k3", "token_mean")
    # k3 per valid token: ref/pi = 0.5 -> 0.5 + log 2 - 1 = 0.193147; 1 -> 0; 2 -> 2 - log 2 - 1 = 0.306853
    # token_mean over 3: (0.193147 + 0 + 0.306853) / 3 = 0.5 / 3
    assert loss.item() == pytest.approx(0.5 / 3)
    assert loss.item() == pytest.approx(aggregate(kl_estimator(logprobs, ref, "k3"), mask, "token_mean").item())
    loss.backward()
    assert ref.grad is None


def test_kl_penalty_reward_by_hand():
    rewards = torch.tensor([[0.0, 0.0, 1.0]])
    kl = torch.tensor([[0.1, 0.2, 0.3]], requires_grad=True)
    # r - beta * kl with beta 0.5: [0 - 0.05, 0 - 0.1, 1 - 0.15]
    out = kl_penalty_reward(rewards, kl, beta=0.5)
    torch.testing.assert_close(out, torch.tensor([[-0.05, -0.1, 0.85]]))
    assert not out.requires_grad
    # with a mask, padding pays no penalty
    masked = kl_penalty_reward(rewards, kl, beta=0.5, mask=torch.tensor([[1, 1, 0]]))
    torch.testing.assert_close(masked, torch.tensor([[-0.05, -0.1, 1.0]]))
