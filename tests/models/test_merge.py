"""LoRA merged into the base weights out of place (`models/merge.py`): the merged folder loads as a plain model
whose logits are the peft model's, and the trained model is left untouched."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")


def _trained_lora(dtype):
    from peft import get_peft_model

    from coderl.models.lora import lora_config
    from tests.models.tiny import tiny_model

    model, tok = tiny_model(seed=0, tie=True)
    model = model.to(dtype)
    peft = get_peft_model(model, lora_config(4, 8, 0.0, ["q_proj", "v_proj", "o_proj", "up_proj"]))
    torch.manual_seed(1)
    with torch.no_grad():
        for name, p in peft.named_parameters():
            if "lora_" in name:
                p.normal_(0, 0.2)  # far from the base: B is not zero
    return peft.eval(), tok


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_the_merged_folder_gives_the_peft_models_logits_and_leaves_it_untouched(tmp_path, dtype):
    from transformers import AutoModelForCausalLM

    from coderl.models.merge import merged_state_dict, save_merged

    peft, tok = _trained_lora(dtype)
    before = {k: v.clone() for k, v in peft.state_dict().items()}
    ids = torch.tensor([tok.encode("def add(a, b):\n    return a + b\n")])
    with torch.no_grad():
        want = peft(ids).logits.float()
    state = merged_state_dict(peft)
    assert not any("lora" in k or "base_layer" in k for k in state)
    assert "lm_head.weight" not in state and "model.embed_tokens.weight" in state  # tied: written once
    save_merged(peft, tmp_path / "merged")
    merged = AutoModelForCausalLM.from_pretrained(tmp_path / "merged", dtype=dtype).eval()
    assert merged.lm_head.weight.data_ptr() == merged.model.embed_tokens.weight.data_ptr()  # tied again
    with torch.no_grad():
        got = merged(ids).logits.float()
        with peft.disable_adapter():
            base = peft(ids).logits.float()
    error, adapter = (got - want).abs().max().item(), (base - want).abs().max().item()
    # float32: equal up to summation order; bf16: one rounding of each merged weight, far below what the
    # adapter changes (so a missed or doubled merge would show)
    assert error < (1e-4 if dtype == torch.float32 else adapter / 8), (error, adapter)
    assert adapter > 0.5, adapter
    assert all(torch.equal(v, before[k]) for k, v in peft.state_dict().items())  # nothing merged in place
