"""Convert a .gguf once into a plain Hugging Face folder (safetensors, float32) in the coderl cache.

transformers loads a GGUF by dequantising it, but refuses `save_pretrained` on such a model.  So we
load it that way, build a plain model from its config (without the gguf quantization marker), copy the
dequantised weights in with `load_state_dict`, and save that.  The folder is written under a temporary
name and renamed, so a crash never leaves a half folder; a file lock keeps two processes from
converting the same file at once.  Later loads read the folder directly (about a second).
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import time
import uuid
from pathlib import Path

from coderl.base.outputs import leave_nothing
from coderl.base.ownership import file_lock
from coderl.models.spec import SOURCE_FILE, ModelError, is_hf_folder

# llama.cpp pre-tokenizers whose split transformers does not rebuild from a GGUF, keyed by
# `tokenizer.ggml.pre`: SmolLM2 splits digits one by one before the byte-level split.
_DIGIT_SPLIT_PRES = {"smollm"}


def is_converted(out_dir: Path) -> bool:
    return is_hf_folder(out_dir) and (out_dir / SOURCE_FILE).is_file()


def ensure_converted(gguf_path: Path, out_dir: Path, *, source: str, chat_template: str | None = None) -> Path:
    """`out_dir` as a converted copy of `gguf_path`, converting only if it is not there yet."""
    if is_converted(out_dir):
        return out_dir
    with leave_nothing(str(out_dir.parent), own=False), file_lock(out_dir.parent / f".{out_dir.name}.lock"):
        # a failed conversion (a file that is no GGUF) leaves no folder it made, no lock
        if is_converted(out_dir):
            return out_dir
        for stale in out_dir.parent.glob(f".{out_dir.name}.tmp-*"):   # left by a killed conversion
            shutil.rmtree(stale, ignore_errors=True)
        if out_dir.exists():                       # incomplete (no coderl_source.json): convert again
            shutil.rmtree(out_dir)
        print(f"coderl: converting {gguf_path.name} to a Hugging Face folder (once) -> {out_dir}",
              file=sys.stderr, flush=True)
        tmp = out_dir.with_name(f".{out_dir.name}.tmp-{os.getpid()}-{uuid.uuid4().hex[:8]}")
        try:
            convert_gguf(gguf_path, tmp, source=source, chat_template=chat_template)
            os.rename(tmp, out_dir)
        except BaseException:
            shutil.rmtree(tmp, ignore_errors=True)
            raise
    return out_dir


def convert_gguf(gguf_path: Path, out_dir: Path, *, source: str, chat_template: str | None = None) -> None:
    """Write a Hugging Face folder (model + tokenizer + coderl_source.json) for one .gguf file."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from coderl.models.hub import offline

    t0 = time.perf_counter()
    gguf_path = Path(gguf_path)
    with offline():
        try:
            gmodel = AutoModelForCausalLM.from_pretrained(
                str(gguf_path.parent), gguf_file=gguf_path.name, dtype=torch.float32, local_files_only=True)
            tok = AutoTokenizer.from_pretrained(str(gguf_path.parent), gguf_file=gguf_path.name,
                                                local_files_only=True)
        except (OSError, ValueError, KeyError) as exc:
            msg = " ".join(str(exc).split())
            raise ModelError(f"gguf '{gguf_path}': transformers cannot load it ({msg})") from None

    config = gmodel.config
    for attr in ("quantization_config", "_model_name_or_path"):   # the gguf marker; GGUF general.name
        if hasattr(config, attr):
            delattr(config, attr)
    config._name_or_path = ""
    plain = AutoModelForCausalLM.from_config(config, dtype=torch.float32)
    plain.load_state_dict(gmodel.state_dict(), strict=True)
    plain.generation_config = gmodel.generation_config
    del gmodel
    out_dir.mkdir(parents=True)
    plain.save_pretrained(out_dir, safe_serialization=True)

    _fix_tokenizer(tok, gguf_path, plain.config, chat_template)
    tok.save_pretrained(out_dir)

    info = {
        "source": source,
        "gguf": str(gguf_path),
        "gguf_size": gguf_path.stat().st_size,
        "dtype": "float32",
        "converted_seconds": round(time.perf_counter() - t0, 1),
        "transformers": __import__("transformers").__version__,
    }
    (out_dir / SOURCE_FILE).write_text(json.dumps(info, indent=2) + "\n")
    mode = 0o666 & ~_umask()          # safetensors leaves its file 0600; make the folder shareable as usual
    for f in out_dir.iterdir():
        os.chmod(f, mode)


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _gguf_field(gguf_path: Path, key: str):
    from gguf import GGUFReader

    field = GGUFReader(str(gguf_path)).fields.get(key)
    return None if field is None else field.contents()


def _fix_tokenizer(tok, gguf_path: Path, config, chat_template: str | None) -> None:
    """What the GGUF tokenizer lacks compared with the original Hugging Face one."""
    if _gguf_field(gguf_path, "tokenizer.ggml.pre") in _DIGIT_SPLIT_PRES:
        from tokenizers import pre_tokenizers

        tok.backend_tokenizer.pre_tokenizer = pre_tokenizers.Sequence([
            pre_tokenizers.Digits(individual_digits=True),
            pre_tokenizers.ByteLevel(add_prefix_space=False, trim_offsets=True, use_regex=True),
        ])
    if not getattr(tok, "chat_template", None) and chat_template:
        tok.chat_template = chat_template
    max_len = getattr(config, "max_position_embeddings", None)
    if max_len:
        tok.model_max_length = int(max_len)
