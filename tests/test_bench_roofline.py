"""bench/roofline.py's arithmetic against hand-computed values (issue 101)."""

from __future__ import annotations

import importlib.util
import os
import sys

import pytest

_SPEC = importlib.util.spec_from_file_location(
    "bench_roofline", os.path.join(os.path.dirname(os.path.dirname(__file__)), "bench", "roofline.py"))
roofline = importlib.util.module_from_spec(_SPEC)
sys.modules[_SPEC.name] = roofline  # dataclasses look their module up by name
_SPEC.loader.exec_module(roofline)

# hidden 4, MLP 8, one layer, 2 heads of 2 sharing 1 KV head, vocabulary 10, LoRA rank 1 on q/k/v/o
TINY = roofline.Shape(hidden=4, intermediate=8, layers=1, heads=2, kv_heads=1, head_dim=2, vocab=10, lora_r=1)


def test_weights_by_hand():
    # q 4x4 + k 4x2 + v 4x2 + o 4x4 + gate 4x8 + up 4x8 + down 8x4 = 16 + 8 + 8 + 16 + 32 + 32 + 32
    assert TINY.layer_weights() == 144
    # LoRA r 1: q 4+4, k 4+2, v 4+2, o 4+4
    assert TINY.lora_weights() == 28
    assert TINY.head_weights() == 40


def test_a_decoding_step_by_hand():
    cost = roofline.decode_step(TINY, rows=3, context=5, elem=4)
    # matmuls: 2 x 3 tokens x (144 + 28) + 2 x 3 logits x 40 = 1032 + 240; attention: 4 x 2 heads x 2 x 1 layer
    # x 3 rows x (5 cached + itself) = 288
    assert cost.flops == 1032 + 240 + 288
    # weights (144 + 28 + 40) x 4 bytes, the cache 3 rows x 1 layer x (K, V) x 1 head x 2 x 5 tokens x 4 bytes
    assert cost.bytes == 212 * 4 + 3 * 2 * 2 * 5 * 4
    assert cost.bound(peak_flops=1000.0, peak_bytes=100.0) == (pytest.approx(10.88), "memory")
    assert cost.bound(peak_flops=100.0, peak_bytes=1e6) == (pytest.approx(15.6), "compute")


def test_an_update_by_hand():
    fwd, bwd = roofline.update(TINY, prompts=1, rows=2, prompt_width=2, width=3, elem=2)
    # the prompt once: 2 tokens, 2 x 2 x 172 = 688, no logits, causal pairs 1 + 2 = 3, attention 16 x 3 = 48;
    # two completions of 3 on its 2 cached tokens: 2 x 6 x 172 + 2 x 2 x 3 x 40 = 2064 + 480, pairs 3 + 4 + 5 = 12
    # a row, attention 16 x 2 x 12 = 384
    assert fwd.flops == 688 + 48 + 2064 + 480 + 384
    # the weights read by each pass, 212 x 2 bytes, and the completions read the prompt's cache: 2 rows x (K, V)
    # x 1 head x 2 x 2 tokens x 2 bytes
    assert fwd.bytes == 2 * 212 * 2 + 2 * 2 * 2 * 2 * 2
    # the inputs' gradients: the forward's FLOPs and attention once more; LoRA's weight gradients 2 x 8 x 28
    assert bwd.flops == fwd.flops + (48 + 384) + 2 * 8 * 28 and bwd.bytes == fwd.bytes


def test_the_bundled_models_decoding_step_is_the_issues_arithmetic():
    """SmolLM2-135M's shape (its config's numbers, no download): 32 rows a step is ~8.6 GFLOP and one read of
    ~538 MB of float32 weights, as issue 101 computes."""
    from transformers import LlamaConfig

    config = LlamaConfig(hidden_size=576, intermediate_size=1536, num_hidden_layers=30, num_attention_heads=9,
                         num_key_value_heads=3, vocab_size=49152)
    shape = roofline.Shape.of(config)
    assert shape.layer_weights() == 106_168_320 and shape.head_weights() == 28_311_552
    cost = roofline.decode_step(shape, rows=32, context=0, elem=4)
    assert cost.flops == 2 * 32 * (106_168_320 + 28_311_552) + 4 * 9 * 64 * 30 * 32
    assert cost.bytes == 4 * (106_168_320 + 28_311_552)
    # 100 tokens cached: each row reads 30 layers x (K, V) x 3 heads x 64 x 100 float32 values
    later = roofline.decode_step(shape, rows=32, context=100, elem=4)
    assert later.bytes - cost.bytes == 32 * 30 * 2 * 3 * 64 * 100 * 4
    assert later.flops - cost.flops == 4 * 9 * 64 * 30 * 32 * 100


def test_share_and_cpu_flags(tmp_path):
    assert roofline.share(measured=2.0, bound=0.5) == 0.25
    info = tmp_path / "cpuinfo"
    info.write_text("processor : 0\nmodel name : Some CPU @ 2.5GHz\nflags : fpu avx2 fma avx512f avx512_bf16\n")
    assert roofline.cpu_name_and_flags(str(info)) == ("Some CPU @ 2.5GHz", ["avx2", "fma", "avx512f", "avx512_bf16"])
