"""The memory table of docs/scaling.md: what one rank holds for LoRA (or QLoRA) RL under DDP, and under FSDP
over N ranks, by formula.

    python scripts/memory_table.py            # prints the markdown table

Per rank (every rank holds all of it under DDP), in GB (1e9 bytes):
  weights     P x 2 bytes (bfloat16); QLoRA: the linear layers' weights in NF4 at ~0.55 bytes/param
              (4 bits + block constants), embeddings and lm_head stay bfloat16
  lora+adam   LoRA on q/k/v/o: r x L x (6H + 2 x kv_heads x head_dim) params, x 16 bytes (fp32 weight,
              gradient, AdamW's two moments); the reference policy is the base with the adapter off: 0
  kv cache    generation: 2 (K and V) x L x kv_heads x head_dim x 2 bytes x rows x sequence tokens
  activations one training forward+backward of `micro` rows: rows x tokens x L x H x 34 bytes (Korthikanti
              et al. 2022, 16-bit, no recomputation; the attention-score term is gone with SDPA/flash
              attention) + rows x new tokens x vocab x 10 bytes (bf16 logits, their fp32 log-softmax and
              its gradient: only completion positions are kept)
  FSDP (N ranks, bf16): weights / N + the root group whole (embeddings, lm_head: gathered by the first forward
              and kept so until backward ends, so through all of generation) + 2 decoder layers gathered (the
              one running and the one prefetched) + LoRA and AdamW / N + the larger of KV cache and activations
              (a rank's rows per generate call and per micro-batch are the config's, as under DDP)
Not counted: the CUDA context (~0.5 GB), allocator fragmentation, the sandbox (CPU RAM).
Architectures from the models' published config.json.
"""

from __future__ import annotations

# name: (params, layers, hidden, kv_heads, head_dim, vocab, tied embeddings)
MODELS = {
    "SmolLM2-135M-Instruct": (0.135e9, 30, 576, 3, 64, 49152, True),
    "Qwen2.5-Coder-1.5B-Instruct": (1.54e9, 28, 1536, 2, 128, 151936, True),
    "deepseek-coder-7b-instruct-v1.5": (6.91e9, 30, 4096, 32, 128, 102400, False),
    "Qwen2.5-Coder-7B-Instruct": (7.62e9, 28, 3584, 4, 128, 152064, False),
    "Qwen2.5-14B (seed 004)": (14.7e9, 48, 5120, 8, 128, 152064, False),
    "Qwen2.5-32B (seed 004)": (32.5e9, 64, 5120, 8, 128, 152064, False),
}

# (config, model, lora r, generation rows, sequence tokens, new tokens, rows per micro-batch, FSDP ranks or None)
SCENARIOS = [
    ("configs/cpu-demo.yaml (CPU, ~256-token prompts)", "SmolLM2-135M-Instruct", 8, 32, 384, 128, 32, None),
    ("seed002-grpo-2gpu", "Qwen2.5-Coder-1.5B-Instruct", 8, 64, 2048, 1024, 2, 2),
    ("seed003-ppo-7b-lora", "deepseek-coder-7b-instruct-v1.5", 16, 32, 1536, 512, 8, 2),
    ("seed002-grpo-8gpu", "Qwen2.5-Coder-7B-Instruct", 8, 64, 4096, 1024, 4, 8),
    ("seed004-grpo-zero3, 14B", "Qwen2.5-14B (seed 004)", 8, 56, 2048, 1024, 1, 7),
    ("seed004-grpo-zero3, 32B", "Qwen2.5-32B (seed 004)", 8, 56, 2048, 1024, 1, 7),
]


def memory(model: str, r: int, gen_rows: int, tokens: int, new_tokens: int, micro: int) -> dict[str, float]:
    params, layers, hidden, kv, head_dim, vocab, tied = MODELS[model]
    embeddings = vocab * hidden * (1 if tied else 2)
    lora = r * layers * (6 * hidden + 2 * kv * head_dim)
    gb = 1e9
    return {
        "weights": params * 2 / gb,
        "root": embeddings * 2 / gb,  # bf16
        "layer": (params - embeddings) / layers * 2 / gb,
        "weights_4bit": ((params - embeddings) * 0.55 + embeddings * 2) / gb,
        "lora_adam": lora * 16 / gb,
        "kv_cache": 2 * layers * kv * head_dim * 2 * gen_rows * tokens / gb,
        "activations": (micro * tokens * layers * hidden * 34 + micro * new_tokens * vocab * 10) / gb,
    }


def table() -> str:
    lines = ["| config | model | weights bf16 / 4-bit | LoRA + AdamW | KV cache (rows x tokens) | "
             "activations (micro-batch rows) | total bf16 / QLoRA | FSDP bf16 per rank (ranks) |",
             "|---|---|---|---|---|---|---|---|"]
    for name, model, r, gen_rows, tokens, new_tokens, micro, ranks in SCENARIOS:
        m = memory(model, r, gen_rows, tokens, new_tokens, micro)
        # generation and training do not overlap: the larger of KV cache and activations counts
        peak = max(m["kv_cache"], m["activations"])
        fsdp = (f"{m['weights'] / ranks + m['root'] + 2 * m['layer'] + m['lora_adam'] / ranks + peak:.1f} ({ranks})"
                if ranks else "-")
        lines.append(f"| {name} | {model} | {m['weights']:.1f} / {m['weights_4bit']:.1f} | {m['lora_adam']:.2f} | "
                     f"{m['kv_cache']:.1f} ({gen_rows} x {tokens}) | {m['activations']:.1f} ({micro}) | "
                     f"{m['weights'] + m['lora_adam'] + peak:.1f} / {m['weights_4bit'] + m['lora_adam'] + peak:.1f} | "
                     f"{fsdp} |")
    return "\n".join(lines)


if __name__ == "__main__":
    print(table())
