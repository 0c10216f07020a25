"""What SDPO's self-teacher would add to one GRPO step at the demo's shape (issue 78 item 1: "SDPO's per-step cost
measured in bench/ first"), before any of it is built.

SDPO (Hübotter et al. 2026, "Reinforcement learning via self-distillation", arXiv 2601.20802; TRL's experimental
`sdpo`) scores each failed completion a second time with the same policy, now conditioned on the sandbox's
feedback about it (the failing visible tests, the error: what coderl's repair turns render), and distils those
feedback-informed token probabilities back into the unconditioned policy.  Over a plain step that costs (a) a
visible-tests run per failed row, whose result becomes the feedback message, and (b) a no-grad log-prob pass over
the failed rows with the longer prompt (the task's prompt with the feedback appended) and the same completion
tokens.  This script measures both against the plain step's own phases, on the same rollouts, in one process:

* generate   the demo's GRPO rollout: 4 pool prompts of level 2 (mostly all-fail groups: what SDPO is for) x 8
             samples, chat, T 0.8, 128 new tokens, one call of 32 rows (`coderl.rollout.generation.generate`)
* score      every row on the task's tests in the sandbox (2 workers), as the reward is computed
* update     the GRPO update's passes over the 32 rows in pieces of 16 (`token_logprobs` with a graph and its
             backward, dropout off), as the demo's `micro_batch_size: 16` runs them
* feedback   SDPO (a): the failed rows on their visible tests (`coderl.tasks.visibility.split_tests`), then
             `coderl.rollout.feedback.feedback_message` capped at 256 tokens (repair's default)
* teacher    SDPO (b): `token_logprobs` without a graph over the failed rows, each prompt with its feedback
             appended to the user message, in pieces of 16

Medians over --repeats rollouts (different seeds), after one warm-up.  The model: the bundled SmolLM2-135M-Instruct
in --dtype under a fresh seeded rank-8 adapter (bench/demo_phases.py's), or --adapter.  Run it alone.

    python bench/self_distill_cost.py                    # the demo's shape, 3 rollouts
    python bench/self_distill_cost.py --repeats 1 --new-tokens 16     # a quick look
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))  # this checkout's coderl
sys.path.insert(0, HERE)


def _sequences(prompts: list[list[int]], completions: list[tuple[int, ...]], pad: int, width: int):
    """`Sequences` of left-padded prompts followed by right-padded completions (as a rollout lays them out)."""
    import torch

    from coderl.rollout.batching import left_pad
    from coderl.train.rl.logprobs import Sequences

    ids, att = left_pad(prompts, pad)
    comp = torch.full((len(completions), width), pad, dtype=torch.long)
    real = torch.zeros((len(completions), width), dtype=torch.long)
    for i, c in enumerate(completions):
        comp[i, :len(c)] = torch.tensor(c[:width], dtype=torch.long)
        real[i, :len(c)] = 1
    attention = torch.cat([att, real], 1)
    positions = (attention.cumsum(1) - 1).clamp(min=0) * attention
    return Sequences(torch.cat([ids, comp], 1), attention, positions, comp, real.float())


def _pieces(n: int, size: int) -> list[slice]:
    return [slice(i, min(i + size, n)) for i in range(0, n, size)]


def one_rollout(loaded, tasks, sandbox, args, seed: int) -> dict:
    import torch

    from coderl.rollout.feedback import feedback_message
    from coderl.rollout.formats import get_format, prompt_text
    from coderl.rollout.generation import generate
    from coderl.tasks.visibility import split_tests
    from coderl.train.rl.logprobs import token_logprobs

    tok, model = loaded.tokenizer, loaded.model
    fmt = get_format("chat")
    out: dict = {}
    t0 = time.perf_counter()
    batch = generate(model, tok, tasks, format="chat", samples_per_prompt=args.samples, temperature=0.8,
                     max_new_tokens=args.new_tokens, batch_size=len(tasks) * args.samples, seed=seed)
    out["generate_s"] = time.perf_counter() - t0
    rows = batch.samples
    by_id = {t.task_id: t for t in tasks}

    t0 = time.perf_counter()
    results = [f.result() for f in [sandbox.submit(by_id[s.task_id].build_request(s.completion)) for s in rows]]
    out["score_s"] = time.perf_counter() - t0
    failed = [i for i, r in enumerate(results) if not r.passed]
    out["rows"], out["failed"] = len(rows), len(failed)

    prompts = []
    for s in rows:
        rendered = fmt.render(by_id[s.task_id], tok)
        prompts.append(tok(prompt_text(rendered, tok), add_special_tokens=isinstance(rendered, str))["input_ids"])
    model.eval()
    for name, p in model.named_parameters():
        p.requires_grad_("lora_" in name)
    seqs = _sequences(prompts, [s.gen_tokens for s in rows], tok.pad_token_id, args.new_tokens)
    t0 = time.perf_counter()
    for piece in _pieces(len(rows), 16):
        part = _sequences(prompts[piece], [s.gen_tokens for s in rows[piece]], tok.pad_token_id, args.new_tokens)
        (token_logprobs(model, part, 0.8) * part.mask).sum().backward()
    out["update_s"] = time.perf_counter() - t0
    model.zero_grad(set_to_none=True)
    out["student_prompt_tokens"] = float(seqs.attention_mask[:, :-args.new_tokens].sum(1).float().mean())

    t0 = time.perf_counter()
    splits = {t.task_id: split_tests(t) for t in tasks}
    futures = {i: sandbox.submit(by_id[rows[i].task_id].with_tests(splits[rows[i].task_id].visible)
                                 .build_request(rows[i].completion)) for i in failed
               if splits[rows[i].task_id].visible}
    messages = {i: feedback_message(by_id[rows[i].task_id], splits[rows[i].task_id].visible, f.result(),
                                    count_tokens=lambda text: len(tok(text)["input_ids"]), max_tokens=256)
                for i, f in futures.items()}
    out["feedback_s"] = time.perf_counter() - t0
    out["with_feedback"] = len(messages)

    teacher_rows = sorted(messages)
    teacher_prompts = []
    for i in teacher_rows:
        rendered = fmt.render(by_id[rows[i].task_id], tok)
        rendered = [*rendered[:-1], {**rendered[-1], "content": rendered[-1]["content"]
                                     + "\n\nAn earlier answer got this feedback:\n\n" + messages[i]}]
        teacher_prompts.append(tok(prompt_text(rendered, tok), add_special_tokens=False)["input_ids"])
    t0 = time.perf_counter()
    with torch.no_grad():
        for piece in _pieces(len(teacher_rows), 16):
            part = _sequences(teacher_prompts[piece], [rows[i].gen_tokens for i in teacher_rows[piece]],
                              tok.pad_token_id, args.new_tokens)
            token_logprobs(model, part, 0.8)
    out["teacher_s"] = time.perf_counter() - t0
    out["teacher_prompt_tokens"] = statistics.mean(len(p) for p in teacher_prompts) if teacher_prompts else 0.0
    out["gen_tokens"] = statistics.mean(len(s.gen_tokens) for s in rows)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", default="smollm2-135m-instruct")
    ap.add_argument("--adapter", default=None, help="an adapter folder (default: a fresh seeded rank-8 adapter)")
    ap.add_argument("--dtype", default="auto")
    ap.add_argument("--tasks", default="pool:level=2", help="the prompts' task spec (default: the pool's level 2)")
    ap.add_argument("--prompts", type=int, default=4)
    ap.add_argument("--samples", type=int, default=8)
    ap.add_argument("--new-tokens", type=int, default=128)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--json", default=None, help="also write the runs and medians here")
    args = ap.parse_args()

    import torch
    from demo_phases import _adapter

    from coderl.models import load_model
    from coderl.models.load import fast_dtype
    from coderl.sandbox.client import Sandbox
    from coderl.tasks import load_tasks

    args.dtype = fast_dtype() if args.dtype == "auto" else args.dtype
    pool = load_tasks(args.tasks).tasks
    with tempfile.TemporaryDirectory(prefix="coderl-bench-sdpo-") as tmp:
        path = _adapter(args, tmp)
        loaded = load_model(path, dtype=args.dtype, device="cpu")
        runs = []
        with Sandbox(workers=2) as sandbox:
            for r in range(args.repeats + 1):  # the first warms up
                stride = max(1, len(pool) // (args.prompts * (args.repeats + 1)))
                tasks = pool[r * args.prompts * stride:(r + 1) * args.prompts * stride:stride][:args.prompts]
                got = one_rollout(loaded, tasks, sandbox, args, seed=r)
                print(f"# rollout {r}{' (warm-up)' if r == 0 else ''}: "
                      + json.dumps({k: round(v, 2) for k, v in got.items()}), file=sys.stderr, flush=True)
                if r:
                    runs.append(got)
    med = {k: round(statistics.median(run[k] for run in runs), 2) for k in runs[0]}
    plain = med["generate_s"] + med["score_s"] + med["update_s"]
    extra = med["feedback_s"] + med["teacher_s"]
    print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, torch "
          f"{torch.__version__}, {torch.get_num_threads()} threads, {args.dtype}; {args.tasks}, {args.prompts} x "
          f"{args.samples} rows, {args.new_tokens} new tokens; medians of {len(runs)} rollouts")
    print("| phase | seconds | share of the plain step |\n|---|---|---|")
    for key, label in (("generate_s", "generate"), ("score_s", "score"), ("update_s", "update (fwd + bwd, 2 x 16)"),
                       ("feedback_s", "SDPO: visible-test runs + feedback"),
                       ("teacher_s", "SDPO: teacher pass (no grad)")):
        print(f"| {label} | {med[key]:.2f} | {med[key] / plain:.1%} |")
    print(f"| plain step (generate + score + update) | {plain:.2f} | 100% |")
    print(f"| SDPO's extra | {extra:.2f} | **{extra / plain:.1%}** |")
    print(f"rows failed {med['failed']:.0f} of {med['rows']:.0f}, with feedback {med['with_feedback']:.0f}; prompt "
          f"tokens: student {med['student_prompt_tokens']:.0f}, teacher {med['teacher_prompt_tokens']:.0f}; "
          f"completion tokens {med['gen_tokens']:.1f}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"args": vars(args), "runs": runs, "medians": med}, f, indent=1)


if __name__ == "__main__":
    main()
