"""SDPO's premise on the bundled model (issue 78, tenth session): does the policy, shown the sandbox's feedback on
its own failed answer, find a correct program likelier and its failed answer less likely?

For level-2 pool tasks (every 16th; the pool's references are verified and decontaminated): one answer per task
sampled from the bundled SmolLM2-135M-Instruct (chat, T 0.8, 128 tokens, seed 0); for each answer that fails all
tests but whose visible-test run gives feedback (`coderl.train.sources.teacher_prompts`, the rules --self-distill
uses), the mean per-token log-probability, under the plain prompt (student) and under the teacher prompt (the
feedback appended), of (a) the failed answer's own tokens and (b) the task's reference written as the model's
replies are (a ```python block restating the prompt's code, then the reference body).  SDPO needs (b) to rise
and (a) to fall.  Prints the paired means with bootstrap intervals.

    python results/i78-sdpo-s10/premise.py [--every 16] [--model smollm2-135m-instruct]
"""
import argparse
import json
import random
import statistics
import sys

import torch

from coderl.models import load_model
from coderl.models.load import fast_dtype
from coderl.rollout.batching import left_pad
from coderl.rollout.formats import get_format, prompt_text
from coderl.rollout.generation import generate
from coderl.sandbox.client import Sandbox
from coderl.tasks import load_tasks
from coderl.train.rl.logprobs import Sequences, token_logprobs
from coderl.train.sources.teacher_prompts import teacher_prompts


def mean_logprob(model, prompt: list[int], reply: list[int]) -> float:
    ids, att = left_pad([prompt], 0)
    comp = torch.tensor([reply])
    real = torch.ones_like(comp)
    attention = torch.cat([att, real], 1)
    positions = (attention.cumsum(1) - 1).clamp(min=0) * attention
    with torch.no_grad():
        lp = token_logprobs(model, Sequences(torch.cat([ids, comp], 1), attention, positions, comp, real.float()), 1.0)
    return float(lp.mean())


def interval(diffs, seed=0):
    rng = random.Random(seed)
    means = sorted(statistics.mean(rng.choices(diffs, k=len(diffs))) for _ in range(2000))
    return statistics.mean(diffs), means[49], means[1949]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--every", type=int, default=16)
    ap.add_argument("--model", default="smollm2-135m-instruct")
    ap.add_argument("--out", default="results/i78-sdpo-s10/premise.json")
    args = ap.parse_args()
    loaded = load_model(args.model, dtype=fast_dtype(), device="cpu")
    model, tok = loaded.model, loaded.tokenizer
    model.eval()
    tasks = [t for t in load_tasks("pool:level=2").tasks if t.reference_solution][::args.every]
    batch = generate(model, tok, tasks, format="chat", samples_per_prompt=1, temperature=0.8, max_new_tokens=128,
                     batch_size=64, seed=0)
    fmt = get_format("chat")
    rows = []
    with Sandbox(workers=2) as sb:
        results = [f.result() for f in [sb.submit(t.build_request(s.completion)) for t, s in zip(tasks, batch.samples)]]
        passed = [r.passed for r in results]
        teach = teacher_prompts(sb, None, tok, tasks, batch.samples, passed, [s.truncated for s in batch.samples],
                                feedback_tokens=256, room=4096)
    for task, sample, ok, teacher in zip(tasks, batch.samples, passed, teach):
        if teacher is None:
            continue
        rendered = fmt.render(task, tok)
        student = tok(prompt_text(rendered, tok), add_special_tokens=False)["input_ids"]
        reference = tok(f"```python\n{task.prompt}{task.reference_solution}```", add_special_tokens=False)["input_ids"]
        own = list(sample.gen_tokens)
        rows.append({"task_id": task.task_id,
                     "own_student": mean_logprob(model, student, own), "own_teacher": mean_logprob(model, teacher, own),
                     "ref_student": mean_logprob(model, student, reference),
                     "ref_teacher": mean_logprob(model, teacher, reference)})
    print(f"{len(tasks)} tasks, {sum(passed)} passed, {len(rows)} failed answers with feedback", file=sys.stderr)
    summary = {"tasks": len(tasks), "passed": sum(passed), "taught": len(rows)}
    for what in ("own", "ref"):
        m, lo, hi = interval([r[f"{what}_teacher"] - r[f"{what}_student"] for r in rows])
        summary[what] = {"student": statistics.mean(r[f"{what}_student"] for r in rows),
                         "teacher": statistics.mean(r[f"{what}_teacher"] for r in rows), "gap": m, "ci": [lo, hi],
                         "rows_up": sum(r[f"{what}_teacher"] > r[f"{what}_student"] for r in rows)}
        print(f"{what}: mean token log-prob student {summary[what]['student']:.3f}, teacher "
              f"{summary[what]['teacher']:.3f}, teacher - student {m:+.4f} [{lo:+.4f}, {hi:+.4f}], up in "
              f"{summary[what]['rows_up']} of {len(rows)}")
    with open(args.out, "w") as f:
        json.dump({"summary": summary, "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
