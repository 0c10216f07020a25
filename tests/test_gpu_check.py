"""scripts/gpu_check.sh (issue 79), the GPU path in one call: its CPU mode end to end (slow), the carried model's
assembly from parts (sha256 checked; a random-weight model of the carried shape where parts are missing or wrong),
and the ranked sections skipped with one line each once the budget is spent.  All slow-marked: each starts torch,
transformers and the script's helpers in several processes (a minute or more on 2 busy cores)."""

import importlib.util
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.models.tiny import tiny_gguf, tiny_llama

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "scripts" / "gpu_check.sh"
pytestmark = pytest.mark.slow
SECTIONS = ["gpu-tests", "eval-easy", "gen-1000", "compile-cost", "grpo-20", "rl-vs-trl", "qlora", "mem16", "fsdp", "suite"]


def _helper():
    spec = importlib.util.spec_from_file_location("gpu_check", ROOT / "scripts" / "gpu_check.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _carry(tmp_path: Path, *, shape: Path | None = None) -> Path:
    """A carry as `gpu_check.sh carry` lays it out, of a tiny GGUF cut in two parts (no wheels)."""
    (tmp_path / "src").mkdir()
    gguf = tiny_gguf(tmp_path / "src")
    data = gguf.read_bytes()
    carry = tmp_path / "carry"
    (carry / "a").mkdir(parents=True)
    (carry / "b").mkdir()
    cut = len(data) // 2
    (carry / "a" / "gguf.part-a").write_bytes(data[:cut])
    (carry / "b" / "gguf.part-b").write_bytes(data[cut:])
    import hashlib

    (carry / "b" / "MANIFEST.json").write_text(json.dumps({
        "alias": None, "gguf": "tiny.gguf", "sha256": hashlib.sha256(data).hexdigest(),
        "parts": ["a/gguf.part-a", "b/gguf.part-b"]}))
    if shape is not None:
        shutil.copytree(shape, carry / "b" / "shape")
    return carry


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("CODERL_CACHE", str(tmp_path / "cache"))


def test_parts_join_into_the_model_and_a_missing_or_wrong_part_gives_a_random_model_said_so(tmp_path, cache):
    from transformers import AutoConfig

    helper = _helper()
    shape = tiny_llama(tmp_path / "shape-src")
    carry = _carry(tmp_path, shape=shape)
    got = helper.assemble(carry, tmp_path / "work")
    assert got["status"] == "ok" and got["weights"] == "carried GGUF", got
    assert AutoConfig.from_pretrained(got["model"]).num_hidden_layers == 2

    part = carry / "b" / "gguf.part-b"
    part.write_bytes(part.read_bytes()[:-1] + b"\0")          # one byte wrong: the sha256 says so
    got = helper.assemble(carry, tmp_path / "work2")
    assert got["status"] == "random" and "sha256" in got["weights"] and "RANDOM" in got["weights"], got
    assert AutoConfig.from_pretrained(got["model"]).hidden_size == AutoConfig.from_pretrained(shape).hidden_size

    (carry / "a" / "gguf.part-a").unlink()                   # the machine went cold between the carry calls
    got = helper.assemble(carry, tmp_path / "work3")
    assert got["status"] == "random" and "a/gguf.part-a" in got["weights"], got

    shutil.rmtree(carry / "b" / "shape")
    got = helper.assemble(carry, tmp_path / "work4")
    assert got["status"] == "missing" and "config.json" in got["why"], got


def test_a_part_not_in_the_carry_is_found_by_name_in_carry_extra(tmp_path, cache, monkeypatch, capsys):
    """The third lease: call 1 copied part a to the machine's /tmp, the main call's `cp` back into the tree found
    it gone; with CARRY_EXTRA=/tmp assemble takes it from there (sha256 still checked)."""
    helper = _helper()
    carry = _carry(tmp_path, shape=tiny_llama(tmp_path / "shape-src"))
    away = tmp_path / "machine-tmp"
    away.mkdir()
    (carry / "a" / "gguf.part-a").rename(away / "gguf.part-a")
    monkeypatch.setenv("CARRY_EXTRA", f"{tmp_path / 'nowhere'}:{away}")
    assert helper.cli(["assemble", str(carry), str(tmp_path / "work")]) == 0
    got = json.loads(capsys.readouterr().out)
    assert got["status"] == "ok" and got["weights"] == "carried GGUF", got
    assert got["parts"] == [str(away / "gguf.part-a"), str(carry / "b" / "gguf.part-b")]
    monkeypatch.delenv("CARRY_EXTRA")
    assert helper.cli(["assemble", str(carry), str(tmp_path / "work2")]) == 0  # without it: random, said why
    got = json.loads(capsys.readouterr().out)
    assert got["status"] == "random" and "a/gguf.part-a" in got["weights"], got


def _run(tmp_path, **env):
    out = tmp_path / "out"
    full = {**os.environ, "DEVICE": "cpu", "OUT": str(out), "PYTHON": sys.executable, "TMPDIR": str(tmp_path),
            "CODERL_CACHE": str(tmp_path / "cache"), "CARRY": str(tmp_path / "no-carry"), **env}
    full.pop("PYTHONPATH", None)
    proc = subprocess.run(["bash", str(SCRIPT)], env=full, capture_output=True, text=True, timeout=1500)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc.stdout, json.loads((out / "gpu.json").read_text())["sections"], (out / "gpu.log").read_text()


@pytest.mark.timeout(900)  # setup alone (torch, transformers, trl, datasets imported) took 265 s on 2 loaded cores
def test_a_spent_budget_skips_each_section_with_one_line_and_names_the_rerun(tmp_path):
    # MODEL given: no model is built; a budget of 0 s leaves every ranked section skipped, each in one line
    stdout, sections, log = _run(tmp_path, BUDGET_S="0", MODEL=str(tmp_path / "unused"))
    for name in SECTIONS:
        assert sections[name]["status"] == "skipped", name
        assert sum(line.startswith(f"== {name}: skipped") for line in stdout.splitlines()) == 1, stdout
    assert sections["machine"]["device"] == "cpu"
    assert stdout.splitlines()[-1] == f'gpu_check: not finished: {" ".join(SECTIONS)}; rerun with ' \
                                      f'SECTIONS="{" ".join(SECTIONS)}" bash scripts/gpu_check.sh'
    assert not list(tmp_path.glob("gpu-check.*")), "the work folder is removed"


@pytest.mark.timeout(1500)
def test_cpu_mode_runs_every_section_end_to_end_on_the_carried_tiny_model(tmp_path):
    carry = _carry(tmp_path)
    stdout, sections, log = _run(tmp_path, BUDGET_S="1400", CARRY=str(carry), CARRY_MODEL="1")
    assert sections["model"]["status"] == "ok" and sections["model"]["weights"] == "carried GGUF"
    for name in ["gpu-tests", "eval-easy", "gen-1000", "compile-cost", "grpo-20", "mem16", "fsdp", "suite"]:
        assert sections[name]["status"] == "ok", (name, sections[name], log[-3000:])
        assert any(line.startswith(f"gpu_check {name}: ok") for line in stdout.splitlines()), name
    assert sections["qlora"]["status"] == "not run"
    trl = importlib.util.find_spec("trl") is not None
    assert sections["rl-vs-trl"]["status"] == ("ok" if trl else "failed")
    assert sections["fsdp"]["sharded"].startswith("FSDP over 2 processes")
    assert sections["grpo-20"]["steps"] == 2 and sections["grpo-20"]["all_finite"]
    assert sections["eval-easy"]["eval-easy-2-again"]["num_samples"] == 4
    assert sections["eval-easy-start"]["tasks"] == 76 and sections["eval-easy-start"]["seconds"]["load_model"] > 0
    assert sections["gen-1000"]["coderl"]["num_samples"] == 8 and sections["gen-1000"]["plain_hf_first_rows"]["rows"] == 4
    assert "gpu_check: done" in stdout and "not finished" not in stdout


def test_a_section_stopped_at_its_share_keeps_what_its_run_directory_holds(tmp_path, capsys):
    """The 2026-11-26 lease's grpo-20 finished its 20 steps and lost every figure at its share: a stopped section's
    record is what its run directories' metrics hold."""
    run = tmp_path / "grpo-20"
    run.mkdir()
    rows = [{"step": 1, "time/step": 9.0, "loss/total": 0.5, "sandbox/pass_rate": 0.25},
            {"step": 2, "time/step": 2.0, "loss/total": 0.25, "sandbox/pass_rate": 0.5},
            {"step": 3, "time/step": 3.0, "loss/total": float("nan"), "sandbox/pass_rate": 0.5}]
    (run / "metrics.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    assert _helper().cli(["stopped", "grpo-20", "110", str(run), str(tmp_path / "none")]) == 0
    record = json.loads(capsys.readouterr().out)
    assert record["status"] == "out of time" and record["share_seconds"] == 110 and list(record) == [
        "status", "share_seconds", "grpo-20"]
    figures = record["grpo-20"]
    assert (figures["steps"], figures["first_step_seconds"], figures["median_step_seconds_after_first"]) == (3, 9.0, 2.5)
    assert figures["all_finite"] is False and (figures["pass_rate_first"], figures["pass_rate_last"]) == (0.25, 0.5)
