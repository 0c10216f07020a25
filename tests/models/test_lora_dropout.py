"""LoRA dropout drawn from integers (`models/lora_dropout.py`): nn.Dropout's function, on every LoRA layer."""

from __future__ import annotations

import math

import pytest
import torch

from coderl.models.lora_dropout import IntegerMaskDropout, use_integer_masks


@pytest.mark.parametrize("p", [0.05, 0.3])
def test_each_element_is_dropped_with_probability_p_and_the_rest_scaled(p):
    torch.manual_seed(0)
    x = torch.rand(400, 2500) + 0.5  # no zero input: a zero output is a dropped element
    drop = IntegerMaskDropout(p).train()
    y = drop(x)
    dropped = y == 0
    assert torch.allclose(y[~dropped], x[~dropped] / (1 - p), rtol=1e-6)
    n = x.numel()
    assert abs(dropped.float().mean().item() - p) < 5 * math.sqrt(p * (1 - p) / n)  # 5 sigma of 1,000,000 draws
    # no structure along either axis: every row's and column's rate within 5 sigma of p
    for rates, size in ((dropped.float().mean(dim=1), x.shape[1]), (dropped.float().mean(dim=0), x.shape[0])):
        assert (rates - p).abs().max().item() < 5 * math.sqrt(p * (1 - p) / size)
    assert not torch.equal(drop(x) == 0, dropped)  # a new mask each call


def test_the_gradient_is_the_mask_scaled_and_eval_mode_is_the_identity():
    torch.manual_seed(1)
    x = (torch.rand(64, 48) + 0.5).requires_grad_()
    drop = IntegerMaskDropout(0.2).train()
    y = drop(x)
    y.sum().backward()
    assert torch.allclose(x.grad, (y != 0).float() / 0.8)
    drop.eval()
    assert drop(x) is x
    assert IntegerMaskDropout(0.0).train()(x) is x
    with pytest.raises(ValueError, match=r"dropout probability 1: expected a number in \[0, 1\)"):
        IntegerMaskDropout(1)


def test_every_lora_layer_gets_one_and_the_adapter_trains_and_evaluates_as_before():
    from peft import LoraConfig, get_peft_model

    from tests.models.tiny import tiny_model

    base, _ = tiny_model(seed=0, tie=True)
    model = get_peft_model(base, LoraConfig(r=4, lora_alpha=8, lora_dropout=0.1, target_modules=["q_proj", "v_proj"]))
    layers = [m for m in model.modules() if isinstance(getattr(m, "lora_dropout", None), torch.nn.ModuleDict)]
    ids = torch.randint(0, 100, (2, 12))
    model.eval()
    before = model(input_ids=ids).logits
    assert use_integer_masks(model) == len(layers) == 4
    assert all(type(m.lora_dropout["default"]) is IntegerMaskDropout and m.lora_dropout["default"].p == 0.1
               for m in layers)
    assert not any(type(m) is torch.nn.Dropout for m in model.modules() if m not in layers)
    assert torch.equal(model(input_ids=ids).logits, before)  # evaluation: dropout off, the same logits
    assert use_integer_masks(model) == 0  # nothing left to swap
    model.train()
    for m in layers:  # B is zero at start: make the adapter's branch (and so its dropout) show in the logits
        torch.nn.init.normal_(m.lora_B["default"].weight, std=0.5)
    assert not torch.equal(model(input_ids=ids).logits, model(input_ids=ids).logits)  # masks differ per call
    model(input_ids=ids).logits.sum().backward()
    assert all(m.lora_A["default"].weight.grad is not None for m in layers)


def test_no_dropout_means_nothing_swapped():
    from peft import LoraConfig, get_peft_model

    from tests.models.tiny import tiny_model

    base, _ = tiny_model(seed=0, tie=True)
    model = get_peft_model(base, LoraConfig(r=4, lora_alpha=8, lora_dropout=0.0, target_modules=["q_proj"]))
    assert use_integer_masks(model) == 0
