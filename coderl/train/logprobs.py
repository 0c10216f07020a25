"""Token log-probs of a rollout's completions under a (policy or reference) model.

The sequence of row i is its prompt (left-padded) followed by its completion (right-padded), with
the attention mask and position ids laid out exactly as `generate` saw them (positions count only
real tokens), so on the policy that sampled them these log-probs equal the sampling log-probs
`log_softmax(raw_logits / T)` up to float error: the first PPO minibatch has ratio 1.

Only the logits that predict completion tokens are computed (`logits_to_keep`), and the
log-softmax is never materialised: log p = logit / T - logsumexp(logits / T).

Devices: the model may run on a GPU (`--device`); rollout batches, rewards and advantages live on the
CPU, and the per-token results come back there (a differentiable copy of [n, T] values), so the loss
math runs beside them and the backward pass crosses back to the model's device.

Shared prompts (`shared_prompt=True`, the default).  GRPO/RLOO batches hold `samples_per_prompt`
rows per prompt, and the prompt is usually most of each row's tokens.  When rows repeat a prompt,
each distinct prompt is run once (with grad: LoRA changes the prompt's keys and values), its KV
cache is gathered to the rows that share it (`Cache.reorder_cache`, differentiable), and only the
completions are run on top.  Same positions, same masks, same math: the log-probs equal the plain
forward's up to float rounding, and so do the gradients (tests/train/test_logprobs.py).  The
forward/backward work drops from N x (P + T) tokens to U x P + N x T (U distinct prompts).
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from coderl.algorithms.entropy import entropy_from_logits
from coderl.rollout.types import RolloutBatch


@dataclass
class Sequences:
    input_ids: torch.Tensor  # [N, P + T] long: left-padded prompt, then right-padded completion
    attention_mask: torch.Tensor  # [N, P + T] long: 1 on real prompt and completion tokens
    position_ids: torch.Tensor  # [N, P + T] long: index among real tokens (0 on padding)
    completion_ids: torch.Tensor  # [N, T] long
    mask: torch.Tensor  # [N, T] float32


def build_sequences(batch: RolloutBatch, rows: torch.Tensor | slice | None = None) -> Sequences:
    sel = slice(None) if rows is None else rows
    prompt_ids = batch.prompt_ids[sel]  # [n, P]
    completion_ids = batch.completion_ids[sel]  # [n, T]
    mask = batch.mask[sel]  # [n, T] loss mask: the policy's own tokens
    lengths = batch.prompt_lengths[sel]  # [n]
    width = prompt_ids.shape[1]
    prompt_attention = (torch.arange(width).unsqueeze(0) >= (width - lengths).unsqueeze(1)).long()
    attention = torch.cat([prompt_attention, (batch.attention_mask[sel] > 0).long()], dim=1)
    positions = (attention.cumsum(dim=1) - 1).clamp(min=0) * attention
    return Sequences(torch.cat([prompt_ids, completion_ids], dim=1), attention, positions, completion_ids, mask)


def token_logprobs(model, seqs: Sequences, temperature: float = 1.0, *, with_entropy: bool = False,
                   shared_prompt: bool = True):
    """log pi(completion token | prefix) per token: [n, T] (0 on padding); optionally the entropy [n, T].

    temperature: the sampling temperature (0 = greedy is scored at T = 1, as `generate` does).
    shared_prompt: run each distinct prompt once when rows repeat it (see the module docstring).
    """
    groups = prompt_groups(seqs) if shared_prompt else None
    raw = _forward_shared(model, seqs, *groups) if groups is not None else None
    if raw is None:  # every prompt distinct, sharing off, or a cache that cannot be gathered
        raw = _forward(model, seqs).logits
    logits = _completion_logits(raw, temperature)  # [n, T, V]
    logprobs = _home(_chosen_logprobs(logits, seqs), seqs)
    if not with_entropy:
        return logprobs
    return logprobs, _home(_entropy(logits, seqs), seqs)


def token_logprobs_and_values(model, value_head, seqs: Sequences, temperature: float = 1.0, *,
                              entropy_grad: bool = True, shared_prompt: bool = True):
    """One forward pass -> (logprobs [n, T], values [n, T], entropy [n, T]), each 0 on padding.

    values[:, t] = value_head(h) at the position whose logits predict completion token t, i.e. V of
    the prefix before token t (the state in which the action is taken).  `output_hidden_states`
    costs little here: the layer outputs are kept for backward anyway; hidden_states[-1] is the
    final-norm output, full length (logits_to_keep only trims the logits).
    entropy_grad=False computes the entropy without a graph (logged only, not in the loss).
    shared_prompt: each distinct prompt runs once (as `token_logprobs`); the same values.
    """
    T = seqs.completion_ids.shape[1]
    groups = prompt_groups(seqs) if shared_prompt else None
    shared = _forward_shared(model, seqs, *groups, with_hidden=True) if groups is not None else None
    if shared is not None:
        raw, last_hidden = shared  # [n, T + 1, V], [n, T + 1, H]
    else:
        out = _forward(model, seqs, output_hidden_states=True)
        raw, last_hidden = out.logits, out.hidden_states[-1][:, -(T + 1):, :]
    logits = _completion_logits(raw, temperature)  # [n, T, V]
    logprobs = _chosen_logprobs(logits, seqs)
    hidden = last_hidden[:, :-1, :]  # [n, T, H]: positions P-1 .. P+T-2
    values = value_head(hidden) * seqs.mask.to(hidden.device)  # [n, T] float32
    with torch.set_grad_enabled(entropy_grad and torch.is_grad_enabled()):
        entropy = _entropy(logits, seqs)
    return _home(logprobs, seqs), _home(values, seqs), _home(entropy, seqs)


def _home(t: torch.Tensor, seqs: Sequences) -> torch.Tensor:
    """`t` on the device of the rollout batch (the CPU): a differentiable copy when the model runs on a
    GPU (only [n, T] per-token values move; the vocabulary-sized logits stay where they were computed),
    the same tensor otherwise."""
    return t.to(seqs.mask.device)


def _forward(model, seqs: Sequences, **kwargs):
    device = next(model.parameters()).device
    T = seqs.completion_ids.shape[1]
    return model(
        input_ids=seqs.input_ids.to(device),
        attention_mask=seqs.attention_mask.to(device),
        position_ids=seqs.position_ids.to(device),
        logits_to_keep=T + 1,
        use_cache=False,
        **kwargs,
    )


def prompt_groups(seqs: Sequences) -> tuple[torch.Tensor, torch.Tensor] | None:
    """(first, inverse) when some rows share a prompt: `first[k]` is the first row with distinct prompt k
    and `inverse[i]` the distinct prompt of row i; None when every row's prompt is different."""
    P = seqs.input_ids.shape[1] - seqs.completion_ids.shape[1]
    attention = seqs.attention_mask[:, :P]
    keys = torch.cat([seqs.input_ids[:, :P] * attention, attention], dim=1)  # padding ids never matter
    unique, inverse = torch.unique(keys, dim=0, return_inverse=True)
    n = keys.shape[0]
    if unique.shape[0] == n:
        return None
    first = torch.full((unique.shape[0],), n, dtype=torch.long).scatter_reduce(
        0, inverse, torch.arange(n), reduce="amin")
    return first, inverse


