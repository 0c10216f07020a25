"""The learned reward term: a sequence-classification model from a local HF folder scores each sample.

    weights: {pass: 0.5, reward_model: 0.5}      seed 002's `0.5 * test_reward + 0.5 * rm_reward`
    reward_model: path/to/folder                  AutoModelForSequenceClassification with one output

What is scored: the task's user message and the model's raw reply, as a two-turn chat when the reward
model's tokenizer has a chat template (so it sees the conversation it was trained on), else the exact
prompt text the policy saw followed by its reply.  Texts longer than `reward_model_max_tokens` (or the
model's own position limit, whichever is smaller) lose their beginning, never the reply's end.

Batching and padding: the scorer pads on the right whatever the tokenizer's `padding_side` says, the one
layout every classification head reads correctly: a decoder pools its rightmost non-pad token, but an
encoder (BERT-like) pools position 0, which under left padding is a pad, so a left-padded batch would
score differently from the same texts one by one.  A tokenizer without a pad token gets its EOS (or UNK)
as pad, and the model's config is told, or batches larger than one fail inside transformers.

Normalisation (`reward_model_normalize`), applied to the raw scores of one `score()` call (in training: one
generation round of a step; with dynamic sampling each refill round is normalised on its own, and with
`--turns` the answers of every turn together):
  sigmoid   1 / (1 + exp(-s)): in (0, 1), the scale of `pass` and `fraction`, so weights compare (default)
  batch     (s - mean) / std over the batch (0 for a batch of one or no spread): only the ranking counts
  none      the raw score (a logit; its scale is whatever the reward model learned)

Loading is once per process and settings (`load_scorer` is cached); `coderl train` loads it before the
policy, so a model that cannot load stops the run there.  A missing folder, one that is not a sequence
classifier, one with more than one output, or one that fails to load is a one-line `ConfigError`
(`check_reward_model` runs at configuration time, before any model is loaded).
"""

from __future__ import annotations

import dataclasses
import functools
import json
import math
import os
from dataclasses import dataclass
from typing import Any

from coderl.base.config import DEVICES, ConfigError, option

NORMALIZE = ("sigmoid", "batch", "none")


@dataclass
class RewardModelSettings:
    """The reward_model component's settings in a training config (`coderl train --reward-model DIR`)."""

    reward_model: str | None = option(None, "reward_model component: a local HF folder holding a one-output "
                                      "sequence classifier (seed 002 mixes 0.5 test + 0.5 rm: --reward-weights "
                                      "pass=0.5,reward_model=0.5); an error without a reward_model weight")
    reward_model_normalize: str = option("sigmoid", "reward_model: sigmoid (0..1, the scale of pass), batch (z-score "
                                         "over the step's samples) or none (raw logit)", choices=list(NORMALIZE),
                                         cli=False)
    reward_model_batch_size: int = option(8, "reward_model: texts scored per forward pass", cli=False)
    reward_model_device: str = option("auto", "reward_model: auto (the training device: CUDA if present), cpu or "
                                      "cuda", choices=list(DEVICES), cli=False)
    reward_model_max_tokens: int = option(1024, "reward_model: longest text scored, in tokens (also capped by the "
                                          "model's own position limit); longer texts lose their beginning",
                                          cli=False)

    def validate_reward_model(self, used: bool) -> None:
        """One-line `ConfigError`s naming the flag; `used` (the component has a weight): the folder is checked."""
        if self.reward_model_normalize not in NORMALIZE:
            raise ConfigError(f"reward_model_normalize {self.reward_model_normalize!r}: expected one of "
                              f"{', '.join(NORMALIZE)} (a YAML-only setting)")
        if self.reward_model_device not in DEVICES:
            raise ConfigError(f"reward_model_device {self.reward_model_device!r}: expected one of "
                              f"{', '.join(DEVICES)} (a YAML-only setting)")
        for name in ("reward_model_batch_size", "reward_model_max_tokens"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ConfigError(f"{name} {value!r}: expected an integer >= 1 (a YAML-only setting)")
        if used:
            check_reward_model(self.reward_model)

    def reward_model_settings(self) -> dict[str, Any]:
        """This section's fields by name (what `score()` hands the reward_model component), also when `self`
        is a config that extends it."""
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(RewardModelSettings)}


