"""Token log-probs of a rollout's completions under a (policy or reference) model.

The sequence of row i is its prompt (left-padded) followed by its completion (right-padded), with
the attention mask and position ids laid out exactly as `generate` saw them (positions count only
real tokens), so on the policy that sampled them these log-probs equal the sampling log-probs
`log_softmax(raw_logits / T)` up to float error: the first PPO minibatch has ratio 1.

Only the logits that predict completion tokens are computed (`logits_to_keep`), and the
log-softmax is never materialised: log p = logit / T - logsumexp(logits / T).
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

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
    mask = batch.mask[sel]  # [n, T]
    lengths = batch.prompt_lengths[sel]  # [n]
    width = prompt_ids.shape[1]
    prompt_attention = (torch.arange(width).unsqueeze(0) >= (width - lengths).unsqueeze(1)).long()
    attention = torch.cat([prompt_attention, mask.long()], dim=1)
    positions = (attention.cumsum(dim=1) - 1).clamp(min=0) * attention
    return Sequences(torch.cat([prompt_ids, completion_ids], dim=1), attention, positions, completion_ids, mask)


def token_logprobs(model, seqs: Sequences, temperature: float = 1.0, *, with_entropy: bool = False):
    """log pi(completion token | prefix) per token: [n, T] (0 on padding); optionally the entropy [n, T].

    temperature: the sampling temperature (0 = greedy is scored at T = 1, as `generate` does).
    """
    device = next(model.parameters()).device
    T = seqs.completion_ids.shape[1]
    out = model(
        input_ids=seqs.input_ids.to(device),
        attention_mask=seqs.attention_mask.to(device),
        position_ids=seqs.position_ids.to(device),
        logits_to_keep=T + 1,
        use_cache=False,
    )
    logits = out.logits[:, :-1, :].float()  # [n, T, V]: position P-1+j predicts completion token j
    if temperature and temperature != 1.0:
        logits = logits / temperature
    targets = seqs.completion_ids.to(device)
    chosen = logits.gather(-1, targets.unsqueeze(-1)).squeeze(-1)  # [n, T]
    logprobs = (chosen - torch.logsumexp(logits, dim=-1)) * seqs.mask.to(device)
    if not with_entropy:
        return logprobs
    log_p = torch.log_softmax(logits, dim=-1)
    entropy = -(log_p.exp() * log_p).sum(-1) * seqs.mask.to(device)
    return logprobs, entropy
