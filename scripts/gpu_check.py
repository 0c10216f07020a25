"""The Python half of scripts/gpu_check.sh: the steps that need torch or coderl in-process, and the figures file.

    gpu_check.py assemble CARRY WORK        join the carried GGUF parts (sha256 checked), convert once; print the
                                            model to use (a random-weight model of the carried shape if the parts
                                            are missing or wrong, said so in the record); a part not in CARRY is
                                            looked for by its file name in CARRY_EXTRA's directories (a:b:...)
    gpu_check.py tiny WORK                  a tiny random Llama folder (tests/models/tiny.py) for DEVICE=cpu
    gpu_check.py train JSON [--cap-gb G] -- ARGS   `coderl ARGS` in this process (train, sft); then the run's
                                            step times, finiteness and the peak memory (CUDA allocator, or RSS)
    gpu_check.py plain JSON --model M --tasks T --samples N --rows R ...   plain HF `generate`, sampled, on the
                                            first R rows of the evaluation's rows: tokens/s
    gpu_check.py compile JSON --model M ...  coderl generate uncompiled, compiled cold and warm: the compile cost
                                            and the work that repays it (CODERL_COMPILE_MIN_TOKENS)
    gpu_check.py eval-figures JSON RUN...   an evaluation's wall time, generation seconds and tokens/s
    gpu_check.py start JSON --model M ...   where a fresh `coderl eval`'s time before generation goes, each part
                                            timed in one new process: imports, CUDA's start, the model's load, the
                                            task set, the sandbox's start, a first forward
    gpu_check.py record RECORDS NAME JSON   one section's record (a JSON object) appended to RECORDS
    gpu_check.py merge RECORDS GPU_JSON     RECORDS -> GPU_JSON (written whole, renamed), one summary line each
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import os
import statistics
import sys
import time
from pathlib import Path


def _write_json(path: str, obj) -> None:
    tmp = f"{path}.tmp-{os.getpid()}"
    with open(tmp, "w") as f:
        json.dump(obj, f, indent=2)
    os.replace(tmp, path)


def _sha256(path: Path) -> str:
    with open(path, "rb") as f:
        return hashlib.file_digest(f, "sha256").hexdigest()


def _find_part(carry: Path, part: str, extra: list[Path]) -> Path:
    """CARRY/part, else the first directory of `extra` holding a file of its name (a part copied out of the tree by
    an earlier call: the device tool removes an ignored path a later call does not carry), else CARRY/part."""
    here = carry / part
    if here.is_file():
        return here
    return next((d / Path(part).name for d in extra if (d / Path(part).name).is_file()), here)


def assemble(carry: Path, work: Path, extra: list[Path] = ()) -> dict:
    """The model from carried parts: MANIFEST.json in CARRY/b names the GGUF, its sha256 and its parts (in CARRY/a,
    CARRY/b, or by file name in a directory of `extra`: CARRY_EXTRA); joined into the coderl cache (the built-in
    alias's slot when it is one) and converted once."""
    manifest_path = carry / "b" / "MANIFEST.json"
    if not manifest_path.is_file():
        return {"status": "missing", "why": f"{manifest_path} not carried"}
    manifest = json.loads(manifest_path.read_text())
    parts = [_find_part(carry, p, list(extra)) for p in manifest["parts"]]
    missing = [str(p) for p in parts if not p.is_file()]
    if missing:
        return _random_model(carry, work, manifest, f"parts not carried: {', '.join(missing)}")
    from coderl.models.spec import BUILTINS, builtin_dir

    alias = manifest.get("alias")
    if alias in BUILTINS:
        dest = builtin_dir(alias) / BUILTINS[alias].gguf_name
    else:
        dest = work / manifest["gguf"]
    dest.parent.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    if not dest.is_file() or _sha256(dest) != manifest["sha256"]:
        tmp = dest.with_name(f".{dest.name}.tmp-{os.getpid()}")
        with open(tmp, "wb") as out:
            for p in parts:
                with open(p, "rb") as src:
                    while chunk := src.read(1 << 24):
                        out.write(chunk)
        if _sha256(tmp) != manifest["sha256"]:
            tmp.unlink()
            return _random_model(carry, work, manifest, "joined parts have the wrong sha256")
        os.replace(tmp, dest)
    joined = time.perf_counter() - t0
    from coderl.models.load import builtin_folder, gguf_folder

    folder = builtin_folder(alias) if alias in BUILTINS else gguf_folder(dest)
    return {"status": "ok", "model": str(folder), "weights": "carried GGUF", "gguf": manifest["gguf"],
            "parts": [str(p) for p in parts], "sha256": manifest["sha256"], "join_seconds": round(joined, 2),
            "convert_seconds": round(time.perf_counter() - t0 - joined, 2)}


def _random_model(carry: Path, work: Path, manifest: dict, why: str) -> dict:
    """A model of the carried shape (config + tokenizer in CARRY/b/shape) with random weights: speed figures only."""
    shape = carry / "b" / "shape"
    if not (shape / "config.json").is_file():
        return {"status": "missing", "why": f"{why}; no {shape}/config.json for a random-weight model"}
    from transformers import AutoConfig, AutoModelForCausalLM, AutoTokenizer

    out = work / "random-model"
    config = AutoConfig.from_pretrained(str(shape))
    model = AutoModelForCausalLM.from_config(config)
    model.save_pretrained(str(out))
    AutoTokenizer.from_pretrained(str(shape)).save_pretrained(str(out))
    for name in ("generation_config.json", "chat_template.jinja"):
        if (shape / name).is_file():
            (out / name).write_bytes((shape / name).read_bytes())
    return {"status": "random", "model": str(out), "weights": f"RANDOM (speed figures only; pass rates mean "
            f"nothing): {why}", "gguf": manifest.get("gguf")}


def tiny(work: Path) -> dict:
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from tests.models.tiny import tiny_llama

    return {"status": "ok", "model": str(tiny_llama(work)), "weights": "tiny random Llama (DEVICE=cpu dry run)"}


def _peak_reset(cuda: bool) -> None:
    if cuda:
        import torch

        torch.cuda.reset_peak_memory_stats()


def _peak_gb(cuda: bool) -> float:
    if cuda:
        import torch

        return torch.cuda.max_memory_allocated() / 2**30
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20


def run_figures(out: str) -> dict:
    """The figures of a run directory's metrics.jsonl (steps, step times, finiteness, losses, memory, pass rates);
    empty where it has none.  Read after the run, or after its section was stopped at its share."""
    path = os.path.join(out, "metrics.jsonl")
    if not os.path.isfile(path):
        return {}
    with open(path) as f:
        rows = [json.loads(line) for line in f if line.strip()]
    if not rows:
        return {}
    steps = [r["time/step"] for r in rows if "time/step" in r]
    losses = [r[k] for r in rows for k in ("loss/total", "sft/loss") if k in r]
    return dict(steps=len(rows), first_step_seconds=round(steps[0], 2) if steps else None,
                median_step_seconds_after_first=round(statistics.median(steps[1:]), 3) if steps[1:] else None,
                all_finite=all(isinstance(v, (int, float)) and math.isfinite(v) for r in rows
                               for k, v in r.items() if k.startswith(("loss", "train/grad_norm"))),
                last_loss=losses[-1] if losses else None,
                nonfinite_steps=max(r.get("train/nonfinite_steps", 0) for r in rows),
                **{k: v for k, v in rows[-1].items() if k.startswith("memory/")},
                pass_rate_first=rows[0].get("sandbox/pass_rate"), pass_rate_last=rows[-1].get("sandbox/pass_rate"))


def stopped(name: str, share: int, paths: list[str]) -> int:
    """The record of a section stopped at its share: what its run directories hold (peak memory is lost with it),
    and the records (`WORK/<section>*.json`) its steps wrote before the stop (a process that hung on its way out
    after writing its figures loses nothing)."""
    record: dict = {"status": "out of time", "share_seconds": share}
    for p in paths:
        if os.path.isdir(p) and run_figures(p):
            record[os.path.basename(p)] = run_figures(p)
        elif p.endswith(".json") and os.path.isfile(p):
            try:
                record[os.path.basename(p)[:-5]] = json.load(open(p))
            except (OSError, ValueError):
                pass
    print(json.dumps(record))
    return 0


def train(out_json: str, cap_gb: float | None, argv: list[str]) -> int:
    """`coderl ARGV` in-process; the figures of its run directory (--out) and this process's peak memory."""
    import torch

    from coderl.cli import main

    cuda = torch.cuda.is_available() and "cpu" not in argv
    record: dict = {"command": "coderl " + " ".join(argv)}
    if cap_gb is not None:
        if cuda:
            total = torch.cuda.get_device_properties(0).total_memory
            torch.cuda.set_per_process_memory_fraction(min(1.0, cap_gb * 2**30 / total))
            record["cap"] = f"torch.cuda.set_per_process_memory_fraction: {cap_gb} GiB of {total / 2**30:.1f}"
        else:
            record["cap"] = "not applied (no CUDA)"
    _peak_reset(cuda)
    t0 = time.perf_counter()
    try:
        rc = main(argv)
    except SystemExit as exc:
        rc = exc.code if isinstance(exc.code, int) else 1
    except Exception as exc:  # a GPU-only defect: recorded, one line
        rc, record["error"] = 1, f"{type(exc).__name__}: {' '.join(str(exc).split())[:300]}"
    record.update(exit=rc, wall_seconds=round(time.perf_counter() - t0, 2), peak_memory_gib=round(_peak_gb(cuda), 3),
                  peak_memory_kind="torch.cuda.max_memory_allocated" if cuda else "ru_maxrss")
    out = argv[argv.index("--out") + 1] if "--out" in argv else None
    record.update(run_figures(out) if out else {})
    record["status"] = "ok" if rc == 0 and record.get("all_finite", True) else "failed"
    _write_json(out_json, record)
    return 0


def plain(out_json: str, args) -> int:
    """Plain HF `generate` (dynamic cache, no compilation, sampling) on the evaluation's first `rows` rows
    (its tasks, `samples` rows each, task-major), in calls of `batch` rows: tokens/s, counted to the stop."""
    import torch

    from coderl.models import load_model, resolve_device
    from coderl.rollout import hf_callbacks, special_ids
    from coderl.rollout.batching import left_pad
    from coderl.rollout.formats import get_format, prompt_text
    from coderl.tasks import load_tasks

    device = resolve_device(args.device)
    loaded = load_model(args.model, dtype=args.dtype, device=device)
    model, tok = loaded.model, loaded.tokenizer
    tasks = [t for t in load_tasks(args.tasks).tasks for _ in range(args.samples)][:args.rows]
    fmt = get_format(args.format)
    rendered = [fmt.render(t, tok) for t in tasks]
    prompts = [tok(prompt_text(r, tok), add_special_tokens=isinstance(r, str))["input_ids"] for r in rendered]
    stops = [fmt.stop_sequences(t) for t in tasks]
    eos = sorted(set(special_ids.eos_token_ids(model, tok)))
    pad = tok.pad_token_id if tok.pad_token_id is not None else eos[0]
    with torch.no_grad():  # a warm-up call (CUDA context, kernels loaded): not what plain HF costs per token
        ids, mask = left_pad(prompts[:2], pad)
        model.generate(input_ids=ids.to(device), attention_mask=mask.to(device), do_sample=True, max_new_tokens=4,
                       pad_token_id=pad, eos_token_id=eos)
    torch.manual_seed(0)
    tokens, t0 = 0, time.perf_counter()
    with torch.no_grad():
        for start in range(0, len(prompts), args.batch):
            ids, mask = left_pad(prompts[start:start + args.batch], pad)
            seq = model.generate(input_ids=ids.to(device), attention_mask=mask.to(device), do_sample=True,
                                 temperature=args.temperature, top_p=1.0, top_k=0, max_new_tokens=args.max_new_tokens,
                                 pad_token_id=pad, eos_token_id=eos)
            for row, s in zip(seq[:, ids.shape[1]:].tolist(), stops[start:start + args.batch]):
                tokens += hf_callbacks.cut_generation(row, tok, s, set(eos))[0]
    if device == "cuda":
        torch.cuda.synchronize()
    seconds = time.perf_counter() - t0
    _write_json(out_json, {"status": "ok", "rows": len(prompts), "batch": args.batch, "tokens": tokens,
                           "seconds": round(seconds, 2), "tokens_per_second": round(tokens / seconds, 1)})
    return 0


def compile_cost(out_json: str, args) -> int:
    """coderl's `generate` on the evaluation's first `rows` rows, sampled: uncompiled, then compiled twice (the
    first call pays the compilation).  compile_seconds = first compiled call - its tokens at the warm rate;
    the work (rows x max_new_tokens) that repays it = compile_seconds / (1/eager - 1/warm tokens/s), scaled by
    the work per generated token: a measured value for CODERL_COMPILE_MIN_TOKENS."""
    import torch

    from coderl.models import load_model, resolve_device
    from coderl.rollout import generation
    from coderl.rollout.hf_config import HFOptions
    from coderl.tasks import load_tasks

    device = resolve_device(args.device)
    model = load_model(args.model, dtype=args.dtype, device=device)
    tasks = load_tasks(args.tasks).tasks[:max(1, args.rows // args.samples)]

    def timed(static):
        if device == "cuda":
            torch.cuda.synchronize()
        t = time.perf_counter()
        out = generation.generate(model.model, model.tokenizer, tasks, format=args.format,
                                  samples_per_prompt=args.samples, max_new_tokens=args.max_new_tokens,
                                  temperature=args.temperature, hf=HFOptions(batch_size=None, static_cache=static))
        if device == "cuda":
            torch.cuda.synchronize()
        return sum(len(x.gen_tokens) for x in out.samples), time.perf_counter() - t

    generation.generate(model.model, model.tokenizer, tasks[:1], format=args.format, max_new_tokens=4,
                        hf=HFOptions(static_cache=False))  # a warm-up (CUDA context, kernels loaded), eager
    eager_tokens, eager_s = timed(False)
    first_tokens, first_s = timed(True)
    warm_tokens, warm_s = timed(True)
    eager, warm = eager_tokens / eager_s, warm_tokens / warm_s
    compile_s = max(0.0, first_s - first_tokens / warm)
    gain = 1 / eager - 1 / warm  # seconds saved per generated token
    rows = len(tasks) * args.samples
    work_per_token = rows * args.max_new_tokens / max(1, warm_tokens)
    repay = compile_s / gain * work_per_token if gain > 0 else None
    _write_json(out_json, {"status": "ok", "rows": rows, "eager_tokens_per_second": round(eager, 1),
                           "compiled_warm_tokens_per_second": round(warm, 1), "first_compiled_call_seconds":
                           round(first_s, 2), "compile_seconds": round(compile_s, 2),
                           "repaid_at_work_tokens": round(repay) if repay is not None else None,
                           "note": "work = rows x max_new_tokens of one generate; CODERL_COMPILE_MIN_TOKENS default "
                                   "50,000 (the third lease's figure, rounded up)"})
    return 0


def eval_figures(out_json: str, runs: list[str]) -> int:
    """Each evaluation run's (dir:wall_seconds) summary figures."""
    record: dict = {"status": "ok"}
    for item in runs:
        run, _, wall = item.rpartition(":")
        path = os.path.join(run, "summary.json")
        if not os.path.isfile(path):
            record[os.path.basename(run)] = {"status": "failed", "why": f"no {path}"}
            record["status"] = "failed"
            continue
        s = json.load(open(path))
        record[os.path.basename(run)] = {
            "status": "ok", "wall_seconds": float(wall), "seconds": s["seconds"],
            "tokens_per_second": round(s["tokens_per_second"] or 0, 1), "num_samples": s["num_samples"],
            "avg_gen_tokens": round(s["avg_gen_tokens"], 1), "pass_at_1": s["pass_at_k"].get("pass@1")}
    _write_json(out_json, record)
    return 0


def start_parts(out_json: str, args) -> int:
    """The start of an evaluation in this (fresh) process, part by part, in the order `coderl eval` meets them."""
    parts: dict[str, float] = {}
    t = time.perf_counter()

    def stamp(name: str) -> None:
        nonlocal t
        now = time.perf_counter()
        parts[name] = round(now - t, 3)
        t = now

    import torch
    stamp("import_torch")
    import transformers  # noqa: F401
    stamp("import_transformers")
    import coderl.cli  # noqa: F401
    from coderl.eval.run import run_eval  # noqa: F401
    from coderl.models import load_model, resolve_device
    from coderl.sandbox.config import SandboxConfig
    from coderl.tasks.spec import load_tasks, open_sandbox
    stamp("import_coderl")
    device = torch.device(resolve_device(args.device))
    if device.type == "cuda":
        torch.zeros(1, device=device)
        torch.cuda.synchronize()
    stamp("device_start")
    loaded = load_model(args.model, dtype=args.dtype, device=device)
    if device.type == "cuda":
        torch.cuda.synchronize()
    stamp("load_model")
    tasks = load_tasks(args.tasks).tasks
    stamp("load_tasks")
    with open_sandbox(SandboxConfig(), args.tasks):
        stamp("sandbox_start")
    stamp("sandbox_close")
    with torch.no_grad():
        ids = loaded.tokenizer(["def f(x):"] * 8, return_tensors="pt").input_ids.to(device)
        loaded.model(ids)
        if device.type == "cuda":
            torch.cuda.synchronize()
    stamp("first_forward")
    _write_json(out_json, {"status": "ok", "tasks": len(tasks), "device": str(device), "seconds": parts,
                           "total_seconds": round(sum(parts.values()), 3)})
    return 0


def record(records: str, name: str, text: str) -> int:
    try:
        obj = json.loads(text) if text.strip() else {}
    except json.JSONDecodeError:
        obj = {"status": "failed", "why": f"unreadable record: {text[:200]}"}
    with open(records, "a") as f:
        f.write(json.dumps({"section": name, **obj}) + "\n")
    return 0


def _line(name: str, r: dict) -> str:
    keep = {k: v for k, v in r.items() if k not in ("section", "status", "command") and not isinstance(v, (dict, list))}
    figures = ", ".join(f"{k}={v}" for k, v in keep.items())
    nested = "; ".join(f"{k}: " + ", ".join(f"{kk}={vv}" for kk, vv in v.items() if not isinstance(vv, (dict, list)))
                       for k, v in r.items() if isinstance(v, dict))
    return f"gpu_check {name}: {r.get('status', '?')}" + (f" | {figures}" if figures else "") + \
        (f" | {nested}" if nested else "")


def merge(records: str, gpu_json: str) -> int:
    sections: dict = {}
    if os.path.isfile(records):
        with open(records) as f:
            for line in f:
                if line.strip():
                    r = json.loads(line)
                    sections.setdefault(r["section"], {}).update(r)
    _write_json(gpu_json, {"sections": sections})
    for name, r in sections.items():
        print(_line(name, r))
    return 0


def cli(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    cmd, rest = (argv[0], argv[1:]) if argv else ("", [])
    if cmd == "assemble":
        extra = [Path(d) for d in os.environ.get("CARRY_EXTRA", "").split(":") if d]
        r = assemble(Path(rest[0]), Path(rest[1]), extra)
        print(json.dumps(r))
        return 0
    if cmd == "tiny":
        print(json.dumps(tiny(Path(rest[0]))))
        return 0
    if cmd == "train":
        cap = None
        out_json, rest = rest[0], rest[1:]
        if rest[:1] == ["--cap-gb"]:
            cap, rest = float(rest[1]), rest[2:]
        if rest[:1] == ["--"]:
            rest = rest[1:]
        return train(out_json, cap, rest)
    if cmd == "plain":
        ap = argparse.ArgumentParser()
        for flag, kind, default in [("--model", str, None), ("--tasks", str, "easy"), ("--samples", int, 1),
                                    ("--rows", int, 128), ("--batch", int, 128), ("--format", str, "chat"),
                                    ("--max-new-tokens", int, 128), ("--temperature", float, 0.8),
                                    ("--device", str, "auto"), ("--dtype", str, "float32")]:
            ap.add_argument(flag, type=kind, default=default)
        return plain(rest[0], ap.parse_args(rest[1:]))
    if cmd == "compile":
        ap = argparse.ArgumentParser()
        for flag, kind, default in [("--model", str, None), ("--tasks", str, "easy"), ("--samples", int, 1),
                                    ("--rows", int, 128), ("--format", str, "chat"), ("--max-new-tokens", int, 128),
                                    ("--temperature", float, 0.8), ("--device", str, "auto"),
                                    ("--dtype", str, "float32")]:
            ap.add_argument(flag, type=kind, default=default)
        return compile_cost(rest[0], ap.parse_args(rest[1:]))
    if cmd == "start":
        ap = argparse.ArgumentParser()
        for flag, default in [("--model", None), ("--tasks", "easy"), ("--device", "auto"), ("--dtype", "float32")]:
            ap.add_argument(flag, default=default)
        return start_parts(rest[0], ap.parse_args(rest[1:]))
    if cmd == "stopped":
        return stopped(rest[0], int(rest[1]), rest[2:])
    if cmd == "eval-figures":
        return eval_figures(rest[0], rest[1:])
    if cmd == "record":
        return record(rest[0], rest[1], rest[2] if len(rest) > 2 else "")
    if cmd == "merge":
        return merge(rest[0], rest[1])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(cli())
