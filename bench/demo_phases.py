"""Where `make demo`'s time goes, phase by phase, now and at another commit side by side (issue 72).

The demo's own shapes (configs/cpu-demo.yaml) on the bundled model in --dtype under a LoRA adapter (--adapter: the
demo's SFT adapter, `runs/pipeline/cpu-demo/sft/final`; default: a fresh rank-8 adapter on q/k/v/o with B drawn at
std 0.02, seeded, saved once and loaded by both sides):

* eval-greedy   the 76 easy tasks, chat, greedy, 256 new tokens (the demo's `eval:`).
* eval-sampled  the 76 easy tasks x 8 samples, T 0.8, 128 new tokens, seed 0 (`easy-sampled`).
  Each at the rows per call that the side's own configs/cpu-demo.yaml gives the set (`batch` in the table).
  Both through `coderl.rollout.generation.generate`, as `coderl eval` calls it: wall time, tokens up to each row's
  stop (as bench/generate.py counts), tokens/s, and a digest of the answers (the two sides' greedy answers should
  be identical; sampled ones are draws of the same distribution).
* decode        the cost of one decoding step, fixed work (--decode-rows prompts of the easy set, exactly
  --decode-tokens new tokens, greedy): plain HF `generate` on the base model, on the adapter (the LoRA layers'
  cost), on the adapter merged into the base, and coderl's `sample_rows` on the adapter (its stop checks, log-prob
  capture and processors: coderl's per-step cost over plain HF); per step = (call - prefill forward) / tokens; and
  that prefill forward itself (the padded prompts, logits for the last position).
* update        the RL update's passes through `train/logprobs.py`'s `token_logprobs`, dropout off, as the
  GRPO loop runs them: one piece of the 16 rows whose advantage moves (4 pool prompts x 4), completions of
  seeded lengths (mean about 50) padded to 128; a no-grad pass, a pass with a graph and its backward.
* rl-step       `coderl train` with the demo's GRPO settings from the adapter for --steps steps (step 1 warms up):
  medians over the later steps of time/generation, time/forward, time/backward, time/step from metrics.jsonl.
* eval-run      `coderl eval` of the adapter on easy-sampled, whole, as the demo runs it (its rows per call, two
  sandbox workers): its wall, generation and total seconds, and pass@1 (the same draws on both sides when the
  generation code is the same: the sandbox's checks and their order are what differs).
* peak          this machine's GEMM rate (2048 x 2048, every torch thread) in float32 and bfloat16, and its read
  bandwidth (bench/roofline.py), measured in the side's own process: with it, `decode` and `update` also give
  their FLOPs and bytes from the shapes, the bound at those peaks, which one binds, and the share of the bound
  the measured time reaches (issue 101's roofline; 1.0 = at the machine's limit).
* sft           `coderl sft` at the demo's settings (corpus@train, 1 x 8, LoRA r 8 with dropout 0.05, bf16) over
  --sft-epochs of an epoch: the seconds of its optimizer steps after the first (the same examples both sides)
  and the last loss.

Each side runs in its own process (`--only DIR`: that checkout's coderl on PYTHONPATH; this file's code), sides
alternating for --rounds rounds.  Run it alone on the machine: another job's threads make torch's own threads
wait (BENCHMARKS.md, "The cores under load").

    python bench/demo_phases.py --before 827ca0c                  # now against the baseline, every phase
    python bench/demo_phases.py --phases decode,update --decode-rows 8 --decode-tokens 16   # a quick look
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
PHASES = ("peak", "eval-greedy", "eval-sampled", "decode", "update", "rl-step", "eval-run", "sft")


def _adapter(args, tmp: str) -> str:
    """The adapter both sides load: --adapter, or a fresh seeded one saved under `tmp`."""
    if args.adapter:
        return args.adapter
    import torch

    from coderl.models import load_model
    from coderl.models.load import save_adapter
    from coderl.models.lora import LoraConfig

    base = load_model(args.model, dtype=args.dtype, device="cpu")
    torch.manual_seed(0)  # A's initialisation: the same adapter in every run of this script
    model = LoraConfig().wrap(base.model)
    gen = torch.Generator().manual_seed(0)
    with torch.no_grad():
        for name, p in model.named_parameters():
            if "lora_B" in name:
                p.copy_(torch.randn(p.shape, generator=gen) * 0.02)
    return str(save_adapter(model, os.path.join(tmp, "adapter"), base, prompt_format="chat"))


def _digest(texts) -> str:
    return hashlib.sha256("\x00".join(texts).encode()).hexdigest()[:12]


def _demo_batch(set_name: str | None) -> int:
    """The rows per generation call that this side's configs/cpu-demo.yaml gives an evaluation set (None: `eval:`)."""
    import yaml

    with open(os.path.join("configs", "cpu-demo.yaml")) as f:
        config = yaml.safe_load(f)
    batch = config["eval"].get("batch_size", 64)
    for entry in config.get("evals") or []:
        if entry["name"] == set_name:
            batch = entry.get("batch_size", batch)
    return batch