def _forward_shared(model, seqs: Sequences, first: torch.Tensor, inverse: torch.Tensor, *, with_hidden: bool = False):
    """The last T + 1 logits of every row (as `_forward(...).logits`), each distinct prompt run once;
    with_hidden: (logits, last-layer hidden states of the same T + 1 positions).  None when the
    model's cache cannot be gathered (the caller runs the plain forward)."""
    device = next(model.parameters()).device
    P = seqs.input_ids.shape[1] - seqs.completion_ids.shape[1]
    T = seqs.completion_ids.shape[1]
    inverse = inverse.to(device)
    prompt = model(input_ids=seqs.input_ids[first, :P].to(device),
                   attention_mask=seqs.attention_mask[first, :P].to(device),
                   position_ids=seqs.position_ids[first, :P].to(device), use_cache=True, logits_to_keep=1,
                   output_hidden_states=with_hidden)
    cache = prompt.past_key_values
    if not hasattr(cache, "reorder_cache"):  # not a transformers Cache (recurrent state, legacy tuples)
        return None
    cache.reorder_cache(inverse)  # row i gets its prompt's keys/values (a differentiable gather)
    rest = model(input_ids=seqs.completion_ids.to(device), attention_mask=seqs.attention_mask.to(device),
                 position_ids=seqs.position_ids[:, P:].to(device), past_key_values=cache, use_cache=True,
                 logits_to_keep=T, output_hidden_states=with_hidden)
    logits = torch.cat([prompt.logits[inverse], rest.logits], dim=1)  # [n, T + 1, V]
    if not with_hidden:
        return logits
    hidden = torch.cat([prompt.hidden_states[-1][:, -1:, :][inverse], rest.hidden_states[-1]], dim=1)
    return logits, hidden  # [n, T + 1, H]


def _completion_logits(logits: torch.Tensor, temperature: float) -> torch.Tensor:
    logits = logits[:, :-1, :].float()  # [n, T, V]: position P-1+j predicts completion token j
    if temperature and temperature != 1.0:
        logits = logits / temperature
    return logits


def _chosen_logprobs(logits: torch.Tensor, seqs: Sequences) -> torch.Tensor:
    targets = seqs.completion_ids.to(logits.device)
    chosen = logits.gather(-1, targets.unsqueeze(-1)).squeeze(-1)  # [n, T]
    return (chosen - torch.logsumexp(logits, dim=-1)) * seqs.mask.to(logits.device)


def _entropy(logits: torch.Tensor, seqs: Sequences) -> torch.Tensor:
    # The guarded entropy: -inf logits (masked vocabulary) give 0, not NaN, in value and gradient.
    return entropy_from_logits(logits) * seqs.mask.to(logits.device)
