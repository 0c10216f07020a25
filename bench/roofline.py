"""The roofline of the demo's phases (issue 101): FLOPs and bytes from the shapes, this machine's measured peaks,
and the share of the bound a measured time reaches.  Used by `bench/demo_phases.py` (its `peak` phase and the
`gflop` / `mbytes` / `bound` / `share` figures of `decode` and `update`); the arithmetic is pure and tested by hand
(tests/test_bench_roofline.py).

What is counted (a decoder like Llama: attention with grouped KV heads, a gated MLP, an LM head):
- matmul FLOPs: 2 per multiply-add of every linear layer a token passes through, the LM head only where logits are
  taken, LoRA's two thin matrices on each adapted projection;
- attention FLOPs: 4 x heads x head_dim per (query, key) pair (scores and the weighted sum), causal pairs only;
- bytes: each weight read once per pass (a decoding step reads them all once for every row at once), the KV cache
  read once per decoding step; activations are not counted (they stay in cache at these sizes, or are the
  smaller term) -- so a memory-bound figure is a lower bound on the traffic;
- an update runs each distinct prompt once and the completions on its cache (`train/logprobs.py`'s shared
  prompts); its backward: the base weights are frozen, so it computes the inputs' gradients (the forward's
  matmul FLOPs again, and attention's twice) and LoRA's weight gradients; its bytes are the weights read again.
Elementwise work (norms, activations, softmax, sampling) is not counted: it is what a measured time spends beyond
the bound, with Python and dispatch per op.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Shape:
    hidden: int
    intermediate: int
    layers: int
    heads: int
    kv_heads: int
    head_dim: int
    vocab: int
    lora_r: int = 0
    lora_targets: tuple[str, ...] = ("q_proj", "k_proj", "v_proj", "o_proj")

    @classmethod
    def of(cls, config, lora_r: int = 0) -> Shape:
        """From a Hugging Face Llama-style config."""
        head_dim = getattr(config, "head_dim", None) or config.hidden_size // config.num_attention_heads
        return cls(config.hidden_size, config.intermediate_size, config.num_hidden_layers,
                   config.num_attention_heads, config.num_key_value_heads, head_dim, config.vocab_size, lora_r)

    def projections(self) -> dict[str, tuple[int, int]]:
        """(in, out) of each linear layer of one decoder layer."""
        h, kv = self.hidden, self.kv_heads * self.head_dim
        return {"q_proj": (h, self.heads * self.head_dim), "k_proj": (h, kv), "v_proj": (h, kv),
                "o_proj": (self.heads * self.head_dim, h), "gate_proj": (h, self.intermediate),
                "up_proj": (h, self.intermediate), "down_proj": (self.intermediate, h)}

    def layer_weights(self) -> int:
        """Weights of the decoder layers' linear layers (norms left out)."""
        return self.layers * sum(i * o for i, o in self.projections().values())

    def lora_weights(self) -> int:
        return self.layers * sum(self.lora_r * (i + o) for name, (i, o) in self.projections().items()
                                 if name in self.lora_targets)

    def head_weights(self) -> int:
        return self.hidden * self.vocab


@dataclass(frozen=True)
class Cost:
    flops: float
    bytes: float

    def __add__(self, other: Cost) -> Cost:
        return Cost(self.flops + other.flops, self.bytes + other.bytes)

    def bound(self, peak_flops: float, peak_bytes: float) -> tuple[float, str]:
        """(seconds at the machine's peaks, which binds: 'compute' or 'memory')."""
        compute, memory = self.flops / peak_flops, self.bytes / peak_bytes
        return (compute, "compute") if compute >= memory else (memory, "memory")


def _attention_pairs(new: int, before: int) -> float:
    """(query, key) pairs of `new` tokens that follow `before` tokens, causally: each sees those before it and
    itself."""
    return new * before + new * (new + 1) / 2