def _hf_rows(batch_size: int | None) -> dict:
    """The rows-per-call keyword of `generate` / `sample_rows` at this checkout or an earlier one (`--before`): an
    `HFOptions` since issue 76, a plain keyword before it."""
    try:
        from coderl.rollout.hf_config import HFOptions
    except ImportError:
        return {"batch_size": batch_size}
    return {"hf": HFOptions(batch_size=batch_size)}


def _sample_rows(model, tok, prompts: list, *, batch_size: int, **settings) -> list:
    """`sample_rows` at this checkout (a `Sampling` and `HFOptions`, since issue 76) or an earlier one (keywords)."""
    from coderl.rollout.generation import sample_rows

    try:
        from coderl.rollout.engine import Sampling
    except ImportError:
        return sample_rows(model, tok, prompts, [()] * len(prompts), batch_size=batch_size, **settings)
    return sample_rows(model, tok, prompts, [()] * len(prompts), Sampling(**settings), **_hf_rows(batch_size))


def _eval(model, tok, tasks, *, samples: int, temperature: float, max_new_tokens: int, batch_size: int) -> dict:
    from coderl.rollout.generation import generate

    t0 = time.perf_counter()
    batch = generate(model, tok, tasks, format="chat", samples_per_prompt=samples, temperature=temperature,
                     max_new_tokens=max_new_tokens, seed=0, **_hf_rows(batch_size))
    wall = time.perf_counter() - t0
    tokens = sum(len(s.gen_tokens) for s in batch.samples)
    return {"batch": batch_size, "s": round(wall, 2), "tokens": tokens, "tok_s": round(tokens / wall, 1),
            "answers": _digest(s.raw_output for s in batch.samples)}


def _prompts(tok, tasks, rows: int) -> list[list[int]]:
    from coderl.rollout.formats import get_format, prompt_text

    fmt = get_format("chat")
    out = []
    for task in tasks[:rows]:
        rendered = fmt.render(task, tok)
        out.append(tok(prompt_text(rendered, tok), add_special_tokens=isinstance(rendered, str))["input_ids"])
    return out


def _decode(loaded, base_spec, args) -> dict:
    import torch

    from coderl.models import load_model
    from coderl.rollout.batching import left_pad
    from coderl.tasks import load_tasks

    tok, lora = loaded.tokenizer, loaded.model
    prompts = _prompts(tok, load_tasks("easy").tasks, args.decode_rows)
    ids, att = left_pad(prompts, tok.pad_token_id)
    n = args.decode_tokens

    def plain(model) -> float:
        model.eval()
        with torch.no_grad():
            model.generate(input_ids=ids[:2, -8:], attention_mask=att[:2, -8:], max_new_tokens=2, do_sample=False,
                           pad_token_id=tok.pad_token_id)  # warm-up
            t0 = time.perf_counter()
            model(input_ids=ids, attention_mask=att, logits_to_keep=1)
            prefill = time.perf_counter() - t0
            t0 = time.perf_counter()
            model.generate(input_ids=ids, attention_mask=att, max_new_tokens=n, min_new_tokens=n, do_sample=False,
                           pad_token_id=tok.pad_token_id)
            return (time.perf_counter() - t0 - prefill) / n * 1000

    out = {"rows": len(prompts), "tokens": n, "prompt_width": ids.shape[1]}
    out["plain_hf_lora_ms"] = round(plain(lora), 1)
    t0 = time.perf_counter()
    with torch.no_grad():
        lora(input_ids=ids, attention_mask=att, logits_to_keep=1)
    prefill = time.perf_counter() - t0
    t0 = time.perf_counter()
    _sample_rows(lora, tok, prompts, batch_size=len(prompts), max_new_tokens=n, min_new_tokens=n)
    out["coderl_lora_ms"] = round((time.perf_counter() - t0 - prefill) / n * 1000, 1)
    out["prefill_lora_ms"] = round(prefill * 1000, 1)  # the padded prompts' one forward, logits for the last
    base = load_model(base_spec, dtype=args.dtype, device="cpu").model
    out["plain_hf_base_ms"] = round(plain(base), 1)
    del base
    import copy

    merged = copy.deepcopy(lora).merge_and_unload()
    out["plain_hf_merged_ms"] = round(plain(merged), 1)
    return out


