"""Tiny models built offline for tests (other test packages import these too).

* `tiny_tokenizer()`: a byte-level BPE (~300 tokens) trained on a few strings, with SmolLM2's special
  tokens (`<|endoftext|>` 0, `<|im_start|>` 1, `<|im_end|>` 2) and ChatML chat template.
* `tiny_llama(tmp_path)`: a random `LlamaForCausalLM` (hidden 32, 2 layers) + that tokenizer saved as a
  Hugging Face folder; returns its path.
* `tiny_gguf(tmp_path)`: the same kind of model written as a llama GGUF with `gguf.GGUFWriter` (q/k
  permuted like llama.cpp's converter, tokenizer section included); returns the .gguf path.
"""

from __future__ import annotations

from pathlib import Path

SPECIALS = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]
CHATML = (
    "{% for message in messages %}"
    "{{ '<|im_start|>' + message['role'] + '\n' + message['content'] + '<|im_end|>' + '\n' }}"
    "{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|im_start|>assistant\n' }}{% endif %}"
)
_CORPUS = [
    "def add(a, b):\n    return a + b\n",
    "def square(x):\n    \"\"\"Return x * x.\"\"\"\n    return x * x\n",
    "for i in range(10):\n    print(i)\n",
    "Write a Python function that returns the sum of a list.",
    "import math\nclass Point:\n    def __init__(self, x, y):\n        self.x = x\n        self.y = y\n",
]


