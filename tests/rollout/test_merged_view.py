"""rollout/merged_view.py: a LoRA policy decoding through merged copies of its weights gives the adapter's own
outputs (same greedy tokens, the same log-probs up to rounding), leaves the policy's weights and forward as they
were, follows the adapter's current factors on every entry, and leaves alone what it cannot merge."""

import torch
from peft import LoraConfig, get_peft_model

from coderl.rollout import generate
from coderl.rollout.hf_config import HFOptions
from coderl.rollout.merged_view import merged_lora
from tests.models.tiny import tiny_model
from tests.rollout.test_hf_generate import LONG, SHORT


def _policy(seed=0):
    model, tok = tiny_model()
    peft = get_peft_model(model, LoraConfig(r=4, lora_alpha=8, target_modules=["q_proj", "v_proj"],
                                            lora_dropout=0.1))
    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for name, p in peft.named_parameters():
            if "lora_B" in name:
                p.copy_(torch.randn(p.shape, generator=g) * 0.5)
    return peft, tok


def test_merged_decoding_is_the_adapters_and_leaves_the_policy_alone(monkeypatch):
    from coderl.rollout import hf

    peft, tok = _policy()
    before = {k: v.clone() for k, v in peft.state_dict().items()}
    kwargs = dict(samples_per_prompt=2, max_new_tokens=10, temperature=0.0, hf=HFOptions(batch_size=4))
    entered = []
    real = hf.merged_lora
    monkeypatch.setattr(hf, "merged_lora", lambda m, **k: entered.append(1) or real(m, **k))
    merged = generate(peft, tok, [SHORT, LONG], **kwargs)
    assert entered
    monkeypatch.setattr(hf, "merged_lora", lambda m, **k: __import__("contextlib").nullcontext())
    plain = generate(peft, tok, [SHORT, LONG], **kwargs)
    assert merged.completion_ids.tolist() == plain.completion_ids.tolist()
    torch.testing.assert_close(merged.logprobs, plain.logprobs, atol=1e-4, rtol=0)
    after = peft.state_dict()
    assert all(torch.equal(before[k], after[k]) for k in before)
    assert not any("forward" in vars(m) for m in peft.modules())  # the instance overrides are gone


def test_merged_view_follows_the_factors_and_skips_what_it_cannot_merge():
    peft, tok = _policy()
    peft.eval()
    ids = tok("def f(x):", return_tensors="pt")["input_ids"]
    with torch.no_grad():
        for step in range(2):  # an update between entries: the view is made from the current factors
            with merged_lora(peft) as n:
                assert n == 4  # q and v of the tiny model's 2 layers
                got = peft(ids).logits
            want = peft(ids).logits
            torch.testing.assert_close(got, want, atol=1e-5, rtol=1e-5)
            for name, p in peft.named_parameters():
                if "lora_A" in name:
                    p.add_(0.3)
        peft.train()  # adapter dropout would be skipped: left to peft
        with merged_lora(peft) as n:
            assert n == 0
        peft.eval()
        with peft.disable_adapter(), merged_lora(peft) as n:
            assert n == 0
        plain, _ = tiny_model()
        with merged_lora(plain) as n:
            assert n == 0


def test_in_bfloat16_on_a_cpu_every_linear_layer_runs_packed_and_gives_its_own_outputs():
    """oneDNN-packed copies (module docstring): every linear layer inside the view, the merged LoRA ones too,
    the logits those of the plain forward up to bfloat16 rounding, the same greedy tokens; nothing left after."""
    import pytest

    from coderl.rollout.merged_view import packs

    peft, tok = _policy()
    peft.to(torch.bfloat16).eval()
    if not packs(peft.get_output_embeddings().weight):
        pytest.skip("no oneDNN linear ops in this torch build")
    linears = [m for m in peft.modules() if type(m) is torch.nn.Linear]
    ids = tok(["def f(x):", "x = 1"], return_tensors="pt", padding=True)
    with torch.no_grad():
        want = peft(**ids).logits.float()
        with merged_lora(peft, rows=2) as n:
            overridden = [m for m in peft.modules() if "forward" in vars(m)]
            got = peft(**ids).logits.float()
    assert n == 4
    # the 4 merged LoRA layers, and every other linear layer but the LoRA layers' own base layers and factors
    # (the merged forward calls none of them): k, o and the MLP's 3 in each of 2 layers, the output projection
    lora_parts = {id(p) for m in overridden if hasattr(m, "lora_A")
                  for p in [m.base_layer, *m.lora_A.values(), *m.lora_B.values()]}
    assert len(overridden) == 4 + len([m for m in linears if id(m) not in lora_parts]) == 4 + 2 * 5 + 1
    torch.testing.assert_close(got, want, atol=0.1, rtol=0.02)
    assert (got.argmax(-1) == want.argmax(-1)).float().mean() > 0.9
    assert not any("forward" in vars(m) for m in peft.modules())


def test_a_cpu_whose_onednn_cannot_pack_bfloat16_keeps_the_plain_layers(monkeypatch):
    """An AVX2-only CPU: oneDNN raises at packing a bfloat16 weight (it needs AVX-512 or AVX-NE-CONVERT); the view
    then leaves every plain layer as it is and merges the LoRA ones onto `F.linear`, with the plain outputs."""
    from coderl.rollout import merged_view

    def refuses(weight, rows):
        raise RuntimeError("mkldnn_reorder_linear_weight: bf16 path needs the cpu support avx_ne_convert or avx512bw, "
                           "avx512vl and avx512dq")

    merged_view._cpu_packs_bfloat16.cache_clear()
    monkeypatch.setattr(torch.ops.mkldnn, "_reorder_linear_weight", refuses)
    try:
        peft, tok = _policy()
        peft.to(torch.bfloat16).eval()
        assert not merged_view.packs(peft.get_output_embeddings().weight)
        ids = tok(["def f(x):", "x = 1"], return_tensors="pt", padding=True)
        with torch.no_grad():
            want = peft(**ids).logits
            with merged_lora(peft, rows=2) as n:
                got = peft(**ids).logits
                plain = [m for m in peft.modules() if type(m) is torch.nn.Linear and "forward" in vars(m)]
        assert n == 4 and plain == []  # the LoRA layers merged; no plain layer packed
        torch.testing.assert_close(got.float(), want.float(), atol=0.1, rtol=0.02)
    finally:
        merged_view._cpu_packs_bfloat16.cache_clear()


def test_float32_layers_are_not_packed():
    plain, _ = tiny_model()
    with merged_lora(plain) as n:
        assert n == 0 and not any("forward" in vars(m) for m in plain.modules())
