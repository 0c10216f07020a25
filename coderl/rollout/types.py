"""Typed rollout data: one `Sample` per completion, and the `RolloutBatch` the trainer consumes.

Every sample keeps the exact prompt text it was generated from (so an evaluation reproduces), the
raw decoded output, and the completion that `task.build_program` turns into the program.  The batch
holds the token tensors of the same samples, row i of every tensor being `samples[i]`.  This module
does not import torch (tensors are only annotations), so rewards and evaluation can use `Sample`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from torch import Tensor


@dataclass(frozen=True)
class Sample:
    """One generated completion of one task."""

    task_id: str
    group: int  # index of its task in the `generate` call; the samples of one prompt share it
    prompt: str  # the exact text fed to the model (chat template applied)
    raw_output: str  # generated tokens decoded (special tokens dropped), before any cutting
    completion: str  # what is checked: `task.build_program(completion)` is the program
    gen_tokens: tuple[int, ...]  # generated ids up to and including the stop-string / EOS token
    code_tokens: tuple[int, ...]  # ids of `completion` under the tokenizer (no special tokens)
    truncated: bool  # max_new_tokens reached without EOS or a stop sequence
    format_ok: bool  # the output followed the prompt format's layout (see `Extraction.format_ok`)


@dataclass(frozen=True)
class RolloutBatch:
    """Samples and their tokens; N = number of samples (tasks x samples_per_prompt, task-major).

    `completion_ids[i, :len(samples[i].gen_tokens)]` are `samples[i].gen_tokens`; the rest of the
    row is padding (pad id, masks 0, log-prob 0).  The policy's sequence for row i is the prompt's
    last `prompt_lengths[i]` ids of `prompt_ids[i]` followed by the completion ids its attention
    mask keeps.  Two masks: `attention_mask` says which completion tokens are in the sequence,
    `mask` which of them are the policy's actions (loss, advantages, KL).  They differ once a row
    holds tokens the policy did not choose (execution feedback in a repair turn: attended, loss 0);
    a single-turn rollout has one tensor for both.  A repair episode (`coderl.rollout.repair`) also says
    which turn each policy token belongs to (`turns`), for per-turn credit.
    """

    samples: list[Sample]
    prompt_ids: Tensor  # [N, P] long, left-padded prompt ids
    prompt_lengths: Tensor  # [N] long, real (unpadded) prompt tokens per row
    completion_ids: Tensor  # [N, T] long, right-padded generated ids (cut after the stop / EOS)
    mask: Tensor  # [N, T] float32, 1.0 on generated tokens kept, 0.0 on padding
    logprobs: Tensor  # [N, T] float32, sampling-policy log-probs log_softmax(logits / T) of the ids; 0 on padding
    group_ids: Tensor  # [N] long, task index; samples of the same prompt share a group
    attention_mask: Tensor | None = None  # [N, T] float32, completion tokens in the sequence (None: = mask)
    turns: Tensor | None = None  # [N, T] long, repair episodes: the turn (0-based) of each policy token, -1 on
    # feedback and padding; None: one turn per row

    @property
    def width(self) -> int:
        """Tokens of every row's sequence as the log-prob passes lay it out: P + T."""
        return int(self.prompt_ids.shape[1] + self.completion_ids.shape[1])

    def __post_init__(self):
        if self.attention_mask is None:
            object.__setattr__(self, "attention_mask", self.mask)
        n = len(self.samples)
        if tuple(self.prompt_ids.shape[:1]) != (n,) or tuple(self.prompt_lengths.shape) != (n,) \
                or tuple(self.group_ids.shape) != (n,):
            raise ValueError(f"RolloutBatch: prompt tensors and group_ids must have {n} rows")
        shape = tuple(self.completion_ids.shape)
        if len(shape) != 2 or shape[0] != n or tuple(self.mask.shape) != shape \
                or tuple(self.logprobs.shape) != shape or tuple(self.attention_mask.shape) != shape:
            raise ValueError(f"RolloutBatch: completion_ids, mask, attention_mask and logprobs must all be "
                             f"[{n}, T]; got {shape}, {tuple(self.mask.shape)}, {tuple(self.attention_mask.shape)}, "
                             f"{tuple(self.logprobs.shape)}")
        if self.turns is not None and tuple(self.turns.shape) != shape:
            raise ValueError(f"RolloutBatch: turns must be [{n}, T] = {shape}; got {tuple(self.turns.shape)}")
        if bool(((self.mask > 0) & ~(self.attention_mask > 0)).any()):
            raise ValueError("RolloutBatch: a loss-masked token must be attended (mask <= attention_mask)")

    def __len__(self) -> int:
        return len(self.samples)


@dataclass
class Step:
    """What a multi-turn environment's `step` or `finish` gives back (`rollout.episodes`)."""

    observation: str = ""  # what the model sees next (when the episode goes on)
    done: bool = False
    reason: str = ""  # why it ended (the environment's words; the collector's: context, turns)


class SampledRow(NamedTuple):
    """One generated row, cut after its stop sequence or EOS token (`cut_generation`)."""

    ids: list[int]  # generated ids kept, the stop / EOS token included
    logprobs: Tensor  # [len(ids)] float32, the sampling policy's log-probs of `ids`
    text: str  # `ids` decoded (special tokens dropped)
    ended: bool  # an EOS token or a stop sequence ended the row (else max_new_tokens did)
    eos: bool  # the last kept id is an EOS token