def check_reward_model(path: str | None) -> None:
    """A one-line `ConfigError` unless `path` is a local HF folder holding a one-output sequence classifier
    (read from its config.json; no weights are loaded)."""
    if not path:
        raise ConfigError("--reward-model: the reward_model component needs a local HF folder (--reward-model DIR)")
    config_file = os.path.join(path, "config.json")
    if not os.path.isdir(path) or not os.path.isfile(config_file):
        raise ConfigError(f"--reward-model {path!r}: no such model folder (expected a local HF folder with "
                          "config.json; nothing is downloaded)")
    try:
        with open(config_file, encoding="utf-8") as f:
            config = json.load(f)
    except (OSError, ValueError) as exc:
        raise ConfigError(f"--reward-model {path!r}: config.json is unreadable ({exc})") from None
    architectures = config.get("architectures") or []
    if not any(str(a).endswith("ForSequenceClassification") for a in architectures):
        raise ConfigError(f"--reward-model {path!r}: not a sequence-classification model (architectures: "
                          f"{', '.join(map(str, architectures)) or 'none'}; expected a *ForSequenceClassification)")
    labels = config.get("num_labels", len(config.get("id2label") or {}) or 2)
    if labels != 1:
        raise ConfigError(f"--reward-model {path!r}: the classifier has {labels} outputs; a reward model has one "
                          "(num_labels=1)")


def position_limit(config: Any, tokenizer: Any) -> int:
    """The most tokens the model can read: its position table (RoBERTa-like models start positions after the
    pad id, so two fewer) and the tokenizer's `model_max_length` when that is a real number."""
    limit = 1 << 30
    positions = getattr(config, "max_position_embeddings", None)
    if isinstance(positions, int) and positions > 0:
        offset = 2 if "roberta" in str(getattr(config, "model_type", "")) else 0
        limit = min(limit, positions - offset)
    declared = getattr(tokenizer, "model_max_length", None)
    if isinstance(declared, int) and 0 < declared < 1_000_000:
        limit = min(limit, declared)
    return limit


class RewardModelScorer:
    """A loaded reward model and its tokenizer; `score(texts)` -> raw scores, batched."""

    def __init__(self, path: str, device: str = "auto", max_tokens: int = 1024):
        import torch
        from transformers import AutoModelForSequenceClassification, AutoTokenizer

        from coderl.models.load import resolve_device

        check_reward_model(path)
        self.device = resolve_device(device, "reward_model_device")
        # bf16 where the GPU computes in it natively; float32 elsewhere (fp16 overflows some heads' logits)
        dtype = torch.bfloat16 if self.device == "cuda" and torch.cuda.is_bf16_supported() else torch.float32
        try:
            self.tokenizer = AutoTokenizer.from_pretrained(path)
            self.model = AutoModelForSequenceClassification.from_pretrained(path, dtype=dtype)
        except Exception as exc:  # noqa: BLE001 -- transformers raises many kinds (OSError, RuntimeError, ImportError)
            first = (str(exc).strip().splitlines() or [""])[0][:200]
            raise ConfigError(f"--reward-model {path!r}: cannot load it ({type(exc).__name__}: {first})") from None
        self.max_tokens = min(max_tokens, position_limit(self.model.config, self.tokenizer))
        tok = self.tokenizer
        if tok.pad_token is None:
            fallback = tok.eos_token or tok.unk_token
            if fallback is None:
                raise ConfigError(f"--reward-model {path!r}: its tokenizer has no pad, EOS or UNK token to pad with")
            tok.pad_token = fallback
        tok.padding_side, tok.truncation_side = "right", "left"
        self.model.config.pad_token_id = tok.pad_token_id
        self.model.eval().to(self.device)
        self.chat = bool(getattr(tok, "chat_template", None))

    def text(self, user: str, prompt: str, reply: str) -> str:
        """What is scored: the chat of `user` and `reply` under the RM's template, else `prompt + reply`."""
        if self.chat:
            return self.tokenizer.apply_chat_template(
                [{"role": "user", "content": user}, {"role": "assistant", "content": reply}], tokenize=False)
        return prompt + reply

    def score(self, texts: list[str], batch_size: int = 8) -> list[float]:
        import torch

        out: list[float] = []
        with torch.no_grad():
            for start in range(0, len(texts), batch_size):
                enc = self.tokenizer(texts[start:start + batch_size], padding=True, truncation=True,
                                     max_length=self.max_tokens, return_tensors="pt",
                                     add_special_tokens=not self.chat)  # a template writes its own
                logits = self.model(**{k: v.to(self.device) for k, v in enc.items()}).logits
                out += logits[:, 0].float().cpu().tolist()
        return out