def forward(shape: Shape, rows: int, new: int, before: int, logits: int, elem: int) -> Cost:
    """One forward pass of `rows` rows, each `new` tokens after `before` cached ones, logits at `logits` positions
    a row; weights of `elem` bytes read once; the KV cache of `before` tokens read once."""
    tokens = rows * new
    matmul = 2 * tokens * (shape.layer_weights() + shape.lora_weights()) + 2 * rows * logits * shape.head_weights()
    attention = 4 * shape.heads * shape.head_dim * shape.layers * rows * _attention_pairs(new, before)
    weights = (shape.layer_weights() + shape.lora_weights() + shape.head_weights()) * elem
    cache = rows * shape.layers * 2 * shape.kv_heads * shape.head_dim * before * elem
    return Cost(matmul + attention, weights + cache)


def decode_step(shape: Shape, rows: int, context: int, elem: int) -> Cost:
    """One decoding step: one new token a row after `context` cached ones, logits for it."""
    return forward(shape, rows, 1, context, 1, elem)


def update(shape: Shape, prompts: int, rows: int, prompt_width: int, width: int, elem: int) -> tuple[Cost, Cost]:
    """(forward, backward) of a LoRA update as `train/logprobs.py` runs it with shared prompts: each of `prompts`
    distinct prompts of `prompt_width` tokens once, then `rows` completions of `width` tokens on top of their
    prompt's cache, logits at every completion position.  The backward computes the inputs' gradients through
    frozen weights (the forward's matmuls again, attention's twice) and LoRA's weight gradients; it reads the
    weights again."""
    fwd = forward(shape, prompts, prompt_width, 0, 0, elem) + forward(shape, rows, width, prompt_width, width, elem)
    pairs = prompts * _attention_pairs(prompt_width, 0) + rows * _attention_pairs(width, prompt_width)
    attention = 4 * shape.heads * shape.head_dim * shape.layers * pairs
    tokens = prompts * prompt_width + rows * width
    return fwd, Cost(fwd.flops + attention + 2 * tokens * shape.lora_weights(), fwd.bytes)


def share(measured: float, bound: float) -> float:
    """The share of the bound a measured time reaches (1.0: at the machine's limit)."""
    return bound / measured if measured > 0 else 0.0


def cpu_name_and_flags(path: str = "/proc/cpuinfo") -> tuple[str, list[str]]:
    """The CPU's model name and the flags that decide the matmul paths (AVX2, AVX-512, its BF16, AMX)."""
    name, flags = "unknown CPU", []
    try:
        with open(path) as f:
            for line in f:
                key, _, value = line.partition(":")
                if key.strip() == "model name" and name == "unknown CPU":
                    name = value.strip()
                elif key.strip() == "flags" and not flags:
                    flags = value.split()
    except OSError:
        pass
    wanted = ("avx2", "fma", "avx512f", "avx512_bf16", "avx512_vnni", "amx_tile", "amx_bf16")
    return name, [f for f in wanted if f in flags]


def measure_peaks(dtype_names: tuple[str, ...] = ("float32", "bfloat16"), n: int = 2048, repeat: int = 5) -> dict:
    """This machine's GEMM rate (`n` x `n` matmuls, every torch thread, the best of `repeat`) per dtype, in
    FLOP/s, and its read bandwidth (a sum over 256 MiB of float32, best of `repeat`), in bytes/s."""
    import time

    import torch

    out = {}
    for name in dtype_names:
        dtype = getattr(torch, name)
        a, b = torch.randn(n, n).to(dtype), torch.randn(n, n).to(dtype)
        torch.mm(a, b)
        best = min(_timed(lambda: torch.mm(a, b), time) for _ in range(repeat))
        out[f"gemm_{name}"] = 2 * n ** 3 / best
    x = torch.ones(64 << 20)
    x.sum()
    best = min(_timed(x.sum, time) for _ in range(repeat))
    out["read_bytes"] = x.numel() * 4 / best
    return out


def _timed(fn, time) -> float:
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0
