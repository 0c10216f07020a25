"""`SFTConfig`: every field of `coderl sft`, documented where it is defined (the docs are --help)."""

from __future__ import annotations

from dataclasses import dataclass

from coderl.base.config import DEVICES, flatten, option, require, section
from coderl.eval.run import DEFAULT_FORMAT
from coderl.models.lora import LoraConfig
from coderl.models.quantized import QLORA_NO_CUDA  # noqa: F401  (re-exported: the SFT error of --qlora)


@dataclass
class SFTConfig:
    """Supervised fine-tuning (LoRA, QLoRA or full) on reference solutions, prompt tokens masked (seed 001 SFT)."""

    out: str | None = option(None, "run directory: config.yaml, metrics.jsonl, checkpoints/, adapter/ (--finetune "
                             "full: model/) (required)")
    overwrite: bool = option(False, "replace the run already in --out (refused without it, or --resume)")
    resume: bool = option(False, "continue the run in --out from its latest checkpoint, exactly (its settings)")
    model: str = option("smollm2-135m-instruct", "base model (alias, HF folder, GGUF, hub id) or an adapter to "
                        "keep training")
    data: str = option("humaneval", "task spec with reference solutions (humaneval, mbpp:PATH, synthetic:...) "
                       "or a JSONL of {\"prompt\", \"completion\"} pairs (detected by its fields)")
    split: str = option("train", "split of a task spec: all, train, test (synthetic also valid); a pairs "
                        "file is used whole", choices=["all", "train", "valid", "test"])
    seed: int = option(0, "seed of the split, the data order, LoRA initialisation and dropout")
    format: str = option(DEFAULT_FORMAT, "prompt format the model is trained for (the same as `coderl eval`'s)",
                         choices=["completion", "chat", "reasoning"])
    epochs: float = option(1.0, "passes over the examples; may be fractional (seed 001: 1)")
    learning_rate: float = option(5e-5, "AdamW learning rate of the trained parameters (seed 001: 5e-5)")
    weight_decay: float = option(0.0, "AdamW weight decay (HF Trainer's default: 0)")
    batch_size: int = option(1, "examples per micro-batch (seed 001: 1)")
    gradient_accumulation: int = option(8, "micro-batches per optimizer step (seed 001: 8)")
    lr_schedule: str = option("linear", "learning-rate decay after warmup (HF Trainer's default: linear)",
                              choices=["constant", "linear", "cosine"])
    warmup_ratio: float = option(0.0, "fraction of the optimizer steps with linear warmup")
    max_grad_norm: float = option(1.0, "gradient clipping (0 = off; the norm is logged either way)")
    gradient_checkpointing: bool = option(False, "recompute each decoder layer's activations in backward instead of "
                                          "keeping them: less memory for one more forward of each layer")
    max_length: int = option(1024, "prompt + solution + end tokens; longer examples are skipped and counted, "
                             "never truncated")
    dtype: str = option("float32", "weights of the base model: float32 or bfloat16 (LoRA weights and optimiser stay "
                        "float32; faster on CPUs with AVX-512 BF16/AMX and on GPUs)", choices=["float32", "bfloat16"])
    device: str = option("auto", "auto (CUDA if present), cpu or cuda", choices=list(DEVICES))
    save_steps: int = option(0, "also checkpoint every N optimizer steps (0 = only the final checkpoint)")
    log_with: str = option("none", "extra tracker: none, tensorboard, wandb (offline), trackio, mlflow",
                           choices=["none", "tensorboard", "wandb", "trackio", "mlflow"])
    progress: bool = option(True, "a progress bar on a terminal (stderr); off or on, a line every 30 s with the steps "
                            "done and the time left goes to the log")
    lora: LoraConfig = section(LoraConfig)

    def __post_init__(self):
        require(self.out is not None, "--out", self.out, "a run directory")
        require(not (self.resume and self.overwrite), "--overwrite", True, "not both --resume and --overwrite")
        require(self.epochs > 0, "--epochs", self.epochs, "a positive number")
        require(self.learning_rate > 0, "--learning-rate", self.learning_rate, "a positive number")
        require(self.weight_decay >= 0, "--weight-decay", self.weight_decay, "a number >= 0")
        require(self.batch_size >= 1, "--batch-size", self.batch_size, "an integer >= 1")
        require(self.gradient_accumulation >= 1, "--gradient-accumulation", self.gradient_accumulation,
                "an integer >= 1")
        require(0 <= self.warmup_ratio < 1, "--warmup-ratio", self.warmup_ratio, "a number in [0, 1)")
        require(self.max_grad_norm >= 0, "--max-grad-norm", self.max_grad_norm, "a number >= 0")
        require(self.max_length >= 2, "--max-length", self.max_length, "an integer >= 2")
        require(self.save_steps >= 0, "--save-steps", self.save_steps, "an integer >= 0")

    def to_dict(self) -> dict:
        return flatten(self)
