"""--gradient-checkpointing: every decoder layer is recomputed in backward, in eval mode too (the RL loops
differentiate in eval mode), with the gradients of the plain path and less kept for backward; a graph
never meets the shared-prompt KV cache; RL and SFT runs train with it."""

import json

import pytest

torch = pytest.importorskip("torch")

from coderl.base.config import ConfigError, build  # noqa: E402
from coderl.rollout.generation import generate  # noqa: E402
from coderl.tasks import load_tasks  # noqa: E402
from coderl.train.activation_checkpointing import checkpointable_layers, enable, is_checkpointed  # noqa: E402
from coderl.train.logprobs import build_sequences, token_logprobs  # noqa: E402
from coderl.train.policy import checkpoint_layers  # noqa: E402
from tests.models.tiny import tiny_llama  # noqa: E402
from tests.train.helpers import TASKS, base_config, lora_over, varied_reward  # noqa: E402


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory):
    return tiny_llama(tmp_path_factory.mktemp("model"))


def saved_bytes(fn) -> int:
    """Bytes of the tensors autograd keeps for backward while `fn()` builds its graph."""
    total = []

    def pack(t):
        total.append(t.numel() * t.element_size())
        return t

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        out = fn()
    return sum(total), out


def test_checkpointed_layers_recompute_in_eval_mode_with_the_same_gradients(model_dir):
    model, tok = lora_over(model_dir)
    batch = generate(model, tok, load_tasks(TASKS).tasks[:2], format="completion", samples_per_prompt=2,
                     max_new_tokens=6, temperature=1.0, seed=1, stop=[])
    seqs = build_sequences(batch)
    model.eval()  # as the RL loops: dropout off; transformers' own checkpointing would not run here

    def grads():
        model.zero_grad(set_to_none=True)
        kept, logprobs = saved_bytes(lambda: token_logprobs(model, seqs, 0.8, shared_prompt=False))
        logprobs.sum().backward()
        return kept, logprobs.detach(), {n: p.grad.clone() for n, p in model.named_parameters() if p.requires_grad}

    plain_kept, plain_lp, plain_grads = grads()
    layers = checkpointable_layers(model)
    assert enable(model) == len(layers) == 2 and is_checkpointed(model)
    calls = []
    hooks = [layer.mlp.register_forward_pre_hook(lambda *a: calls.append(1)) for layer in layers]  # inside forward
    kept, lp, got = grads()
    for h in hooks:
        h.remove()
    assert len(calls) == 2 * len(layers)  # each layer ran forward, then again in backward
    assert kept < plain_kept  # only the layers' inputs are kept, not their attention and MLP activations
    torch.testing.assert_close(lp, plain_lp, atol=0, rtol=0)
    for name, g in plain_grads.items():
        torch.testing.assert_close(got[name], g, atol=1e-6, rtol=1e-5, msg=lambda m, n=name: f"{n}: {m}")
    with torch.no_grad():  # no graph: the layers run as they are, the shared-prompt cache included
        shared = token_logprobs(model, seqs, 0.8, shared_prompt=True)
    torch.testing.assert_close(shared, plain_lp, atol=1e-5, rtol=1e-5)
    assert enable(model) == 2  # enabling twice wraps nothing twice


def test_a_graph_never_uses_the_shared_prompt_cache_of_a_checkpointed_model(model_dir):
    """A checkpointed layer writing the cache would write it again in the backward replay: with a graph,
    log-probs take the plain forward (the same values as the plain forward of the unwrapped model)."""
    model, tok = lora_over(model_dir)
    batch = generate(model, tok, load_tasks(TASKS).tasks[:1], format="completion", samples_per_prompt=3,
                     max_new_tokens=5, temperature=1.0, seed=2, stop=[])
    seqs = build_sequences(batch)
    model.eval()
    with torch.no_grad():
        want = token_logprobs(model, seqs, 1.0, shared_prompt=False)
    enable(model)
    got = token_logprobs(model, seqs, 1.0, shared_prompt=True)
    assert got.requires_grad
    torch.testing.assert_close(got.detach(), want, atol=1e-6, rtol=1e-5)


def test_a_model_without_checkpointable_layers_is_one_line():
    with pytest.raises(ConfigError, match=r"^--gradient-checkpointing: Linear has no decoder layers"):
        checkpoint_layers(torch.nn.Linear(2, 2))


def test_rl_and_sft_runs_train_with_gradient_checkpointing(model_dir, tmp_path):
    from coderl.train.rl.policy_gradient import train
    from coderl.train.sft.config import SFTConfig
    from coderl.train.sft.run import sft

    runs = {}
    for on in (False, True):
        cfg = base_config(model_dir, tmp_path / f"rl-{on}", steps=1, gradient_checkpointing=on, kl_beta=0.05)
        train(cfg, log=lambda line: None, reward_override=varied_reward)
        runs[on] = [json.loads(line) for line in open(tmp_path / f"rl-{on}" / "metrics.jsonl")]
    assert runs[True][0]["loss/total"] == pytest.approx(runs[False][0]["loss/total"], abs=1e-6)
    assert runs[True][0]["train/grad_norm"] == pytest.approx(runs[False][0]["train/grad_norm"], rel=1e-4)
    losses = {}
    for on in (False, True):
        cfg = build(SFTConfig, dict(out=str(tmp_path / f"sft-{on}"), model=str(model_dir), data=TASKS, split="all",
                                    format="completion", progress=False, device="cpu", learning_rate=1e-2,
                                    max_length=256, gradient_checkpointing=on, lora_dropout=0.1))
        sft(cfg, log=lambda line: None)
        losses[on] = [json.loads(line)["sft/loss"] for line in open(tmp_path / f"sft-{on}" / "metrics.jsonl")]
    assert losses[True] == pytest.approx(losses[False], abs=1e-5)  # dropout's masks replayed, not redrawn


def test_a_forward_that_asks_for_a_cache_replays_cleanly(model_dir):
    """SFT-style forwards leave use_cache to the config (True for Llama): a checkpointed layer must not
    write the cache, or the backward replay appends its keys a second time."""
    model, _ = lora_over(model_dir)
    model.eval()
    ids = torch.tensor([[5, 6, 7, 8, 9, 10]])
    want = model(input_ids=ids, use_cache=False).logits.detach()
    enable(model)
    out = model(input_ids=ids, use_cache=True)
    torch.testing.assert_close(out.logits.detach(), want, atol=1e-6, rtol=1e-5)
    out.logits.float().pow(2).sum().backward()
    assert any(p.grad is not None and p.grad.abs().max() > 0 for p in model.parameters() if p.requires_grad)
