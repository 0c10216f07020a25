"""`coderl models`: list built-in model aliases and converted folders in the cache; optionally prepare one.

`coderl/cli.py` adds it as a sub-command of `ModelsConfig`.  Listing never imports torch.
"""

from __future__ import annotations

import json as jsonlib
from dataclasses import dataclass

from coderl.base.config import option
from coderl.models.spec import BUILTINS, format_models, list_models


@dataclass
class ModelsConfig:
    """List the built-in model aliases (downloaded? converted?) and the converted Hugging Face folders in
    the coderl cache ($CODERL_CACHE, default ~/.cache/coderl).  Any of them, a Hugging Face folder, a .gguf
    file or a LoRA adapter folder can be passed as --model."""

    json: bool = option(False, "print JSON instead of a table")
    prepare: str | None = option(None, "download and convert this built-in alias now (otherwise that happens "
                                       "on first use; needs the [train] extra)", choices=sorted(BUILTINS))


def run_models(cfg: ModelsConfig) -> int:
    if cfg.prepare:
        import time

        from coderl.models.load import builtin_folder

        t0 = time.perf_counter()
        path = builtin_folder(cfg.prepare)
        if not cfg.json:
            print(f"{cfg.prepare}: ready in {time.perf_counter() - t0:.1f} s at {path}")
    rows = list_models()
    print(jsonlib.dumps(rows, indent=2) if cfg.json else format_models(rows))
    return 0
