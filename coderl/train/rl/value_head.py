"""The critic of PPO with a value head (seed 003): one `nn.Linear(hidden, 1)` on the policy's last hidden state.

V(s_t) = w . h_t + b, where h_t is the final (post-norm) hidden state at the position whose logits
predict completion token t (`logprobs.token_logprobs_and_values`), so the critic shares the policy's
trunk, LoRA included, and costs no extra forward pass.  The value loss therefore also trains the
LoRA weights, weighted by `value_coef` against the policy loss (as in TRL's
`AutoModelForCausalLMWithValueHead` and seed 003).

The head is float32 whatever the model's dtype: it regresses returns, and a bf16 regression target
loses the small differences GAE is made of.  It starts at zero (w = 0, b = 0): a critic that has seen
nothing predicts V = 0, so the first batch's advantages are GAE of the rewards alone rather than of
random noise, and the initialisation consumes no RNG (a resumed run has nothing to replay).

It is saved as `value_head.pt` (a state_dict) in every `checkpoints/step-N/` beside the adapter.
"""

from __future__ import annotations

import os

import torch
from torch import nn

FILENAME = "value_head.pt"


class ValueHead(nn.Module):
    def __init__(self, hidden_size: int):
        super().__init__()
        self.linear = nn.Linear(hidden_size, 1, dtype=torch.float32)
        nn.init.zeros_(self.linear.weight)
        nn.init.zeros_(self.linear.bias)

    def forward(self, hidden: torch.Tensor) -> torch.Tensor:
        """hidden [n, T, H] (any float dtype) -> values [n, T] float32."""
        return self.linear(hidden.float()).squeeze(-1)


def build_value_head(model, resume_from: str | None = None) -> ValueHead:
    """A value head sized to `model`'s last hidden state (the LM head's input), on its device.

    `resume_from`: a checkpoint directory whose `value_head.pt` is loaded.
    """
    hidden_size = model.get_output_embeddings().in_features
    head = ValueHead(hidden_size).to(next(model.parameters()).device)
    if resume_from:
        path = os.path.join(resume_from, FILENAME)
        if not os.path.isfile(path):
            from coderl.base.config import ConfigError

            raise ConfigError(f"--resume: {resume_from} has no {FILENAME} (was it written by a run without "
                              "--value-head?)")
        head.load_state_dict(torch.load(path, map_location=next(head.parameters()).device, weights_only=True))
    return head