def tiny_tokenizer(*, pad: bool = True, chat_template: bool = True):
    """A small byte-level BPE wrapped in `PreTrainedTokenizerFast` (pad = eos unless pad=False)."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    bpe = Tokenizer(models.BPE())
    bpe.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    bpe.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=320, special_tokens=SPECIALS, show_progress=False,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    bpe.train_from_iterator(_CORPUS * 4, trainer=trainer)
    kwargs = {"bos_token": "<|im_start|>", "eos_token": "<|im_end|>", "unk_token": "<|endoftext|>"}
    if pad:
        kwargs["pad_token"] = "<|im_end|>"
    tok = PreTrainedTokenizerFast(tokenizer_object=bpe, **kwargs)
    if chat_template:
        tok.chat_template = CHATML
    return tok


def tiny_config(vocab_size: int, *, tie: bool = True):
    from transformers import LlamaConfig

    return LlamaConfig(
        vocab_size=vocab_size, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
        num_attention_heads=4, num_key_value_heads=2, head_dim=8, max_position_embeddings=128,
        rms_norm_eps=1e-5, rope_theta=10000.0, tie_word_embeddings=tie,
        bos_token_id=1, eos_token_id=2, pad_token_id=2,
    )


def tiny_model(*, seed: int = 0, tie: bool = True, tokenizer=None):
    """(random LlamaForCausalLM, tokenizer) in memory."""
    import torch
    from transformers import LlamaForCausalLM

    tok = tokenizer or tiny_tokenizer()
    torch.manual_seed(seed)
    model = LlamaForCausalLM(tiny_config(len(tok), tie=tie)).eval()
    return model, tok


def tiny_llama(tmp_path, *, name: str = "tiny-llama", seed: int = 0, tie: bool = True, pad: bool = True) -> Path:
    """Save a tiny random llama + tokenizer as a Hugging Face folder `tmp_path/name`; return its path."""
    model, tok = tiny_model(seed=seed, tie=tie, tokenizer=tiny_tokenizer(pad=pad))
    out = Path(tmp_path) / name
    model.save_pretrained(out)
    tok.save_pretrained(out)
    return out


def _permute(w, n_head: int):
    """llama.cpp's q/k permutation (convert_hf_to_gguf.py), which transformers undoes on load."""
    return (w.reshape(n_head, 2, w.shape[0] // n_head // 2, *w.shape[1:])
            .swapaxes(1, 2).reshape(w.shape))


def write_gguf(model, tok, path, *, name: str = "tiny llama", pre: str = "default",
               chat_template: str | None = CHATML) -> Path:
    """Write an in-memory LlamaForCausalLM + byte-level BPE tokenizer as a llama-architecture GGUF (F32)."""
    import gguf
    import numpy as np

    cfg = model.config
    path = Path(path)
    w = gguf.GGUFWriter(str(path), arch="llama")
    w.add_name(name)
    w.add_context_length(cfg.max_position_embeddings)
    w.add_embedding_length(cfg.hidden_size)
    w.add_block_count(cfg.num_hidden_layers)
    w.add_feed_forward_length(cfg.intermediate_size)
    w.add_head_count(cfg.num_attention_heads)
    w.add_head_count_kv(cfg.num_key_value_heads)
    w.add_rope_dimension_count(cfg.hidden_size // cfg.num_attention_heads)
    w.add_rope_freq_base(float(cfg.rope_parameters["rope_theta"]))
    w.add_layer_norm_rms_eps(cfg.rms_norm_eps)
    w.add_vocab_size(cfg.vocab_size)
    w.add_file_type(gguf.LlamaFileType.ALL_F32)

    vocab = tok.get_vocab()
    tokens = [t for t, _ in sorted(vocab.items(), key=lambda kv: kv[1])]
    assert len(tokens) == cfg.vocab_size and [vocab[t] for t in tokens] == list(range(len(tokens)))
    import json

    merges = json.loads(tok.backend_tokenizer.to_str())["model"]["merges"]
    merges = [m if isinstance(m, str) else " ".join(m) for m in merges]
    special = set(SPECIALS)
    w.add_tokenizer_model("gpt2")
    w.add_tokenizer_pre(pre)
    w.add_token_list(tokens)
    w.add_token_types([gguf.TokenType.CONTROL if t in special else gguf.TokenType.NORMAL for t in tokens])
    w.add_token_merges(merges)
    w.add_bos_token_id(vocab["<|im_start|>"])
    w.add_eos_token_id(vocab["<|im_end|>"])
    w.add_unk_token_id(vocab["<|endoftext|>"])
    w.add_pad_token_id(vocab["<|im_end|>"])
    w.add_add_bos_token(False)
    if chat_template:
        w.add_chat_template(chat_template)

    sd = {k: v.detach().float().numpy() for k, v in model.state_dict().items()}
    nh, nkv = cfg.num_attention_heads, cfg.num_key_value_heads
    w.add_tensor("token_embd.weight", sd["model.embed_tokens.weight"])
    for i in range(cfg.num_hidden_layers):
        p = f"model.layers.{i}."
        names = {
            "attn_norm": p + "input_layernorm.weight",
            "attn_q": p + "self_attn.q_proj.weight",
            "attn_k": p + "self_attn.k_proj.weight",
            "attn_v": p + "self_attn.v_proj.weight",
            "attn_output": p + "self_attn.o_proj.weight",
            "ffn_norm": p + "post_attention_layernorm.weight",
            "ffn_gate": p + "mlp.gate_proj.weight",
            "ffn_up": p + "mlp.up_proj.weight",
            "ffn_down": p + "mlp.down_proj.weight",
        }
        for g, h in names.items():
            t = sd[h]
            if g == "attn_q":
                t = _permute(t, nh)
            elif g == "attn_k":
                t = _permute(t, nkv)
            w.add_tensor(f"blk.{i}.{g}.weight", np.ascontiguousarray(t))
    w.add_tensor("output_norm.weight", sd["model.norm.weight"])
    if not cfg.tie_word_embeddings:
        w.add_tensor("output.weight", sd["lm_head.weight"])
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    return path


def tiny_gguf(tmp_path, *, name: str = "tiny.gguf", seed: int = 0, tie: bool = True, **kwargs) -> Path:
    """Write a tiny llama GGUF at `tmp_path/name`; return its path (the model: `tiny_model(seed=seed)`)."""
    model, tok = tiny_model(seed=seed, tie=tie)
    return write_gguf(model, tok, Path(tmp_path) / name, **kwargs)
