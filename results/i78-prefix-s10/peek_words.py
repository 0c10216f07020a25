"""PrefixRL's premise with word cuts (issue 78, tenth session), as results/i78-prefix-s9/peek3.py measured line cuts:
32 level-2 pool tasks (every 37th with a prefix to give) x 4 samples at T 0.8, 128 tokens, from an SFT adapter
(argv[1]; the demo's SFT settings), plain, with the reference's first line (`--prefix-cut lines`, fraction 0.5) and
with a word cut drawn per task (`--prefix-cut words`, fractions 0.5 and 0.9; key "0/0/0" as step 0 of seed 0):
samples passing, groups with a pass, mixed groups (the ones GRPO learns from), and the prefixes' mean length in
words.

    python results/i78-prefix-s10/peek_words.py ADAPTER [--dtype float32]
"""
import sys

from coderl.models import load_model
from coderl.rollout import generation
from coderl.sandbox import Sandbox
from coderl.tasks import load_tasks
from coderl.train.sources.prefixes import prefixed, prefixed_round

dtype = sys.argv[sys.argv.index("--dtype") + 1] if "--dtype" in sys.argv else "float32"
loaded = load_model(sys.argv[1], dtype=dtype, device="cpu")
tasks = [t for t in load_tasks("pool:level=2").tasks[::37] if prefixed(t, "chat", 0.5)][:32]
conditions = {"plain": tasks,
              "lines 0.5": [prefixed(t, "chat", 0.5) for t in tasks],
              "words 0.5": prefixed_round(tasks, [0.0] * len(tasks), below=0.1, fraction=0.5, format="chat",
                                          cut="words", key="0/0/0"),
              "words 0.9": prefixed_round(tasks, [0.0] * len(tasks), below=0.1, fraction=0.9, format="chat",
                                          cut="words", key="0/0/0")}
with Sandbox(workers=2) as sb:
    for name, ts in conditions.items():
        out = generation.generate(loaded.model, loaded.tokenizer, ts, format="chat", samples_per_prompt=4,
                                  max_new_tokens=128, temperature=0.8, batch_size=128, seed=0)
        res = sb.run_many([ts[s.group].build_request(s.completion) for s in out.samples])
        groups = [sum(r.passed for s, r in zip(out.samples, res) if s.group == g) for g in range(len(ts))]
        words = [len(t.opening.split("\n", 1 + t.prompt.count("\n"))[-1].split()) if t.opening else 0 for t in ts]
        print(f"{name}: pass {sum(groups)}/{len(res)}, groups with a pass {sum(g > 0 for g in groups)}/{len(ts)}, "
              f"mixed {sum(0 < g < 4 for g in groups)}, tokens {sum(len(s.gen_tokens) for s in out.samples)}, "
              f"prefix words {sum(words) / len(words):.1f}", flush=True)
