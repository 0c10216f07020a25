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

Under FSDP (a sharded model, `train/distributed.py`) each forward is a collective every rank must run in the
same order, so a pass has the same forwards whatever its rows: with `shared_prompt` always the prompt pass and
the completion pass (every prompt distinct or not), and never chunked logits (their projection would run
outside the model's forward).

Chunked log-probs (`chunk_bytes`).  The logits of a batch are [n, T, V] float32: at 16 rows x 1,000
tokens x a 49k vocabulary that is 3 GB, and the log-softmax and entropy keep several such tensors for
backward.  When they would pass 4 x `chunk_bytes` (default `LOGIT_CHUNK_CAP`, 256 MB; the memory budget
sets it: `train/memory.py`), the model is run for its last hidden states only (`logits_to_keep=1`), and
the output projection, log-softmax and entropy run over the loss-mask tokens in chunks of at most
`chunk_bytes` of logits each, every chunk under
`torch.utils.checkpoint`: backward keeps only the chunk's hidden states and recomputes its logits.
The values and gradients equal the unchunked path's within float tolerance
(tests/train/test_logprobs_chunked.py).  A model whose logits are not its output projection of the last
hidden state (a soft cap, a scale: checked on the one position the forward returns) keeps the full path.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import torch
from torch.utils.checkpoint import checkpoint

from coderl.algorithms.entropy import entropy_from_logits
from coderl.models.outputs import KV_CACHE
from coderl.rollout.types import RolloutBatch
from coderl.train.activation_checkpointing import is_checkpointed
from coderl.train.distributed import is_sharded, unwrapped
from coderl.train.memory import LOGIT_CHUNK_CAP


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
                   shared_prompt: bool = True, chunk_bytes: int | None = None):
    """log pi(completion token | prefix) per token: [n, T] (0 on padding); optionally the entropy [n, T].

    temperature: the sampling temperature (0 = greedy is scored at T = 1, as `generate` does).
    shared_prompt: run each distinct prompt once when rows repeat it (see the module docstring).
    chunk_bytes: the most float32 logits held at once (default `LOGIT_CHUNK_CAP`; see the module docstring).
    """
    logprobs, _, entropy = token_logprobs_and_values(model, None, seqs, temperature, with_entropy=with_entropy,
                                                     shared_prompt=shared_prompt, chunk_bytes=chunk_bytes)
    return (logprobs, entropy) if with_entropy else logprobs


def token_logprobs_and_values(model, value_head, seqs: Sequences, temperature: float = 1.0, *,
                              entropy_grad: bool = True, shared_prompt: bool = True, chunk_bytes: int | None = None,
                              with_entropy: bool = True):
    """One forward pass -> (logprobs [n, T], values [n, T], entropy [n, T]), each 0 on padding.

    Only the completion columns up to the last loss-mask token of any row are run (`_trimmed`); the outputs
    are widened back to T with zeros, which every output is there anyway.

    values[:, t] = value_head(h) at the position whose logits predict completion token t, i.e. V of
    the prefix before token t (the state in which the action is taken).  `output_hidden_states`
    costs little here: the layer outputs are kept for backward anyway; hidden_states[-1] is the
    final-norm output, full length (logits_to_keep only trims the logits).
    entropy_grad=False computes the entropy without a graph (logged only, not in the loss).
    shared_prompt: each distinct prompt runs once (as `token_logprobs`); the same values.
    chunk_bytes: as `token_logprobs` (large logits run in chunks; the values need only the hidden states).
    `value_head` None: values None and no hidden states kept (`token_logprobs`); `with_entropy` False: entropy None.
    """
    width = seqs.completion_ids.shape[1]
    out = _stats(model, value_head, _trimmed(seqs), temperature, entropy_grad=entropy_grad,
                 shared_prompt=shared_prompt, chunk_bytes=chunk_bytes, with_entropy=with_entropy)
    return tuple(None if t is None else _widened(t, width) for t in out)