def _update(loaded, args) -> dict:
    """The GRPO update's passes as `train/rl/policy_gradient.py` runs them, dropout off: the demo's 4 pool prompts
    x 8 samples, of which the 16 rows of a typical step whose advantage moves (one piece of 16); completions of
    seeded lengths (5-110 tokens, mean about 50, as the demo's), padded to 128 as a rollout with one row cut at
    128 is; a no-grad log-prob pass, then `token_logprobs` with a graph and its backward."""
    import torch

    from coderl.rollout.batching import left_pad
    from coderl.tasks import load_tasks
    try:
        from coderl.train.logprobs import Sequences, token_logprobs
    except ImportError:  # an earlier checkout (`--before`): before issue 76
        from coderl.train.rl.logprobs import Sequences, token_logprobs

    tok, model = loaded.tokenizer, loaded.model
    prompts = [p for p in _prompts(tok, load_tasks("pool:n=4").tasks, 4) for _ in range(4)]  # 16 live rows
    gen = torch.Generator().manual_seed(0)
    lengths = torch.randint(5, 111, (16,), generator=gen)
    width = 128
    ids, att = left_pad(prompts, tok.pad_token_id)
    completion = torch.randint(100, 40000, (16, width), generator=gen)
    real = (torch.arange(width)[None, :] < lengths[:, None]).long()
    completion = completion * real + tok.pad_token_id * (1 - real)
    attention = torch.cat([att, real], 1)
    positions = (attention.cumsum(1) - 1).clamp(min=0) * attention
    seqs = Sequences(torch.cat([ids, completion], 1), attention, positions, completion, real.float())
    model.eval()  # the RL loop differentiates with dropout off
    for name, p in model.named_parameters():
        p.requires_grad_("lora_" in name)
    t0 = time.perf_counter()
    with torch.no_grad():
        token_logprobs(model, seqs, 0.8)
    nograd = time.perf_counter() - t0
    t0 = time.perf_counter()
    logprobs = token_logprobs(model, seqs, 0.8)
    fwd = time.perf_counter() - t0
    t0 = time.perf_counter()
    (logprobs * seqs.mask).sum().backward()
    bwd = time.perf_counter() - t0
    model.zero_grad(set_to_none=True)
    return {"rows": 16, "prompts": 4, "prompt_width": int(ids.shape[1]), "completion_tokens": int(lengths.sum()),
            "width": width, "trimmed_width": int(lengths.max()), "logprob_pass_s": round(nograd, 2),
            "forward_s": round(fwd, 2), "backward_s": round(bwd, 2)}


