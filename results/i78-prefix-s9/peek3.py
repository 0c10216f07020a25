import sys
from coderl.models import load_model
from coderl.rollout import generation
from coderl.sandbox import Sandbox
from coderl.tasks import load_tasks
from coderl.train.sources.prefixes import prefixed
loaded = load_model("/work/notes/s7/seeds/demo7d0/sft-adapter", dtype="bfloat16", device="cpu")
tasks = [t for t in load_tasks("pool:level=2").tasks[::37] if prefixed(t, "chat", 0.5)][:32]
with Sandbox(workers=2) as sb:
    for frac in (None, 0.5, 0.99):
        ts = tasks if frac is None else [prefixed(t, "chat", frac) for t in tasks]
        out = generation.generate(loaded.model, loaded.tokenizer, ts, format="chat", samples_per_prompt=4,
                                  max_new_tokens=128, temperature=0.8, batch_size=128, seed=0)
        res = sb.run_many([ts[s.group].build_request(s.completion) for s in out.samples])
        groups = [sum(r.passed for s, r in zip(out.samples, res) if s.group == g) for g in range(len(ts))]
        print(f"fraction {frac}: pass {sum(groups)}/{len(res)}, groups with a pass {sum(g > 0 for g in groups)}/{len(ts)},"
              f" mixed {sum(0 < g < 4 for g in groups)}, tokens {sum(len(s.gen_tokens) for s in out.samples)}", flush=True)