def _trimmed(seqs: Sequences) -> Sequences:
    """`seqs` without the completion columns after the last one that holds a loss-mask token in some row: right
    padding, and tokens no loss reads.  Attention is causal, so no kept position sees them, and every output of
    the pass is masked, so 0, there: the kept columns' outputs are the whole width's.  The RL rows' completions
    are padded to the longest of the rollout (the demo's: about 50 tokens against 128)."""
    used = (seqs.mask != 0).any(dim=0).nonzero()
    keep = int(used[-1]) + 1 if len(used) else 1
    drop = seqs.completion_ids.shape[1] - keep
    if drop <= 0:
        return seqs
    return Sequences(seqs.input_ids[:, :-drop], seqs.attention_mask[:, :-drop], seqs.position_ids[:, :-drop],
                     seqs.completion_ids[:, :keep], seqs.mask[:, :keep])


def _widened(t: torch.Tensor, width: int) -> torch.Tensor:
    """[n, T'] -> [n, width], zeros after the kept columns (differentiable)."""
    return torch.nn.functional.pad(t, (0, width - t.shape[1])) if t.shape[1] < width else t


def _stats(model, value_head, seqs: Sequences, temperature: float, *, entropy_grad: bool, shared_prompt: bool,
           chunk_bytes: int | None, with_entropy: bool):
    """`token_logprobs_and_values` on sequences as given."""
    groups = prompt_groups(seqs, always=is_sharded(model)) if _sharing(model, shared_prompt) else None
    if _chunked(model, seqs, chunk_bytes):
        last_hidden = _last_hidden(model, seqs, groups)  # [n, T + 1, H] and the logits of one position
        if last_hidden is not None:
            hidden = last_hidden[:, :-1, :]  # [n, T, H]: positions P-1 .. P+T-2
            values = None if value_head is None else _home(value_head(hidden) * seqs.mask.to(hidden.device), seqs)
            logprobs, entropy = _chunked_stats(model, hidden, seqs, temperature, with_entropy,
                                               chunk_bytes or LOGIT_CHUNK_CAP, entropy_grad=entropy_grad)
            return logprobs, values, entropy
    T, with_hidden = seqs.completion_ids.shape[1], value_head is not None
    shared = _forward_shared(model, seqs, *groups, with_hidden=with_hidden) if groups is not None else None
    if shared is not None:  # [n, T + 1, V], and with a value head [n, T + 1, H]
        raw, last_hidden = shared if with_hidden else (shared, None)
    else:  # every prompt distinct, sharing off, or a cache that cannot be gathered
        out = _forward(model, seqs, **({"output_hidden_states": True} if with_hidden else {}))
        raw, last_hidden = out.logits, out.hidden_states[-1][:, -(T + 1):, :] if with_hidden else None
    logits = _scaled(raw[:, :-1, :], temperature)  # [n, T, V]: position P-1+j predicts completion token j
    logprobs = _home(_chosen(logits, seqs.completion_ids.to(logits.device)) * seqs.mask.to(logits.device), seqs)
    values = None
    if with_hidden:
        hidden = last_hidden[:, :-1, :]  # [n, T, H]: positions P-1 .. P+T-2
        values = _home(value_head(hidden) * seqs.mask.to(hidden.device), seqs)  # [n, T] float32
    if not with_entropy:
        return logprobs, values, None
    with torch.set_grad_enabled(entropy_grad and torch.is_grad_enabled()):
        entropy = _entropy(logits, seqs)
    return logprobs, values, _home(entropy, seqs)


def _sharing(model, shared_prompt: bool) -> bool:
    """Shared prompts need a KV cache, which a checkpointed layer must not write on a graph
    (`train/activation_checkpointing.py`): then the plain forward."""
    return shared_prompt and not (torch.is_grad_enabled() and is_checkpointed(model))


def _output_head(model):
    """The output projection (lm_head) of a model, through a DDP or peft wrapper."""
    return unwrapped(model).get_output_embeddings()


def _chunked(model, seqs: Sequences, chunk_bytes: int | None) -> bool:
    """Whether the [n, T, V] float32 logits pass 4 chunks' worth (and the model has an output projection
    whose output is its logits: a model that failed the check once keeps the full path).  Never on a sharded
    model (FSDP): the output projection would run outside the model's forward, and its weights are sharded."""
    if getattr(unwrapped(model), _NOT_PROJECTION, False) or is_sharded(model):
        return False
    head = _output_head(model)
    weight = getattr(head, "weight", None)
    if weight is None:
        return False
    n, T = seqs.completion_ids.shape
    return n * T * weight.shape[0] * 4 > 4 * (chunk_bytes or LOGIT_CHUNK_CAP)