def _roofline(phase: str, res: dict, model, dtype: str) -> dict:
    """`decode` / `update` figures against the peaks of `res["peak"]` (bench/roofline.py); none for a dtype
    whose GEMM rate the peak phase did not measure."""
    import roofline

    peak = res["peak"]
    if f"gemm_gflops_{dtype}" not in peak:
        return {}
    flops, read = peak[f"gemm_gflops_{dtype}"] * 1e9, peak["read_gbytes"] * 1e9
    adapter = getattr(model, "peft_config", {}).get("default")
    shape = roofline.Shape.of(model.config, lora_r=adapter.r if adapter is not None else 0)
    if adapter is not None:
        shape = dataclasses.replace(shape, lora_targets=tuple(adapter.target_modules))
    elem = {"float32": 4, "bfloat16": 2, "float16": 2}[dtype]
    got = res[phase]
    if phase == "decode":  # per step, at the steps' mean context: the padded prompt and half the new tokens
        cost = roofline.decode_step(shape, got["rows"], got["prompt_width"] + got["tokens"] // 2, elem)
        bound, binds = cost.bound(flops, read)
        prefill = roofline.forward(shape, got["rows"], got["prompt_width"], 0, 1, elem)
        pbound, pbinds = prefill.bound(flops, read)
        return {"step_gflop": round(cost.flops / 1e9, 2), "step_mbytes": round(cost.bytes / 1e6),
                "bound_ms": round(bound * 1000, 1), "binds": binds,
                "share_coderl": round(roofline.share(got["coderl_lora_ms"] / 1000, bound), 3),
                "share_plain_base": round(roofline.share(got["plain_hf_base_ms"] / 1000, bound), 3),
                "prefill_gflop": round(prefill.flops / 1e9, 1), "prefill_bound_ms": round(pbound * 1000, 1),
                "prefill_binds": pbinds,
                "share_prefill": round(roofline.share(got["prefill_lora_ms"] / 1000, pbound), 3)}
    fwd, bwd = roofline.update(shape, got["prompts"], got["rows"], got["prompt_width"], got["trimmed_width"], elem)
    (fb, fbind), (bb, bbind) = fwd.bound(flops, read), bwd.bound(flops, read)
    return {"forward_gflop": round(fwd.flops / 1e9, 1), "backward_gflop": round(bwd.flops / 1e9, 1),
            "forward_bound_s": round(fb, 3), "backward_bound_s": round(bb, 3), "binds": f"{fbind}/{bbind}",
            "share_forward": round(roofline.share(got["forward_s"], fb), 3),
            "share_logprob_pass": round(roofline.share(got["logprob_pass_s"], fb), 3),
            "share_backward": round(roofline.share(got["backward_s"], bb), 3)}


def _coderl(cmd: list[str]) -> tuple[float, str | None]:
    """Run `coderl CMD...` with this side's coderl: (wall seconds, the last line of its stderr if it failed)."""
    t0 = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "coderl", *cmd], capture_output=True, text=True)
    wall = time.perf_counter() - t0
    return wall, ((proc.stderr.strip().splitlines() or ["?"])[-1] if proc.returncode != 0 else None)


def _step_rows(out: str) -> list[dict]:
    """The metrics.jsonl rows of a training run's optimizer steps."""
    from coderl.train.tracking import read_metrics

    return [row for row in read_metrics(out) if "time/step" in row]


def _rl_step(adapter: str, args, tmp: str) -> dict:
    out = os.path.join(tmp, "rl")
    cmd = ["train", "--model", adapter, "--tasks", "pool", "--algo", "grpo",
           "--steps", str(args.steps), "--prompts-per-step", "4", "--samples-per-prompt", "8",
           "--generation-batch-size", "64", "--micro-batch-size", "16", "--max-new-tokens", "128",
           "--temperature", "0.8", "--learning-rate", "2e-4", "--reward", "pass", "--curriculum-floor", "0.1",
           "--overlong-filter", "--workers", "2", "--dtype", args.dtype, "--save-steps", "1000", "--out", out,
           "--overwrite", "--no-progress"]
    wall, error = _coderl(cmd)
    if error:
        return {"error": error}
    rows = _step_rows(out)
    later = rows[1:] or rows
    med = {k: round(statistics.median(r[f"time/{k}"] for r in later), 2)
           for k in ("generation", "forward", "backward", "step")}
    return {"steps": len(rows), "wall_s": round(wall, 1), **med,
            "gen_tokens": round(statistics.mean(r["rollout/gen_tokens"] for r in later), 1)}


def _eval_run(adapter: str, args, tmp: str) -> dict:
    out = os.path.join(tmp, "eval")
    cmd = ["eval", "--model", adapter, "--format", "chat", "--dtype", args.dtype,
           "--seed", "0", "--workers", "2", "--tasks", "easy", "--split", "all", "--samples", "8", "--temperature",
           "0.8", "--max-new-tokens", "128", "--batch-size", str(_demo_batch("easy-sampled")), "--out", out,
           "--overwrite"]
    wall, error = _coderl(cmd)
    if error:
        return {"error": error}
    with open(os.path.join(out, "summary.json")) as f:
        summary = json.load(f)
    return {"wall_s": round(wall, 1), "generation_s": summary["seconds"]["generation"],
            "total_s": summary["seconds"]["total"], "pass@1": round(summary["pass_at_k"]["pass@1"], 4),
            "tokens": round(summary["avg_gen_tokens"] * summary["num_samples"])}