@functools.lru_cache(maxsize=2)
def load_scorer(path: str, device: str, max_tokens: int) -> RewardModelScorer:
    return RewardModelScorer(path, device, max_tokens)


def normalize(scores: list[float], how: str) -> list[float]:
    """The scores of one batch under `how` (module docstring)."""
    if how == "none":
        return list(scores)
    if how == "sigmoid":
        return [1.0 / (1.0 + math.exp(-s)) if s >= 0 else math.exp(s) / (1.0 + math.exp(s)) for s in scores]
    if how == "batch":
        if len(scores) < 2:
            return [0.0] * len(scores)
        mean = sum(scores) / len(scores)
        std = math.sqrt(sum((s - mean) ** 2 for s in scores) / len(scores))
        return [0.0] * len(scores) if std < 1e-8 else [(s - mean) / std for s in scores]
    raise ConfigError(f"reward_model_normalize {how!r}: expected one of {', '.join(NORMALIZE)}")


def reward_model_scores(samples: list, tasks: list, *, reward_model: str | None, reward_model_normalize: str,
                        reward_model_batch_size: int, reward_model_device: str,
                        reward_model_max_tokens: int) -> list[float]:
    """The normalised reward-model score of every sample (one batched pass)."""
    from coderl.rollout.formats import user_message

    check_reward_model(reward_model)
    assert reward_model is not None
    scorer = load_scorer(os.path.abspath(reward_model), reward_model_device, reward_model_max_tokens)
    texts = [scorer.text(user_message(t), s.prompt, s.raw_output) for s, t in zip(samples, tasks)]
    return normalize(scorer.score(texts, reward_model_batch_size), reward_model_normalize)


RM_RETRIES = 2  # a scoring pass that raises is run again this many times (the sandbox's INFRA_RETRIES)


def scores_as_kwargs(samples: list, tasks: list, **params: Any) -> list[dict[str, Any]]:
    """The component's `prepare` hook: one batched pass, each sample's score as the keyword `rm_score`.

    A pass that raises (not a setting: a ConfigError stops the run) is run again up to RM_RETRIES times; one
    that still fails, and a score that is not finite, is an infrastructure failure of its rows
    (`infra_error`: `score` leaves them out, docs/training.md "When a run goes wrong")."""
    for attempt in range(RM_RETRIES + 1):
        try:
            scores = reward_model_scores(samples, tasks, **params)
            break
        except ConfigError:
            raise
        except Exception as exc:  # noqa: BLE001 -- torch and transformers raise many kinds (OOM, RuntimeError)
            error = f"the reward model failed: {type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"
    else:
        return [{"infra_error": error[:300]}] * len(samples)
    return [{"rm_score": v} if math.isfinite(v) else {"infra_error": f"the reward model scored {v}"} for v in scores]