_WARNED: set = set()
_NOT_PROJECTION = "_coderl_logits_not_projection"


def _last_hidden(model, seqs: Sequences, groups) -> torch.Tensor | None:
    """Last-layer hidden states [n, T + 1, H] of the positions whose logits predict the completion, the
    forward computing the logits of one position only; None (with a warning, once per model class) when
    the output projection of the hidden state is not the model's logits (logit soft cap, scale)."""
    shared = _forward_shared(model, seqs, *groups, with_hidden=True, logits=False) if groups is not None else None
    if shared is not None:
        logits, hidden = shared
    else:
        T = seqs.completion_ids.shape[1]
        out = _forward(model, seqs, output_hidden_states=True, logits_to_keep=1)
        logits, hidden = out.logits, out.hidden_states[-1][:, -(T + 1):, :]
    return hidden if _head_is_logits(model, hidden[:, -1], logits[:, -1]) else None


def _head_is_logits(model, hidden: torch.Tensor, logits: torch.Tensor) -> bool:
    with torch.no_grad():
        mine = _output_head(model)(hidden.detach())
    same = mine.shape == logits.shape and torch.allclose(mine.float(), logits.detach().float(), rtol=1e-3, atol=1e-3)
    if not same:
        setattr(unwrapped(model), _NOT_PROJECTION, True)
    if not same and type(model).__name__ not in _WARNED:
        _WARNED.add(type(model).__name__)
        warnings.warn(f"{type(model).__name__}: its logits are not its output projection of the last hidden "
                      "state; log-probs use the full (unchunked) logits", stacklevel=3)
    return same