def _sft(args, tmp: str) -> dict:
    out = os.path.join(tmp, "sft")
    cmd = ["sft", "--model", args.model, "--data", "corpus@train", "--epochs",
           str(args.sft_epochs), "--learning-rate", "1e-4", "--batch-size", "1", "--gradient-accumulation", "8",
           "--lora-r", "8", "--lora-alpha", "16", "--lora-dropout", "0.05", "--format", "chat", "--dtype",
           args.dtype, "--seed", "0", "--out", out, "--overwrite", "--no-progress"]
    wall, error = _coderl(cmd)
    if error:
        return {"error": error}
    rows = _step_rows(out)
    return {"steps": len(rows), "wall_s": round(wall, 1),
            "later_steps_s": round(sum(r["time/step"] for r in rows[1:]), 2),
            "last_loss": round(rows[-1]["sft/loss"], 4)}


def run_side(args) -> dict:
    """Every phase of --phases with the coderl on PYTHONPATH."""
    import torch

    import coderl
    from coderl.models import load_model
    from coderl.tasks import load_tasks

    torch.manual_seed(0)
    res = {"coderl": os.path.dirname(os.path.dirname(coderl.__file__)), "threads": torch.get_num_threads()}
    loaded = load_model(args.adapter_path, dtype=args.dtype, device="cpu")
    loaded.model.eval()
    easy = load_tasks("easy").tasks
    for phase in sorted(args.phases, key=PHASES.index):  # the peaks first: the roofline figures need them
        t0 = time.perf_counter()
        if phase == "peak":
            import roofline

            peaks = roofline.measure_peaks()
            name, flags = roofline.cpu_name_and_flags()
            res[phase] = {"cpu": name, "flags": " ".join(flags), "threads": torch.get_num_threads(),
                          **{f"gemm_gflops_{k[5:]}": round(v / 1e9, 1) for k, v in peaks.items() if k != "read_bytes"},
                          "read_gbytes": round(peaks["read_bytes"] / 1e9, 1)}
        elif phase == "eval-greedy":
            res[phase] = _eval(loaded.model, loaded.tokenizer, easy, samples=1, temperature=0.0, max_new_tokens=256,
                               batch_size=_demo_batch(None))
        elif phase == "eval-sampled":
            res[phase] = _eval(loaded.model, loaded.tokenizer, easy, samples=8, temperature=0.8, max_new_tokens=128,
                               batch_size=_demo_batch("easy-sampled"))
        elif phase == "decode":
            res[phase] = _decode(loaded, args.model, args)
        elif phase == "update":
            res[phase] = _update(loaded, args)
            loaded.model.eval()
        elif phase == "rl-step":
            with tempfile.TemporaryDirectory(prefix="coderl-bench-rl-") as tmp:
                res[phase] = _rl_step(args.adapter_path, args, tmp)
        elif phase == "eval-run":
            with tempfile.TemporaryDirectory(prefix="coderl-bench-eval-") as tmp:
                res[phase] = _eval_run(args.adapter_path, args, tmp)
        elif phase == "sft":
            with tempfile.TemporaryDirectory(prefix="coderl-bench-sft-") as tmp:
                res[phase] = _sft(args, tmp)
        if phase in ("decode", "update") and "peak" in res:
            res[phase].update(_roofline(phase, res, loaded.model, args.dtype))
        print(f"#   {phase}: {json.dumps(res[phase])} ({time.perf_counter() - t0:.0f} s)", file=sys.stderr, flush=True)
    return res


def _checkout(commit: str, tmp: str) -> str:
    if os.path.isdir(commit):
        return os.path.abspath(commit)
    path = os.path.join(tmp, "before")
    subprocess.run(["git", "-C", ROOT, "worktree", "add", "--detach", "-q", path, commit], check=True)
    return path


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--before", metavar="COMMIT", help="a commit (or a checkout's directory) to run side by side")
    ap.add_argument("--phases", default=",".join(PHASES), help=f"comma-separated, of {', '.join(PHASES)}")
    ap.add_argument("--model", default="smollm2-135m-instruct")
    ap.add_argument("--adapter", help="a LoRA adapter folder (default: a fresh seeded one)")
    ap.add_argument("--dtype", default="bfloat16")
    ap.add_argument("--decode-rows", type=int, default=32)
    ap.add_argument("--decode-tokens", type=int, default=64)
    ap.add_argument("--steps", type=int, default=4, help="rl-step: steps of `coderl train` (the first warms up)")
    ap.add_argument("--sft-epochs", type=float, default=0.06, help="sft: the share of an epoch (0.06: 4 steps of 8)")
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument("--json", help="write every side's figures here")
    ap.add_argument("--only", help=argparse.SUPPRESS)  # internal: run one side here, print its JSON
    ap.add_argument("--adapter-path", help=argparse.SUPPRESS)
    args = ap.parse_args()
    args.phases = [p for p in args.phases.split(",") if p]
    bad = [p for p in args.phases if p not in PHASES]
    if bad:
        ap.error(f"--phases: {bad[0]!r} is not one of {', '.join(PHASES)}")
    if args.only:
        print(json.dumps(run_side(args)))
        return
    with tempfile.TemporaryDirectory(prefix="coderl-bench-phases-") as tmp:
        args.adapter_path = _adapter(args, tmp)
        sides = {"now": ROOT}
        if args.before:
            sides["before"] = _checkout(args.before, tmp)
        sys.path.insert(0, HERE)
        import roofline

        cpu, flags = roofline.cpu_name_and_flags()
        print(f"# {cpu} ({' '.join(flags) or 'no AVX2'}), {os.cpu_count()} CPUs, "
              f"{time.strftime('%Y-%m-%d %H:%M')}, adapter {args.adapter or 'fresh (seeded)'}, dtype {args.dtype}",
              flush=True)
        results: dict[str, list] = {name: [] for name in sides}
        try:
            for r in range(args.rounds):
                order = list(sides) if r % 2 == 0 else list(sides)[::-1]
                for name in order:
                    env = dict(os.environ, PYTHONPATH=os.pathsep.join([sides[name], HERE, *filter(None, [
                        os.environ.get("PYTHONPATH")])]))
                    cmd = [sys.executable, os.path.abspath(__file__), "--only", name, "--adapter-path",
                           args.adapter_path, "--phases", ",".join(args.phases), "--model", args.model, "--dtype",
                           args.dtype, "--decode-rows", str(args.decode_rows), "--decode-tokens",
                           str(args.decode_tokens), "--steps", str(args.steps), "--sft-epochs", str(args.sft_epochs)]
                    print(f"# round {r + 1}, {name} ({sides[name]})", flush=True)
                    proc = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, text=True, cwd=sides[name])
                    if proc.returncode != 0:
                        sys.exit(f"demo_phases: the {name} side failed (exit {proc.returncode})")
                    results[name].append(json.loads(proc.stdout.strip().splitlines()[-1]))
        finally:
            if args.before and not os.path.isdir(args.before):
                subprocess.run(["git", "-C", ROOT, "worktree", "remove", "--force", sides["before"]])
    _table(results, args.phases)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)


def _table(results: dict, phases) -> None:
    """Per phase and figure: each side's median over the rounds; with two sides, before / now."""
    names = list(results)
    print("| phase | figure | " + " | ".join(names) + (" | before / now |" if len(names) == 2 else " |"))
    print("|---|---|" + "---|" * len(names) + ("---|" if len(names) == 2 else ""))
    for phase in phases:
        keys = [k for k, v in results[names[0]][0].get(phase, {}).items() if isinstance(v, (int, float))]
        for key in keys:
            vals = [statistics.median(r[phase][key] for r in results[n]) for n in names]
            ratio = ""
            if len(names) == 2 and vals[0]:
                ratio = f" {vals[1] / vals[0]:.2f}x |"
            print(f"| {phase} | {key} | " + " | ".join(f"{v:g}" for v in vals) + (" |" + ratio if ratio else " |"))
        answers = {n: {r[phase].get("answers") for r in results[n]} for n in names if "answers" in results[n][0].get(
            phase, {})}
        if answers:
            print(f"| {phase} | answers | " + " | ".join(",".join(sorted(a)) for a in answers.values()) + " |")


if __name__ == "__main__":
    main()