def _chunked_stats(model, hidden: torch.Tensor, seqs: Sequences, temperature: float, with_entropy: bool,
                   chunk_bytes: int, *, entropy_grad: bool = True):
    """(log-probs [n, T], entropy [n, T] or None) from hidden states [n, T, H], on the loss-mask tokens
    only, `chunk_bytes` of float32 logits at a time; each chunk is checkpointed when a graph is built."""
    head = _output_head(model)
    mask = seqs.mask.to(hidden.device)
    where = (mask != 0).nonzero(as_tuple=True)
    chosen_hidden, targets, weights = hidden[where], seqs.completion_ids.to(hidden.device)[where], mask[where]
    size = max(1, chunk_bytes // (4 * head.weight.shape[0]))
    grad = torch.is_grad_enabled()
    parts = []
    for start in range(0, targets.shape[0], size):
        args = (chosen_hidden[start:start + size], targets[start:start + size])
        parts.append(checkpoint(_chunk_stats, head, temperature, with_entropy, entropy_grad, *args,
                                use_reentrant=False) if grad else _chunk_stats(head, temperature, with_entropy,
                                                                              entropy_grad, *args))
    empty = hidden.new_zeros(0, dtype=torch.float32)
    logprobs = torch.cat([p[0] for p in parts]) if parts else empty
    shape = tuple(seqs.mask.shape)
    attached = 0 * hidden.sum() if not parts else 0  # no loss token: zeros, still on the graph (a backward needs one)
    out_lp = _home(torch.zeros(shape, device=hidden.device).index_put(where, logprobs * weights) + attached, seqs)
    if not with_entropy:
        return out_lp, None
    entropy = torch.cat([p[1] for p in parts]) if parts else empty
    return out_lp, _home(torch.zeros(shape, device=hidden.device).index_put(where, entropy * weights) + attached,
                         seqs)


def _chunk_stats(head, temperature: float, with_entropy: bool, entropy_grad: bool, hidden: torch.Tensor,
                 targets: torch.Tensor):
    """(log p of `targets`, entropy) of the tokens `hidden` [m, H] predicts: [m] each (entropy may be empty)."""
    logits = _scaled(head(hidden), temperature)
    chosen = _chosen(logits, targets)
    if not with_entropy:
        return chosen, logits.new_zeros(0)
    with torch.set_grad_enabled(entropy_grad and torch.is_grad_enabled()):
        return chosen, entropy_from_logits(logits)


def _home(t: torch.Tensor, seqs: Sequences) -> torch.Tensor:
    """`t` on the device of the rollout batch (the CPU): a differentiable copy when the model runs on a
    GPU (only [n, T] per-token values move; the vocabulary-sized logits stay where they were computed),
    the same tensor otherwise."""
    return t.to(seqs.mask.device)


def _forward(model, seqs: Sequences, **kwargs):
    device = next(model.parameters()).device
    kwargs.setdefault("logits_to_keep", seqs.completion_ids.shape[1] + 1)
    return model(
        input_ids=seqs.input_ids.to(device),
        attention_mask=seqs.attention_mask.to(device),
        position_ids=seqs.position_ids.to(device),
        use_cache=False,
        **kwargs,
    )


def prompt_groups(seqs: Sequences, always: bool = False) -> tuple[torch.Tensor, torch.Tensor] | None:
    """(first, inverse) when some rows share a prompt: `first[k]` is the first row with distinct prompt k
    and `inverse[i]` the distinct prompt of row i; None when every row's prompt is different, unless
    `always` (a sharded model: every pass runs the same forwards)."""
    P = seqs.input_ids.shape[1] - seqs.completion_ids.shape[1]
    attention = seqs.attention_mask[:, :P]
    keys = torch.cat([seqs.input_ids[:, :P] * attention, attention], dim=1)  # padding ids never matter
    unique, inverse = torch.unique(keys, dim=0, return_inverse=True)
    n = keys.shape[0]
    if unique.shape[0] == n and not always:
        return None
    first = torch.full((unique.shape[0],), n, dtype=torch.long).scatter_reduce(
        0, inverse, torch.arange(n), reduce="amin")
    return first, inverse


def _forward_shared(model, seqs: Sequences, first: torch.Tensor, inverse: torch.Tensor, *, with_hidden: bool = False,
                    logits: bool = True):
    """The last T + 1 logits of every row (as `_forward(...).logits`), each distinct prompt run once;
    with_hidden: (logits, last-layer hidden states of the same T + 1 positions); logits=False: the logits
    of only the first and last of those positions (the chunked path projects the hidden states itself).
    None when the model's cache cannot be gathered (the caller runs the plain forward)."""
    device = next(model.parameters()).device
    P = seqs.input_ids.shape[1] - seqs.completion_ids.shape[1]
    T = seqs.completion_ids.shape[1]
    inverse = inverse.to(device)
    prompt = model(input_ids=seqs.input_ids[first, :P].to(device),
                   attention_mask=seqs.attention_mask[first, :P].to(device),
                   position_ids=seqs.position_ids[first, :P].to(device), use_cache=True, logits_to_keep=1,
                   output_hidden_states=with_hidden)
    cache = getattr(prompt, KV_CACHE)
    if not hasattr(cache, "reorder_cache"):  # not a transformers Cache (recurrent state, legacy tuples)
        return None
    cache.reorder_cache(inverse)  # row i gets its prompt's keys/values (a differentiable gather)
    rest = model(input_ids=seqs.completion_ids.to(device), attention_mask=seqs.attention_mask.to(device),
                 position_ids=seqs.position_ids[:, P:].to(device), **{KV_CACHE: cache}, use_cache=True,
                 logits_to_keep=T if logits else 1, output_hidden_states=with_hidden)
    out = torch.cat([prompt.logits[inverse], rest.logits], dim=1)  # [n, T + 1, V] (logits=False: [n, 2, V])
    if not with_hidden:
        return out
    hidden = torch.cat([prompt.hidden_states[-1][:, -1:, :][inverse], rest.hidden_states[-1]], dim=1)
    return out, hidden  # [n, T + 1, H]


def _scaled(logits: torch.Tensor, temperature: float) -> torch.Tensor:
    """Float32 logits at the sampling temperature (0, greedy, is scored at 1)."""
    logits = logits.float()
    if temperature and temperature != 1.0:
        logits = logits / temperature
    return logits


def _chosen(logits: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
    """log p of each of `targets` [...] under `logits` [..., V]."""
    return logits.gather(-1, targets.unsqueeze(-1)).squeeze(-1) - torch.logsumexp(logits, dim=-1)


def _entropy(logits: torch.Tensor, seqs: Sequences) -> torch.Tensor:
    # The guarded entropy: -inf logits (masked vocabulary) give 0, not NaN, in value and gradient.
    return entropy_from_logits(logits) * seqs.mask.to(logits.device)
